"""scripts/profile as a student runs it: --stage X prints X's table only, usage errors give one line and
status 2, and without ncu, GPU or permission it explains and prints the recorded tables (status 77).
Nsight Compute and the stage program are stand-ins (fakes/), so that all of it runs without a GPU."""
import contextlib
import io
import json
import os
import re
import unittest
from pathlib import Path
from unittest import mock

import support
from profiling import cli, ncu, programs, recording

RECORDED = "ch07_03_tiled_halo"
OTHER = "ch07_04_cached_halo"


def section_titles(text):
    return re.findall(r"^== (\S+)", text, re.M)


class Recorded(unittest.TestCase):
    def test_stage_prints_only_that_stages_tables(self):
        build = support.FakeBuild()
        self.addCleanup(build.remove)
        status, out, err = build.run("--recorded", "--stage", RECORDED)
        self.assertEqual((status, err), (0, ""))
        recordings = [r for _, r in recording.recorded() if any(e["program"] == RECORDED for e in r.get("stages", []))]
        self.assertEqual(section_titles(out), [RECORDED] * len(recordings))
        self.assertNotIn(OTHER, out)
        self.assertEqual(support.long_lines(out), [])

    def test_every_recorded_table_without_stage(self):
        build = support.FakeBuild()
        self.addCleanup(build.remove)
        status, out, _ = build.run("--recorded")
        self.assertEqual(status, 0)
        self.assertIn(RECORDED, section_titles(out))
        self.assertIn(OTHER, section_titles(out))
        self.assertEqual(support.long_lines(out), [])


class Usage(unittest.TestCase):
    def test_bad_usage_is_one_line_and_status_2(self):
        build = support.FakeBuild(RECORDED)
        self.addCleanup(build.remove)
        for args in ([], ["--recorded", "--stage", "ch07_99_nothing"], ["--stage", "ch07_99_nothing"],
                     ["--all", "--stage", RECORDED], ["--reread-predictions"], ["--frobnicate"]):
            with self.subTest(args=args):
                status, out, err = build.run(*args)
                self.assertEqual(status, 2)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertEqual(out, "")

    def test_help(self):
        build = support.FakeBuild()
        self.addCleanup(build.remove)
        status, out, _ = build.run("--help")
        self.assertEqual(status, 0)
        for option in ("--stage", "--all", "--out", "--limiters", "--recorded", "--rerender", "--ncu"):
            self.assertIn(option, out)


class CannotMeasure(unittest.TestCase):
    def check_fallback(self, status, out, reason):
        self.assertEqual(status, 77)
        self.assertIn("cannot measure on this machine", out)
        self.assertIn(reason, out)
        self.assertIn(RECORDED, section_titles(out))
        self.assertEqual(set(section_titles(out)), {RECORDED})
        self.assertEqual(support.long_lines(out), [])

    def test_without_ncu(self):
        """No ncu on PATH (a PATH of Python alone) nor in the toolkit's folders."""
        build = support.FakeBuild(RECORDED)
        self.addCleanup(build.remove)
        out = io.StringIO()
        path = f"{build.path}{os.pathsep}{Path(support.sys.executable).parent}"
        with mock.patch.object(ncu, "TOOLKIT_PLACES", []), mock.patch.dict(os.environ, {"PATH": path}), \
                contextlib.redirect_stdout(out):
            if ncu.find() is not None:
                self.skipTest("this Python's folder holds an ncu")
            status = cli.main(["--build-dir", str(build.dir / "build"), "--stage", RECORDED])
        self.check_fallback(status, out.getvalue(), "Nsight Compute (ncu) is not installed")

    def test_without_permission(self):
        build = support.FakeBuild(RECORDED, ncu=True)
        self.addCleanup(build.remove)
        status, out, _ = build.run("--stage", RECORDED, FAKE_NCU_PERMISSION="1")
        self.check_fallback(status, out, "NVreg_RestrictProfilingToAdminUsers=0")

    def test_without_a_gpu(self):
        build = support.FakeBuild(RECORDED, ncu=True)
        self.addCleanup(build.remove)
        status, out, _ = build.run("--stage", RECORDED, FAKE_NO_GPU="1")
        self.check_fallback(status, out, "no CUDA-capable GPU on this machine")


class Profile(unittest.TestCase):
    """The whole run on stand-ins: predictions from the record, counters from the fake ncu."""

    def test_a_stage_is_profiled_and_recorded(self):
        row = support.profile_row("03_tiled_halo", note="a note only the record holds")
        build = support.FakeBuild(RECORDED, OTHER, record_=support.record([support.profile_row("03_tiled"), row]),
                                  ncu=True)
        self.addCleanup(build.remove)
        out_dir = build.dir / "out"
        status, out, err = build.run("--stage", RECORDED, "--out", str(out_dir))
        self.assertEqual(status, 0, out + err)
        self.assertEqual(section_titles(out), [RECORDED])
        self.assertIn("launch 5 of 6: fake_stage_kernel", out)
        self.assertIn("a note only the record holds", " ".join(out.split()))
        self.assertEqual(support.long_lines(out), [])
        recorded = json.loads((out_dir / "profile.json").read_text())
        self.assertEqual(recorded["device"], "Fake GPU")
        (entry,) = recorded["stages"]
        self.assertEqual(entry["prediction"]["row"], row)
        self.assertEqual((entry["peak_dram_gbps"], entry["peak_fp32_tflops"]), (1000.0, 10.0))
        self.assertEqual(entry["metrics"]["time_ns"], 1004.0)
        self.assertEqual((out_dir / "profile.md").read_text(), recording.markdown(recorded))
        self.assertIn("| OP/B on global loads (the text's model) | 9.57 |", (out_dir / "profile.md").read_text())

    def test_a_failing_program_fails_the_run(self):
        build = support.FakeBuild(RECORDED, ncu=True)
        self.addCleanup(build.remove)
        long_line = "FAIL " + "x" * 150
        (build.bin / RECORDED).write_text(
            f"#!/bin/sh\ncase \"$*\" in *--analysis*) exit 0;; esac\necho {long_line}\nexit 1\n")
        status, out, _ = build.run("--stage", RECORDED)
        self.assertEqual(status, 1)
        self.assertIn("own check failed", out)
        self.assertEqual(support.long_lines(out), [])


class Limiters(unittest.TestCase):
    def test_every_kernel_of_every_run_is_judged(self):
        runs = programs.spec()["limiters"]["runs"]
        # A kernel name each pattern of metrics.json finds: the pattern with its regular-expression parts filled in.
        names = {p: re.sub(r"\\\(", "(", p.replace(".*", "Sum, ")) + ("float>" if p.endswith("<") else "")
                 for r in runs for p in r["kernels"]}
        for pattern, name in names.items():
            self.assertRegex(name, pattern)
        build = support.FakeBuild(*sorted({r["program"] for r in runs}), ncu=True)
        self.addCleanup(build.remove)
        out_dir = build.dir / "out"
        status, out, err = build.run("--limiters", "--out", str(out_dir), FAKE_KERNELS="\n".join(names.values()))
        self.assertEqual(status, 0, out + err)
        self.assertEqual(support.long_lines(out), [])
        recorded = json.loads((out_dir / "limiters.json").read_text())
        self.assertEqual(len(recorded["kernels"]), sum(len(r["kernels"]) for r in runs))
        self.assertEqual((out_dir / "limiters.md").read_text(), recording.markdown(recorded))

    def test_stage_narrows_the_runs_to_that_program(self):
        runs = programs.spec()["limiters"]["runs"]
        chosen = [r for r in runs if r["program"] == "ch07_08_packed_wgmma"]
        self.assertGreater(len(chosen), 1)  # the test means something only if some runs are left out
        build = support.FakeBuild(*sorted({r["program"] for r in runs}), ncu=True)
        self.addCleanup(build.remove)
        out_dir = build.dir / "out"
        status, out, err = build.run("--limiters", "--stage", "ch07_08_packed_wgmma", "--out", str(out_dir),
                                     FAKE_KERNELS="convolution_2D_packed_wgmma_kernel<5>")
        self.assertEqual(status, 0, out + err)
        self.assertEqual(re.findall(r"^== (\S+)", out, re.M), ["ch07_08_packed_wgmma"] * len(chosen))
        recorded = json.loads((out_dir / "limiters.json").read_text())
        self.assertEqual(len(recorded["kernels"]), len(chosen))

    def test_a_program_without_limiter_runs_is_refused(self):
        build = support.FakeBuild("ch07_01_basic", ncu=True)
        self.addCleanup(build.remove)
        status, _, err = build.run("--limiters", "--stage", "ch07_01_basic")
        self.assertEqual(status, 2)
        self.assertIn("--limiters has no run of ch07_01_basic", err)
        status, _, err = build.run("--limiters", "--all")
        self.assertEqual(status, 2)
        self.assertIn("narrow it with --stage", err)

    def test_a_stage_this_gpu_cannot_run_is_left_out_not_failed(self):
        runs = programs.spec()["limiters"]["runs"]
        build = support.FakeBuild(*sorted({r["program"] for r in runs}), ncu=True)
        self.addCleanup(build.remove)
        status, out, err = build.run("--limiters", FAKE_SKIP="1", FAKE_KERNELS="")
        self.assertEqual(status, 0, out + err)
        self.assertEqual(out.count("skipped on this GPU: 08_packed_wgmma skipped: it needs code compiled for"),
                         len(runs))


if __name__ == "__main__":
    unittest.main()
