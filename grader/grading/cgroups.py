"""A cgroup for each job of the code under test (a compile, or a test case): made for the job in the
job's slot, with the job's memory and process limits, joined by the sandbox before it starts anything
(--cgroup), and at the end of the job every process in it killed and the cgroup removed.

What a cgroup adds to the sandbox's per-process limits (RLIMIT_*): its memory limit counts the pages of
tmpfs and SysV shared memory its processes touch (a file in /dev/shm is memory that RLIMIT_DATA never
sees), its process limit counts the job's processes only, and everything in it can be killed at once,
a daemon that left its session included.

Two layouts are found on grading machines, read from /proc/self/mountinfo: cgroup v2 alone, with the
memory and pids controllers (systemd machines of recent years); and the hybrid one of older systemd,
with cgroup v1 hierarchies for memory and pids beside a cgroup2 that has no controllers but can still
kill all that is in a cgroup (cgroup.kill). A slot's cgroups are <hierarchy>/pmpp-grade/slot-<n> in
every hierarchy used, at the root of each: the code under test leaves the cgroup grade runs in (and its
limits, a Slurm job's included), and gets the ones set here."""

import errno
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Set

from .processes import GradingBroke

TREE = "pmpp-grade"
CONTROLLERS = ("memory", "pids")
NOT_CONTROLLERS = {"rw", "ro", "noprefix", "clone_children", "xattr", "cpuset_v2_mode", "favordynmods"}
KILL_TIMEOUT = 30  # seconds for a cgroup's processes to die once killed (one in the GPU driver takes a moment)


@dataclass
class Hierarchy:
    mount: Path
    version: int  # 1 or 2
    controllers: Set[str]  # what it offers: a v1 hierarchy's mount options, cgroup.controllers of a v2 root
    writable: bool
    limits: Set[str] = field(default_factory=set)  # the controllers grade sets limits with in it


def mounted(mountinfo: str = "/proc/self/mountinfo") -> List[Hierarchy]:
    """Every cgroup hierarchy mounted here, each once (at the first place it is mounted)."""
    found, seen = [], set()
    for line in Path(mountinfo).read_text().splitlines():
        mine, _, theirs = line.partition(" - ")
        fields, (fstype, _source, options) = mine.split(), theirs.split()[:3]
        if fstype not in ("cgroup", "cgroup2"):
            continue
        mount = Path(fields[4].replace("\\040", " "))
        writable = "rw" in fields[5].split(",") and "rw" in options.split(",")
        if fstype == "cgroup2":
            key, version = "cgroup2", 2
            try:
                controllers = set((mount / "cgroup.controllers").read_text().split())
            except OSError:
                controllers = set()
        else:
            controllers = {o for o in options.split(",") if o not in NOT_CONTROLLERS and "=" not in o}
            key, version = ",".join(sorted(controllers)), 1
        if key not in seen:
            seen.add(key)
            found.append(Hierarchy(mount, version, controllers, writable))
    return found


class Layout:
    """The hierarchies a job's cgroups are made in, or why there are none (missing)."""

    def __init__(self, hierarchies: List[Hierarchy]):
        v2 = next((h for h in hierarchies if h.version == 2), None)
        self.used: List[Hierarchy] = []
        absent = []
        for controller in CONTROLLERS:  # v2 where it has the controller, else a v1 hierarchy of it
            h = v2 if v2 and controller in v2.controllers else next(
                (h for h in hierarchies if h.version == 1 and controller in h.controllers), None)
            if h is None:
                absent.append(controller)
                continue
            h.limits.add(controller)
            if h not in self.used:
                self.used.append(h)
        if v2 and v2 not in self.used:
            self.used.append(v2)  # no controllers grade needs, but cgroup.kill
        read_only = [str(h.mount) for h in self.used if not h.writable]
        if not hierarchies:
            self.missing = "no cgroup file system is mounted"
        elif absent:
            offered = ", ".join(f"{h.mount} offers {', '.join(sorted(h.controllers)) or 'no controller'}"
                                for h in hierarchies)
            names = " and ".join(absent) + (" controllers" if len(absent) > 1 else " controller")
            self.missing = f"no cgroup hierarchy has the {names} ({offered})"
        elif read_only:
            self.missing = f"{', '.join(read_only)} {'is' if len(read_only) == 1 else 'are'} mounted read-only"
        else:
            self.missing = ""

    @classmethod
    def find(cls) -> "Layout":
        return cls(mounted())

    def describe(self) -> str:
        if all(h.version == 2 for h in self.used):
            return "cgroup v2"
        v2 = any(h.version == 2 for h in self.used)
        return "cgroup v1 memory and pids" + (", killed through cgroup v2" if v2 else "")

    def folders(self, slot: int) -> List[Path]:
        """The slot's cgroups, one per hierarchy used: what the sandbox joins."""
        return [h.mount / TREE / f"slot-{slot}" for h in self.used]

    def slots_left(self) -> Set[int]:
        """The slots that have a cgroup now (a job's, or one an interrupted run left)."""
        found = set()
        for h in self.used:
            try:
                names = os.listdir(h.mount / TREE)
            except OSError:
                continue
            found |= {int(n[5:]) for n in names if n.startswith("slot-") and n[5:].isdigit()}
        return found

    def create(self, slot: int, memory: int, processes: int) -> List[Path]:
        """The slot's cgroups for one job, fresh, limited to @memory bytes (0: no limit; swap included)
        and @processes processes and threads. OSError when the cgroup file system refuses."""
        self.remove(slot)  # whatever an earlier job of the slot left
        for h, folder in zip(self.used, self.folders(slot)):
            if h.version == 2 and h.limits:
                # Enabled in the root and in grade's tree, so that the slot's cgroup has the controllers.
                _enable(h.mount, h.limits)
                folder.parent.mkdir(mode=0o755, exist_ok=True)
                _enable(folder.parent, h.limits)
            else:
                folder.parent.mkdir(mode=0o755, exist_ok=True)
            folder.mkdir(mode=0o755)
            if "memory" in h.limits and memory > 0:
                if h.version == 2:
                    _write(folder / "memory.max", memory)
                    _write(folder / "memory.swap.max", 0, optional=True)  # absent where there is no swap
                else:  # memory and swap together (memsw) may not be below memory alone: set memory first
                    _write(folder / "memory.limit_in_bytes", memory)
                    _write(folder / "memory.memsw.limit_in_bytes", memory, optional=True)
            if "pids" in h.limits:
                _write(folder / "pids.max", processes)
        return self.folders(slot)

    def remove(self, slot: int):
        """Kill every process in the slot's cgroups, and remove them (where they exist)."""
        folders = [f for f in self.folders(slot) if f.is_dir()]
        if not folders:
            return
        _kill_all(folders)
        for folder in folders:
            _rmdir(folder)

    def leftovers(self) -> List[Path]:
        """Every slot's cgroup that exists now."""
        return [f for slot in sorted(self.slots_left()) for f in self.folders(slot) if f.is_dir()]


def _write(path: Path, value, optional: bool = False):
    """Write @value to the cgroup file @path; an OSError names the file (the kernel refuses a value at
    the write, whose error names none)."""
    try:
        with open(path, "w") as f:
            f.write(str(value))
    except FileNotFoundError:
        if not optional:
            raise
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(path)) from None


def _enable(folder: Path, controllers: Set[str]):
    enabled = set((folder / "cgroup.subtree_control").read_text().split())
    if not controllers <= enabled:
        _write(folder / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(controllers - enabled)))


def _processes(folders: List[Path]) -> Set[int]:
    pids = set()
    for folder in folders:
        try:
            pids |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
        except FileNotFoundError:
            pass  # removed meanwhile
    return pids


def _kill_all(folders: List[Path]):
    """Kill every process in @folders until none is left: at once through cgroup.kill where a cgroup v2
    has it, else each process (a fork bomb's children appear while it dies: until they stop)."""
    kill = next((f / "cgroup.kill" for f in folders if (f / "cgroup.kill").exists()), None)
    deadline = time.monotonic() + KILL_TIMEOUT
    while True:
        pids = _processes(folders)
        if not pids:
            return
        if time.monotonic() > deadline:
            raise GradingBroke(f"could not end the processes in the cgroup {folders[0]}: {sorted(pids)[:10]} live on")
        if kill:
            _write(kill, 1, optional=True)
        else:
            for pid in pids:
                _kill_in(pid, folders)
        time.sleep(0.01)


def _kill_in(pid: int, folders: List[Path]):
    """Kill @pid if it is (still) in one of @folders: through a descriptor of the process, so that a pid
    the kernel gave to another process meanwhile is never killed."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        # Lines "4:memory:/pmpp-grade/slot-3", the path seen from this cgroup namespace.
        paths = [line.split(":", 2)[-1] for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines()]
        if any(p.endswith(f"/{TREE}/{f.name}") for p in paths for f in folders):
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass  # gone meanwhile
    finally:
        os.close(fd)


def _rmdir(folder: Path):
    """Remove the cgroup @folder (empty of processes by now; one whose last process died a moment ago
    may stay busy a little longer). grade makes no cgroup inside it, and only root could."""
    deadline = time.monotonic() + KILL_TIMEOUT
    while True:
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY or time.monotonic() > deadline:
                raise GradingBroke(f"could not remove the cgroup {folder}: {error.strerror}")
            time.sleep(0.01)
