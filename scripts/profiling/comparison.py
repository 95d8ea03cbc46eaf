"""The rows "quantity | predicted | measured | why / how" of one stage: its program's predictions next
to the counters of its timed launch. Every row has a number on both sides or says why one is empty.

A prediction is the program's own (predictions.Prediction); this module only divides the counters by
the program's figures (operations per byte counted, the time floors at the device's peaks).
"""
from dataclasses import dataclass

from .formatting import count, fixed, percent, ratio, significant
from .predictions import NONE, Prediction

COLUMNS = ("quantity", "predicted", "measured", "why / how")
CONFLICTS_SCALE = ("Every warp access conflicting 2-way would count about 100% of the wavefronts: a few "
                   "percent cannot come from the access pattern itself")


@dataclass
class Row:
    quantity: str
    predicted: str
    measured: str
    why: str

    def cells(self):
        return [self.quantity, self.predicted, self.measured, self.why]


def plain(x):
    """A whole number as such ("32", "0"), any other with two decimals; "-" for none."""
    if x is None:
        return NONE
    return f"{x:,.0f}" if float(x).is_integer() else fixed(x)


def time_rows(p, m, peak_dram_gbps, peak_fp32_tflops):
    """Kernel time against its floor: the larger of the compulsory bytes at peak DRAM bandwidth and
    the operations at the peak FP32 rate."""
    t_ms = None if m.get("time_ns") is None else m["time_ns"] / 1e6
    if not p.compulsory or not peak_dram_gbps:
        missing = ("no compulsory traffic predicted" if not p.compulsory
                   else "the GPU's peak DRAM bandwidth was not reported")
        return [Row("kernel time (ms)", NONE, significant(t_ms), f"no floor: {missing}")]
    dram_ms = p.compulsory / (peak_dram_gbps * 1e9) * 1e3
    dram_floor = f"the compulsory bytes at peak DRAM ({peak_dram_gbps:.0f} GB/s)"
    if p.flops and peak_fp32_tflops:
        fp32_ms = p.flops / (peak_fp32_tflops * 1e12) * 1e3
        larger = "FP32" if fp32_ms > dram_ms else "DRAM"
        return [Row("kernel time (ms)", significant(max(dram_ms, fp32_ms)), significant(t_ms),
                    f"predicted: the larger floor ({larger}): the FLOPs at peak FP32 ({peak_fp32_tflops:.1f} "
                    f"TFLOP/s) take {significant(fp32_ms)} ms, {dram_floor} {significant(dram_ms)} ms")]
    why = f"predicted: the floor, {dram_floor}"
    if p.flops:
        why += "; the FP32 floor is missing, since the GPU's peak FP32 rate was not reported"
    return [Row("kernel time (ms)", significant(dram_ms), significant(t_ms), why)]


def dram_rows(p, m):
    read, written = m.get("dram_read"), m.get("dram_write")
    measured = None if read is None or written is None else read + written
    if p.compulsory:
        why = (f"predicted: compulsory traffic, read {count(p.compulsory_read)} + written "
               f"{count(p.compulsory_write)}; measured read {count(read)}, written {count(written)}")
    else:
        why = f"no compulsory traffic predicted; measured read {count(read)}, written {count(written)}"
    return [Row("DRAM bytes read + written", count(p.compulsory), count(measured), why),
            Row("DRAM throughput (% of peak)", NONE, percent(m.get("dram_pct")),
                "no claim in the text; near 100% means the stage is limited by DRAM bandwidth")]


def intensity_rows(p, m):
    """Operations per byte: per byte read from DRAM, and per byte the threads' loads asked for (the
    text's model counts the latter)."""
    no_flops = "" if p.flops else " (no operation count predicted)"
    dram_opb = p.dram_read_opb
    predicted = ("no DRAM-read OP/B predicted" if dram_opb is None
                 else "predicted: the program's DRAM-read OP/B (operations per compulsory byte read)")
    rows = [Row("OP/B on DRAM reads", fixed(dram_opb, 1 if (dram_opb or 0) >= 100 else 2),
                fixed(ratio(p.flops, m.get("dram_read"))), f"{predicted}; measured: per byte read from DRAM{no_flops}")]
    why = "measured: per byte the threads' global loads asked for" + no_flops
    if m.get("thread_ld_bytes") is None:
        why += " (sm__sass_data_bytes_mem_global_op_ld not collected in this recording)"
    if p.text_opb is None:
        why += ". The text has no model for this stage"
    if p.note != NONE:
        why += f". The program's note: {p.note}"
    rows.append(Row("OP/B on global loads (the text's model)", fixed(p.text_opb),
                    fixed(ratio(p.flops, m.get("thread_ld_bytes"))), why.rstrip(".") + "."))
    return rows


def _requests(m):
    """(load + store + reduction + atomic requests, the kinds counted) or (None, kinds)."""
    kinds = [k for k in ("ld_requests", "st_requests", "red_requests", "atom_requests") if m.get(k) is not None]
    if "ld_requests" not in kinds or "st_requests" not in kinds:
        return None, kinds
    return sum(m[k] for k in kinds), kinds


def _accesses_why(m):
    _, kinds = _requests(m)
    names = {"ld_requests": "load", "st_requests": "store", "red_requests": "reduction", "atom_requests": "atomic"}
    return (" + ".join(names[k] for k in kinds) + " requests, one per warp instruction"
            + ("" if len(kinds) == 4 else " (atomics not counted in this recording)"))


def _segments(m):
    if m.get("ld_sectors") is None or m.get("st_sectors") is None:
        return None
    return (m["ld_sectors"] + m["st_sectors"]) / 4


# The counters that measure a quantity of the text's analysis (chapter 10's table "quantity | text |
# counted"): (measured value, how it is measured). A quantity without one says so.
MEASURES = {
    "execution-resource efficiency": (
        lambda m: fixed(ratio(m.get("threads_per_inst"), 32.0), 3),
        lambda m: "active threads per warp instruction / 32 over every instruction, where the text counts only "
                  "the adding step (the program's instrumented build counts exactly that)"),
    "warp-wide global accesses": (lambda m: count(_requests(m)[0]), _accesses_why),
    "32-B sectors per global load": (lambda m: fixed(ratio(m.get("ld_sectors"), m.get("ld_requests"))),
                                     lambda m: "32-byte sectors per global load request"),
    "global requests (128-B segments)": (
        lambda m: count(_segments(m)),
        lambda m: "32-byte sectors (load + store) / 4, the segments' worth of data moved "
                  f"({count(None if _segments(m) is None else 4 * _segments(m))} sectors): equal when each "
                  "segment is fully used"),
}


def analysis_rows(p, m):
    """The text's analysis of the stage: its closed form (else the same rules counted for this kernel and
    size) next to the counter that measures the quantity, where one does."""
    rows = []
    for q in p.analysis:
        if q.text in (NONE, "", q.counted):
            predicted, source = q.counted, "the text's rules counted for this kernel and n"
        else:
            predicted = q.text
            source = f"the text's closed form; the same rules counted for this kernel give {q.counted}"
        measure = MEASURES.get(q.quantity)
        if measure:
            rows.append(Row(q.quantity, predicted, measure[0](m), f"predicted: {source}; measured: {measure[1](m)}"))
        else:
            rows.append(Row(q.quantity, predicted, NONE, f"predicted: {source}; no hardware counter counts this: "
                                                         "the program's instrumented build does (see its GPU run)"))
    return rows


def load_rows(p, m):
    why = "32-byte sectors per warp load instruction: 4 when its 32 lanes read 32 consecutive aligned floats"
    if p.sectors_per_request == NONE:
        why += "; no figure predicted for this stage"
    return [Row("global load requests", NONE, count(m.get("ld_requests")), "one request per warp load instruction"),
            Row("sectors per load request", p.sectors_per_request,
                fixed(ratio(m.get("ld_sectors"), m.get("ld_requests"))), why)]


def cache_rows(p, m):
    rows = []
    loaded = None if m.get("ld_sectors") is None else 32.0 * m["ld_sectors"]
    if loaded and p.compulsory_read:
        rows.append(Row("global-load bytes served by L1/L2 (%)", percent(100 * (1 - p.compulsory_read / loaded)),
                        percent(None if m.get("dram_read") is None else 100 * (1 - m["dram_read"] / loaded)),
                        "predicted: if only the compulsory reads reached DRAM (caches catch every re-read)"))
    l1 = m.get("l1_ld_hit") if m.get("l1_ld_hit") is not None else m.get("l1_hit")
    rows.append(Row("L1 hit rate (%)", NONE, percent(l1), "the text does not split L1 from L2"))
    rows.append(Row("L2 hit rate (%)", NONE, percent(m.get("l2_hit")), "the text does not split L1 from L2"))
    requests, hits = m.get("idc_requests"), m.get("idc_hits")
    if requests or p.constant_cache != NONE:
        measured = f"{count(requests)} loads of constants indexed at run time (LDC)"
        why = (f"predicted: {p.constant_cache}; measured: {measured}" if p.constant_cache != NONE
               else f"{measured}: near 100% means they stay in the constant cache")
        rows.append(Row("constant cache hit rate (%)", NONE,
                        percent(None if hits is None or not requests else 100.0 * hits / requests), why))
    return rows


def warp_rows(p, m):
    threads = p.threads_per_warp
    why = ("predicted: the program's figure; measured: the average over every warp instruction" if threads is not None
           else "no figure predicted; idle threads and divergent warps lower it")
    return [Row("active threads per warp instruction", plain(threads), fixed(m.get("threads_per_inst")), why),
            Row("branch uniformity (%)", NONE, percent(m.get("branch_uniform")),
                "branches whose whole warp went one way; the text gives no figure")]


def conflict_row(p, m):
    ld, st = m.get("shared_ld_conflicts"), m.get("shared_st_conflicts")
    total = None if ld is None or st is None else ld + st
    waves = m.get("shared_ld_wavefronts")
    share = f" ({100.0 * ld / waves:.1f} % of load wavefronts)" if ld is not None and waves else ""
    access = p.shared_access if p.shared_access != NONE else "no prediction of how warps read shared memory"
    return Row("shared-memory bank conflicts", plain(p.bank_conflicts), count(total),
               f"{access}; measured: load + store conflicts{share}. {CONFLICTS_SCALE}")


def stage_rows(prediction, m, peak_dram_gbps=None, peak_fp32_tflops=None):
    """Every row of one stage, from its Prediction (None: the program gave none) and counters @p m."""
    p = prediction or Prediction({})
    rows = time_rows(p, m, peak_dram_gbps, peak_fp32_tflops) + dram_rows(p, m) + intensity_rows(p, m)
    rows += analysis_rows(p, m)
    rows += load_rows(p, m) + cache_rows(p, m) + warp_rows(p, m) + [conflict_row(p, m)]
    # A row with nothing on either side (no operation count and no model, say) tells nothing.
    return [r for r in rows if (r.predicted, r.measured) != (NONE, NONE)]
