"""What limits a kernel, from a second set of counters (profile/metrics.json, "limiters"): pipe
utilization (the tensor pipe's in the verdict only: the busy-units table has no room for it), issue
slots, DRAM throughput, clock, occupancy and stall reasons.

The verdict follows fixed rules (limiter_verdict), so that two recordings are judged alike. The
recorded table is split in three that share their row numbers (verdict, busy units, stalls), so that
each fits a page 1280 px wide.
"""
import re

from .formatting import fixed, significant

STALL_MEANING = {
    "stall_long_scoreboard": "waiting for global memory",
    "stall_short_scoreboard": "waiting for shared memory",
    "stall_barrier": "waiting at barriers",
    "stall_no_instruction": "instruction-cache misses",
    "stall_lg_throttle": "load/store queue full (too many load instructions)",
    "stall_mio_throttle": "shared-memory queue full",
    "stall_math_pipe_throttle": "math pipe busy",
    "stall_not_selected": "ready, another warp issued",
}
LONGEST_WORD = 48  # a kernel name's longest unbroken part shown in a table (about 350 px on a page)


def top_stalls(m, n=3):
    """The @p n largest stall reasons as (key, warps per issued instruction), largest first."""
    stalls = [(k, m[k]) for k in STALL_MEANING if m.get(k) is not None]
    return sorted(stalls, key=lambda kv: -kv[1])[:n]


def limiter_verdict(m):
    """The limiter the counters point to, in a few words. The rules, in order: DRAM at 70 % of peak or
    more is DRAM bandwidth, unless issue slots are at 90 % or more and busier than DRAM; the tensor pipe
    busy in 50 % of the cycles or more is the tensor cores (a tensor-core kernel issues few
    instructions, so issue slots cannot show it); the FMA pipe at 55 % or more, or issue slots at 80 %
    or more, is instruction issue (with the FMA share of what issued: the rest is overhead); the
    load/store pipe at 60 % or more is memory instructions (shared and global); under 10 us is launch
    latency; otherwise the largest stall reason says what the warps wait for."""
    dram, issue, fma, lsu = m.get("dram_pct"), m.get("issue_pct"), m.get("fma_pct"), m.get("lsu_pct")
    tensor = m.get("tensor_pct")
    t_us = None if m.get("time_ns") is None else m["time_ns"] / 1e3
    # Where both are high (a filter whose DRAM and FP32 floors meet), the nearly full issue slots decide.
    issue_first = issue is not None and issue >= 90 and (dram is None or issue > dram)
    if dram is not None and dram >= 70 and not issue_first:
        return f"DRAM bandwidth ({dram:.0f} % of peak)"
    if tensor is not None and tensor >= 50:
        return f"tensor cores (their pipe busy {tensor:.0f} % of the cycles, issue slots {fixed(issue, 0)} %)"
    if (fma is not None and fma >= 55) or (issue is not None and issue >= 80):
        share = f", {100 * fma / issue:.0f} % of it FMA" if fma is not None and issue else ""
        return f"instruction issue ({fixed(issue, 0)} % of issue slots used{share})"
    if lsu is not None and lsu >= 60:
        return f"load/store pipe ({lsu:.0f} % busy with memory instructions, shared and global)"
    if t_us is not None and t_us < 10:
        return f"launch latency ({t_us:.1f} us in all)"
    stalls = top_stalls(m, 1)
    if stalls:
        key, value = stalls[0]
        return f"latency: {STALL_MEANING[key]} ({value:.1f} warps per issue); DRAM at {fixed(dram, 0)} %"
    return "-"


def _without_long_templates(name, longest=24):
    """"DeviceReduceKernel<policy_hub<...>>" as "DeviceReduceKernel<...>" when its arguments are long."""
    start = name.find("<")
    if start < 0:
        return name
    depth, end = 0, len(name)
    for i in range(start, len(name)):
        depth += {"<": 1, ">": -1}.get(name[i], 0)
        if depth == 0:
            end = i
            break
    if end - start - 1 <= longest:
        return name
    return name[:start] + "<...>" + name[end + 1:]


def short_kernel(name):
    """A kernel's name as a table shows it: no "void", no parameters, long template arguments elided and
    no unbroken part longer than LONGEST_WORD (the recording keeps the name as ncu gave it)."""
    name = re.sub(r"^void\s+", "", re.sub(r"\(.*", "", name)).strip()
    words = []
    for word in _without_long_templates(name).split(" "):
        if len(word) > LONGEST_WORD:
            cut = word.rfind("_", 0, LONGEST_WORD)
            word = word[:cut + 1 if cut > 0 else LONGEST_WORD - 3] + "..."
        words.append(word)
    return " ".join(words)


def _stalls(m):
    return ", ".join(f"{STALL_MEANING[k].split(' (')[0]} {v:.1f}" for k, v in top_stalls(m)) or "-"


def _ms(m):
    return significant(None if m.get("time_ns") is None else m["time_ns"] / 1e6)


def _ghz(m):
    return fixed(None if m.get("sm_clock") is None else m["sm_clock"] / 1e9, 2)


# The three tables: (introduction, columns, right-aligned column indices, the column a terminal prints
# beneath its row, cells of one kernel).
TABLES = [
    ("What limits each kernel, and the time it took:",
     ("#", "program and arguments", "kernel", "ms", "limited by"), (0, 3), 4,
     lambda n, e, m: [str(n), f"{e['program']} {e['arguments']}", short_kernel(e["kernel"]), _ms(m),
                      limiter_verdict(m)]),
    ("How busy each unit was, in % of the peak it could sustain while the kernel ran (DRAM throughput, "
     "issue slots, the FMA, load/store and shared pipes; occupancy: of the SM's warp slots), and the clock "
     "in GHz:",
     ("#", "kernel", "DRAM", "issue", "FMA", "LSU", "shared", "occupancy", "GHz"), (0, 2, 3, 4, 5, 6, 7, 8), None,
     lambda n, e, m: [str(n), short_kernel(e["kernel"])] + [fixed(m.get(k), 1) for k in (
         "dram_pct", "issue_pct", "fma_pct", "lsu_pct", "shared_pct", "warps_pct")] + [_ghz(m)]),
    ("What the warps waited for: the three largest stall reasons, in warps waiting per issued instruction:",
     ("#", "kernel", "top stalls (warps per issue)"), (0,), None,
     lambda n, e, m: [str(n), short_kernel(e["kernel"]), _stalls(m)]),
]


def tables(entries, shown=None):
    """[(introduction, columns, right, detail, rows)] for the recorded kernels @p entries, numbered from 1;
    only those for which @p shown(entry) is true, when given (keeping their numbers)."""
    numbered = [(n, e) for n, e in enumerate(entries, 1) if shown is None or shown(e)]
    return [(intro, columns, right, detail, [cells(n, e, e["metrics"]) for n, e in numbered])
            for intro, columns, right, detail, cells in TABLES]


def summary(entry):
    """One kernel in a sentence, for the terminal while --limiters runs."""
    m = entry["metrics"]
    return (f"{short_kernel(entry['kernel'])}: {_ms(m)} ms at {_ghz(m)} GHz; DRAM {fixed(m.get('dram_pct'), 1)} %, "
            f"issue {fixed(m.get('issue_pct'), 1)} %, FMA {fixed(m.get('fma_pct'), 1)} %, LSU "
            f"{fixed(m.get('lsu_pct'), 1)} %, shared {fixed(m.get('shared_pct'), 1)} %, tensor "
            f"{fixed(m.get('tensor_pct'), 1)} %, occupancy "
            f"{fixed(m.get('warps_pct'), 1)} %; stalls: {_stalls(m)} -> {limiter_verdict(m)}")
