"""The GPUs grading spreads its work over: one runner per GPU, each pinned with CUDA_VISIBLE_DEVICES,
so that test cases (and the speed cases' timings above all) never share a GPU."""

import glob
import os
import shutil
from dataclasses import dataclass
from typing import List, Optional

from .processes import run


@dataclass
class Gpu:
    visible: Optional[str]  # the value of CUDA_VISIBLE_DEVICES for it; None: leave it as it is
    name: str


def gpus() -> List[Gpu]:
    """The GPUs of this machine that CUDA_VISIBLE_DEVICES (when set) allows; empty without any."""
    listed = {}
    smi = shutil.which("nvidia-smi")
    if smi:
        result = run([smi, "--query-gpu=index,uuid,name", "--format=csv,noheader"], timeout=60)
        if result.returncode == 0:
            for line in result.output.splitlines():
                fields = [f.strip() for f in line.split(",", 2)]
                if len(fields) == 3:
                    listed[fields[0]] = fields[2]
                    listed[fields[1]] = fields[2]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        chosen = [v.strip() for v in visible.split(",") if v.strip()]
        chosen = chosen[: chosen.index("-1")] if "-1" in chosen else chosen
        return [Gpu(v, listed.get(v, f"GPU {v}")) for v in chosen]
    indices = [k for k in listed if k.isdigit()]
    if indices:
        return [Gpu(i, listed[i]) for i in sorted(indices, key=int)]
    if glob.glob("/dev/nvidia[0-9]*"):  # a GPU, but no nvidia-smi to list it: use it as it is
        return [Gpu(None, "a GPU (nvidia-smi not found)")]
    return []


def describe(devices: List[Gpu]) -> str:
    if not devices:
        return "no GPU"
    names = sorted({d.name for d in devices})
    if len(names) == 1:
        return f"{len(devices)} x {names[0]}" if len(devices) > 1 else names[0]
    return ", ".join(d.name for d in devices)
