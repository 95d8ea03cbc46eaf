"""Grading a class on a Slurm cluster: `grade --class DIR --slurm`.

The class is cut into shards of --shard-size submissions. Three kinds of jobs do the work, all running
this same grade with the same sandbox and rules as on one machine:

- one build job on a node of the partition (the tests and the solution's workers are built there, for
  its GPUs), with the GPU request, since the build compiles for the GPU it finds;
- one job array, one task per shard, each on one GPU, grading its shard (`grade --shard N`) into
  OUT/.slurm/shards/N/ and writing done.json last;
- one merge job after the array (`grade --slurm-merge`), on no GPU: shards without done.json (a task
  that failed, ran out of time, was preempted or cancelled) are submitted again, with a new merge job
  after them, up to --retries times; then OUT/grades.csv and each student's results.json are written
  from the shards, and a student whose shard never finished is listed as *not graded*, never as 0.

Everything lives in OUT/.slurm/ on the shared filesystem: plan.json (the shards and the commands),
logs/, shards/, and finished.json once the class is merged. Running the same command again submits
only the shards that are not done (or, when all are, just prints the summary).
"""

import csv
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from . import class_page
from .names import display_name
from .processes import GradingBroke, UsageError
from .reports import write_file

STATE = ".slurm"
GRADES = "grades.csv"
NOT_GRADED = "not graded"
GRADE = Path(__file__).resolve().parents[2] / "scripts" / "grade"


def state_of(out: Path) -> Path:
    return out / STATE


def shard_folder(out: Path, index: int) -> Path:
    return state_of(out) / "shards" / str(index)


def load_plan(out: Path) -> Dict:
    try:
        return json.loads((state_of(out) / "plan.json").read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"{state_of(out)}: no plan of a Slurm grading there ({e})")


def shard_done(out: Path, index: int, students: List[str]) -> bool:
    """Whether shard @index finished, for exactly these @students."""
    try:
        done = json.loads((shard_folder(out, index) / "done.json").read_text())
    except (OSError, ValueError):
        return False
    return done.get("students") == students


def missing_shards(out: Path, plan: Dict) -> List[int]:
    return [i for i, shard in enumerate(plan["shards"]) if not shard_done(out, i, shard)]


# ---- Submitting -------------------------------------------------------------------------------------


def sbatch(arguments: List[str], command: List[str], task_shard: bool = False) -> str:
    """Submit @command as a batch job (with @task_shard, followed by `--shard` and the array task's
    index); its job id."""
    script = shlex.join(command) + (' --shard "$SLURM_ARRAY_TASK_ID"' if task_shard else "")
    try:
        result = subprocess.run(["sbatch", "--parsable", *arguments, "--wrap", script],
                                capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise GradingBroke("sbatch not found: run grade --slurm where Slurm's commands are (a login node)")
    except subprocess.TimeoutExpired:
        raise GradingBroke("sbatch did not answer in 120 s")
    if result.returncode != 0:
        raise GradingBroke(f"sbatch failed: {result.stderr.strip() or result.stdout.strip()}")
    return result.stdout.strip().split(";")[0]


def common_options(plan: Dict, name: str, log: str) -> List[str]:
    options = [f"--job-name={name}", f"--output={state_of(Path(plan['out'])) / 'logs' / log}"]
    if plan["partition"]:
        options.append(f"--partition={plan['partition']}")
    if plan["account"]:
        options.append(f"--account={plan['account']}")
    return options + plan["sbatch_options"]


def grade_command(plan: Dict, *extra: str) -> List[str]:
    return [sys.executable, str(GRADE), *plan["grade_args"], *extra]


def submit_round(plan: Dict, shards: List[int], attempt: int, after: Optional[str]) -> Dict:
    """The shards' tasks (after job @after, if any) and a merge job after them."""
    out = Path(plan["out"])
    array = sbatch(common_options(plan, "grade", f"shard-%a-try{attempt}.log") +
                   [f"--array={','.join(map(str, shards))}", f"--time={plan['time_limit']}", "--requeue",
                    "--kill-on-invalid-dep=yes", *plan["gpu_request"]] +
                   ([f"--dependency=afterok:{after}"] if after else []),
                   grade_command(plan), task_shard=True)
    merge = sbatch(common_options(plan, "grade-merge", f"merge-try{attempt}.log") +
                   ["--time=30", "--kill-on-invalid-dep=no", f"--dependency=afterany:{array}"],
                   grade_command(plan, "--slurm-merge", "--attempt", str(attempt)))
    round_ = {"attempt": attempt, "shards": shards, "array": array, "merge": merge}
    with open(state_of(out) / "rounds.jsonl", "a") as f:
        f.write(json.dumps(round_) + "\n")
    return round_


def submit(args, members: List[str], grade_args: List[str]) -> int:
    """grade --class DIR --slurm: plan the shards, submit what is not done, and wait if asked."""
    out = args.out
    state = state_of(out)
    for folder in (state, state / "logs", state / "shards"):
        folder.mkdir(parents=True, exist_ok=True)
    size = args.shard_size
    plan = {
        "out": str(out),
        "shards": [members[i:i + size] for i in range(0, len(members), size)],
        "grade_args": grade_args,
        "partition": args.partition or "",
        "account": args.account or "",
        "time_limit": args.time_limit,
        "gpu_request": shlex.split(args.gpu_request),
        "sbatch_options": args.sbatch_option,
        "retries": args.retries,
    }
    write_file(state / "plan.json", json.dumps(plan, indent=1) + "\n")
    missing = missing_shards(out, plan)
    finished = state / "finished.json"
    if not missing:
        if not finished.exists():
            merge(out, plan["retries"] + 1, "--leaderboard-names" in plan["grade_args"])
        print(f"grade: every shard of this class is graded already ({len(plan['shards'])}); "
              f"to grade again, remove {state}")
        return summary(out)
    finished.unlink(missing_ok=True)
    (state / "build.ok").unlink(missing_ok=True)
    build = sbatch(common_options(plan, "grade-build", "build.log") +
                   [f"--time={plan['time_limit']}", *plan["gpu_request"]], grade_command(plan, "--build-only"))
    round_ = submit_round(plan, missing, 1, build)
    print(f"grade: submitted to Slurm: job {build} builds the tests; job array {round_['array']} grades "
          f"{len(missing)} of {len(plan['shards'])} shards (up to {size} submissions each, one GPU a task); "
          f"job {round_['merge']} merges them into {out / GRADES}, and submits a failed shard again "
          f"(up to {plan['retries']} times)", flush=True)
    if not args.wait:
        print(f"grade: follow with `squeue --me`; logs in {state / 'logs'}; once {finished} exists, run the "
              f"same command again to see the summary (it submits only what is not graded yet)")
        return 0
    return wait(out)


def wait(out: Path, poll_s: float = 5.0) -> int:
    """Until the merge has written finished.json; stop early when no job of this grading is left."""
    state = state_of(out)
    idle = 0
    while not (state / "finished.json").exists():
        time.sleep(poll_s)
        rounds = [json.loads(line) for line in (state / "rounds.jsonl").read_text().splitlines()]
        jobs = [job for round_ in rounds for job in (round_["array"], round_["merge"])]
        result = subprocess.run(["squeue", "--noheader", "--format=%i", "--jobs", ",".join(jobs)],
                                capture_output=True, text=True)
        idle = idle + 1 if result.returncode == 0 and not result.stdout.strip() else 0
        if idle >= 3 and not (state / "finished.json").exists():
            raise GradingBroke(f"the Slurm jobs of this grading ended without merging it: see {state / 'logs'}; "
                               "run the same command again to grade what is missing")
    return summary(out)


# ---- In the jobs -------------------------------------------------------------------------------------


def shard_students(out: Path, index: int) -> List[str]:
    plan = load_plan(out)
    if not 0 <= index < len(plan["shards"]):
        raise UsageError(f"--shard {index}: the plan has shards 0 to {len(plan['shards']) - 1}")
    return plan["shards"][index]


def mark_built(out: Path):
    write_file(state_of(out) / "build.ok", "\n")


def mark_shard_done(out: Path, index: int, students: List[str]):
    write_file(shard_folder(out, index) / "done.json", json.dumps({"students": students}) + "\n")


def merge(out: Path, attempt: int, leaderboard_names: bool = False) -> int:
    """In the merge job: submit the missing shards again while retries are left, else write the class's
    reports from the shards that finished."""
    plan = load_plan(out)
    state = state_of(out)
    if not (state / "build.ok").exists():
        write_file(state / "finished.json", json.dumps({"error": "the build job failed"}) + "\n")
        print(f"grade: the build job failed (see {state / 'logs' / 'build.log'}): nothing was graded")
        return 1
    missing = missing_shards(out, plan)
    if missing and attempt <= plan["retries"]:
        round_ = submit_round(plan, missing, attempt + 1, None)
        print(f"grade: shards {missing} did not finish; submitted again as job array {round_['array']} "
              f"(try {attempt + 1} of {plan['retries'] + 1})")
        return 0
    header, rows, not_graded = None, {}, []
    for i, shard in enumerate(plan["shards"]):
        if i in missing:
            not_graded += shard
            continue
        with open(shard_folder(out, i) / GRADES, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            for row, student in zip(reader, shard):
                rows[student] = row
                results = shard_folder(out, i) / row[-1]
                (out / row[-1]).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(results, out / row[-1])
                feedback = results.parent / "feedback.json"  # written beside results.json, where any ran
                if feedback.is_file():
                    shutil.copyfile(feedback, (out / row[-1]).parent / "feedback.json")
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    if header is None:  # no shard finished: the columns are not known but for these
        header = ["student", "total", "results"]
    writer.writerow(header)
    for shard in plan["shards"]:
        for student in shard:
            writer.writerow(rows.get(student) or
                            [display_name(Path(student).name)] + [""] * (len(header) - 3) + [NOT_GRADED, ""])
    write_file(out / GRADES, text.getvalue())
    print(f"grade: {class_page.finish_class(out, leaderboard_names)}")
    write_file(state / "finished.json", json.dumps({"graded": len(rows), "not_graded": not_graded,
                                                     "tries": attempt}) + "\n")
    print(f"grade: merged {len(rows)} submissions into {out / GRADES}; not graded: {len(not_graded)}")
    return 0


def summary(out: Path) -> int:
    finished = json.loads((state_of(out) / "finished.json").read_text())
    if "error" in finished:
        print(f"grade: {finished['error']}: see {state_of(out) / 'logs'}", file=sys.stderr)
        return 3
    print(f"grade: {finished['graded']} submissions graded on Slurm, grades in {out / GRADES}")
    if finished["not_graded"]:
        print(f"grade: not graded ({len(finished['not_graded'])}), their shard never finished after "
              f"{finished['tries']} tries: " + ", ".join(display_name(Path(s).name) for s in finished["not_graded"]) +
              "; run the same command again to grade them")
    return 0
