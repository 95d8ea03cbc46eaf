"""Running a command with a time limit and a cap on what is kept of its output; and stopping every
command grade runs at once, when grade is interrupted (interrupt.py)."""

import os
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional

OUTPUT_LIMIT = 6000  # characters of a test's or a compiler's output kept in the reports


class UsageError(Exception):
    """Bad options: one line, exit status 2."""


class GradingBroke(Exception):
    """Grading itself could not go on (CMake failing, the trusted tests not building): exit status 3."""


class Stopped(Exception):
    """grade is being interrupted: nothing new may start."""


# The processes grade runs now, each the leader of its own session (and process group). Starting one,
# or making a cgroup for a job, holds the lock, so that nothing starts after stop_all() has run: what
# it killed stays killed.
_running = {}
_starting = threading.RLock()
_stopped_by = None  # the thread that stopped everything, which alone may still start the clean-up


@contextmanager
def starting():
    """Hold while starting something that stop_all() must see: raises Stopped once it has run."""
    with _starting:
        if _stopped_by is not None and _stopped_by is not threading.current_thread():
            raise Stopped()
        yield


def start(cmd, **options) -> subprocess.Popen:
    """Popen in a session of its own, known to stop_all() until finished() is called."""
    with starting():
        proc = subprocess.Popen(cmd, start_new_session=True, **options)
        _running[proc.pid] = proc
    return proc


def finished(proc: subprocess.Popen):
    with _starting:
        _running.pop(proc.pid, None)


def stop_all():
    """Kill the process group of every process grade runs now, and let no other thread start one."""
    global _stopped_by
    with _starting:
        _stopped_by = threading.current_thread()
        for pid in list(_running):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@dataclass
class Run:
    returncode: Optional[int]  # None: stopped at the time limit
    output: str
    seconds: float


def read_capped(stream, limit: int, into: list):
    """Read @stream to its end, keeping its first @limit bytes (the rest is read and dropped, so that
    the writer never blocks on a full pipe)."""
    kept, size = [], 0
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        if size < limit:
            kept.append(chunk[: limit - size])
        size += len(chunk)
    into.append(b"".join(kept))


def run(cmd, timeout, cwd=None, env=None, limit=1 << 20, pass_fds=()) -> Run:
    """Run @cmd in its own session; at the time limit, kill its whole process group. At most @limit
    bytes of its output (stdout and stderr together) are kept."""
    began = time.monotonic()
    proc = start([str(c) for c in cmd], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                 stdin=subprocess.DEVNULL, pass_fds=pass_fds)
    output = []
    reader = threading.Thread(target=read_capped, args=(proc.stdout, limit, output), daemon=True)
    reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        finished(proc)
    if code is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    # What it left behind may hold the pipe open: do not wait for it for long.
    reader.join(timeout=5)
    text = output[0].decode("utf-8", "replace") if output else ""
    return Run(code, text, time.monotonic() - began)


def clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-limit // 3:]
    return f"{head}\n[... {len(text) - len(head) - len(tail)} characters cut ...]\n{tail}"
