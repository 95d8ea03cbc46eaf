#!/usr/bin/env python3
"""The schedule of scripts/grade (grader/grading/schedule.py), run by threads as grade runs it, on
simulated GPUs and cases (no GPU needed): every case runs once, and once more alone exactly when it
found too little GPU memory beside others; the claims of the cases running on a GPU never exceed its
memory; a GPU runs the cases of one student at a time; a speed case or a second run has its GPU to
itself, after every case that shares; a speed case starts once every other case has its final verdict;
without a GPU, or with one runner per GPU, no case runs twice; a schedule that is stopped lets every
runner go; and the cases no GPU has the memory for are named before grading.

usage: test_schedule.py   (exit status 0 when every check holds)
"""

import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grading.cases import Case  # noqa: E402
from grading.schedule import ORDINARY_CASE_GIB, Schedule, beyond_every_gpu  # noqa: E402


def make_cases(count, seed):
    """A class's worth of cases: mostly ordinary, some that declare a lot of GPU memory, some speed
    and feedback cases (both timed), and some that will find too little memory when they share."""
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        c = Case("ex00.0 x", "ex00.0", "ch00", "visible", f"case {n}", 1, student=f"student {rng.randrange(12)}")
        kind = rng.random()
        if kind < 0.05:
            c.speed = True
        elif kind < 0.1:
            c.feedback = True
        elif kind < 0.25:
            c.gpu_memory_gib = 19.0
        c.starved = rng.random() < 0.05  # its worker will find its GPU too full while sharing
        cases.append(c)
    return cases


class Recorder:
    """What ran where, checked as it happens."""

    def __init__(self, budgets, gpus):
        self.lock = threading.Lock()
        self.gpus = gpus
        self.budgets = budgets
        self.running = [[] for _ in budgets]  # (case, alone) per GPU
        self.runs = {}  # id(case) -> [alone?, ...]
        self.unstarted = None  # set by the test: cases that share and have not started yet
        self.unsettled = None  # set by the test: cases other than speed cases whose last run has not ended
        self.errors = []

    def start(self, gpu, case):
        with self.lock:
            alone = case.ran_alone
            here = self.running[gpu]
            if alone and here:
                self.errors.append(f"{case.name} ran alone beside {len(here)} other cases")
            if any(a for _, a in here):
                self.errors.append(f"{case.name} started beside a case that runs alone")
            if self.gpus and any(c.student != case.student for c, _ in here):
                self.errors.append(f"{case.name} of {case.student} started beside another student's case")
            if alone and self.unstarted[0] > 0:
                self.errors.append(f"{case.name} ran alone before every case that shares had started")
            if case.speed_alone and self.unsettled[0] > 0:
                self.errors.append(f"{case.name} (speed) started before every other case's final verdict")
            if not alone and not case.speed_alone and len(self.runs.get(id(case), [])) == 0:
                self.unstarted[0] -= 1
            here.append((case, alone))
            budget = self.budgets[gpu]
            claim = sum(min(c.gpu_memory_gib or ORDINARY_CASE_GIB, budget or 1e9) for c, a in here if not a)
            if budget is not None and claim > budget:
                self.errors.append(f"GPU {gpu}: cases claiming {claim} GiB ran at once on {self.budgets[gpu]} GiB")
            self.runs.setdefault(id(case), []).append(alone)

    def end(self, gpu, case, last_run):
        with self.lock:
            self.running[gpu] = [(c, a) for c, a in self.running[gpu] if c is not case]
            if last_run and not case.speed_alone:
                self.unsettled[0] -= 1


def simulate(budgets, runners_per_gpu, gpus, seed=1, count=300):
    cases = make_cases(count, seed)
    schedule = Schedule(cases, budgets, runners_per_gpu, gpus)
    recorder = Recorder(budgets, gpus)
    for c in cases:
        c.speed_alone = gpus and c.timed
    recorder.unstarted = [sum(1 for c in cases if not c.speed_alone)]
    recorder.unsettled = [sum(1 for c in cases if not c.speed_alone)]
    sharing = gpus and runners_per_gpu > 1
    rng = random.Random(seed)

    def runner(gpu):
        while True:
            case = schedule.next_case(gpu)
            if case is None:
                return
            recorder.start(gpu, case)
            time.sleep(rng.random() * 0.002)
            case.short_of_memory = case.starved and not case.ran_alone
            recorder.end(gpu, case, last_run=case.ran_alone or not (sharing and case.short_of_memory))
            schedule.finished(gpu, case)

    threads = [threading.Thread(target=runner, args=(g,)) for g in range(len(budgets)) for _ in range(runners_per_gpu)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    errors = list(recorder.errors)
    if any(t.is_alive() for t in threads):
        return errors + ["the runners did not finish: the schedule blocked"]
    for c in cases:
        runs = recorder.runs.get(id(c), [])
        want = [False, True] if sharing and c.starved and not c.timed else [gpus and c.timed]
        if runs != want:
            errors.append(f"{c.name} (timed {c.timed}, starved {c.starved}) ran {runs}, expected {want}")
    if schedule.ran_again != sum(1 for c in cases if sharing and c.starved and not c.timed):
        errors.append(f"ran_again is {schedule.ran_again}")
    return errors


def stop_lets_runners_go():
    c = Case("ex00.0 x", "ex00.0", "ch00", "visible", "speed", 1, speed=True)
    blocker = Case("ex00.0 x", "ex00.0", "ch00", "visible", "shared", 1)
    schedule = Schedule([c, blocker], [80.0], 2, True)
    assert schedule.next_case(0) is blocker  # it never finishes: the speed case waits for it
    result = []
    waiting = threading.Thread(target=lambda: result.append(schedule.next_case(0)))
    waiting.start()
    time.sleep(0.05)
    schedule.stop()
    waiting.join(timeout=5)
    return [] if not waiting.is_alive() and result == [None] else ["a stopped schedule kept a runner waiting"]


def announces_what_cannot_fit():
    """beyond_every_gpu names each case too large for every GPU once, and nothing when a GPU's memory
    is not known or there is no GPU."""
    big = [Case("ex00.0 x", "ex00.0", "ch00", "visible", "big", 2, student=f"student {n}") for n in range(3)]
    for c in big:
        c.gpu_memory_gib = 19.0
    fits = Case("ex00.0 x", "ex00.0", "ch00", "visible", "fits", 2)
    fits.gpu_memory_gib = 10.0
    plain = Case("ex00.0 x", "ex00.0", "ch00", "visible", "plain", 1)
    cases = big + [fits, plain]
    errors = []
    if [c.name for c in beyond_every_gpu(cases, [15.0, 12.0])] != ["big"]:
        errors.append("on GPUs of 15 and 12 GiB, only the 19 GiB case, once, is out of reach")
    if beyond_every_gpu(cases, [79.0, 15.0]):
        errors.append("a case that fits one of the GPUs was announced")
    if beyond_every_gpu(cases, [15.0, None]) or beyond_every_gpu(cases, []):
        errors.append("a GPU of unknown memory, or no GPU, announces nothing")
    return errors


def main():
    checks = {
        "one H100, 8 runners": simulate([79.0], 8, True),
        "two GPUs, 4 runners each, one small": simulate([79.0, 15.0], 4, True, seed=2),
        "a GPU whose memory is not known": simulate([None], 3, True, seed=3),
        "one runner per GPU: nothing runs twice": simulate([79.0], 1, True, seed=4),
        "no GPU: everything shares, nothing runs twice": simulate([None], 2, False, seed=5),
        "a GPU smaller than a declared claim": simulate([8.0], 4, True, seed=6),
        "stop() lets every runner go": stop_lets_runners_go(),
        "cases too large for every GPU are announced": announces_what_cannot_fit(),
    }
    failed = 0
    for name, errors in checks.items():
        print(f"{'ok  ' if not errors else 'FAIL'} {name}")
        for e in errors[:10]:
            print(f"     {e}")
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
