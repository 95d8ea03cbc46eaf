"""Finding a student's files, without trusting the folder they came in: symbolic links are never
followed (a link to the hidden tests must not become the source that is compiled), and files larger
than a source file can reasonably be are refused."""

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .names import display_name

MAX_SOURCE_BYTES = 1 << 20


@dataclass
class Source:
    path: Optional[Path]  # the file to compile, or None
    problem: str = ""  # why there is none: not submitted, a symbolic link, too large


def class_members(folder: Path) -> List[Tuple[str, Path]]:
    """(display name, folder) of every student: the sub-folders of @folder (not hidden ones, not links)."""
    members = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        members.append((display_name(entry.name), Path(entry.path)))
    return members


def _layout(folder: Path, chapters) -> Optional[Path]:
    """Where the chapter folders are: @folder itself (a copy of exercises/), @folder/exercises (a copy
    of the repository), or None (loose files)."""
    for base in (folder, folder / "exercises"):
        if any((base / c).is_dir() and not (base / c).is_symlink() for c in chapters):
            return base
    return None


def _first_found(folder: Path, file_name: str) -> Optional[Path]:
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if file_name in files:
            return Path(root) / file_name
    return None


def _check(folder: Path, path: Path) -> Source:
    relative = path.relative_to(folder)
    for part in [Path(*relative.parts[:i]) for i in range(1, len(relative.parts))]:
        if (folder / part).is_symlink():
            return Source(None, f"{display_name(str(part))} is a symbolic link: submit the files themselves")
    info = os.lstat(path)
    shown = display_name(str(relative))  # the student named the folders on the way
    if stat.S_ISLNK(info.st_mode):
        return Source(None, f"{shown} is a symbolic link: submit the file itself")
    if not stat.S_ISREG(info.st_mode):
        return Source(None, f"{shown} is not a regular file")
    if info.st_size > MAX_SOURCE_BYTES:
        return Source(None, f"{shown} is larger than {MAX_SOURCE_BYTES} bytes")
    return Source(path)


def find_sources(folder: Path, exercises) -> Dict[str, Source]:
    """Each exercise's file in a student's @folder, by exercise name: <chapter>/<name>.cu in a copy of
    exercises/ (or in the exercises/ of a copy of the repository: never its solutions/), else, for
    loose files, the first <name>.cu found anywhere in it."""
    base = _layout(folder, sorted({e["chapter"] for e in exercises}))
    sources = {}
    for e in exercises:
        file_name = f"{e['name']}.cu"
        if base is not None:
            path = base / e["chapter"] / file_name
            found = path if os.path.lexists(path) else None
        else:
            found = _first_found(folder, file_name)
        if found is None:
            where = base / e["chapter"] if base is not None else folder
            sources[e["name"]] = Source(None, f"not submitted: no {file_name} in {display_name(str(where))}")
        else:
            sources[e["name"]] = _check(folder, found)
    return sources


def read_source(path: Path) -> bytes:
    """The file's bytes, refusing a symbolic link that appeared since it was found."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise OSError(f"{path} grew beyond {MAX_SOURCE_BYTES} bytes")
    return data
