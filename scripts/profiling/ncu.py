"""Running Nsight Compute (ncu) on a program and reading the CSV it reports, one row per kernel launch."""
import csv
import re
import shutil
from pathlib import Path

from .errors import CannotMeasure, UsageError
from .processes import run

NO_GPU_LINE = "no CUDA-capable GPU on this machine"  # what pmpp::gpu_or_explain prints
PERMISSION_FIX = """\
Nsight Compute may not read this GPU's performance counters (ERR_NVGPUCTRPERM). Either
  - run the profile as root (sudo scripts/profile ...), or
  - allow every user to profile: as root, create /etc/modprobe.d/nvidia-profiling.conf containing
      options nvidia NVreg_RestrictProfilingToAdminUsers=0
    then rebuild the initramfs (update-initramfs -u) and reboot, or reload the nvidia module.
  (In a container, start it with --cap-add SYS_ADMIN.)"""
NOT_INSTALLED = ("Nsight Compute (ncu) is not installed or not on PATH; it comes with the CUDA toolkit "
                 "(nsight-compute). Pass --ncu PATH if it is elsewhere.")

# Where the CUDA toolkit puts ncu when it is not on PATH (newest version first).
TOOLKIT_PLACES = [(Path("/usr/local/cuda/bin"), "ncu"), (Path("/opt/nvidia/nsight-compute"), "*/ncu"),
                  (Path("/usr/local/cuda"), "nsight-compute*/ncu")]

# Values are brought to bytes and nanoseconds whatever unit ncu printed them in.
UNIT_SCALE = {"byte": 1, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
              "nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}


def find(explicit=None):
    """The ncu to run: @p explicit (a name on PATH or a file), else ncu on PATH, else the toolkit's; None
    when there is none."""
    if explicit:
        found = shutil.which(explicit) or (explicit if Path(explicit).is_file() else None)
        if found is None:
            raise UsageError(f"--ncu {explicit}: no such program")
        return found
    found = shutil.which("ncu")
    if found:
        return found
    for folder, pattern in TOOLKIT_PLACES:
        for candidate in sorted(folder.glob(pattern), reverse=True):
            if candidate.is_file():
                return str(candidate)
    return None


def version(ncu):
    """The last line of `ncu --version`, or "version unknown"."""
    status, text = run([ncu, "--version"], timeout=60)
    return text.strip().splitlines()[-1] if status == 0 and text.strip() else "version unknown"


class Launch(dict):
    """One kernel launch as ncu reported it: {column: text}, with the units row of the report."""

    def __init__(self, row, units):
        super().__init__(row)
        self.units = units

    def _first(self, names):
        return next((self[n] for n in names if self.get(n)), "")

    @property
    def kernel(self):
        return self._first(("Kernel Name", "Function Name", "Demangled Name", "Mangled Name"))

    @property
    def grid(self):
        return self._first(("Grid Size", "launch__grid_size"))

    @property
    def block(self):
        return self._first(("Block Size", "launch__block_size"))

    @property
    def key(self):
        """What makes two launches the same: kernel, grid and block."""
        return (self.kernel, self.grid, self.block)

    def value(self, metric):
        """The metric as a number in bytes or nanoseconds, or None when ncu gave none."""
        text = (self.get(metric) or "").strip().replace(",", "")
        try:
            number = float(text)
        except ValueError:
            return None
        unit = (self.units.get(metric) or "").strip().lower()
        return number * UNIT_SCALE.get(unit, 1)


def options(metrics):
    """ncu's options for a CSV report of @p metrics (names), the same wherever this project profiles
    (here, and grade's feedback cases): caches flushed before every replay pass (as the programs flush
    L2 before each timed sample); clocks left to the GPU, so that durations compare with the programs'
    own timings."""
    return ["--csv", "--page", "raw", "--print-units", "base", "--cache-control", "all", "--clock-control", "none",
            "--metrics", ",".join(metrics)]


def parse(text):
    """The kernel launches of a CSV report in @p text: its quoted lines, a header, a row of units, then
    one row per launch; anything else in @p text (the program's output, ncu's own messages) is skipped."""
    rows, units = [], {}
    for row in csv.DictReader(line for line in text.splitlines() if line.startswith('"')):
        if (row.get("ID") or "").strip().isdigit():
            rows.append(row)
        else:
            units = row  # the units row under the header
    return [Launch(r, units) for r in rows]


def collect(ncu, program, args, metrics, workdir, skip=None, count=None, timeout=None):
    """Profile @p program @p args under ncu with @p metrics (names), optionally only launches
    skip+1 .. skip+count. Returns (exit status, the program's output, [Launch], ncu's log)."""
    log = Path(workdir) / "ncu.log"
    if log.exists():
        log.unlink()
    cmd = [ncu, "--log-file", str(log)] + options(metrics)
    if skip is not None:
        cmd += ["--launch-skip", str(skip), "--launch-count", str(count)]
    status, output = run(cmd + [str(program)] + list(args), **({"timeout": timeout} if timeout else {}))
    text = log.read_text(errors="replace") if log.exists() else ""
    # The report goes to the log; should an ncu version print it with the program's output instead,
    # it is still the only text made of quoted CSV lines.
    return status, output, parse(text) or parse(output), text


def raise_if_cannot_measure(output, log, program):
    """CannotMeasure when the counters may not be read or there is no GPU: the reason and the fix."""
    both = output + "\n" + log
    if "ERR_NVGPUCTRPERM" in both:
        raise CannotMeasure(PERMISSION_FIX)
    if NO_GPU_LINE in both:
        raise CannotMeasure(f"{Path(program).name}: {NO_GPU_LINE}; nothing to profile.")


def rejected_metric(log, names):
    """The metric of @p names an ncu error message in @p log rejects, or None."""
    pattern = r"(?:Failed to find metric|[Uu]nknown metric|[Ii]nvalid metric)[^A-Za-z0-9_]*([A-Za-z0-9_.]+)"
    for m in re.finditer(pattern, log):
        if m.group(1) in names:
            return m.group(1)
    return next((n for n in names if re.search(r"==ERROR==.*" + re.escape(n), log)), None)
