#!/usr/bin/env python3
"""Turn the recorded multi-GPU runs in results/ into the fragments the page on reduction across GPUs
includes. Runs of the same machine and GPU count are read together, whatever launched them
(ch10_multi_gpu: one process; ch10_multi_gpu_mpi: one process per GPU), and shown one table per
quantity with the launch modes side by side: the sum across GPUs, the all-reduce's bus bandwidth (with
a chart) and each ring against NCCL, the links; and each run's own tables, folded away.

A recorded run is what ch10_multi_gpu or ch10_multi_gpu_mpi writes with --json (scripts/record-multi-gpu
records them). Records from before the fused ring (one ring, columns "ring ms", "NCCL ms", ...) read as
runs of the copy-engine ring. Writes the fragments named in FRAGMENTS and one
busbw_<machine>_<p>gpus.svg per group with an all-reduce table.

Python 3 standard library only; the record reader (book/tools/run_record.py) and the Markdown tables are
recorded_runs.py's.
"""
import argparse
import math
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import recorded_runs as rr  # noqa: E402  (the book's reader of recorded runs, beside this file)

PROGRAMS = ("ch10_multi_gpu",)  # ch10_multi_gpu and ch10_multi_gpu_mpi
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
MODES = {"ch10_multi_gpu": "one process", "ch10_multi_gpu_mpi": "process per GPU"}
CONTENDERS = ("copy-engine ring", "fused ring", "NCCL")
COLOURS = {"copy-engine ring": rr.PALETTE[0], "fused ring": rr.PALETTE[2], "NCCL": rr.PALETTE[1]}
# Where each contender's numbers are in a record's all-reduce table: today's columns, then those of the
# records made before the fused ring existed (one ring, which was the copy-engine ring).
COLUMNS = {
    "copy-engine ring": {"ms": ("ms: copy-engine ring", "ring ms"),
                         "busbw": ("busbw GB/s: copy-engine ring", "ring busbw GB/s")},
    "fused ring": {"ms": ("ms: fused ring",), "busbw": ("busbw GB/s: fused ring",)},
    "NCCL": {"ms": ("ms: NCCL", "NCCL ms"), "busbw": ("busbw GB/s: NCCL", "NCCL busbw GB/s")},
}
NO_VALUE = "–"


def vector_bytes(text):
    match = re.fullmatch(r"\s*([0-9.]+)\s*(KiB|MiB|GiB)\s*", str(text))
    return float(match.group(1)) * UNITS[match.group(2)] if match else None


def size_label(size):
    # A no-break space: a size never breaks over two lines in a narrow column.
    return next(f"{size / unit:g}\u00a0{name}" for name, unit in reversed(UNITS.items()) if size >= unit)


def number(value):
    """A cell's value as a number: records keep numbers as numbers, and a few as printed text ("1.00")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def ranks_of(record):
    match = re.search(r"(\d+) ranks?:", record.problem)
    return int(match.group(1)) if match else 0


def mode_of(record):
    return MODES.get(record.program, record.program)


def cell(value, decimals):
    return NO_VALUE if value is None else f"{value:.{decimals}f}"


# ---- Reading the records -------------------------------------------------------------------------

def all_reduce_series(record):
    """{contender: {vector bytes: {"ms": x, "busbw": y}}} from the record's all-reduce table."""
    table = record.table("all_reduce")
    series = {name: {} for name in CONTENDERS}
    if table is None:
        return series
    for row in table.rows:
        size = vector_bytes(row.get("vector"))
        if not size:
            continue
        for name, where in COLUMNS.items():
            values = {q: next((number(row.get(c)) for c in columns if number(row.get(c)) is not None), None)
                      for q, columns in where.items()}
            if values["ms"] is not None and values["ms"] > 0:
                series[name][size] = values
    return series


def link_speed(record):
    """The slowest link all at once (GB/s), which the programs' predictions use; None without links."""
    table = record.table("links")
    values = [number(row.get("all at once GB/s")) for row in table.rows] if table else []
    values = [v for v in values if v]
    return min(values) if values else None


def sum_rows(record):
    """{run name: row} of the sum table, the older records' names read as today's."""
    table = record.table("sum")
    rows = {}
    for row in table.rows if table else []:
        name = str(row.get("run", "")).strip()
        name = re.sub(r"\+ NCCL all-reduce of the partial sums$", "+ NCCL", name)
        if re.match(r"of which: NCCL all-reduce of one float per GPU, alone", name):
            name = "NCCL alone"
        rows[name] = row
    return rows


def sum_endings(record):
    """[(speed-up over one GPU, ending)] for each way the run ended the sum: "NCCL", "peer reads", "its
    last block". The one-GPU row and the shards alone (the ceiling, not an ending) are left out."""
    endings = []
    for name, row in sum_rows(record).items():
        speed_up = number(row.get("x one GPU"))
        if not speed_up:
            continue
        if " + " in name:
            endings.append((speed_up, name.split(" + ", 1)[1]))
        elif name.endswith("ended in its last block"):
            endings.append((speed_up, "its last block"))
    return endings


def shards_alone(record):
    """The speed-up of the shards reduced at once and never combined, where the run measured it."""
    for name, row in sum_rows(record).items():
        if name.startswith("every shard alone"):
            return number(row.get("x one GPU"))
    return None


def groups_of(records):
    """{(machine folder, ranks): [records, one process first]}."""
    groups = {}
    for record in records:
        groups.setdefault((record.path.parent.as_posix(), ranks_of(record)), []).append(record)
    for runs in groups.values():
        runs.sort(key=lambda r: (list(MODES).index(r.program) if r.program in MODES else 9, r.path.as_posix()))
    return groups


# ---- Tables, one per quantity, the launch modes side by side ----------------------------------------

def markdown(caption, header, rows, notes=()):
    right = [False] + [True] * (len(header) - 1)
    # Composed from several runs (both launch modes), so the site check does not expect one run's device.
    out = [f'<div class="table-caption composed">{rr.escape(caption)}.</div>\n',
           "| " + " | ".join(rr.escape(h) for h in header) + " |",
           "|" + "".join("---:|" if r else "---|" for r in right)]
    out += ["| " + " | ".join(rr.escape(c) for c in row) + " |" for row in rows]
    out.append("")
    if notes:
        out.append('<div class="table-notes">' + "".join(f"<div>{rr.escape(n)}</div>" for n in notes) + "</div>\n")
    return "\n".join(out) + "\n"


def present(runs, series_of_run):
    """The contenders with at least one number in any run."""
    return [name for name in CONTENDERS if any(series_of_run[id(run)][name] for run in runs)]


def busbw_table(runs, series, where):
    names = present(runs, series)
    sizes = sorted({s for run in runs for name in names for s in series[id(run)][name]})
    header = ["vector"] + [f"{name}, {mode_of(run)}" for name in names for run in runs]
    rows = [[size_label(size)] + [cell(series[id(run)][name].get(size, {}).get("busbw"), 1)
                                  for name in names for run in runs] for size in sizes]
    speeds = [link_speed(run) for run in runs]
    notes = ["busbw = vector bytes / time * 2(p-1)/p, as the NCCL performance tests define it: the rate each "
             "GPU's link carried, comparable with the link's own speed."]
    if any(speeds):
        notes.append("The links, every GPU sending while it receives (the programs' copies): " +
                     ", ".join(f"{s:.0f} GB/s ({mode_of(run)})" for s, run in zip(speeds, runs) if s) + ".")
    notes.append(f"{NO_VALUE}: not run, or failed its check.")
    return markdown(f"All-reduce bus bandwidth in GB/s, {where}", header, rows, notes)


def versus_nccl_table(runs, series, where):
    rings = [name for name in present(runs, series) if name != "NCCL"]
    sizes = sorted({s for run in runs for name in rings for s in series[id(run)][name]})
    header = ["vector"] + [f"{name}, {mode_of(run)}" for name in rings for run in runs]
    rows = []
    for size in sizes:
        row = [size_label(size)]
        for name in rings:
            for run in runs:
                ring, nccl = series[id(run)][name].get(size), series[id(run)]["NCCL"].get(size)
                row.append(cell(nccl["ms"] / ring["ms"], 2) if ring and nccl else NO_VALUE)
        rows.append(row)
    notes = ["NCCL's time over the ring's, in the same run: above 1, the ring is faster."]
    return markdown(f"Each ring against NCCL, {where}", header, rows, notes)


def sum_table(runs, where):
    tables = [sum_rows(run) for run in runs]
    names = []
    for rows in tables:
        names += [n for n in rows if n not in names]
    header = ["run"] + [f"ms, {mode_of(run)}" for run in runs] + [f"x one GPU, {mode_of(run)}" for run in runs]
    rows = []
    for name in names:
        row = [name]
        row += [cell(number(t[name].get("ms")), 4) if name in t else NO_VALUE for t in tables]
        row += [cell(number(t[name].get("x one GPU")), 2) if name in t else NO_VALUE for t in tables]
        rows.append(row)
    notes = ["x one GPU: one GPU's time over this one; the ideal is the number of GPUs.",
             "'every shard alone': the shards reduced at once and never combined, the ceiling of every "
             "ending (records made before it was measured leave it out).",
             "'NCCL alone', 'peer reads alone': the last level by itself (the partial sums already in place)."]
    return markdown(f"The sum across GPUs, {where}", header, rows, notes)


def links_table(runs, where):
    tables = [run.table("links") for run in runs]
    drivers = [run.table("link_drivers") for run in runs]  # absent from records made before the fused ring
    links = []
    for table in tables:
        links += [row["link"] for row in (table.rows if table else []) if row["link"] not in links]
    kinds = [("alone", "links", "alone GB/s"), ("all at once", "links", "all at once GB/s")]
    if any(drivers):
        kinds += [("SM loads", "link_drivers", "SM loads GB/s"), ("SM stores", "link_drivers", "SM stores GB/s")]
    header = ["link"] + [f"{kind}, {mode_of(run)}" for kind, _, _ in kinds for run in runs]
    rows = []
    for index, link in enumerate(links):
        row = [link]
        for _, key, column in kinds:
            for run in runs:
                table = run.table(key)
                found = None
                if table and key == "links":
                    found = next((r for r in table.rows if r["link"] == link), None)
                elif table and index < len(table.rows):  # the same links, in the same order
                    found = table.rows[index]
                row.append(cell(number(found.get(column)) if found else None, 0))
        rows.append(row)
    notes = ["GB/s of the copy-engine ring's own copies into the right neighbour: one link at a time (alone), and "
             "every GPU sending while it receives (all at once), as in a ring."]
    if any(drivers):
        notes.append("SM loads and SM stores: every GPU at once, a kernel reading its neighbour's memory (as the "
                     "fused ring does) or writing into it.")
    return markdown(f"The links, {where}", header, rows, notes)


# ---- The chart -----------------------------------------------------------------------------------

def busbw_svg(runs, series, title):
    """Bus bandwidth against vector size (log scale): a colour per contender, solid for one process,
    dashed for one process per GPU, and the links' speed as a grey line."""
    lines = []
    for k, run in enumerate(runs):
        for name in CONTENDERS:
            points = sorted((s, v["busbw"]) for s, v in series[id(run)][name].items() if v.get("busbw"))
            if points:
                lines.append((name, k, run, points))
    if not lines:
        return None
    sizes = [s for *_, points in lines for s, _ in points]
    speeds = [s for s in (link_speed(run) for run in runs) if s]
    top_value = max([v for *_, points in lines for _, v in points] + speeds)
    width, height, left, right, top, bottom = 860, 400, 70, 560, 40, 330
    x_lo, x_hi = math.log2(min(sizes)), math.log2(max(sizes))
    x_hi = x_hi if x_hi > x_lo else x_lo + 1
    magnitude = 10 ** math.floor(math.log10(top_value))
    y_hi = magnitude * math.ceil(top_value * 1.1 / magnitude)

    def px(size):
        return left + (math.log2(size) - x_lo) / (x_hi - x_lo) * (right - left)

    def py(value):
        return bottom - value / y_hi * (bottom - top)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">',
           f"<title>{rr.svg_escape(title)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{left}" y="24" font-weight="bold">{rr.svg_escape(title)}</text>']
    for k in range(6):
        value = y_hi * k / 5
        out.append(f'<line x1="{left}" y1="{py(value):.1f}" x2="{right}" y2="{py(value):.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 6}" y="{py(value) + 4:.1f}" text-anchor="end" fill="#333">{value:g}</text>')
    for size in sorted(set(sizes)):
        out.append(f'<text x="{px(size):.1f}" y="{bottom + 18}" text-anchor="middle" fill="#333" font-size="11">'
                   f"{size_label(size)}</text>")
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<text x="{(left + right) / 2}" y="{bottom + 44}" text-anchor="middle">vector size (log scale)</text>')
    out.append(f'<text x="{left - 50}" y="{(top + bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 {left - 50} {(top + bottom) / 2})">bus bandwidth, GB/s</text>')
    if speeds:
        link = min(speeds)
        out.append(f'<line x1="{left}" y1="{py(link):.1f}" x2="{right}" y2="{py(link):.1f}" stroke="#888" '
                   'stroke-dasharray="2,3"/>')
        out.append(f'<text x="{left + 6}" y="{py(link) - 5:.1f}" fill="#555" font-size="11">the links, all at once: '
                   f"{link:.0f} GB/s</text>")
    for name, k, run, points in lines:
        colour, dash = COLOURS[name], ' stroke-dasharray="6,4"' if k else ""
        path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for s, v in points:
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(v):.1f}" r="4" fill="{colour}"><title>'
                       f"{rr.svg_escape(f'{name}, {mode_of(run)}')}: {v:.1f} GB/s</title></circle>")
    legend_y = top + 20
    for name in [n for n in CONTENDERS if any(line[0] == n for line in lines)]:
        out.append(f'<circle cx="{right + 30}" cy="{legend_y}" r="5" fill="{COLOURS[name]}"/>')
        out.append(f'<text x="{right + 42}" y="{legend_y + 5}">{rr.svg_escape(name)}</text>')
        legend_y += 22
    for k, run in enumerate(runs):
        dash = ' stroke-dasharray="6,4"' if k else ""
        out.append(f'<line x1="{right + 22}" y1="{legend_y}" x2="{right + 40}" y2="{legend_y}" stroke="#333" '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<text x="{right + 46}" y="{legend_y + 4}" font-size="12">{rr.svg_escape(mode_of(run))}</text>')
        legend_y += 20
    for line in ("busbw = bytes / time * 2(p-1)/p,", "as the NCCL performance tests", "define it"):
        out.append(f'<text x="{right + 24}" y="{legend_y + 14}" font-size="11" fill="#555">{line}</text>')
        legend_y += 15
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- The fragments -------------------------------------------------------------------------------

# The page includes each where its section needs it: {file: what it holds}.
FRAGMENTS = {
    "ch10_multi_gpu_findings.md": "what the runs show, in a few lines of numbers",
    "ch10_multi_gpu_sum.md": "the sum across GPUs",
    "ch10_multi_gpu_all_reduce.md": "the all-reduce: a chart, its bus bandwidth, each ring against NCCL",
    "ch10_multi_gpu_links.md": "the links",
    "results_ch10_multi_gpu.md": "which runs, and everything each printed, folded",
    "ch10_multi_gpu_scaling.md": "how the rings and the sum grow with the number of GPUs, against the model",
}
NO_RUN = ("No multi-GPU run is recorded in `results/`. On a machine with two or more GPUs, "
          "`scripts/record-multi-gpu` records the runs this page describes; their tables appear here once the "
          "book is rebuilt.\n")


def ratio_range(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    low, high = min(values), max(values)
    return f"{low:.2f}x" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f} to {high:.2f}x"


def findings(runs, series, where):
    """A few lines of numbers for the page's summary: the sum's speed-up, the links, and each ring
    against NCCL from 32 MiB up (below that the rings are bound by their steps' fixed costs)."""
    lines = [f"On {where}:\n"]
    sums = []
    for run in runs:
        parts = []
        for speed_up, ending in sum_endings(run):
            how = "ended in its last block" if ending == "its last block" else f"with {ending}"
            parts.append(f"{speed_up:.2f}x one GPU {how}")
        ceiling = shards_alone(run)
        if ceiling:
            parts.append(f"{ceiling:.2f}x for the shards alone, never combined")
        if parts:
            sums.append(f"{', '.join(parts)} ({mode_of(run)})")
    if sums:
        lines.append(f"- The sum across GPUs: {'; '.join(sums)}; the ideal is {ranks_of(runs[0])}x.")
    links = []
    for run in runs:
        speeds = [("the copy engines", link_speed(run))]
        drivers = run.table("link_drivers")
        for label, column in (("SM loads", "SM loads GB/s"), ("SM stores", "SM stores GB/s")):
            values = [number(row.get(column)) for row in drivers.rows] if drivers else []
            speeds.append((label, min(values) if values and None not in values else None))
        text = ", ".join(f"{v:.0f} GB/s by {label}" for label, v in speeds if v)
        if text:
            links.append(f"{text} ({mode_of(run)})")
    if links:
        lines.append(f"- The links, every GPU at once: {'; '.join(links)}.")
    for name in [n for n in CONTENDERS if n != "NCCL"]:
        parts = []
        for run in runs:
            mine, nccl = series[id(run)][name], series[id(run)]["NCCL"]
            ratios = [nccl[s]["ms"] / mine[s]["ms"] for s in mine if s >= 32 * UNITS["MiB"] and s in nccl]
            largest = max(mine) if mine else None
            if ratios and largest:
                parts.append(f"{ratio_range(ratios)} NCCL's speed, {mine[largest]['busbw']:.1f} GB/s at "
                             f"{size_label(largest)} ({mode_of(run)})")
        if parts:
            lines.append(f"- The {name} from 32 MiB up: {'; '.join(parts)}.")
    return "\n".join(lines) + "\n"


def group_fragments(machine, ranks, runs, out_dir, shown):
    """{fragment file: text} for the runs of one machine and GPU count; @shown: {table's cells: the run
    that showed it first}, over every group of the page."""
    device = runs[0].device
    where = f"{ranks} GPUs, {device}" if ranks else device
    series = {id(run): all_reduce_series(run) for run in runs}
    out = {name: [] for name in FRAGMENTS}
    if any(any(series[id(run)].values()) for run in runs):
        svg = busbw_svg(runs, series, f"All-reduce bus bandwidth, {where}")
        name = f"busbw_{rr.slug(pathlib.PurePosixPath(machine).name)}_{ranks}gpus.svg"
        (out_dir / name).write_text(svg, encoding="utf-8")
        out["ch10_multi_gpu_all_reduce.md"].append(
            rr.image(name, rr.escape(f"Bus bandwidth of the all-reduce, {where}: each ring and NCCL, in each launch "
                                     "mode, against the links' speed.")))
        out["ch10_multi_gpu_all_reduce.md"].append(busbw_table(runs, series, where))
        if any(series[id(run)]["NCCL"] for run in runs):
            out["ch10_multi_gpu_all_reduce.md"].append(versus_nccl_table(runs, series, where))
    out["ch10_multi_gpu_findings.md"].append(findings(runs, series, where))
    if any(run.table("sum") for run in runs):
        out["ch10_multi_gpu_sum.md"].append(sum_table(runs, where))
    if any(run.table("links") for run in runs):
        out["ch10_multi_gpu_links.md"].append(links_table(runs, where))
    details = out["results_ch10_multi_gpu.md"]
    details.append("Recorded with " + " and ".join(f"{rr.code(run.command)} ({mode_of(run)}, "
                                                  f"{rr.code(run.path.as_posix())})" for run in runs) + ".\n")
    for run in runs:  # a table printed the same by several runs (the plan, the model) is shown once
        parts = []
        for table in run.tables:
            key = (tuple(table.columns), tuple(tuple(row) for row in table.printed))
            if key in shown:
                parts.append(f"*{rr.escape(table.title)}*: as printed by {rr.code(shown[key].command)} above.\n")
            else:
                shown[key] = run
                parts.append(rr.table_markdown(run, table))
        details.append(rr.folded(f"Everything `{run.command}` printed ({mode_of(run)})", "\n".join(parts)))
    return {name: "\n".join(parts) for name, parts in out.items()}


# ---- Scaling with the number of GPUs -------------------------------------------------------------

SCALING_SIZE = UNITS["GiB"]  # the size the scaling table compares at, where recorded: the links bound it


def step_fit(series, ranks):
    """What one of a ring's 2(p-1) steps costs, t_step = alpha + piece / B: the rate B, in GB/s, from the
    two largest vectors (where the bytes dominate) and the fixed cost alpha, in microseconds, from the
    smallest (where they do not). None with fewer than three sizes."""
    sizes = sorted(series)
    if ranks < 2 or len(sizes) < 3:
        return None
    steps = 2 * (ranks - 1)

    def step_seconds(size):
        return series[size]["ms"] * 1e-3 / steps

    rise = step_seconds(sizes[-1]) - step_seconds(sizes[-2])
    if rise <= 0:
        return None
    rate = (sizes[-1] - sizes[-2]) / ranks / rise
    alpha = step_seconds(sizes[0]) - sizes[0] / ranks / rate
    return alpha * 1e6, rate / 1e9


def best_sum(record):
    """The sum's best speed-up over one GPU, and the ending that gave it."""
    parts = sum_endings(record)
    return max(parts) if parts else (None, None)


def scaling_table(machine, groups):
    """One row per GPU count and launch mode of one machine: each ring and NCCL at 1 GiB, the model's
    bound, what the fit says each ring's steps cost, and the sum's speed-up."""
    runs = [run for (m, ranks) in sorted(groups) if m == machine for run in groups[(m, ranks)]]
    serieses = {id(run): all_reduce_series(run) for run in runs}
    common = set.intersection(*[set(serieses[id(run)]["NCCL"]) or {SCALING_SIZE} for run in runs])
    size = SCALING_SIZE if SCALING_SIZE in common or not common else max(common)
    rows, device = [], None
    for ranks in sorted(r for m, r in groups if m == machine):
        for run in groups[(machine, ranks)]:
            device = device or run.device
            series = serieses[id(run)]
            at = {name: series[name].get(size, {}).get("busbw") for name in CONTENDERS}
            fits = {name: step_fit(series[name], ranks) for name in ("copy-engine ring", "fused ring")}
            speedup, ending = best_sum(run)
            row = [str(ranks), mode_of(run)] + [cell(at[name], 0) for name in CONTENDERS]
            row.append(cell(link_speed(run), 0))
            for name in ("copy-engine ring", "fused ring"):
                row.append(f"{fits[name][0]:.1f} us, {fits[name][1]:.0f} GB/s" if fits[name] else NO_VALUE)
            row.append(f"{speedup:.2f}x ({ending})" if speedup else NO_VALUE)
            rows.append(row)
    if len({row[0] for row in rows}) < 2:
        return ""
    header = ["GPUs", "launch", "copy-engine ring", "fused ring", "NCCL", "model",
              "fit: copy-engine ring", "fit: fused ring", "sum x one GPU"]
    notes = [f"Bus bandwidth in GB/s at {size_label(size)}. The model: the slowest link with every GPU "
             "sending at once, the bound a ring's bus bandwidth cannot pass at any number of GPUs.",
             "fit: a ring's time as 2(p-1) steps of (a fixed cost + the piece over a rate): the rate from the two "
             "largest vectors, the fixed cost of one step (flags, launches, the host) from the smallest. The "
             "fixed cost bounds the small vectors, the rate the large ones.",
             "sum x one GPU: one GPU's time over the sum across all of them, with its faster ending; the ideal is "
             "the number of GPUs."]
    return markdown(f"How the rings and the sum grow with the number of GPUs, {device}", header, rows, notes)


def scaling(records):
    groups = groups_of(records)
    texts = [scaling_table(machine, groups) for machine in sorted({m for m, _ in groups})]
    texts = [t for t in texts if t]
    return "\n".join(texts) if texts else ("Runs on one number of GPUs only: `scripts/record-multi-gpu` records "
                                           "2, 4 and 8 GPUs where a machine has them.\n")


def fragments(records, out_dir):
    """{fragment file: text}: every group's part of each fragment, or the sentence saying there is none."""
    if not records:
        return {name: NO_RUN for name in FRAGMENTS}
    groups = groups_of(records)
    texts = {name: [] for name in FRAGMENTS}
    shown = {}
    for machine, ranks in sorted(groups):
        for name, text in group_fragments(machine, ranks, groups[(machine, ranks)], out_dir, shown).items():
            if text:
                texts[name].append(text)
    texts["ch10_multi_gpu_scaling.md"] = [scaling(records)]
    return {name: "\n".join(parts) if parts else NO_RUN for name, parts in texts.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, type=pathlib.Path, help="the recorded runs (results/)")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="where to write the fragment and charts")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    records = []
    for path in sorted(args.results.rglob("*.json")) if args.results.is_dir() else []:
        record = rr.run_record.load(path)
        record.path = path.relative_to(args.results.parent)
        if record.program.startswith(PROGRAMS):
            records.append(record)
    for name, text in fragments(records, args.out).items():
        (args.out / name).write_text(text, encoding="utf-8")
    runs = f"{len(records)} recorded multi-GPU run" + ("" if len(records) == 1 else "s")
    print(f"multi_gpu_runs.py: {runs} from {args.results} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
