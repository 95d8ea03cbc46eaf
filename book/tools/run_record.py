#!/usr/bin/env python3
"""Read and check run records: the JSON a program writes with --json (pmpp::RunRecord, common/pmpp/report.hpp).

A record is {"program", "device", "arguments", "problem", "exit_status", "tables": {key: {"title",
"columns", "rows", "printed", "notes"}}}. Every object has unique keys (a parser that kept the last of
two equal keys would show one column's numbers under another's name); every row has exactly the
table's columns; "printed" holds each cell as the program printed it, and a printed number must be
its value rounded. The book reads records only through load(), so a record that breaks any of this
never reaches a page.

As a command:
  run_record.py --check FILE...                   check records
  run_record.py --run FILE -- PROGRAM [ARGS...]   run PROGRAM ARGS --json FILE, then check FILE; exit 0
                                                  when the program passed, 77 (skipped) when it had no
                                                  GPU, 1 on any other status or a bad record

Python 3 standard library only.
"""
import argparse
import json
import math
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass, field

NO_GPU = 77


class RecordError(ValueError):
    pass


@dataclass
class Table:
    key: str
    title: str
    columns: list
    rows: list      # [{column: value}], numbers at full precision
    printed: list   # [[text]], as the program printed each cell
    notes: list

    def column(self, name):
        return [row[name] for row in self.rows]


@dataclass
class Record:
    path: pathlib.Path
    program: str
    device: str
    arguments: str
    problem: str
    exit_status: int
    tables: list = field(default_factory=list)

    def table(self, key):
        return next((t for t in self.tables if t.key == key), None)

    @property
    def shown_arguments(self):
        """The command line without --json FILE: where the file went is no part of the result."""
        words, kept, skip = self.arguments.split(), [], False
        for word in words:
            if skip:
                skip = False
            elif word == "--json":
                skip = True
            elif not word.startswith("--json="):
                kept.append(word)
        return " ".join(kept)

    @property
    def command(self):
        return f"{self.program} {self.shown_arguments}".strip()


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise RecordError(f"repeated key(s) in one object: {', '.join(repeated)}")
    return dict(pairs)


def _require(condition, message):
    if not condition:
        raise RecordError(message)


def _printed_matches(value, text):
    """A printed number is its value rounded to the digits shown ("0.287" for 0.286855381)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value == text
    match = re.fullmatch(r"-?\d+(?:\.(\d+))?", text.strip())
    if not match:
        return False
    decimals = len(match.group(1) or "")
    return math.isclose(float(text), value, rel_tol=0, abs_tol=0.5 * 10 ** -decimals * (1 + 1e-9) + 1e-12)


def parse(text, path=pathlib.Path("<record>")):
    """The Record in @text; RecordError says what is wrong."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except RecordError:
        raise
    except ValueError as error:
        raise RecordError(f"not valid JSON: {error}") from None
    _require(isinstance(data, dict), "not a JSON object")
    expected = {"program", "device", "arguments", "problem", "exit_status", "tables"}
    _require(set(data) == expected,
             f"top-level keys {sorted(data)}, expected {sorted(expected)} (a record from an older version: record it again)")
    for key in ("program", "device", "arguments", "problem"):
        _require(isinstance(data[key], str), f"'{key}' is not a string")
    _require(isinstance(data["exit_status"], int), "'exit_status' is not an integer")
    _require(isinstance(data["tables"], dict), "'tables' is not an object")
    record = Record(path, data["program"], data["device"], data["arguments"], data["problem"], data["exit_status"])
    for key, t in data["tables"].items():
        where = f"table '{key}'"
        _require(isinstance(t, dict) and set(t) == {"title", "columns", "rows", "printed", "notes"},
                 f"{where}: keys must be title, columns, rows, printed, notes")
        _require(isinstance(t["title"], str) and t["title"], f"{where}: no title")
        columns = t["columns"]
        _require(isinstance(columns, list) and all(isinstance(c, str) and c for c in columns), f"{where}: bad columns")
        _require(len(set(columns)) == len(columns), f"{where}: a column name appears twice")
        _require(isinstance(t["rows"], list) and isinstance(t["printed"], list) and len(t["rows"]) == len(t["printed"]),
                 f"{where}: rows and printed differ in length")
        for r, (row, printed) in enumerate(zip(t["rows"], t["printed"])):
            _require(isinstance(row, dict) and list(row) == columns, f"{where}, row {r}: keys differ from the columns")
            _require(isinstance(printed, list) and len(printed) == len(columns) and all(isinstance(p, str) for p in printed),
                     f"{where}, row {r}: printed cells differ from the columns")
            for column, text in zip(columns, printed):
                _require(_printed_matches(row[column], text),
                         f"{where}, row {r}, column '{column}': printed '{text}' is not the value {row[column]!r}")
        _require(isinstance(t["notes"], list) and all(isinstance(n, str) for n in t["notes"]), f"{where}: bad notes")
        record.tables.append(Table(key, t["title"], columns, t["rows"], t["printed"], t["notes"]))
    return record


def load(path):
    path = pathlib.Path(path)
    try:
        return parse(path.read_text(encoding="utf-8"), path)
    except RecordError as error:
        raise RecordError(f"{path}: {error}") from None


def run_and_check(path, command):
    """Run the program with --json PATH and check what it wrote; returns the exit status for CTest."""
    path = pathlib.Path(path)
    path.unlink(missing_ok=True)
    status = subprocess.run(command + ["--json", str(path)]).returncode
    if status not in (0, NO_GPU):
        print(f"run_record.py: {command[0]} exited with {status}", file=sys.stderr)
        return 1
    record = load(path)
    if record.exit_status != status:
        raise RecordError(f"{path}: records exit_status {record.exit_status}, the program exited with {status}")
    if status == 0 and record.device == "no GPU" and "--analysis" not in command:
        raise RecordError(f"{path}: a run that passed on a GPU must name its device")
    print(f"run_record.py: {path}: a valid record, {len(record.tables)} table(s)"
          + (" (no GPU here: the record of what the program could print without one)" if status == NO_GPU else ""))
    return status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", nargs="+", metavar="FILE", help="records to check")
    parser.add_argument("--run", metavar="FILE", help="run the command after -- with --json FILE and check FILE")
    parser.add_argument("command", nargs="*", help="the program and its arguments (with --run)")
    args = parser.parse_args()
    try:
        if args.run:
            if not args.command:
                parser.error("--run needs a program after --")
            return run_and_check(args.run, args.command)
        if not args.check:
            parser.error("give --check FILE... or --run FILE -- PROGRAM")
        for path in args.check:
            load(path)
            print(f"run_record.py: {path}: a valid record")
        return 0
    except RecordError as error:
        print(f"run_record.py: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
