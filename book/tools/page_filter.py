#!/usr/bin/env python3
"""Doxygen input filter for the book's Markdown pages: folded blocks, previous/next links, and anchors
in the README.

Doxygen runs it as `page_filter.py ORDER PAGE` for every *.md it reads and uses what it prints.
ORDER lists the book's pages in reading order, one stem per line (written by book/CMakeLists.txt from
book/pages.txt). A page in that list gets a line at its end that links the previous and the next page;
the repository's README gets a stable anchor on every heading (readme_<words>) so that the book can
link its sections, and its links to its own sections, written as GitHub names them
(`[...](#when-it-does-not-run)`), point to those anchors. Any other file passes through unchanged
but for its folded blocks.

Folded blocks. A page folds a long table or a lab note away as GitHub does, outside code blocks:

    <details><summary>Every radius, every stage (16 rows)</summary>

    ... Markdown: tables, paragraphs, lists, listings, \\includedoc, \\snippet ...

    </details>

`<details>` (or `<details open>`) starts a line, `<summary>...</summary>` follows on that line or the
next, `</details>` stands on a line of its own; no heading inside (the table of contents would point
into a closed block). Doxygen 1.9.4 cannot take these tags as they are: it closes the <details> before
the Markdown inside, or leaves it inside a paragraph. So each tag line becomes one \\htmlonly[block]
line (the line count stays, and with it Doxygen's line numbers; the form is doxygen_text.py's, whose
folded() the generated fragments use); the summary is plain text with `code` spans, escaped here.

A summary without its tags, a </details> without a <details>, a block left open, a heading inside
one, and a `\\ref name "title"` whose title runs on to the next line (which Doxygen 1.9.4 misreads far
from the cause) are errors: exit status 1, and Doxygen leaves the page out (check_site.py reports it
missing). `page_filter.py --check PAGE...` reports them without Doxygen (the CTest test book.folds
runs it over every page).

Python 3 standard library only.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import doxygen_text  # noqa: E402  (the one form of a folded block Doxygen takes)

DETAILS_OPEN = re.compile(r"^<details(\s+open)?>\s*(.*)$")
SUMMARY = re.compile(r"^<summary>(.*)</summary>\s*$")
DETAILS_CLOSE = re.compile(r"^</details>\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
REF_TITLE_OPEN = re.compile(r'\\ref\s+\S+\s+"[^"]*$')  # \ref name "a title that runs on to the next line


class PageError(ValueError):
    pass




def unfold_details(lines, name):
    """@lines with each <details>, <summary> and </details> line as \\htmlonly[block] that Doxygen passes on."""
    out, depth, in_code, k = [], 0, False, 0
    while k < len(lines):
        line = lines[k]
        if FENCE.match(line):
            in_code = not in_code
        opened = None if in_code else DETAILS_OPEN.match(line)
        if opened:
            start, rest, extra = k + 1, opened.group(2), []
            if not rest and k + 1 < len(lines):  # the summary on the next line
                rest, extra = lines[k + 1].strip(), [""]
                k += 1
            summary = SUMMARY.match(rest)
            if not summary:
                raise PageError(f"{name}:{start}: <details> must be followed by <summary>...</summary> "
                                f"(on its line or the next)")
            try:
                out.append(doxygen_text.details_start(summary.group(1), bool(opened.group(1))))
            except ValueError as error:
                raise PageError(f"{name}:{start}: {error}") from None
            out.extend(extra)
            depth += 1
        elif not in_code and DETAILS_CLOSE.match(line):
            if depth == 0:
                raise PageError(f"{name}:{k + 1}: </details> without a <details> before it")
            out.append(doxygen_text.details_end())
            depth -= 1
        else:
            if not in_code and REF_TITLE_OPEN.search(re.sub(r"`[^`]*`", "", line)):
                raise PageError(f"{name}:{k + 1}: a \\ref title in quotes must close on its line (Doxygen "
                                f"1.9.4 would swallow the text up to the next quote)")
            if not in_code and depth and re.match(r"^#{1,6}\s", line):
                raise PageError(f"{name}:{k + 1}: a heading inside a folded block (the table of contents would "
                                f"point into a closed block): fold the text under the heading instead")
            if not in_code and re.search(r"</?(details|summary)\b", re.sub(r"`[^`]*`", "", line)):
                raise PageError(f"{name}:{k + 1}: write <details><summary>...</summary> at the start of a line, "
                                f"and </details> on a line of its own")
            out.append(line)
        k += 1
    if depth:
        raise PageError(f"{name}: a <details> is not closed")
    return out


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


def check(pages):
    """--check: the folded blocks of every page; one line per error."""
    errors = 0
    for page in map(pathlib.Path, pages):
        try:
            unfold_details(page.read_text(encoding="utf-8").splitlines(), page.name)
        except PageError as error:
            print(f"page_filter.py: error: {error}")
            errors += 1
    if not errors:
        print(f"page_filter.py: the folded blocks of {len(pages)} page(s) are well formed")
    return 1 if errors else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        return check(sys.argv[2:])
    order = [line.strip() for line in pathlib.Path(sys.argv[1]).read_text(encoding="utf-8").splitlines() if line.strip()]
    page = pathlib.Path(sys.argv[2])
    text = page.read_text(encoding="utf-8")
    try:
        text = "\n".join(unfold_details(text.splitlines(), page.name)) + "\n"
    except PageError as error:
        print(f"page_filter.py: error: {error}", file=sys.stderr)
        return 1
    if page.name == "README.md":
        text = readme_with_anchors(text)
    stem = "README" if page.name == "README.md" else page.stem
    if stem in order:
        text = text.rstrip("\n") + navigation(order, stem)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
