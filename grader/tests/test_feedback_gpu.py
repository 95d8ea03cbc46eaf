#!/usr/bin/env python3
"""Feedback on a GPU: grades, as one class, the solution of ex10.1, the slow but correct variants of
variants/ and the attack work_before_the_clock, and checks each student's feedback.json: the
solution's time possible and near its floor, each variant's largest gap named for what slows it (where
the counters may be read; else the one fallback line); what the attack earns is printed (a known gap:
grader/README.md, "Not defended"). Exit status 77 (skipped) without a GPU.

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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", type=Path, required=True)
    p.add_argument("--keep", type=Path)
    args = p.parse_args()
    if not has_gpu():
        print("skipped: no GPU")
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
    cheat = next(a for a in recipes.attacks() if a.name == "work_before_the_clock")
    recipes.write_exercise(klass / "cheat", e, "", recipes.HIDDEN_EXAMPLE, cheat)
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
    # The trusted clock times the whole remote call (request, kernel, synchronize, reply), which on 1 GiB
    # adds a fixed cost of about 0.6 ms on an H200: the solution's share of the floor is possible (at
    # most 1) and far from nothing, not near 1.
    check(f"the solution reaches {sol['fraction_of_floor']} of its floor's rate (0.1 to 1)",
          sol["fraction_of_floor"] is not None and 0.1 < sol["fraction_of_floor"] <= 1.0)
    print(f"     profiling: {sol['profiling']['line']}")
    for student, gap in expected_gap.items():
        x = entry(student)
        check(f"{student}: correct, timed, not flagged", x["time_ms"] is not None and not x["physics"]["flagged"])
        if x["profiling"]["available"]:
            check(f"{student}: the largest gap is '{gap}': {x['largest_gap']}", x["largest_gap"].startswith(gap))
        else:
            print(f"     {student}: counters not read here: {x['profiling']['line']}")
    # The attack that works before the clock is a known gap: its calls do no work, but their fixed cost
    # keeps them above the floor (grader/README.md, "Not defended"). Said here, not checked.
    x = entry("cheat")
    print(f"note the cheat (work before the clock) earns {rows['cheat'][e.id]} of {rows['solution'][e.id]}, "
          f"{x['time_ms']} ms a call, {'flagged' if x['physics']['flagged'] else 'not flagged'}: a known gap")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
