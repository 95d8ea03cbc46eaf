"""Students' names. A student's name is the name of a folder, which the student (or an archive they
made) chose: any bytes but '/' and NUL, not necessarily UTF-8 (Python gives those bytes as surrogate
escapes), control characters included. So a name is shown only as its display name, and its reports
go to a folder whose name grade chooses."""

import re
from typing import Dict, Iterable, List

MAX_FOLDER_NAME = 100  # characters: far below the 255 bytes a file name may have, with room for "-N"

_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def display_name(name: str) -> str:
    """@name as the console, grades.csv and results.json show it: one line of printable, valid UTF-8.
    Printable characters stay (letters of any script included); every other one is escaped as Python
    writes it: a byte that is not UTF-8 as \\xff, a control character as \\n or \\x1b, any other
    character that prints nothing (a line separator, a right-to-left override) as \\u202e. The
    backslash itself is escaped too, so two different names never look the same."""
    out = []
    for ch in name:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # the byte code - 0xDC00, which was not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:  # an ASCII control character: \x00 to \x7f, apart from the bytes' \x80 to \xff
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def safe_name(name: str) -> str:
    """@name as a file name that every file system and shell takes as it is: letters, digits, '.', '_'
    and '-', never '.' or '-' first (neither hidden, nor read as an option), at most MAX_FOLDER_NAME
    characters."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".-")[:MAX_FOLDER_NAME]
    return cleaned or "student"


def report_folders(names: List[str], taken: Iterable[str]) -> Dict[str, str]:
    """The folder of each student's reports, by name: its safe_name, followed by -2, -3, ... where that
    is one of @taken (the names the reports' folder uses for itself) or went to a name before it in
    sorted order, so that the same class always gets the same folders. Names are compared without
    case, for file systems that ignore it."""
    used = {t.lower() for t in taken}
    folders = {}
    for name in sorted(names):
        base = safe_name(name)
        folder, n = base, 1
        while folder.lower() in used:
            n += 1
            folder = f"{base}-{n}"
        used.add(folder.lower())
        folders[name] = folder
    return folders
