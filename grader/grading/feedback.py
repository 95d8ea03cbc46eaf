"""Feedback that explains a correct kernel: for each exercise, one chosen launch of the student's
function, its time against the floor of its work and against the solution's, and the Nsight Compute
counters that matter for it next to the solution's and the text's, with one line on the largest gap.

The trusted test process of a feedback case ([feedback], trusted/feedback.hpp) times both sides,
runs the physics check, and runs the launch once more behind the profiler this module names
(profiler_command), for the code under test in its own sandbox; it writes all that as its fact
"feedback", one line of JSON. This module turns those facts into a student's feedback.json (document)
and the console's lines (console_lines). The metric names and ncu's CSV come from scripts/profiling,
the package of scripts/profile; the metrics from profile/metrics.json. The counters are read from the
student's own process and are its own word: they earn no points.
"""

import json
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from profiling import exercises, kernel_counters, ncu  # noqa: E402
from profiling.metric_set import MetricSet  # noqa: E402

METRICS_FILE = REPO / "profile" / "metrics.json"
# The metrics of profile/metrics.json (its stage set and its limiter set) a feedback case collects: few,
# so that ncu needs few passes over the one launch.
# inst_executed weighs each launch's ratios (a two-pass sum's second kernel is tiny).
METRIC_KEYS = ["dram_read", "dram_write", "ld_requests", "ld_sectors", "threads_per_inst", "warps_pct",
               "shared_ld_conflicts", "shared_st_conflicts", "shared_ld_wavefronts", "inst_executed", "time_ns"]
PERMISSION_LINE = ("not profiled: this GPU's driver lets only administrators read its counters "
                   "(RestrictProfilingToAdminUsers); grade as root, or see scripts/profile's note")
NO_NCU_LINE = "not profiled: Nsight Compute (ncu) was not found on the grading machine"
WIDTH = 100  # console columns


def metric_set() -> MetricSet:
    spec = json.loads(METRICS_FILE.read_text())
    known = {m["key"]: m for m in spec["metrics"] + spec["limiters"]["metrics"]}
    return MetricSet({"metrics": [known[k] for k in METRIC_KEYS]})


def profiler_command(ncu_path: Optional[str]) -> Optional[List[str]]:
    """The command line a feedback case starts one worker of each side behind (None: no ncu): ncu's
    options as scripts/profile runs it (caches flushed before each replay pass, clocks left to the GPU),
    so the counters compare with its; the report goes to the worker's output, the one channel out of
    the sandbox, where the trusted process picks out its lines."""
    if not ncu_path:
        return None
    return exercises.profiler_command(ncu_path, metric_set().names())


# ---- Counters ---------------------------------------------------------------------------------------


def counters_of(found: List[ncu.Launch]) -> Dict[str, Optional[float]]:
    """The counters feedback shows, over all launches of the profiled call (None: not measured)."""
    return kernel_counters.derived(metric_set().read(found) if found else {})


# name, unit, higher is better; the order of the report
SHOWN = [("dram_bytes", "DRAM bytes", "B", False), ("sectors_per_request", "sectors per request", "sectors", False),
         ("threads_per_warp", "active threads per warp instruction", "threads", True),
         ("occupancy", "achieved occupancy", "%", True),
         ("bank_conflicts", "shared-memory bank conflicts", "conflicts", False)]

# What each gap means, in one line: {y} yours, {s} the solution's.
MEANING = {
    "dram_bytes": "DRAM bytes {y} vs the solution's {s}: your kernel moves more data than it must: inputs "
                  "read again from DRAM instead of reused from shared memory or the caches",
    "sectors_per_request": "sectors per request {y} vs the solution's {s}: your loads are not coalesced: the "
                           "lanes of a warp read addresses far apart, so each request fetches more 32-byte "
                           "sectors; let consecutive threads read consecutive elements",
    "threads_per_warp": "active threads per warp instruction {y} vs the solution's {s}: your warps diverge: "
                        "many lanes sit idle at each instruction; keep the working threads contiguous, as "
                        "the convergent kernel of section 10.4 does",
    "occupancy": "achieved occupancy {y} vs the solution's {s}: too few warps stay resident to hide memory "
                 "latency: too many registers or too much shared memory per block, or too few blocks",
    "bank_conflicts": "shared-memory bank conflicts {y} vs the solution's {s}: lanes of a warp hit one bank at "
                      "different addresses, so shared loads are replayed; let lanes read consecutive words",
}
GAP_WORTH_NAMING = 1.25  # a counter this many times worse than the solution's is named


def show(value: Optional[float], unit: str) -> str:
    if value is None:
        return "-"
    if unit == "B":
        for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if value >= scale:
                return f"{value / scale:.2f} {name}"
        return f"{value:.0f} B"
    if unit == "%":
        return f"{value:.0f}%"
    if unit == "ms":
        return f"{value:.4f} ms"
    return f"{value:.3g}" if unit != "conflicts" else f"{value:.0f}"


def gap_ratio(key: str, yours: Dict, solution: Dict) -> Optional[float]:
    """How many times worse yours is than the solution's on @key (>1: worse), or None. Bank conflicts
    count against the shared loads they replay: as many conflicts as loads doubles their cost."""
    y, s = yours.get(key), solution.get(key)
    if y is None or s is None:
        return None
    if key == "bank_conflicts":
        loads = max(solution.get("shared_wavefronts") or 0, yours.get("shared_wavefronts") or 0, 1)
        return (y + loads) / (s + loads)
    higher = next(h for k, _, _, h in SHOWN if k == key)
    if higher:
        return s / y if y > 0 else (None if s <= 0 else float("inf"))
    return y / s if s > 0 else (None if y <= 0 else float("inf"))


def largest_gap(yours: Dict, solution: Dict) -> str:
    """One line: what the largest gap between your counters and the solution's means."""
    gaps = [(gap_ratio(k, yours, solution), k, unit) for k, _, unit, _ in SHOWN]
    gaps = [g for g in gaps if g[0] is not None]
    if not gaps:
        return "no counter could be compared with the solution's"
    ratio, key, unit = max(gaps)
    if ratio < GAP_WORTH_NAMING:
        return "no counter is far from the solution's: your kernel works the way it does"
    return MEANING[key].format(y=show(yours[key], unit), s=show(solution[key], unit))


# ---- The document ------------------------------------------------------------------------------------


def profiling_line(fact: Dict, ncu_path: Optional[str], found: Dict[str, List]) -> (bool, str):
    profiles = fact.get("profiles", {})
    reports = " ".join(p.get("report", "") for p in profiles.values())
    if not ncu_path:
        return False, NO_NCU_LINE
    if "ERR_NVGPUCTRPERM" in reports:
        return False, PERMISSION_LINE
    yours = profiles.get("yours", {})
    if not yours.get("ran"):
        # Nsight Compute's own word on why, where it said anything (its lines start with ==ERROR==).
        said = next((line.strip() for line in yours.get("report", "").splitlines() if line.startswith("==ERROR==")), "")
        return False, f"not profiled: {yours.get('why') or 'the profiled run did not end'}" + (f" ({said})" if said else "")
    if not found["yours"]:
        return False, "not profiled: Nsight Compute reported no kernel launch of your code"
    n = len(found["yours"])
    solution = "" if found["solution"] else "; the solution's could not be profiled"
    return True, (f"Nsight Compute counters of the launch ({n} kernel{'s' if n != 1 else ''}); caches flushed, "
                  f"clocks free{solution}; your process's own counters, worth no points")


def entry(fact: Dict, ncu_path: Optional[str]) -> Dict:
    """The feedback.json entry of one exercise, from its feedback case's fact."""
    profiles = fact.get("profiles", {})
    found = {side: ncu.parse(profiles.get(side, {}).get("report", "")) for side in ("yours", "solution")}
    available, line = profiling_line(fact, ncu_path, found)
    yours = counters_of(found["yours"]) if available else {}
    solution = counters_of(found["solution"]) if available else {}
    floor = fact.get("floor") or {}
    floor_ms = floor.get("ms")
    time_ms, solution_ms = fact.get("time_ms"), fact.get("solution_ms")
    text = fact.get("text") or {}
    text_values = dict(text)
    if floor.get("bytes") is not None and floor.get("bytes") > 0:
        text_values.setdefault("dram_bytes", floor["bytes"])
    counters = [{"name": name, "unit": unit, "yours": yours.get(key), "solution": solution.get(key),
                 "text": text_values.get(key), "higher_is_better": higher}
                for key, name, unit, higher in SHOWN] if available else []
    return {
        "exercise": fact.get("exercise"), "launch": fact.get("launch"),
        "time_ms": time_ms, "solution_ms": solution_ms,
        # Around the whole call, and an empty call's (its fixed cost), which time_ms is net of; absent
        # from records made before the empty call was timed, whose time_ms is the call's.
        "call_ms": fact.get("call_ms"), "fixed_ms": fact.get("fixed_ms"),
        "floor": {"kind": floor.get("kind", "DRAM"), "ms": floor_ms, "bytes": floor.get("bytes"),
                  "flops": floor.get("flops")},
        "fraction_of_floor": floor_ms / time_ms if floor_ms and time_ms else None,
        "solution_fraction_of_floor": floor_ms / solution_ms if floor_ms and solution_ms else None,
        "physics": {"flagged": bool(fact.get("physics", {}).get("flagged")),
                    "line": fact.get("physics", {}).get("line", "")},
        "profiling": {"available": available, "line": line},
        "counters": counters,
        # The kernels' own time as Nsight Compute measures it (caches flushed): beside the timed call,
        # what of it the kernels took.
        "kernel_ms": {"yours": yours.get("kernel_ms"), "solution": solution.get("kernel_ms")} if available else None,
        "largest_gap": largest_gap(yours, solution) if available else "",
    }


def not_run(exercise_id: str, why: str) -> Dict:
    """The entry of an exercise whose feedback case did not run, and why."""
    return {"exercise": exercise_id, "launch": None, "time_ms": None, "solution_ms": None, "call_ms": None,
            "fixed_ms": None, "floor": {"kind": "DRAM", "ms": None, "bytes": None, "flops": None}, "fraction_of_floor": None,
            "solution_fraction_of_floor": None, "physics": {"flagged": False, "line": ""},
            "profiling": {"available": False, "line": f"no feedback: {why}"}, "counters": [], "kernel_ms": None,
            "largest_gap": ""}


def parse_fact(text: str) -> Optional[Dict]:
    try:
        fact = json.loads(text)
    except ValueError:
        return None
    return fact if isinstance(fact, dict) else None


def document(feedback_cases, ncu_path: Optional[str]) -> Dict:
    """A student's feedback.json, from their feedback cases (cases.Case, after their runs)."""
    exercises, gpu = [], ""
    for case in feedback_cases:
        fact = parse_fact(case.feedback_fact) if case.feedback_fact else None
        if fact is None:
            exercises.append(not_run(case.exercise_id, case.reason or "it did not run"))
            continue
        gpu = gpu or fact.get("gpu", "")
        exercises.append(entry(fact, ncu_path))
    return {"gpu": gpu, "exercises": exercises}


def console_lines(doc: Dict) -> List[str]:
    """The report's feedback, a few lines per exercise, none past WIDTH columns."""
    out = [f"Feedback on {doc['gpu'] or 'no GPU'} (one launch each, timed as speed cases are; no points):"]
    wrap = lambda text: textwrap.wrap(text, WIDTH, initial_indent="    ", subsequent_indent="      ")  # noqa: E731
    for e in doc["exercises"]:
        if e["time_ms"] is None:
            out += wrap(f"{e['exercise']}: {e['profiling']['line']}")
            continue
        floor = e["floor"]
        head = f"{e['exercise']} {e['launch']}: {e['time_ms']:.4f} ms"
        if e["fraction_of_floor"] is not None:
            head += f", {100 * e['fraction_of_floor']:.0f}% of the {floor['kind']} peak (floor {floor['ms']:.4f} ms)"
        if e["solution_ms"] is not None:
            head += f"; the solution {e['solution_ms']:.4f} ms"
            if e["solution_fraction_of_floor"] is not None:
                head += f" ({100 * e['solution_fraction_of_floor']:.0f}%)"
        if e.get("fixed_ms") is not None and e.get("call_ms") is not None:
            head += f"; your time is your call's less its fixed cost ({e['call_ms']:.4f} less {e['fixed_ms']:.4f} ms)"
        out += wrap(head)
        if e["physics"]["flagged"]:
            out += wrap("FLAGGED: " + e["physics"]["line"])
        if not e["profiling"]["available"]:
            out += wrap(e["profiling"]["line"])
            continue
        cells = [f"{c['name']} {show(c['yours'], c['unit'])} ({show(c['solution'], c['unit'])})"
                 for c in e["counters"] if c["yours"] is not None]
        kernel = e.get("kernel_ms") or {}
        if kernel.get("yours") is not None:
            cells.insert(0, f"kernel time {kernel['yours']:.4f} ms ({show(kernel.get('solution'), 'ms')})")
        out += wrap("yours (solution's): " + "; ".join(cells))
        out += wrap("largest gap: " + e["largest_gap"])
    return out


def write(path: Path, doc: Dict, write_file):
    """@path: feedback.json, written the way the reports are (@write_file: reports.write_file)."""
    write_file(path, json.dumps(doc, indent=1) + "\n")
