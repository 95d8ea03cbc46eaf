"""Which launches of a program to profile.

A stage program checks its result, warms up and then times, launching the same kernels each time; it
may also time stage 01 before its stage, a library after it, or re-run its stage instrumented. Among
the launches of kernels this repository defines, the last repetition is the timed one.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNEL = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)")


def repository_kernels(root=ROOT):
    """Names of the kernels this repository defines (a program also launches cuBLAS, cuDNN and CUB
    kernels for comparison: only ours are candidates)."""
    names = set()
    for source in (Path(root) / "chapters").rglob("*.cu"):
        names.update(KERNEL.findall(source.read_text(errors="replace")))
    return names


def timed_launches(launches, ours):
    """(skip, count) of the timed repetition of the program's own kernels in @p launches."""
    mine = [i for i, l in enumerate(launches)
            if any(re.search(r"\b" + re.escape(n) + r"\b", l.kernel) for n in ours)]
    if not mine:
        mine = list(range(len(launches)))
    group = [mine[i] for i in last_repetition([launches[i].key for i in mine])]
    if group != list(range(group[0], group[-1] + 1)):
        group = [group[-1]]  # interleaved with other kernels: profile the last launch alone
    return group[0], len(group)


def last_repetition(keys, min_repeats=4):
    """Indices of the last repetition of the last run of at least @p min_repeats identical consecutive
    groups (check + 3 warm-ups + 1 timed = 5 with --reps 1); the last launch when there is no such run."""
    n, best = len(keys), None  # (end of the run, period)
    for period in range(1, min(8, n // min_repeats) + 1):
        i = 0
        while i + period <= n:
            j = i
            while j + 2 * period <= n and keys[j:j + period] == keys[j + period:j + 2 * period]:
                j += period
            if (j - i) // period + 1 >= min_repeats:
                if best is None or j + period > best[0]:
                    best = (j + period, period)
                i = j + period
            else:
                i += 1
    if best is None:
        return [n - 1] if n else []
    return list(range(best[0] - best[1], best[0]))


def blocks(grid):
    """Blocks in a grid such as "(512, 512, 1)"."""
    product = 1
    for v in re.findall(r"\d+", grid or ""):
        product *= int(v)
    return product


def largest_of(launches, pattern):
    """Index of the last launch, among those whose kernel matches @p pattern, with the largest grid;
    None when no kernel matches."""
    matching = [i for i, l in enumerate(launches) if re.search(pattern, l.kernel)]
    if not matching:
        return None
    largest = max(blocks(launches[i].grid) for i in matching)
    return [i for i in matching if blocks(launches[i].grid) == largest][-1]


def describe(profiled, skip, total):
    """"launch 6 of 12: kernel grid (64, 64, 1) block (16, 16, 1)" for the profiled launches."""
    kinds = {}
    for l in profiled:
        kinds[l.key] = kinds.get(l.key, 0) + 1
    parts = [f"{k} grid {g} block {b}" + (f" (x{c})" if c > 1 else "") for (k, g, b), c in kinds.items()]
    span = f"{skip + 1}" + (f"-{skip + len(profiled)}" if len(profiled) > 1 else "")
    return f"launch {span} of {total}: " + "; ".join(parts)
