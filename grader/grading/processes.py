"""Running a command with a time limit and a cap on what is kept of its output."""

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Optional

OUTPUT_LIMIT = 6000  # characters of a test's or a compiler's output kept in the reports


class UsageError(Exception):
    """Bad options: one line, exit status 2."""


class GradingBroke(Exception):
    """Grading itself could not go on (CMake failing, the trusted tests not building): exit status 3."""


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
    start = time.monotonic()
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                            pass_fds=pass_fds)
    output = []
    reader = threading.Thread(target=read_capped, args=(proc.stdout, limit, output), daemon=True)
    reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    if code is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    # What it left behind may hold the pipe open: do not wait for it for long.
    reader.join(timeout=5)
    text = output[0].decode("utf-8", "replace") if output else ""
    return Run(code, text, time.monotonic() - start)


def clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-limit // 3:]
    return f"{head}\n[... {len(text) - len(head) - len(tail)} characters cut ...]\n{tail}"
