#!/usr/bin/env python3
"""Two runs of grade at once (two instructors, or two Slurm jobs on one node) leave each other alone.
Two small classes are graded each alone, then both at once (sharing a build folder, as two runs from
one copy of the repository do); each class holds an honest solution and a submission that sleeps
through its cases (attacks/sleep_before_main.cu), so that the runs' cases overlap in time. Both must
finish; they must use disjoint slot users (grade names them in its start-up line); every student's
verdicts must be what they were alone (had one run's clean-up killed the other's workers, its cases
would fail instead of being "not gradable" without a GPU, or passing with one; the sleeper's would end
otherwise than by the time limit); and after both, no process of the grading users and no cgroup of
grade's slots may be left.

Runs as root only (exit 77 otherwise).

usage: test_concurrent_runs.py --build-dir DIR
"""

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recipes  # noqa: E402
from grading_runs import SKIPPED, Grade, left_behind, verdicts  # noqa: E402
from verdict import verdict  # noqa: E402

EXERCISE = "max_reduction"


def same_verdict(case):
    """(case, outcome, reason) without its numbers: the speed case of a submission that fails every
    case is not timed, for as many failed cases as had ended when it started, which varies."""
    name, outcome, reason = case
    return name, outcome, re.sub(r"\d+", "N", reason)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", type=Path, required=True)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("skipped: grade isolates its runs from each other as root only")
        return SKIPPED
    build = args.build_dir.resolve()
    work = build / "grader-concurrent-runs"
    shutil.rmtree(work, ignore_errors=True)
    e = recipes.exercise_named(EXERCISE)
    sleeper = next(a for a in recipes.attacks() if a.name == "sleep_before_main")
    classes = {}
    for name in ("first", "second"):
        classes[name] = work / name / "class"
        recipes.write_exercise(classes[name] / f"honest-{name}", e, "solution", recipes.HIDDEN_EXAMPLE,
                               signed=f"the {name} class")
        recipes.write_exercise(classes[name] / f"sleeper-{name}", e, "", recipes.HIDDEN_EXAMPLE, sleeper)
    options = ["--build-dir", build, "--jobs", "2", "--timeout", "4", "--exercise", EXERCISE]
    failures = []

    def grade(name: str, reports: str) -> Grade:
        return Grade("--class", classes[name], "--out", work / name / reports, *options)

    alone = {}
    for name in classes:
        run = grade(name, "alone")
        if run.finish(600) != 0:
            failures.append(f"the {name} class, graded alone, failed:\n{run.output()}")
        alone[name] = verdicts(work / name / "alone")

    runs = {name: grade(name, "together") for name in classes}
    for name, run in runs.items():
        code = run.finish(600)
        print(f"--- the {name} class, graded beside the other:\n{run.output()}", flush=True)
        if code != 0:
            failures.append(f"the {name} class, graded beside the other, exited with {code}")
    first, second = (runs[name].slots() for name in classes)
    print(f"slots: {sorted(first)} and {sorted(second)}")
    if not first or not second or first & second:
        failures.append(f"the two runs did not use disjoint slot users: {sorted(first)} and {sorted(second)}")

    for name in classes:
        together = verdicts(work / name / "together")
        if sorted(together) != sorted(alone[name]):
            failures.append(f"the {name} class: reports on {sorted(together)} beside the other, "
                            f"{sorted(alone[name])} alone")
        for student, cases in together.items():
            for case, was in zip(cases, alone[name].get(student, [])):
                if same_verdict(case) != same_verdict(was):
                    failures.append(f"{student}: '{case[0]}' was {case[1]} ({case[2]}) beside the other run, "
                                    f"{was[1]} ({was[2]}) alone")
            if student.startswith("honest") and any(outcome == "failed" for _, outcome, _ in cases):
                failures.append(f"{student}: an honest submission failed a case")
    failures += left_behind()
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
