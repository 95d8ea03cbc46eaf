#!/usr/bin/env python3
"""Doxygen input filter for the book's Markdown pages: previous/next links, and anchors in the README.

Doxygen runs it as `page_filter.py ORDER PAGE` for every *.md it reads and uses what it prints.
ORDER lists the book's pages in reading order, one stem per line (written by book/CMakeLists.txt from
book/pages.txt). A page in that list gets a line at its end that links the previous and the next page;
the repository's README gets a stable anchor on every heading (readme_<words>) so that the book can
link its sections, and its links to its own sections, written as GitHub names them
(`[...](#when-it-does-not-run)`), point to those anchors. Any other file passes through unchanged.

Python 3 standard library only.
"""
import pathlib
import re
import sys


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def page_id(stem):
    return "readme" if stem == "README" else stem


def navigation(order, stem):
    at = order.index(stem)
    links = []
    if at > 0:
        links.append(f"Previous: \\ref {page_id(order[at - 1])}")
    if at + 1 < len(order):
        links.append(f"Next: \\ref {page_id(order[at + 1])}")
    if not links:
        return ""
    return ('\n\n\\htmlonly[block]<div class="page-nav">\\endhtmlonly\n' + " &emsp; ".join(links) +
            '\n\\htmlonly[block]</div>\\endhtmlonly\n')


def readme_with_anchors(text):
    out, in_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^(#+)\s+(.*?)\s*$", line)
        if m and "{#" not in line:
            level, title = m.groups()
            if level == "#":  # the page's title: the menu already has the project's name
                line = f"# README {{#readme}}"
            else:
                line = f"{level} {title} {{#readme_{slug(title)}}}"
        if not in_code:
            line = re.sub(r"\]\(#([a-z0-9-]+)\)", lambda link: f"](#readme_{slug(link.group(1))})", line)
        out.append(line)
    return "\n".join(out) + "\n"


def main():
    order = [line.strip() for line in pathlib.Path(sys.argv[1]).read_text(encoding="utf-8").splitlines() if line.strip()]
    page = pathlib.Path(sys.argv[2])
    text = page.read_text(encoding="utf-8")
    if page.name == "README.md":
        text = readme_with_anchors(text)
    stem = "README" if page.name == "README.md" else page.stem
    if stem in order:
        text = text.rstrip("\n") + navigation(order, stem)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
