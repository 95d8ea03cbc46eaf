"""The class page: how a class's correct kernels compare with the floor, the solution and each other.

From a folder of class reports (grades.csv, and beside it each student's folder with results.json and,
where the kernels were timed on a GPU, feedback.json), write OUT/class.html: one self-contained HTML file
(no script, no font or style from elsewhere; charts drawn here as inline SVG) that shows, per exercise,
the spread of the correct kernels' speed as a share of the floor with the solution's marked, the fastest
correct kernels whose timing passed the physics check, the flagged timings apart (never ranked), and the
counters whose values part the fastest quarter from the slowest. It also adds each student's feedback to
their results.json (reports.add_feedback), with the name they have on the page.

Students appear under a pseudonym: two words and a number drawn from an HMAC of their name under a key
kept in OUT (KEY_FILE, made on first use, readable by its owner only). The same key gives the same
pseudonyms on every run; without it, a classmate cannot tell whose a pseudonym is. Names appear only
with --leaderboard-names. Everything that comes from a student or from feedback.json is escaped.

    PYTHONPATH=grader python3 -m grading.class_page OUT [--leaderboard-names]
"""

import argparse
import csv
import hashlib
import hmac
import html
import json
import math
import os
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from . import reports
from .reports import fmt_quantity, fmt_share, number, one_line

PAGE = "class.html"
KEY_FILE = ".class-page-key"  # never a report folder's name: those never start with '.'
FEEDBACK = "feedback.json"
LEADERBOARD_SIZE = 10
MIN_KERNELS_TO_COMPARE = 4  # a quarter of fewer than 4 kernels is no quarter at all

ADJECTIVES = ("amber", "brisk", "calm", "dapper", "eager", "fuzzy", "gentle", "hasty", "icy", "jolly", "keen",
              "lucky", "mellow", "nimble", "olive", "plucky", "quiet", "rapid", "sunny", "tidy", "upbeat", "vivid",
              "witty", "zesty", "bold", "cosy", "dusky", "frosty", "golden", "hardy", "ivory", "jade", "lively",
              "misty", "noble", "proud", "rustic", "silver", "tawny", "velvet", "wild", "young", "breezy",
              "crimson", "dreamy", "fierce", "glossy", "humble")
ANIMALS = ("otter", "heron", "lynx", "marten", "badger", "falcon", "gecko", "ibis", "koala", "lemur", "magpie",
           "newt", "ocelot", "panda", "quail", "raven", "seal", "tapir", "urchin", "vole", "walrus", "yak", "zebra",
           "bison", "crane", "dingo", "egret", "ferret", "gibbon", "hare", "impala", "jackal", "kestrel", "llama",
           "moose", "narwhal", "osprey", "puffin", "robin", "stoat", "toucan", "weasel", "wombat", "beaver",
           "condor", "dolphin", "finch", "hedgehog")

# What a counter says, found by words in its name (feedback.json names counters in words; the first
# pattern that matches wins).
COUNTER_MEANINGS = (
    (r"sectors? per request", "32-byte sectors a warp's global load touches: 4 when its 32 threads read "
                              "neighbouring floats (coalesced), up to 32 when they are scattered"),
    (r"threads? per (warp|instruction)|active threads",
     "threads doing work in each warp instruction, of 32: fewer means divergent branches or idle lanes"),
    (r"occupancy", "warps resident on a multiprocessor against the most it can hold: more warps hide "
                   "more of the memory's latency"),
    (r"bank conflict", "extra passes that shared-memory accesses needed because threads of a warp hit "
                       "the same bank"),
    (r"dram.*(byte|traffic)|(byte|traffic).*dram", "bytes moved between DRAM and the chip, against the "
                                                    "compulsory traffic no kernel can avoid"),
    (r"dram.*(throughput|bandwidth|%)", "how busy DRAM was, as a share of its peak bandwidth"),
    (r"l2.*hit|hit.*l2", "accesses the L2 cache served without going to DRAM"),
    (r"l1.*hit|hit.*l1", "accesses the L1 cache served without going to L2"),
    (r"atomic", "global atomic operations: those on one address take turns"),
    (r"instruction", "warp instructions executed: beyond the loads and the arithmetic, overhead"),
)


def counter_meaning(name: str) -> str:
    for pattern, meaning in COUNTER_MEANINGS:
        if re.search(pattern, name, re.I):
            return meaning
    return ""


# ---- Reading the class ----------------------------------------------------------------------------


@dataclass
class Student:
    cell: str  # the name as grades.csv shows it (a display name)
    results: Optional[Path] = None  # its results.json, where there is one inside OUT
    correct: Dict[str, bool] = field(default_factory=dict)  # by exercise id: every case but the timed ones passed
    feedback: Optional[dict] = None


@dataclass
class Kernel:
    """One student's timed kernel of one exercise."""
    shown: str  # pseudonym or name
    gpu: str
    entry: dict  # its entry in feedback.json
    correct: bool

    @property
    def flagged(self) -> bool:
        physics = self.entry.get("physics")
        return isinstance(physics, dict) and physics.get("flagged") is True

    @property
    def fraction(self) -> Optional[float]:
        return number(self.entry.get("fraction_of_floor"))

    @property
    def time_ms(self) -> Optional[float]:
        return number(self.entry.get("time_ms"))


class ClassPageError(Exception):
    """The folder is not a class's reports: one line that says why."""


def is_timed_case(test: dict) -> bool:
    """A case that times code (a speed or feedback case): results.json says so in extra_data; one written
    before it did is known only by the name of a speed case."""
    extra = test.get("extra_data") if isinstance(test.get("extra_data"), dict) else {}
    if "timed" in extra:
        return extra["timed"] is True
    return re.search(r": speed\b", str(test.get("name", ""))) is not None


def correct_exercises(results: dict, exercises: List[str]) -> Dict[str, bool]:
    """By exercise id: whether it has cases and every one of them but those that time code passed."""
    tests = [t for t in results.get("tests", []) if isinstance(t, dict)] if isinstance(results, dict) else []
    verdict = {}
    for e in exercises:
        cases = [t for t in tests if t.get("number") == e and not is_timed_case(t)]
        verdict[e] = bool(cases) and all(t.get("status") == "passed" for t in cases)
    return verdict


def read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_class(out: Path):
    """(exercise ids, students) from OUT/grades.csv and the reports beside it."""
    try:
        with open(out / "grades.csv", newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise ClassPageError(f"{out / 'grades.csv'}: cannot read it ({e.strerror or e})")
    except (UnicodeDecodeError, csv.Error) as e:
        raise ClassPageError(f"{out / 'grades.csv'}: not a grades.csv of grade ({e})")
    if not rows or len(rows[0]) < 3 or rows[0][0] != "student" or rows[0][-1] != "results":
        raise ClassPageError(f"{out / 'grades.csv'}: not a grades.csv of grade (its header is not student, "
                             "exercises, total, results)")
    exercises = rows[0][1:-2]
    root = out.resolve()
    students = []
    for row in rows[1:]:
        if not row:
            continue
        s = Student(row[0])
        where = (root / row[-1]).resolve() if row[-1] else None
        if where and where.is_relative_to(root) and where != root and where.is_file():
            s.results = where
            s.correct = correct_exercises(read_json(where), exercises)
            feedback = read_json(where.parent / FEEDBACK)
            s.feedback = feedback if isinstance(feedback, dict) else None
        students.append(s)
    return exercises, students


# ---- Pseudonyms -----------------------------------------------------------------------------------


def class_key(out: Path) -> bytes:
    """The class's pseudonym key, made (32 random bytes, owner-only) where there is none yet."""
    path = out / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text(encoding="ascii").strip()
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ClassPageError(f"{path}: not a key made by the class page (64 hexadecimal digits)")
        return bytes.fromhex(key)
    key = os.urandom(32)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
    return key


def pseudonyms(cells: List[str], key: bytes) -> Dict[str, str]:
    """A pseudonym for each name: adjective-animal-NN from an HMAC of the name under @key; where two
    names draw the same, the later one (in the order of their HMACs) draws again."""
    def draw(cell, attempt):
        digest = hmac.new(key, f"{attempt}:{cell}".encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
        a, b, n = (int.from_bytes(digest[i:i + 4], "big") for i in (0, 4, 8))
        return f"{ADJECTIVES[a % len(ADJECTIVES)]}-{ANIMALS[b % len(ANIMALS)]}-{n % 100:02d}"

    taken, chosen = set(), {}
    for cell in sorted(set(cells), key=lambda c: draw(c, 0)):
        attempt = 0
        while draw(cell, attempt) in taken:
            attempt += 1
        chosen[cell] = draw(cell, attempt)
        taken.add(chosen[cell])
    return chosen


# ---- The numbers of one exercise ------------------------------------------------------------------


def kernels_of(exercise: str, students: List[Student], shown: Dict[str, str]) -> List[Kernel]:
    """Every student's entry for @exercise (timed or not), with whether the kernel is correct."""
    found = []
    for s in students:
        entries = [e for e in reports.feedback_exercises(s.feedback) if e.get("exercise") == exercise]
        if entries:
            found.append(Kernel(shown[s.cell], one_line(s.feedback.get("gpu") or "an unnamed GPU"), entries[0],
                                s.correct.get(exercise, False)))
    return found


def ranked(kernels: List[Kernel]) -> List[Kernel]:
    """The correct kernels whose timing passed the physics check, fastest (largest share of the floor)
    first."""
    fair = [k for k in kernels if k.correct and not k.flagged and k.fraction is not None and k.time_ms is not None]
    return sorted(fair, key=lambda k: (-k.fraction, k.time_ms, k.shown))


def median(values) -> Optional[float]:
    values = [v for v in (number(x) for x in values) if v is not None]
    return statistics.median(values) if values else None


def separating_counters(fair: List[Kernel]):
    """Rows (name, unit, meaning, fastest quarter's median, slowest quarter's, solution's, text's,
    separation) for each counter, the counters that part the two quarters most first; None with fewer
    than MIN_KERNELS_TO_COMPARE ranked kernels."""
    if len(fair) < MIN_KERNELS_TO_COMPARE:
        return None
    quarter = len(fair) // 4
    fast, slow = fair[:quarter], fair[-quarter:]

    def values(group, name, key):
        return [c.get(key) for k in group for c in k.entry.get("counters") or []
                if isinstance(c, dict) and c.get("name") == name]

    names = []
    for k in fair:
        for c in k.entry.get("counters") or []:
            if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"] not in names:
                names.append(c["name"])
    rows = []
    for name in names:
        first = next(c for k in fair for c in k.entry.get("counters") or [] if isinstance(c, dict) and c.get("name") == name)
        f, s = median(values(fast, name, "yours")), median(values(slow, name, "yours"))
        if f is None or s is None:
            separation = -1.0
        elif f == s:
            separation = 0.0
        elif min(f, s) <= 0:
            separation = math.inf
        else:
            separation = abs(math.log(f / s))
        rows.append({"name": name, "unit": str(first.get("unit", "")), "meaning": counter_meaning(name),
                     "fast": f, "slow": s, "solution": median(values(fair, name, "solution")),
                     "text": median(values(fair, name, "text")), "separation": separation})
    return sorted(rows, key=lambda r: -r["separation"])


def compared(fast, slow) -> str:
    """How the fastest quarter's value compares with the slowest's, in words."""
    if fast is None or slow is None:
        return "-"
    if fast == slow:
        return "the same"
    if min(fast, slow) <= 0:
        return "higher" if fast > slow else "lower"
    ratio = max(fast, slow) / min(fast, slow)
    return f"{ratio:.3g}× {'higher' if fast > slow else 'lower'}"


# ---- Drawing ----------------------------------------------------------------------------------------


def h(value) -> str:
    """@value as HTML text (or an attribute's value): one printable line, every markup character escaped."""
    return html.escape(one_line(value), quote=True)


def histogram_svg(exercise: str, fractions: List[float], solution: Optional[float]) -> str:
    """The share of the floor of each ranked kernel, in bins of 5%, with the solution's share marked."""
    width, height, left, right, top, bottom = 720, 250, 44, 20, 34, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    bin_width = 0.05
    x_max = max([1.0] + [math.ceil(f / bin_width - 1e-9) * bin_width for f in fractions + [solution or 0]])
    bins = [0] * round(x_max / bin_width)
    for f in fractions:
        bins[min(len(bins) - 1, max(0, int(f / bin_width)))] += 1
    y_max = max(bins + [1])
    step = max(1, math.ceil(y_max / 5))
    y_top = math.ceil(y_max / step) * step

    def x(f):
        return left + plot_w * f / x_max

    def y(n):
        return top + plot_h * (1 - n / y_top)

    parts = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{h(exercise)}: share of the floor of the correct kernels">']
    for n in range(0, y_top + 1, step):
        parts.append(f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y(n):.1f}" y2="{y(n):.1f}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{y(n) + 4:.1f}" text-anchor="end">{n}</text>')
    for i, count in enumerate(bins):
        if count:
            low = i * bin_width
            parts.append(f'<rect class="bar" x="{x(low) + 1:.1f}" y="{y(count):.1f}" width="{x(bin_width) - left - 2:.1f}" '
                         f'height="{y(0) - y(count):.1f}"><title>{count} kernel{"s" if count != 1 else ""} at '
                         f'{100 * low:.0f}-{100 * (low + bin_width):.0f}% of the floor</title></rect>')
    parts.append(f'<line class="axis" x1="{left}" x2="{left + plot_w}" y1="{y(0):.1f}" y2="{y(0):.1f}"/>')
    tick = 0.1 if x_max <= 1.5 else 0.2
    for i in range(int(round(x_max / tick)) + 1):
        f = i * tick
        parts.append(f'<text class="tick" x="{x(f):.1f}" y="{y(0) + 16:.1f}" text-anchor="middle">{100 * f:.0f}%</text>')
    parts.append(f'<text class="label" x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
                 'share of the floor (100%: as fast as the hardware allows)</text>')
    parts.append(f'<text class="label" x="{left}" y="{top - 14}" text-anchor="start">kernels</text>')
    if solution is not None:
        sx = x(solution)
        anchor = "end" if sx > left + plot_w - 80 else "start"
        parts.append(f'<line class="solution" x1="{sx:.1f}" x2="{sx:.1f}" y1="{top - 6}" y2="{y(0):.1f}"/>')
        parts.append(f'<text class="solution-label" x="{sx + (-5 if anchor == "end" else 5):.1f}" y="{top - 14}" '
                     f'text-anchor="{anchor}">solution: {fmt_share(solution)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def who(k: Kernel) -> str:
    """The student's name or pseudonym as HTML; a pseudonym is never broken at its hyphens."""
    if re.fullmatch(r"[a-z]+-[a-z]+-[0-9]{2}", k.shown):
        return f'<span class="who">{h(k.shown)}</span>'
    return h(k.shown)


def table(header: List[str], rows: List[List[str]], numeric: List[bool], wide: bool = False) -> str:
    """An HTML table of cells already escaped; numeric columns right-aligned, never wrapped; @wide: as
    wide as the column (for a column of text that should wrap little)."""
    def cells(tag, row):
        return "".join(f"<{tag}{' class=num' if num else ''}>{cell}</{tag}>" for cell, num in zip(row, numeric))
    lines = [f'<table class="markdownTable{" wide" if wide else ""}">', f"<tr>{cells('th', header)}</tr>"]
    lines += [f"<tr>{cells('td', row)}</tr>" for row in rows]
    return "\n".join(lines + ["</table>"])


def exercise_section(exercise: str, kernels: List[Kernel], several_gpus: bool) -> str:
    timed = [k for k in kernels if k.time_ms is not None]
    fair = ranked(kernels)
    flagged = [k for k in timed if k.flagged]
    entry = (fair or timed or kernels)[0].entry
    floor = entry.get("floor") if isinstance(entry.get("floor"), dict) else {}
    kind = str(floor.get("kind", ""))
    what = (f"its compulsory DRAM traffic, {h(fmt_quantity(floor.get('bytes'), 'B'))}, at peak bandwidth" if kind == "DRAM"
            else f"its arithmetic, {h(fmt_quantity(floor.get('flops'), 'FLOP'))}, at the peak FP32 rate" if kind == "FP32"
            else "not known")
    solution = median(k.entry.get("solution_fraction_of_floor") for k in timed)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", one_line(exercise))
    out = [f'<section id="{h(slug)}">', f"<h2>{h(exercise)}: {h(entry.get('launch', ''))}</h2>",
           f"<p>The floor of this launch: {what}. "
           f"{len(fair)} correct kernel{'s' if len(fair) != 1 else ''} ranked; "
           f"{len(flagged)} timing{'s' if len(flagged) != 1 else ''} flagged; "
           f"{sum(1 for k in kernels if k.correct and k.time_ms is None)} correct but not timed; "
           f"{sum(1 for k in timed if not k.correct)} timed but not correct (not shown).</p>"]
    if fair:
        out.append(f'<div class="figure">{histogram_svg(exercise, [k.fraction for k in fair], solution)}</div>')
    else:
        out.append("<p>No correct kernel was timed, so there is nothing to draw.</p>")

    out.append("<h3>Fastest correct kernels</h3>")
    if fair:
        header = ["rank", "student", "time", "share of the floor", "speed against the solution's"]
        header += ["GPU"] if several_gpus else []
        rows = []
        for rank, k in enumerate(fair[:LEADERBOARD_SIZE], 1):
            against = number(k.entry.get("solution_ms"))
            rows.append([str(rank), who(k), h(fmt_quantity(k.time_ms, "ms")), h(fmt_share(k.fraction)),
                         h(f"{against / k.time_ms:.2f}×") if against and k.time_ms > 0 else "-"]
                        + ([h(k.gpu)] if several_gpus else []))
        out.append(table(header, rows, [True, False, True, True, True, False]))
    else:
        out.append("<p>None yet.</p>")

    out.append("<h3>Flagged timings (never ranked)</h3>")
    if flagged:
        out.append("<p>Faster than the floor allows, or otherwise impossible for the hardware: these timings "
                   "earn no speed points.</p>")
        rows = [[who(k), h(fmt_quantity(k.time_ms, "ms")), h(fmt_quantity(floor_ms(k), "ms")),
                 h((k.entry.get("physics") or {}).get("line", ""))] for k in flagged]
        out.append(table(["student", "time", "floor", "why"], rows, [False, True, True, False]))
    else:
        out.append("<p>None: every timing passed the physics check.</p>")

    out.append("<h3>What separates the fast from the slow</h3>")
    counters = separating_counters(fair)
    if counters is None:
        out.append(f"<p>Too few ranked kernels to compare quarters ({len(fair)}; it takes "
                   f"{MIN_KERNELS_TO_COMPARE}).</p>")
    elif not counters:
        out.append("<p>No counters were collected for this exercise (see each student's report for why).</p>")
    else:
        quarter = len(fair) // 4
        out.append(f"<p>Median counter values of the fastest quarter ({quarter} kernel{'s' if quarter != 1 else ''}, "
                   f"{h(fmt_share(fair[quarter - 1].fraction))} of the floor and up) against the slowest quarter "
                   f"({h(fmt_share(fair[-quarter].fraction))} and down); the counters that differ most come first.</p>")
        rows = []
        for c in counters:
            meaning = f'<div class="meaning">{h(c["meaning"])}</div>' if c["meaning"] else ""
            # A short unit (B, %, ms) goes with each number, which never wraps; a longer one with the name.
            unit = c["unit"] if len(c["unit"]) <= 4 else ""
            name = h(c["name"]) + (f" ({h(c['unit'])})" if c["unit"] and not unit else "")
            rows.append([name + meaning] + [h(fmt_quantity(c[k], unit)) for k in ("fast", "slow")] +
                        [h(compared(c["fast"], c["slow"]))] + [h(fmt_quantity(c[k], unit)) for k in ("solution", "text")])
        out.append(table(["counter", "fastest quarter", "slowest quarter", "fastest against slowest", "solution", "text"],
                         rows, [False, True, True, True, True, True], wide=True))
    out.append("</section>")
    return "\n".join(out)


def floor_ms(k: Kernel):
    return number(k.entry.get("floor", {}).get("ms")) if isinstance(k.entry.get("floor"), dict) else None


STYLE = """
:root { --primary: #1779c4; --primary-dark: #335c80; --text: #2f4153; --secondary: #6f7e8e;
        --separator: #dedede; --box: #f8f9fa; --flag: #c0392b; }
html { background: #fff; color: var(--text); }
body { margin: 0; font: 16px/1.55 -apple-system, "Segoe UI", Roboto, Ubuntu, "Helvetica Neue", "DejaVu Sans",
       "Liberation Sans", sans-serif; }
div.contents { max-width: 980px; margin: 0 auto; padding: 24px 32px 48px 32px; box-sizing: border-box; }
h1 { color: var(--primary-dark); font-size: 1.9em; margin: 0.4em 0 0.3em 0; }
h2 { color: var(--primary-dark); border-bottom: 1px solid var(--separator); padding-bottom: 0.2em; margin-top: 1.8em; }
h3 { margin: 1.4em 0 0.4em 0; }
p { margin: 0.5em 0; }
a { color: var(--primary); }
nav ul { margin: 0.4em 0; padding-left: 1.2em; }
div.figure { max-width: 100%; overflow-x: auto; margin: 0.8em 0; }
svg.chart { display: block; font-family: inherit; }
svg.chart .bar { fill: var(--primary); }
svg.chart .grid { stroke: var(--separator); stroke-width: 1; }
svg.chart .axis { stroke: var(--text); stroke-width: 1; }
svg.chart .tick, svg.chart .label { fill: var(--text); font-size: 12px; }
svg.chart .solution { stroke: var(--flag); stroke-width: 2; stroke-dasharray: 5 3; }
svg.chart .solution-label { fill: var(--flag); font-size: 12px; font-weight: 600; }
table.markdownTable { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; margin: 0.6em 0; }
table.markdownTable > tbody { display: table; }
table.markdownTable.wide > tbody { width: 100%; }
table.markdownTable.wide td:first-child { min-width: 18em; }
table.markdownTable th, table.markdownTable td { padding: 0.3em 0.6em; border: 1px solid var(--separator);
                                                 text-align: left; vertical-align: top; overflow-wrap: break-word; }
table.markdownTable th { background: var(--box); }
table.markdownTable .num { text-align: right; font-variant-numeric: tabular-nums; }
table.markdownTable td.num { white-space: nowrap; }  /* a number never breaks; a heading may */
span.who { white-space: nowrap; }
div.meaning { color: var(--secondary); font-size: 0.85em; }
p.note { color: var(--secondary); font-size: 0.9em; }
"""


def render(exercises: List[str], students: List[Student], shown: Dict[str, str], with_names: bool) -> str:
    """The page, as one HTML document."""
    timed_exercises = [e for e in exercises if kernels_of(e, students, shown)]
    gpus = sorted({one_line(s.feedback.get("gpu") or "an unnamed GPU") for s in students if s.feedback})
    with_feedback = sum(1 for s in students if s.feedback)
    body = ["<h1>The class against the floor</h1>",
            f"<p>{len(students)} student{'s' if len(students) != 1 else ''}; {with_feedback} with kernels timed on "
            f"{h(' and '.join(gpus) or 'no GPU')}. The <em>floor</em> of a launch is the least time it can take on the "
            "GPU that ran it: its compulsory DRAM traffic at peak bandwidth, or its arithmetic at the peak FP32 rate, "
            "whichever is longer. A kernel's <em>share of the floor</em> is the floor's time over the kernel's: "
            "100% is as fast as the hardware allows, so kernels timed on different GPUs compare fairly.</p>",
            "<p>Only kernels that passed every correctness case are shown. A timing faster than the hardware "
            "allows is flagged by a physics check: it is listed apart, never ranked, and earns no speed points.</p>",
            ("<p class=\"note\">Students appear under their names, as the instructor chose.</p>" if with_names else
             "<p class=\"note\">Students appear under pseudonyms; each student's own report names theirs.</p>")]
    if timed_exercises:
        body.append("<nav><ul>" + "".join(
            f'<li><a href="#{h(re.sub(r"[^A-Za-z0-9]+", "-", one_line(e)))}">{h(e)}</a></li>' for e in timed_exercises)
            + "</ul></nav>")
    else:
        body.append("<p>No exercise of this class was timed: feedback comes from grading on a GPU.</p>")
    untimed = [e for e in exercises if e not in timed_exercises]
    if timed_exercises and untimed:
        body.append(f"<p class=\"note\">Not timed: {h(', '.join(untimed))}.</p>")
    for e in timed_exercises:
        body.append(exercise_section(e, kernels_of(e, students, shown), len(gpus) > 1))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>The class against the floor</title>\n<style>" + STYLE + "</style>\n</head>\n<body>\n"
            "<div class=\"contents\">\n" + "\n".join(body) + "\n</div>\n</body>\n</html>\n")


# ---- The whole step -------------------------------------------------------------------------------


def finish_class(out: Path, with_names: bool = False) -> str:
    """Write OUT/class.html and add each student's feedback to their results.json; one line that says
    what was written."""
    exercises, students = read_class(out)
    key = class_key(out)
    names = {s.cell: s.cell for s in students} if with_names else pseudonyms([s.cell for s in students], key)
    for s in students:
        if s.results is None:
            continue
        data = read_json(s.results)
        if isinstance(data, dict) and reports.with_feedback(data, s.feedback, names[s.cell]) != data:
            reports.add_feedback(s.results, s.feedback, names[s.cell])
    reports.write_file(out / PAGE, render(exercises, students, names, with_names))
    who = "under their names" if with_names else f"under pseudonyms (key: {out / KEY_FILE}, keep it private)"
    return f"class page: {out / PAGE}, {len(students)} students {who}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="class_page", description="Write OUT/class.html from a class's reports.")
    parser.add_argument("out", type=Path, help="the reports' folder of grade --class (grades.csv is in it)")
    parser.add_argument("--leaderboard-names", action="store_true", help="show students' names, not pseudonyms")
    parser.error = lambda message: (print(f"class_page: error: {message}", file=sys.stderr), sys.exit(2))
    args = parser.parse_args(argv)
    try:
        print(finish_class(args.out, args.leaderboard_names))
    except (ClassPageError, OSError) as e:
        print(f"class_page: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
