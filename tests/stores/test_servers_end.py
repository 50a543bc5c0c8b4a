"""The store servers the tests start end with the test process, however it ends: a test run
killed with `kill -9` (a CI job cancelled, the out-of-memory killer) never reaches their
`stop`, and left Oxigraph and Virtuoso running on their ports with their files open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from stores.conftest import _available

SERVERS = Path(__file__).with_name("servers.py")


def _running(p: psutil.Process) -> bool:
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("name", ["oxigraph", "virtuoso"])
def test_a_killed_test_process_leaves_no_store_server(name, tmp_path):
    _available(name)
    # a test process of its own, as a test run starts one (servers.py started by hand)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SERVERS.parent.parent), *sys.path])}
    runner = subprocess.Popen(
        [sys.executable, str(SERVERS), name, str(tmp_path / name)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = runner.stdout.readline()  # once the server answers: its URLs and pid
        assert line, f"the {name} server did not start"
        server = psutil.Process(int(line.split()[-1]))
        assert _running(server)
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    _, alive = psutil.wait_procs([server], timeout=120)
    left = [p.pid for p in alive if _running(p)]
    for p in alive:  # leave nothing behind, but fail on it
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    assert not left, f"the {name} server outlived the killed test process: {left}"
