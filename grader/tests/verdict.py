"""How the grader's small Python self-checks end: each failed check on a line of its own, a summary
line, and the exit status CTest reads (0 when every check holds); and the check most of them make."""

from typing import List


def verdict(failures: List[str]) -> int:
    for f in failures:
        print(f"FAILED: {f}")
    print("every check holds" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


def expect_run(failures: List[str], what: str, result, status: int, output: str):
    """Add @what to @failures unless the finished process @result exited with @status and printed
    @output (on stdout or stderr)."""
    text = result.stdout + result.stderr
    if result.returncode != status or output not in text:
        failures.append(f"{what}: exit {result.returncode} (expected {status}), printed {text.strip()!r}")
