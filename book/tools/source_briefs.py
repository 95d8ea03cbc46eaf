#!/usr/bin/env python3
"""Write a Doxygen file (sources.dox) that documents every source file lacking an `@file` comment,
with the first sentence of its header comment as the brief.

Stage files open with a plain `//` header (which section and figure, what changed, what is left),
not a Doxygen comment, and the book lists only documented files. Giving each one a `\\file` entry
here lists every source in the site's file index and makes its full, commented listing a link target,
without touching the sources.

Python 3 standard library only.
"""
import argparse
import pathlib
import re
import sys

SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h"}
RULER = re.compile(r"^//\s*[=\-]{8,}\s*$")
DOXYGEN_FILE = re.compile(r"^\s*(///|//!|/\*\*|/\*!|\*)?\s*[@\\]file\b")


def header_sentence(text):
    """The first sentence of the first paragraph of `//` comments at the top of the file."""
    paragraph = []
    for line in text.splitlines():
        stripped = line.strip()
        if RULER.match(stripped):
            if paragraph:
                break
            continue
        if not stripped.startswith("//"):
            break
        body = stripped.lstrip("/").strip()
        if not body:
            if paragraph:
                break
            continue
        paragraph.append(body)
    sentence = " ".join(paragraph)
    # A full stop ends the sentence, unless it ends an abbreviation ("e.g.", "4th ed.").
    match = re.search(r"(?<!e\.g)(?<!i\.e)(?<!\bed)(?<!\bvs)\.\s", sentence)
    return sentence[:match.start() + 1] if match else sentence


def escape(text):
    for old, new in (("\\", "\\\\"), ("@", "\\@"), ("<", "&lt;"), (">", "&gt;"), ("&", "\\&"), ("#", "\\#"),
                     ("%", "\\%"), ("$", "\\$")):
        text = text.replace(old, new)
    return text.replace("\\&lt;", "&lt;").replace("\\&gt;", "&gt;")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True, type=pathlib.Path, help="the repository root")
    parser.add_argument("--roots", nargs="+", required=True, help="folders under the root to index")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="the .dox file to write")
    args = parser.parse_args()

    entries = []
    for root in args.roots:
        for path in sorted((args.project / root).rglob("*")):
            if not (path.is_file() and path.suffix in SUFFIXES):
                continue
            text = path.read_text(encoding="utf-8")
            if any(DOXYGEN_FILE.match(line) for line in text.splitlines()[:40]):
                continue  # the file documents itself
            # Absolute: Doxygen's \file does not resolve a relative path when several files share
            # the name (every chapter has a stages.cpp). Quoted: unquoted, a path through a folder
            # whose name starts with a dot (~/.local/...) ends at that dot.
            name = path.resolve().as_posix()
            brief = header_sentence(text) or f"Part of {path.parent.name}."
            entries.append(f'/** \\file "{name}"\n    \\brief {escape(brief)}\n*/\n')
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(entries), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
