#!/usr/bin/env python3
"""Check the built book (the HTML Doxygen wrote) against the recorded runs it shows.

  - Every table captioned as a recorded run ("<title>: <problem>, on the <device>.") shows exactly the
    columns and the cells, as printed, of that table in the run's record (results/**/*.json): the
    book's tables carry the numbers the programs recorded, no more, no less. So does every table of
    the text's model, captioned without a device, whose record --model-tables names (written by
    book/figures/recorded_runs.py). At least one table of the headline GPU's runs must be found. A
    table composed from several records (captioned <div class="table-caption composed">, as the
    multi-GPU page's launch modes side by side) is its generator's to check, on fixtures.
  - No page shows the same table twice.
  - A pmpp:: name in the text (outside listings and code) is a link to its reference page.
  - Every local link, image and figure resolves to a file of the site.
Exit status 0 when all holds, 1 with one line per problem; with --skip-if-missing, 77 when the site
has not been built.

Python 3 standard library only.
"""
import argparse
import html
import json
import pathlib
import re
import sys
from html.parser import HTMLParser

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_record  # noqa: E402

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def has_class(self, name):
        return name in (self.attrs.get("class") or "").split()

    def inside(self, predicate):
        node = self.parent
        while node is not None:
            if predicate(node):
                return True
            node = node.parent
        return False


class Tree(HTMLParser):
    """A forgiving DOM: end tags close the nearest open element of that name."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.open = self.root
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.open)
        self.open.children.append(node)
        if tag not in VOID:
            self.open = node

    def handle_startendtag(self, tag, attrs):
        self.open.children.append(Node(tag, attrs, self.open))

    def handle_endtag(self, tag):
        node = self.open
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.open = node.parent

    def handle_data(self, data):
        self.open.children.append(data)


def normal(text):
    return " ".join(html.unescape(text).split())


def table_cells(table):
    rows = []
    for tr in (n for n in table.iter() if n.tag == "tr"):
        rows.append([normal(c.text()) for c in tr.children if isinstance(c, Node) and c.tag in ("td", "th")])
    return rows


def next_table(node):
    """The first <table> after @node in document order (a caption precedes its table)."""
    seen = False
    for candidate in root_of(node).iter():
        if candidate is node:
            seen = True
        elif seen and candidate.tag == "table":
            return candidate
    return None


def root_of(node):
    while node.parent is not None:
        node = node.parent
    return node


def recorded_tables(results, model_tables=None):
    """{caption text: (record, table)} for every table of every record, and for the captions of the
    model's tables that @model_tables ({caption: [record path, key]}, paths from results' parent) gives.
    Two records whose tables would share a caption are an error: a reader could not tell which run a
    table came from."""
    found, by_path = {}, {}
    for path in sorted(results.rglob("*.json")):
        record = run_record.load(path)
        by_path[path.relative_to(results.parent).as_posix()] = record
        for table in record.tables:
            caption = normal(f"{table.title}: {record.problem}, on the {record.device}.")
            if caption in found and found[caption][0].path != record.path:
                raise run_record.RecordError(f"{found[caption][0].path} and {path} both hold a table captioned "
                                             f"'{caption[:80]}': make their problems say how the runs differ")
            found[caption] = (record, table)
    for caption, (path, key) in (model_tables or {}).items():
        record = by_path.get(path)
        table = record.table(key) if record else None
        if table is None:
            raise run_record.RecordError(f"the model table '{caption[:60]}' names {path}, table '{key}', "
                                         f"which results/ does not hold")
        if normal(caption) in found:
            raise run_record.RecordError(f"the model table '{caption[:60]}' has the caption of a measured table")
        found[normal(caption)] = (record, table)
    return found


def check_page(path, site, recorded, headline, counts, is_book_page):
    problems = []
    tree = Tree(path.read_text(encoding="utf-8", errors="replace")).root
    contents = next((n for n in tree.iter() if n.tag == "div" and n.has_class("contents")), tree)
    if not is_book_page:  # the API reference: its links only
        return problems + broken_links(path, site, tree)
    seen_tables = {}
    for caption in (n for n in contents.iter() if n.tag == "div" and n.has_class("table-caption")
                    and not n.has_class("composed")):
        text = normal(caption.text())
        if text not in recorded:
            problems.append(f"{path.name}: caption '{text[:90]}' names no recorded table")
            continue
        record, table = recorded[text]
        shown = next_table(caption)
        if shown is None:
            problems.append(f"{path.name}: no table under the caption '{text[:60]}'")
            continue
        cells = table_cells(shown)
        want = [[normal(c) for c in table.columns]] + [[normal(c) if c != "" else "" for c in row] for row in table.printed]
        if cells != want:
            for r, (got_row, want_row) in enumerate(zip(cells, want)):
                if got_row != want_row:
                    problems.append(f"{path.name}: '{text[:60]}', row {r}: the page shows {got_row}, "
                                    f"the record {record.path.name} holds {want_row}")
                    break
            else:
                problems.append(f"{path.name}: '{text[:60]}': {len(cells)} rows shown, {len(want)} recorded")
        counts["tables"] += 1
        if record.path.parent.name == headline:
            counts["headline"] += 1
    for table in (n for n in contents.iter() if n.tag == "table" and n.has_class("markdownTable")):
        key = repr(table_cells(table))
        if key in seen_tables:
            problems.append(f"{path.name}: the same table twice (first row {table_cells(table)[0][:4]})")
        seen_tables[key] = True
    code_like = lambda n: n.tag in ("pre", "code", "a", "script", "style") or n.has_class("fragment") or n.has_class("line")
    for node in contents.iter():
        for child in node.children:
            if isinstance(child, str) and "pmpp::" in child and not code_like(node) and not node.inside(code_like):
                for name in re.findall(r"pmpp::[A-Za-z_][A-Za-z0-9_:]*", child):
                    problems.append(f"{path.name}: '{name}' in the text is not a link to its reference page")
    return problems + broken_links(path, site, tree)


def broken_links(path, site, tree):
    problems = []
    for node in tree.iter():
        for attr in ("href", "src", "data"):
            target = node.attrs.get(attr)
            if not target or re.match(r"^(https?:|mailto:|javascript:|#|data:)", target):
                continue
            file = target.split("#")[0].split("?")[0]
            if file and not (site / file).exists():
                problems.append(f"{path.name}: {node.tag} {attr}='{target}' names a file the site does not have")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", required=True, type=pathlib.Path, help="the built site")
    parser.add_argument("--results", required=True, type=pathlib.Path, help="the recorded runs (results/)")
    parser.add_argument("--headline", required=True, help="the folder of results/ the chapter pages show")
    parser.add_argument("--order", required=True, type=pathlib.Path,
                        help="the book's pages in order (config/book_order.txt); the others are the API reference")
    parser.add_argument("--model-tables", type=pathlib.Path,
                        help="model_tables.json (recorded_runs.py): the captions of the tables of the text's model")
    parser.add_argument("--skip-if-missing", action="store_true", help="exit 77 when the site is not built")
    args = parser.parse_args()
    if not (args.html / "index.html").is_file():
        print(f"check_site.py: no site in {args.html}: build it with the docs target")
        return 77 if args.skip_if_missing else 1
    try:
        models = None
        if args.model_tables:
            models = json.loads(args.model_tables.read_text(encoding="utf-8")) if args.model_tables.is_file() else {}
        recorded = recorded_tables(args.results, models)
    except (run_record.RecordError, ValueError) as error:
        print(f"check_site.py: error: {error}")
        return 1
    stems = [line.strip() for line in args.order.read_text(encoding="utf-8").splitlines() if line.strip()]
    book = {("readme" if stem == "README" else stem) + ".html" for stem in stems}
    missing = sorted(name for name in book if not (args.html / name).is_file())
    pages = sorted(args.html.glob("*.html"))
    counts = {"tables": 0, "headline": 0}
    problems = [f"the book's page {name} was not built" for name in missing]
    for page in pages:
        problems += check_page(page, args.html, recorded, args.headline, counts, page.name in book)
    if recorded and not counts["headline"]:
        problems.append(f"no table of a run recorded in results/{args.headline}/ was found in the book")
    for problem in problems:
        print(f"check_site.py: {problem}")
    if problems:
        print(f"check_site.py: {len(problems)} problem(s)")
        return 1
    print(f"check_site.py: {len(pages)} pages ({len(book)} of the book); {counts['tables']} recorded tables shown exactly as recorded "
          f"({counts['headline']} from results/{args.headline}/); links resolve; pmpp:: names are links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
