"""Temporary folders that a killed process does not leave for ever (benchgraph.scratch): a
build's pipes, a server's copy of the store, a remote store's dumps. The next process to make
one of the same kind removes those whose process has ended, however it ended, and never one
whose process still runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from benchgraph import scratch

MAKE = (
    "import sys\nfrom benchgraph import scratch\n"
    "print(scratch.make(sys.argv[1]), flush=True)\nsys.stdin.read()\n"
)


def held_elsewhere(tmp: Path, kind: str) -> tuple[subprocess.Popen, Path]:
    """A process that made a folder of `kind` in `tmp` and lives until its stdin closes."""
    proc = subprocess.Popen(
        [sys.executable, "-c", MAKE, kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_processs_folder_goes_and_a_living_ones_stays(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    killed, killed_folder = held_elsewhere(tmp_path, "serve")
    living, living_folder = held_elsewhere(tmp_path, "serve")
    other_kind, other_folder = held_elsewhere(tmp_path, "load")
    try:
        (killed_folder / "store").mkdir()
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        other_kind.send_signal(signal.SIGKILL)
        other_kind.wait()
        made = scratch.make("serve")
        assert made.is_dir() and not killed_folder.exists()
        # alive, or of another kind (removed when a folder of its own kind is made)
        assert living_folder.is_dir() and other_folder.is_dir()
        assert scratch.sweep("serve") == []  # this process's own folder is held too
        scratch.remove(made)
        assert not made.exists()
    finally:
        assert living.stdin is not None
        living.stdin.close()
        living.wait()
    # a process that ended without removing its folder let go of it all the same
    assert scratch.sweep("serve") == [living_folder]


def test_a_forked_process_removes_none_of_its_parents_folders(tmp_path, monkeypatch):
    """A server's worker forked from the process that made a folder, ending, leaves it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = scratch.make("dumps")
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's own exit code says it)
        scratch.remove(made)
        os._exit(0 if made.is_dir() else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and made.is_dir()
    scratch.remove(made)
    assert not made.exists()
