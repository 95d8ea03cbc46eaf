"""Submissions made from recipes, for the attack suite (run_attacks.py) and the class of 30
(make_class.py): copies of the starter code or the solutions, and attacks (attacks/*.cu: a header
saying what each does and what it may earn, then code appended to its base after attacks/kit.inc and
the parts its header names)."""

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).resolve().parent / "attacks"
HIDDEN_EXAMPLE = REPO / "tests" / "exercises" / "hidden_example"
POINTS_TAG = re.compile(r"\[points=(\d+(?:\.\d+)?)\]")


@dataclass
class Exercise:
    id: str  # ex10.1
    chapter: str  # ch10
    name: str  # max_reduction


@dataclass
class Attack:
    name: str
    what: str
    exercise: str  # the exercise's name
    base: str  # starter, solution, none, or "symlink to <path>"
    earns: str  # "nothing", "as the solution", or "all but speed" (the solution's points but its [speed] cases')
    text: str
    parts: List[str]  # files of attacks/ it is built on, after kit.inc ("// with: a.inc b.inc")


def exercises() -> List[Exercise]:
    """Every exercise, from exercises/Exercises.cmake (the one list)."""
    text = (REPO / "exercises" / "Exercises.cmake").read_text()
    block = re.search(r"set\(PMPP_EXERCISES\s+(.*?)\)", text, re.S).group(1)
    return [Exercise(f"ex{c[2:]}.{n}", c, name) for c, n, name in re.findall(r"(ch\d+):(\d+):(\w+)", block)]


def exercise_named(name: str) -> Exercise:
    return next(e for e in exercises() if e.name == name)


def points(e: Exercise, hidden: Optional[Path]) -> float:
    """Every point of the exercise's tests (visible, and hidden ones in @hidden)."""
    files = [REPO / "tests" / "exercises" / e.chapter / f"test_{e.name}.cpp"]
    if hidden and (hidden / e.chapter / f"test_{e.name}.cpp").exists():
        files.append(hidden / e.chapter / f"test_{e.name}.cpp")
    return sum(float(p) for f in files for p in POINTS_TAG.findall(f.read_text()))


def speed_points(e: Exercise) -> float:
    """The points of the exercise's visible [speed] cases."""
    text = (REPO / "tests" / "exercises" / e.chapter / f"test_{e.name}.cpp").read_text()
    return sum(float(p) for line in text.splitlines() if "[speed]" in line for p in POINTS_TAG.findall(line))


def allowed_points(attack: Attack, solution_points: float) -> float:
    """What @attack may earn where the solution earns @solution_points."""
    if attack.earns == "nothing":
        return 0.0
    if attack.earns == "all but speed":  # where the solution earns nothing (no GPU), nothing either
        return max(0.0, solution_points - speed_points(exercise_named(attack.exercise)))
    return solution_points


def attacks() -> List[Attack]:
    found = []
    for path in sorted(ATTACKS.glob("*.cu")):
        text = path.read_text()
        fields: Dict[str, str] = {}
        key = None
        for line in text.splitlines():
            m = re.match(r"// (attack|exercise|base|earns|with): ?(.*)", line)
            if m:
                key = m.group(1)
                fields[key] = m.group(2).strip()
            elif key == "attack" and re.match(r"//\s{2,}", line):
                fields["attack"] += " " + line[2:].strip()
            else:
                key = None
        found.append(Attack(path.stem, fields["attack"], fields["exercise"], fields["base"], fields["earns"], text,
                            fields.get("with", "").split()))
    return found


def write_exercise(folder: Path, e: Exercise, kind: str, hidden: Path, attack: Optional[Attack] = None,
                   signed: str = ""):
    """Put exercise @e into a student's @folder, as <chapter>/<name>.cu: the "solution", the
    "starter" code, or @attack (@hidden replaces @HIDDEN_TESTS@ in it). A @signed file ends with a
    comment naming its author, as students' files differ even where their code is the same."""
    target = folder / e.chapter / f"{e.name}.cu"
    target.parent.mkdir(parents=True, exist_ok=True)
    signature = f"\n// submitted by {signed}\n" if signed else ""
    if attack is None:
        source = REPO / ("solutions" if kind == "solution" else "exercises") / e.chapter / f"{e.name}.cu"
        target.write_text(source.read_text() + signature)
        return
    if attack.base.startswith("symlink to "):
        os.symlink(attack.base[len("symlink to "):].replace("@HIDDEN_TESTS@", str(hidden)), target)
        return
    base = "" if attack.base == "none" else (REPO / ("solutions" if attack.base == "solution" else "exercises")
                                             / e.chapter / f"{e.name}.cu").read_text()
    kit = "\n".join((ATTACKS / name).read_text() for name in ["kit.inc", *attack.parts])
    target.write_text(base + "\n" + kit + "\n" + attack.text.replace("@HIDDEN_TESTS@", str(hidden)) + signature)
