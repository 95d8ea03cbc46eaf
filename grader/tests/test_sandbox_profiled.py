#!/usr/bin/env python3
"""What a worker behind a profiler gets from pmpp_sandbox, and what it still does not: its network
namespace's own loopback is up (--loopback: Nsight Compute talks to the process it profiles over TCP),
but that loopback reaches nothing outside the sandbox; and the profiler is handed the worker by
descriptor (--reach-by-fd), while the worker's folder stays hidden.

usage: test_sandbox_profiled.py SANDBOX   (as root, else exit 77)
Exit status 0 when every check holds.
"""

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from verdict import expect_run, verdict

NOBODY = "65534:65534"
# Listens on the loopback and connects to itself; or, given a port, connects to it.
PROBE = """
import socket, sys
if len(sys.argv) > 1:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
else:
    server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen()
    socket.create_connection(server.getsockname(), timeout=2).close()
print("connected")
"""


def sandbox(tool, options, command):
    return subprocess.run([tool, "--user", NOBODY, *options, "--", *command], capture_output=True, text=True,
                          timeout=60)


def main():
    tool = sys.argv[1]
    if os.geteuid() != 0:
        print("skipped: the sandbox's namespaces need root")
        return 77
    failures = []

    def expect(what, result, status, output):
        expect_run(failures, what, result, status, output)

    python = sys.executable if sys.executable.startswith("/usr/") else "/usr/bin/python3"
    expect("without --loopback there is no network at all, not even loopback",
           sandbox(tool, ["--isolate"], [python, "-c", PROBE]), 1, "Network is unreachable")
    expect("with --loopback a process reaches its own listener on the loopback",
           sandbox(tool, ["--isolate", "--loopback"], [python, "-c", PROBE]), 0, "connected")
    outside = socket.socket()
    outside.bind(("127.0.0.1", 0))
    outside.listen()
    port = str(outside.getsockname()[1])
    expect("the loopback of the sandbox is its own: a listener of the machine cannot be reached",
           sandbox(tool, ["--isolate", "--loopback"], [python, "-c", PROBE, port]), 1, "Connection refused")
    outside.close()
    expect("--loopback needs --isolate", sandbox(tool, ["--loopback"], ["/bin/true"]), 2, "need --isolate")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)
        program = folder / "worker"
        program.write_bytes(Path("/bin/echo").read_bytes())
        program.chmod(0o755)
        hidden = ["--isolate", "--hide", tmp]
        expect("a program in a hidden folder, named as an argument, cannot be started by its path",
               sandbox(tool, hidden, ["/bin/sh", "-c", 'exec "$0" started', str(program)]), 127, "not found")
        expect("handed by descriptor, it starts; its folder stays hidden",
               sandbox(tool, hidden + ["--reach-by-fd", str(program)],
                       ["/bin/sh", "-c", 'exec "$0" started; ls "$1"', str(program), tmp]), 0, "started")
        expect("the descriptor is the argument, not the path",
               sandbox(tool, hidden + ["--reach-by-fd", str(program)], ["/bin/echo", str(program)]), 0,
               "/proc/self/fd/")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
