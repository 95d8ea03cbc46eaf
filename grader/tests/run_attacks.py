#!/usr/bin/env python3
"""The attack suite: grade every attack in attacks/ as a student of one class, next to an honest
solution and an honest starter of each attacked exercise, and check that

- each attack earns exactly what it earned honestly: nothing, or what the unmodified solution earns
  in the same run (an attack that only misbehaves after its answers keeps their points);
- the honest solutions lose no case to the attacks graded beside them at the same time (each case
  passed, or was not gradable here), and the attack that reaches for the other jobs' processes and
  files reaches none;
- every report is complete (every case of every graded exercise, with every field), its outputs cut
  to size, and still what grade wrote once the attacks' daemons had time to overwrite it;
- no process of the grading users survives, none is left a zombie (a zombie holds its user's process
  limit, and the PID 1 of many containers never reaps), no cgroup of the grader's slots is left, no file
  of theirs is left in /dev/shm, and no text of the hidden tests appears in any report.

grade runs under umask 077, as on machines that default to it: nothing it hands to the code under test
may depend on a permissive umask.

Runs as root only (attacks kill every process they can): CTest reports it as skipped otherwise.

usage: run_attacks.py --build-dir DIR [--timeout S] [--jobs N]
"""

import argparse
import csv
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recipes  # noqa: E402
from grading_runs import SKIPPED, grader_cgroups, processes_of_grading_users  # noqa: E402

OUTPUT_LIMIT = 8000  # what grade keeps of a case's output is about 6000 characters, plus its reason
REQUIRED_FIELDS = {"name", "score", "max_score", "status", "output", "visibility"}


def hidden_markers(hidden: Path):
    """Lines of the hidden tests that no report may contain: statements that are not a case's name or a
    check (which the report of a hidden case shows, as it should)."""
    shown = re.compile(r"TEST_CASE|CHECK|REQUIRE|INFO|SKIP|//|#include")
    markers = []
    for path in hidden.rglob("*.cpp"):
        markers += [line.strip() for line in path.read_text().splitlines()
                    if ";" in line and len(line.strip()) >= 25 and not shown.search(line)]
    return markers


def digest(folder: Path):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class Listeners:
    """What reach_the_network tries to reach: a TCP listener on loopback and an abstract Unix socket,
    counting the connections they accept while the class is graded."""

    def __init__(self):
        self.heard = 0
        self.sockets = []
        for family, address in ((socket.AF_INET, ("127.0.0.1", 47001)), (socket.AF_UNIX, "\0pmpp-attack-listener")):
            s = socket.socket(family, socket.SOCK_STREAM)
            s.bind(address)
            s.listen(16)
            self.sockets.append(s)
            threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    def _accept(self, s):
        while True:
            try:
                connection, _ = s.accept()
            except OSError:
                return
            self.heard += 1
            connection.close()

    def close(self):
        for s in self.sockets:
            s.close()


def gpu_overlaps(case_runs: Path):
    """Pairs of case runs of different students that overlapped in time on the same GPU (grade's
    case-runs.csv): there must be none, since any CUDA process can open some memory of another on its
    GPU."""
    with open(case_runs, encoding="utf-8") as f:
        runs = [r for r in csv.DictReader(f) if r["gpu"] != ""]
    found = []
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            if (a["gpu"] == b["gpu"] and a["student"] != b["student"] and float(a["started"]) < float(b["ended"])
                    and float(b["started"]) < float(a["ended"])):
                found.append(f"{a['student']} '{a['case']}' and {b['student']} '{b['case']}' on GPU {a['gpu']}")
    return found


def reported_counts(results, gpu: bool):
    """The checks on what the attacks that look around print of what they reached (on a GPU, the ones
    that need one): every count within bounds, and each printed at least once (the attack ran)."""
    failures = []

    def numbers(student, pattern):
        found = re.findall(pattern, json.dumps(results.get(student, {})))
        return [tuple(int(n) for n in (m if isinstance(m, tuple) else (m,))) for m in found]

    checks = [
        ("attack-leave_state_behind", r"state left by earlier cases found: (\d+)", "found state an earlier case left",
         lambda found: found == 0, True),
        ("attack-fill_shared_memory", r"shared memory held: (\d+) MiB in /dev/shm, (\d+) MiB in System V",
         "held more than 256 MiB of shared memory of a kind",
         lambda files, segments: max(files, segments) <= 256, True),
        ("attack-forge_ipc_handles", r"opened (\d+) buffers of other cases \((\d+) processes",
         "", lambda opened, processes: True, gpu),  # what it can reach are its own cases: see gpu_overlaps()
        ("attack-reach_the_network", r"network listeners reached: (\d+)", "reached the network",
         lambda reached: reached == 0, True),
        ("attack-trace_the_test", r"processes traced or written: (\d+) ways in, (\d+) processes tried",
         "got into another process (ptrace, process_vm_readv/writev or /proc/<pid>/mem)",
         lambda ways, tried: ways == 0 and tried > 0, True),
        ("attack-use_another_gpu", r"GPUs usable: (\d+); GPU device nodes opened: (\d+)",
         "could use more than its own GPU", lambda usable, nodes: usable <= 1 and nodes <= 1, gpu),
    ]
    for student, pattern, wrong, holds, required in checks:
        found = numbers(student, pattern)
        print(f"{student}: {found[:8]}{' ...' if len(found) > 8 else ''}")
        if required and not found:
            failures.append(f"{student} printed no count: it did not run")
        if any(not holds(*n) for n in found):
            failures.append(f"{student} {wrong}")
    forged = numbers("attack-forge_ipc_handles", r"opened (\d+) buffers of other cases \((\d+) processes")
    targets = [processes for _, processes in forged]
    if gpu and not any(targets):
        failures.append("attack-forge_ipc_handles saw no other case's process to forge handles for")
    return failures


def main():
    parser = argparse.ArgumentParser(description="the grader's attack suite")
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=15)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("the attack suite runs as root only: it grades submissions that kill every process they can, which "
              "only grading as root keeps away from everything else")
        return SKIPPED

    zombies_before = set(processes_of_grading_users()[2])  # another run's, not this one's
    build = args.build_dir.resolve()
    manifest = json.loads((build / "exercises" / "manifest.json").read_text())
    configured = manifest.get("hidden_tests_dir") or ""
    hidden = Path(configured) if configured else recipes.HIDDEN_EXAMPLE  # hidden either way: it is in the repo
    work = build / "grader-attacks"
    shutil.rmtree(work, ignore_errors=True)
    klass, out = work / "class", work / "reports"

    attacks = recipes.attacks()
    attacked = sorted({a.exercise for a in attacks})
    for name in attacked:
        e = recipes.exercise_named(name)
        for kind in ("solution", "starter"):
            recipes.write_exercise(klass / f"control-{kind}-{name}", e, kind, hidden)
    for a in attacks:
        recipes.write_exercise(klass / f"attack-{a.name}", recipes.exercise_named(a.exercise), "", hidden, a)

    cmd = [sys.executable, str(recipes.REPO / "scripts" / "grade"), "--class", str(klass), "--out", str(out),
           "--build-dir", str(build), "--timeout", f"{args.timeout:g}", "--jobs", str(args.jobs)]
    if configured:
        cmd += ["--hidden-tests", configured]
    for name in attacked:
        cmd += ["--exercise", name]
    print("$ " + " ".join(cmd), flush=True)
    started = time.monotonic()
    # Under the strictest usual umask: what grade hands to the code under test (the source, the objects
    # it links) must be readable by the sandbox's users whatever the umask of the machine that grades.
    listeners = Listeners()
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                            umask=0o077)
    listeners.close()
    # At once, before PID 1 (which may reap orphans only now and then) can hide what grade left.
    zombies_after = set(processes_of_grading_users()[2])
    print(result.stdout[-20000:])
    print(f"(grade took {time.monotonic() - started:.0f} s)")
    failures = []
    if result.returncode != 0:
        failures.append(f"grade exited with status {result.returncode}")
        print("\n".join(failures))
        return 1

    before = digest(out)
    time.sleep(5)  # time for a daemon left behind to overwrite the reports, had it survived
    if digest(out) != before:
        failures.append("the reports changed after grade had written them")

    with open(out / "grades.csv") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    results = {}
    for student in rows:
        results[student] = json.loads((out / rows[student]["results"]).read_text())

    def points(student, name):
        return float(rows[student][recipes.exercise_named(name).id])

    print(f"\n{'attack':<28} {'exercise':<20} {'may earn':<16} {'earned':>7}")
    for a in attacks:
        student = f"attack-{a.name}"
        if student not in rows:
            failures.append(f"{student} is missing from grades.csv")
            continue
        allowed = recipes.allowed_points(a, points(f"control-solution-{a.exercise}", a.exercise))
        got = points(student, a.exercise)
        print(f"{a.name:<28} {a.exercise:<20} {allowed:>16g} {got:>7g}{'' if got == allowed else '  <-- WRONG'}")
        if got != allowed:
            failures.append(f"{student} earned {got:g} points on {a.exercise}, not {allowed:g}")
            # Say which cases made the difference and why, so that a rare failure can be diagnosed from
            # this log alone: the reports are overwritten by the next run.
            control = {t["name"]: t for t in results[f"control-solution-{a.exercise}"]["tests"]}
            for t in results[student]["tests"]:
                c = control.get(t["name"])
                if t["number"] == recipes.exercise_named(a.exercise).id and c is not None and t["score"] != c["score"]:
                    why = t["output"].strip().splitlines()[0][:160] if t["output"].strip() else "(no output)"
                    print(f"    {t['name']}: {t['score']:g} of {t['max_score']:g} points after "
                          f"{t['extra_data'].get('seconds', 0):g} s ({t['status']}): {why}")
        # No attack makes a case "not gradable" that the honest solution is graded on.
        graded = {t["name"] for t in results[f"control-solution-{a.exercise}"]["tests"]
                  if t["extra_data"]["outcome"] != "not gradable"}
        for t in results[student]["tests"]:
            if t["name"] in graded and t["extra_data"]["outcome"] == "not gradable":
                failures.append(f"{student} made '{t['name']}' not gradable, where the solution is graded")
    for name in attacked:
        if points(f"control-starter-{name}", name) != 0:
            failures.append(f"the starter code of {name} earned points")
        for t in results[f"control-solution-{name}"]["tests"]:
            if t["number"] == recipes.exercise_named(name).id and t["extra_data"]["outcome"] == "failed":
                failures.append(f"the solution of {name} failed '{t['name']}' while the attacks ran beside it")

    reference = [t["name"] for t in results[f"control-solution-{attacked[0]}"]["tests"]]
    markers = hidden_markers(hidden)
    for student, data in results.items():
        names = [t["name"] for t in data["tests"]]
        if names != reference:
            failures.append(f"{student}: the report lists other cases than the control's")
        for t in data["tests"]:
            if not REQUIRED_FIELDS <= set(t) or t["status"] not in ("passed", "failed") or t["score"] > t["max_score"]:
                failures.append(f"{student}: an incomplete or inconsistent entry for {t.get('name')}")
            if len(t["output"]) > OUTPUT_LIMIT:
                failures.append(f"{student}: {len(t['output'])} characters of output kept for {t['name']}")
            for line in t["output"].splitlines():
                if "All tests passed (42 assertions" in line and not line.startswith("  | "):
                    failures.append(f"{student}: its printed text passes for the test's own output")
        text = json.dumps(data)
        if "FORGED" in text or data["score"] > 1000:
            failures.append(f"{student}: a forged report")
        for marker in markers:
            if marker in text:
                failures.append(f"{student}: its report shows the hidden test '{marker}'")

    reader = json.dumps(results["attack-read_hidden_tests"])
    if "hidden tests read:" in reader and "hidden tests read: 0 bytes" not in reader:
        failures.append("attack-read_hidden_tests read something of the hidden tests")
    reaches = re.findall(r"other jobs reached: (\d+) times \(their processes seen: (\d+)",
                         json.dumps(results["attack-reach_other_jobs"]))
    print(f"attack-reach_other_jobs: saw processes of other jobs {sum(int(s) for _, s in reaches)} times in "
          f"{len(reaches)} cases; reached them {sum(int(r) for r, _ in reaches)} times")
    if not reaches:
        failures.append("attack-reach_other_jobs printed no count: it did not run")
    if any(int(r) for r, _ in reaches):
        failures.append("attack-reach_other_jobs reached the processes or files of other jobs")

    failures += reported_counts(results, gpu=not re.search(r"^Graded .* on no GPU;", result.stdout, re.M))

    if listeners.heard:
        failures.append(f"the attack suite's network listeners were reached {listeners.heard} times")
    overlaps = gpu_overlaps(build / "grade-logs" / "case-runs.csv")
    if overlaps:
        failures.append(f"{len(overlaps)} runs of two students' cases overlapped on a GPU, e.g. {overlaps[0]}")

    users, alive, _ = processes_of_grading_users()
    if alive:
        failures.append(f"processes of the grading users survived: {', '.join(alive)}")
    if grader_cgroups():
        failures.append(f"cgroups of the grader were left: {', '.join(grader_cgroups())}")
    left_unreaped = sorted(zombies_after - zombies_before)
    if left_unreaped:
        failures.append(f"{len(left_unreaped)} processes of the grading users were left unreaped (zombies), e.g. "
                        f"{', '.join(left_unreaped[:5])}")
    for path in [Path("/dev/shm/pmpp-leak"), Path("/tmp/pmpp-leak")]:
        if path.exists():
            failures.append(f"{path} exists: something read the hidden tests")
    left = [p.name for p in Path("/dev/shm").iterdir() if p.lstat().st_uid in users]
    if left:
        failures.append(f"files of the grading users were left in /dev/shm: {', '.join(left)}")

    print()
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"All {len(attacks)} attacks earned what they earned honestly; every report is complete.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
