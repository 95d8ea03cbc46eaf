#!/usr/bin/env python3
"""feedback.json from the facts of feedback cases (grading/feedback.py), without a GPU: the schema,
the counters read from Nsight Compute's CSV, the line that names the largest gap (an uncoalesced
kernel as uncoalesced, a divergent one as divergent), the physics flag, the fallback lines where
profiling is not permitted or ncu is missing, and console lines within 100 columns."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grading import feedback  # noqa: E402
from grading.cases import Case  # noqa: E402

NAMES = {key: name for key, name in zip(feedback.METRIC_KEYS, feedback.metric_set().names())}
UNITS = {"dram_read": "byte", "dram_write": "byte", "warps_pct": "%"}


def report(rows):
    """ncu's CSV (--page raw --print-units base) for kernels with these metric values ({key: value})."""
    header = ["ID", "Process ID", "Kernel Name", "Block Size", "Grid Size"] + list(NAMES.values())
    quote = lambda cells: ",".join(f'"{c}"' for c in cells)  # noqa: E731
    lines = ["==PROF== Connected to process 4242", quote(header),
             quote(["", "", "", "", ""] + [UNITS.get(k, "") for k in NAMES])]
    for i, values in enumerate(rows):
        lines.append(quote([str(i), "4242", f"kernel_{i}", "(256, 1, 1)", "(1024, 1, 1)"] +
                           [str(values[k]) for k in NAMES]))
    return "\n".join(lines) + "\n"


SOLUTION = {"dram_read": 1073741824, "dram_write": 4096, "ld_requests": 8388608, "ld_sectors": 33554432,
            "threads_per_inst": 31.2, "warps_pct": 88.0, "shared_ld_conflicts": 0, "shared_st_conflicts": 0,
            "shared_ld_wavefronts": 600000, "inst_executed": 9e7, "time_ns": 330000}
UNCOALESCED = dict(SOLUTION, ld_sectors=8388608 * 32, dram_read=1.1 * 1073741824, time_ns=1250000)
DIVERGENT = dict(SOLUTION, threads_per_inst=15.5, ld_sectors=8388608 * 2)
CONFLICTED = dict(SOLUTION, shared_ld_conflicts=4_000_000)


def fact(yours, solution=SOLUTION, time_ms=0.41, flagged=False, profiled=True, why="", fixed_ms=0.52):
    def side(values):
        return {"ran": profiled, "why": why, "report": report([values]) if profiled else ""}
    return json.dumps({
        "exercise": "ex10.1", "launch": "max_reduction of 2^28 floats", "gpu": "NVIDIA H100 80GB HBM3",
        "time_ms": time_ms, "call_ms": time_ms + fixed_ms, "fixed_ms": fixed_ms, "wrong_runs": 0,
        "solution_ms": 0.37, "solution_call_ms": 0.37 + fixed_ms,
        "floor": {"kind": "DRAM", "ms": 0.3203, "bytes": 1073741824, "flops": 268435456},
        "physics": {"flagged": flagged, "line": "impossible: ..." if flagged else "possible: ..."},
        "text": {"sectors_per_request": 4, "bank_conflicts": 0},
        "profiles": {"yours": side(yours), "solution": side(solution)}})


def case(fact_text, reason="passed"):
    c = Case("ex10.1 max_reduction", "ex10.1", "ch10", "visible", "feedback", 0, feedback=True)
    c.feedback_fact, c.reason = fact_text, reason
    return c


failures = []


def check(what, condition):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def doc_of(*cases, ncu="/usr/local/cuda/bin/ncu"):
    return feedback.document(list(cases), ncu)


# The schema, exactly.
d = doc_of(case(fact(SOLUTION)))
e = d["exercises"][0]
check("the document has gpu and exercises", set(d) == {"gpu", "exercises"} and d["gpu"].startswith("NVIDIA"))
check("an exercise has exactly the schema's keys",
      set(e) == {"exercise", "launch", "time_ms", "solution_ms", "call_ms", "fixed_ms", "floor", "fraction_of_floor",
                 "solution_fraction_of_floor", "physics", "profiling", "counters", "kernel_ms", "largest_gap"})
check("the kernels' time in Nsight Compute, both sides", e["kernel_ms"] == {"yours": 0.33, "solution": 0.33})
check("the floor has kind, ms, bytes and flops", set(e["floor"]) == {"kind", "ms", "bytes", "flops"})
check("each counter has its fields", all(set(c) == {"name", "unit", "yours", "solution", "text", "higher_is_better"}
                                         for c in e["counters"]))
check("the fraction of the floor is floor ms / time ms", abs(e["fraction_of_floor"] - 0.3203 / 0.41) < 1e-12)
check("the solution's fraction too", abs(e["solution_fraction_of_floor"] - 0.3203 / 0.37) < 1e-12)
by_name = {c["name"]: c for c in e["counters"]}
check("sectors per request are sectors / requests", by_name["sectors per request"]["yours"] == 4.0)
check("DRAM bytes add reads and writes, the text's is the floor's bytes",
      by_name["DRAM bytes"]["yours"] == 1073741824 + 4096 and by_name["DRAM bytes"]["text"] == 1073741824)
check("the text's prediction is carried where it has one", by_name["sectors per request"]["text"] == 4
      and by_name["active threads per warp instruction"]["text"] is None)
check("a kernel like the solution's has no gap worth naming", e["largest_gap"].startswith("no counter is far"))
check("the document is JSON", json.loads(json.dumps(d)) == d)

# The largest gap, named for what it is.
gap = doc_of(case(fact(UNCOALESCED)))["exercises"][0]["largest_gap"]
check(f"an uncoalesced kernel is named as such: {gap[:60]}...",
      gap.startswith("sectors per request 32 vs the solution's 4: your loads are not coalesced"))
gap = doc_of(case(fact(DIVERGENT)))["exercises"][0]["largest_gap"]
check(f"a divergent kernel is named as such: {gap[:60]}...",
      gap.startswith("active threads per warp instruction 15.5 vs the solution's 31.2: your warps diverge"))
gap = doc_of(case(fact(CONFLICTED)))["exercises"][0]["largest_gap"]
check("bank conflicts count against the shared loads they replay", gap.startswith("shared-memory bank conflicts"))

# Several launches: counts add up, ratios are weighted by instructions.
two = dict(SOLUTION, threads_per_inst=8.0, inst_executed=1e7)
f = json.loads(fact(SOLUTION))
f["profiles"]["yours"]["report"] = report([SOLUTION, two])
e = doc_of(case(json.dumps(f)))["exercises"][0]
threads = {c["name"]: c for c in e["counters"]}["active threads per warp instruction"]["yours"]
check("a ratio over two launches is weighted by their instructions", abs(threads - (31.2 * 9 + 8.0) / 10) < 1e-9)
check("the profiling line counts the kernels", "(2 kernels)" in e["profiling"]["line"])

# The physics flag comes through.
e = doc_of(case(fact(SOLUTION, time_ms=0.02, flagged=True)))["exercises"][0]
check("a flagged time is flagged in feedback.json", e["physics"]["flagged"] and e["fraction_of_floor"] > 1)

# Where profiling is not permitted, or ncu is missing: one line, and the timing stays.
f = json.loads(fact(SOLUTION))
for side in f["profiles"].values():
    side["report"] = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU " \
                     "Performance Counters on the target device 0.\n"
e = doc_of(case(json.dumps(f)))["exercises"][0]
check("not permitted: one line that says why", e["profiling"] == {"available": False, "line": feedback.PERMISSION_LINE})
check("not permitted: the timing part stays", e["time_ms"] == 0.41 and e["fraction_of_floor"] is not None)
check("not permitted: no counters, no gap", e["counters"] == [] and e["largest_gap"] == "")
e = doc_of(case(fact(SOLUTION)), ncu=None)["exercises"][0]
check("no ncu: one line that says so", e["profiling"]["line"] == feedback.NO_NCU_LINE and e["time_ms"] == 0.41)
e = doc_of(case(fact(SOLUTION, profiled=False, why="the profiled run failed: timed out")))["exercises"][0]
check("a profiled run that failed says how", e["profiling"]["line"] == "not profiled: the profiled run failed: timed out")

# An exercise whose feedback case did not run.
e = doc_of(case("", reason="not timed: 2 other cases of this exercise failed"))["exercises"][0]
check("a case that did not run has no time, and says why",
      e["time_ms"] is None and e["profiling"]["line"].endswith("2 other cases of this exercise failed"))

# The console: every line within 100 columns.
d = doc_of(case(fact(UNCOALESCED)), case(fact(SOLUTION, time_ms=0.02, flagged=True)), case("", "not run"))
lines = feedback.console_lines(d)
check("console lines fit 100 columns", all(len(line) <= 100 for line in lines))
check("the console names the flagged time", any("FLAGGED" in line for line in lines))
check("the console gives the kernel time", "kernel time 1.2500 ms (0.3300 ms)" in " ".join(lines))
check("the console says the times are net of the call's fixed cost",
      "less its fixed cost (0.9300 less 0.5200 ms)" in " ".join(lines))
check("the fraction of the floor is the net time's", abs(doc_of(case(fact(SOLUTION)))["exercises"][0]["fraction_of_floor"]
                                                         - 0.3203 / 0.41) < 1e-9)
print("\n".join(lines))

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
