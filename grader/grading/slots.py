"""The sandbox slots a run of grade holds. As root, each concurrent job (a compile, or a runner of test
cases) has a slot n: its user pmpp-grader-<n>, its cgroups, and after each job every process of both is
killed. Two runs at once (two instructors, or two Slurm jobs on one node) must never share a slot, or
each one's clean-up would kill the other's jobs; and a run that was killed (SIGKILL) may have left
processes of its users running, which would reach the next jobs of those users.

So a run claims each slot with an exclusive lock on a file of its own (flock), held for the whole run and
released by the kernel when grade exits however it does, taking the lowest free numbers; and every slot
it can lock, held by no live grade, is cleaned before anything else runs in it: what an interrupted run
left there dies. The locks lie in a folder only root can write to (/run/pmpp-grade, or
/var/lib/pmpp-grade where /run is missing): no user can make or hold them."""

import fcntl
import os
import stat
from pathlib import Path
from typing import Callable, Iterable, List, Optional

from .processes import GradingBroke

LOCK_FOLDERS = (Path("/run/pmpp-grade"), Path("/var/lib/pmpp-grade"))


def _root_only(info: os.stat_result) -> bool:
    return info.st_uid == 0 and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _lock_folder() -> int:
    """A descriptor of the lock folder: made by root, writable by root alone, in a parent as safe."""
    for folder in LOCK_FOLDERS:
        try:
            if not _root_only(os.stat(folder.parent)):
                continue  # a folder others may write to: they could replace ours
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue  # no /run here, or a read-only one
        if _root_only(os.fstat(fd)):
            return fd
        os.close(fd)
        raise GradingBroke(f"{folder} holds the locks of grade's sandbox slots and must be a folder of root's "
                           "that nobody else can write to; it is not: remove it")
    raise GradingBroke(f"no folder for the locks of grade's sandbox slots: cannot make any of "
                       f"{', '.join(str(f) for f in LOCK_FOLDERS)}")


class Slots:
    """The slots this run holds (numbers, lowest free first), locked until release() or exit."""

    def __init__(self, count: int, others: Iterable[int], clean: Callable[[int], None]):
        """Claim @count slots; @clean each one claimed, and each of @others (slots that may hold what an
        earlier run left: their users and cgroups exist) that no live grade holds."""
        self.numbers: List[int] = []
        self._locks: List[int] = []
        folder = _lock_folder()
        try:
            n = 0
            while len(self.numbers) < count:
                lock = self._try(folder, n)
                if lock is not None:
                    self.numbers.append(n)  # before the clean-up: release() cleans what is held
                    self._locks.append(lock)
                    clean(n)
                n += 1
            for n in sorted(set(others) - set(self.numbers)):
                lock = self._try(folder, n)
                if lock is not None:
                    try:
                        clean(n)
                    finally:
                        os.close(lock)
        finally:
            os.close(folder)

    @staticmethod
    def _try(folder: int, n: int) -> Optional[int]:
        """The lock of slot @n, held, or None when another run holds it."""
        fd = os.open(f"slot-{n}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=folder)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            os.close(fd)
            return None

    def release(self):
        """Let other runs have the slots (once their processes and cgroups are gone)."""
        for fd in self._locks:
            os.close(fd)
        self._locks, self.numbers = [], []
