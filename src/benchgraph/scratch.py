"""Folders of a process in the system's temporary folder that outlive it by one process at
most: a build's pipes to the store, a server's copy of the store, a remote store's dumps.

A process removes its own at its end, but `kill -9` (or the kernel's out-of-memory killer)
leaves them, and a server's copy of a 100k-run store is hundreds of MB. So each folder holds
an flock on its OWNER file for as long as the process that made it lives (the kernel lets go
at its end, however it ends), and making a folder first removes those of its kind whose lock
no process holds. A lock, not a pid in the name: a pid is reused, and one in another pid
namespace (a container sharing /tmp) would read as ended while its process runs.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path

OWNER = ".owner"
# the folders made here -> (the descriptor holding their lock, the pid of the process that
# made them: a process forked from it inherits this table, and removes none of them)
_OWNED: dict[Path, tuple[int, int]] = {}


def make(kind: str) -> Path:
    """A new folder `benchgraph-<kind>-XXXXXXXX`, held while this process lives; first the
    folders of this kind that ended processes left are removed."""
    sweep(kind)
    path = Path(tempfile.mkdtemp(prefix=f"benchgraph-{kind}-"))
    # locked under another name, then renamed: a sweep finds OWNER only once it is held
    fd = os.open(path / f"{OWNER}.new", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.rename(path / f"{OWNER}.new", path / OWNER)
    _OWNED[path] = (fd, os.getpid())
    return path


def remove(path: Path) -> None:
    """Remove a folder and let go of it; nothing in a process forked from the one that made
    it (a server's worker ending must not take its parent's folder)."""
    owned = _OWNED.get(path)
    if owned is not None and owned[1] != os.getpid():
        return
    shutil.rmtree(path, ignore_errors=True)
    if owned is not None:
        del _OWNED[path]
        os.close(owned[0])


def sweep(kind: str) -> list[Path]:
    """Remove the folders of this kind whose lock no process holds; the removed."""
    removed = []
    for left in Path(tempfile.gettempdir()).glob(f"benchgraph-{kind}-*"):
        if left in _OWNED:
            continue
        try:
            fd = os.open(left / OWNER, os.O_RDWR | os.O_CLOEXEC)
        except OSError:  # not made by make(), being made, or another user's
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # its process lives
            os.close(fd)
            continue
        shutil.rmtree(left, ignore_errors=True)
        os.close(fd)
        removed.append(left)
    return removed
