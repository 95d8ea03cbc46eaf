#!/usr/bin/env python3
"""Run notebooks/hosted_gpu.ipynb headless, every cell in order, against the checkout this file is in
(PMPP_STEPS_DIR), and check what the cells did:

  every cell   ran without an error (a command that fails raises in the notebook's sh());
  without GPU  the tour showed the analysis only, each cell tagged needs-gpu said so in its one line,
               and every case graded was reported not gradable, for no points;
  with a GPU   the tour checked and timed every stage, each stage printed PASS and no FAIL, the starter
               failed a case, and the edited exercise passed every case that could run and earned its
               points;
  always       the recorded chart was shown (an SVG).

Writes the notebook with its outputs to OUT/hosted_gpu.ipynb (default OUT: build/notebook). Leaves the
exercise that the notebook edits as it found it. IPython runs the cells, magics and all, without a
Jupyter kernel: python3 -m pip install ipython.

usage: check_notebook.py [--gpu yes|no] [--out OUT]
  --gpu yes|no   fail unless the notebook found a GPU (yes) or none (no); default: check either way
Exit status: 0 when every check passed, 1 otherwise.
"""
import argparse
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path

from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "hosted_gpu.ipynb"
EXERCISE = ROOT / "exercises" / "ch07" / "conv1d_basic.cu"
REPORTS = ROOT / "build" / "notebook"          # where the notebook writes its grading reports
NO_GPU = "No GPU in this runtime:"             # the line of the notebook's no_gpu()


class Tee:
    """A stream that shows what is written to it and keeps it: a cell's output."""

    def __init__(self, shown):
        self.shown, self.parts = shown, []

    def write(self, text):
        self.shown.write(text)
        self.parts.append(text)
        return len(text)

    def flush(self):
        self.shown.flush()

    def text(self):
        return "".join(self.parts)


class Recorder(DisplayPublisher):
    """Keeps what a cell displays (IPython.display), as a notebook front end would receive it."""
    shown = []

    def publish(self, data, metadata=None, *args, **kwargs):
        Recorder.shown.append({"output_type": "display_data", "data": data, "metadata": metadata or {}})
        print(f"[displayed: {', '.join(sorted(data))}]")


def run_cells(notebook, shell):
    """Run the code cells in order until one fails; each cell's id -> (ran, output text, displays)."""
    outcomes = {}
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        print(f"\n==== cell {cell['id']} ====", flush=True)
        started, stream = time.monotonic(), Tee(sys.stdout)
        Recorder.shown = []
        with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
            result = shell.run_cell(source, store_history=True)
        error = result.error_before_exec or result.error_in_exec
        print(f"==== cell {cell['id']}: {'ran' if error is None else 'FAILED'} in "
              f"{time.monotonic() - started:.0f} s ====", flush=True)
        cell["execution_count"] = result.execution_count
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": stream.text()}] + Recorder.shown
        if error is not None:
            cell["outputs"].append({"output_type": "error", "ename": type(error).__name__, "evalue": str(error),
                                    "traceback": []})
        outcomes[cell["id"]] = (error is None, stream.text(), list(Recorder.shown))
        if error is not None:
            break  # the cells after it build on it
    return outcomes


def read_report(name):
    path = REPORTS / name
    return json.loads(path.read_text()) if path.exists() else None


def check_all(notebook, outcomes, has_gpu, want_gpu):
    """[(what was checked, passed?)] for the notebook's run."""
    checks = []

    def check(what, ok):
        checks.append((what, bool(ok)))

    code_ids = [c["id"] for c in notebook["cells"] if c["cell_type"] == "code"]
    failed = [cid for cid in code_ids if cid in outcomes and not outcomes[cid][0]]
    check(f"every code cell ran without an error ({len(code_ids)} cells"
          + (f"; cell {failed[0]} failed)" if failed else ")"), not failed and len(outcomes) == len(code_ids))
    if failed or len(outcomes) != len(code_ids):
        return checks
    if want_gpu is not None:
        check(f"the notebook found {'a GPU' if want_gpu else 'no GPU'}, as --gpu says", has_gpu == want_gpu)
    text = {cid: outcome[1] for cid, outcome in outcomes.items()}
    needs_gpu = [c["id"] for c in notebook["cells"] if "needs-gpu" in c["metadata"].get("tags", [])]
    starter, edited = read_report("starter.json"), read_report("edited.json")
    check("the grading reports were written (build/notebook/starter.json, edited.json)", starter and edited)
    if not (starter and edited):
        return checks
    outcome = {name: [t["extra_data"]["outcome"] for t in report["tests"]]
               for name, report in (("starter", starter), ("edited", edited))}

    if has_gpu:
        check("no cell said it lacked a GPU", not any(NO_GPU in t for t in text.values()))
        check("the tour checked and timed every stage",
              "every stage checked against its CPU reference and timed" in text["tour"])
        stages = [cid for cid in code_ids if cid.startswith("stage-") and cid != "stages-build"]
        check(f"each of the {len(stages)} stages printed PASS and no FAIL",
              stages and all("PASS" in text[s] and "FAIL" not in text[s] for s in stages))
        check(f"the starter failed a case of ex07.1 ({starter['score']:g} points)",
              "failed" in outcome["starter"] and starter["score"] < sum(t["max_score"] for t in starter["tests"]))
        gradable = [t for t in edited["tests"] if t["extra_data"]["outcome"] != "not gradable"]
        earned = sum(t["max_score"] for t in gradable)
        check(f"the edited exercise passed every case that could run and earned their {earned:g} points "
              f"({edited['score']:g} earned; not gradable here: {len(edited['tests']) - len(gradable)} of "
              f"{len(edited['tests'])} cases)",
              gradable and all(t["extra_data"]["outcome"] == "passed" for t in gradable)
              and edited["score"] == earned > 0)
    else:
        check("the tour showed each chapter's analysis only", "showed their analysis only" in text["tour"])
        quiet = [cid for cid in needs_gpu if NO_GPU not in text[cid]]
        check(f"each of the {len(needs_gpu)} cells that need a GPU said so in one line"
              + (f" (not: {', '.join(quiet)})" if quiet else ""), needs_gpu and not quiet)
        for name, report in (("starter", starter), ("edited", edited)):
            check(f"every case of the {name} was reported not gradable, for no points ({len(report['tests'])} cases)",
                  report["tests"] and set(outcome[name]) == {"not gradable"} and report["score"] == 0)
    check("the recorded chart was shown (an SVG)",
          any("image/svg+xml" in shown["data"] and "<svg" in shown["data"]["image/svg+xml"]
              for shown in outcomes["chart"][2]))
    return checks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", choices=("yes", "no"), help="fail unless the notebook found a GPU (yes) or none (no)")
    parser.add_argument("--out", type=Path, default=REPORTS, help="where to write the notebook with its outputs")
    args = parser.parse_args()
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    args.out = args.out.resolve()

    # As a student's runtime would be: started in notebooks/, the checkout named, no report of an earlier run.
    os.environ["PMPP_STEPS_DIR"] = str(ROOT)
    os.chdir(ROOT / "notebooks")
    for name in ("starter.json", "edited.json"):
        (REPORTS / name).unlink(missing_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a time limit still restores the exercise
    exercise = EXERCISE.read_bytes()
    shell = InteractiveShell.instance(display_pub_class=Recorder, colors="nocolor")
    started = time.monotonic()
    try:
        outcomes = run_cells(notebook, shell)
    finally:
        EXERCISE.write_bytes(exercise)
    has_gpu = bool(shell.user_ns.get("HAS_GPU"))
    checks = check_all(notebook, outcomes, has_gpu, None if args.gpu is None else args.gpu == "yes")

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / NOTEBOOK.name).write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nnotebook: ran {len(outcomes)} code cells in {time.monotonic() - started:.0f} s "
          f"({'with a GPU' if has_gpu else 'without a GPU'}); with its outputs: {args.out / NOTEBOOK.name}")
    for what, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'}  {what}")
    bad = sum(1 for _, ok in checks if not ok)
    print(f"notebook: {len(checks) - bad} of {len(checks)} checks passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
