"""The counters that explain one call of an exercise's kernel to a student, derived from a metric set's
values (MetricSet.read) the same way wherever they are shown: in grade's feedback (grader/grading/
feedback.py) and in `scripts/profile --exercise` (exercises.py)."""


def derived(v):
    """{name: value or None} from the values @p v of the keys of profile/metrics.json that the call's
    launches were profiled with (a key not collected gives None)."""

    def total(*keys):
        values = [v.get(k) for k in keys]
        return None if any(x is None for x in values) else sum(values)

    sectors, requests = v.get("ld_sectors"), v.get("ld_requests")
    return {"dram_bytes": total("dram_read", "dram_write"),
            "sectors_per_request": sectors / requests if sectors is not None and requests else None,
            "threads_per_warp": v.get("threads_per_inst"),
            "occupancy": v.get("warps_pct"),
            "bank_conflicts": total("shared_ld_conflicts", "shared_st_conflicts"),
            "shared_wavefronts": v.get("shared_ld_wavefronts"),
            "kernel_ms": None if v.get("time_ns") is None else v["time_ns"] / 1e6}
