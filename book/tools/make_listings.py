#!/usr/bin/env python3
"""Make the copies of the sources that the book's listings (\\snippet) are cut from: the tested code
without its instrumentation.

The reduction kernels take a `Probe` and call it at every add and every global access
(chapters/ch10_reduction/probe.cuh): the build that is checked and timed passes one whose calls
compile to nothing, the instrumented build one that counts. The tested source has to keep those
calls, but a listing in the book should read like the kernel a student writes from the text. So the
copies drop, and only drop:
  - statements that only feed the probe: a line `probe.name(...);` (with its comment, if any), and a
    kernel's own probe that counts nothing, declared on a line of its own (`NoProbe probe;`);
  - the probe in signatures: `template <class Probe>` lines, `, class Probe` in a template list,
    a `Probe probe` / `Probe& probe` parameter (alone on a line, the previous line's comma goes too);
  - the probe as the last argument of a call: `, probe)`;
  - the `with_probe(..., [&](auto probe) {` wrapper of a launch: the launch inside stays, dedented,
    and the wrapper's closing `});` goes.
Everything else is copied byte for byte, so snippet markers and every other line are unchanged. The
copies are checked: no line inside a `//! [name]` listing may still mention a probe.

Python 3 standard library only.
"""
import argparse
import pathlib
import re
import shutil
import sys

SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h"}
PROBE_STATEMENT = re.compile(r"^\s*probe\.\w+\(.*\);\s*(//.*)?$")
PROBE_DECLARATION = re.compile(r"^\s*\w*Probe\s+probe\s*;\s*(//.*)?$")
TEMPLATE_ONLY_PROBE = re.compile(r"^\s*template\s*<\s*class\s+Probe\s*>\s*$")
PROBE_IN_TEMPLATE = re.compile(r",\s*class\s+Probe\b")
PROBE_PARAMETER = re.compile(r",\s*Probe\s*&?\s*probe\b")
PROBE_PARAMETER_LINE = re.compile(r"^\s*Probe\s*&?\s*probe(\).*)$")
PROBE_ARGUMENT = re.compile(r",\s*probe\)")
WITH_PROBE = re.compile(r"^(\s*)with_probe\(.*\[&\]\(auto probe\)\s*\{\s*$")
MARKER = re.compile(r"^\s*//!\s*\[([^\]]+)\]\s*$")
MENTION = re.compile(r"\bprobe\b|\bProbe\b|with_probe", re.IGNORECASE)


def strip(text):
    """@text without its instrumentation (see the module's docstring)."""
    out = []
    dedent = []  # indentation of each open with_probe wrapper
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        if dedent and body.strip() == "});" and len(body) - len(body.lstrip()) == dedent[-1]:
            dedent.pop()
            continue
        if m := WITH_PROBE.match(body):
            dedent.append(len(m.group(1)))
            continue
        if PROBE_STATEMENT.match(body) or PROBE_DECLARATION.match(body) or TEMPLATE_ONLY_PROBE.match(body):
            continue
        if m := PROBE_PARAMETER_LINE.match(body):
            previous = out.pop().rstrip("\n").rstrip()
            out.append(previous.rstrip(",") + m.group(1) + "\n")
            continue
        body = PROBE_ARGUMENT.sub(")", PROBE_PARAMETER.sub("", PROBE_IN_TEMPLATE.sub("", body)))
        for _ in dedent:  # the wrapper's body moves out by one level (two spaces)
            if body.startswith("  "):
                body = body[2:]
        out.append(body + ("\n" if line.endswith("\n") else ""))
    return "".join(out)


def leftovers(text):
    """(line number, line) of every line inside a //! [name] listing that still mentions a probe."""
    found, inside = [], set()
    for number, line in enumerate(text.splitlines(), 1):
        if m := MARKER.match(line):
            inside ^= {m.group(1)}
            continue
        if inside and MENTION.search(line):
            found.append((number, line.strip()))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True, type=pathlib.Path, help="the repository root")
    parser.add_argument("--roots", nargs="+", required=True, help="folders under the root to copy")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="where the copies go (emptied first)")
    args = parser.parse_args()

    if args.out.exists():
        shutil.rmtree(args.out)
    problems, stripped = [], 0
    for root in args.roots:
        for path in sorted((args.project / root).rglob("*")):
            if not (path.is_file() and path.suffix in SUFFIXES):
                continue
            text = path.read_text(encoding="utf-8")
            copy = strip(text)
            stripped += copy != text
            target = args.out / path.relative_to(args.project)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(copy, encoding="utf-8")
            for number, line in leftovers(copy):
                problems.append(f"{path.relative_to(args.project)}: listing line '{line}' still mentions the probe "
                                f"(line {number} of the copy): write it in one of the forms this script drops")
    for problem in problems:
        print(f"make_listings.py: {problem}")
    if problems:
        return 1
    print(f"make_listings.py: copies in {args.out}; instrumentation dropped from {stripped} file(s), none left in a listing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
