"""How code under test runs: as root, each concurrent job (a compile or a runner) gets a dedicated
system user, pmpp-grader-<n>, created on demand; the code runs as that user behind pmpp_sandbox
(hidden paths, a fresh /tmp, resource limits), and after every job every process of that user is
killed. Not as root, code under test runs as the grading user, and only the resource limits apply.

Killed processes must also be reaped: a zombie still counts against its user's process limit. An
orphan goes to the nearest "subreaper" among its ancestors, else to PID 1, and the PID 1 of many
containers (a shell, a bare init) never reaps: a fork bomb's hundreds of zombies would then hold that
user's limit forever, and every later worker of the slot fail to start a thread. So grade, as root,
is the subreaper of everything it starts, and reaps the slot user's orphans after each clean-up."""

import ctypes
import os
import pwd
import shutil
from pathlib import Path
from typing import List, Optional, Tuple

from . import interrupt
from .processes import GradingBroke, run

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
    def __init__(self, sandbox: str, slots: int, hide: List[Path], worker_memory: int, timeout: float):
        self.sandbox = sandbox
        self.as_root = os.geteuid() == 0
        self.worker_memory = worker_memory
        self.timeout = timeout
        self.users = [_ensure_user(f"{USER_PREFIX}{n}") for n in range(slots)] if self.as_root else []
        if self.as_root:
            become_subreaper()
            interrupt.on_interrupt(self.clean_up_all)
        self.hide = self._outermost(hide)
        self.private_mounts = ""
        if self.as_root:
            probe = run([sandbox, "--user", self._ids(0), "--isolate", "--", "/bin/true"], timeout=60)
            self.private_mounts = "" if probe.returncode == 0 else probe.output.strip() or "it failed"

    @staticmethod
    def _outermost(paths: List[Path]) -> List[Path]:
        """The real paths, without those inside another one (hiding the outer hides them)."""
        real = sorted({Path(os.path.realpath(p)) for p in paths if p})
        return [p for p in real if str(p) != "/" and not any(q != p and q in p.parents for q in real)]

    def _ids(self, slot: int) -> str:
        uid, gid = self.users[slot]
        return f"{uid}:{gid}"

    def check_visible(self, tools: List[str]):
        """Student code is compiled in the sandbox: the compilers must not lie in a path it hides (a
        toolkit unpacked inside the repository or the build folder, say)."""
        if not self.as_root or self.private_mounts:
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
        text = f"student code runs as {USER_PREFIX}0..{len(self.users) - 1}"
        if self.private_mounts:
            return (text + ", but paths cannot be hidden from it here (no private mount namespace: "
                    f"{self.private_mounts}): keep the hidden tests readable by root only")
        return text + ", which see none of: " + ", ".join(str(p) for p in self.hide)

    def _prefix(self, slot: int, limits: dict, workdir: Optional[Path]) -> List[str]:
        cmd = [self.sandbox]
        if self.as_root:
            cmd += ["--user", self._ids(slot)]
            if not self.private_mounts:
                cmd.append("--isolate")
                for path in self.hide:
                    cmd += ["--hide", str(path)]
        for option, value in limits.items():
            if option == "--processes" and not self.as_root:
                continue  # counted per user: the grading user's own processes would count too
            cmd += [option, str(value)]
        if workdir is not None:
            cmd += ["--workdir", str(workdir)]
        return cmd

    def compile_command(self, slot: int, workdir: Path, env: List[str]) -> List[str]:
        cmd = self._prefix(slot, COMPILE_LIMITS, workdir)
        for setting in env:
            cmd += ["--env", setting]
        return cmd + ["--"]

    def worker_command(self, slot: int) -> List[str]:
        limits = dict(WORKER_LIMITS, **{"--cpu": int(2 * self.timeout + 60)})
        if self.worker_memory > 0:
            limits["--memory"] = self.worker_memory
        return self._prefix(slot, limits, None) + ["--keep-fd", "3", "--keep-fd", "4", "--"]

    def clean_up_command(self, slot: int) -> Optional[List[str]]:
        return [self.sandbox, "--user", self._ids(slot), "--clean-up"] if self.as_root else None

    def clean_up(self, slot: int):
        """End every process of the slot's user and remove its files from /dev/shm."""
        cmd = self.clean_up_command(slot)
        if cmd:
            result = run(cmd, timeout=120)
            if result.returncode != 0:
                raise GradingBroke(f"could not end the processes of {USER_PREFIX}{slot}: {result.output.strip()}")
            reap_orphans_of(self.users[slot][0])

    def make_private_dir(self, path: Path, slot: Optional[int] = None):
        """A fresh folder @path: readable by the grading user only, or owned by the slot's user."""
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True, mode=0o700)
        if slot is not None and self.as_root:
            os.chown(path, *self.users[slot])

    def clean_up_all(self):
        for slot in range(len(self.users)):
            self.clean_up(slot)
