#!/usr/bin/env python3
"""Turn the recorded multi-GPU runs in results/ into the fragment the page on reduction across GPUs
includes: each run's tables (sum across GPUs, links, all-reduce) and a chart of the bus bandwidth the
hand-written ring and NCCL reached at each vector size.

A recorded run is what ch10_multi_gpu or ch10_multi_gpu_mpi writes with --json (scripts/record-multi-gpu
records them). Writes results_ch10_multi_gpu.md and one busbw_<run>.svg per run with an all-reduce table.

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


def vector_bytes(text):
    match = re.fullmatch(r"\s*([0-9.]+)\s*(KiB|MiB|GiB)\s*", str(text))
    return float(match.group(1)) * UNITS[match.group(2)] if match else None


def busbw_svg(run, table):
    """Bus bandwidth against vector size (log scale), ring and NCCL, from one run's all-reduce table."""
    series = {"hand-written ring": "ring busbw GB/s", "NCCL": "NCCL busbw GB/s"}
    points = {name: [] for name in series}
    for row in table.rows:
        size = vector_bytes(row.get("vector"))
        for name, column in series.items():
            value = row.get(column)
            if size and isinstance(value, (int, float)) and value > 0:
                points[name].append((size, value))
    if not any(points.values()):
        return None
    sizes = [s for pts in points.values() for s, _ in pts]
    top_value = max(v for pts in points.values() for _, v in pts)
    width, height, left, right, top, bottom = 820, 380, 70, 560, 40, 320
    x_lo, x_hi = math.log2(min(sizes)), math.log2(max(sizes))
    x_hi = x_hi if x_hi > x_lo else x_lo + 1
    y_hi = 10 ** math.floor(math.log10(top_value)) * math.ceil(top_value * 1.1 / 10 ** math.floor(math.log10(top_value)))

    def px(size):
        return left + (math.log2(size) - x_lo) / (x_hi - x_lo) * (right - left)

    def py(value):
        return bottom - value / y_hi * (bottom - top)

    title = f"All-reduce bus bandwidth on {run.device}"
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
        label = next(f"{size / unit:g} {name}" for name, unit in reversed(UNITS.items()) if size >= unit)
        out.append(f'<text x="{px(size):.1f}" y="{bottom + 18}" text-anchor="middle" fill="#333" font-size="11">'
                   f"{label}</text>")
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#333"/>')
    out.append(f'<text x="{(left + right) / 2}" y="{bottom + 44}" text-anchor="middle">vector size (log scale)</text>')
    out.append(f'<text x="{left - 50}" y="{(top + bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 {left - 50} {(top + bottom) / 2})">bus bandwidth, GB/s</text>')
    for i, (name, pts) in enumerate(points.items()):
        colour = rr.PALETTE[i]
        pts.sort()
        if pts:
            path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for s, v in pts:
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(v):.1f}" r="4" fill="{colour}"><title>{rr.svg_escape(name)}: '
                       f"{v:.1f} GB/s</title></circle>")
        out.append(f'<circle cx="{right + 30}" cy="{top + 20 + 22 * i}" r="5" fill="{colour}"/>')
        out.append(f'<text x="{right + 42}" y="{top + 25 + 22 * i}">{rr.svg_escape(name)}</text>')
    out.append(f'<text x="{right + 24}" y="{top + 80}" font-size="11" fill="#555">busbw = bytes / time * 2(p-1)/p,</text>')
    out.append(f'<text x="{right + 24}" y="{top + 95}" font-size="11" fill="#555">as the NCCL performance tests</text>')
    out.append(f'<text x="{right + 24}" y="{top + 110}" font-size="11" fill="#555">define it</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def fragment(records, out_dir):
    if not records:
        return ("No multi-GPU run is recorded yet. On a machine with two or more GPUs, `scripts/record-multi-gpu` "
                "records the runs this section describes into `results/`; their tables and a chart of the bus "
                "bandwidth appear here once the book is rebuilt.\n")
    parts = []
    for record in sorted(records, key=lambda r: (r.device, r.program, r.path.as_posix())):
        parts.append(rr.source_line(record) + "\n")
        for table in record.tables:
            if table.key == "all_reduce":
                svg = busbw_svg(record, table)
                if svg:
                    name = f"busbw_{rr.slug(record.path.as_posix())}.svg"
                    (out_dir / name).write_text(svg, encoding="utf-8")
                    parts.append(rr.image(name, rr.escape(f"Bus bandwidth of the all-reduce, hand-written ring and "
                                                          f"NCCL, on the {record.device}.")))
            parts.append(rr.table_markdown(record, table))
    return "\n".join(parts)


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
    (args.out / "results_ch10_multi_gpu.md").write_text(fragment(records, args.out), encoding="utf-8")
    print(f"multi_gpu_runs.py: {len(records)} recorded multi-GPU run(s) from {args.results} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
