"""Compiling a student's worker: the student's .cu file, linked with the exercise's remote functions
and the worker's main (objects the trusted build made), compiled by nvcc *in the sandbox*, as the
job's user, in a folder holding only what it needs. A compiler runs whatever the source names
(#include, .incbin), so compiling is treated as running: nothing secret is visible to it."""

import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .isolation import Isolation
from .processes import GradingBroke, clip, run

HEADER_SUFFIXES = (".hpp", ".cuh", ".h")
MAX_WORKER_BYTES = 1 << 30
COMPILE_TIMEOUT = 600


@dataclass
class Compiled:
    worker: Optional[Path]  # None: it did not compile
    log: str
    seconds: float


class WorkerCompiler:
    def __init__(self, manifest: dict, isolation: Isolation, scratch: Path):
        self.build = manifest["worker_build"]
        self.isolation = isolation
        self.scratch = scratch
        # The kit every compile gets a copy of: the interface headers, the worker's objects, libraries.
        self.kit = scratch / "kit"
        include = self.kit / "include"
        for folder in self.build["include_dirs"]:
            for path in Path(folder).rglob("*"):
                if path.suffix in HEADER_SUFFIXES and path.is_file():
                    target = include / path.relative_to(folder)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, target)
        (self.kit / "objects").mkdir(parents=True)
        for n, obj in enumerate(self.build["runtime_objects"]):
            shutil.copyfile(obj, self.kit / "objects" / f"runtime_{n}.o")
        (self.kit / "lib").mkdir()
        for lib in self.build["libraries"]:
            shutil.copyfile(lib, self.kit / "lib" / Path(lib).name)
        for root, dirs, files in os.walk(self.kit):
            for d in dirs:
                os.chmod(Path(root) / d, 0o755)
            for f in files:
                os.chmod(Path(root) / f, 0o644)
        os.chmod(self.kit, 0o755)

    def compile(self, slot: int, exercise: dict, source: bytes, destination: Path) -> Compiled:
        start = time.monotonic()
        staging = self.scratch / "compile" / f"slot{slot}"
        self.isolation.make_private_dir(staging, slot)
        shutil.copytree(self.kit, staging / "kit", symlinks=True)
        # What the slot's user reads is made readable here, whatever grade's umask (077 on some machines).
        for n, obj in enumerate(exercise["calls_objects"]):
            os.chmod(shutil.copyfile(obj, staging / "kit" / "objects" / f"calls_{n}.o"), 0o644)
        name = f"{exercise['name']}.cu"
        (staging / name).write_bytes(source)
        os.chmod(staging / name, 0o644)

        nvcc = self.build["nvcc"]
        cmd = self.isolation.compile_command(slot, staging, [
            f"PATH={os.path.dirname(nvcc)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"])
        cmd += [nvcc]
        if self.build["host_compiler"]:
            cmd += ["-ccbin", self.build["host_compiler"]]
        cmd += ["-std=c++17", *self.build["flags"], *self.build["architectures"], "-Xcompiler=-Wall,-Wextra",
                "-I", "kit/include", "-o", "worker", name]
        cmd += sorted(f"kit/objects/{o}" for o in os.listdir(staging / "kit" / "objects"))
        cmd += sorted(f"kit/lib/{lib}" for lib in os.listdir(staging / "kit" / "lib"))
        with self.isolation.job(slot, compiling=True):
            result = run(cmd, timeout=COMPILE_TIMEOUT, cwd=staging)
        log = result.output
        if result.returncode is None:
            log += f"\n(stopped: compiling took more than {COMPILE_TIMEOUT} s)"
        worker = self._take(staging / "worker", destination) if result.returncode == 0 else None
        if result.returncode == 0 and worker is None:
            log += "\n(the compiler reported success, but left no usable program)"
        shutil.rmtree(staging, ignore_errors=True)
        return Compiled(worker, log, time.monotonic() - start)

    @staticmethod
    def _take(built: Path, destination: Path) -> Optional[Path]:
        """Copy the worker out of the staging folder (which its user controls): a regular file only,
        never through a link, into a folder of the grading user's."""
        try:
            fd = os.open(built, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_WORKER_BYTES:
                return None
            destination.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with open(destination, "wb") as out:
                shutil.copyfileobj(f, out)
        os.chmod(destination, 0o755)
        return destination


def require_a_working_compiler(compiler: WorkerCompiler, none_compiled, solutions: Path, scratch: Path):
    """A toolkit or sandbox that cannot compile fails every student alike, which would read as a class
    of which nobody's file compiled. So for each exercise of @none_compiled (no submitted file of it
    compiled), its solution must compile in the same sandbox, or grading stops with what the compiler
    said."""
    for e in none_compiled:
        solution = solutions / e["chapter"] / f"{e['name']}.cu"
        if not solution.is_file():
            continue  # a copy of the repository without the solutions
        control = compiler.compile(0, e, solution.read_bytes(), scratch / "control" / e["name"])
        if not control.worker:
            raise GradingBroke(f"no submitted {e['name']}.cu compiled, and neither does the solution in the same "
                               "sandbox: the compiler or the sandbox is broken on this machine, and no grade "
                               f"would mean anything. The compiler said:\n{clip(control.log, 3000)}")
