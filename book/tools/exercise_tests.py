#!/usr/bin/env python3
"""Write, for every exercise, the list of test cases that grade it with their points, as the book's
exercise pages show it: exercise_exNN_M.md, one fragment per exercise.

An exercise is a file exercises/chNN/<name>.cu whose first comment line reads "Exercise N.M: <title>
... <P> points"; its tests are the TEST_CASEs of tests/exercises/chNN/test_<name>.cpp, each tagged
[points=K]. The points a page shows are the points the grader awards, read from the same tags, and
this script fails when they do not add up to the points the exercise's header announces.

Python 3 standard library only.
"""
import argparse
import pathlib
import re
import sys

from doxygen_text import escape

HEADER = re.compile(r"^//\s*Exercise (\d+)\.(\d+):\s*(.*?)\s{2,}(\d+) points")
TEST_CASE = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"')
POINTS = re.compile(r"\[points=(\d+)\]")


def exercises(project):
    """[(id "ex07.3", title, points, source, tests file)] for every exercise."""
    found = []
    for source in sorted((project / "exercises").glob("ch*/*.cu")):
        first = source.read_text(encoding="utf-8").splitlines()[:3]
        match = next((m for line in first if (m := HEADER.match(line))), None)
        if not match:
            continue
        chapter, number, title, points = match.groups()
        tests = project / "tests" / "exercises" / source.parent.name / f"test_{source.stem}.cpp"
        found.append((f"ex{int(chapter):02d}.{number}", title, int(points), source, tests))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True, type=pathlib.Path, help="the repository root")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="where to write the fragments")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    problems = []
    found = exercises(args.project)
    for ident, title, points, source, tests in found:
        if not tests.is_file():
            problems.append(f"{source}: no tests at {tests}")
            continue
        cases = [(name, sum(int(p) for p in POINTS.findall(tags)))
                 for name, tags in TEST_CASE.findall(tests.read_text(encoding="utf-8"))]
        total = sum(p for _, p in cases)
        if total != points:
            problems.append(f"{ident}: the header of {source.name} announces {points} points, its tests award {total}")
        lines = [f"Graded by {len(cases)} test cases in `{tests.relative_to(args.project).as_posix()}`, "
                 f"{total} points in all:", "", "| points | test case |", "|---:|---|"]
        lines += [f"| {p} | {escape(name)} |" for name, p in cases]
        (args.out / f"exercise_{ident.replace('.', '_')}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for problem in problems:
        print(f"exercise_tests.py: error: {problem}")
    if problems:
        return 1
    print(f"exercise_tests.py: {len(found)} exercise(s) written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
