"""`benchgraph serve` killed (kill -9, the out-of-memory killer): its server process and
their query workers end with it, not serving on for ever on its port, and the next serve
removes the folder of its copy of the store (benchgraph.scratch)."""

from __future__ import annotations

import signal
from pathlib import Path

import psutil

from web.web_support import start_server


def _running(p: psutil.Process) -> bool:
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_killed_serve_leaves_no_server_and_the_next_removes_its_folder(tmp_path, web_cache):
    server = start_server(tmp_path, web_cache)
    serve = psutil.Process(server.proc.pid)
    tree = serve.children(recursive=True)
    (started,) = [p for p in serve.children() if "benchgraph.web.server" in p.cmdline()]
    folder = Path(started.cmdline()[-1]).parent  # its serve.json's
    assert folder.name.startswith("benchgraph-serve-") and folder.is_dir()
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()
    _, alive = psutil.wait_procs(tree, timeout=60)
    left = [p.pid for p in alive if _running(p)]
    for p in alive:  # leave nothing for the next test, but fail on it
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    assert not left, f"outlived the killed serve: {left}"
    assert folder.is_dir()  # nothing removed it: its process was killed
    again = start_server(tmp_path, web_cache)
    try:
        assert not folder.exists()
    finally:
        again.stop()
