"""A program's run record: the JSON it writes with --json FILE (pmpp::RunRecord, common/pmpp/report.hpp).

A record is {"program", "device", "arguments", "problem", "exit_status", "tables": {key: {"title",
"columns", "rows", "printed", "notes"}}}: each row maps a column to its value (a number at full
precision, or text), and "printed" holds every cell as the program printed it. The profiler asks the
programs for their predictions this way (--analysis --json), so that it computes none of them itself.
"""
import json
from pathlib import Path

from .errors import EXIT_USAGE, RecordError, UsageError
from .processes import run, tail

ANALYSIS_TIMEOUT_S = 120


def load(path):
    """The record in @p path, checked for the parts the profiler reads."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise RecordError(f"{path}: not a run record ({e})")
    if not isinstance(record, dict) or not isinstance(record.get("tables"), dict):
        raise RecordError(f"{path}: not a run record (no \"tables\" object)")
    for key, table in record["tables"].items():
        if not isinstance(table, dict) or not isinstance(table.get("columns"), list) \
                or not isinstance(table.get("rows"), list):
            raise RecordError(f"{path}: table '{key}' has no columns or rows")
    return record


def analysis_record(program, args, workdir):
    """Run @p program @p args --analysis --json FILE (no GPU needed) and return the record it wrote."""
    program = Path(program)
    path = Path(workdir) / f"{program.name}.analysis.json"
    status, output = run([str(program)] + list(args) + ["--analysis", "--json", str(path)],
                         timeout=ANALYSIS_TIMEOUT_S)
    if status == EXIT_USAGE:
        raise UsageError(f"{program.name} rejected its arguments: {tail(output, 1)}")
    if status != 0:
        raise RecordError(f"{program.name} --analysis exited with status {status}: {tail(output, 3)}")
    if not path.is_file():
        raise RecordError(f"{program.name} --analysis --json wrote no record")
    return load(path)


def table(record, key):
    """The table @p key of @p record, or None."""
    return record["tables"].get(key)


def table_with_columns(record, leading):
    """The first table whose columns begin with @p leading (a list of names), or None."""
    return next((t for t in record["tables"].values() if t["columns"][:len(leading)] == list(leading)), None)


def printed_rows(t):
    """The rows of table @p t as the program printed them: [{column: text}]."""
    printed = t.get("printed") or [[str(row.get(c, "-")) for c in t["columns"]] for row in t["rows"]]
    return [dict(zip(t["columns"], cells)) for cells in printed]
