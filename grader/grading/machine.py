"""The GPUs grading spreads its work over, each pinned with CUDA_VISIBLE_DEVICES and the sandbox, with the
GPU memory each has free for test cases, and how many cases to run on each at once by default."""

import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from .processes import run


@dataclass
class Gpu:
    visible: Optional[str]  # the value of CUDA_VISIBLE_DEVICES for it (its UUID); None: leave it as it is
    name: str
    free_gib: Optional[float] = None  # GPU memory free when grading began; None: not known
    bus_id: Optional[str] = None  # its PCI address: the sandbox lets a worker open this GPU alone


def _driver_list() -> List[Gpu]:
    """The GPUs the driver lists in /proc (without nvidia-smi): UUID, model and bus id, no free memory."""
    found = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        fields = {}
        for line in Path(info).read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
        found.append(Gpu(fields.get("GPU UUID"), fields.get("Model", "a GPU"), None, Path(info).parent.name))
    return found


def gpus() -> List[Gpu]:
    """The GPUs of this machine that CUDA_VISIBLE_DEVICES (when set) allows; empty without any. Each is
    named to CUDA by its UUID, which means the same GPU in a process that sees every GPU (the trusted
    test process) and in one that sees that GPU alone (the worker, in its sandbox)."""
    listed = {}  # index and UUID -> the GPU
    smi = shutil.which("nvidia-smi")
    if smi:
        result = run([smi, "--query-gpu=index,uuid,pci.bus_id,memory.free,name", "--format=csv,noheader,nounits"],
                     timeout=60)
        if result.returncode == 0:
            for line in result.output.splitlines():
                fields = [f.strip() for f in line.split(",", 4)]
                if len(fields) == 5:
                    free = float(fields[3]) / 1024 if fields[3].isdigit() else None  # MiB
                    listed[fields[0]] = listed[fields[1]] = Gpu(fields[1], fields[4], free, fields[2])
    if not listed:
        listed = {g.visible: g for g in _driver_list() if g.visible}
        listed.update({str(i): g for i, g in enumerate(listed.values())})
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if not listed and not glob.glob("/dev/nvidia[0-9]*"):
        return []  # no GPU here, whatever CUDA_VISIBLE_DEVICES says (a scheduler may set it regardless)
    if visible is not None:
        chosen = [v.strip() for v in visible.split(",") if v.strip()]
        chosen = chosen[: chosen.index("-1")] if "-1" in chosen else chosen
        return [listed.get(v, Gpu(v, f"GPU {v}")) for v in chosen]
    indices = [k for k in listed if k.isdigit()]
    if indices:
        return [listed[i] for i in sorted(indices, key=int)]
    if glob.glob("/dev/nvidia[0-9]*"):  # a GPU, but nothing to list it: use it as it is
        return [Gpu(None, "a GPU (nvidia-smi not found)")]
    return []


def load_unified_memory_driver():
    """CUDA needs /dev/nvidia-uvm, which the first CUDA program run as root creates (through
    nvidia-modprobe); a worker in its sandbox can create nothing in /dev, so make sure it exists."""
    modprobe = shutil.which("nvidia-modprobe")
    if os.geteuid() == 0 and modprobe and not os.path.exists("/dev/nvidia-uvm"):
        run([modprobe, "-u", "-c=0"], timeout=60)


# The default's limits. Each running case is two busy processes, the test (inputs, CPU references) and
# the worker, with a CUDA context each; it claims 2 GiB of GPU memory (schedule.py), and twice that per
# runner leaves room for the cases that claim more. At most 8, a cautious cap: the GPU time-slices
# between the contexts of the cases it runs, and more of them only get finer slices.
MAX_DEFAULT_RUNNERS_PER_GPU = 8
CPUS_PER_RUNNER = 2
GIB_PER_RUNNER = 4


def default_runners_per_gpu(devices: List[Gpu], cpus: int) -> int:
    """As many cases at once on each GPU as the CPUs can keep busy and its free memory can hold; one
    where its memory is not known."""
    if not devices:
        return 1
    runners = min(MAX_DEFAULT_RUNNERS_PER_GPU, max(1, cpus // (CPUS_PER_RUNNER * len(devices))))
    for d in devices:
        runners = min(runners, max(1, int(d.free_gib // GIB_PER_RUNNER)) if d.free_gib is not None else 1)
    return runners


def describe_memory(devices: List[Gpu]) -> str:
    known = [d.free_gib for d in devices if d.free_gib is not None]
    if not known:
        return "free memory not known"
    return f"{min(known):.1f} GiB free" if len(devices) == 1 else f"at least {min(known):.1f} GiB free each"


def describe(devices: List[Gpu]) -> str:
    if not devices:
        return "no GPU"
    names = sorted({d.name for d in devices})
    if len(names) == 1:
        return f"{len(devices)} x {names[0]}" if len(devices) > 1 else names[0]
    return ", ".join(d.name for d in devices)
