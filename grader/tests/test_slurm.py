#!/usr/bin/env python3
"""`grade --class --slurm` end to end, on a Slurm cluster of this one machine (local_cluster.sh): a class
of 12 submissions (solved, starter, partial, broken, empty, loose files, attacks) is graded once here
with `grade --class`, then through Slurm in shards of 3, and must come out the same, student by
student (grades.csv, and each results.json's cases, verdicts and points), when

1. one shard's task is cancelled while it grades: the merge job submits that shard again, and the class
   is complete after the second try;
2. with no retries, a cancelled shard's students are listed as "not graded" (never 0); the same command
   run again submits that shard alone and completes the class.

Without a GPU every GPU case is not gradable in both runs; what is checked is the building, splitting,
submitting, resubmitting, merging and the reports.

Runs as root only, with slurm-wlm and munge installed (exit status 77 otherwise: skipped).

usage: test_slurm.py --build-dir DIR [--work DIR]
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GRADE = [sys.executable, str(REPO / "scripts" / "grade")]
CLASS = ["solved-01", "solved-02", "starter-01", "starter-02", "broken-build", "ch07-only", "ch10-only", "empty",
         "loose-files", "attack-forged_report", "attack-kill_parent", "attack-fake_console"]
EXERCISES = ["--exercise", "ex07.1", "--exercise", "ex10.2"]
SKIPPED = 77


def run(command, **kwargs):
    print("+ " + " ".join(str(c) for c in command), flush=True)
    result = subprocess.run([str(c) for c in command], text=True, capture_output=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"failed ({result.returncode}): {result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


def reports_of(out: Path):
    """grades.csv's rows, and each graded student's cases as (name, status, score)."""
    with open(out / "grades.csv", newline="") as f:
        rows = list(csv.reader(f))
    cases = {}
    for row in rows[1:]:
        if row[-1]:
            results = json.loads((out / row[-1]).read_text())
            cases[row[0]] = (results["score"], [(t["name"], t["status"], t["score"]) for t in results["tests"]])
    return rows, cases


def same_as(expected, out: Path, label: str):
    rows, cases = reports_of(out)
    if rows != expected[0]:
        raise SystemExit(f"{label}: grades.csv differs from grade --class's:\n{rows}\n{expected[0]}")
    if cases != expected[1]:
        differ = [s for s in expected[1] if cases.get(s) != expected[1][s]]
        raise SystemExit(f"{label}: the results.json of {differ} differ from grade --class's")
    print(f"ok   {label}: the same {len(rows) - 1} rows and reports as grade --class", flush=True)


def rounds(out: Path):
    return [json.loads(line) for line in (out / ".slurm" / "rounds.jsonl").read_text().splitlines()]


def cancel_a_running_task(out: Path) -> int:
    """Wait until a task of the latest job array grades, cancel it, and return its shard."""
    array = rounds(out)[-1]["array"]
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        listing = subprocess.run(["squeue", "--noheader", "--jobs", array, "--states=RUNNING", "--format=%i %K"],
                                 capture_output=True, text=True).stdout.split()
        if len(listing) >= 2:
            job, shard = listing[0], int(listing[1])
            time.sleep(5)  # well into its grading
            run(["scancel", job])
            print(f"     cancelled task {job} (shard {shard}) while it ran", flush=True)
            return shard
        time.sleep(0.5)
    raise SystemExit("no task of the job array started within 10 minutes")


def wait_finished(out: Path):
    finished = out / ".slurm" / "finished.json"
    deadline = time.monotonic() + 1200
    while not finished.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{out}: the grading did not finish in 20 minutes (see {out}/.slurm/logs)")
        time.sleep(2)
    return json.loads(finished.read_text())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", type=Path, required=True)
    p.add_argument("--work", type=Path)
    args = p.parse_args()
    if os.geteuid() != 0 or not shutil.which("sbatch") or not Path("/usr/sbin/slurmctld").exists():
        print("skipped: needs root, and Debian's slurm-wlm and munge")
        return SKIPPED
    work = args.work or Path(tempfile.mkdtemp(prefix="pmpp-slurm-"))
    cluster = work / "cluster"
    run([sys.executable, HERE / "make_class.py", "make", work / "all"])
    (work / "class").mkdir()
    for student in CLASS:
        (work / "all" / "class" / student).rename(work / "class" / student)
    common = ["--class", work / "class", "--build-dir", args.build_dir] + EXERCISES
    run(GRADE + common + ["--out", work / "local"])
    expected = reports_of(work / "local")

    conf = run([HERE / "slurm" / "local_cluster.sh", "start", cluster]).split("=", 1)[1].strip()
    os.environ["SLURM_CONF"] = conf
    try:
        # 1. A task cancelled while it grades is submitted again.
        slurm = common + ["--slurm", "--shard-size", "3"]
        run(GRADE + slurm + ["--out", work / "a", "--retries", "1"])
        killed = cancel_a_running_task(work / "a")
        wait_finished(work / "a")
        tries = rounds(work / "a")
        if len(tries) != 2 or tries[1]["shards"] != [killed]:
            raise SystemExit(f"expected shard {killed} alone in a second round, got {tries}")
        print(f"ok   the cancelled shard {killed} was submitted again, alone", flush=True)
        same_as(expected, work / "a", "after a retry")

        # 2. No retries: not graded; the same command again grades only what is missing.
        command = GRADE + slurm + ["--out", work / "b", "--retries", "0"]
        run(command)
        killed = cancel_a_running_task(work / "b")
        finished = wait_finished(work / "b")
        rows, _ = reports_of(work / "b")
        not_graded = [r[0] for r in rows[1:] if r[-2] == "not graded"]
        shard = sorted(CLASS)[3 * killed:3 * killed + 3]
        if not_graded != shard or len(finished["not_graded"]) != 3:
            raise SystemExit(f"expected {shard} not graded, got {not_graded}")
        print(f"ok   without retries, the cancelled shard's students are listed as not graded: {not_graded}")
        summary = run(command + ["--wait"])
        if rounds(work / "b")[-1]["shards"] != [killed] or "not graded" in summary:
            raise SystemExit(f"the command run again did not grade shard {killed} alone: {rounds(work / 'b')}")
        print(f"ok   the same command again submitted shard {killed} alone", flush=True)
        same_as(expected, work / "b", "after running the command again")
    finally:
        subprocess.run([HERE / "slurm" / "local_cluster.sh", "stop", cluster])
    return 0


if __name__ == "__main__":
    sys.exit(main())
