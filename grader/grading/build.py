"""Configure the repository with CMake and build what grading trusts: the test executables (tests,
references, verdicts), the solutions' workers (the reference for speed cases), the worker's main and
the sandbox. No student code is ever compiled here: that happens in workers.py, in a sandbox."""

import fcntl
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

from .processes import GradingBroke, clip, run

REPO = Path(__file__).resolve().parent.parent.parent


SANDBOX_TARGET = "pmpp_sandbox"


@contextmanager
def building(build: Path):
    """Hold while configuring and building @build: runs of grade at once that share a build folder take
    turns (two CMake runs in one folder would break each other's files)."""
    build.mkdir(parents=True, exist_ok=True)
    fd = os.open(build / "grade.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"grade: waiting for another run of grade that builds in {build}", flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def configure(build: Path, hidden: Optional[Path], log_dir: Path) -> dict:
    """Configure @build (tests on, @hidden as the hidden tests) and return its manifest."""
    cmake = shutil.which("cmake")
    if not cmake:
        raise GradingBroke("cmake is not on PATH")
    cmd = [cmake, "-S", REPO, "-B", build, "-DPMPP_BUILD_TESTS=ON",
           f"-DPMPP_HIDDEN_TESTS_DIR={hidden.resolve() if hidden else ''}"]
    if not (build / "CMakeCache.txt").exists():
        cmd.append("-DCMAKE_BUILD_TYPE=Release")
    result = run(cmd, timeout=900)
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / "configure.log").write_text(result.output)
    if result.returncode != 0:
        errors = result.output[result.output.find("CMake Error"):] if "CMake Error" in result.output else result.output
        raise GradingBroke(f"CMake could not configure {build} (log: {log_dir / 'configure.log'}):\n" + clip(errors, 3000))
    manifest = build / "exercises" / "manifest.json"
    if not manifest.exists():
        raise GradingBroke(f"{manifest} was not written: is this the pmpp-steps repository with tests on?")
    return json.loads(manifest.read_text())


def _build(build: Path, targets, jobs: int, log: Path, what: str):
    result = run([shutil.which("cmake"), "--build", build, "-j", str(jobs), "--target", *targets], timeout=3600)
    log.write_text(result.output)
    if result.returncode != 0:
        raise GradingBroke(f"could not build {what} (log: {log}):\n" + clip(result.output, 3000))


def build_sandbox(build: Path, jobs: int, log_dir: Path):
    """Build the sandbox alone: grade probes what it can do here before it builds anything else."""
    _build(build, [SANDBOX_TARGET], jobs, log_dir / "build-sandbox.log", "the sandbox")


def build_trusted(build: Path, manifest: dict, exercises, jobs: int, log_dir: Path):
    """Build what grading @exercises needs, in one build (so it can use every core)."""
    targets = list(manifest["targets"])
    for e in exercises:
        targets += e["targets"]
    _build(build, targets, jobs, log_dir / "build.log", "the tests")
    for e in exercises:  # speed cases start it as a sandbox user, whatever umask it was built under
        os.chmod(e["reference_worker"], 0o755)
