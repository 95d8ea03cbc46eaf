"""A curated set of metrics (profile/metrics.json), each with fall-back names for other ncu versions
and GPUs: a name this ncu rejects is replaced by the next, and a metric with none left is dropped with
the reason."""
from . import ncu


class MetricSet:
    def __init__(self, spec):
        """@p spec: {"metrics": [{"key", "names", "what"}]}, a part of profile/metrics.json."""
        self.entries = {m["key"]: list(m["names"]) for m in spec["metrics"]}
        self.what = {m["key"]: m["what"] for m in spec["metrics"]}
        self.dropped = {}

    def names(self):
        """The name tried now for every metric still in the set."""
        return [names[0] for names in self.entries.values() if names]

    def chosen(self):
        """{key: the name in use}."""
        return {key: names[0] for key, names in self.entries.items()}

    def reject(self, name):
        """Try the next name of the metric @p name stood for; False when @p name is none of ours."""
        key = next((k for k, names in self.entries.items() if names and names[0] == name), None)
        if key is None:
            return False
        self.entries[key].pop(0)
        if not self.entries[key]:
            self.dropped[key] = f"{name}: not offered by this ncu / GPU"
            del self.entries[key]
        return True

    def read(self, launches):
        """{key: value} over several launches: counts and durations add up; rates and ratios are
        weighted by each launch's instruction count (1 each where that is not collected)."""
        out = {}
        weight_name = (self.entries.get("inst_executed") or [None])[0]
        for key, names in self.entries.items():
            name = names[0]
            if key == "device":
                out[key] = (launches[0].get(name) or "").strip() if launches else ""
                continue
            values = [l.value(name) for l in launches]
            if not values or any(v is None for v in values):
                out[key] = None
            elif name.endswith((".pct", ".ratio")) or ".pct_" in name:
                weights = [(l.value(weight_name) if weight_name else None) or 1.0 for l in launches]
                out[key] = sum(v * w for v, w in zip(values, weights)) / sum(weights)
            else:
                out[key] = sum(values)
        return out


def profile(ncu_path, program, args, metrics, workdir, skip, count):
    """Launches skip+1 .. skip+count of @p program profiled with @p metrics, dropping the names this ncu
    rejects. Returns ([ncu.Launch], ncu's log); CannotMeasure when the counters cannot be read."""
    while True:
        _, output, launches, log = ncu.collect(ncu_path, program, args, metrics.names(), workdir,
                                               skip=skip, count=count)
        ncu.raise_if_cannot_measure(output, log, program)
        bad = ncu.rejected_metric(log, metrics.names()) if not launches else None
        if bad and metrics.reject(bad):
            continue
        return launches, log
