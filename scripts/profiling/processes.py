"""Running a program with a time limit, its output and errors together."""
import subprocess

TIMEOUT_S = 900
TIMED_OUT = 124  # the status timeout(1) gives, so that a timeout reads the same everywhere


def run(cmd, timeout=TIMEOUT_S, env=None):
    """(exit status, stdout + stderr) of @p cmd (in the environment @p env, else this process's); a
    program that runs past @p timeout reads as 124."""
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=timeout, env=env)
        return done.returncode, done.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return TIMED_OUT, out + f"\n(timed out after {timeout} s)"
    except OSError as e:  # not executable, or gone
        return 126, f"{cmd[0]}: {e.strerror}"


def tail(text, lines=15):
    """The last @p lines lines of @p text, for an error message."""
    return "\n".join(text.strip().splitlines()[-lines:])
