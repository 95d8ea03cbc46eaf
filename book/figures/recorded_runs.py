#!/usr/bin/env python3
"""Turn the recorded GPU runs in results/ into the book's results tables and rooflines.

A recorded run is the JSON file a program writes with --json (format: pmpp::write_run_json in
common/pmpp/report.hpp): {"program", "device", "arguments", "tables": {name: {"columns", "rows",
"notes"}}}. For every chapter this writes results_<chapter>.md, a Markdown fragment the chapter page
includes, with each run's tables and a roofline of its measured points; and results_roofline.md with
one roofline per device over every chapter, for the "How we measure" page. Nothing is typed by hand:
a number in the book is a number a program printed on the device named next to it.

Python 3 standard library only.
"""
import argparse
import json
import math
import pathlib
import re
import sys
import textwrap
from dataclasses import dataclass, field

# The roofs come from what the programs reported on the device (chapter 7's notes say "peak DRAM
# ... GB/s" and "FP32 floor: ... at ... TFLOP/s"; other tables give GB/s and "% peak DRAM"). Where a
# program did not report the FP32 peak, it comes from the vendor's published SM count and boost clock:
# peak = SMs x 128 FP32 lanes per SM (Hopper) x 2 operations per fused multiply-add x clock.
# Most specific name first. A device known neither way gets the memory roof only, and the figure says so.
FP32_SPECS = [
    # (substring of the device name, SMs, FP32 lanes per SM, boost clock in MHz)
    ("H100 PCIe", 114, 128, 1755),
    ("H100 NVL", 132, 128, 1785),
    ("H100", 132, 128, 1980),
    ("H200 NVL", 132, 128, 1785),
    ("H200", 132, 128, 1980),
]

PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]


@dataclass
class Table:
    name: str
    columns: list
    rows: list
    notes: list


@dataclass
class Run:
    path: pathlib.Path
    relpath: str
    program: str
    device: str
    arguments: str
    tables: list = field(default_factory=list)

    @property
    def chapter(self):
        match = re.match(r"(ch\d+)", self.program)
        return match.group(1) if match else "other"

    @property
    def shown_arguments(self):
        """The command line without --json FILE: where the machine wrote its file is no part of the result."""
        words = self.arguments.split()
        kept, skip = [], False
        for word in words:
            if skip:
                skip = False
                continue
            if word == "--json":
                skip = True
                continue
            if word.startswith("--json="):
                continue
            kept.append(word)
        return " ".join(kept)


def load_runs(results_dir: pathlib.Path):
    """Every recorded run under results_dir. Other JSON files (e.g. profiler tables) are reported and skipped."""
    runs = []
    if not results_dir.is_dir():
        return runs
    for path in sorted(results_dir.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise SystemExit(f"recorded_runs.py: error: {path}: not valid JSON ({error})")
        relpath = path.relative_to(results_dir.parent).as_posix()
        if not (isinstance(data, dict) and isinstance(data.get("program"), str) and isinstance(data.get("tables"), dict)):
            print(f"recorded_runs.py: {relpath}: not a recorded program run (no program/tables); left out of the book")
            continue
        run = Run(path, relpath, data["program"], str(data.get("device", "unknown device")), str(data.get("arguments", "")))
        for name, table in data["tables"].items():
            if not (isinstance(table, dict) and isinstance(table.get("columns"), list) and isinstance(table.get("rows"), list)):
                raise SystemExit(f"recorded_runs.py: error: {relpath}: table '{name}' has no columns/rows")
            run.tables.append(Table(name, table["columns"], table["rows"], list(table.get("notes", []))))
        runs.append(run)
    return runs


# ---- Markdown -----------------------------------------------------------------------------------

def fmt_number(value):
    """Four significant digits without trailing zeros, whole numbers from 1000 up: the recorded JSON
    keeps full precision, not the decimals the program printed."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if abs(value) >= 1000:
        return f"{value:.0f}"
    return f"{value:.4g}"


def escape(text):
    """Text safe in a Doxygen Markdown table cell: no column breaks, commands, HTML, emphasis or link
    requests ("::name" asks Doxygen for a link)."""
    text = str(text)
    for old, new in (("\\", "\\\\"), ("|", "\\|"), ("<", "&lt;"), (">", "&gt;"), ("@", "\\@"), ("#", "\\#"),
                     ("*", "\\*"), ("::", "\\::")):
        text = text.replace(old, new)
    return text


def div(text):
    """A block of its own: Doxygen 1.9.4 ignores blank lines between paragraphs of an \\includedoc
    fragment, but keeps HTML blocks apart."""
    return f"<div>{text}</div>"


def markdown_table(table: Table):
    lines = ["| " + " | ".join(escape(c) for c in table.columns) + " |",
             "|" + "---|" * len(table.columns)]
    for row in table.rows:
        cells = [escape(fmt_number(row.get(c, "-"))) for c in table.columns]
        lines.append("| " + " | ".join(cells) + " |")
    out = "\n".join(lines) + "\n"
    # Notes as the program printed them: "- " lines become a list, other lines run on as paragraphs.
    paragraph, items = [], []
    for note in table.notes + [""]:
        if note.startswith("- ") or not note:
            if paragraph:
                out += "\n" + div(" ".join(paragraph)) + "\n"
                paragraph = []
            if note:
                items.append("- " + escape(note[2:]))
            continue
        if items:
            out += "\n" + "\n".join(items) + "\n"
            items = []
        paragraph.append(escape(note))
    if items:
        out += "\n" + "\n".join(items) + "\n"
    return out


# ---- Roofline -----------------------------------------------------------------------------------

@dataclass
class Point:
    label: str
    series: str
    intensity: float  # FLOP per byte of compulsory DRAM traffic
    gflops: float


@dataclass
class Device:
    name: str
    dram_gbps: float       # from the runs' "% peak DRAM" column (the programs query it from the device)
    fp32_gflops: float     # 0: unknown, no compute roof
    fp32_source: str


PEAK_DRAM_NOTE = re.compile(r"peak DRAM \(?([0-9.]+) GB/s")
PEAK_FP32_NOTE = re.compile(r"FP32.*? at ([0-9.]+) TFLOP/s(?: \(([^)]*)\))?")


def device_roofs(name, runs):
    """The roofs as the programs reported them on this device (their notes, or GB/s over "% peak DRAM");
    peak FP32 from FP32_SPECS only when no program reported it."""
    dram_notes, fp32_notes = [], []
    for run in runs:
        for table in run.tables:
            for note in table.notes:
                if m := PEAK_DRAM_NOTE.search(note):
                    dram_notes.append(float(m.group(1)))
                if m := PEAK_FP32_NOTE.search(note):
                    fp32_notes.append((float(m.group(1)) * 1000.0, m.group(2) or ""))
    peaks = list(dram_notes)
    for run in runs:
        for table in run.tables:
            if not dram_notes and {"GB/s", "% peak DRAM"} <= set(table.columns):
                for row in table.rows:
                    gbps, pct = row.get("GB/s"), row.get("% peak DRAM")
                    if isinstance(gbps, (int, float)) and isinstance(pct, (int, float)) and pct > 0:
                        peaks.append(100.0 * gbps / pct)
    dram = sorted(peaks)[len(peaks) // 2] if peaks else 0.0
    if fp32_notes:
        gflops, how = sorted(fp32_notes)[len(fp32_notes) // 2]
        return Device(name, dram, gflops, "as the program reported it" + (f" ({how})" if how else ""))
    for key, sms, lanes, mhz in FP32_SPECS:
        if key in name:
            gflops = sms * lanes * 2 * mhz / 1000.0
            return Device(name, dram, gflops,
                          f"from the published specification: {sms} SMs x {lanes} FP32 lanes x 2 x {mhz} MHz")
    return Device(name, dram, 0.0, "")


def roofline_points(runs):
    """One point per measured row: GFLOP/s against FLOP per byte of compulsory DRAM traffic, taken from
    the row's own GB/s (compulsory bytes) where the table has it, else from the run's model table
    ("DRAM-traffic OP/B": operations per byte when every input is read and every output written once)."""
    points = []
    for run in runs:
        traffic = {}  # (stage, tile) -> DRAM-traffic OP/B
        for table in run.tables:
            if "DRAM-traffic OP/B" in table.columns:
                for row in table.rows:
                    value = row.get("DRAM-traffic OP/B")
                    if isinstance(value, (int, float)) and value > 0:
                        traffic[(str(row.get(table.columns[0])), str(row.get("tile", "")))] = value
        # The compulsory traffic depends on the problem only: a row the model table does not list (the
        # library baseline) shares it when every listed stage has the same value.
        shared = next(iter(traffic.values())) if traffic and len(set(traffic.values())) == 1 else None
        for table in run.tables:
            if "GFLOP/s" not in table.columns:
                continue
            for row in table.rows:
                gflops = row.get("GFLOP/s")
                if not isinstance(gflops, (int, float)) or gflops <= 0:
                    continue
                name, tile = str(row.get(table.columns[0], "?")), str(row.get("tile", ""))
                gbps = row.get("GB/s")
                if isinstance(gbps, (int, float)) and gbps > 0:
                    intensity = gflops / gbps
                else:
                    intensity = traffic.get((name, tile), shared)
                if not intensity:
                    continue
                label = name + (f" ({tile})" if tile not in ("", "-") else "")
                points.append(Point(label, f"{run.program} {run.shown_arguments}".strip(), intensity, gflops))
    return points


def svg_escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def decade_label(value):
    return f"{value:g}" if 1e-3 <= value < 1e6 else f"1e{round(math.log10(value))}"


def roofline_svg(device: Device, points, title):
    """A log-log roofline: attainable GFLOP/s = min(peak FP32, intensity x peak DRAM bandwidth)."""
    width, height = 900, 500
    left, top, right, bottom = 80, 50, 580, 430
    ridge = device.fp32_gflops / device.dram_gbps if device.fp32_gflops and device.dram_gbps else 0
    xs = [p.intensity for p in points] + ([ridge] if ridge else [])
    ys = [p.gflops for p in points] + ([device.fp32_gflops] if device.fp32_gflops else [])
    x_lo = 10 ** math.floor(math.log10(min(xs) / 3))
    x_hi = 10 ** math.ceil(math.log10(max(xs) * 3))
    y_hi = 10 ** math.ceil(math.log10(max(ys) * 1.5))
    y_lo = 10 ** math.floor(math.log10(min(min(ys), device.dram_gbps * x_lo if device.dram_gbps else min(ys)) / 1.5))

    def px(v):
        return left + (math.log10(v) - math.log10(x_lo)) / (math.log10(x_hi) - math.log10(x_lo)) * (right - left)

    def py(v):
        return bottom - (math.log10(v) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo)) * (bottom - top)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">',
           f"<title>{svg_escape(title)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{left}" y="26" font-weight="bold">{svg_escape(title)}</text>']
    decade = x_lo
    while decade <= x_hi * 1.0001:
        x = px(decade)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{x:.1f}" y="{bottom + 19}" text-anchor="middle" fill="#333">{decade_label(decade)}</text>')
        decade *= 10
    decade = y_lo
    while decade <= y_hi * 1.0001:
        y = py(decade)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#333">{decade_label(decade)}</text>')
        decade *= 10
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<text x="{(left + right) / 2}" y="{bottom + 42}" text-anchor="middle">'
               "arithmetic intensity: FLOP per byte of compulsory DRAM traffic (log)</text>")
    out.append(f'<text x="{left - 55}" y="{(top + bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 {left - 55} {(top + bottom) / 2})">GFLOP/s (log)</text>')

    # The roof: the memory slope up to the ridge point, then flat at the compute peak.
    if device.dram_gbps:
        x_end = ridge if ridge else min(x_hi, y_hi / device.dram_gbps)
        roof = [(x_lo, device.dram_gbps * x_lo), (x_end, device.dram_gbps * x_end)]
        if ridge:
            roof.append((x_hi, device.fp32_gflops))
        path = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in roof)
        out.append(f'<polyline points="{path}" fill="none" stroke="#444" stroke-width="2.5"/>')
        # The label runs along the slope, just above it.
        (ax, ay), (bx, by) = [(px(a), py(b)) for a, b in roof[:2]]
        angle = math.degrees(math.atan2(by - ay, bx - ax))
        lx, ly = ax + 0.12 * (bx - ax), ay + 0.12 * (by - ay) - 8
        out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" fill="#444" transform="rotate({angle:.1f} {lx:.1f} {ly:.1f})">'
                   f"DRAM {device.dram_gbps:.0f} GB/s</text>")
    if ridge:
        out.append(f'<text x="{right - 4}" y="{py(device.fp32_gflops) - 8:.1f}" text-anchor="end" fill="#444">'
                   f"FP32 peak {device.fp32_gflops / 1000:.1f} TFLOP/s</text>")
        out.append(f'<line x1="{px(ridge):.1f}" y1="{py(device.fp32_gflops):.1f}" x2="{px(ridge):.1f}" y2="{bottom}" '
                   'stroke="#999" stroke-dasharray="4 4"/>')
        out.append(f'<text x="{px(ridge) + 4:.1f}" y="{bottom - 8}" fill="#777" font-size="11">'
                   f"ridge {ridge:.1f} FLOP/B</text>")

    # Points, coloured by run; labels to the right, pushed apart where points share an intensity.
    series = list(dict.fromkeys(p.series for p in points))
    colour = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}
    placed = sorted(((px(p.intensity), py(p.gflops), p) for p in points), key=lambda t: (round(t[0]), t[1]))
    last_x, last_label_y = None, -1e9
    for x, y, p in placed:
        label_y = y + 4
        if last_x is not None and abs(x - last_x) < 40:
            label_y = max(label_y, last_label_y + 14)
        last_x, last_label_y = x, label_y
        c = colour[p.series]
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{c}"><title>{svg_escape(p.series)}: '
                   f"{svg_escape(p.label)}, {p.intensity:.2f} FLOP/B, {p.gflops:.0f} GFLOP/s</title></circle>")
        if abs(label_y - (y + 4)) > 1:
            out.append(f'<line x1="{x + 5:.1f}" y1="{y:.1f}" x2="{x + 12:.1f}" y2="{label_y - 4:.1f}" stroke="{c}"/>')
        out.append(f'<text x="{x + 14:.1f}" y="{label_y:.1f}" fill="{c}" font-size="12">{svg_escape(p.label)}</text>')

    legend_y = top + 6
    out.append(f'<text x="{right + 24}" y="{legend_y}" font-weight="bold">runs</text>')
    for s in series:
        legend_y += 20
        out.append(f'<circle cx="{right + 30}" cy="{legend_y - 4}" r="4.5" fill="{colour[s]}"/>')
        for i, line in enumerate(textwrap.wrap(s, 42)):
            legend_y += 15 if i else 0
            out.append(f'<text x="{right + 40}" y="{legend_y}" font-size="12">{svg_escape(line)}</text>')
    legend_y += 30
    notes = [f"device: {device.name}"]
    notes.append(f"compute roof: {device.fp32_source}" if ridge else "no compute roof: peak FP32 of this device unknown")
    notes.append("memory roof: the programs' peak DRAM (2 x memory clock x bus)")
    for note in notes:
        for line in textwrap.wrap(note, 48):
            out.append(f'<text x="{right + 24}" y="{legend_y}" font-size="11" fill="#555">{svg_escape(line)}</text>')
            legend_y += 15
    out.append("</svg>")
    return "\n".join(out) + "\n"


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def write_rooflines(runs, out_dir: pathlib.Path, stem, title):
    """One roofline per device for these runs; returns [(device, file name)] of the figures written."""
    written = []
    for device_name in sorted({r.device for r in runs}):
        on_device = [r for r in runs if r.device == device_name]
        points = roofline_points(on_device)
        device = device_roofs(device_name, on_device)
        if not points or not device.dram_gbps:
            continue
        name = f"{stem}_{slug(device_name)}.svg"
        (out_dir / name).write_text(roofline_svg(device, points, f"{title} on {device_name}"), encoding="utf-8")
        written.append((device, name))
    return written


def roofline_caption(device: Device):
    text = (f"Measured points on the {escape(device.name)} against its roofline. Intensity is FLOP per byte of "
            f"compulsory DRAM traffic; the memory roof is the {device.dram_gbps:.0f} GB/s the programs report as "
            "the device's peak.")
    if device.fp32_gflops:
        text += f" The compute roof is {device.fp32_gflops / 1000:.1f} TFLOP/s, {escape(device.fp32_source)}."
    return text


# ---- Fragments ----------------------------------------------------------------------------------

def chapter_fragment(chapter, runs, out_dir: pathlib.Path):
    if not runs:
        return (f"No run of this chapter has been recorded yet. Record one on a GPU with the side-by-side "
                f"program's `--json` option into `results/{chapter}/`, then rebuild the docs: its tables and "
                "roofline appear here.\n")
    parts = []
    for device, name in write_rooflines(runs, out_dir, f"roofline_{chapter}", f"{chapter}: measured stages"):
        parts.append(f"\\image html {name} \"{roofline_caption(device)}\"\n")
    shown = {}
    for run in sorted(runs, key=lambda r: (r.program, r.relpath)):
        parts.append(div(f"Run `{run.program} {run.shown_arguments}` on the **{escape(run.device)}** "
                         f"(recorded in `{run.relpath}`):") + "\n")
        for table in run.tables:
            key = json.dumps([table.columns, table.rows, table.notes], sort_keys=True)
            if key in shown:
                parts.append(div(f"Table *{escape(table.name)}*: the same as in `{shown[key]}` above.") + "\n")
                continue
            shown[key] = run.relpath
            parts.append(div(f"Table *{escape(table.name)}*:") + "\n\n" + markdown_table(table))
    return "\n".join(parts)


def roofline_fragment(runs, out_dir: pathlib.Path):
    figures = write_rooflines(runs, out_dir, "roofline_all", "Every recorded stage")
    if not figures:
        return ("No recorded run with both GB/s and GFLOP/s has been kept in `results/` yet, so there is no "
                "measured roofline to show. Record runs with the programs' `--json` option and rebuild the docs.\n")
    return "\n".join(f"\\image html {name} \"{roofline_caption(device)}\"\n" for device, name in figures)


def code_aware_escape(text):
    """escape() outside `code spans`, which Doxygen shows verbatim anyway."""
    parts = text.split("`")
    return "`".join(part if i % 2 else escape(part) for i, part in enumerate(parts))


def profile_fragment(profiles_dir: pathlib.Path):
    """The counter tables scripts/profile recorded on real GPUs (profile/recorded/*.md), as a fragment:
    headings become bold blocks, prose becomes blocks, tables pass through with their cells escaped."""
    files = sorted(profiles_dir.glob("*.md")) if profiles_dir and profiles_dir.is_dir() else []
    if not files:
        return ("No counter tables have been recorded yet. On a GPU whose counters may be read, run "
                "`scripts/profile --all` and keep its tables under `profile/recorded/`.\n")
    out = []
    for path in files:
        out.append(div(f"(recorded in `{profiles_dir.parent.name}/{profiles_dir.name}/{path.name}`)"))
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if not stripped:
                out.append("")
            elif stripped.startswith("|"):
                cells = stripped.strip("|").split("|")
                if all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in cells):
                    out.append(stripped)
                else:
                    out.append("| " + " | ".join(code_aware_escape(c.strip()) for c in cells) + " |")
            elif m := re.match(r"#+\s+(.*)", stripped):
                out.append(div(f"**{code_aware_escape(m.group(1))}**"))
            else:
                out.append(div(code_aware_escape(stripped)))
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, type=pathlib.Path, help="the recorded runs (results/)")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="where to write fragments and figures")
    parser.add_argument("--chapters", nargs="*", default=[], help="chapters that get a fragment even with no run")
    parser.add_argument("--profiles", type=pathlib.Path, help="counter tables recorded by scripts/profile")
    parser.add_argument("--leave-out", nargs="*", default=[], metavar="PROGRAM",
                        help="programs whose runs another generator shows (their names' beginnings)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    runs = [run for run in load_runs(args.results) if not run.program.startswith(tuple(args.leave_out))]
    chapters = sorted(set(args.chapters) | {r.chapter for r in runs})
    for chapter in chapters:
        text = chapter_fragment(chapter, [r for r in runs if r.chapter == chapter], args.out)
        (args.out / f"results_{chapter}.md").write_text(text, encoding="utf-8")
    (args.out / "results_roofline.md").write_text(roofline_fragment(runs, args.out), encoding="utf-8")
    (args.out / "recorded_counters.md").write_text(profile_fragment(args.profiles), encoding="utf-8")
    print(f"recorded_runs.py: {len(runs)} recorded run(s) from {args.results} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
