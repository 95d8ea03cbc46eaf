#!/usr/bin/env python3
"""Turn the recorded GPU runs in results/ into the book's tables, charts and rooflines.

A recorded run is the record a program writes with --json (pmpp::RunRecord, read and checked by
book/tools/run_record.py). Nothing here is typed by hand: a number in the book is a cell a program
printed on the device named next to it.

A table of the text's model (its analysis, which needs no GPU) is told apart from a measurement by
running the program that recorded it once more, here, with the same arguments and --analysis and no
GPU visible (--program NAME=PATH): a table it prints again, cell for cell, is the model's. Its caption
is the title the program gives it now; it names no device, and names the problem only where another
model table of the same title holds other numbers (so a title that says what its numbers depend on,
e.g. the filter's size, makes the caption say that and no more). A program not given, or one
that fails, leaves its tables captioned as measurements.

Writes into --out:
  - for every run of the headline device (results/<headline>/<name>.json), the fragments a chapter
    page includes where it discusses the run: run_<name>_<table>.md (one table with its caption and
    notes), chart_<name>.md (each stage's time next to the library's and the limits) and
    roofline_<name>.md, with their SVG figures;
  - model_tables.json: {caption: [record, table key]} for every model table, for the site check;
  - a placeholder for every such fragment a page asks for that no recorded run provides;
  - recorded_runs.md: the page with every run on every device, from the template book/recorded_runs.md;
  - counters.md: the "Predicted against measured" page, from the template book/counters.md and the
    tables scripts/profile recorded in profile/recorded/;
  - results_roofline.md: one roofline per device over every run, for the "How we measure" page.
A template holds the line GENERATED_CONTENT where the generated part goes.

Python 3 standard library only.
"""
import argparse
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
import run_record  # noqa: E402  (book/tools: the one reader of run records)
from doxygen_text import escape, folded  # noqa: E402,F401  (folded: for the generators that import this one)

MARKER = "GENERATED_CONTENT"
FRAGMENT_USE = re.compile(r"\\includedoc\s+((?:run|chart|roofline)_[A-Za-z0-9_]+\.md)")
LIBRARIES = ("cub", "cudnn", "cublas")  # the baselines the side-by-side programs measure
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
LIBRARY_COLOUR, STAGE_COLOUR = "#D55E00", "#0072B2"
LIMIT_STYLES = [("#000000", "6 4"), ("#CC79A7", "2 3"), ("#009E73", "10 3 2 3")]
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
# Figures are drawn 760 px wide with text of at least 13 px, so that text stays above 11 px down to a
# column 645 px wide (the browser check measures the real column).
WIDTH, SMALL, NORMAL, LARGE = 760, 13, 14, 15

# Peak FP32 for devices whose runs did not print it: SMs x FP32 lanes per SM x 2 (an FMA) x boost clock,
# from the vendor's published specifications. Most specific name first.
FP32_SPECS = [
    ("H100 PCIe", 114, 128, 1755),
    ("H100 NVL", 132, 128, 1785),
    ("H100", 132, 128, 1980),
    ("H200 NVL", 132, 128, 1785),
    ("H200", 132, 128, 1980),
]


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def chapter_number(program):
    match = re.match(r"ch(\d+)", program)
    return int(match.group(1)) if match else 0


# ---- Markdown ------------------------------------------------------------------------------------

def code(text):
    """Inline code: Doxygen shows it verbatim (a backtick inside would end it early)."""
    return "`" + str(text).replace("`", "'") + "`"


def caption(record, table, models=None):
    """A table's caption in words (without the closing full stop): a measurement names its problem and
    its device; a table of the model names neither, unless it needs the problem (see ModelTables)."""
    if models and (record.path, table.key) in models.captions:
        return models.captions[(record.path, table.key)]
    return f"{table.title}: {record.problem}, on the {record.device}"


def source_line(record, table=None, models=None):
    if table is not None and models and (record.path, table.key) in models.captions:
        return (f"The text's model, which needs no GPU: {code(record.command + ' --analysis')} prints it "
                f"(kept with the run in {code(record.path.as_posix())}).")
    return f"Recorded with {code(record.command)} ({code(record.path.as_posix())})."


# A cell that is one number, with at most a unit or a sign: "0.183", "1,024", "93 %", "3.2 ms", "256x256".
NUMBER = re.compile(r"[-+~<>≈±]?\s?\d[\d,.]*(?:e[-+]?\d+)?"    # a number
                    r"(?:\s?[x×]\s?\d[\d,.]*)*"                  # "x 256", as in a grid's "256x256"
                    r"(?:\s?(?:%|×|x|[A-Za-zµ/]{1,8}))?")           # a unit
NO_VALUE = {"", "-", "–", "n/a"}


def numeric_columns(table):
    """The columns whose every cell is a number (or no value, or a remark in parentheses), and at least
    one a number: right-aligned, so that the page keeps each number on one line (book.css) and its
    digits line up."""
    numeric = []
    for c in range(len(table.columns)):
        cells = [printed[c].strip() for printed in table.printed]
        numbers = [cell for cell in cells if cell not in NO_VALUE and not re.fullmatch(r"\(.*\)", cell)]
        numeric.append(bool(numbers) and all(NUMBER.fullmatch(cell) for cell in numbers))
    return numeric


def table_markdown(record, table, *, with_caption=True, models=None):
    """The table as its program printed it, with a caption in words and its notes one per line."""
    out = []
    if with_caption:
        out.append(f'<div class="table-caption">{escape(caption(record, table, models))}.</div>\n')
    out.append("| " + " | ".join(escape(c) for c in table.columns) + " |")
    out.append("|" + "".join("---:|" if right else "---|" for right in numeric_columns(table)))
    for printed in table.printed:
        out.append("| " + " | ".join(escape(cell) if cell != "" else "&nbsp;" for cell in printed) + " |")
    out.append("")
    if table.notes:
        notes = "".join(f"<div>{escape(note)}</div>" for note in table.notes)
        out.append(f'<div class="table-notes">{notes}</div>\n')
    return "\n".join(out) + "\n"


# ---- The text's model: tables that need no GPU --------------------------------------------------

def same_table(a, b):
    return a.columns == b.columns and a.printed == b.printed


def analysis_record(record, program, timeout_s=300):
    """What @program prints with the record's arguments and --analysis, with no GPU visible; None when it
    cannot say (it failed, or timed out)."""
    with tempfile.TemporaryDirectory(prefix="book-analysis-") as folder:
        path = pathlib.Path(folder) / "analysis.json"
        command = [program, *record.shown_arguments.split(), "--analysis", "--json", str(path)]
        environment = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        try:
            finished = subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      text=True, timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired) as error:
            print(f"recorded_runs.py: note: {command[0]} --analysis: {error}; its tables are shown as measured")
            return None
        if finished.returncode != 0 or not path.is_file():
            said = finished.stderr.strip().splitlines()[-1:] or ["no record"]
            print(f"recorded_runs.py: note: {record.command} --analysis exited with {finished.returncode} "
                  f"({said[0]}); its tables are shown as measured")
            return None
        return run_record.load(path)


# Tables a program writes into its record for tools only; the book does not show them.
TABLES_FOR_TOOLS = {"profile"}


class ModelTables:
    """The recorded tables that are the text's model, with the caption of each."""

    def __init__(self, records, programs):
        found, analyses = [], {}
        for record in records:
            program = programs.get(record.program)
            if not program:
                continue
            key = (record.program, record.shown_arguments)
            if key not in analyses:
                analyses[key] = analysis_record(record, program)
            again = analyses[key]
            for table in record.tables:
                printed = again.table(table.key) if again else None
                if printed is not None and same_table(printed, table):
                    found.append((record, table, printed.title))  # the program's words of today
        # The title alone where every model table of that title holds the same numbers; else the problem too.
        by_title = {}
        for record, table, title in found:
            by_title.setdefault(title, []).append(table)
        self.captions = {}
        for record, table, title in found:
            alike = all(same_table(other, table) for other in by_title[title])
            self.captions[(record.path, table.key)] = title if alike else f"{title}: {record.problem}"

    def manifest(self):
        """{caption: [record path, table key]}: how the site check finds the record of each caption."""
        found = {}
        for (path, key), text in sorted(self.captions.items()):
            found.setdefault(text + ".", [path.as_posix(), key])  # the same numbers: the first run will do
        return found


# ---- Charts --------------------------------------------------------------------------------------

def svg_escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def text_width(text, size):
    """A generous estimate of rendered text width (DejaVu Sans averages about 0.6 em)."""
    return 0.62 * size * len(str(text))


def svg_open(width, height, title):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="{FONT}" font-size="{NORMAL}">',
            f"<title>{svg_escape(title)}</title>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']


def results_table(record):
    """The table with one row per stage and a time: "results" (or "totals", for the matrix sums)."""
    for key in ("results", "totals"):
        table = record.table(key)
        if table and "median ms" in table.columns:
            return table
    return None


@dataclass
class Bar:
    label: str
    kind: str      # "stage", "library" or "limit"
    ms: float      # None: no time (skipped, failed)
    shown: str     # the time as printed, or why there is none


def bars_of(table):
    name_column = table.columns[0]
    bars = []
    for row, printed in zip(table.rows, table.printed):
        name = str(row[name_column])
        if "tile" in table.columns and row.get("tile") not in ("-", "", None):
            name += f" (tile {row['tile']})"
        kind = "limit" if name.startswith("limit") else "library" if name.lower().startswith(LIBRARIES) else "stage"
        ms = row["median ms"]
        check = row.get("check", "PASS")
        if isinstance(ms, (int, float)) and ms > 0:
            bars.append(Bar(name, kind, float(ms), printed[table.columns.index("median ms")] + " ms"))
        else:
            bars.append(Bar(name, kind, None, "skipped" if check == "skipped" else str(check)))
    return bars


def bar_chart_svg(record, table):
    """Horizontal bars, one per stage and library, shorter is faster; each limit a vertical line."""
    bars = bars_of(table)
    rows = [b for b in bars if b.kind != "limit"]
    limits = [b for b in bars if b.kind == "limit" and b.ms]
    timed = [b.ms for b in bars if b.ms]
    if not rows or not timed:
        return None
    label_w = max(text_width(b.label, NORMAL) for b in rows) + 16
    left, right = 12 + label_w, WIDTH - 24
    bar_h, gap, top = 24, 10, 64
    plot_bottom = top + len(rows) * (bar_h + gap)
    height = plot_bottom + 34 + 22 * len(limits) + 30
    x_max = max(timed) * 1.08
    x = lambda ms: left + (right - left) * ms / x_max
    title = f"Time per stage: {record.problem}"
    out = svg_open(WIDTH, height, f"{title}, on the {record.device}")
    out.append(f'<text x="12" y="24" font-size="{LARGE}" font-weight="bold">{svg_escape(title)}</text>')
    out.append(f'<text x="12" y="44" font-size="{SMALL}" fill="#444">median kernel time in ms on the '
               f"{svg_escape(record.device)}; shorter is faster</text>")
    for i, b in enumerate(rows):
        y = top + i * (bar_h + gap)
        colour = LIBRARY_COLOUR if b.kind == "library" else STAGE_COLOUR
        out.append(f'<text x="{left - 10}" y="{y + bar_h / 2 + 5}" text-anchor="end">{svg_escape(b.label)}</text>')
        if b.ms is None:
            out.append(f'<text x="{left + 6}" y="{y + bar_h / 2 + 5}" fill="#777" font-style="italic">'
                       f"{svg_escape(b.shown)}</text>")
            continue
        end = x(b.ms)
        out.append(f'<rect x="{left}" y="{y}" width="{end - left:.1f}" height="{bar_h}" fill="{colour}"/>')
        if end + 8 + text_width(b.shown, SMALL) < WIDTH - 4:
            out.append(f'<text x="{end + 6:.1f}" y="{y + bar_h / 2 + 5}" font-size="{SMALL}">{svg_escape(b.shown)}</text>')
        else:
            out.append(f'<text x="{end - 6:.1f}" y="{y + bar_h / 2 + 5}" font-size="{SMALL}" text-anchor="end" '
                       f'fill="#ffffff">{svg_escape(b.shown)}</text>')
    out.append(f'<line x1="{left}" y1="{top - 6}" x2="{left}" y2="{plot_bottom}" stroke="#333"/>')
    for k, b in enumerate(limits):
        colour, dash = LIMIT_STYLES[k % len(LIMIT_STYLES)]
        lx = x(b.ms)
        out.append(f'<line x1="{lx:.1f}" y1="{top - 8}" x2="{lx:.1f}" y2="{plot_bottom}" stroke="{colour}" '
                   f'stroke-width="2" stroke-dasharray="{dash}"/>')
        ly = plot_bottom + 30 + 22 * k
        out.append(f'<line x1="12" y1="{ly - 5}" x2="52" y2="{ly - 5}" stroke="{colour}" stroke-width="2" '
                   f'stroke-dasharray="{dash}"/>')
        out.append(f'<text x="60" y="{ly}">{svg_escape(b.label)}: {svg_escape(b.shown)}</text>')
    legend_y = height - 12
    out.append(f'<rect x="12" y="{legend_y - 11}" width="12" height="12" fill="{STAGE_COLOUR}"/>'
               f'<text x="30" y="{legend_y}" font-size="{SMALL}">this chapter\'s kernels</text>')
    if any(b.kind == "library" for b in rows):
        out.append(f'<rect x="220" y="{legend_y - 11}" width="12" height="12" fill="{LIBRARY_COLOUR}"/>'
                   f'<text x="238" y="{legend_y}" font-size="{SMALL}">the library, measured in the same run</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- Roofline ------------------------------------------------------------------------------------

@dataclass
class Point:
    label: str
    series: str
    intensity: float  # FLOP per byte of compulsory DRAM traffic
    gflops: float


@dataclass
class Device:
    name: str
    dram_gbps: float
    fp32_gflops: float   # 0: unknown, no compute roof
    fp32_source: str


PEAK_DRAM_NOTE = re.compile(r"peak DRAM \(?([0-9.]+) GB/s")
PEAK_FP32_NOTE = re.compile(r"at ([0-9.]+) TFLOP/s(?: \(([^)]*)\))?")


def device_roofs(name, records):
    """The roofs as the programs reported them on this device (their notes, or GB/s over "% peak DRAM");
    peak FP32 from FP32_SPECS only when no program reported it."""
    dram, fp32 = [], []
    for record in records:
        for table in record.tables:
            for note in table.notes:
                if m := PEAK_DRAM_NOTE.search(note):
                    dram.append(float(m.group(1)))
                if "FP32" in note and (m := PEAK_FP32_NOTE.search(note)):
                    fp32.append((float(m.group(1)) * 1000.0, m.group(2) or ""))
            if not dram and {"GB/s", "% peak DRAM"} <= set(table.columns):
                for row in table.rows:
                    gbps, pct = row.get("GB/s"), row.get("% peak DRAM")
                    if isinstance(gbps, (int, float)) and isinstance(pct, (int, float)) and pct > 0:
                        dram.append(100.0 * gbps / pct)
    dram_gbps = sorted(dram)[len(dram) // 2] if dram else 0.0
    if fp32:
        gflops, how = sorted(fp32)[len(fp32) // 2]
        return Device(name, dram_gbps, gflops, "as the programs reported it" + (f" ({how})" if how else ""))
    for key, sms, lanes, mhz in FP32_SPECS:
        if key in name:
            return Device(name, dram_gbps, sms * lanes * 2 * mhz / 1000.0,
                          f"from the published specification: {sms} SMs x {lanes} FP32 lanes x 2 x {mhz} MHz")
    return Device(name, dram_gbps, 0.0, "")


def roofline_points(records):
    """One point per measured stage or library row: GFLOP/s against FLOP per byte of compulsory DRAM
    traffic, from the row's own GB/s (compulsory bytes) where the table has it, else from the run's
    model table ("DRAM-traffic OP/B": operations per byte when inputs are read and outputs written once)."""
    points = []
    for record in records:
        traffic = {}
        for table in record.tables:
            if "DRAM-traffic OP/B" in table.columns:
                for row in table.rows:
                    value = row.get("DRAM-traffic OP/B")
                    if isinstance(value, (int, float)) and value > 0:
                        traffic[(str(row[table.columns[0]]), str(row.get("tile", "")))] = value
        shared = next(iter(traffic.values())) if traffic and len(set(traffic.values())) == 1 else None
        for table in record.tables:
            if "GFLOP/s" not in table.columns or "median ms" not in table.columns:
                continue
            for row in table.rows:
                name, tile = str(row[table.columns[0]]), str(row.get("tile", ""))
                gflops = row.get("GFLOP/s")
                if name.startswith("limit") or not isinstance(gflops, (int, float)) or gflops <= 0:
                    continue
                gbps = row.get("GB/s")
                intensity = gflops / gbps if isinstance(gbps, (int, float)) and gbps > 0 else traffic.get((name, tile), shared)
                if intensity:
                    label = name + (f" (tile {tile})" if tile not in ("", "-") else "")
                    points.append(Point(label, record.command, intensity, gflops))
    return points


def spread(wanted, low, high, gap):
    """Positions as close to @wanted (sorted) as possible, at least @gap apart, within [low, high]."""
    placed = []
    for y in wanted:
        placed.append(max(y, placed[-1] + gap) if placed else max(y, low))
    overflow = placed[-1] - high if placed else 0
    if overflow > 0:  # push the column up, keeping the gaps
        placed = [y - overflow for y in placed]
        for i in range(len(placed) - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - gap)
    return placed


def label_boxes(points_px, column_x, top, bottom):
    """Where each point's label goes: a column right of the plot, one line each, never overlapping.
    Returns [(label y, (x0, y0, x1, y1))] in the order of points_px."""
    order = sorted(range(len(points_px)), key=lambda i: points_px[i][1])
    ys = spread([points_px[i][1] + 5 for i in order], top + 14, bottom, NORMAL + 5)
    boxes = [None] * len(points_px)
    for i, y in zip(order, ys):
        label = points_px[i][2]
        boxes[i] = (y, (column_x, y - NORMAL, column_x + text_width(label, NORMAL), y + 4))
    return boxes


def roofline_svg(device, points, title):
    """A log-log roofline, attainable GFLOP/s = min(peak FP32, intensity x peak DRAM), with the
    labels in a column right of the plot, joined to their points."""
    series = list(dict.fromkeys(p.series for p in points))
    legend_lines = sum(len(textwrap.wrap(s, 80)) for s in series)
    left, top, right = 78, 50, 500
    bottom = top + max(330, (NORMAL + 5) * len(points) + 20)
    column_x = right + 40
    height = bottom + 56 + 20 * legend_lines + 3 * 18 + 10
    ridge = device.fp32_gflops / device.dram_gbps if device.fp32_gflops and device.dram_gbps else 0
    xs = [p.intensity for p in points] + ([ridge] if ridge else [])
    ys = [p.gflops for p in points] + ([device.fp32_gflops] if device.fp32_gflops else [])
    x_lo = 10 ** math.floor(math.log10(min(xs) / 3))
    x_hi = 10 ** math.ceil(math.log10(max(xs) * 3))
    y_hi = 10 ** math.ceil(math.log10(max(ys) * 1.5))
    y_lo = 10 ** math.floor(math.log10(min(min(ys), device.dram_gbps * x_lo if device.dram_gbps else min(ys)) / 1.5))
    px = lambda v: left + (math.log10(v) - math.log10(x_lo)) / (math.log10(x_hi) - math.log10(x_lo)) * (right - left)
    py = lambda v: bottom - (math.log10(v) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo)) * (bottom - top)
    decade_label = lambda v: f"{v:g}" if 1e-3 <= v < 1e6 else f"1e{round(math.log10(v))}"

    out = svg_open(WIDTH, height, title)
    out.append(f'<text x="12" y="26" font-size="{LARGE}" font-weight="bold">{svg_escape(title)}</text>')
    decades = lambda lo, hi: [lo * 10 ** k for k in range(round(math.log10(hi / lo)) + 1)]
    for d in decades(x_lo, x_hi):  # a grid line and a label per decade, on both axes
        out.append(f'<line x1="{px(d):.1f}" y1="{top}" x2="{px(d):.1f}" y2="{bottom}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{px(d):.1f}" y="{bottom + 19}" text-anchor="middle" font-size="{SMALL}" fill="#333">'
                   f"{decade_label(d)}</text>")
    for d in decades(y_lo, y_hi):
        out.append(f'<line x1="{left}" y1="{py(d):.1f}" x2="{right}" y2="{py(d):.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 6}" y="{py(d) + 4:.1f}" text-anchor="end" font-size="{SMALL}" fill="#333">'
                   f"{decade_label(d)}</text>")
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<text x="{(left + right) / 2}" y="{bottom + 40}" text-anchor="middle" font-size="{SMALL}">'
               "FLOP per byte of compulsory DRAM traffic (log)</text>")
    out.append(f'<text x="18" y="{(top + bottom) / 2}" text-anchor="middle" font-size="{SMALL}" '
               f'transform="rotate(-90 18 {(top + bottom) / 2})">GFLOP/s (log)</text>')
    if device.dram_gbps:
        x_end = ridge if ridge else min(x_hi, y_hi / device.dram_gbps)
        roof = [(x_lo, device.dram_gbps * x_lo), (x_end, device.dram_gbps * x_end)]
        if ridge:
            roof.append((x_hi, device.fp32_gflops))
        out.append('<polyline points="' + " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in roof) +
                   '" fill="none" stroke="#444" stroke-width="2.5"/>')
        (ax, ay), (bx, by) = [(px(a), py(b)) for a, b in roof[:2]]
        angle = math.degrees(math.atan2(by - ay, bx - ax))
        lx, ly = ax + 0.10 * (bx - ax), ay + 0.10 * (by - ay) - 8
        out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" fill="#444" font-size="{SMALL}" '
                   f'transform="rotate({angle:.1f} {lx:.1f} {ly:.1f})">DRAM {device.dram_gbps:.0f} GB/s</text>')
    if ridge:
        out.append(f'<text x="{right - 4}" y="{py(device.fp32_gflops) - 8:.1f}" text-anchor="end" fill="#444" '
                   f'font-size="{SMALL}">FP32 peak {device.fp32_gflops / 1000:.1f} TFLOP/s</text>')
        out.append(f'<line x1="{px(ridge):.1f}" y1="{py(device.fp32_gflops):.1f}" x2="{px(ridge):.1f}" y2="{bottom}" '
                   'stroke="#999" stroke-dasharray="4 4"/>')

    colour = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}
    points_px = [(px(p.intensity), py(p.gflops), p.label) for p in points]
    for p, (x, y, _), (label_y, _box) in zip(points, points_px, label_boxes(points_px, column_x, top, bottom)):
        c = colour[p.series]
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{c}"><title>{svg_escape(p.series)}: '
                   f"{svg_escape(p.label)}, {p.intensity:.2f} FLOP/B, {p.gflops:.0f} GFLOP/s</title></circle>")
        out.append(f'<polyline points="{x + 6:.1f},{y:.1f} {right + 8},{y:.1f} {column_x - 4},{label_y - 5:.1f}" '
                   f'fill="none" stroke="{c}" stroke-width="1" stroke-opacity="0.7"/>')
        out.append(f'<text x="{column_x}" y="{label_y:.1f}" fill="{c}">{svg_escape(p.label)}</text>')
    y = bottom + 64
    for s in series:
        out.append(f'<circle cx="18" cy="{y - 5}" r="5" fill="{colour[s]}"/>')
        for line in textwrap.wrap(s, 80):
            out.append(f'<text x="30" y="{y}" font-size="{SMALL}">{svg_escape(line)}</text>')
            y += 20
    notes = [f"memory roof: the programs' peak DRAM ({device.dram_gbps:.0f} GB/s, from memory clock and bus width)",
             f"compute roof: {device.fp32_source}" if ridge else "no compute roof: the peak FP32 of this device is unknown"]
    for note in notes:
        out.append(f'<text x="12" y="{y + 4}" font-size="{SMALL}" fill="#555">{svg_escape(note)}</text>')
        y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def roofline_caption(device):
    text = (f"Measured points on the {device.name} against its roofline: intensity is FLOP per byte of compulsory "
            f"DRAM traffic, the memory roof is the {device.dram_gbps:.0f} GB/s the programs report as the device's peak")
    if device.fp32_gflops:
        text += f", the compute roof {device.fp32_gflops / 1000:.1f} TFLOP/s ({device.fp32_source})"
    return escape(text + ".")


def image(name, text):
    """An \\image with a caption in words: escaped for Doxygen, and without quotes that would end it."""
    return f'\\image html {name} "{text.replace(chr(34), chr(39))}"\n'


# ---- Fragments and pages -------------------------------------------------------------------------

def run_fragments(record, out_dir, stem, models):
    """The fragments of one headline run: {file name: text}."""
    fragments = {}
    for table in record.tables:
        fragments[f"run_{stem}_{table.key}.md"] = (table_markdown(record, table, models=models)
                                                   + source_line(record, table, models) + "\n")
    table = results_table(record)
    if table and (svg := bar_chart_svg(record, table)):
        (out_dir / f"chart_{stem}.svg").write_text(svg, encoding="utf-8")
        fragments[f"chart_{stem}.md"] = image(
            f"chart_{stem}.svg", escape(f"Each stage's median time next to the library's and the limits: "
                                        f"{record.problem}, on the {record.device}."))
    points = roofline_points([record])
    device = device_roofs(record.device, [record])
    if points and device.dram_gbps:
        (out_dir / f"roofline_{stem}.svg").write_text(
            roofline_svg(device, points, f"Roofline: {record.problem}, {record.device}"), encoding="utf-8")
        fragments[f"roofline_{stem}.md"] = image(f"roofline_{stem}.svg", roofline_caption(device))
    return fragments


def placeholder(name, headline):
    return (f"*Not recorded yet:* this page shows a run recorded on its reference GPU, kept as "
            f"{code(f'results/{headline}/')}; {code('scripts/record-runs')} records it (fragment {code(name)}).\n")


def fill_template(template_path, body):
    template = template_path.read_text(encoding="utf-8")
    if MARKER not in template:
        raise SystemExit(f"recorded_runs.py: error: {template_path} has no line {MARKER}")
    return template.replace(MARKER, body.rstrip("\n"))


def recorded_runs_body(records, out_dir, models):
    """Every run, grouped by chapter and device, each table once."""
    if not records:
        return ("No run has been recorded yet. On a GPU, `scripts/record-runs` records every chapter into "
                "`results/<gpu>/`; rebuild the docs and they appear here.\n")
    parts = []
    groups = {}
    for record in records:
        groups.setdefault((chapter_number(record.program), record.device), []).append(record)
    shown = {}
    for (chapter, device), group in sorted(groups.items()):
        parts.append(f"## Chapter {chapter} on the {escape(device)} {{#recorded_ch{chapter:02d}_{slug(device)}}}\n")
        for record in sorted(group, key=lambda r: r.path.as_posix()):
            stem = f"{slug(device)}_{record.path.stem}"
            parts.append(f"### {escape(record.command)} {{#recorded_{stem}}}\n")
            parts.append(f"{escape(record.problem)}. {source_line(record)}\n")
            table = results_table(record)
            if table and (svg := bar_chart_svg(record, table)):
                (out_dir / f"chart_all_{stem}.svg").write_text(svg, encoding="utf-8")
                parts.append(image(f"chart_all_{stem}.svg", escape(f"Each stage's median time next to the library's "
                                                                   f"and the limits: {record.problem}, on the {device}.")))
            for t in record.tables:
                key = (t.title, tuple(t.columns), tuple(map(tuple, t.printed)), tuple(t.notes))
                if key in shown:
                    parts.append(f"*{escape(t.title)}:* the same table as in \\ref {shown[key]} above.\n")
                    continue
                shown[key] = f"recorded_{stem}"
                parts.append(table_markdown(record, t, models=models))
    return "\n".join(parts)


def code_aware_escape(text):
    """escape() outside `code spans`, which Doxygen shows verbatim anyway."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code span at all
        return escape(text)
    return "`".join(part if i % 2 else escape(part) for i, part in enumerate(parts))


# The first heading of each kind of table scripts/profile records: the stage profiles ("Predicted against
# measured: <device>", one "## <stage>" section each) and the limiters of the stages beyond the text
# (`--limiters`: "What limits the stages beyond the text: <device>", one table).
PROFILE_HEADINGS = [
    (re.compile(r"#\s+Predicted against measured:\s*(.*)"), "On the {device}", "counters"),
    (re.compile(r"#\s+What limits the stages beyond the text:\s*(.*)"), "What limits the stages beyond the text, on the {device}",
     "limiters"),
]


def counters_body(profiles_dir):
    """The counter tables scripts/profile recorded, one section per device and recording (and per stage),
    with real headings."""
    files = sorted(profiles_dir.glob("*.md")) if profiles_dir and profiles_dir.is_dir() else []
    if not files:
        return ("No counter tables have been recorded yet. On a GPU whose counters may be read, run "
                "`scripts/profile --all --out DIR` and keep its tables under `profile/recorded/`.\n")
    out = []
    for path in files:
        device = path.stem
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            heading = next(((m, title, anchor) for regex, title, anchor in PROFILE_HEADINGS
                            if (m := regex.match(stripped))), None)
            if heading:
                m, title, anchor = heading
                device = m.group(1)
                out.append(f"## {escape(title.format(device=device))} {{#{anchor}_{slug(device)}}}\n")
                out.append(f"Recorded in {code(f'{profiles_dir.parent.name}/{profiles_dir.name}/{path.name}')}.\n")
            elif m := re.match(r"##\s+(\S+)", stripped):
                out.append(f"### {escape(m.group(1))} on the {escape(device)} {{#counters_{slug(device)}_{slug(m.group(1))}}}\n")
            elif stripped.startswith("|"):
                cells = stripped.strip("|").split("|")
                if all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in cells):
                    out.append(stripped)
                else:
                    out.append("| " + " | ".join(code_aware_escape(c.strip()) for c in cells) + " |")
            elif stripped:
                out.append(code_aware_escape(stripped) + "\n")
            elif out and out[-1].startswith("|"):
                out.append("")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, type=pathlib.Path, help="the recorded runs (results/)")
    parser.add_argument("--headline", required=True,
                        help="the folder of results/ whose runs the chapter pages show (the reference GPU)")
    parser.add_argument("--pages", required=True, type=pathlib.Path,
                        help="the book's pages: fragments they include get a placeholder when not recorded; "
                             "the templates recorded_runs.md and counters.md are read from here")
    parser.add_argument("--profiles", type=pathlib.Path, help="counter tables recorded by scripts/profile")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="where to write fragments, pages, figures")
    parser.add_argument("--leave-out", nargs="*", default=[], metavar="PROGRAM",
                        help="programs whose runs another generator shows (their names' beginnings)")
    parser.add_argument("--program", action="append", default=[], metavar="NAME=PATH",
                        help="a program that recorded runs, built here: run with --analysis to tell its model's "
                             "tables from its measurements")
    args = parser.parse_args()
    programs = {}
    for given in args.program:
        name, _, path = given.partition("=")
        if not name or not path:
            parser.error(f"--program {given}: write NAME=PATH")
        programs[name] = path
    args.out.mkdir(parents=True, exist_ok=True)

    records = []
    if args.results.is_dir():
        for path in sorted(args.results.rglob("*.json")):
            try:
                record = run_record.load(path)
            except run_record.RecordError as error:
                raise SystemExit(f"recorded_runs.py: error: {error}")
            record.path = path.relative_to(args.results.parent)
            # The "profile" table is scripts/profile's input (its predictions per stage), not a reader's.
            record.tables = [t for t in record.tables if t.key not in TABLES_FOR_TOOLS]
            if not record.program.startswith(tuple(args.leave_out)):
                records.append(record)

    models = ModelTables(records, programs)
    (args.out / "model_tables.json").write_text(json.dumps(models.manifest(), indent=1) + "\n", encoding="utf-8")
    written = {}
    for record in records:
        if record.path.parent.name == args.headline:
            written.update(run_fragments(record, args.out, record.path.stem, models))
    for page in sorted(args.pages.glob("*.md")):
        for name in FRAGMENT_USE.findall(page.read_text(encoding="utf-8")):
            written.setdefault(name, placeholder(name, args.headline))
    for name, text in written.items():
        (args.out / name).write_text(text, encoding="utf-8")

    (args.out / "recorded_runs.md").write_text(
        fill_template(args.pages / "recorded_runs.md", recorded_runs_body(records, args.out, models)), encoding="utf-8")
    (args.out / "counters.md").write_text(
        fill_template(args.pages / "counters.md", counters_body(args.profiles)), encoding="utf-8")

    rooflines = []
    for device_name in sorted({r.device for r in records}):
        on_device = [r for r in records if r.device == device_name]
        points, device = roofline_points(on_device), device_roofs(device_name, on_device)
        if points and device.dram_gbps:
            name = f"roofline_all_{slug(device_name)}.svg"
            (args.out / name).write_text(roofline_svg(device, points, f"Every recorded stage on the {device_name}"),
                                         encoding="utf-8")
            rooflines.append(image(name, roofline_caption(device)))
    (args.out / "results_roofline.md").write_text(
        "\n".join(rooflines) if rooflines else
        "No recorded run with both GB/s and GFLOP/s is kept in `results/` yet, so there is no measured roofline.\n",
        encoding="utf-8")
    print(f"recorded_runs.py: {len(records)} recorded run(s), {len(written)} fragment(s), "
          f"{len(models.captions)} table(s) of the text's model in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
