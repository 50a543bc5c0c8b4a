"""The serving process's own loop: it runs the server in a fresh process and waits for it,
passing on the signals that stop it, and rebuilds between looks when asked (reload.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from .reload import Reloader


def run_server_process(settings: Path, reloader: Reloader) -> int:
    """Run gunicorn in a fresh process and wait for it, passing on signals to stop; rebuild
    here, between looks at it, when SIGHUP or a change asks for it.

    gunicorn forks its workers; the build left RocksDB threads in this process, and a process
    forked from it would hang at exit waiting for threads it does not have. A fresh process
    has none."""
    proc = subprocess.Popen([sys.executable, "-m", "benchgraph.web.server", str(settings)])

    def forward(signum: int, _frame: object) -> None:
        reloader.stop()
        proc.send_signal(signum)

    def hangup(_signum: int, _frame: object) -> None:
        reloader.hangup()  # gunicorn would restart its workers on the same snapshot

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, hangup)
    try:
        while True:
            try:
                return proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                reloader.tick()
    finally:
        reloader.stop()  # and its builder
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:
            proc.terminate()
            proc.wait()
