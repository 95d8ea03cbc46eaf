"""The command line of scripts/profile: the options, and the exit status of each outcome."""
import argparse
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from . import exercises, limiter_runs, programs, recording, stages
from .errors import EXIT_CANNOT_MEASURE, EXIT_OK, EXIT_USAGE, CannotMeasure, UsageError
from .formatting import WIDTH, wrap_lines

ROOT = Path(__file__).resolve().parents[2]
DESCRIPTION = ("Run stage programs under Nsight Compute and print, per stage, the text's prediction (from the "
               "program's own run record) next to the hardware counter.")
EPILOG = ("Exit status: 0 all profiled, 1 a stage failed, 2 usage, 77 cannot measure here (no GPU, no ncu, or no "
          "permission to read the counters; the recorded reference tables are printed instead).")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line on stderr and exit status 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (try --help)\n")


def parse_args(argv):
    width = min(WIDTH, shutil.get_terminal_size().columns)
    p = Parser(prog="scripts/profile", description=DESCRIPTION, epilog=EPILOG,
               formatter_class=lambda prog: argparse.HelpFormatter(prog, width=width))
    p.add_argument("--build-dir", default=str(ROOT / "build"), help="CMake build folder (default: build)")
    p.add_argument("--stage", action="append", default=[], metavar="PROGRAM",
                   help="a stage program, e.g. ch07_03_tiled_halo (repeatable)")
    p.add_argument("--all", action="store_true", help="every stage program in the build")
    p.add_argument("--exercise", action="append", default=[], metavar="ID",
                   help="an exercise's kernel, e.g. ex10.2: yours (exercises/), next to the solution's "
                        "(repeatable; needs the build's tests)")
    p.add_argument("--solution", action="store_true", help="with --exercise: the solution's kernel instead of yours")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="also write profile.md and profile.json (limiters.md and .json with --limiters) here")
    p.add_argument("--args", default=None, metavar="'ARGS'",
                   help="arguments for the programs instead of those in profile/metrics.json")
    p.add_argument("--ncu", default=None, metavar="PATH", help="path of ncu (default: PATH, then the CUDA toolkit)")
    p.add_argument("--recorded", action="store_true",
                   help="only print the recorded reference tables (with --stage: only those stages')")
    p.add_argument("--limiters", action="store_true",
                   help="profile the stages beyond the text (and their libraries) at the reference sizes in "
                        "profile/metrics.json and name what limits each (with --stage: only that program's runs)")
    p.add_argument("--rerender", default=None, metavar="JSON",
                   help="no GPU: rebuild the tables of a recorded profile.json or limiters.json from its "
                        "counters with the current rows and rules")
    p.add_argument("--reread-predictions", action="store_true",
                   help="with --rerender: take the predictions from the built programs' run records "
                        "instead of the recording")
    a = p.parse_args(argv)
    if a.solution and not a.exercise:
        p.error("--solution goes with --exercise")
    if not (a.recorded or a.rerender or a.limiters or a.all or a.stage or a.exercise):
        p.error("name stages with --stage, or use --all (or --exercise, --recorded, --limiters, --rerender)")
    if a.exercise and (a.stage or a.all or a.recorded or a.rerender or a.limiters or a.args is not None):
        p.error("--exercise goes with --solution, --out, --ncu and --build-dir only")
    if a.reread_predictions and not a.rerender:
        p.error("--reread-predictions goes with --rerender")
    if a.all and a.stage:
        p.error("--all and --stage exclude each other")
    if a.limiters and (a.all or a.args is not None):
        p.error("--limiters runs its own list with its own arguments; narrow it with --stage")
    return a


def show_recorded(names, unknown_is_error):
    """The recorded tables, or only those of @p names (exact program names)."""
    unknown = sorted(set(names) - recording.recorded_programs())
    if unknown and unknown_is_error:
        raise UsageError(f"no recorded table for {', '.join(unknown)} (scripts/profile --recorded lists them)")
    if unknown:
        print(f"No recorded table for {', '.join(unknown)}.")
    recording.show_recorded(names)


def rerender(a):
    """--rerender JSON: the tables of a recording, rebuilt from its counters."""
    try:
        recorded = recording.load(a.rerender)
    except (OSError, ValueError) as e:
        raise UsageError(f"--rerender {a.rerender}: {e}")
    if "kernels" in recorded:
        print(recording.limiters_text(recorded))
        if a.out:
            print(recording.wrote(recording.write_limiters(a.out, recorded)))
        return EXIT_OK
    if a.reread_predictions:
        folder = programs.bin_dir(a.build_dir)
        with tempfile.TemporaryDirectory(prefix="pmpp-profile-") as workdir:
            for entry in recorded["stages"]:
                if "metrics" in entry:
                    prediction, entry["notes"] = stages.predictions_of(str(folder / entry["program"]),
                                                                       shlex.split(entry["arguments"]), workdir)
                    entry["prediction"] = prediction.to_json() if prediction else None
        recorded["predictions"] = "run record"
    recorded["rendered"] = recording.today()
    for entry in recorded["stages"]:
        print(recording.stage_text(entry) + "\n")
    if a.out:
        print(recording.wrote(recording.write_profile(a.out, recorded)))
    return EXIT_OK


def main(argv):
    try:
        a = parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    try:
        if a.recorded:
            show_recorded([Path(s).name for s in a.stage], unknown_is_error=True)
            return EXIT_OK
        if a.rerender:
            return rerender(a)
        if a.exercise:
            return exercises.run_exercises(a)
        return limiter_runs.run(a) if a.limiters else stages.run(a)
    except UsageError as e:
        print(f"scripts/profile: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except CannotMeasure as e:
        print("scripts/profile: cannot measure on this machine.")
        print(wrap_lines(str(e)))
        if a.exercise:  # nothing recorded to show: an exercise's kernel is each student's own
            print("scripts/grade --exercise ID still times your kernel against its floor and the solution's.")
        else:
            show_recorded([Path(s).name for s in a.stage], unknown_is_error=False)
        return EXIT_CANNOT_MEASURE
