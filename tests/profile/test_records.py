"""The run-record reader: a stage's predictions come from its program's table "profile", found by the
stage's exact id, and chapter 10's analysis table comes with them."""
import json
import tempfile
import unittest
from pathlib import Path

import support
from profiling import predictions, records, stages
from profiling.errors import RecordError


class ProfileRow(unittest.TestCase):
    def test_every_column_is_read_with_its_type(self):
        row = support.profile_row("03_tiled_halo", threads_per_warp=29.5, sectors_per_request="4 to 5")
        p, notes = predictions.from_record(support.record([row]), "03_tiled_halo")
        self.assertEqual(notes, [])
        self.assertEqual((p.stage, p.tile), ("03_tiled_halo", "-"))
        self.assertEqual((p.flops, p.compulsory_read, p.compulsory_write), (838860800.0, 67108864.0, 67108864.0))
        self.assertEqual(p.compulsory, 2 * 67108864.0)
        self.assertEqual((p.text_opb, p.dram_read_opb), (9.57, 12.5))
        self.assertEqual((p.sectors_per_request, p.threads_per_warp, p.bank_conflicts), ("4 to 5", 29.5, 0.0))
        self.assertTrue(p.shared_access.startswith("a warp reads 32 consecutive floats"))
        self.assertTrue(p.note.startswith("the neighbouring tile"))

    def test_a_dash_is_no_prediction(self):
        row = support.profile_row("01_simple", flops="-", text_opb="-", dram_opb="-", bank_conflicts="-",
                                  shared_access="-", note="-")
        p, _ = predictions.from_record(support.record([row]), "01_simple")
        self.assertIsNone(p.flops)
        self.assertIsNone(p.text_opb)
        self.assertIsNone(p.dram_read_opb)
        self.assertIsNone(p.bank_conflicts)
        self.assertEqual((p.shared_access, p.note), ("-", "-"))

    def test_the_stage_is_found_by_its_exact_id(self):
        rows = [support.profile_row("03_tiled_halo_wide", text_opb=1.0), support.profile_row("03_tiled", text_opb=2.0),
                support.profile_row("03_tiled_halo", text_opb=3.0), support.profile_row("x03_tiled_halo", text_opb=4.0)]
        p, notes = predictions.from_record(support.record(rows), "03_tiled_halo")
        self.assertEqual((p.text_opb, notes), (3.0, []))
        p, notes = predictions.from_record(support.record(rows), "03_tiled_hal")
        self.assertIsNone(p)
        self.assertIn("no row for stage 03_tiled_hal", notes[0])

    def test_of_several_tiles_the_last_is_taken_and_said_so(self):
        rows = [support.profile_row("02_tiled", tile=16, text_opb=4),
                support.profile_row("02_tiled", tile=32, text_opb=8)]
        p, notes = predictions.from_record(support.record(rows), "02_tiled")
        self.assertEqual((p.tile, p.text_opb), ("32", 8.0))
        self.assertEqual(len(notes), 1)
        self.assertIn("tiles 16, 32", notes[0])

    def test_a_record_without_the_table_gives_no_predictions_and_says_why(self):
        p, notes = predictions.from_record(support.record(None), "03_tiled_halo")
        self.assertIsNone(p)
        self.assertIn("no table 'profile'", notes[0])

    def test_a_table_without_a_column_of_the_contract_gives_no_predictions(self):
        columns = [c for c in support.PROFILE_COLUMNS if c != "DRAM-read OP/B"]
        rows = [{c: v for c, v in support.profile_row("03_tiled_halo").items() if c in columns}]
        p, notes = predictions.from_record(support.record(rows, columns=columns), "03_tiled_halo")
        self.assertIsNone(p)
        self.assertIn("DRAM-read OP/B", notes[0])

    def test_the_analysis_table_comes_as_printed(self):
        r = support.record([support.profile_row("02_convergent")], program="ch10_02_convergent",
                           analysis=support.analysis_table())
        p, _ = predictions.from_record(r, "02_convergent")
        self.assertEqual([(q.quantity, q.text, q.counted) for q in p.analysis],
                         [("execution-resource efficiency", "0.500", "0.516"),
                          ("consumed lanes (32 per busy warp)", "-", "2,048")])

    def test_the_tables_notes_come_with_the_predictions(self):
        r = support.record([support.profile_row("03_tiled_halo")])
        r["tables"]["profile"]["notes"] = ["bank conflicts: what the access pattern causes"]
        _, notes = predictions.from_record(r, "03_tiled_halo")
        self.assertEqual(notes, ["the program: bank conflicts: what the access pattern causes"])

    def test_an_optional_column_is_read_where_a_program_has_it(self):
        columns = support.PROFILE_COLUMNS + ["constant cache"]
        row = dict(support.profile_row("02_constant_memory"), **{"constant cache": "only cold misses"})
        p, _ = predictions.from_record(support.record([row], columns=columns), "02_constant_memory")
        self.assertEqual(p.constant_cache, "only cold misses")
        p, _ = predictions.from_record(support.record([support.profile_row("02_constant_memory")]),
                                       "02_constant_memory")
        self.assertEqual(p.constant_cache, "-")

    def test_a_prediction_survives_a_recording(self):
        r = support.record([support.profile_row("02_convergent")], analysis=support.analysis_table())
        p, _ = predictions.from_record(r, "02_convergent")
        again = predictions.Prediction.from_json(json.loads(json.dumps(p.to_json())))
        self.assertEqual((again.row, again.analysis), (p.row, p.analysis))


class RecordFile(unittest.TestCase):
    def write(self, text):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = Path(folder.name) / "record.json"
        path.write_text(text)
        return path

    def test_a_record_is_loaded(self):
        path = self.write(json.dumps(support.record([support.profile_row("03_tiled_halo")])))
        self.assertIn("profile", records.load(path)["tables"])

    def test_what_is_no_record_is_refused(self):
        for text in ("not json", "[]", json.dumps({"program": "x"}),
                     json.dumps({"tables": {"profile": {"columns": ["stage"]}}})):
            with self.subTest(text=text), self.assertRaises(RecordError):
                records.load(self.write(text))


class DevicePeaks(unittest.TestCase):
    def test_peaks_are_read_where_the_device_line_wraps_inside_them(self):
        output = ("device:  NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MiB L2, 227 KiB shared/block opt-in, peak DRAM\n"
                  "         3352 GB/s, peak FP32\n         66.9 TFLOP/s); built for sm_90\n")
        self.assertEqual(stages.device_peaks(output), (3352.0, 66.9))

    def test_a_peak_not_printed_is_none(self):
        self.assertEqual(stages.device_peaks("device:  a GPU (cc 9.0, peak DRAM 3352 GB/s)"), (3352.0, None))


if __name__ == "__main__":
    unittest.main()
