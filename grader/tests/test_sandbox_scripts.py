#!/usr/bin/env python3
"""pmpp_sandbox runs scripts as well as programs. The compiler grade runs in the sandbox is often a
script: many machines put a wrapper on the PATH (an nvcc that only execs the real one). The sandbox
runs a program from a descriptor it opened before hiding anything, and a script cannot run that way,
so it runs a script by its path instead.

usage: test_sandbox_scripts.py SANDBOX            (no root needed)
       test_sandbox_scripts.py SANDBOX --as-user  (as another user, as grade does; root only, else exit 77)
Exit status 0 when every check holds.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from verdict import expect_run, verdict

NOBODY = "65534:65534"


def sandbox(tool, options, command):
    return subprocess.run([tool, *options, "--", *command], capture_output=True, text=True, timeout=60)


def write_script(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def main():
    tool, as_user = sys.argv[1], "--as-user" in sys.argv[2:]
    if as_user and os.geteuid() != 0:
        print("skipped: running as another user needs root")
        return 77
    failures = []

    def expect(what, result, status, output):
        expect_run(failures, what, result, status, output)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)  # the other user must reach the scripts, whatever the umask
        wrapper = write_script(folder, "wrapper.sh", '#!/bin/sh\necho "ran $0 with $# arguments as $(id -u)"\nexit 7\n')
        no_interpreter = write_script(folder, "broken.sh", "#!/no/such/interpreter\n")
        user = ["--user", NOBODY] if as_user else []
        expect("a script runs by its path, with its arguments, and its exit status comes back",
               sandbox(tool, user, [wrapper, "a", "b"]), 7,
               f"ran {wrapper} with 2 arguments as {65534 if as_user else os.geteuid()}")
        expect("a program still runs", sandbox(tool, user, ["/bin/echo", "program ran"]), 0, "program ran")
        expect("a script whose interpreter is missing is a setup failure that names the script",
               sandbox(tool, user, [no_interpreter]), 125, f"cannot run {no_interpreter} (a script, run by its path)")
        if as_user:
            expect("a script under a hidden path does not run",
                   sandbox(tool, user + ["--isolate", "--hide", tmp], [wrapper]), 125,
                   f"cannot run {wrapper} (a script, run by its path)")

    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
