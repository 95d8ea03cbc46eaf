"""Numbers as table cells, and tables for the terminal (at most 100 columns) and for Markdown.

A terminal table fits its width by design: numbers keep their width, text cells wrap (the widest text
column gives way first), and one column may be set aside as a detail printed beneath its row, indented,
for the long explanations that would otherwise squeeze every other column.
"""
import math
import textwrap

WIDTH = 100  # the widest line any part of scripts/profile prints
MIN_TEXT_WIDTH = 12
INDENT = "  "


# ---- Cells ---------------------------------------------------------------------------------------

def _missing(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def _no_negative_zero(x, digits):
    return 0.0 if round(x, digits) == 0 else x


def fixed(x, digits=2):
    """@p x with @p digits decimals, or with thousands separators from 100,000 on; "-" for none."""
    if _missing(x):
        return "-"
    x = _no_negative_zero(x, digits)
    if abs(x) >= 1e5:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def significant(x):
    """@p x to 4 significant digits; "-" for none."""
    return "-" if _missing(x) else f"{x:.4g}"


def count(x):
    """A whole number with thousands separators; "-" for none."""
    return "-" if _missing(x) else f"{x:,.0f}"


def percent(x):
    """A percentage with one decimal; "-" for none."""
    return "-" if _missing(x) else f"{_no_negative_zero(x, 1):.1f} %"


def ratio(num, den):
    """@p num / @p den, or None when either is missing or the denominator is 0."""
    return None if num is None or den in (None, 0) else num / den


# ---- Terminal ------------------------------------------------------------------------------------

def wrap(text, width=WIDTH, indent=""):
    """@p text as lines of at most @p width columns, each starting with @p indent."""
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def wrap_lines(text, width=WIDTH):
    """@p text with each of its lines wrapped at @p width, continuing at the line's own indentation
    (for messages made of several lines, such as a program's output)."""
    out = []
    for line in text.splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        out += wrap(line.strip(), width, indent)
    return "\n".join(out)


def _column_widths(columns, rows, right, width):
    texts = [[c] + [r[i] for r in rows] for i, c in enumerate(columns)]
    widths = [max(len(t) for t in column) for column in texts]
    longest_word = [max(len(w) for t in column for w in (t.split() or [""])) for column in texts]
    gaps = 2 * (len(columns) - 1)
    text_columns = [i for i in range(len(columns)) if not right[i]]
    # Text columns give way first, the widest each time: down to their longest word, then breaking
    # words; numbers only when text alone cannot make room.
    for shrinkable, floor in ((text_columns, lambda i: max(MIN_TEXT_WIDTH, longest_word[i])),
                              (text_columns, lambda i: MIN_TEXT_WIDTH),
                              (list(range(len(columns))), lambda i: 4)):
        while sum(widths) + gaps > width:
            candidates = [i for i in shrinkable if widths[i] > floor(i)]
            if not candidates:
                break
            widest = max(candidates, key=lambda i: widths[i])
            widths[widest] -= 1
    return widths


def _cell_lines(text, width, right, first):
    # A row's first cell continues indented, so that the start of every row stands out.
    lines = textwrap.wrap(text, width, subsequent_indent=INDENT if first and width > 2 * len(INDENT) else "",
                          break_long_words=True, break_on_hyphens=False) or [""]
    return [line.rjust(width) if right else line.ljust(width) for line in lines]


def text_table(columns, rows, right=(), detail=None, width=WIDTH):
    """The table as text at most @p width columns wide.

    @param columns  the column names
    @param rows     one list of cell texts per row
    @param right    the indices of columns aligned right (numbers)
    @param detail   a column index: that cell is printed beneath its row, indented, wrapped at @p width
    """
    shown = [i for i in range(len(columns)) if i != detail]
    names = [columns[i] for i in shown]
    cells = [[r[i] for i in shown] for r in rows]
    is_right = [i in right for i in shown]
    widths = _column_widths(names, cells, is_right, width)

    def block(texts):
        parts = [_cell_lines(t, w, r, k == 0) for k, (t, w, r) in enumerate(zip(texts, widths, is_right))]
        height = max(len(p) for p in parts)
        parts = [p + [" " * w] * (height - len(p)) for p, w in zip(parts, widths)]
        return ["  ".join(p[j] for p in parts).rstrip() for j in range(height)]

    out = block(names)
    if detail is not None:  # named under the header, where its cells are printed under their rows
        out += wrap(columns[detail], width, INDENT * 2)
    out.append("  ".join("-" * w for w in widths))
    for r, texts in zip(rows, cells):
        out += block(texts)
        if detail is not None and r[detail]:
            out += wrap(r[detail], width, INDENT * 2)
    return "\n".join(out)


# ---- Markdown ------------------------------------------------------------------------------------

def markdown_table(columns, rows, right=()):
    """A Markdown table; '|' in a cell is escaped."""
    esc = lambda s: str(s).replace("|", "\\|")
    out = ["| " + " | ".join(esc(c) for c in columns) + " |",
           "| " + " | ".join("---:" if i in right else "---" for i in range(len(columns))) + " |"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)
