#!/usr/bin/env python3
"""Check that every code listing of the book is a live snippet, and that no snippet marker is orphaned.

The book shows code only through Doxygen's `\\snippet <file> <name>`, which copies the lines between
the two `//! [name]` markers of a compiled, tested source file. This check fails when
  - a `\\snippet` names a file that does not exist (or a name that matches several files),
  - a `\\snippet` names a marker that the file does not have as a pair,
  - a source file has a `//! [name]` marker that is not exactly one pair, or a pair no page uses.
Exit status 0 when all is well, 1 with one line per problem otherwise.

Python 3 standard library only.
"""
import argparse
import pathlib
import re
import sys

SNIPPET = re.compile(r"[\\@]snippet(?:\{[^}]*\})?\s+(\S+)\s+(.+?)\s*$")
MARKER = re.compile(r"^\s*//!\s*\[([^\]]+)\]\s*$")
SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc"}


def sources_under(roots):
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path


def resolve(name, roots):
    """Files whose path ends with `name` (as Doxygen matches a snippet file against EXAMPLE_PATH)."""
    wanted = pathlib.PurePosixPath(name).parts
    found = []
    for root in roots:
        for path in sources_under([root]):
            parts = path.relative_to(root).parts
            if parts[-len(wanted):] == wanted:
                found.append(path)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="+", required=True, type=pathlib.Path,
                        help="folders whose *.md pages use \\snippet")
    parser.add_argument("--example-path", nargs="+", required=True, type=pathlib.Path,
                        help="folders a \\snippet file name is looked up in (Doxygen's EXAMPLE_PATH)")
    parser.add_argument("--marker-roots", nargs="+", required=True, type=pathlib.Path,
                        help="folders whose sources may hold //! [name] markers")
    args = parser.parse_args()
    for folder in args.pages + args.example_path + args.marker_roots:
        if not folder.is_dir():
            print(f"check_snippets: error: {folder} is not a folder")
            return 2

    problems = []
    used = set()  # (resolved file, marker name)
    uses = 0
    documents = [p for folder in args.pages for p in sorted(folder.glob("*.md"))]
    documents += list(sources_under(args.marker_roots))  # a header's own docs may use \snippet too
    for document in documents:
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
            match = SNIPPET.search(line)
            if not match:
                continue
            uses += 1
            name, marker = match.group(1), match.group(2)
            where = f"{document}:{number}"
            files = resolve(name, args.example_path)
            if not files:
                problems.append(f"{where}: \\snippet names a missing file '{name}'")
                continue
            if len(files) > 1:
                problems.append(f"{where}: \\snippet file name '{name}' is ambiguous: "
                                + ", ".join(str(f) for f in files))
                continue
            tag = f"[{marker}]"
            count = sum(tag in text for text in files[0].read_text(encoding="utf-8").splitlines())
            if count != 2:
                problems.append(f"{where}: \\snippet names a missing marker '{marker}' in {files[0]} "
                                f"(found {count} marker lines, need a pair)")
                continue
            used.add((files[0].resolve(), marker))

    markers = 0
    for source in sources_under(args.marker_roots):
        counts = {}
        first_line = {}
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            match = MARKER.match(line)
            if match:
                counts[match.group(1)] = counts.get(match.group(1), 0) + 1
                first_line.setdefault(match.group(1), number)
        for marker, count in counts.items():
            markers += 1
            where = f"{source}:{first_line[marker]}"
            if count != 2:
                problems.append(f"{where}: marker '{marker}' appears {count} times; it must open and close once")
            elif (source.resolve(), marker) not in used:
                problems.append(f"{where}: marker '{marker}' is not used by any \\snippet (unused marker)")

    for problem in problems:
        print(problem)
    if problems:
        print(f"check_snippets: {len(problems)} problem(s)")
        return 1
    print(f"check_snippets: {uses} \\snippet listing(s), {markers} marker pair(s): every listing resolves "
          "and every marker is used")
    return 0


if __name__ == "__main__":
    sys.exit(main())
