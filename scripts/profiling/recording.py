"""The files a profile writes, and the recorded ones in profile/recorded/ read back.

A profile recording (profile.json) holds, per stage program, the raw counters of its timed launch and
the predictions its program stated; its tables (profile.md) are rendered from those alone, so that
`--rerender` rebuilds them with the current rows and the same numbers. A limiters recording
(limiters.json) holds the counters of each kernel; limiters.md shows them in three tables.
"""
import datetime
import json
from pathlib import Path

from . import comparison, limiters
from .formatting import markdown_table, text_table, wrap, wrap_lines
from .predictions import Prediction

ROOT = Path(__file__).resolve().parents[2]
RECORDED_DIR = ROOT / "profile" / "recorded"
PREDICTIONS_FROM = {
    "run record": "Predictions come from each program's run record (`--analysis --json`, its table 'profile').",
    "recorded tables": "Predictions are those the tables recorded on that date showed, kept as they were "
                       "stored (the programs did not yet write them to their run records).",
}


def today():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def wrote(paths):
    """"wrote PATH", one line per file (a path is not wrapped)."""
    return "\n".join(f"wrote {p}" for p in paths)


# ---- One stage -----------------------------------------------------------------------------------

def stage_rows(entry):
    """(rows, notes) of a recorded stage: its table and what to know when reading it."""
    prediction = Prediction.from_json(entry["prediction"]) if entry.get("prediction") else None
    rows = comparison.stage_rows(prediction, entry["metrics"], entry.get("peak_dram_gbps"),
                                 entry.get("peak_fp32_tflops"))
    notes = list(entry.get("notes", []))
    notes += [f"metric {k} dropped: {why}" for k, why in entry.get("dropped", {}).items()]
    return rows, notes


def stage_heading(entry):
    return "\n".join(wrap(f"== {entry['program']} {entry['arguments']}"))


def stage_text(entry, heading=True):
    """A stage for the terminal: its heading, its launch, its table (100 columns) and its notes."""
    out = [stage_heading(entry)] if heading else []
    if "metrics" not in entry:
        return "\n".join(out + [wrap_lines(f"not measured: {entry.get('error', 'unknown error')}")])
    rows, notes = stage_rows(entry)
    out += wrap(entry.get("launch", ""))
    out.append(text_table(comparison.COLUMNS, [r.cells() for r in rows], right=(1, 2), detail=3))
    for note in notes:
        out += wrap(f"note: {note}", indent="")
    return "\n".join(out)


def stage_markdown(entry):
    out = [f"## {entry['program']}", "",
           f"Arguments: `{entry['arguments']}`" + (f"; {entry['launch']}" if entry.get("launch") else ""), ""]
    if "metrics" in entry:
        rows, notes = stage_rows(entry)
        out.append(markdown_table(comparison.COLUMNS, [r.cells() for r in rows], right=(1, 2)))
        out += [f"\nNote: {n}" for n in notes]
    else:
        out.append("Not measured: " + " ".join(entry.get("error", "unknown error").split()))
    return "\n".join(out) + "\n"


# ---- A profile recording ---------------------------------------------------------------------------

def profile_markdown(recording):
    header = (f"Recorded {recording['date']} with `scripts/profile` and Nsight Compute ({recording['ncu']}): caches "
              "flushed before each replay pass, GPU clocks not locked. One timed launch per stage, profiled "
              f"alone. {PREDICTIONS_FROM[recording.get('predictions', 'run record')]} '-' on the predicted "
              "side comes with the reason.")
    if recording.get("rendered"):
        header += (f" Tables rebuilt on {recording['rendered']} from the recorded counters "
                   "(`scripts/profile --rerender`).")
    parts = [f"# Predicted against measured: {recording['device']}\n", header + "\n"]
    parts += [stage_markdown(entry) for entry in recording["stages"]]
    return "\n".join(parts)


def write_profile(out, recording):
    """profile.md and profile.json in @p out; returns their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "profile.md").write_text(profile_markdown(recording))
    (out / "profile.json").write_text(json.dumps(recording, indent=2) + "\n")
    return out / "profile.md", out / "profile.json"


# ---- A limiters recording --------------------------------------------------------------------------

def limiters_markdown(recording):
    md = [f"# What limits the stages beyond the text: {recording['device']}", "",
          f"Recorded {recording['date']} with `scripts/profile --limiters` and Nsight Compute ({recording['ncu']}): "
          "caches flushed before each replay pass, GPU clocks not locked, one launch per kernel (the last with "
          "the largest grid: a stage's timed repetition, a matrix sum's first pass). The three tables number "
          "the kernels alike. 'limited by' applies the rules of `limiter_verdict` in "
          "`scripts/profiling/limiters.py`. Long kernel names are shortened; the JSON beside this file has "
          "them as Nsight Compute gave them.", ""]
    for intro, columns, right, _, rows in limiters.tables(recording["kernels"]):
        md += [intro, "", markdown_table(columns, rows, right), ""]
    return "\n".join(md)


def limiters_text(recording, programs=()):
    """The three tables for the terminal; only the kernels of @p programs when any are named."""
    out = []
    shown = (lambda e: e["program"] in programs) if programs else None
    for intro, columns, right, detail, rows in limiters.tables(recording["kernels"], shown):
        out += wrap(intro) + [text_table(columns, rows, right=right, detail=detail), ""]
    return "\n".join(out).rstrip()


def write_limiters(out, recording):
    """limiters.md and limiters.json in @p out; returns their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "limiters.md").write_text(limiters_markdown(recording))
    (out / "limiters.json").write_text(json.dumps(recording, indent=2) + "\n")
    return out / "limiters.md", out / "limiters.json"


# ---- Reading recordings back -----------------------------------------------------------------------

def load(path):
    """A recording (profile or limiters) from its JSON file."""
    recording = json.loads(Path(path).read_text())
    if not isinstance(recording, dict) or not ("stages" in recording or "kernels" in recording):
        raise ValueError(f"{path}: neither a profile nor a limiters recording")
    return recording


def markdown(recording):
    """The Markdown of a recording of either kind."""
    return limiters_markdown(recording) if "kernels" in recording else profile_markdown(recording)


def recorded(directory=RECORDED_DIR):
    """[(path, recording)] of every recording in @p directory, profiles before limiters."""
    found = [(p, load(p)) for p in sorted(Path(directory).glob("*.json"))]
    return sorted(found, key=lambda pr: "kernels" in pr[1])


def recorded_programs(directory=RECORDED_DIR):
    """Every program some recording in @p directory has a table for."""
    names = set()
    for _, r in recorded(directory):
        names.update(e["program"] for e in r.get("stages", r.get("kernels", [])))
    return names


def show_recorded(programs=(), directory=RECORDED_DIR, print_=print):
    """Print the recorded tables for the terminal: every stage's, or only those of @p programs."""
    found = recorded(directory)
    if not found:
        print_(f"No recorded tables in {directory} yet.")
        return
    for path, r in found:
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if "kernels" in r:
            kernels = [e for e in r["kernels"] if not programs or e["program"] in programs]
            title, parts = "What limits the stages beyond the text", [limiters_text(r, programs)] if kernels else []
        else:
            title = "Predicted against measured"
            parts = [stage_text(e) for e in r["stages"] if not programs or e["program"] in programs]
        if parts:
            heading = wrap(f"{title}, recorded on the {r['device']} ({r['date']}, {where}):")
            print_("\n" + "\n".join(heading) + "\n\n" + "\n\n".join(parts))
