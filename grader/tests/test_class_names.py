#!/usr/bin/env python3
"""Student folder names are hostile input: grade a class whose students have the worst names a folder
can have, each submitting the starter code of max_reduction (compiled once for all), and check that

- grade finishes (exit status 0) and writes grades.csv: valid UTF-8, a valid CSV, every row as long as
  the header, every student in it exactly once, by the display name this test expects;
- each student's results.json, where the column results says, is valid JSON, in a folder of its own
  (also where a file system ignores case), with a safe name, and names the student by display name;
- the console shows no character that does not print but the newline, no line that a name forged, and one
  summary line per student.

No GPU needed: without one every case is "not gradable", which is all the same here. As root, student
code runs as the grading users; not as root, as the user that runs the test.

usage: test_class_names.py --build-dir DIR [--timeout S]   (exit status 0 when every check holds)
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from verdict import verdict

REPO = Path(__file__).resolve().parents[2]
STARTER = REPO / "exercises" / "ch10" / "max_reduction.cu"
FORGED = "FORGED"  # what a name that tries to forge a line of the console starts it with

# (folder name, how grade must show it)
STUDENTS = [
    (b"caf\xff", "caf\\xff"),  # not UTF-8
    (b"caf\\xff", "caf\\\\xff"),  # the way the name above is shown, typed: it must be shown otherwise
    ("café".encode(), "café"),  # letters of any script stay
    (b"rtl\xe2\x80\xaefdp.exe", "rtl\\u202efdp.exe"),  # a right-to-left override
    (f"line\ngrade: {FORGED}: 100 points".encode(), f"line\\ngrade: {FORGED}: 100 points"),
    (f"\x1b[2K\r{FORGED}: 100 points".encode(), f"\\x1b[2K\\r{FORGED}: 100 points"),  # erase the line, go back
    (b"tab\there", "tab\\there"),
    (b"grades.csv", "grades.csv"),  # the name of the file beside the report folders
    (b"GRADES.CSV", "GRADES.CSV"),  # the same, where a file system ignores case
    (b"class.html", "class.html"),  # the class page beside them
    (b"a b", "a b"), (b"a?b", "a?b"), (b"a_b", "a_b"),  # three names, one safe name
    (b"bob", "bob"), (b"Bob", "Bob"),
    (b'=HYPERLINK("evil.example")', '=HYPERLINK("evil.example")'),  # a spreadsheet formula
    (b"-rf", "-rf"), (b"--help", "--help"),  # read as options
    (b" spaced  out ", " spaced  out "),
    (b"L" * 255, "L" * 255), (b"L" * 254 + b"M", "L" * 254 + "M"),  # the longest names, alike at the start
    (b"\xff" * 255, "\\xff" * 255),
]
FORMULA = re.compile(r"[=+\-@]")  # a cell that starts so is written with a ' in front
SAFE_FOLDER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


def make_class(klass: Path):
    for name, _ in STUDENTS:
        chapter = klass / os.fsdecode(name) / "ch10"  # the bytes themselves, UTF-8 or not
        chapter.mkdir(parents=True)
        shutil.copyfile(STARTER, chapter / STARTER.name)


def check_console(output: bytes):
    failures = []
    try:
        text = output.decode("utf-8")
    except UnicodeDecodeError as error:
        return [f"the console output is not UTF-8: {error}"]
    unprintable = sorted({repr(c) for c in text if c != "\n" and not c.isprintable()})
    if unprintable:
        failures.append(f"the console output holds characters that do not print: {', '.join(unprintable)}")
    lines = text.split("\n")
    for line in lines:
        if line.startswith((FORGED, f"grade: {FORGED}")):
            failures.append(f"a name forged a line of the console: {line!r}")
    for _, shown in STUDENTS:
        summaries = [line for line in lines if re.fullmatch(rf"grade: {re.escape(shown)}: \d+ points \(.*\)", line)]
        if len(summaries) != 1:
            failures.append(f"{len(summaries)} summary lines for {shown!r} on the console, not 1")
    return failures


def check_reports(out: Path):
    failures = []
    try:
        text = (out / "grades.csv").read_bytes().decode("utf-8")
        header, *cells = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except (OSError, UnicodeDecodeError, csv.Error, ValueError) as error:
        return [f"grades.csv cannot be read as a UTF-8 CSV: {error}"]
    if header != ["student", "ex10.1", "total", "results"]:
        failures.append(f"grades.csv has the columns {header}")
    failures += [f"a row of grades.csv has {len(r)} cells, not {len(header)}: {r}" for r in cells
                 if len(r) != len(header)]
    rows = [dict(zip(header, r)) for r in cells if len(r) == len(header)]

    by_name = {}
    for row in rows:
        by_name.setdefault(row["student"], []).append(row)
    expected = ["'" + shown if FORMULA.match(shown) else shown for _, shown in STUDENTS]
    for cell in expected:
        if len(by_name.get(cell, [])) != 1:
            failures.append(f"{cell!r} is in grades.csv {len(by_name.get(cell, []))} times, not once")
    failures += [f"{cell!r} is in grades.csv, but is no student's name" for cell in by_name if cell not in expected]

    folders = [Path(row["results"]).parent.as_posix() for row in rows]
    if len({f.lower() for f in folders}) != len(folders):
        failures.append(f"students share a report folder (ignoring case): {sorted(folders, key=str.lower)}")
    for row, folder in zip(rows, folders):
        if Path(row["results"]).name != "results.json" or not SAFE_FOLDER.fullmatch(folder):
            failures.append(f"{row['student']!r}: its results are at {row['results']!r}, not in a safe folder")
            continue
        try:
            results = json.loads((out / row["results"]).read_bytes().decode("utf-8"))
            # A lone surrogate (\udcff) is valid JSON to Python, but no UTF-8 text can hold it.
            json.dumps(results, ensure_ascii=False).encode("utf-8")
        except (OSError, ValueError) as error:  # decoding, encoding and JSON errors are ValueErrors
            failures.append(f"{row['student']!r}: {row['results']} is not valid JSON in UTF-8: {error}")
            continue
        shown = row["student"][1:] if row["student"].startswith("'") else row["student"]
        if f"points for {shown}." not in results["output"]:
            failures.append(f"{row['student']!r}: its results.json names the student otherwise: {results['output']!r}")
    listed = {"grades.csv", "class.html", ".class-page-key"} | set(folders)
    failures += [f"{p.name!r} is in the reports' folder, but in no row of grades.csv" for p in out.iterdir()
                 if p.name not in listed]
    return failures


def main():
    parser = argparse.ArgumentParser(description="grade a class of hostile student names")
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pmpp-class-names-") as tmp:
        klass, out = Path(tmp) / "class", Path(tmp) / "reports"
        make_class(klass)
        cmd = [sys.executable, str(REPO / "scripts" / "grade"), "--class", str(klass), "--out", str(out),
               "--exercise", "max_reduction", "--build-dir", str(args.build_dir.resolve()),
               "--timeout", f"{args.timeout:g}", "--jobs", "2"]
        print("$ " + " ".join(cmd), flush=True)
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # Escaped, so that a control character grade let through shows here instead of acting on the terminal.
        print("".join(c if c == "\n" or c.isprintable() else ascii(c)[1:-1]
                      for c in result.stdout.decode("utf-8", "backslashreplace")))
        if result.returncode != 0:
            return verdict([f"grade exited with status {result.returncode}"])
        return verdict(check_console(result.stdout) + check_reports(out))


if __name__ == "__main__":
    sys.exit(main())
