"""scripts/profile --exercise ID: an exercise's kernel under the metrics the stage programs are profiled
with, next to the solution's and the text's.

An exercise is no stage program: its test executable calls the kernel's launcher in a worker process,
as grade does. Its feedback case ([feedback]) times one chosen launch, the one grade's feedback shows,
then runs it once more in a fresh worker of each side (yours, the solution's) behind the profiler the
environment names (PMPP_PROFILER, one argument a line; grader/trusted/workers.hpp). Here that
profiler is ncu with this package's options and the stage metric set of profile/metrics.json (plus
achieved occupancy), and no sandbox: your kernel runs as you, as under ctest. The report comes back in
the case's facts (--facts FILE), read here as the profile of a stage program is read.

Your kernel is the build's exercise worker (exercises/<chapter>/<name>.cu, built by cmake --build);
with --solution both sides are the solution's, which is what grade's feedback on the solutions shows.
"""
import json
import os
import tempfile
from pathlib import Path

from . import kernel_counters, metric_set, ncu, programs
from .errors import EXIT_FAILED, EXIT_OK, CannotMeasure, UsageError
from .formatting import count, percent, ratio, significant, text_table, wrap
from .processes import run, tail

SKIPPED = 4  # a Catch2 case that called SKIP (no GPU): the exit status the exercise tests give it
# Launches profiled at most per side, here and in grade's feedback cases: a function may launch several
# kernels (a two-pass sum launches two).
LAUNCH_COUNT = 32
WORKER_TIMEOUT_S = 300  # per call: ncu replays each launch once per pass of the metric set
SIDES = ("yours", "solution")
COLUMNS = ("quantity", "yours", "solution", "the text / the floor")


def manifest(build_dir):
    """The exercises the build holds (<build>/exercises/manifest.json, written when CMake configures
    with the tests on)."""
    path = Path(build_dir) / "exercises" / "manifest.json"
    if not path.exists():
        raise UsageError(f"{path} does not exist: configure and build with the tests on "
                         f"(cmake -B {build_dir} -DPMPP_BUILD_TESTS=ON; cmake --build {build_dir})")
    return json.loads(path.read_text())


def chosen(build_dir, ids):
    """The manifest's entries of @p ids, in their order; UsageError for an ID it does not hold."""
    exercises = manifest(build_dir)["exercises"]
    known = {e["id"]: e for e in exercises}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise UsageError(f"no exercise {', '.join(unknown)} in this build (known: {', '.join(known)})")
    return [known[i] for i in ids]


def worker_of(exercise, variant):
    """The worker running @p variant ("exercise" or "solution") of @p exercise, beside its tests
    (ex10_coarsened_sum_tests, ex10_coarsened_sum_solution_worker); UsageError if it is not built."""
    tests = Path(exercise["tests"])
    path = tests.with_name(tests.name[:-len("_tests")] + f"_{variant}_worker")
    if not path.exists():
        raise UsageError(f"{path} does not exist: build it (cmake --build BUILD --target {path.name})")
    return path


def profiler_command(ncu_path, metric_names):
    """The profiler an exercise's test process starts a worker of each side behind, one argument a line
    in PMPP_PROFILER: here, and in grade's feedback cases. Its report goes to the worker's output."""
    return [ncu_path, *ncu.options(metric_names), "--launch-count", str(LAUNCH_COUNT)]


def stage_metric_set(spec):
    """The stage programs' metric set, and achieved occupancy (which grade's feedback shows)."""
    occupancy = [m for m in spec["limiters"]["metrics"] if m["key"] == "warps_pct"]
    return metric_set.MetricSet({"metrics": spec["metrics"] + occupancy})


def read_facts(path):
    """The test process's facts: a name, a tab and its text per line (grader/trusted/workers.hpp)."""
    facts = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            name, tab, value = line.partition("\t")
            if tab:
                facts[name] = value
    return facts


def run_feedback_case(exercise, worker, profiler, workdir):
    """Run @p exercise's feedback case with @p worker as the code under test, each side's profiled run
    behind @p profiler. Returns (exit status, output, the fact "feedback" as a dict or None)."""
    facts = Path(workdir) / "facts.txt"
    if facts.exists():
        facts.unlink()
    env = dict(os.environ, PMPP_PROFILER="\n".join(profiler))
    env.setdefault("PMPP_WORKER_TIMEOUT", str(WORKER_TIMEOUT_S))
    for name in ("PMPP_SANDBOX", "PMPP_CLEANUP", "PMPP_FREEZE_CGROUP", "PMPP_GRADE_PID"):
        env.pop(name, None)  # grade's settings, not this run's
    cmd = [exercise["tests"], "[feedback]", "--worker", str(worker), "--reference-worker",
           exercise["reference_worker"], "--facts", str(facts)]
    status, output = run([str(c) for c in cmd], env=env)
    text = read_facts(facts).get("feedback")
    try:
        fact = json.loads(text) if text else None
    except ValueError:
        fact = None
    return status, output, fact if isinstance(fact, dict) else None


def profile_exercise(ncu_path, spec, exercise, worker, workdir):
    """The recorded entry of one exercise: each side's counters, the case's times and the text's
    predictions, or an "error" saying why there are none. CannotMeasure without a GPU or permission."""
    metrics = stage_metric_set(spec)
    while True:
        status, output, fact = run_feedback_case(exercise, worker, profiler_command(ncu_path, metrics.names()),
                                                 workdir)
        ncu.raise_if_cannot_measure(output, "", exercise["tests"])
        if status == SKIPPED:  # no GPU, or no solution's worker to compare with
            raise CannotMeasure(f"{exercise['id']}: its feedback case was skipped:\n{tail(output, 6)}")
        if fact is None:
            return {"exercise": exercise["id"], "name": exercise["name"], "worker": worker.name,
                    "error": f"its feedback case gave no result (exit status {status}):\n{tail(output)}"}
        profiles = fact.get("profiles", {})
        reports = {side: profiles.get(side, {}).get("report", "") for side in SIDES}
        ncu.raise_if_cannot_measure("", "\n".join(reports.values()), exercise["tests"])
        found = {side: ncu.parse(reports[side]) for side in SIDES}
        bad = ncu.rejected_metric(reports["yours"], metrics.names()) if not found["yours"] else None
        if bad and metrics.reject(bad):
            continue
        break
    values = {side: metrics.read(found[side]) if found[side] else {} for side in SIDES}
    entry = {
        "exercise": exercise["id"], "name": exercise["name"], "worker": worker.name,
        "launch": fact.get("launch"), "gpu": fact.get("gpu"),
        "time_ms": fact.get("time_ms"), "solution_ms": fact.get("solution_ms"),
        "wrong_runs": fact.get("wrong_runs"), "floor": fact.get("floor") or {}, "text": fact.get("text") or {},
        "physics": fact.get("physics") or {},
        "launches": {side: [dict(zip(("kernel", "grid", "block"), l.key)) for l in found[side]] for side in SIDES},
        "metrics": values, "counters": {side: kernel_counters.derived(values[side]) for side in SIDES},
        "metric_names": metrics.chosen(), "dropped": dict(metrics.dropped),
        "why_not": {side: profiles.get(side, {}).get("why", "") for side in SIDES if not found[side]},
    }
    if not found["yours"]:
        entry["error"] = ("Nsight Compute reported no kernel launch of your code: "
                          f"{entry['why_not'].get('yours') or tail(reports['yours'], 5) or 'no report'}")
    return entry


# ---- The table -----------------------------------------------------------------------------------

def rows(entry):
    """quantity | yours | solution | the text or the floor, for the terminal."""
    v, c = entry["metrics"], entry["counters"]
    floor, text = entry["floor"], entry["text"]

    def both(fmt, pick):
        return [fmt(pick(side)) for side in SIDES]

    def per(top, bottom):
        return lambda side: ratio(v[side].get(top), v[side].get(bottom))

    def added(*keys):
        return lambda side: None if any(v[side].get(k) is None for k in keys) else sum(v[side][k] for k in keys)

    return [
        ["time of the call, net (ms)", significant(entry["time_ms"]), significant(entry["solution_ms"]),
         f"floor {significant(floor.get('ms'))} ({floor.get('kind', 'DRAM')})"],
        ["kernel time, Nsight Compute (ms)", *both(significant, lambda s: c[s]["kernel_ms"]), ""],
        ["DRAM bytes read + written", *both(count, lambda s: c[s]["dram_bytes"]),
         f"compulsory {count(floor.get('bytes'))}"],
        ["DRAM throughput, of peak", *both(percent, lambda s: v[s].get("dram_pct")), ""],
        ["L1 hit rate", *both(percent, lambda s: v[s].get("l1_hit")), ""],
        ["L2 hit rate", *both(percent, lambda s: v[s].get("l2_hit")), ""],
        ["sectors per load request", *both(significant, lambda s: c[s]["sectors_per_request"]),
         significant(text.get("sectors_per_request"))],
        ["sectors per store request", *both(significant, per("st_sectors", "st_requests")), ""],
        ["active threads per warp instruction", *both(significant, lambda s: c[s]["threads_per_warp"]),
         significant(text.get("threads_per_warp"))],
        ["branches uniform in the warp", *both(percent, lambda s: v[s].get("branch_uniform")), ""],
        ["achieved occupancy", *both(percent, lambda s: c[s]["occupancy"]), ""],
        ["shared-memory bank conflicts", *both(count, lambda s: c[s]["bank_conflicts"]),
         count(text.get("bank_conflicts"))],
        ["global atomics and reductions", *both(count, added("atom_requests", "red_requests")), ""],
    ]


def text_of(entry):
    """An exercise for the terminal: a heading, the launch, the table and what to know reading it."""
    out = wrap(f"== {entry['exercise']} {entry['name']} ({entry['worker']})")
    if "metrics" not in entry:
        return "\n".join(out + wrap(f"not measured: {entry['error']}"))
    out += wrap(f"{entry['launch']} on {entry['gpu']}; yours: "
                + "; ".join(f"{l['kernel']} grid {l['grid']} block {l['block']}" for l in entry["launches"]["yours"]))
    out.append(text_table(COLUMNS, rows(entry), right=(1, 2)))
    notes = []
    if entry.get("wrong_runs"):
        notes.append(f"your kernel gave a wrong result in {entry['wrong_runs']} of the timed runs: make it "
                     "right first (scripts/grade --exercise " + entry["exercise"] + ")")
    if (entry.get("physics") or {}).get("flagged"):
        notes.append("FLAGGED: " + entry["physics"].get("line", ""))
    if entry["why_not"].get("solution"):
        notes.append(f"the solution's counters are missing: {entry['why_not']['solution']}")
    notes += [f"metric {k} dropped: {why}" for k, why in entry["dropped"].items()]
    notes.append("caches flushed before every replay pass, clocks left to the GPU; the time of the call is "
                 "timed as grade times it, less an empty call's fixed cost")
    for note in notes:
        out += wrap(f"note: {note}")
    if entry.get("error"):
        out += wrap(f"not measured: {entry['error']}")
    return "\n".join(out)


def run_exercises(a):
    """scripts/profile --exercise ID... [--solution]: returns the exit status."""
    spec = programs.spec()
    exercises = chosen(a.build_dir, a.exercise)
    variant = "solution" if a.solution else "exercise"
    workers = [worker_of(e, variant) for e in exercises]
    ncu_path = ncu.find(a.ncu)
    if ncu_path is None:
        raise CannotMeasure(ncu.NOT_INSTALLED)
    failed = False
    with tempfile.TemporaryDirectory(prefix="pmpp-profile-") as workdir:
        for exercise, worker in zip(exercises, workers):
            entry = profile_exercise(ncu_path, spec, exercise, worker, workdir)
            failed |= "error" in entry or bool(entry.get("wrong_runs"))
            print(text_of(entry) + "\n", flush=True)
            if a.out:
                Path(a.out).mkdir(parents=True, exist_ok=True)
                path = Path(a.out) / f"exercise-{exercise['id']}.json"
                path.write_text(json.dumps(entry, indent=1) + "\n")
                print(f"wrote {path}")
    return EXIT_FAILED if failed else EXIT_OK
