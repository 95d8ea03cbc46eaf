"""scripts/profile --exercise ID: an exercise's kernel profiled through its feedback case, as grade runs it
but without the sandbox and with the stage metric set. The exercise's test executable is a stand-in
(fakes/exercise_tests) that writes the feedback fact a real one writes, so that all of it runs without a
GPU: what it is asked to run, the table, the recording, and every way it cannot measure."""
import json
import shutil
import unittest

import support
from profiling import programs

EXERCISE = "ex10.2"
STEM = "ex10_coarsened_sum"


class FakeExerciseBuild(support.FakeBuild):
    """A build with one exercise: its manifest, the stand-in test executable and both workers."""

    def __init__(self, workers=("exercise", "solution")):
        super().__init__(ncu=True)
        shutil.copy(support.FAKES / "exercise_tests", self.bin / f"{STEM}_tests")
        (self.bin / f"{STEM}_tests").chmod(0o755)
        for variant in workers:
            (self.bin / f"{STEM}_{variant}_worker").write_text("")
        entry = {"id": EXERCISE, "chapter": "ch10", "name": "coarsened_sum", "tests": str(self.bin / f"{STEM}_tests"),
                 "reference_worker": str(self.bin / f"{STEM}_solution_worker")}
        (self.bin.parent / "exercises").mkdir()
        (self.bin.parent / "exercises" / "manifest.json").write_text(json.dumps({"exercises": [entry]}))
        self.seen = self.dir / "seen.jsonl"

    def runs_seen(self):
        return [json.loads(line) for line in self.seen.read_text().splitlines()] if self.seen.exists() else []


class ExerciseProfile(unittest.TestCase):
    def build(self, **options):
        build = FakeExerciseBuild(**options)
        self.addCleanup(build.remove)
        return build

    def test_your_kernel_next_to_the_solutions(self):
        build = self.build()
        out_dir = build.dir / "out"
        status, out, err = build.run("--exercise", EXERCISE, "--out", str(out_dir), FAKE_SEEN=str(build.seen))
        self.assertEqual(status, 0, out + err)
        self.assertEqual(support.long_lines(out), [])
        self.assertIn(f"== {EXERCISE} coarsened_sum ({STEM}_exercise_worker)", out)
        self.assertIn("FakeExerciseKernel grid (1024, 1, 1) block (256, 1, 1)", " ".join(out.split()))
        (run,) = build.runs_seen()
        # Your worker, the solution's as the reference, and ncu as scripts/profile runs it with every
        # stage metric and achieved occupancy.
        self.assertEqual(run["args"][:5], ["[feedback]", "--worker", str(build.bin / f"{STEM}_exercise_worker"),
                                           "--reference-worker", str(build.bin / f"{STEM}_solution_worker")])
        profiler = run["profiler"]
        self.assertEqual(profiler[profiler.index("--cache-control") + 1], "all")
        self.assertEqual(profiler[profiler.index("--clock-control") + 1], "none")
        names = profiler[profiler.index("--metrics") + 1].split(",")
        spec = programs.spec()
        self.assertEqual(names, [m["names"][0] for m in spec["metrics"]] +
                         [m["names"][0] for m in spec["limiters"]["metrics"] if m["key"] == "warps_pct"])
        entry = json.loads((out_dir / f"exercise-{EXERCISE}.json").read_text())
        # The fake's values: 2000 + the metric's position for yours, 1000 + it for the solution's.
        key_at = {m["key"]: n for n, m in enumerate(spec["metrics"])}
        for side, base in (("yours", 2000), ("solution", 1000)):
            self.assertEqual(entry["metrics"][side]["time_ns"], base + key_at["time_ns"])
            self.assertEqual(entry["counters"][side]["dram_bytes"],
                             2 * base + key_at["dram_read"] + key_at["dram_write"])
            self.assertAlmostEqual(entry["counters"][side]["sectors_per_request"],
                                   (base + key_at["ld_sectors"]) / (base + key_at["ld_requests"]))
        self.assertEqual(entry["counters"]["yours"]["occupancy"], 2000 + len(spec["metrics"]))
        rows = {line[:37].strip(): line[37:].split() for line in out.splitlines()}
        self.assertEqual(rows["sectors per load request"][-1], "4")
        self.assertEqual(rows["time of the call, net (ms)"][:2], ["0.9", "0.7"])

    def test_the_solutions_kernel(self):
        build = self.build()
        status, out, _ = build.run("--exercise", EXERCISE, "--solution", FAKE_SEEN=str(build.seen))
        self.assertEqual(status, 0, out)
        (run,) = build.runs_seen()
        self.assertEqual(run["args"][2], str(build.bin / f"{STEM}_solution_worker"))

    def test_a_metric_this_ncu_lacks_is_dropped(self):
        build = self.build()
        rejected = programs.spec()["metrics"][4]["names"][0]
        status, out, _ = build.run("--exercise", EXERCISE, FAKE_SEEN=str(build.seen), FAKE_REJECT=rejected)
        self.assertEqual(status, 0, out)
        self.assertEqual(len(build.runs_seen()), 2)
        self.assertIn(f"{rejected}: not offered", " ".join(out.split()))

    def test_wrong_results_fail_the_run(self):
        build = self.build()
        status, out, _ = build.run("--exercise", EXERCISE, FAKE_WRONG_RUNS="3")
        self.assertEqual(status, 1)
        self.assertIn("wrong result in 3 of the timed runs", " ".join(out.split()))


class CannotMeasure(unittest.TestCase):
    def check(self, reason, **env):
        build = FakeExerciseBuild()
        self.addCleanup(build.remove)
        status, out, _ = build.run("--exercise", EXERCISE, **env)
        self.assertEqual(status, 77, out)
        self.assertIn("cannot measure on this machine", out)
        self.assertIn(reason, out)
        self.assertNotIn("recorded on the", out)  # no stage's recorded tables: they say nothing of this kernel
        self.assertEqual(support.long_lines(out), [])

    def test_without_a_gpu(self):
        self.check("no CUDA-capable GPU on this machine", FAKE_NO_GPU="1")

    def test_without_permission(self):
        self.check("NVreg_RestrictProfilingToAdminUsers=0", FAKE_NCU_PERMISSION="1")


class Usage(unittest.TestCase):
    def test_bad_usage_is_one_line_and_status_2(self):
        build = FakeExerciseBuild(workers=("solution",))
        self.addCleanup(build.remove)
        for args in (["--exercise", "ex10.9"], ["--exercise", EXERCISE],  # no exercise worker built
                     ["--solution"], ["--exercise", EXERCISE, "--stage", "ch07_01_basic"],
                     ["--exercise", EXERCISE, "--args", "--n 5"]):
            with self.subTest(args=args):
                status, out, err = build.run(*args)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_a_build_without_tests(self):
        build = support.FakeBuild(ncu=True)
        self.addCleanup(build.remove)
        status, _, err = build.run("--exercise", EXERCISE)
        self.assertEqual(status, 2)
        self.assertIn("-DPMPP_BUILD_TESTS=ON", err)


if __name__ == "__main__":
    unittest.main()
