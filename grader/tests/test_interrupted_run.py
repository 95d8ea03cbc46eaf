#!/usr/bin/env python3
"""An interrupted run of grade leaves nothing that reaches the next one. A class of one attack
(attacks/lurk_for_later_runs.cu: a daemon that lies in wait for the later jobs of its slot's user, and
spoils every source it finds in their folders) is graded, and grade is interrupted while the daemon runs:

1. with SIGTERM (a scheduler's time limit): grade must end everything itself, say so in one line on
   stderr, and exit with 143; then no process of the grading users and no cgroup of its slots is left;
2. with SIGKILL, which it cannot catch: its test processes must die with it, and the daemon lives on;
   then a class of honest submissions is graded, and the daemon must be gone once that run has said
   whom it runs student code as (it cleans the slots it can claim before anything runs in them), every
   honest file must compile (without a GPU each case is "not gradable", never "did not compile"), and
   nothing may be left at the end.

Runs as root only (exit 77 otherwise): the attack kills and spoils what it can.

usage: test_interrupted_run.py --build-dir DIR
"""

import argparse
import os
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recipes  # noqa: E402
from grading_runs import SKIPPED, Grade, left_behind, processes_of_grading_users, verdicts  # noqa: E402
from verdict import verdict  # noqa: E402

EXERCISE = "max_reduction"
LURKER = "pmpp-lurker"  # the daemon's name (attacks/lurk_for_later_runs.cu)


def lurkers():
    return [p for p in processes_of_grading_users()[1] if p.endswith(f"({LURKER})")]


def wait_for_lurker(run: Grade, timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and run.proc.poll() is None:
        found = lurkers()
        if found:
            return found
        time.sleep(0.05)
    return []


def test_processes_after(build: Path, timeout: float):
    """The test processes still there once they are all gone or @timeout seconds have passed."""
    deadline = time.monotonic() + timeout
    while test_processes(build) and time.monotonic() < deadline:
        time.sleep(0.05)
    return test_processes(build)


def test_processes(build: Path):
    """Processes that run one of the trusted test executables."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "exe").startswith(str(build / "bin")):
                found.append(entry.name)
        except OSError:
            continue
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", type=Path, required=True)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("skipped: grading hostile code is contained as root only")
        return SKIPPED
    build = args.build_dir.resolve()
    work = build / "grader-interrupted-run"
    shutil.rmtree(work, ignore_errors=True)
    e = recipes.exercise_named(EXERCISE)
    attack = next(a for a in recipes.attacks() if a.name == "lurk_for_later_runs")
    recipes.write_exercise(work / "attacked" / "attack-lurk", e, "", recipes.HIDDEN_EXAMPLE, attack)
    for n in (1, 2):  # two honest files (signed: different files, so each is compiled)
        recipes.write_exercise(work / "honest" / f"solution-{n}", e, "solution", recipes.HIDDEN_EXAMPLE,
                               signed=f"student {n}")
    options = ["--build-dir", build, "--jobs", "1", "--timeout", "30", "--exercise", EXERCISE]
    failures = []

    def interrupt(how: signal.Signals, out: str):
        """Grade the attack and interrupt grade with @how while its daemon runs: grade's exit status and
        stderr, or None when there was no daemon to interrupt it with."""
        run = Grade("--class", work / "attacked", "--out", work / out, *options)
        if not wait_for_lurker(run, 300):
            run.finish(120)
            failures.append(f"the attack left no daemon to interrupt grade with:\n{run.output()}")
            return None
        run.proc.send_signal(how)
        code = run.finish(120)
        print(f"grade stopped by {how.name}: exit status {code}; stderr: {run.stderr.strip()!r}", flush=True)
        return code, run.stderr

    # 1. SIGTERM: grade cleans up itself.
    stopped = interrupt(signal.SIGTERM, "terminated")
    if stopped:
        code, stderr = stopped
        if code != 128 + signal.SIGTERM:
            failures.append(f"grade exited with {code} on SIGTERM, not {128 + signal.SIGTERM}")
        lines = stderr.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("grade: stopped by SIGTERM"):
            failures.append(f"on SIGTERM grade printed {len(lines)} lines on stderr, not one: {stderr!r}")
        failures += [f"after SIGTERM: {f}" for f in left_behind()]

    # 2. SIGKILL: the test processes die with grade, the daemon lives on, and the next run ends it.
    if interrupt(signal.SIGKILL, "killed"):
        # The kernel kills the orphaned test processes at once; their exit takes a moment, longer on a
        # loaded machine.
        survivors = test_processes_after(build, 10)
        if survivors:
            failures.append(f"test processes outlived a killed grade: {', '.join(survivors)}")
        if not lurkers():
            failures.append("the daemon did not outlive a killed grade: this test cannot show that the next run "
                            "ends it")
        honest = Grade("--class", work / "honest", "--out", work / "honest-reports", *options)
        if not honest.wait_for(r"^grade: student code runs as", 600):
            failures.append("the honest run did not say whom it runs student code as")
        elif lurkers():
            failures.append(f"the daemon of the killed run survived the start of the next: {', '.join(lurkers())}")
        code = honest.finish(600)
        print(honest.output(), flush=True)
        if code != 0:
            failures.append(f"the honest run exited with {code}")
        found = verdicts(work / "honest-reports")
        if sorted(found) != ["solution-1", "solution-2"]:
            failures.append(f"the honest run reported on {sorted(found)}")
        for student, cases in found.items():
            for name, outcome, said in cases:
                if outcome == "failed":  # without a GPU: not gradable; with one: passed
                    failures.append(f"{student}: '{name}' failed ({said}), as if its file had been spoiled")
        failures += [f"after the honest run: {f}" for f in left_behind()]
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
