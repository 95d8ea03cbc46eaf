#!/usr/bin/env python3
"""scripts/grade's guard against a machine that cannot compile (grader/grading/workers.py,
require_a_working_compiler), with a stand-in compiler (no toolkit, GPU or root needed): where no
submitted file of an exercise compiled, its solution is compiled in the same sandbox; grading stops
with the compiler's message when that fails too, goes on when it compiles, and goes on where the
repository holds no solution to try.

usage: test_compiler_check.py   (exit status 0 when every check holds)
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grading.processes import GradingBroke  # noqa: E402
from grading.workers import Compiled, require_a_working_compiler  # noqa: E402
from verdict import verdict  # noqa: E402

EXERCISE = {"id": "ex10.1", "chapter": "ch10", "name": "max_reduction"}


class StandInCompiler:
    """Compiles nothing: answers as a working or a broken toolkit would, and remembers what it was given."""

    def __init__(self, works: bool):
        self.works, self.sources = works, []

    def compile(self, slot, exercise, source, destination):
        self.sources.append(source)
        if self.works:
            return Compiled(destination, "", 0.0)
        return Compiled(None, "cc1plus: fatal error: max_reduction.cu: Permission denied", 0.0)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        solutions, scratch = Path(tmp) / "solutions", Path(tmp) / "scratch"
        (solutions / "ch10").mkdir(parents=True)
        (solutions / "ch10" / "max_reduction.cu").write_bytes(b"// the solution")

        broken = StandInCompiler(works=False)
        try:
            require_a_working_compiler(broken, [EXERCISE], solutions, scratch)
            failures.append("a toolkit that cannot compile the solution did not stop grading")
        except GradingBroke as stop:
            if "Permission denied" not in str(stop) or "max_reduction" not in str(stop):
                failures.append(f"the stop does not carry the compiler's message: {stop}")
        if broken.sources != [b"// the solution"]:
            failures.append(f"the solution was not the file compiled: {broken.sources}")

        working = StandInCompiler(works=True)
        require_a_working_compiler(working, [EXERCISE], solutions, scratch)
        if len(working.sources) != 1:
            failures.append("the solution was not compiled where no submitted file compiled")

        untouched = StandInCompiler(works=False)
        require_a_working_compiler(untouched, [], solutions, scratch)
        require_a_working_compiler(untouched, [dict(EXERCISE, name="two_pass_sum")], solutions, scratch)
        if untouched.sources:
            failures.append("a compile was tried where a file compiled, or where there is no solution")

    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
