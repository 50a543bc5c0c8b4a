"""Locks between benchgraph processes that say who holds them, and worker processes that
neither outlive the process that forked them nor keep its locks.

A lock is an flock on a file, and the file names its holder while it is held: pid, command
line and since when. A command that finds the lock taken says on stderr what it waits for
and who holds it, then waits. A process forked while a lock is held shares it (flock belongs
to the open file, which fork shares), so a build's workers that lived on after `kill -9` of
the build kept every later build, query and serve of the folder waiting, silently: a
forked process closes the locks it inherited (_let_go), and the build's workers end with
their parent (worker_started).
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

PR_SET_PDEATHSIG = 1  # linux/prctl.h
_HELD: set[int] = set()  # descriptors of the locks this process holds


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextmanager
def held(path: Path, waits_for: str, say: Callable[[str], None] = _say) -> Iterator[int]:
    """Hold the exclusive lock `path`, waiting for it if another process holds it; first
    saying so: what the lock is for (`waits_for`), who holds it and since when."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    _HELD.add(fd)  # from here: a process forked while this one waits would share the lock
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"benchgraph: waiting for {path} ({waits_for}): {holder_text(path)}")
            start = time.monotonic()
            fcntl.flock(fd, fcntl.LOCK_EX)
            say(f"benchgraph: {path}: taken after {time.monotonic() - start:.1f} s of waiting")
        _write_holder(fd)
        try:
            yield fd
        finally:
            os.ftruncate(fd, 0)  # while still held: an empty lock file names no holder
    finally:
        _HELD.discard(fd)
        os.close(fd)  # drops the lock


def _write_holder(fd: int) -> None:
    os.ftruncate(fd, 0)
    me = {
        "pid": os.getpid(),
        "started": _start_ticks(os.getpid()),
        "command": _command(os.getpid()),
        "since": time.time(),
    }
    os.pwrite(fd, json.dumps(me).encode() + b"\n", 0)


def holder_text(path: Path) -> str:
    """Who holds the lock `path`, as its file names the holder: "held by pid N (command)
    since 12:34:56", saying so when that process has ended and naming the processes that
    still have the file open (children forked while it held the lock)."""
    try:
        holder = json.loads(Path(path).read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        holder = None
    others = [p for p in open_by(path) if p != os.getpid()]
    if not isinstance(holder, dict) or "pid" not in holder:
        text = "held by a process that has not named itself yet"
    else:
        pid = holder["pid"]
        since = time.strftime("%H:%M:%S", time.localtime(holder.get("since", 0)))
        ago = max(time.time() - holder.get("since", 0), 0)
        text = f"held by pid {pid} ({holder.get('command') or '?'}) since {since} ({ago:.0f} s ago)"
        if _alive(pid, holder.get("started")):
            return text
        text += ", which has ended"
        others = [p for p in others if p != pid]
    if others:
        named = ", ".join(f"{p} ({_command(p) or '?'})" for p in others)
        text += f"; the lock is open in pid {named}"
    return text


def _alive(pid: int, started: int | None) -> bool:
    """Whether process `pid` runs and is the one that started at `started` (not a reused pid)."""
    now = _start_ticks(pid)
    return now is not None and (started is None or now == started)


def _start_ticks(pid: int) -> int | None:
    """When process `pid` started, in clock ticks since boot; None when there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[19])  # field 22, after the command's name


def _command(pid: int) -> str:
    """Process `pid`'s command line as a person typed it: `benchgraph build --data data`,
    not `/path/.venv/bin/python /path/.venv/bin/benchgraph build ...`."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return ""
    words = [w for w in words if w]
    if len(words) > 1 and os.path.basename(words[0]).startswith("python"):
        words = words[1:]
    if words:
        words[0] = os.path.basename(words[0])
    text = " ".join(" ".join(words).split())  # one line, whatever `python -c` was given
    return text if len(text) <= 200 else text[:199] + "…"


def open_by(path: Path) -> list[int]:
    """The processes (that this one may look at) with the file `path` open."""
    try:
        target = os.stat(path)
    except OSError:
        return []
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fds = os.scandir(f"/proc/{entry.name}/fd")
            with fds:
                for fd in fds:
                    st = os.stat(fd.path)
                    if (st.st_ino, st.st_dev) == (target.st_ino, target.st_dev):
                        found.append(int(entry.name))
                        break
        except OSError:  # gone, or not ours to look at
            continue
    return sorted(found)


def posix_lock_holder(path: Path) -> str:
    """Who holds a POSIX (fcntl) lock on `path`, as RocksDB locks a store's LOCK file:
    " (held by pid N: command)", or "" when none can be named."""
    try:
        st = os.stat(path)
        locks = Path("/proc/locks").read_text()
    except OSError:
        return ""
    for line in locks.splitlines():
        parts = line.split()
        if len(parts) > 5 and parts[1] == "POSIX" and parts[5].endswith(f":{st.st_ino}"):
            pid = int(parts[4])
            return f" (held by pid {pid}: {_command(pid) or 'a process in another namespace'})"
    return ""


def _let_go() -> None:
    """In any process just forked: close the locks the parent holds (they stay the
    parent's), so that no child, a build's worker or a server's, keeps them once the
    parent has ended."""
    for fd in list(_HELD):
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


os.register_at_fork(after_in_child=_let_go)


def worker_started(parent: int) -> None:
    """In a worker process just forked: end when the parent does (Linux sends SIGKILL when
    the thread that forked this process ends, so a pool must be used from the thread that
    made it), end now if the parent is already gone, and let go of the parent's locks
    (_let_go did, at the fork)."""
    _let_go()
    end_with(parent, signal.SIGKILL)


def end_with(parent: int, signum: int) -> None:
    """Have this process sent `signum` when its parent, `parent`, ends, however it ends
    (Linux sends it when the parent's thread that started this process ends); end now if the
    parent is already gone."""
    ending_with(signum, parent)()


def ending_with(signum: int, parent: int | None = None) -> Callable[[], None]:
    """end_with as a subprocess preexec_fn: the child is sent `signum` when this process
    (`parent`) ends. libc is found here, before the fork: the child only calls it."""
    parent = os.getpid() if parent is None else parent
    prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None

    def child() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before prctl took effect
            os._exit(1)

    return child
