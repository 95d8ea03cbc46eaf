"""What the profiler's tests share: where things are, a synthetic run record, and running scripts/profile."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "scripts" / "profile"
FAKES = Path(__file__).resolve().parent / "fakes"
sys.path.insert(0, str(ROOT / "scripts"))

# The columns of table "profile", spelled as the programs write them (the contract, not the reader's copy).
PROFILE_COLUMNS = ["stage", "tile", "flops", "compulsory read B", "compulsory write B", "text model OP/B",
                   "DRAM-read OP/B", "sectors per request", "threads per warp", "bank conflicts", "shared access",
                   "note"]
WIDTH = 100


def profile_row(stage, tile="-", **changes):
    """A row of table "profile" for a convolution-like stage; @p changes by column name (spaces as _)."""
    row = {"stage": stage, "tile": tile, "flops": 838860800, "compulsory read B": 67108864,
           "compulsory write B": 67108864, "text model OP/B": 9.57, "DRAM-read OP/B": 12.5,
           "sectors per request": "4 to 5", "threads per warp": "-", "bank conflicts": 0,
           "shared access": "a warp reads 32 consecutive floats of a tile row: 32 different banks",
           "note": "the neighbouring tile just loaded the halo: L2 serves it"}
    for key, value in changes.items():
        name = {"read": "compulsory read B", "write": "compulsory write B", "text_opb": "text model OP/B",
                "dram_opb": "DRAM-read OP/B"}.get(key, key.replace("_", " "))
        assert name in row, name
        row[name] = value
    return row


def table(columns, rows, title="a table"):
    printed = [[f"{row[c]:,}" if isinstance(row[c], int) else str(row[c]) for c in columns] for row in rows]
    return {"title": title, "columns": list(columns), "rows": rows, "printed": printed, "notes": []}


def record(rows, program="ch07_03_tiled_halo", columns=PROFILE_COLUMNS, **tables):
    """A run record as a stage program writes it with --analysis --json, its table "profile" holding @p rows."""
    all_tables = {"model": table(["stage", "text model OP/B"], [{"stage": "03_tiled_halo", "text model OP/B": 9.57}])}
    if rows is not None:
        all_tables["profile"] = table(columns, rows)
    all_tables.update(tables)
    return {"program": program, "device": "no GPU", "arguments": "--analysis --json x.json", "problem": "",
            "exit_status": 0, "tables": all_tables}


def analysis_table():
    """Chapter 10's per-stage analysis: quantity | text | counted | measured on GPU | note."""
    columns = ["quantity", "text", "counted", "measured on GPU", "note"]
    rows = [{"quantity": "execution-resource efficiency", "text": 0.5, "counted": 0.516, "measured on GPU": "-",
             "note": ""},
            {"quantity": "consumed lanes (32 per busy warp)", "text": "-", "counted": 2048, "measured on GPU": "-",
             "note": ""}]
    t = table(columns, rows)
    t["printed"] = [["execution-resource efficiency", "0.500", "0.516", "-", ""],
                    ["consumed lanes (32 per busy warp)", "-", "2,048", "-", ""]]
    return t


class FakeBuild:
    """A build folder whose bin/ holds the fake stage program under the names given, and a folder for a
    fake ncu; remove() deletes both."""

    def __init__(self, *programs, record_=None, ncu=False):
        self.dir = Path(tempfile.mkdtemp(prefix="pmpp-profile-test-"))
        self.bin = self.dir / "build" / "bin"
        self.bin.mkdir(parents=True)
        for name in programs:
            shutil.copy(FAKES / "stage_program", self.bin / name)
            (self.bin / name).chmod(0o755)
        self.record_file = self.dir / "record.json"
        if record_ is None:
            record_ = record([profile_row("03_tiled_halo")])
        self.record_file.write_text(json.dumps(record_))
        self.path = self.dir / "path"
        self.path.mkdir()
        if ncu:
            shutil.copy(FAKES / "ncu", self.path / "ncu")
            (self.path / "ncu").chmod(0o755)

    def run(self, *args, **env):
        """scripts/profile @p args with a PATH of the fake ncu (if any) and Python only; (status, stdout, stderr)."""
        environment = {"PATH": f"{self.path}{os.pathsep}{Path(sys.executable).parent}",
                       "FAKE_RECORD": str(self.record_file), **env}
        done = subprocess.run([sys.executable, str(PROFILE), "--build-dir", str(self.dir / "build"), *args],
                              capture_output=True, text=True, env=environment, timeout=300)
        return done.returncode, done.stdout, done.stderr

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def long_lines(text, width=WIDTH):
    return [line for line in text.splitlines() if len(line) > width]
