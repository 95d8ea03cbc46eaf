"""Which test case runs when, and on which GPU.

Several runners share a GPU, each running one case at a time, but only ever cases of one student: a
CUDA process can open some device memory of any other CUDA process on its GPU (the driver's own
buffers of its context, with a forged legacy IPC handle; shown on an H200), so a student's code never
runs on a GPU beside another student's case. When a student's last case on a GPU has started, that
GPU's other runners wait until it is idle, and then take the next student. Every running case claims
GPU memory: what its [gpu_memory=NGiB] tag declares, else ORDINARY_CASE_GIB (two CUDA contexts, the test's
and the worker's, and small buffers). A case starts only where its claim fits beside the claims of the
cases already running on that GPU, so the cases that need most of a GPU's memory never meet more of
each other than fit.

Some cases run *alone*: nothing else runs on their GPU meanwhile, and they wait until every case that
shares has run. A case that ran beside others and found too little GPU memory (skipped for want of it,
or out of memory: another case's worker may have held it) runs once more, alone, and that verdict is
the one reported: no case is lost to another's. A speed case ([speed]) times the student's
code against the solution's, which only means something on a GPU that does nothing else, and counts
only for an exercise whose other cases all passed: so speed cases start last, once every other case,
second runs included, has its final verdict on every GPU. Feedback cases ([feedback], no points: one
launch timed and profiled) are timed cases too, and run the same way.

Without a GPU nothing is timed and no GPU memory is used: every case shares, whoever's it is.
"""

import threading
import time
from typing import List, Optional

from .cases import Case

ORDINARY_CASE_GIB = 2.0


def beyond_every_gpu(cases: List[Case], free_gib: List[Optional[float]]) -> List[Case]:
    """The cases whose [gpu_memory=NGiB] is more than any of these GPUs has free (a GPU whose memory is
    not known might hold it): they will be skipped, not gradable, and grade says so before it starts.
    One case per exercise and name, whoever's it is."""
    if not free_gib or any(f is None for f in free_gib):
        return []
    largest = max(f for f in free_gib if f is not None)
    beyond = {}
    for case in cases:
        if case.gpu_memory_gib is not None and case.gpu_memory_gib > largest:
            beyond.setdefault((case.exercise, case.name), case)
    return list(beyond.values())


class Schedule:
    def __init__(self, cases: List[Case], budgets_gib: List[Optional[float]], runners_per_gpu: int, gpus: bool):
        """@budgets_gib: the GPU memory each GPU can give to cases (None: not known, no limit);
        @gpus: False when there is none (and @budgets_gib stands for the machine's one place to run)."""
        self._ready = threading.Condition()
        self._budgets = budgets_gib
        self._sharing_gpus = gpus and runners_per_gpu > 1
        # The largest claims first: they wait for room, and the small ones fill in around them.
        self._shared = sorted((c for c in cases if not (gpus and c.timed)), key=lambda c: -self._claim(c, 0))
        self._again: List[Case] = []  # to run a second time, alone
        self._speed = [c for c in cases if gpus and c.timed]
        self._claimed = [0.0] * len(budgets_gib)
        self._running = [0] * len(budgets_gib)
        self._gpus = gpus
        self._student: List[Optional[str]] = [None] * len(budgets_gib)  # whose cases run on each GPU
        self._shared_running = 0  # anywhere: each may yet have to run again, alone
        self._again_running = 0
        self._stopped = False
        self.ran_again = 0  # cases that ran a second time, alone
        self.shared_until: Optional[float] = None  # when the last case that shares ended (time.monotonic)

    def _claim(self, case: Case, gpu: int) -> float:
        claim = case.gpu_memory_gib if case.gpu_memory_gib is not None else ORDINARY_CASE_GIB
        budget = self._budgets[gpu]
        return claim if budget is None else min(claim, budget)  # more than the GPU has: all of it

    def _fits(self, case: Case, gpu: int) -> bool:
        budget = self._budgets[gpu]
        return budget is None or self._claimed[gpu] + self._claim(case, gpu) <= budget

    def _may_join(self, case: Case, gpu: int) -> bool:
        """Whether @case may run on @gpu beside what runs there: only a case of the same student."""
        return not self._gpus or self._running[gpu] == 0 or self._student[gpu] == case.student

    def next_case(self, gpu: int) -> Optional[Case]:
        """The next case for a runner of @gpu (blocks until there is one); None when all have run."""
        with self._ready:
            while not self._stopped:
                for i, case in enumerate(self._shared):
                    if self._fits(case, gpu) and self._may_join(case, gpu):
                        del self._shared[i]
                        case.ran_alone = False
                        self._student[gpu] = case.student
                        self._claimed[gpu] += self._claim(case, gpu)
                        self._running[gpu] += 1
                        self._shared_running += 1
                        return case
                # Alone: once no case that shares is left to start, and nothing runs on this GPU (then
                # nothing else can start on it until this one has finished). Second runs first; speed
                # cases once no verdict anywhere can change any more.
                if not self._shared and self._running[gpu] == 0:
                    if self._again or (self._speed and self._settled()):
                        case = self._again.pop(0) if self._again else self._speed.pop(0)
                        case.ran_alone = True
                        self._running[gpu] += 1
                        self._again_running += not case.timed
                        return case
                if not self._speed and self._settled():
                    return None
                self._ready.wait()
            return None

    def finished(self, gpu: int, case: Case) -> bool:
        """@case has run on @gpu: free its place. True when it found too little GPU memory beside
        others, and so is queued to run again, alone (its verdict is not the final one yet)."""
        with self._ready:
            self._running[gpu] -= 1
            again = False
            if case.ran_alone:
                self._again_running -= not case.timed
            else:
                self._claimed[gpu] -= self._claim(case, gpu)
                self._shared_running -= 1
                again = self._sharing_gpus and case.short_of_memory
                if again:
                    self._again.append(case)
                    self.ran_again += 1
                if not self._shared and self._shared_running == 0:
                    self.shared_until = time.monotonic()
            self._ready.notify_all()
            return again

    def _settled(self) -> bool:
        """Every case but the speed cases has its final verdict (none left to run, none running)."""
        return not self._shared and not self._again and self._shared_running == 0 and self._again_running == 0

    def stop(self):
        """Give no more cases to anyone (grading itself broke)."""
        with self._ready:
            self._stopped = True
            self._ready.notify_all()
