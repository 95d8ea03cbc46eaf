"""Finding a student's files, without trusting the folder they came in: symbolic links are never
followed (a link to the hidden tests must not become the source that is compiled), and files larger
than a source file can reasonably be are refused."""

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

MAX_SOURCE_BYTES = 1 << 20


@dataclass
class Source:
    path: Optional[Path]  # the file to compile, or None
    problem: str = ""  # why there is none: not submitted, a symbolic link, too large


def safe_name(name: str) -> str:
    """A student's folder name as a file name and a CSV cell: letters, digits, '.', '_' and '-'."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")
    return cleaned or "student"


def class_members(folder: Path) -> List[Tuple[str, Path]]:
    """(name, folder) of every student: the sub-folders of @folder (not hidden ones, not links)."""
    members = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        members.append((entry.name, Path(entry.path)))
    return members


def _candidates(folder: Path, file_name: str) -> List[Path]:
    found = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if file_name in files:
            found.append(Path(root) / file_name)
    return found


def find_sources(folder: Path, exercises) -> Dict[str, Source]:
    """Each exercise's file in a student's @folder, by exercise name: <chapter>/<name>.cu, else
    exercises/<chapter>/<name>.cu (a copy of the repository), else the first <name>.cu found anywhere
    in it."""
    sources = {}
    for e in exercises:
        file_name = f"{e['name']}.cu"
        found = _candidates(folder, file_name)
        preferred = [folder / e["chapter"] / file_name, folder / "exercises" / e["chapter"] / file_name]
        ordered = [p for p in preferred if p in found] + [p for p in found if p not in preferred]
        if not ordered:
            sources[e["name"]] = Source(None, f"not submitted: no {file_name} in {folder}")
            continue
        path = ordered[0]
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            sources[e["name"]] = Source(None, f"{path.relative_to(folder)} is a symbolic link: submit the file itself")
        elif not stat.S_ISREG(info.st_mode):
            sources[e["name"]] = Source(None, f"{path.relative_to(folder)} is not a regular file")
        elif info.st_size > MAX_SOURCE_BYTES:
            sources[e["name"]] = Source(None, f"{path.relative_to(folder)} is larger than {MAX_SOURCE_BYTES} bytes")
        else:
            sources[e["name"]] = Source(path)
    return sources


def read_source(path: Path) -> bytes:
    """The file's bytes, refusing a symbolic link that appeared since it was found."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise OSError(f"{path} grew beyond {MAX_SOURCE_BYTES} bytes")
    return data
