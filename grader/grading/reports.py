"""The reports: the score table, Gradescope's results.json, JUnit XML, and the class's CSV. Each file
is written to a new name and then renamed over the old one, so a file someone else made at that path
(or a link there) is replaced, never written through."""

import csv
import io
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional
from xml.sax.saxutils import escape as xml_escape

from .cases import Case


def fmt(points: float) -> str:
    return f"{points:g}"


def write_file(path: Path, text: str):
    fd, temporary = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:  # whatever the locale says
            f.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


@dataclass
class Unit:
    """One exercise's visible or hidden tests, for one student."""
    exercise: dict
    suite: str  # "visible" or "hidden"
    tests: Optional[str]  # the trusted test executable
    problem: str = ""  # why the student's code cannot run: not submitted, did not compile
    cases: List[Case] = field(default_factory=list)

    @property
    def label(self):
        return f"{self.exercise['id']} {self.exercise['name']}" + (" (hidden)" if self.suite == "hidden" else "")


def score_table(units: List[Unit]) -> str:
    rows = [("exercise", "points", "passed", "failed", "not gradable", "note")]
    for u in units:
        earned = sum(c.points for c in u.cases if c.status == "passed")
        total = sum(c.points for c in u.cases)
        count = lambda s: str(sum(1 for c in u.cases if c.status == s))  # noqa: E731
        rows.append((u.label, f"{fmt(earned)} / {fmt(total)}", count("passed"), count("failed"), count("skipped"),
                     u.problem.splitlines()[0] if u.problem else ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write_results(path: Path, units, score, summary, seconds):
    tests = []
    for u in units:
        for c in u.cases:
            text = c.reason + (" (no points)" if c.status == "skipped" else "")
            tests.append({
                "name": f"{c.exercise}: {c.name}",
                "number": c.exercise_id,
                "score": c.points if c.status == "passed" else 0,
                "max_score": c.points,
                "status": "passed" if c.status == "passed" else "failed",
                "output": f"{text}\n\n{c.output}".strip(),
                "visibility": "hidden" if c.suite == "hidden" else "visible",
                "tags": [c.exercise_id, c.chapter],
                "extra_data": {"outcome": {"passed": "passed", "failed": "failed", "skipped": "not gradable"}[c.status],
                               "seconds": round(c.seconds, 3)},
            })
    data = {"score": score, "execution_time": round(seconds, 1), "output": summary, "tests": tests}
    write_file(path, json.dumps(data, indent=2) + "\n")


XML_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # control characters XML cannot hold


def write_junit(path: Path, units, seconds):
    def body(text):
        return xml_escape(XML_UNSAFE.sub("?", str(text)))

    def attr(text):
        return xml_escape(XML_UNSAFE.sub("?", str(text)), {'"': "&quot;", "\n": "&#10;"})

    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    all_cases = [c for u in units for c in u.cases]
    out.append(f'<testsuites name="pmpp-steps exercises" tests="{len(all_cases)}" '
               f'failures="{sum(c.status == "failed" for c in all_cases)}" '
               f'skipped="{sum(c.status == "skipped" for c in all_cases)}" time="{seconds:.1f}">')
    for u in units:
        out.append(f'  <testsuite name="{attr(u.label)}" tests="{len(u.cases)}" '
                   f'failures="{sum(c.status == "failed" for c in u.cases)}" '
                   f'skipped="{sum(c.status == "skipped" for c in u.cases)}" '
                   f'time="{sum(c.seconds for c in u.cases):.2f}">')
        for c in u.cases:
            out.append(f'    <testcase classname="{attr(u.label)}" name="{attr(c.name)} [points={fmt(c.points)}]" '
                       f'time="{c.seconds:.2f}">')
            if c.status == "failed":
                out.append(f'      <failure message="{attr(c.reason)}">{body(c.output)}</failure>')
            elif c.status == "skipped":
                out.append(f'      <skipped message="{attr(c.reason)}"/>')
            if c.output and c.status != "failed":
                out.append(f"      <system-out>{body(c.output)}</system-out>")
            out.append("    </testcase>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    write_file(path, "\n".join(out) + "\n")


def write_csv(path: Path, exercises, rows):
    """One row per student of @rows (display name, points by exercise id, where its results.json is,
    relative to the CSV): the name, the points per exercise (visible and hidden together), the total,
    and that path. A name that a spreadsheet would read as a formula is quoted as text; a path starts
    with a safe name (names.py), never with one of = + - @."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student"] + [e["id"] for e in exercises] + ["total", "results"])
    for name, points, results in rows:
        cell = "'" + name if re.match(r"[=+\-@]", name) else name
        total = fmt(sum(points.values()))
        writer.writerow([cell] + [fmt(points.get(e["id"], 0)) for e in exercises] + [total, results])
    write_file(path, out.getvalue())


def write_case_runs(path: Path, runs):
    """Every run of a case, in the order they ended: student, exercise, case, GPU (its place in the
    list of GPUs grade used; empty without a GPU), start and end in seconds since the cases began, and
    the verdict of that run. For an instructor who wants to see how grading went, and for the tests of
    the grader (a GPU never ran two students' cases at once)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "exercise", "case", "gpu", "started", "ended", "verdict"])
    writer.writerows(runs)
    write_file(path, out.getvalue())
