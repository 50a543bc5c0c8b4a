"""Record files in a data folder: finding them (one pass of scandir), and reading one's
bytes: only a regular file, and no bigger than the limit."""

from __future__ import annotations

import os
import re
import stat
from operator import attrgetter
from pathlib import Path

from .. import settings
from ..errors import BenchgraphError, CannotRun
from .schema import KINDS


def find_record_files(data_dir: Path) -> list[Path]:
    """Every YAML file below a kind folder of data_dir, in a stable order."""
    return [Path(f[0]) for f in scan_record_files(data_dir)]


BY_NAME = attrgetter("name")


def scan_record_files(data_dir: Path, prefix: str = "") -> list[tuple[str, str, int, int]]:
    """(path, prefix + path below data_dir with "/", size, modification time in ns) of every
    record file, in find_record_files' order: one pass of scandir and stat, no pathlib (a
    build lists 100k files).

    A symlink to a folder is walked as the folder, each real folder once (a link to a folder
    above it would loop). Any other name ending in .yaml is listed, whatever it is: a FIFO, a
    device or a dangling symlink is that file's problem when it is read (read_record_bytes),
    never a reason to stop listing; its size and time are those of the link when its target
    cannot be stat-ed."""
    found: list[tuple[str, str, int, int]] = []
    seen: set[tuple[int, int]] = set()

    def walk(folder: str, rel: str) -> None:
        try:
            st = os.stat(folder)
            with os.scandir(folder) as it:
                names = sorted(it, key=BY_NAME)
        except OSError:  # as os.walk: an unreadable or missing folder holds no records
            return
        if (st.st_dev, st.st_ino) in seen:
            return
        seen.add((st.st_dev, st.st_ino))
        below = []
        for d in names:
            try:
                is_dir = d.is_dir()  # through a symlink too
            except OSError:
                is_dir = False
            if is_dir:
                below.append(d)
            elif d.name.endswith((".yaml", ".yml")):
                try:
                    st = d.stat()
                except OSError:  # a dangling symlink, or one that loops
                    st = d.stat(follow_symlinks=False)
                found.append((d.path, f"{rel}/{d.name}", st.st_size, st.st_mtime_ns))
        for d in below:
            walk(d.path, f"{rel}/{d.name}")

    for kind in KINDS:
        walk(os.path.join(data_dir, kind), prefix + kind)
    return found


def kind_of(path: Path, data_dir: Path) -> str:
    """The kind folder a record file sits in."""
    return path.relative_to(data_dir).parts[0]


# --- reading a record file: only regular files, and no bigger than the limit --------------

# the default, 8 MiB; the largest shipped record is under 40 KB
MAX_RECORD_BYTES = settings.SETTINGS["MAX_RECORD_BYTES"].default
LIMIT_VARIABLE = settings.SETTINGS["MAX_RECORD_BYTES"].env
_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def max_record_bytes() -> int:
    """The size limit of one record file: $BENCHGRAPH_MAX_RECORD_BYTES (bytes, or a number
    with KiB, MiB or GiB), 8 MiB by default. A file over it is that record's problem: a
    huge file took the whole build's memory (a symlink to /dev/zero: a MemoryError)."""
    raw = (settings.raw("MAX_RECORD_BYTES") or "").strip()
    if not raw:
        return MAX_RECORD_BYTES
    m = re.fullmatch(r"([0-9]+)\s*([a-z]*)", raw.lower())
    if not m or m[2] not in _UNITS or int(m[1]) == 0:
        raise CannotRun(
            f"{LIMIT_VARIABLE}={raw!r}: give the largest record file to read, in "
            "bytes or with KiB, MiB or GiB, e.g. 8MiB"
        )
    return int(m[1]) * _UNITS[m[2]]


def size_text(n: int) -> str:
    """A size as a person reads it: 17,000,000 bytes (16.2 MiB)."""
    if n < 1024:
        return f"{n:,} bytes"
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            amount = f"{n / size:.1f}".removesuffix(".0")
            return f"{n:,} bytes ({amount} {unit})"
    raise AssertionError(n)


class RecordFileError(BenchgraphError):
    """A record file that is not read: not a regular file, too big, or not there."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message, self.code = message, code


_FILE_TYPES = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _not_regular(mode: int) -> RecordFileError:
    what = next((name for test, name in _FILE_TYPES if test(mode)), "not a file")
    return RecordFileError(
        f"is not a regular file ({what}): only regular files, or symlinks "
        "to one, are read as records",
        "not-a-file",
    )


def _too_big(size: int, limit: int, more: bool = False) -> RecordFileError:
    return RecordFileError(
        f"is {'over ' if more else ''}{size_text(size)}, over the limit of {size_text(limit)}"
        f" for one record file (${LIMIT_VARIABLE}): shorten or split it, or raise the limit",
        "file-too-large",
    )


def read_record_bytes(path: str, limit: int | None = None) -> bytes:
    """The bytes of a record file, or RecordFileError. Only a regular file (or a symlink to
    one) is opened: a FIFO blocked every command reading it, /dev/zero never ended. The file
    is checked again once open, and read to the limit and no further, as it may change."""
    limit = max_record_bytes() if limit is None else limit
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _unopened(path, exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(st.st_mode)
    if st.st_size > limit:
        raise _too_big(st.st_size, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _unopened(path, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced between the stat and the open
            raise _not_regular(st.st_mode)
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(limit + 1 - got, 1 << 20) or 1)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise _too_big(limit, limit, more=True)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _unopened(path: str, exc: OSError) -> RecordFileError:
    if os.path.islink(path):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        if isinstance(exc, FileNotFoundError):
            return RecordFileError(f"is a symlink to {target}, which does not exist", "unreadable")
        if exc.errno == 40:  # ELOOP
            return RecordFileError(f"is a symlink that loops ({target})", "unreadable")
    return RecordFileError(f"cannot be read: {exc.strerror or exc}", "unreadable")
