"""A killed build leaves nothing behind that holds its folder, and a command waiting on a lock
says what it waits for, since when, and who holds it (issue 15, point 11: after `kill -9` of
a build its worker processes lived on holding build.lock, and every later build, query or
serve of the folder hung with no message)."""

from __future__ import annotations

import ctypes
import fcntl
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import psutil
import pytest

from benchgraph.errors import CannotRun
from benchgraph.locks import held, holder_text, worker_started
from benchgraph.pipeline.steps import _open_store
from paths import ROOT, TEST_DATA

BENCHGRAPH = [sys.executable, "-m", "benchgraph"]
LIMIT = 300  # seconds any one command may take here before the test calls it hung


def _run(*args: str, env: dict, timeout: float = LIMIT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*BENCHGRAPH, *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def _env(cache: Path) -> dict:
    return {**os.environ, "BENCHGRAPH_CACHE": str(cache)}


def _built_store(done: subprocess.CompletedProcess) -> Path:
    """The store path a `benchgraph build` names (on stderr: "built N records ... -> PATH")."""
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("built "))
    return Path(line.rpartition(" -> ")[2])


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    """2,000 synthetic runs (benchmarks/synth.py): enough for the build's worker processes
    and a few seconds of building."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import synth
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("kill") / "data"
    synth.generate(folder, 2000)
    return folder


def _workers(parent: psutil.Process, children: list[psutil.Process]) -> list[psutil.Process]:
    """The build's worker processes among its children (not git, which it also runs)."""
    out = []
    for p in children:
        try:
            if p.name() == parent.name():
                out.append(p)
        except psutil.NoSuchProcess:
            continue
    return out


def _watched_build(data: Path, env: dict) -> tuple[float, float]:
    """Build data; return how long the build took and how long its workers ran."""
    start = time.monotonic()
    build = subprocess.Popen(
        [*BENCHGRAPH, "build", "--data", str(data)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    parent = psutil.Process(build.pid)
    first = last = None
    while build.poll() is None:
        try:
            if _workers(parent, parent.children(recursive=True)):
                first, last = first or time.monotonic(), time.monotonic()
        except psutil.NoSuchProcess:
            break
        time.sleep(0.01)
    assert build.wait(LIMIT) == 0, build.stderr.read()
    assert first is not None, "the build started no worker: too few records"
    return time.monotonic() - start, last - first


def _kill_at(data: Path, env: dict, since: str, after: float) -> tuple[list[int], list[int]]:
    """Start a build, kill -9 it `after` seconds from its start (`since` "start") or from
    when its first worker process appeared ("workers"), and return (its descendants when
    it was killed, those still alive 10 s later)."""
    build = subprocess.Popen(
        [*BENCHGRAPH, "build", "--data", str(data)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    parent = psutil.Process(build.pid)
    deadline = time.monotonic() + LIMIT
    mark = time.monotonic() if since == "start" else None
    children: list[psutil.Process] = []
    while build.poll() is None and time.monotonic() < deadline:
        try:
            now = parent.children(recursive=True)
        except psutil.NoSuchProcess:
            break
        children = now or children
        working = _workers(parent, now)
        if mark is None and working:
            mark = time.monotonic()
        # a kill "since workers" lands while workers run (on a loaded machine a worker may
        # be between chunks at the planned moment: the kill waits for the next one)
        if mark is not None and time.monotonic() - mark >= after and (since == "start" or working):
            break
        time.sleep(0.01)
    try:
        children = parent.children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    build.send_signal(signal.SIGKILL)
    build.wait()
    _, alive = psutil.wait_procs(children, timeout=10)
    alive = [p for p in alive if _running(p)]  # a zombie has ended: it holds nothing
    for p in alive:  # leave nothing behind for the next test, but fail on it
        p.kill()
    return [p.pid for p in children], [p.pid for p in alive]


def _running(p: psutil.Process) -> bool:
    """Whether p runs: not ended, and not ended and waiting to be reaped (its parent gone,
    a process reaps it that may take its time)."""
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_a_killed_build_leaves_no_process_and_the_next_build_gives_the_same_data(
    synthetic, tmp_path
):
    clean_env = _env(tmp_path / "clean-cache")
    took, span = _watched_build(synthetic, clean_env)
    reference = tmp_path / "clean.nq"
    assert (
        _run(
            "export",
            "--data",
            str(synthetic),
            "--format",
            "nq",
            "--out",
            str(reference),
            env=clean_env,
        ).returncode
        == 0
    )

    kills = []
    # as its first worker starts, while they convert, and late (the store loading, the
    # rules deriving); each on a cache of its own, so that each killed build has all to do
    for i, (since, after) in enumerate(
        [("workers", 0), ("workers", 0.4 * span), ("workers", 0.8 * span), ("start", 0.9 * took)]
    ):
        for attempt in range(4):
            env = _env(tmp_path / f"killed-cache-{i}-{attempt}")
            had, alive = _kill_at(synthetic, env, since, after)
            # on a loaded machine the workers may be done before the planned moment: the
            # kill then met no worker, so it is tried again earlier, on a fresh cache
            if had or since == "start" or alive:
                break
            after /= 2
        kills.append((since, round(after, 1), len(had)))
        assert not alive, f"kill -9 {after:.1f} s after {since}: pid {alive} outlived the build"
        # the next commands neither hang (the timeout) nor fail, and give the same data
        again = _run("build", "--data", str(synthetic), env=env)
        assert again.returncode == 0, again.stderr
        assert "waiting for" not in again.stderr, again.stderr
        query = _run(
            "query",
            "--data",
            str(synthetic),
            "--format",
            "csv",
            "SELECT (COUNT(*) AS ?n) WHERE { ?run a bg:BenchmarkRun }",
            env=env,
        )
        assert query.returncode == 0, query.stderr
        assert query.stdout.split() == ["n", "2000"]
        dump = tmp_path / f"after-kill-{i}.nq"
        assert (
            _run(
                "export", "--data", str(synthetic), "--format", "nq", "--out", str(dump), env=env
            ).returncode
            == 0
        )
        assert dump.read_bytes() == reference.read_bytes(), f"kill {i}: other data"
    print(
        f"clean build {took:.1f} s, workers for {span:.1f} s; kills (since, after s, "
        f"descendants): {kills}"
    )
    assert sum(1 for *_, n in kills if n) >= 2, f"too few kills met the workers: {kills}"


def test_a_command_waiting_for_the_build_says_who_holds_it_and_goes_on_after(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(TEST_DATA / "reasoning" / "data", data)
    env = _env(tmp_path / "cache")
    lock = _built_store(_run("build", "--data", str(data), env=env)).parent / "build.lock"
    with held(lock, "the test"):
        taken = time.time()
        query = subprocess.Popen(
            [*BENCHGRAPH, "query", "--data", str(data), "ASK { }"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        said, _, _ = select.select([query.stderr], [], [], 60)
        assert said, "the command waited without a word"
        line = query.stderr.readline()
        assert line.startswith(f"benchgraph: waiting for {lock} ("), line
        assert f"held by pid {os.getpid()} (" in line
        since = re.search(r" since (\d\d:\d\d:\d\d) ", line)
        assert since, line
        assert since[1] in {
            time.strftime("%H:%M:%S", time.localtime(taken + d)) for d in (-1, 0, 1)
        }
        time.sleep(0.5)
        assert query.poll() is None, "the command went on while the lock was held"
    out, err = query.communicate(timeout=LIMIT)
    assert query.returncode == 0, err
    assert out.strip() == "true"
    assert "taken after" in err


def test_a_lock_whose_holder_ended_names_the_processes_keeping_it(tmp_path):
    """A holder that forked a child and was killed: the child keeps the lock, and a waiter
    is told both."""
    lock = tmp_path / "build.lock"
    code = f"""
import os, sys, time
from pathlib import Path
from benchgraph.locks import held
with held(Path({str(lock)!r}), "the test") as fd:
    keep = os.dup(fd)  # as a process forked before the lock let go of inherited locks
    child = os.fork()
    if child == 0:
        time.sleep(60)
        os._exit(0)
    print(child, flush=True)
    time.sleep(60)
"""
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(holder.stdout.readline())
    try:
        assert f"held by pid {holder.pid} (" in holder_text(lock)
        assert "which has ended" not in holder_text(lock)
        holder.kill()
        holder.wait()
        text = holder_text(lock)
        assert f"held by pid {holder.pid} (" in text and "which has ended" in text, text
        assert f"the lock is open in pid {child} (" in text, text
    finally:
        os.kill(child, signal.SIGKILL)


def _in_worker(lock: str) -> tuple[bool, int]:
    """Whether this process has the lock file open, and the signal it gets when its parent
    ends."""
    target = os.stat(lock)
    still_open = False
    for fd in os.listdir("/proc/self/fd"):
        try:
            st = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        still_open |= (st.st_ino, st.st_dev) == (target.st_ino, target.st_dev)
    sig = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)  # PR_GET_PDEATHSIG
    return still_open, sig.value


def test_a_worker_lets_go_of_the_lock_and_ends_with_its_parent(tmp_path):
    lock = tmp_path / "build.lock"
    with (
        held(lock, "the test"),
        ProcessPoolExecutor(
            1, mp_context=get_context("fork"), initializer=worker_started, initargs=(os.getpid(),)
        ) as pool,
    ):
        assert pool.submit(_in_worker, str(lock)).result() == (False, signal.SIGKILL)


def test_a_store_in_use_names_the_process_that_has_it(tmp_path):
    store = tmp_path / "store"
    code = f"""
import sys, time, pyoxigraph as ox
s = ox.Store({str(store)!r})
print("open", flush=True)
time.sleep(60)
"""
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(CannotRun, match=rf"in use \(held by pid {holder.pid}: "):
            _open_store(store)
    finally:
        holder.kill()
        holder.wait()


def _run_until_killed(running) -> None:
    running.set()
    time.sleep(60)


def test_no_forked_process_keeps_a_lock_its_parent_let_go(tmp_path):
    """Any child forked while the lock is held (a server's worker, say) does not hold it."""
    lock = tmp_path / "build.lock"
    fork = get_context("fork")
    running = fork.Event()
    with held(lock, "the test"):
        child = fork.Process(target=_run_until_killed, args=(running,))
        child.start()
        assert running.wait(30)
    try:
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError if kept
        finally:
            os.close(fd)
    finally:
        child.kill()
        child.join()
