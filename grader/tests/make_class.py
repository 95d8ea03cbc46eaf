#!/usr/bin/env python3
"""Make a class of submissions to grade with `scripts/grade --class`, with the score each one must get
on a GPU that can run every test case (about 18 GB of free GPU memory, e.g. an H100), and check the
grades against it.

  make_class.py make FOLDER [--hidden-tests DIR]
      writes FOLDER/class/<student>/ (one folder per student) and FOLDER/expected.csv (the format of
      grade's grades.csv, less its column results). The class mixes solved, starter, partial, broken and empty submissions and
      one submission per attack in attacks/ (its attacked exercise; every other exercise solved).
      Pass the same --hidden-tests to grade; without it, the expected scores leave hidden tests out.
  make_class.py check EXPECTED_CSV GRADES_CSV
      compares grade's grades.csv with the expected scores, on the exercises it graded (all, or those
      picked with grade's --exercise); exit status 1 on any difference.

Grade such a class as root only: the attack submissions kill every process they can and write
wherever they can, which only grading as root (code under test as a user of its own) contains.
"""

import argparse
import csv
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recipes  # noqa: E402


def plan():
    """(student, {exercise name: "solution" | "starter" | "broken" | None (missing) | Attack}, layout)."""
    every = [e.name for e in recipes.exercises()]
    students = []
    for n in range(1, 9):
        students.append((f"solved-{n:02}", {e: "solution" for e in every}, "chapters"))
    for n in range(1, 6):
        students.append((f"starter-{n:02}", {e: "starter" for e in every}, "chapters"))
    students.append(("ch07-only", {e.name: "solution" if e.chapter == "ch07" else "starter" for e in recipes.exercises()},
                     "chapters"))
    students.append(("ch10-only", {e.name: "solution" if e.chapter == "ch10" else None for e in recipes.exercises()},
                     "chapters"))
    students.append(("every-other", {e: ("solution" if i % 2 == 0 else "starter") for i, e in enumerate(every)},
                     "chapters"))
    students.append(("broken-build", {e: ("broken" if e == "conv3d_tiled" else "solution") for e in every},
                     "chapters"))
    students.append(("loose-files", {e: "solution" for e in every}, "loose"))
    students.append(("repository-copy", {e: "solution" for e in every}, "repository"))
    # The starter code in exercises/, and the repository's solutions/ left next to it: not graded.
    students.append(("repository-with-solutions", {e: "starter" for e in every}, "repository+solutions"))
    students.append(("empty", {e: None for e in every}, "chapters"))
    for a in recipes.attacks():
        students.append((f"attack-{a.name}", {e: (a if e == a.exercise else "solution") for e in every}, "chapters"))
    return students


def earned(choice, points):
    if choice == "solution":
        return points
    if isinstance(choice, recipes.Attack):
        return recipes.allowed_points(choice, points)
    return 0  # starter, broken, missing


def make(folder: Path, hidden):
    hidden_for_attacks = hidden or recipes.HIDDEN_EXAMPLE
    klass = folder / "class"
    shutil.rmtree(klass, ignore_errors=True)
    exercises = recipes.exercises()
    full = {e.name: recipes.points(e, hidden) for e in exercises}
    rows = []
    for student, choices, layout in plan():
        home = klass / student
        home.mkdir(parents=True)
        for e in exercises:
            choice = choices[e.name]
            if choice is None:
                continue
            attack = choice if isinstance(choice, recipes.Attack) else None
            # Solved and attacking files differ from student to student, as in a real class (grade compiles
            # a file that several students submitted once); untouched starter code is the same for all.
            recipes.write_exercise(home, e, "solution" if choice == "broken" else str(choice), hidden_for_attacks,
                                   attack, signed="" if choice == "starter" else student)
            written = home / e.chapter / f"{e.name}.cu"
            if choice == "broken":
                with open(written, "a") as f:
                    f.write("\nthis line is not C++\n")
            if layout == "loose":
                written.rename(home / f"{e.name}.cu")
            elif layout.startswith("repository"):
                (home / "exercises" / e.chapter).mkdir(parents=True, exist_ok=True)
                written.rename(home / "exercises" / e.chapter / f"{e.name}.cu")
                if layout == "repository+solutions":
                    recipes.write_exercise(home / "solutions", e, "solution", hidden_for_attacks)
        for leftover in sorted(home.glob("ch*"), reverse=True):
            if leftover.is_dir() and not any(leftover.iterdir()):
                leftover.rmdir()
        rows.append([student] + [earned(choices[e.name], full[e.name]) for e in exercises])
    with open(folder / "expected.csv", "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["student"] + [e.id for e in exercises] + ["total"])
        for row in rows:
            writer.writerow([row[0]] + [f"{p:g}" for p in row[1:]] + [f"{sum(row[1:]):g}"])
    print(f"{len(rows)} submissions in {klass}; expected scores in {folder / 'expected.csv'}")
    print("grade them (as root) with:")
    options = f" --hidden-tests {hidden}" if hidden else ""
    print(f"  scripts/grade --class {klass} --out {folder / 'grades'}{options}")
    print(f"  {Path(__file__)} check {folder / 'expected.csv'} {folder / 'grades' / 'grades.csv'}")


def check(expected_csv: Path, grades_csv: Path) -> int:
    def read(path):
        with open(path) as f:
            return {row["student"]: row for row in csv.DictReader(f)}

    expected, got = read(expected_csv), read(grades_csv)
    # The exercise columns of grades.csv: not the name, the total, or where the results.json is.
    graded = [c for c in next(iter(got.values()), {}) if c not in ("student", "total", "results")]
    wrong = []
    for student, row in expected.items():
        if student not in got:
            wrong.append(f"{student}: not graded")
            continue
        # Only the exercises graded (grade --exercise may pick some), and their total.
        want = {c: float(row[c]) for c in graded}
        want["total"] = sum(want.values())
        for column, value in want.items():
            if float(got[student][column]) != value:
                wrong.append(f"{student}: {column} is {got[student][column]}, expected {value:g}")
    wrong += [f"{student}: graded, but not in the class" for student in got if student not in expected]
    for line in wrong:
        print(line)
    print(f"{len(expected) - len({w.split(':')[0] for w in wrong})} of {len(expected)} students got exactly the "
          f"expected scores" + ("." if not wrong else f"; {len(wrong)} differences."))
    return 1 if wrong else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("folder", type=Path)
    m.add_argument("--hidden-tests", type=Path)
    c = sub.add_parser("check")
    c.add_argument("expected", type=Path)
    c.add_argument("grades", type=Path)
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder.resolve(), args.hidden_tests.resolve() if args.hidden_tests else None)
        return 0
    return check(args.expected, args.grades)


if __name__ == "__main__":
    sys.exit(main())
