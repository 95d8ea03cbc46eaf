"""Test cases: listed from the trusted test executables, run one per process, judged from what only
the trusted test process can write: its XML report and its facts (what it observed of the case), each
through a pipe that no worker inherits, and its exit status. Never from what it printed, which holds
text the code under test chose (its output, the messages of its exceptions)."""

import os
import re
import signal
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from .processes import GradingBroke, clip, finished, read_capped, run, start

POINTS_TAG = re.compile(r"\[points=(\d+(?:\.\d+)?)\]")
SPEED_TAG = "[speed]"  # the case times code: it runs alone on its GPU (schedule.py)
FEEDBACK_TAG = "[feedback]"  # no points: it times and profiles one launch, alone too (feedback.py)
GPU_MEMORY_TAG = re.compile(r"\[gpu_memory=(\d+(?:\.\d+)?)GiB\]", re.I)  # the GPU memory it needs in all
MISBEHAVED = 70  # the trusted test process's status when the code under test misbehaved (workers.hpp)
GRACE = 15  # seconds the test process gets beyond the workers' time limit, to report a hung call


@dataclass
class Case:
    exercise: str  # "ex07.1 conv1d_basic"
    exercise_id: str
    chapter: str
    suite: str  # "visible" or "hidden"
    name: str
    points: float
    status: str = "failed"  # passed, failed, skipped (not gradable here)
    reason: str = ""
    output: str = ""
    seconds: float = 0.0
    speed: bool = False  # [speed]
    feedback: bool = False  # [feedback]
    feedback_fact: str = ""  # the fact "feedback" of its run: one line of JSON (trusted/feedback.hpp)
    gpu_memory_gib: Optional[float] = None  # [gpu_memory=NGiB]
    ran_alone: bool = False  # nothing else ran on its GPU meanwhile
    short_of_memory: bool = False  # its run found too little GPU memory
    student: str = ""  # whose case it is: a GPU runs the cases of one student at a time (schedule.py)

    @property
    def timed(self) -> bool:
        """It times code: it runs alone on its GPU, once every other case has its final verdict, and
        only for an exercise whose other cases all passed."""
        return self.speed or self.feedback


@dataclass
class Listed:
    """A test case as the trusted test executable lists it."""
    name: str
    points: float
    speed: bool
    gpu_memory_gib: Optional[float]
    feedback: bool = False


def list_cases(executable: str) -> Optional[List[Listed]]:
    """Every test case, in declaration order, or None if the listing failed. A malformed
    [gpu_memory=...] tag breaks grading: the case could not be placed safely."""
    result = run([executable, "--list-tests", "--reporter", "xml", "--order", "decl"], timeout=60)
    if result.returncode != 0:
        return None
    try:
        root = ET.fromstring(result.output[result.output.find("<?xml"):])
    except ET.ParseError:
        return None
    cases = []
    for case in root.iter("TestCase"):
        name = (case.findtext("Name") or "").strip()
        tags = case.findtext("Tags") or ""
        points = sum((float(p) for p in POINTS_TAG.findall(tags)), 0.0)
        memory = GPU_MEMORY_TAG.findall(tags)
        if len(memory) != tags.lower().count("[gpu_memory="):
            raise GradingBroke(f"{executable}: the test case '{name}' has a tag [gpu_memory=...] that is not "
                               "[gpu_memory=NGiB], e.g. [gpu_memory=18GiB]")
        cases.append(Listed(name, int(points) if points.is_integer() else points, SPEED_TAG in tags.lower(),
                            max(float(m) for m in memory) if memory else None, FEEDBACK_TAG in tags.lower()))
    return cases


def test_spec(name: str) -> str:
    """A Catch2 test spec that matches exactly this name: escape what the spec syntax treats specially."""
    return re.sub(r'([\\,\[\]"*~])', r"\\\1", name)


BANNER = re.compile(r"^(~+|.* is a Catch2 v[\d.]+ host application\.|Run with -\? for options|Filters: .*|"
                    r"Randomness seeded to: \d+)$")


def tidy(output: str) -> str:
    lines = [line for line in output.splitlines() if not BANNER.match(line)]
    return "\n".join(lines).strip("\n")


@dataclass
class Runner:
    """Where and how cases run: a GPU (CUDA_VISIBLE_DEVICES) and a sandbox slot."""
    visible_devices: Optional[str]
    slot: int
    worker_command: List[str]
    clean_up_command: Optional[List[str]]
    timeout: float
    workdir: Path
    freeze_cgroup: Optional[str] = None  # the cgroup v2 its workers run in, frozen between timed calls


def read_facts(text: str) -> dict:
    """The trusted test process's facts (workers.hpp, write_facts): a name and its text per line."""
    facts = {}
    for line in text.splitlines():
        name, tab, value = line.partition("\t")
        if tab:
            facts[name] = value
    return facts


def found_too_little_memory(case: Case, facts: dict) -> bool:
    """Whether the case's run may have been cut short by GPU memory that others held: skipped (on a GPU
    the tests skip only for want of memory), or failed where the test process saw an allocation fail
    or the code under test report running out. The last is the worker's word, and only ever earns the
    case a second run, alone, whose verdict is final."""
    return case.status == "skipped" or (case.status == "failed" and "short_of_gpu_memory" in facts)


def _verdict(case: Case, returncode: Optional[int], xml: bytes, facts: dict, timeout: float):
    if returncode is None:
        case.status, case.reason = "failed", f"timed out: stopped after {timeout:g} s"
        return
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        case.status, case.reason = "failed", f"the test process crashed ({name})"
        return
    if returncode == MISBEHAVED:
        case.status, case.reason = "failed", facts.get("misbehaved") or "the code under test misbehaved"
        return
    try:
        root = ET.fromstring(xml.decode("utf-8", "replace"))
        verdict = next(root.iter("TestCase")).find("OverallResult")
    except (ET.ParseError, StopIteration):
        verdict = None
    if verdict is None:
        case.status, case.reason = "failed", f"did not finish (exit status {returncode})"
        return
    failures = root.find("OverallResults")
    failed_checks = int(failures.get("failures", "0")) if failures is not None else 0
    if verdict.get("success") == "true" and int(verdict.get("skips", "0")) > 0:
        skip = " ".join((next(root.iter("Skip")).text or "").split()) if root.find(".//Skip") is not None else ""
        case.status, case.reason = "skipped", "not gradable on this machine" + (f": {skip}" if skip else "")
    elif verdict.get("success") == "true" and returncode == 0:
        case.status, case.reason = "passed", "passed"
    elif verdict.get("success") == "true":
        case.status, case.reason = "failed", f"passed its checks but exited with status {returncode}"
    else:
        what = f"{failed_checks} check{'s' if failed_checks != 1 else ''} failed" if failed_checks else "failed"
        case.status, case.reason = "failed", what


def run_case(tests: str, worker: Path, reference: str, case: Case, runner: Runner, alone: bool,
             profiler: Optional[List[str]] = None):
    """Run one case of the trusted executable @tests against @worker; fill in its verdict. @alone: no
    other case runs on its GPU meanwhile; @profiler: the command line a feedback case profiles its
    launch behind (feedback.profiler_command). The test process asks to be killed when its parent goes
    (PR_SET_PDEATHSIG), which the kernel reads as the *thread* that started it: this one, which waits
    for it, so it fires only when grade dies."""
    pipes = {name: os.pipe() for name in ("verdict", "facts")}
    cmd = [tests, test_spec(case.name), "--reporter", f"xml::out=/dev/fd/{pipes['verdict'][1]}", "--reporter",
           "console", "--colour-mode", "none", "--worker", str(worker), "--reference-worker", reference,
           "--facts", f"/dev/fd/{pipes['facts'][1]}"]
    # PMPP_GRADE_PID: the test process dies with grade, and exits at once if grade is gone already.
    env = dict(os.environ, PMPP_SANDBOX="\n".join(runner.worker_command), PMPP_WORKER_TIMEOUT=f"{runner.timeout:g}",
               PMPP_CASE_ALONE="1" if alone else "0", PMPP_GRADE_PID=str(os.getpid()))
    if profiler and case.feedback:
        env["PMPP_PROFILER"] = "\n".join(profiler)
    if runner.freeze_cgroup:
        env["PMPP_FREEZE_CGROUP"] = runner.freeze_cgroup
    if runner.clean_up_command:
        env["PMPP_CLEANUP"] = "\n".join(runner.clean_up_command)
    if runner.visible_devices is not None:
        env["CUDA_VISIBLE_DEVICES"] = runner.visible_devices
    began = time.monotonic()
    try:
        proc = start(cmd, cwd=runner.workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, pass_fds=tuple(w for _, w in pipes.values()))
    except BaseException:
        for read, _ in pipes.values():
            os.close(read)
        raise
    finally:
        for _, write in pipes.values():
            os.close(write)
    output, xml, facts = [], [], []
    readers = [threading.Thread(target=read_capped, args=(proc.stdout, 1 << 20, output), daemon=True)]
    for (read, _), into, limit in ((pipes["verdict"], xml, 16 << 20), (pipes["facts"], facts, 1 << 16)):
        readers.append(threading.Thread(target=read_capped, args=(os.fdopen(read, "rb"), limit, into), daemon=True))
    for r in readers:
        r.start()
    limit = runner.timeout + GRACE
    try:
        returncode = proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        returncode = None
    finally:
        finished(proc)
    for r in readers:
        r.join(timeout=5)
    case.seconds = time.monotonic() - began
    case.output = clip(tidy(output[0].decode("utf-8", "replace") if output else ""))
    seen = read_facts(facts[0].decode("utf-8", "replace") if facts else "")
    _verdict(case, returncode, xml[0] if xml else b"", seen, limit)
    case.short_of_memory = found_too_little_memory(case, seen)
    case.feedback_fact = seen.get("feedback", "")
