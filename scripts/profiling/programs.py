"""The stage programs of a build, and the arguments each is profiled with.

pmpp_add_chapter (cmake/PmppChapter.cmake) names a stage's program after its chapter and its id:
ch07_03_tiled_halo runs stage 03_tiled_halo of chapter 7. The profiler finds the stage's row in the
program's run record by that id, exactly.
"""
import json
import os
import re
from pathlib import Path

from .errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
METRICS_FILE = ROOT / "profile" / "metrics.json"
STAGE_PROGRAM = re.compile(r"^(ch\d\d)_(\d\d_[A-Za-z0-9_]+)$")
DEFAULT_ARGUMENTS = ["--reps", "1"]


def spec(path=METRICS_FILE):
    """profile/metrics.json: the metric sets and the arguments."""
    return json.loads(Path(path).read_text())


def bin_dir(build_dir):
    """The folder of the built programs; UsageError when there is none."""
    folder = Path(build_dir) / "bin"
    if not folder.is_dir():
        raise UsageError(f"{folder} does not exist: build first (cmake --build {build_dir}) or pass --build-dir")
    return folder


def stage_programs(folder):
    """The names of the stage programs in @p folder, sorted."""
    return sorted(p.name for p in Path(folder).iterdir() if STAGE_PROGRAM.match(p.name) and os.access(p, os.X_OK))


def chapter_and_stage(program):
    """("ch07", "03_tiled_halo") for "ch07_03_tiled_halo"; None for a program that runs no single stage."""
    m = STAGE_PROGRAM.match(Path(program).name)
    return m.groups() if m else None


def arguments(spec_, program):
    """The arguments @p program is profiled with: its own in metrics.json, else its chapter's, else
    one timed repetition at the program's default sizes."""
    table = spec_.get("arguments", {})
    chapter, _ = chapter_and_stage(program)
    return list(table.get(program) or table.get(chapter) or DEFAULT_ARGUMENTS)
