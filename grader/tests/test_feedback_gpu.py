#!/usr/bin/env python3
"""Feedback on a GPU: grades, as one class, the solution of ex10.1, the slow but correct variants of
variants/ and the two attacks that work before the clock, and checks each student's feedback.json: the
solution's time possible and its share of the floor not negligible, each variant's largest gap named for what slows it (where
the counters may be read; else the one fallback line), the attack whose thread works before the clock
held still and so timed honestly (the one whose kernel does is shown; the attack suite checks what it
earns).
Exit status 77 (skipped) without a GPU.

usage: test_feedback_gpu.py --build-dir DIR [--keep DIR]   (--keep: copy the class's reports there)"""

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import recipes  # noqa: E402

VARIANTS = HERE / "variants"


def has_gpu() -> bool:
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def header(path: Path, field: str) -> str:
    m = re.search(rf"^// {field}: (.*)$", path.read_text(), re.M)
    return m.group(1).strip()


def gpu_test_arguments():
    """--build-dir DIR [--keep DIR], the arguments of a GPU test of the grader; None (say skipped, exit
    77) without a GPU."""
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", type=Path, required=True)
    p.add_argument("--keep", type=Path)
    args = p.parse_args()
    if not has_gpu():
        print("skipped: no GPU")
        return None
    return args


def main():
    args = gpu_test_arguments()
    if args is None:
        return 77
    e = recipes.exercise_named("max_reduction")
    work = Path(tempfile.mkdtemp(prefix="pmpp-feedback-"))
    klass, out = work / "class", work / "grades"
    recipes.write_exercise(klass / "solution", e, "solution", recipes.HIDDEN_EXAMPLE)
    expected_gap = {}
    for variant in sorted(VARIANTS.glob("*.cu")):
        target = klass / variant.stem / e.chapter / f"{e.name}.cu"
        target.parent.mkdir(parents=True)
        shutil.copyfile(variant, target)
        expected_gap[variant.stem] = header(variant, "largest gap")
    for cheat in ("work_before_the_clock", "kernel_before_the_clock"):
        attack = next(a for a in recipes.attacks() if a.name == cheat)
        recipes.write_exercise(klass / cheat, e, "", recipes.HIDDEN_EXAMPLE, attack)
    grade = [sys.executable, str(recipes.REPO / "scripts" / "grade"), "--class", str(klass), "--out", str(out),
             "--exercise", e.id, "--build-dir", str(args.build_dir)]
    print(" ".join(grade), flush=True)
    if subprocess.run(grade).returncode != 0:
        print("FAIL grade did not run")
        return 1
    with open(out / "grades.csv") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    docs = {s: json.loads((out / Path(r["results"]).parent / "feedback.json").read_text()) for s, r in rows.items()}
    if args.keep:
        shutil.copytree(out, args.keep, dirs_exist_ok=True)
    failures = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    def entry(student):
        return next(x for x in docs[student]["exercises"] if x["exercise"] == e.id)

    sol = entry("solution")
    check(f"the solution has a time ({sol['time_ms']} ms) and is not flagged",
          sol["time_ms"] is not None and not sol["physics"]["flagged"])
    # Its time is its call's less the call's fixed cost (an empty call timed beside it): possible, and
    # far from nothing (the textbook kernel of the exercise reads its gigabyte well below peak).
    check(f"the solution reaches {sol['fraction_of_floor']} of its floor's rate (0.1 to 1/0.95)",
          sol["fraction_of_floor"] is not None and 0.1 < sol["fraction_of_floor"] <= 1 / 0.95)
    print(f"     the solution's call {sol.get('call_ms')} ms, of which fixed cost {sol.get('fixed_ms')} ms; "
          f"its kernels in Nsight Compute: {(sol.get('kernel_ms') or {}).get('solution')} ms")
    print(f"     profiling: {sol['profiling']['line']}")
    for student, gap in expected_gap.items():
        x = entry(student)
        check(f"{student}: correct, timed, not flagged", x["time_ms"] is not None and not x["physics"]["flagged"])
        if x["profiling"]["available"]:
            check(f"{student}: the largest gap is '{gap}': {x['largest_gap']}", x["largest_gap"].startswith(gap))
        else:
            print(f"     {student}: counters not read here: {x['profiling']['line']}")
    # Held still between calls, the thread that would work before the clock works while it is timed: an
    # honest time, not flagged, and the solution's points (its kernel is as fast).
    x = entry("work_before_the_clock")
    print(f"     work_before_the_clock: {x['time_ms']} ms net, earns {rows['work_before_the_clock'][e.id]}")
    check("work_before_the_clock: held still, timed honestly (not flagged), earns as the solution",
          x["time_ms"] is not None and not x["physics"]["flagged"]
          and rows["work_before_the_clock"][e.id] == rows["solution"][e.id])
    # The kernel left running in a context of its own is not held, but it shares the GPU with the test's
    # own work by time slices, and gains at most the untimed moments around a call: what it earns is
    # checked by the attack suite (grader.attacks); here its time is shown.
    x = entry("kernel_before_the_clock")
    print(f"     kernel_before_the_clock: {x['time_ms']} ms net, earns {rows['kernel_before_the_clock'][e.id]}: "
          f"{x['physics']['line']}")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
