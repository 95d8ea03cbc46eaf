"""What the tests that grade small classes as root share (run_attacks.py, test_interrupted_run.py,
test_concurrent_runs.py, test_refuses_weaker_isolation.py): a run of scripts/grade in the background,
read line by line as it goes; the users it says it runs student code as; the verdicts of its reports;
and what grading may leave behind: processes of the grading users, and cgroups of its slots."""

import json
import pwd
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import recipes

sys.path.insert(0, str(recipes.REPO / "grader"))

from grading import cgroups  # noqa: E402
from grading.isolation import USER_PREFIX  # noqa: E402

SKIPPED = 77  # CTest's SKIP_RETURN_CODE for these tests: they grade as root only
GRADE = recipes.REPO / "scripts" / "grade"
STARTUP = re.compile(r"^grade: student code runs as (.*?)(?:, each job|, and sees|;|$)")


def processes_of_grading_users() -> Tuple[Set[int], List[str], List[str]]:
    """(their uids, those alive, the zombies among them), each process as "pid (name)"."""
    users = {p.pw_uid for p in pwd.getpwall() if p.pw_name.startswith(USER_PREFIX)}
    alive, zombies = [], []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            name = f"{entry.name} ({(entry / 'comm').read_text().strip()})"
        except OSError:
            continue  # gone meanwhile
        uid = int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))
        if uid in users:
            (zombies if re.search(r"^State:\s+Z", status, re.M) else alive).append(name)
    return users, alive, zombies


def grader_cgroups() -> List[str]:
    """The cgroups of grade's slots that exist now (none should, once no grade runs)."""
    return [str(f) for f in cgroups.Layout.find().leftovers()]


def left_behind() -> List[str]:
    """What grading left that it must not: live processes of the grading users, cgroups of its slots."""
    failures = []
    _, alive, _ = processes_of_grading_users()
    if alive:
        failures.append(f"processes of the grading users survived: {', '.join(alive)}")
    left = grader_cgroups()
    if left:
        failures.append(f"cgroups of the grader were left: {', '.join(left)}")
    return failures


def slot_numbers(users: str) -> Set[int]:
    """{0, 1, 4} from "pmpp-grader-0..1, pmpp-grader-4"."""
    numbers = set()
    for first, last in re.findall(re.escape(USER_PREFIX) + r"(\d+)(?:\.\.(\d+))?", users):
        numbers |= set(range(int(first), int(last or first) + 1))
    return numbers


class Grade:
    """A run of scripts/grade with @options, in the background; its stdout is read as it comes."""

    def __init__(self, *options, prefix: Tuple[str, ...] = (), umask: int = -1):
        self.command = [*prefix, sys.executable, str(GRADE), *map(str, options)]
        print("$ " + " ".join(self.command), flush=True)
        self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     errors="replace", umask=umask)
        self.lines: List[str] = []
        self.stderr = ""
        self._readers = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for r in self._readers:
            r.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def _read_stderr(self):
        self.stderr = self.proc.stderr.read()

    def wait_for(self, pattern: str, timeout: float) -> Optional[re.Match]:
        """The first line of stdout that matches @pattern, waiting for it at most @timeout seconds (None
        when grade ended, or the time ran out, without one)."""
        deadline = time.monotonic() + timeout
        while True:
            ended = not self._readers[0].is_alive()  # before looking: its last lines are in by then
            for line in list(self.lines):
                m = re.search(pattern, line)
                if m:
                    return m
            if ended or time.monotonic() > deadline:
                return None
            time.sleep(0.05)

    def finish(self, timeout: float) -> Optional[int]:
        """grade's exit status (None: it ran past @timeout and was killed)."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        for r in self._readers:
            r.join(timeout=10)
        return code

    def output(self) -> str:
        return "\n".join(self.lines) + ("\n[stderr]\n" + self.stderr if self.stderr else "")

    def slots(self) -> Set[int]:
        """The slots whose users grade said it runs student code as."""
        for line in self.lines:
            m = STARTUP.match(line)
            if m:
                return slot_numbers(m.group(1))
        return set()


def verdicts(out: Path) -> Dict[str, List[Tuple[str, str, str]]]:
    """For each student of a class graded into @out: (case, outcome, first line of its output) of every case."""
    found = {}
    for results in sorted(out.glob("*/results.json")):
        tests = json.loads(results.read_text())["tests"]
        found[results.parent.name] = [(t["name"], t["extra_data"]["outcome"], t["output"].split("\n", 1)[0])
                                      for t in tests]
    return found
