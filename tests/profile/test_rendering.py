"""What the profiler prints and writes: terminal tables within 100 columns whatever the cells, the
stage rows built from a program's predictions, and the recorded tables exactly as the recordings render."""
import unittest

import support
from profiling import comparison, formatting, limiters, predictions, recording

COUNTERS = {"time_ns": 140300.0, "dram_read": 67114496.0, "dram_write": 53479424.0, "dram_pct": 25.6,
            "l1_ld_hit": 0.1, "l2_hit": 63.1, "ld_requests": 687960.0, "ld_sectors": 3419258.0,
            "st_requests": 524288.0, "st_sectors": 2097152.0, "thread_ld_bytes": 87654400.0, "red_requests": 0.0,
            "atom_requests": 0.0, "threads_per_inst": 29.46, "branch_uniform": 0.0, "inst_executed": 1e6,
            "shared_ld_conflicts": 267294.0, "shared_st_conflicts": 0.0, "shared_ld_wavefronts": 1.9e7,
            "idc_requests": 1379448.0, "idc_hits": 1373930.0, "device": "Fake GPU"}


def rows_of(record_, stage):
    p, _ = predictions.from_record(record_, stage)
    return {r.quantity: r for r in comparison.stage_rows(p, COUNTERS, 1000.0, 10.0)}


class TextTables(unittest.TestCase):
    def test_long_cells_wrap_within_the_width(self):
        long = "a cell far longer than any terminal line, " * 8
        unbroken = "x" * 150
        for columns, rows in ((["quantity", "n", "why"], [[long, "1,234,567", long]]),
                              (["a", "b", "c", "d", "e", "f"], [[unbroken, long, "1", unbroken, long, "2"]]),
                              (["only"], [[unbroken]])):
            with self.subTest(columns=columns):
                text = formatting.text_table(columns, rows, right=(1,))
                self.assertEqual(support.long_lines(text), [])
                self.assertEqual(text.replace(" ", "").replace("\n", "").count("x" * 10) > 0, "x" in text)

    def test_a_detail_column_is_printed_beneath_its_row(self):
        text = formatting.text_table(["quantity", "n", "why"], [["time", "1.5", "because " * 30]], right=(1,), detail=2)
        lines = text.splitlines()
        self.assertEqual(lines[1].strip(), "why")
        self.assertTrue(lines[3].startswith("time"))
        self.assertTrue(lines[4].startswith("    because"))
        self.assertEqual(support.long_lines(text), [])

    def test_numbers_keep_their_width_while_text_wraps(self):
        text = formatting.text_table(["what", "value"], [["word " * 40, "123,456,789"]], right=(1,))
        self.assertIn("123,456,789", text)
        self.assertEqual(support.long_lines(text), [])


class StageRows(unittest.TestCase):
    def test_the_predictions_are_the_programs(self):
        rows = rows_of(support.record([support.profile_row("03_tiled_halo")]), "03_tiled_halo")
        self.assertEqual(rows["OP/B on global loads (the text's model)"].predicted, "9.57")
        self.assertEqual(rows["OP/B on DRAM reads"].predicted, "12.50")
        self.assertEqual(rows["DRAM bytes read + written"].predicted, "134,217,728")
        self.assertEqual(rows["sectors per load request"].predicted, "4 to 5")
        self.assertEqual(rows["shared-memory bank conflicts"].predicted, "0")
        self.assertIn("the neighbouring tile just loaded the halo", rows["OP/B on global loads (the text's model)"].why)
        self.assertIn("a warp reads 32 consecutive floats", rows["shared-memory bank conflicts"].why)

    def test_the_measured_side_divides_by_the_programs_figures(self):
        rows = rows_of(support.record([support.profile_row("03_tiled_halo")]), "03_tiled_halo")
        self.assertEqual(rows["OP/B on DRAM reads"].measured, f"{838860800 / 67114496.0:.2f}")
        self.assertEqual(rows["OP/B on global loads (the text's model)"].measured, f"{838860800 / 87654400.0:.2f}")
        # The floor: 134,217,728 B at 1000 GB/s is 0.1342 ms, the FLOPs at 10 TFLOP/s 0.08389 ms.
        self.assertEqual(rows["kernel time (ms)"].predicted, "0.1342")
        self.assertIn("(DRAM)", rows["kernel time (ms)"].why)

    def test_the_constant_cache_prediction_explains_its_row(self):
        columns = support.PROFILE_COLUMNS + ["constant cache"]
        row = dict(support.profile_row("02_constant_memory"), **{"constant cache": "the filter fits: cold misses only"})
        rows = rows_of(support.record([row], columns=columns), "02_constant_memory")
        self.assertTrue(rows["constant cache hit rate (%)"].why.startswith("predicted: the filter fits"))
        self.assertEqual(rows["constant cache hit rate (%)"].measured, f"{100 * 1373930 / 1379448:.1f} %")

    def test_without_predictions_every_predicted_cell_is_empty_and_rows_still_fit(self):
        p = None
        rows = comparison.stage_rows(p, COUNTERS, None, None)
        self.assertTrue(all(r.predicted == "-" for r in rows))
        self.assertTrue(all(r.why for r in rows))

    def test_the_texts_analysis_is_put_next_to_its_counter(self):
        r = support.record([support.profile_row("02_convergent", flops="-", text_opb="-", dram_opb="-")],
                           program="ch10_02_convergent", analysis=support.analysis_table())
        rows = rows_of(r, "02_convergent")
        self.assertEqual(rows["execution-resource efficiency"].predicted, "0.500")
        self.assertEqual(rows["execution-resource efficiency"].measured, f"{29.46 / 32:.3f}")
        self.assertIn("the same rules counted for this kernel give 0.516", rows["execution-resource efficiency"].why)
        self.assertEqual(rows["consumed lanes (32 per busy warp)"].predicted, "2,048")
        self.assertNotIn("OP/B on global loads (the text's model)", rows)  # nothing on either side


class Recorded(unittest.TestCase):
    def test_each_recorded_table_is_what_its_recording_renders(self):
        found = recording.recorded()
        self.assertTrue(found, "profile/recorded/ holds no recording")
        for path, r in found:
            with self.subTest(recording=path.name):
                self.assertEqual(path.with_suffix(".md").read_text(), recording.markdown(r),
                                 f"{path.with_suffix('.md').name} differs from what {path.name} renders: "
                                 f"scripts/profile --rerender {path} --out DIR, and copy the result")

    def test_the_recorded_tables_fit_the_terminal(self):
        for path, r in recording.recorded():
            with self.subTest(recording=path.name):
                if "kernels" in r:
                    text = recording.limiters_text(r)
                else:
                    text = "\n".join(recording.stage_text(e) for e in r["stages"])
                self.assertEqual(support.long_lines(text), [])

    def test_the_limiter_tables_are_narrow(self):
        # At most 9 columns each, and no unbroken word in them longer than a kernel's shortened name.
        for path, r in recording.recorded():
            if "kernels" not in r:
                continue
            for intro, columns, right, detail, rows in limiters.tables(r["kernels"]):
                with self.subTest(recording=path.name, table=intro[:30]):
                    self.assertLessEqual(len(columns), 9)
                    words = [w for row in rows for cell in row for w in cell.split()]
                    self.assertLessEqual(max(len(w) for w in words), limiters.LONGEST_WORD + 3)


class LimiterVerdict(unittest.TestCase):
    """The fixed rules of limiter_verdict, one case each, in the order they are tried."""

    def test_each_rule(self):
        verdict = limiters.limiter_verdict
        busy = {"time_ns": 500e3, "issue_pct": 40.0, "fma_pct": 10.0, "lsu_pct": 10.0, "tensor_pct": 10.0,
                "dram_pct": 20.0, "stall_long_scoreboard": 2.0}
        self.assertTrue(verdict({**busy, "dram_pct": 85.0}).startswith("DRAM bandwidth (85 %"))
        # Issue slots nearly full and busier than DRAM decide where both are high.
        self.assertTrue(verdict({**busy, "dram_pct": 85.0, "issue_pct": 95.0}).startswith("instruction issue"))
        self.assertTrue(verdict({**busy, "tensor_pct": 64.0}).startswith("tensor cores (their pipe busy 64 %"))
        self.assertTrue(verdict({**busy, "fma_pct": 60.0}).startswith("instruction issue"))
        self.assertTrue(verdict({**busy, "lsu_pct": 70.0}).startswith("load/store pipe"))
        self.assertTrue(verdict({**busy, "time_ns": 4e3}).startswith("launch latency"))
        self.assertTrue(verdict(busy).startswith("latency: waiting for global memory"))
        # Recordings made before the tensor pipe was counted are judged as before.
        self.assertEqual(verdict({k: v for k, v in busy.items() if k != "tensor_pct"}), verdict(busy))


class KernelNames(unittest.TestCase):
    def test_short_names(self):
        self.assertEqual(limiters.short_kernel("void WarpTiledMatrixMulKernel<WarpTiling, 1>(const float *)"),
                         "WarpTiledMatrixMulKernel<WarpTiling, 1>")
        self.assertEqual(limiters.short_kernel("void DeviceReduceKernel<policy_hub<float, unsigned long long, plus"),
                         "DeviceReduceKernel<...>")
        long = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma"
        short = limiters.short_kernel(long)
        self.assertTrue(long.startswith(short[:-3]) and short.endswith("..."))
        self.assertLessEqual(len(short), limiters.LONGEST_WORD + 3)


if __name__ == "__main__":
    unittest.main()
