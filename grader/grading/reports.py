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
from .names import display_name


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


def write_results(path: Path, units, score, summary, seconds, feedback=None, pseudonym=""):
    """Gradescope's results.json: @summary as the submission's output, a test per case. With @feedback
    (the student's feedback.json, as read), the output also explains each exercise's kernel: see
    feedback_markdown."""
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
                               "seconds": round(c.seconds, 3), "timed": c.timed},
            })
    data = {"score": score, "execution_time": round(seconds, 1), "output": summary, "tests": tests}
    write_file(path, json.dumps(with_feedback(data, feedback, pseudonym), indent=2) + "\n")


def add_feedback(path: Path, feedback, pseudonym=""):
    """Rewrite the results.json at @path with @feedback in its output (as write_results writes it). Run
    twice, the second run replaces what the first added."""
    data = json.loads(path.read_text(encoding="utf-8"))
    write_file(path, json.dumps(with_feedback(data, feedback, pseudonym), indent=2) + "\n")


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


# ---- The feedback on a student's kernels, as Markdown ----------------------------------------------
# Gradescope shows the submission's "output" above the tests, in the format "output_format" names. With
# feedback, that output is Markdown: the score table as a code block (monospace, so its columns line
# up), then one section per timed exercise. Without feedback it stays the plain text it always was.
# Every string from feedback.json is shown as text: made one printable line, its HTML and Markdown
# characters escaped, so nothing in it can become a link, an image or markup.

MAX_LINE = 400  # characters kept of one line of feedback
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~^])")


def one_line(value) -> str:
    """@value as one line of printable text, at most MAX_LINE characters: as it is where it is printable
    already (a display name stays as grades.csv shows it), else as names.display_name shows it."""
    text = str(value)
    return (text if text.isprintable() else display_name(text))[:MAX_LINE]


def md_text(value) -> str:
    """@value as literal Markdown text: one printable line, HTML escaped, and every character Markdown
    gives a meaning backslash-escaped."""
    line = one_line(value)
    line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", line)


def number(value):
    """@value as a finite float, or None (a missing value, text, NaN or infinity shows as '-')."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def fmt_quantity(value, unit="") -> str:
    """A measured number, to three significant digits, with an SI prefix from 10^5 up: 1.07 GB, 0.456 ms,
    31.9, 4096."""
    v = number(value)
    if v is None:
        return "-"
    text = None
    for threshold, scale, prefix in ((1e12, 1e12, "T"), (1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e5, 1e3, "k")):
        if abs(v) >= threshold:
            text = f"{v / scale:.3g} {prefix}{unit}".rstrip()
            break
    if text is None:
        shown = f"{v:.0f}" if v == int(v) else f"{v:.3g}" if abs(v) >= 1e-3 else f"{v:.2e}"
        text = f"{shown} {unit}".rstrip()
    return text


def fmt_share(fraction) -> str:
    """A fraction of the floor as a percentage: 37%, 0.4%."""
    f = number(fraction)
    if f is None:
        return "-"
    return f"{100 * f:.0f}%" if f >= 0.01 else f"{100 * f:.1f}%"


def feedback_exercises(feedback):
    """The exercises' entries of a feedback.json, each a dict; whatever else is there is left out."""
    entries = feedback.get("exercises") if isinstance(feedback, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _field(entry, *keys):
    """entry[keys[0]][keys[1]]..., or None where a level is missing or not a dict."""
    for key in keys:
        entry = entry.get(key) if isinstance(entry, dict) else None
    return entry


def exercise_markdown(e) -> List[str]:
    """One exercise's section: time and share of the floor against the solution's, the physics check,
    the counters against the solution's and the text's, and what the largest gap means."""
    lines = [f"### {md_text(e.get('exercise', '?'))}: {md_text(e.get('launch', ''))}", ""]
    if number(e.get("time_ms")) is None:
        why = _field(e, "profiling", "line") or "the kernel was not timed"
        return lines + [f"Not timed: {md_text(why)}", ""]
    floor = e.get("floor") if isinstance(e.get("floor"), dict) else {}
    kind = str(floor.get("kind", ""))
    amount = (fmt_quantity(floor.get("bytes"), "B") + " of compulsory DRAM traffic" if kind == "DRAM"
              else fmt_quantity(floor.get("flops"), "FLOP") + " of FP32 arithmetic" if kind == "FP32" else "")
    lines += ["| | yours | solution |", "| --- | ---: | ---: |",
              f"| time | {fmt_quantity(e.get('time_ms'), 'ms')} | {fmt_quantity(e.get('solution_ms'), 'ms')} |",
              f"| share of the floor | {fmt_share(e.get('fraction_of_floor'))} | "
              f"{fmt_share(e.get('solution_fraction_of_floor'))} |", ""]
    lines += [f"The floor, {fmt_quantity(floor.get('ms'), 'ms')}, is the time {md_text(amount)} takes at the "
              f"GPU's peak {'bandwidth' if kind == 'DRAM' else 'rate'}: no kernel can be faster." if amount else
              "The floor of this launch is not known.", ""]
    physics = _field(e, "physics", "line")
    if _field(e, "physics", "flagged") is True:
        lines += [f"**Flagged:** {md_text(physics or 'faster than the floor allows')}. This timing earns no "
                  "speed points and is not ranked on the class page.", ""]
    elif physics:
        lines += [f"Physics check: {md_text(physics)}", ""]
    profiling = _field(e, "profiling", "line")
    if profiling:
        lines += [f"Counters: {md_text(profiling)}", ""]
    counters = [c for c in e.get("counters") or [] if isinstance(c, dict)] if isinstance(e.get("counters"), list) else []
    if counters:
        lines += ["| counter | yours | solution | text | better |", "| --- | ---: | ---: | ---: | --- |"]
        for c in counters:
            unit = str(c.get("unit", ""))
            lines.append(f"| {md_text(c.get('name', '?'))} | " +
                         " | ".join(md_text(fmt_quantity(c.get(k), unit)) for k in ("yours", "solution", "text")) +
                         f" | {'higher' if c.get('higher_is_better') is True else 'lower'} |")
        lines.append("")
    if e.get("largest_gap"):
        lines += [f"**Largest gap:** {md_text(e['largest_gap'])}", ""]
    return lines


def feedback_markdown(feedback, pseudonym="") -> str:
    """The per-student part of the feedback, as Markdown: each timed exercise's section, and, with
    @pseudonym, the line that tells the student who they are on the class page."""
    exercises = feedback_exercises(feedback)
    if not exercises:
        return ""
    gpu = feedback.get("gpu") if isinstance(feedback, dict) else None
    lines = ["## Your kernels against the floor", "",
             f"Measured on {md_text(gpu or 'an unnamed GPU')}. The *floor* is the least time the launch can take "
             "on this GPU: its compulsory DRAM traffic at peak bandwidth, or its arithmetic at the peak FP32 rate, "
             "whichever is longer. The share of the floor is the floor's time over yours: 100% is as fast as the "
             "hardware allows.", ""]
    if pseudonym:
        lines += [f"On the class page you are **{md_text(pseudonym)}**.", ""]
    for e in exercises:
        lines += exercise_markdown(e)
    return "\n".join(lines).rstrip() + "\n"


def with_feedback(data, feedback, pseudonym=""):
    """@data (a results.json) with the feedback added to its output; the plain summary is kept in
    extra_data.summary, so that adding feedback again starts from the summary, not from the last output."""
    extra = dict(data["extra_data"]) if isinstance(data.get("extra_data"), dict) else {}
    summary = extra.pop("summary", data.get("output", ""))
    data = {k: v for k, v in data.items() if k not in ("output_format", "extra_data")}
    data["output"] = summary
    if extra:
        data["extra_data"] = extra
    text = feedback_markdown(feedback, pseudonym) if feedback else ""
    if text:
        # An indented code block: nothing in it can end it (a fence could be closed by a line of the text).
        code = "\n".join("    " + line if line.strip() else "" for line in summary.splitlines())
        data["output"] = f"{code}\n\n{text}"
        data["output_format"] = "md"
        data["extra_data"] = {**extra, "summary": summary}
    return data
