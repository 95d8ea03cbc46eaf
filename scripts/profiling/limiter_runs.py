"""--limiters: profile the kernels of the stages beyond the text, and of the libraries they are measured
against, at the reference sizes (profile/metrics.json, "limiters": the runs, the kernels of each as
regular expressions, the metric set), and name what limits each."""
import re
import tempfile
from pathlib import Path

from . import launches, limiters, metric_set, ncu, programs, recording
from .errors import EXIT_FAILED, EXIT_OK, CannotMeasure, UsageError
from .formatting import wrap, wrap_lines
from .processes import tail

NAME_KEPT = 80  # characters of a kernel's name kept in the recording


def profile_kernel(ncu_path, program, args, all_launches, index, metrics, workdir):
    """The recorded entry of launch @p index, or None when ncu collected nothing."""
    profiled, log = metric_set.profile(ncu_path, program, args, metrics, workdir, index, 1)
    if not profiled:
        print(wrap_lines(f"  ncu collected no metrics:\n{tail(log)}"))
        return None
    chosen = all_launches[index]
    return {"kernel": re.sub(r"\(.*", "", profiled[0].kernel)[:NAME_KEPT],
            "launch": f"launch {index + 1} of {len(all_launches)}, grid {chosen.grid} block {chosen.block}",
            "metrics": metrics.read(profiled), "metric_names": metrics.chosen()}


def chosen_runs(runs, stages):
    """The runs of the programs named in @p stages (paths or names), or all of @p runs when none is named."""
    if not stages:
        return runs
    wanted = {Path(s).name for s in stages}
    listed = sorted({r["program"] for r in runs})
    unknown = sorted(wanted - set(listed))
    if unknown:
        raise UsageError(f"--limiters has no run of {', '.join(unknown)}; it profiles {', '.join(listed)} "
                         "(profile/metrics.json, \"limiters\")")
    return [r for r in runs if r["program"] in wanted]


def run(a):
    """scripts/profile --limiters [--stage PROGRAM ...]: returns the exit status."""
    spec = programs.spec()["limiters"]
    runs = chosen_runs(spec["runs"], a.stage)
    folder = programs.bin_dir(a.build_dir)
    ncu_path = ncu.find(a.ncu)
    if ncu_path is None:
        raise CannotMeasure(ncu.NOT_INSTALLED)
    metrics = metric_set.MetricSet(spec)
    result = {"device": "unknown GPU", "ncu": ncu.version(ncu_path), "date": recording.today(), "kernels": []}
    failed = False
    with tempfile.TemporaryDirectory(prefix="pmpp-limiters-") as workdir:
        for r in runs:
            program = folder / r["program"]
            if not program.is_file():
                raise UsageError(f"no program {r['program']} in {folder}: build it first")
            args = list(r["args"])
            print("\n".join(wrap(f"== {r['program']} {' '.join(args)}")), flush=True)
            status, output, all_launches, log = ncu.collect(ncu_path, program, args, ["gpu__time_duration.sum"],
                                                            workdir)
            ncu.raise_if_cannot_measure(output, log, program)
            if status != 0 or re.search(r"\bFAIL\b", output):
                print(wrap_lines(f"{r['program']}: the program failed (status {status}): not profiled\n"
                                 f"{tail(output, 5)}"))
                failed = True
                continue
            skip_line = re.search(r"^.*\bskipped\b.*$", output, re.M)
            if skip_line and all(launches.largest_of(all_launches, p) is None for p in r["kernels"]):
                # A stage this GPU cannot run (tensor-core stages on older GPUs) says so and is left out.
                print(wrap_lines(f"  skipped on this GPU: {' '.join(skip_line.group(0).split())}"))
                continue
            for pattern in r["kernels"]:
                index = launches.largest_of(all_launches, pattern)
                entry = None if index is None else profile_kernel(ncu_path, program, args, all_launches, index,
                                                                  metrics, workdir)
                if index is None:
                    print(wrap_lines(f"  no kernel matching '{pattern}' among {len(all_launches)} launches"))
                if entry is None:
                    failed = True
                    continue
                entry = {"program": r["program"], "arguments": " ".join(args), "pattern": pattern, **entry}
                result["kernels"].append(entry)
                print("\n".join(wrap(limiters.summary(entry), indent="  ")), flush=True)
    result["device"] = next((e["metrics"].get("device") for e in result["kernels"] if e["metrics"].get("device")),
                            "unknown GPU")
    print("\n" + recording.limiters_text(result))
    if a.out:
        written = recording.write_limiters(a.out, result)
        print(recording.wrote(written))
    return EXIT_FAILED if failed else EXIT_OK
