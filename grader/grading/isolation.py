"""How code under test runs. As root, each concurrent job (a compile, or a runner of test cases) holds a
slot n of this run's (slots.py) with a dedicated system user, pmpp-grader-<n>, created on demand; the
code runs as that user behind pmpp_sandbox (hidden paths in a private mount namespace, a fresh /tmp,
resource limits), in cgroups made for the job (cgroups.py); after every job every process in those
cgroups, then every process of that user (whatever left the cgroups by a way not thought of), is
killed. Not as root, code under test runs as the grading user, and only the resource limits apply.

As root, grade first probes what this needs (a private mount namespace, and cgroups with memory and
process limits that can be killed) and stops where one is missing (WeakIsolation), unless the
instructor accepts grading without it: then it says so and does without (no private mounts: nothing
is hidden; no cgroups: per-process limits and the kill by user alone).

Killed processes must also be reaped: a zombie still counts against its user's process limit. An
orphan goes to the nearest "subreaper" among its ancestors, else to PID 1, and the PID 1 of many
containers (a shell, a bare init) never reaps: a fork bomb's hundreds of zombies would then hold that
user's limit forever, and every later worker of the slot fail to start a thread. So grade, as root,
is the subreaper of everything it starts, and reaps the slot user's orphans after each clean-up."""

import ctypes
import os
import pwd
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import cgroups, interrupt
from .processes import GradingBroke, run, starting
from .slots import Slots

GiB = 1 << 30
USER_PREFIX = "pmpp-grader-"

# Limits, and why. Compiling: nvcc and the host compiler need a few GiB for a large file and a few
# hundred MiB of temporary files; an #include of /dev/zero must hit a limit, not the machine's.
COMPILE_LIMITS = {"--cpu": 600, "--memory": 8 * GiB, "--processes": 256, "--file-size": 1 * GiB,
                  "--open-files": 1024}
# Running: the CUDA runtime's threads and descriptors, with room; no file worth writing; the memory
# limit is set per run (--worker-memory). CPU time stops a process that spins after the case's time
# limit has ended it (a daemon); the wall-clock limit is the case's.
WORKER_LIMITS = {"--processes": 256, "--file-size": 64 << 20, "--open-files": 1024}
# The worker's ends of its channels to the trusted test process (grader/protocol/wire.hpp).
WORKER_DESCRIPTORS = (3, 4, 5)

PRIVATE_MOUNTS, CGROUPS = "private mount namespaces", "cgroups"
HOW_TO_GET = {
    PRIVATE_MOUNTS: "in a container, give grade CAP_SYS_ADMIN: docker run --cap-add SYS_ADMIN, or --privileged",
    CGROUPS: "needs a writable cgroup v2 with the memory and pids controllers available to grade (in a container: "
             "--privileged --cgroupns=host), or writable cgroup v1 memory and pids hierarchies",
}


class WeakIsolation(GradingBroke):
    """As root, code under test cannot be isolated here, and the instructor did not accept that."""


def _ensure_user(name: str) -> Tuple[int, int]:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        result = run([useradd, "--system", "--no-create-home", "--home-dir", "/nonexistent",
                      "--shell", "/usr/sbin/nologin", "--user-group", name], timeout=60)
        if result.returncode != 0:
            raise GradingBroke(f"could not create the user {name}, which runs code under test: "
                               f"{result.output.strip()}")
        entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise GradingBroke(f"the user {name} is root: it cannot run code under test")
    return entry.pw_uid, entry.pw_gid


def _slots_with_users() -> List[int]:
    return [int(p.pw_name[len(USER_PREFIX):]) for p in pwd.getpwall()
            if p.pw_name.startswith(USER_PREFIX) and p.pw_name[len(USER_PREFIX):].isdigit()]


def user_names(numbers: List[int]) -> str:
    """pmpp-grader-0..3, pmpp-grader-6: the users of the slots @numbers, runs of numbers shortened."""
    runs = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{USER_PREFIX}{a}" + (f"..{b}" if b > a else "") for a, b in runs)


def one_line(text: str) -> str:
    return " ".join(text.split())


PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def become_subreaper():
    """Orphans of the processes this one starts come to it, not to PID 1 (see above)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise GradingBroke(f"cannot become the subreaper of the code under test: {os.strerror(ctypes.get_errno())}")


def reap_orphans_of(uid: int):
    """Reap this process's zombie children owned by @uid: orphans of code under test. Never one of our own
    subprocesses (their waits would find nothing): those run as root when the slot is cleaned up."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = dict(line.split(":", 1) for line in Path(f"/proc/{entry}/status").read_text().splitlines()
                          if ":" in line)
        except OSError:
            continue  # gone meanwhile
        if (fields.get("State", "").strip().startswith("Z") and fields.get("PPid", "").strip() == me
                and int(fields.get("Uid", "-1").split()[0]) == uid):
            try:
                os.waitpid(int(entry), os.WNOHANG)
            except ChildProcessError:
                pass  # reaped meanwhile


class Isolation:
    """The sandbox, the slots and the cgroups of one run; slots are named by their index here (0 to
    @slots - 1), whatever numbers they have."""

    def __init__(self, sandbox: str, slots: int, hide: List[Path], worker_memory: int, timeout: float,
                 accept_weaker: bool = False):
        self.sandbox = sandbox
        self.as_root = os.geteuid() == 0
        self.worker_memory = worker_memory
        self.timeout = timeout
        self.hide = self._outermost(hide)
        self.slots: Optional[Slots] = None
        self.users: List[Tuple[int, int]] = []
        self.missing: Dict[str, str] = {}  # what isolation goes without here, and why
        self.cgroups: Optional[cgroups.Layout] = None
        if not self.as_root:
            return
        interrupt.on_interrupt(self.close)
        become_subreaper()
        layout = cgroups.Layout.find()
        self.cgroups = None if layout.missing else layout
        # Claiming cleans every slot nobody holds: what an interrupted run left dies before anything runs.
        self.slots = Slots(slots, set(_slots_with_users()) | layout.slots_left(), self._clean)
        self.users = [_ensure_user(f"{USER_PREFIX}{n}") for n in self.slots.numbers]
        self._probe(layout.missing)
        if self.missing and not accept_weaker:
            self.close()
            raise WeakIsolation("student code cannot be isolated here: " + "; ".join(
                f"no {what} ({why}; {HOW_TO_GET[what]})" for what, why in self.missing.items())
                + ". Pass --accept-weaker-isolation to grade without (grader/README.md says what that gives up)")

    def _probe(self, cgroups_missing: str):
        """Fill in self.missing: try each part of the isolation with /bin/true as the first slot's user."""
        probe = run([self.sandbox, "--user", self._ids(0), "--isolate", "--", "/bin/true"], timeout=60)
        if probe.returncode != 0:
            self.missing[PRIVATE_MOUNTS] = one_line(probe.output) or f"the sandbox exited with {probe.returncode}"
        why = cgroups_missing
        if not why:
            number = self.slots.numbers[0]
            try:
                self.cgroups.create(number, GiB, 16)
                probe = run([self.sandbox, "--user", self._ids(0), *self._cgroup_options(0), "--", "/bin/true"],
                            timeout=60)
                if probe.returncode != 0:
                    why = one_line(probe.output) or f"the sandbox exited with {probe.returncode}"
            except OSError as error:
                why = f"{error.filename}: {error.strerror}"
            finally:
                try:
                    self.cgroups.remove(number)
                except (OSError, GradingBroke) as error:
                    why = why or one_line(str(error))
        if why:
            self.missing[CGROUPS] = why
            self.cgroups = None

    @staticmethod
    def _outermost(paths: List[Path]) -> List[Path]:
        """The real paths, without those inside another one (hiding the outer hides them)."""
        real = sorted({Path(os.path.realpath(p)) for p in paths if p})
        return [p for p in real if str(p) != "/" and not any(q != p and q in p.parents for q in real)]

    def _ids(self, slot: int) -> str:
        uid, gid = self.users[slot]
        return f"{uid}:{gid}"

    def _cgroup_options(self, slot: int) -> List[str]:
        if not self.cgroups:
            return []
        return [option for folder in self.cgroups.folders(self.slots.numbers[slot])
                for option in ("--cgroup", str(folder))]

    def check_visible(self, tools: List[str]):
        """Student code is compiled in the sandbox: the compilers must not lie in a path it hides (a
        toolkit unpacked inside the repository or the build folder, say)."""
        if not self.as_root or PRIVATE_MOUNTS in self.missing:
            return  # nothing is hidden
        for tool in filter(None, tools):
            real = Path(os.path.realpath(tool))
            inside = [h for h in self.hide if h == real or h in real.parents]
            if inside:
                raise GradingBroke(f"the compiler {tool} lies inside {inside[0]}, which student code may not see: "
                                   "use a toolkit installed elsewhere (under /usr/local or /opt, say)")

    def describe(self) -> str:
        if not self.as_root:
            user = pwd.getpwuid(os.geteuid()).pw_name
            return (f"not running as root: student code runs as {user}, the grading user, and the grade is only "
                    "as trustworthy as that (run grade as root to isolate it)")
        text = f"student code runs as {user_names(self.slots.numbers)}"
        if self.cgroups:
            text += f", each job in cgroups of its own ({self.cgroups.describe()})"
        if PRIVATE_MOUNTS not in self.missing:
            text += ", and sees none of: " + ", ".join(str(p) for p in self.hide)
        if self.missing:
            text += "; accepted weaker isolation (--accept-weaker-isolation): " + "; ".join(
                f"WITHOUT {what} ({why})" for what, why in self.missing.items())
        if PRIVATE_MOUNTS in self.missing:
            text += ": paths cannot be hidden from it, so keep the hidden tests readable by root only"
        return text

    def _prefix(self, slot: int, limits: dict, workdir: Optional[Path], gpu: Optional[str] = None) -> List[str]:
        cmd = [self.sandbox]
        if self.as_root:
            cmd += ["--user", self._ids(slot), *self._cgroup_options(slot)]
            if PRIVATE_MOUNTS not in self.missing:
                cmd.append("--isolate")
                for path in self.hide:
                    cmd += ["--hide", str(path)]
                if gpu:
                    cmd += ["--gpu", gpu]
        for option, value in limits.items():
            if option == "--processes" and not self.as_root:
                continue  # counted per user: the grading user's own processes would count too
            cmd += [option, str(value)]
        if workdir is not None:
            cmd += ["--workdir", str(workdir)]
        return cmd

    def _worker_limits(self) -> dict:
        limits = dict(WORKER_LIMITS, **{"--cpu": int(2 * self.timeout + 60)})
        if self.worker_memory > 0:
            limits["--memory"] = self.worker_memory
        return limits

    def compile_command(self, slot: int, workdir: Path, env: List[str]) -> List[str]:
        cmd = self._prefix(slot, COMPILE_LIMITS, workdir)
        for setting in env:
            cmd += ["--env", setting]
        return cmd + ["--"]

    def worker_command(self, slot: int, gpu: Optional[str]) -> List[str]:
        """The sandbox for a worker of @slot that may open the GPU at PCI address @gpu (None: none)."""
        keep = [arg for fd in WORKER_DESCRIPTORS for arg in ("--keep-fd", str(fd))]
        return self._prefix(slot, self._worker_limits(), None, gpu) + keep + ["--"]

    def freeze_cgroup(self, slot: int) -> Optional[str]:
        """The cgroup v2 folder a worker of @slot runs in, which the test process freezes between timed
        calls (trusted/hold_still.hpp); None without one."""
        if not self.cgroups:
            return None
        return next((str(folder) for h, folder in zip(self.cgroups.used, self.cgroups.folders(self.slots.numbers[slot]))
                     if h.version == 2), None)

    def clean_up_command(self, slot: int) -> Optional[List[str]]:
        return [self.sandbox, "--user", self._ids(slot), "--clean-up"] if self.as_root else None

    @contextmanager
    def job(self, slot: int, compiling: bool = False):
        """One job in @slot (a compile, or a test case): in cgroups made for it, with its limits; after
        it, whatever it leaves is ended (clean_up)."""
        if self.cgroups:
            limits = COMPILE_LIMITS if compiling else self._worker_limits()
            try:
                with starting():  # none after grade was interrupted: its clean-up may have run already
                    self.cgroups.create(self.slots.numbers[slot], limits.get("--memory", 0), limits["--processes"])
            except OSError as error:
                raise GradingBroke(f"could not make a cgroup for {USER_PREFIX}{self.slots.numbers[slot]}: "
                                   f"{error.filename}: {error.strerror}")
        try:
            yield
        finally:
            self.clean_up(slot)

    def clean_up(self, slot: int):
        """End every process of the slot (its cgroups', then its user's), remove its cgroups, and remove
        its user's files from /dev/shm."""
        if self.as_root:
            self._clean(self.slots.numbers[slot])

    def _clean(self, number: int):
        if self.cgroups:
            self.cgroups.remove(number)
        try:
            user = pwd.getpwnam(f"{USER_PREFIX}{number}")
        except KeyError:
            return  # not made yet: it never ran anything
        result = run([self.sandbox, "--user", f"{user.pw_uid}:{user.pw_gid}", "--clean-up"], timeout=120)
        if result.returncode != 0:
            raise GradingBroke(f"could not end the processes of {user.pw_name}: {result.output.strip()}")
        reap_orphans_of(user.pw_uid)

    def make_private_dir(self, path: Path, slot: Optional[int] = None):
        """A fresh folder @path: readable by the grading user only, or owned by the slot's user."""
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True, mode=0o700)
        if slot is not None and self.as_root:
            os.chown(path, *self.users[slot])

    def close(self):
        """End what runs in every slot of this run, and let other runs have them: at the end, and when
        grade is interrupted. The slots are given back even where a clean-up failed (the next run that
        claims one cleans it again)."""
        if self.slots is None:
            return
        failed = []
        for number in self.slots.numbers:
            try:
                self._clean(number)
            except GradingBroke as error:
                failed.append(error)
        self.slots.release()
        if failed:
            raise failed[0]
