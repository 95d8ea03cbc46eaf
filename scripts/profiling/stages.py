"""The default command: profile stage programs and put each one's predictions next to its counters.

For each stage program this
  1. runs it with --analysis --json FILE (no GPU needed) and reads its stage's row of the record's
     table "profile" (and the text's analysis, where the record has one): the predictions;
  2. runs it once under ncu collecting only the kernel duration, to find the launches of the timed
     repetition (the check and the warm-up launch the same kernels first);
  3. profiles exactly those launches with the curated metric set;
  4. prints quantity | predicted | measured | why, and writes the recording to --out after each stage.
"""
import re
import shlex
import tempfile
from pathlib import Path

from . import launches, metric_set, ncu, predictions, programs, recording, records
from .errors import EXIT_FAILED, EXIT_OK, CannotMeasure, RecordError, UsageError
from .processes import tail


def device_peaks(output):
    """(peak DRAM GB/s, peak FP32 TFLOP/s) from the device line the program printed; None for each it
    did not print. The line is wrapped to the terminal's width, so a break may fall inside either."""
    dram = re.search(r"peak\s+DRAM\s+(\d+(?:\.\d+)?)\s+GB/s", output)
    fp32 = re.search(r"peak\s+FP32\s+(\d+(?:\.\d+)?)\s+TFLOP/s", output)
    return (float(dram.group(1)) if dram else None), (float(fp32.group(1)) if fp32 else None)


def predictions_of(program, args, workdir):
    """(Prediction or None, notes) of the stage @p program runs, from its run record."""
    _, stage_id = programs.chapter_and_stage(program)
    try:
        record = records.analysis_record(program, args, workdir)
    except RecordError as e:
        return None, [f"{e}: no predictions"]
    return predictions.from_record(record, stage_id)


def profile_stage(ncu_path, program, args, metrics, ours, workdir):
    """The recorded entry of one stage program: counters, predictions and how its launch was chosen,
    or an "error" saying why there are none."""
    entry = {"program": Path(program).name, "arguments": " ".join(args)}
    prediction, notes = predictions_of(program, args, workdir)
    status, output, all_launches, log = ncu.collect(ncu_path, program, args, ["gpu__time_duration.sum"], workdir)
    ncu.raise_if_cannot_measure(output, log, program)
    if re.search(r"\bFAIL\b", output) or status != 0:
        entry["error"] = (f"the program's own check failed or it exited with status {status}: no measurement "
                          f"is reported for a wrong result\n{tail(output, 5)}")
        return entry
    if not all_launches:
        entry["error"] = f"ncu profiled no kernel (exit status {status}):\n{tail(output + log)}"
        return entry
    skip, count = launches.timed_launches(all_launches, ours)
    profiled, log = metric_set.profile(ncu_path, program, args, metrics, workdir, skip, count)
    if not profiled:
        entry["error"] = f"ncu collected no metrics:\n{tail(log)}"
        return entry
    peak_dram, peak_fp32 = device_peaks(output)
    entry.update({
        "launch": launches.describe(profiled, skip, len(all_launches)),
        "launches": [dict(zip(("kernel", "grid", "block"), l.key)) for l in profiled],
        "all_launches": len(all_launches), "skip": skip,
        "metrics": metrics.read(profiled), "metric_names": metrics.chosen(), "dropped": dict(metrics.dropped),
        "peak_dram_gbps": peak_dram, "peak_fp32_tflops": peak_fp32,
        "prediction": prediction.to_json() if prediction else None, "notes": notes,
    })
    return entry


def chosen_programs(a, folder):
    available = programs.stage_programs(folder)
    names = available if a.all else [Path(s).name for s in a.stage]
    for name in names:
        if name not in available:
            raise UsageError(f"no stage program '{name}' in {folder}: build it (cmake --build ... --target {name})")
    if not names:
        raise UsageError(f"no stage programs in {folder}")
    return names


def run(a):
    """scripts/profile --stage PROGRAM... | --all: returns the exit status."""
    spec = programs.spec()
    folder = programs.bin_dir(a.build_dir)
    names = chosen_programs(a, folder)
    ncu_path = ncu.find(a.ncu)
    if ncu_path is None:
        raise CannotMeasure(ncu.NOT_INSTALLED)
    metrics = metric_set.MetricSet(spec)
    result = {"device": "unknown GPU", "ncu": ncu.version(ncu_path), "date": recording.today(),
              "predictions": "run record", "stages": []}
    ours = launches.repository_kernels()
    failed = False
    with tempfile.TemporaryDirectory(prefix="pmpp-profile-") as workdir:
        for name in names:
            args = shlex.split(a.args) if a.args is not None else programs.arguments(spec, name)
            print(recording.stage_heading({"program": name, "arguments": " ".join(args)}), flush=True)
            entry = profile_stage(ncu_path, str(folder / name), args, metrics, ours, workdir)
            failed |= "error" in entry
            device = (entry.get("metrics") or {}).get("device")
            if device and result["device"] == "unknown GPU":
                result["device"] = device
            result["stages"].append(entry)
            print(recording.stage_text(entry, heading=False) + "\n", flush=True)
            if a.out:  # after every stage, so that an interrupted run keeps what it measured
                written = recording.write_profile(a.out, result)
    print(f"device: {result['device']}")
    if a.out:
        print(recording.wrote(written))
    return EXIT_FAILED if failed else EXIT_OK
