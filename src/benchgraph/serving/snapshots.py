"""Served snapshots: private copies of builds, handed to the server processes by a pointer file.

A serving root (one per `benchgraph serve`) holds:

    current.json   the pointer: the snapshot to serve, and the last rebuild's result
    snap-XXXX/     one snapshot: store/ (the copy), dumps/, use.lock

The process that rebuilds writes the pointer whole and renames it into place, so a reader
sees the old pointer or the new one, never half of one. A server process holds a shared
lock on a snapshot's use.lock for as long as it has that snapshot open; an old snapshot is
deleted only once its lock can be taken exclusively, that is when no server process uses it
any more. A process that dies drops its locks with it, so nothing waits on the dead.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
from pathlib import Path
from typing import IO, Any

from ..errors import BenchgraphError

POINTER = "current.json"
LOCK = "use.lock"
PREFIX = "snap-"
# pipeline.steps._left_out gives a record linking to a left-out one this reason
LINKS = re.compile(r"^links to (?P<other>.+?), which is left out")


class SnapshotGone(BenchgraphError):
    """The snapshot's folder was deleted: a newer one is being served."""

    code = "snapshot-gone"


def publish(root: Path, state: dict[str, Any]) -> None:
    """Write the pointer whole, then rename it into place (readers never see half)."""
    tmp = root / f".{POINTER}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(state, indent=1), encoding="utf-8")
    os.replace(tmp, root / POINTER)


def read(pointer: Path) -> dict[str, Any]:
    """The pointer's state."""
    return json.loads(pointer.read_text(encoding="utf-8"))


def stamp(pointer: Path) -> tuple[int, int, int] | None:
    """What changes whenever the pointer is replaced (a rename gives it a new inode)."""
    try:
        st = os.stat(pointer)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def hold(folder: Path) -> IO[bytes]:
    """Take a shared lock on the snapshot in `folder`: it stays on disk while the returned
    file is open. Raises SnapshotGone when it has been deleted already."""
    try:
        f = open(folder / LOCK, "rb")  # noqa: SIM115 - held until the snapshot is let go
    except FileNotFoundError:
        raise SnapshotGone(str(folder)) from None
    fcntl.flock(f, fcntl.LOCK_SH)  # waits while a sweep deletes it, then finds it gone
    if not (folder / LOCK).exists():
        f.close()
        raise SnapshotGone(str(folder))
    return f


def mark(folder: Path) -> None:
    """Make the lock file of a new snapshot in `folder`."""
    (folder / LOCK).touch()


def sweep(root: Path, keep: str) -> list[str]:
    """Delete every snapshot but `keep` that no server process holds; their names."""
    removed = []
    for folder in sorted(root.glob(f"{PREFIX}*")):
        if folder.name == keep or not folder.is_dir():
            continue
        try:
            f = open(folder / LOCK, "rb")  # noqa: SIM115
        except FileNotFoundError:  # not finished, or a copy of a refused rebuild
            continue
        with f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # still in use
            # Unlink the lock first: a process that waited for it then sees it gone.
            (folder / LOCK).unlink()
            shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder.name)
    return removed


def left_out_summary(left_out: dict[str, str]) -> dict[str, Any]:
    """What a build left out, why, and how many: the invalid records, and those linking to
    them (each named with the invalid record it leads to)."""
    invalid = {p: why for p, why in sorted(left_out.items()) if not LINKS.match(why)}

    def root(path: str) -> str:
        seen = set()
        while path not in invalid and path not in seen and path in left_out:
            seen.add(path)
            found = LINKS.match(left_out[path])
            if not found:
                break
            path = found["other"]
        return path

    linking = [
        {"file": p, "why": why, "because_of": root(p)}
        for p, why in sorted(left_out.items())
        if p not in invalid
    ]
    return {
        "count": len(left_out),
        "invalid": [{"file": p, "why": why} for p, why in invalid.items()],
        "linking": linking,
        "text": describe_left_out(len(invalid), len(linking), list(invalid.values())),
    }


def describe_left_out(invalid: int, linking: int, reasons: list[str]) -> str:
    """One line: 'left out: 1 record invalid (why), 298 records linking to it'."""
    if not invalid and not linking:
        return "nothing left out"
    shown = "; ".join(reasons[:3]) + ("; ..." if len(reasons) > 3 else "")
    text = f"left out: {_records(invalid)} invalid ({shown})"
    if linking:
        text += f", {_records(linking)} linking to {'it' if invalid == 1 else 'them'}"
    return text


def _records(n: int) -> str:
    return f"{n} record{'s' if n != 1 else ''}"
