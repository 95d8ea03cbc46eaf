#!/usr/bin/env python3
"""As root, grade refuses to grade where it cannot isolate student code, unless told to accept that.
Each way isolation can be missing is tried:

- without CAP_SYS_ADMIN (a container started without it, Docker's default) the sandbox cannot make a
  private mount namespace, and a one-line #include of a classmate's file would compile;
- without a cgroup file system (here: unmounted in a mount namespace of grade's own) a job's memory
  limit does not count shared memory, and its processes can be ended only by their user.

Each time grade must stop before building the tests or compiling anything, with exactly one line on
stderr that names what is missing, and exit status 3; with --accept-weaker-isolation it must grade, and
say in its start-up line what it grades without.

Runs as root only, with setpriv (util-linux) or capsh (libcap) to drop the capability, and unshare
(util-linux) for the mount namespace (exit 77 otherwise).

usage: test_refuses_weaker_isolation.py --build-dir DIR
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading_runs import GRADE, SKIPPED, left_behind  # noqa: E402
from verdict import verdict  # noqa: E402


def without_sys_admin():
    """A command prefix that runs what follows without CAP_SYS_ADMIN, for good (dropped from the bounding
    set: no child can get it back), or None."""
    if shutil.which("setpriv"):
        return ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin", "--"]
    if shutil.which("capsh"):  # capsh runs what follows "--" with bash
        return ["capsh", "--drop=cap_sys_admin", "--", "-c", 'exec "$0" "$@"']
    return None


def without_cgroups():
    """A command prefix that runs what follows in a mount namespace without cgroup file systems, or None."""
    if not shutil.which("unshare"):
        return None
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'umount --recursive /sys/fs/cgroup 2>/dev/null || umount --recursive --lazy /sys/fs/cgroup; exec "$0" "$@"']


def check(prefix, missing: str, options, failures):
    """Grade with @prefix before grade: refused for want of @missing, then graded when that is accepted."""
    command = prefix + [sys.executable, str(GRADE), *options]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=900)
    print(f"without {missing}: exit status {refused.returncode}\n{refused.stdout}[stderr]\n{refused.stderr}")
    lines = refused.stderr.strip().splitlines()
    if refused.returncode != 3:
        failures.append(f"without {missing}: grade exited with {refused.returncode}, not 3")
    if len(lines) != 1:
        failures.append(f"without {missing}: grade printed {len(lines)} lines on stderr, not one")
    elif f"no {missing}" not in lines[0] or "--accept-weaker-isolation" not in lines[0]:
        failures.append(f"without {missing}: the line says neither what is missing nor how to grade without it")
    if "build  " in refused.stdout or "compiled" in refused.stdout:
        failures.append(f"without {missing}: grade compiled student code before it stopped")

    accepted = subprocess.run(command + ["--accept-weaker-isolation"], capture_output=True, text=True, timeout=900)
    print(f"without {missing}, accepted: exit status {accepted.returncode}\n{accepted.stdout}"
          f"[stderr]\n{accepted.stderr}")
    if accepted.returncode != 0:
        failures.append(f"without {missing}, accepted: grade exited with {accepted.returncode}, not 0")
    startup = [line for line in accepted.stdout.splitlines() if line.startswith("grade: student code runs as")]
    if not startup or f"WITHOUT {missing}" not in startup[0]:
        failures.append(f"without {missing}, accepted: the start-up line does not say what grading goes without")
    if "build  ex10.1 max_reduction            ok" not in accepted.stdout:
        failures.append(f"without {missing}, accepted: the solution did not compile")
    failures += [f"without {missing}: {f}" for f in left_behind()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", type=Path, required=True)
    args = parser.parse_args()
    no_sys_admin, no_cgroups = without_sys_admin(), without_cgroups()
    if os.geteuid() != 0 or no_sys_admin is None or no_cgroups is None:
        print("skipped: needs root, setpriv or capsh to drop CAP_SYS_ADMIN, and unshare")
        return SKIPPED
    options = ["--solutions", "--exercise", "max_reduction", "--build-dir", str(args.build_dir.resolve()),
               "--jobs", "1"]
    failures = []
    check(no_sys_admin, "private mount namespaces", options, failures)
    check(no_cgroups, "cgroups", options, failures)
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
