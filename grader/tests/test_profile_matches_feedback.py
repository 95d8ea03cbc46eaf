#!/usr/bin/env python3
"""On a GPU: the counters grade's feedback shows for a kernel are those scripts/profile measures for the
same kernel. Grades the solutions of every exercise as one student of a class (the feedback case's
profiled worker in the sandbox, grade's few metrics), profiles the same solutions with
`scripts/profile --exercise ID --solution` (no sandbox, the stage metric set), and checks each counter
of the feedback within a few percent of scripts/profile's, and the kernels' own time within 10%.
Exit status 77 (skipped) without a GPU, or where the counters may not be read.

usage: test_profile_matches_feedback.py --build-dir DIR [--keep DIR]   (--keep: copy both records there)"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[0]))
import recipes  # noqa: E402
from grading import feedback  # noqa: E402
from test_feedback_gpu import gpu_test_arguments  # noqa: E402

CANNOT_MEASURE = 77
# Counters of the same launch, measured twice with caches flushed before each pass, differ by run-to-run
# noise alone: a few percent. The kernels' time varies more with the clocks, left to the GPU.
TOLERANCE = 0.05
TIME_TOLERANCE = 0.10


def close(a, b, tolerance, scale=0.0):
    """a and b within @tolerance of the larger, or both within @scale of zero (counts that should be 0)."""
    return abs(a - b) <= max(tolerance * max(abs(a), abs(b)), scale)


def main():
    args = gpu_test_arguments()
    if args is None:
        return CANNOT_MEASURE
    work = Path(tempfile.mkdtemp(prefix="pmpp-profile-vs-feedback-"))
    klass, grades, profiles = work / "class", work / "grades", work / "profiles"
    exercises = recipes.exercises()
    for e in exercises:
        recipes.write_exercise(klass / "solution", e, "solution", recipes.HIDDEN_EXAMPLE)
    grade = [sys.executable, str(recipes.REPO / "scripts" / "grade"), "--class", str(klass), "--out", str(grades),
             "--build-dir", str(args.build_dir)]
    print(" ".join(grade), flush=True)
    if subprocess.run(grade).returncode != 0:
        print("FAIL grade did not run")
        return 1
    profile = [sys.executable, str(recipes.REPO / "scripts" / "profile"), "--build-dir", str(args.build_dir),
               "--solution", "--out", str(profiles)]
    for e in exercises:
        profile += ["--exercise", e.id]
    print(" ".join(profile), flush=True)
    status = subprocess.run(profile).returncode
    if status == CANNOT_MEASURE:
        print("skipped: scripts/profile cannot read the counters here")
        return CANNOT_MEASURE
    if args.keep:
        shutil.copytree(work, args.keep, dirs_exist_ok=True)
    doc = json.loads((grades / "solution" / "feedback.json").read_text())
    key_of = {name: key for key, name, _, _ in feedback.SHOWN}
    failures = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    for e in exercises:
        graded = next((x for x in doc["exercises"] if x["exercise"] == e.id), None)
        record = profiles / f"exercise-{e.id}.json"
        if graded is None or not record.exists():
            check(f"{e.id}: in grade's feedback and in scripts/profile's records", False)
            continue
        if not graded["profiling"]["available"]:
            print(f"skipped: grade could not profile {e.id}: {graded['profiling']['line']}")
            return CANNOT_MEASURE
        measured = json.loads(record.read_text())["counters"]["yours"]
        for counter in graded["counters"]:
            key, shown = key_of[counter["name"]], counter["yours"]
            if shown is None or measured.get(key) is None:
                check(f"{e.id} {counter['name']}: measured by both ({shown}, {measured.get(key)})", False)
                continue
            # Bank conflicts compare against the shared loads they would replay: a handful among millions
            # of wavefronts is the same as none.
            scale = 0.01 * (measured.get("shared_wavefronts") or 0) if key == "bank_conflicts" else 0.0
            check(f"{e.id} {counter['name']}: feedback {shown:.6g}, scripts/profile {measured[key]:.6g}",
                  close(shown, measured[key], TOLERANCE, scale))
        kernel = (graded.get("kernel_ms") or {}).get("yours")
        if kernel is not None and measured.get("kernel_ms") is not None:
            check(f"{e.id} kernel time: feedback {kernel:.4f} ms, scripts/profile {measured['kernel_ms']:.4f} ms",
                  close(kernel, measured["kernel_ms"], TIME_TOLERANCE))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
