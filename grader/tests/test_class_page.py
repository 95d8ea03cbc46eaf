#!/usr/bin/env python3
"""The class page and the feedback in results.json, from the fixture class (class_page_fixture/: made-up
values) and from a class of hostile names and strings; no GPU, no browser. Checks that:
- the leaderboard ranks only correct kernels whose timing passed the physics check, fastest first;
  flagged timings are listed apart; a kernel that is not correct is nowhere;
- students appear under pseudonyms, the same on every run with the same key, others with another key,
  and under their names only with --leaderboard-names;
- the counters' quarters are the medians of the fixture's values;
- the page is self-contained (no script, no address elsewhere), and nothing a student or feedback.json
  wrote becomes markup, on the page or in results.json's Markdown;
- results.json keeps its tests and, with feedback, gets it as Markdown (again on a second run, not
  twice); without feedback it is left as it was.
Each check is also run on a page planted with the fault it looks for, which it must report."""

import html.parser
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from grading import class_page, names, reports  # noqa: E402

FIXTURE = HERE / "class_page_fixture"
PSEUDONYM = re.compile(r"[a-z]+-[a-z]+-[0-9]{2}")
HOSTILE = ["<script>window.pwned=1</script>", '"><img src=x onerror="window.pwned=1">', "a&amp;b & c",
           "[link](javascript:alert(1))", "![pic](http://example.com/x.png)", "`code` *bold* _it_ # head | pipe",
           "\u202eevil\u202c", "caf\udcff", "=HYPERLINK(\"x\")", "line\nbreak", "<!-- open comment", "</table></section>"]


class Page(html.parser.HTMLParser):
    """What the page holds: every tag with its attributes, the text, and per section and heading the
    table rows (cells as text)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.tables = [], [], {}
        self._section, self._heading, self._row, self._cell, self._in = None, "", None, None, None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        if tag == "section":
            self._section = dict(attrs).get("id")
        elif tag in ("h2", "h3"):
            self._in, self._heading = tag, ""
        elif tag == "tr":
            self._row = []
            self.tables.setdefault((self._section, self._heading), []).append(self._row)
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == self._in:
            self._in = None

    def handle_data(self, data):
        self.text.append(data)
        if self._in:
            self._heading += data
        if self._cell is not None:
            self._cell += data

    def rows(self, section, heading):
        """The body rows of the table under @heading in @section (its header row left out)."""
        return self.tables.get((section, heading), [])[1:]


LEADERS, FLAGGED, COUNTERS = "Fastest correct kernels", "Flagged timings (never ranked)", \
    "What separates the fast from the slow"


def injection_problems(page_html: str, hostile=()) -> list:
    """Markup that does not belong on the page: a script, an event handler, an address elsewhere, an image
    or frame; and each @hostile text that does not come out as that very text."""
    page = Page(page_html)
    problems = []
    for tag, attrs in page.tags:
        if tag in ("script", "img", "iframe", "object", "embed", "link", "base", "form", "meta") and \
                not (tag == "meta" and all(k in ("charset", "name", "content") for k, _ in attrs)):
            problems.append(f"a <{tag}> element")
        for key, value in attrs:
            if key.startswith("on"):
                problems.append(f"an event handler {key} on <{tag}>")
            if key in ("href", "src", "xlink:href", "action") and not (value or "").startswith("#"):
                problems.append(f"<{tag} {key}={value!r}>: an address outside the page")
    if re.search(r"@import|url\(", page_html):
        problems.append("a style that loads something from elsewhere")
    text = "".join(page.text)
    for s in hostile:
        if reports.one_line(s) not in text:
            problems.append(f"{s!r} is not on the page as text")
    return problems


def leaderboard_problems(page: Page, section: str, flagged: set, incorrect: set) -> list:
    rows = page.rows(section, LEADERS)
    problems = [f"{section}: {r[1]} is ranked but flagged" for r in rows if r[1] in flagged]
    problems += [f"{section}: {r[1]} is ranked but not correct" for r in rows if r[1] in incorrect]
    shares = [float(r[3].rstrip("%")) for r in rows]
    if shares != sorted(shares, reverse=True):
        problems.append(f"{section}: the leaderboard is not fastest first: {shares}")
    if [r[0] for r in rows] != [str(i) for i in range(1, len(rows) + 1)]:
        problems.append(f"{section}: ranks are not 1, 2, 3...")
    return problems


def copy_fixture(into: Path) -> Path:
    out = into / "out"
    shutil.copytree(FIXTURE, out, ignore=shutil.ignore_patterns("README.md"))
    return out


def fixture_feedback():
    """By display name: the fixture's feedback.json (or None) and results.json."""
    import csv
    with open(FIXTURE / "grades.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    found = {}
    for row in rows:
        if row[-1]:
            folder = FIXTURE / Path(row[-1]).parent
            feedback = folder / "feedback.json"
            found[row[0]] = (json.loads(feedback.read_text()) if feedback.exists() else None,
                             json.loads((folder / "results.json").read_text()))
    return found


def check_fixture(tmp: Path, failures: list):
    out = copy_fixture(tmp)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("results.json")}
    class_page.finish_class(out)
    first = (out / "class.html").read_text(encoding="utf-8")
    page = Page(first)
    failures += injection_problems(first)
    feedback = fixture_feedback()
    key = class_page.class_key(out)
    pseudonym = class_page.pseudonyms(list(grades_names(out)), key)

    # Who is where, for ex10.1: farah's timing is flagged, ivo's kernel is not correct, jun's not timed.
    flagged, incorrect = {pseudonym["farah"]}, {pseudonym["ivo"]}
    failures += leaderboard_problems(page, "ex10-1", flagged, incorrect)
    ranked = [r[1] for r in page.rows("ex10-1", LEADERS)]
    if ranked[:1] != [pseudonym["alice"]] or pseudonym["jun"] in ranked or len(ranked) != 8:
        failures.append(f"ex10.1's leaderboard should be alice's first, 8 kernels, without jun's: {ranked}")
    if [r[0] for r in page.rows("ex10-1", FLAGGED)] != [pseudonym["farah"]]:
        failures.append(f"ex10.1's flagged timings should be farah's alone: {page.rows('ex10-1', FLAGGED)}")
    if any(pseudonym["ivo"] in " ".join(r) for rows in page.tables.values() for r in rows):
        failures.append("ivo's kernel, not correct, is on the page")
    if not all(PSEUDONYM.fullmatch(r[1]) for s in ("ex07-3", "ex10-1", "ex10-2") for r in page.rows(s, LEADERS)):
        failures.append("a name on the leaderboard is not a pseudonym")
    text = "".join(page.text)
    for name in ("alice", "chen wei", "émile", "farah", "gus", "hana", "lea"):
        if re.search(rf"\b{re.escape(name)}\b", text):
            failures.append(f"the name {name!r} is on the page without --leaderboard-names")

    # The quarters of ex10.1's counters: the medians of the two fastest and the two slowest of 8.
    fast, slow = [pseudonym[n] for n in ("alice", "gus")], [pseudonym[n] for n in ("hana", "dana")]
    by_pseudonym = {pseudonym[n]: f for n, (f, _) in feedback.items() if f}

    def med(group, counter):
        return statistics.median(c["yours"] for p in group for e in by_pseudonym[p]["exercises"]
                                 if e["exercise"] == "ex10.1" for c in e["counters"] if c["name"] == counter)
    rows = {r[0]: r for r in page.rows("ex10-1", COUNTERS)}
    sectors = next((r for name, r in rows.items() if name.startswith("sectors per request")), None)
    want = [reports.fmt_quantity(med(fast, "sectors per request")), reports.fmt_quantity(med(slow, "sectors per request"))]
    if sectors is None or sectors[1:3] != want:
        failures.append(f"ex10.1: sectors per request should be {want} (fastest, slowest quarter): {sectors}")

    # results.json: feedback added as Markdown, tests untouched, the student's pseudonym named; the same
    # after a second run; students without feedback untouched.
    class_page.finish_class(out)
    if (out / "class.html").read_text(encoding="utf-8") != first:
        failures.append("a second run with the same key made another page")
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("results.json")}
    for path, old in before.items():
        old_data, new_data = json.loads(old), json.loads(after[path])
        has_feedback = (out / path).with_name("feedback.json").exists()
        if new_data["tests"] != old_data["tests"] or new_data["score"] != old_data["score"]:
            failures.append(f"{path}: its tests or score changed")
        if not has_feedback and after[path] != old:
            failures.append(f"{path}: changed, though it has no feedback")
        if has_feedback and (new_data.get("output_format") != "md" or
                             new_data.get("extra_data", {}).get("summary") != old_data["output"] or
                             new_data["output"].count("## Your kernels against the floor") != 1):
            failures.append(f"{path}: feedback not added once as Markdown, the summary kept")
    alice = json.loads((out / "alice" / "results.json").read_text())
    if f"you are **{reports.md_text(pseudonym['alice'])}**" not in alice["output"] or \
            "**Largest gap:**" not in alice["output"] or "    Score: 104 / 104 points for alice." not in alice["output"]:
        failures.append(f"alice's results.json lacks her pseudonym, her largest gap or her score:\n{alice['output']}")
    farah = json.loads((out / "farah" / "results.json").read_text())
    if "**Flagged:**" not in farah["output"]:
        failures.append("farah's results.json does not say her ex10.1 timing was flagged")
    jun = json.loads((out / "jun" / "results.json").read_text())
    if "Not timed: not timed: the feedback case ran out of time" not in jun["output"].replace("\\", ""):
        failures.append("jun's results.json does not say why ex10.1 was not timed")

    # Another key: other pseudonyms. Names only when asked for.
    other = copy_fixture(tmp / "other")
    class_page.finish_class(other)
    if Page((other / "class.html").read_text()).rows("ex10-1", LEADERS)[0][1] == pseudonym["alice"]:
        failures.append("another key gave alice the same pseudonym")
    class_page.finish_class(other, with_names=True)
    named = Page((other / "class.html").read_text())
    if named.rows("ex10-1", LEADERS)[0][1] != "alice" or named.rows("ex10-1", FLAGGED)[0][0] != "farah":
        failures.append("with --leaderboard-names, the leaderboard does not name alice first, or farah as flagged")


def grades_names(out: Path):
    import csv
    with open(out / "grades.csv", newline="") as f:
        return [row[0] for row in list(csv.reader(f))[1:] if row]


def check_hostile(tmp: Path, failures: list):
    """A class whose names, and every string of whose feedback.json, are hostile."""
    out = tmp / "hostile"
    out.mkdir()
    template = json.loads((FIXTURE / "alice" / "feedback.json").read_text())
    results = json.loads((FIXTURE / "alice" / "results.json").read_text())
    shown = [names.display_name(n) for n in HOSTILE]
    folders = names.report_folders(shown, taken=["grades.csv"])
    rows = []
    for i, name in enumerate(shown):
        bad = HOSTILE[i % len(HOSTILE)]
        feedback = json.loads(json.dumps(template))
        feedback["gpu"] = bad
        for e in feedback["exercises"]:
            e["launch"], e["largest_gap"] = bad, bad
            e["physics"] = {"flagged": i % 3 == 0, "line": bad}
            e["profiling"]["line"] = bad
            for c in e["counters"]:
                c["name"], c["unit"] = bad + c["name"], bad
        (out / folders[name]).mkdir()
        (out / folders[name] / "results.json").write_text(json.dumps(results))
        (out / folders[name] / "feedback.json").write_text(json.dumps(feedback))
        rows.append((name, {"ex10.1": 12}, f"{folders[name]}/results.json"))
    reports.write_csv(out / "grades.csv", [{"id": "ex07.3"}, {"id": "ex10.1"}, {"id": "ex10.2"}], rows)
    class_page.finish_class(out, with_names=True)
    page = (out / "class.html").read_text(encoding="utf-8")
    failures += [f"hostile class: {p}" for p in injection_problems(page, HOSTILE + shown)]
    md = "\n".join(json.loads((out / folders[n] / "results.json").read_text())["output"] for n in shown)
    failures += [f"hostile class: results.json: {p}" for p in markdown_problems(md, HOSTILE)]


def markdown_problems(md: str, hostile) -> list:
    """Each @hostile text that is in the Markdown as it is (and so may be read as markup) or not at all."""
    problems = []
    for s in hostile:
        if reports.one_line(s) in md:
            problems.append(f"{s!r} is in the Markdown unescaped")
        if reports.md_text(s) not in md:
            problems.append(f"{s!r} is not in the Markdown (escaped)")
    return problems


def check_the_checks(failures: list):
    """Each check reports the fault it is there for, on a page planted with it."""
    planted = '<section id="ex10-1"><h3>Fastest correct kernels</h3><table><tr><th>rank</th></tr>' \
              '<tr><td>1</td><td>olive-beaver-20</td><td>1 ms</td><td>50%</td></tr>' \
              '<tr><td>2</td><td>calm-seal-01</td><td>1 ms</td><td>60%</td></tr></table></section>'
    page = Page(planted)
    if len(leaderboard_problems(page, "ex10-1", {"olive-beaver-20"}, {"calm-seal-01"})) != 3:
        failures.append("the leaderboard check misses a flagged kernel, a wrong one, or the order")
    if not injection_problems(f"<p>{HOSTILE[0]}</p>") or not injection_problems(f"<p>{HOSTILE[1]}</p>") or \
            not injection_problems('<a href="https://example.com">x</a>') or not injection_problems("<p>x</p>", ["y"]):
        failures.append("the injection check misses a script, an event handler, an address elsewhere or missing text")
    if len(markdown_problems(f"x {HOSTILE[3]} y", [HOSTILE[3], HOSTILE[0]])) != 3:
        failures.append("the Markdown check misses a link left as it is, or a string left out")


def check_command_line(tmp: Path, failures: list):
    for argv in ([str(tmp / "nowhere")], [], [str(FIXTURE), "--no-such-option"]):
        result = subprocess.run([sys.executable, "-m", "grading.class_page", *argv], cwd=HERE.parent,
                                capture_output=True, text=True)
        if result.returncode != 2 or len(result.stderr.strip().splitlines()) != 1:
            failures.append(f"class_page {argv}: exit {result.returncode}, stderr {result.stderr!r}: "
                            "expected 2 and one line")
    out = copy_fixture(tmp / "cli")
    result = subprocess.run([sys.executable, "-m", "grading.class_page", str(out)], cwd=HERE.parent,
                            capture_output=True, text=True)
    if result.returncode != 0 or not (out / "class.html").is_file() or (out / ".class-page-key").stat().st_mode & 0o077:
        failures.append(f"class_page OUT: exit {result.returncode}, {result.stderr!r}; or the key is readable by others")


def check_quantities(failures):
    """Measured numbers keep their value under their prefix (a bank-conflict count of 958276 is 958 k)."""
    for value, unit, want in ((958276, "", "958 k"), (4096, "", "4096"), (1076159744, "B", "1.08 GB"),
                              (0.8736, "ms", "0.874 ms"), (12345678, "", "12.3 M"), (99999, "", "99999")):
        if reports.fmt_quantity(value, unit) != want:
            failures.append(f"fmt_quantity({value}, {unit!r}) is {reports.fmt_quantity(value, unit)!r}, not {want!r}")


def main() -> int:
    failures = []
    check_quantities(failures)
    with tempfile.TemporaryDirectory(prefix="class-page-") as tmp:
        tmp = Path(tmp)
        (tmp / "other").mkdir()
        (tmp / "cli").mkdir()
        check_the_checks(failures)
        check_fixture(tmp, failures)
        check_hostile(tmp, failures)
        check_command_line(tmp, failures)
    return report("test_class_page", failures)


def report(test: str, failures: list) -> int:
    """Print each failure and the verdict; the exit status."""
    for f in failures:
        print(f"FAIL: {f}")
    print(f"{test}: {'FAILED' if failures else 'passed'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
