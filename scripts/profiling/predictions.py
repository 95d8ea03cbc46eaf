"""A stage's predictions, as its program states them in its run record.

The record's table "profile" holds one row per stage (and per tile where a stage has several), with the
columns PROFILE_COLUMNS (and OPTIONAL_COLUMNS where a program has them): numbers where numeric, "-"
where the program has none; the table's notes say what to know when reading them. A record may also
hold the text's analysis of the stage as a table "quantity | text | counted" (chapter 10 does). The
profiler finds a stage's row by its exact id and computes none of these numbers itself.
"""
from dataclasses import dataclass, field

from . import records

PROFILE_TABLE = "profile"
PROFILE_COLUMNS = ("stage", "tile", "flops", "compulsory read B", "compulsory write B", "text model OP/B",
                   "DRAM-read OP/B", "sectors per request", "threads per warp", "bank conflicts",
                   "shared access", "note")
# Read where a program writes it (chapter 7 does): what the stage's constant-memory reads should do.
OPTIONAL_COLUMNS = ("constant cache",)
ANALYSIS_COLUMNS = ("quantity", "text", "counted")
NONE = "-"


def _number(value):
    """A number from a record cell: a JSON number, or text that reads as one; None for "-"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def _text(value):
    if value is None:
        return NONE
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip() or NONE


@dataclass
class Quantity:
    """One row of the text's analysis: its figure ("-" where the text has no closed form) and the same
    rules counted for this kernel and size, both as the program printed them."""
    quantity: str
    text: str
    counted: str


@dataclass
class Prediction:
    """The row of table "profile" for one stage, and the text's analysis of it where the record has one."""
    row: dict
    analysis: list = field(default_factory=list)

    stage = property(lambda self: _text(self.row.get("stage")))
    tile = property(lambda self: _text(self.row.get("tile")))
    flops = property(lambda self: _number(self.row.get("flops")))
    compulsory_read = property(lambda self: _number(self.row.get("compulsory read B")))
    compulsory_write = property(lambda self: _number(self.row.get("compulsory write B")))
    text_opb = property(lambda self: _number(self.row.get("text model OP/B")))
    dram_read_opb = property(lambda self: _number(self.row.get("DRAM-read OP/B")))
    sectors_per_request = property(lambda self: _text(self.row.get("sectors per request")))
    threads_per_warp = property(lambda self: _number(self.row.get("threads per warp")))
    bank_conflicts = property(lambda self: _number(self.row.get("bank conflicts")))
    shared_access = property(lambda self: _text(self.row.get("shared access")))
    note = property(lambda self: _text(self.row.get("note")))
    constant_cache = property(lambda self: _text(self.row.get("constant cache")))

    @property
    def compulsory(self):
        """Bytes DRAM must move at least, read and written; None when either is unknown."""
        if self.compulsory_read is None or self.compulsory_write is None:
            return None
        return self.compulsory_read + self.compulsory_write

    def to_json(self):
        return {"row": self.row, "analysis": [vars(q) for q in self.analysis]}

    @classmethod
    def from_json(cls, data):
        return cls(dict(data["row"]), [Quantity(**q) for q in data.get("analysis", [])])


def from_record(record, stage_id):
    """(the Prediction of stage @p stage_id, [notes on what the record lacks or how a row was chosen]).

    The Prediction is None when the record has no row for the stage."""
    table = records.table(record, PROFILE_TABLE)
    if table is None:
        return None, [f"the program's run record has no table '{PROFILE_TABLE}': no predictions"]
    missing = [c for c in PROFILE_COLUMNS if c not in table["columns"]]
    if missing:
        return None, [f"the program's table '{PROFILE_TABLE}' lacks the columns {', '.join(missing)}: "
                      "no predictions"]
    rows = [r for r in table["rows"] if _text(r.get("stage")) == stage_id]
    if not rows:
        return None, [f"the program's table '{PROFILE_TABLE}' has no row for stage {stage_id}: no predictions"]
    notes = [f"the program: {n}" for n in table.get("notes", [])]
    if len(rows) > 1:
        tiles = ", ".join(_text(r.get("tile")) for r in rows)
        notes.append(f"the program's table '{PROFILE_TABLE}' has {len(rows)} rows for {stage_id} (tiles {tiles}): "
                     f"these are the predictions of the last, tile {_text(rows[-1].get('tile'))}, which the "
                     "program times last (pass arguments that choose one tile to profile another)")
    analysis = []
    quantities = records.table_with_columns(record, ANALYSIS_COLUMNS)
    if quantities is not None:
        analysis = [Quantity(r["quantity"], r["text"], r["counted"]) for r in records.printed_rows(quantities)]
    return Prediction(dict(rows[-1]), analysis), notes
