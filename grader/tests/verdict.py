"""How the grader's small Python self-checks end: each failed check on a line of its own, a summary
line, and the exit status CTest reads (0 when every check holds)."""

from typing import List


def verdict(failures: List[str]) -> int:
    for f in failures:
        print(f"FAILED: {f}")
    print("every check holds" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0
