#!/usr/bin/env python3
"""The cgroups of grade's jobs (grader/grading/cgroups.py).

1. Layouts, on stand-in cgroup folders (no root needed): which hierarchies a job's cgroups are made in,
   and which limits are written where, for the layouts grading machines have (cgroup v2 alone; the
   hybrid of older systemd: v1 memory and pids beside a cgroup2 without controllers), and what is said
   where cgroups cannot serve (mounted read-only, as in a container by default; a controller missing;
   none mounted).
2. As root, on this machine's cgroups, through the sandbox as a slot's user: a job's memory limit counts
   what it writes to /dev/shm (which the per-process limit RLIMIT_DATA never sees), and the end of a job
   kills a daemon that left its session, by the cgroup alone, then removes the cgroups.

usage: test_cgroups.py SANDBOX   (exit status 0 when every check holds; part 2 only as root)
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading_runs import processes_of_grading_users  # noqa: E402

from grading import cgroups  # noqa: E402
from grading.isolation import Isolation  # noqa: E402
from grading.processes import run  # noqa: E402
from verdict import verdict  # noqa: E402

GiB = 1 << 30
V2 = "35 24 0:30 / {root}/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate"
V2_READ_ONLY = "801 790 0:30 / {root}/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate"
V1_MEMORY = "35 31 0:32 / {root}/memory rw,relatime - cgroup cgroup rw,memory"
V1_PIDS = "39 31 0:36 / {root}/pids rw,relatime - cgroup cgroup rw,pids"
V1_CPU = "32 31 0:29 / {root}/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct"
UNIFIED = "41 31 0:38 / {root}/unified rw,relatime - cgroup2 cgroup2 rw"
OTHER = "23 1 0:21 / {root}/proc rw,nosuid,nodev,noexec,relatime - proc proc rw"


def stand_in(root: Path, lines, controllers=""):
    """A mountinfo of @lines under @root, and folders for the cgroup2 ones (offering @controllers)."""
    root.mkdir(parents=True)
    for line in lines:
        mount = Path(line.split()[4].format(root=root))
        (mount / cgroups.TREE).mkdir(parents=True, exist_ok=True)
        if " cgroup2 " in line:
            (mount / "cgroup.controllers").write_text(controllers)
            (mount / "cgroup.subtree_control").write_text("cpu memory" if controllers else "")
            (mount / cgroups.TREE / "cgroup.subtree_control").write_text("")
    info = root / "mountinfo"
    info.write_text("".join(line.format(root=root) + "\n" for line in [OTHER, *lines]))
    return cgroups.Layout(cgroups.mounted(str(info)))


def read(path: Path) -> str:
    return path.read_text().strip() if path.exists() else "(none)"


def check_layouts(failures):
    def expect(what, got, wanted):
        if got != wanted:
            failures.append(f"{what}: {got!r}, not {wanted!r}")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v2"
        layout = stand_in(root, [V2], "cpuset cpu io memory hugetlb pids")
        expect("cgroup v2: missing", layout.missing, "")
        expect("cgroup v2: description", layout.describe(), "cgroup v2")
        slot = layout.create(3, GiB, 64)[0]
        expect("cgroup v2: the slot's folders", layout.folders(3), [root / "cgroup" / cgroups.TREE / "slot-3"])
        expect("cgroup v2: controllers enabled at the root", read(root / "cgroup" / "cgroup.subtree_control"), "+pids")
        expect("cgroup v2: controllers enabled in grade's tree",
               read(root / "cgroup" / cgroups.TREE / "cgroup.subtree_control"), "+memory +pids")
        for name, value in (("memory.max", str(GiB)), ("memory.swap.max", "0"), ("pids.max", "64")):
            expect(f"cgroup v2: {name}", read(slot / name), value)
        expect("cgroup v2: slots with a cgroup", layout.slots_left(), {3})
        shutil.rmtree(slot)
        slot = layout.create(3, 0, 64)[0]
        expect("cgroup v2, no memory limit: memory.max", read(slot / "memory.max"), "(none)")

        root = Path(tmp) / "hybrid"
        layout = stand_in(root, [V1_CPU, V1_MEMORY, V1_PIDS, UNIFIED])
        expect("hybrid: missing", layout.missing, "")
        expect("hybrid: description", layout.describe(), "cgroup v1 memory and pids, killed through cgroup v2")
        memory, pids, unified = layout.create(5, GiB, 64)
        expect("hybrid: the slot's folders", [memory, pids, unified],
               [root / h / cgroups.TREE / "slot-5" for h in ("memory", "pids", "unified")])
        for name in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"):
            expect(f"hybrid: {name}", read(memory / name), str(GiB))
        expect("hybrid: pids.max", read(pids / "pids.max"), "64")
        expect("hybrid: files written in the cgroup2 without controllers", sorted(os.listdir(unified)), [])

        for name, lines, controllers, said in (
                ("a container's read-only cgroup2", [V2_READ_ONLY], "memory pids", "mounted read-only"),
                ("cgroup v1 without pids", [V1_MEMORY], "", "no cgroup hierarchy has the pids controller"),
                ("a cgroup2 without memory", [V2], "cpu pids", "no cgroup hierarchy has the memory controller"),
                ("no cgroups", [], "", "no cgroup file system is mounted")):
            layout = stand_in(Path(tmp) / name.replace(" ", "-"), lines, controllers)
            if said not in layout.missing:
                failures.append(f"{name}: says {layout.missing!r}, not {said!r}")


def daemons_started(timeout: float = 10.0):
    """The sleeping daemons of the grading users, waited for: the shell that starts one returns at once,
    and on a loaded machine the daemon may not have become `sleep` yet."""
    deadline = time.monotonic() + timeout
    while True:
        daemons = [p for p in processes_of_grading_users()[1] if p.endswith("(sleep)")]
        if daemons or time.monotonic() > deadline:
            return daemons
        time.sleep(0.05)


def check_real_cgroups(sandbox: str, failures):
    isolation = Isolation(sandbox, 1, [], 64 << 20, 10)
    try:
        if not isolation.cgroups:
            failures.append(f"cgroups cannot serve on this machine: {isolation.missing}")
            return
        number = isolation.slots.numbers[0]
        shm = Path("/dev/shm/pmpp-cgroup-check")
        with isolation.job(0):
            filled = run(isolation.worker_command(0, None) + ["/bin/sh", "-c", f"head -c {256 << 20} /dev/zero > {shm}"],
                         timeout=60)
            size = shm.stat().st_size if shm.exists() else 0
        print(f"writing 256 MiB to /dev/shm under a 64 MiB limit: exit status {filled.returncode}, "
              f"{size >> 20} MiB written")
        if filled.returncode == 0 or size > 64 << 20:
            failures.append(f"a job with a memory limit of 64 MiB wrote {size >> 20} MiB to /dev/shm")
        if shm.exists():
            failures.append(f"{shm} was left after the job")

        with isolation.job(0):
            daemon = "setsid /bin/sleep 600 </dev/null >/dev/null 2>&1 &"
            run(isolation.worker_command(0, None) + ["/bin/sh", "-c", daemon], timeout=60)
            daemons = daemons_started()
            isolation.cgroups.remove(number)  # the cgroup's kill alone, before the one by user
            survivors = [p for p in processes_of_grading_users()[1] if p in daemons]
        print(f"daemons before the cgroup's kill: {daemons}; after: {survivors}")
        if not daemons:
            failures.append("the job left no daemon: this check shows nothing")
        if survivors:
            failures.append(f"a daemon survived the kill of its job's cgroup: {survivors}")
        left = [str(f) for f in isolation.cgroups.folders(number) if f.exists()]
        if left:
            failures.append(f"the job's cgroups were left: {left}")
    finally:
        isolation.close()


def main():
    failures = []
    check_layouts(failures)
    if os.geteuid() == 0:
        check_real_cgroups(sys.argv[1], failures)
    else:
        print("the check on this machine's cgroups needs root: skipped")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
