"""What can go wrong, and the exit status each gives (the same for every command of scripts/profile)."""

EXIT_OK = 0              # every stage profiled
EXIT_FAILED = 1          # a stage failed: its own check, or the profiler
EXIT_USAGE = 2           # bad usage: one line on stderr says what
EXIT_CANNOT_MEASURE = 77  # nothing could be measured here: no GPU, no ncu, or counters not permitted


class UsageError(Exception):
    """The command line asks for something that cannot be: exit status 2."""


class CannotMeasure(Exception):
    """Nothing can be measured on this machine; the message says why and how to fix it: exit status 77."""


class RecordError(ValueError):
    """A program's run record does not hold what the profiler reads from it."""
