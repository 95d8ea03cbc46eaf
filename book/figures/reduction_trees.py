#!/usr/bin/env python3
"""Draw the reduction trees of chapter 10 from traces recorded on a GPU.

A chapter-10 stage program run with --trace prints, step by step, every thread that applied the
operator and the two elements (or shared-memory slots) it combined, as recorded on the GPU by the
counting build of the kernel (see chapters/ch10_reduction/tables.cpp, print_trace; traces recorded
before it was called that say "instrumented build"). Kept in
results/ as a text file, such a trace becomes a figure here: one row of boxes per step, an arrow from
each added element into the element that receives it, labelled with the thread that did the add.

Writes ch10_tree_<stage>.svg for every trace found and ch10_trees.md, a fragment the chapter page
includes (the figures, or a sentence saying how to record a trace when there is none).

Python 3 standard library only.
"""
import argparse
import pathlib
import re
import sys
from dataclasses import dataclass, field

HEADER = re.compile(r"Trace recorded on the GPU by the (?:instrumented|counting) build of (\S+), n = (\d+), "
                    r"(\d+) threads?:")
STEP = re.compile(r"^\s*step (\d+):")
ENTRY = re.compile(r"t(\d+): \[(-?\d+)\]\+=\[(-?\d+)\]")
AFTER = re.compile(r"^\s*input after the step:(.*)$")
NUMBERS = re.compile(r"^\s*-?[\d.e+-]+(\s+-?[\d.e+-]+)*\s*$")  # a continuation of the values
DEVICE = re.compile(r"^device:\s+(.*?)\s*(\(|$)")


@dataclass
class Trace:
    path: pathlib.Path
    stage: str
    n: int
    threads: int
    device: str = "unknown device"
    steps: list = field(default_factory=list)   # per step: [(thread, dst, src)]
    values: list = field(default_factory=list)  # per step: the input after it (in-place stages only)


def parse(path: pathlib.Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    trace, device = None, "unknown device"
    in_values = False  # the values after a step may continue on the next lines
    for line in lines:
        if m := DEVICE.match(line):
            device = m.group(1)
        if m := HEADER.search(line):
            trace = Trace(path, m.group(1), int(m.group(2)), int(m.group(3)), device)
            continue
        if trace is None:
            continue
        if in_values and NUMBERS.match(line):
            trace.values[-1].extend(float(v) for v in line.split())
            continue
        in_values = False
        if STEP.match(line):
            trace.steps.append([])
        if trace.steps:
            trace.steps[-1].extend((int(t), int(d), int(s)) for t, d, s in ENTRY.findall(line))
        if m := AFTER.match(line):
            trace.values.append([float(v) for v in m.group(1).split()])
            in_values = True
    if trace is None or not trace.steps:
        return None
    return trace


def svg_escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def number(v):
    return f"{v:g}"


def tree_svg(trace: Trace):
    """Rows of boxes: the input, then the array after each step; arrows show each recorded add."""
    n = trace.n
    box, gap_x, row_h, left, top = 36, 6, 84, 70, 64
    width = left + n * (box + gap_x) + 40
    height = top + len(trace.steps) * row_h + box + 40
    x = lambda i: left + i * (box + gap_x)
    y = lambda row: top + row * row_h

    # The input before the first step: elements untouched by step 1 keep their value, and a receiving
    # element held its value before the add (within one step no element both gives and receives).
    values = None
    if trace.values and len(trace.values[0]) == n:
        values = [list(trace.values[0])]
        for _, dst, src in trace.steps[0]:
            values[0][dst] = trace.values[0][dst] - trace.values[0][src]
        values += trace.values

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="14">',
           f"<title>{svg_escape(trace.stage)}: which thread adds which element at each step</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#D55E00"/></marker></defs>',
           f'<text x="10" y="22" font-size="15" font-weight="bold">{svg_escape(trace.stage)}, n = {n}, '
           f"{trace.threads} threads: the adds recorded on the {svg_escape(trace.device)}</text>"]
    for i in range(n):
        out.append(f'<text x="{x(i) + box / 2}" y="{top - 10}" text-anchor="middle" fill="#777" font-size="13">[{i}]</text>')
    rows = len(trace.steps) + 1
    for row in range(rows):
        label = "input" if row == 0 else f"step {row}"
        out.append(f'<text x="10" y="{y(row) + box / 2 + 4}" fill="#333">{label}</text>')
        received = {dst for _, dst, _ in trace.steps[row - 1]} if row else set()
        for i in range(n):
            fill = "#cfe3f3" if i in received else "#f4f4f4"
            out.append(f'<rect x="{x(i)}" y="{y(row)}" width="{box}" height="{box}" rx="3" fill="{fill}" stroke="#999"/>')
            if values and row < len(values):
                out.append(f'<text x="{x(i) + box / 2}" y="{y(row) + box / 2 + 4}" text-anchor="middle">'
                           f"{number(values[row][i])}</text>")
    for step, adds in enumerate(trace.steps, 1):
        for thread, dst, src in adds:
            x1, y1 = x(src) + box / 2, y(step - 1) + box
            x2, y2 = x(dst) + box / 2, y(step)
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2 - 2}" stroke="#D55E00" stroke-width="1.5" '
                       'marker-end="url(#arrow)"/>')
            out.append(f'<line x1="{x2}" y1="{y(step - 1) + box}" x2="{x2}" y2="{y2 - 2}" stroke="#0072B2" '
                       'stroke-width="1.5"/>')
            out.append(f'<text x="{(x1 + x2) / 2 + 3}" y="{(y1 + y2) / 2 + 4}" fill="#D55E00" font-size="13">'
                       f"t{thread}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, type=pathlib.Path, help="the recorded runs (results/)")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="where to write the figures and fragment")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    traces = []
    if args.results.is_dir():
        for path in sorted(args.results.rglob("*.txt")):
            if trace := parse(path):
                traces.append(trace)
    parts = []
    for trace in traces:
        name = f"ch10_tree_{trace.stage}.svg"
        (args.out / name).write_text(tree_svg(trace), encoding="utf-8")
        relpath = trace.path.relative_to(args.results.parent).as_posix()
        parts.append(f'\\image html {name} "{trace.stage}: each arrow is one add, from the element added to the '
                     f"element that receives it, labelled with the thread that made it; recorded on the "
                     f'{trace.device} ({relpath})."\n')
    if not parts:
        parts.append("No trace has been recorded yet. On a GPU, run `ch10_01_simple --n 16 --trace` "
                     "(and the same for `ch10_02_convergent`), keep the output under `results/ch10/`, and rebuild "
                     "the docs: the trees appear here.\n")
    (args.out / "ch10_trees.md").write_text("\n".join(parts), encoding="utf-8")
    print(f"reduction_trees.py: {len(traces)} trace(s) from {args.results} drawn into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
