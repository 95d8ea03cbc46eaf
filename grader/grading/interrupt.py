"""What grade does when it is interrupted: Ctrl-C (SIGINT), a scheduler's time limit (Slurm sends
SIGTERM, and SIGKILL a little later), or its terminal going away (SIGHUP). It kills every process it
runs, ends everything that runs in its slots and removes their cgroups (what the parts registered with
on_interrupt do), says so in one line, and exits with 128 + the signal's number, writing no report.

SIGKILL cannot be caught: then the test processes die with grade (they ask the kernel for that), and
what ran in its slots is ended by the next run of grade, which claims those slots (slots.py)."""

import os
import signal
import sys
from typing import Callable, List

from .processes import stop_all

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_clean_ups: List[Callable[[], None]] = []


def on_interrupt(clean_up: Callable[[], None]):
    """Call @clean_up when grade is interrupted (after every process grade runs is killed)."""
    _clean_ups.append(clean_up)


def install():
    for s in SIGNALS:
        signal.signal(s, _stop)


def _stop(signum, _frame):
    for s in SIGNALS:  # a second Ctrl-C must not cut the clean-up short
        signal.signal(s, signal.SIG_IGN)
    stop_all()
    failed = []
    for clean_up in reversed(_clean_ups):
        try:
            clean_up()
        except Exception as error:  # noqa: B902 - said in the one line below; the rest still runs
            failed.append(" ".join(str(error).split()))
    name = signal.Signals(signum).name
    done = f"; the clean-up failed: {failed[0]}" if failed else "; everything it ran has ended"
    try:
        sys.stdout.flush()
    except Exception:  # noqa: B902 - the main thread may have been writing: then its line is lost
        pass
    os.write(2, f"grade: stopped by {name}, no grades written{done}\n".encode())
    os._exit(128 + signum)
