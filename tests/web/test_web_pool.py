"""The query pool alone: answers, the time limit, a busy pool, a worker killed from outside."""

from __future__ import annotations

import time

import psutil
import pytest

from benchgraph.web.querypool import PoolBusy, PoolSettings, QueryPool, QueryTimeout, WorkerDied
from web.web_support import InThread, wait_until

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
ASK = {"query": "ASK { ?s ?p ?o }", "accept": "application/sparql-results+json"}


@pytest.fixture
def pool(served):
    """One worker, started: a test's "idle == 0" then means a query has taken it (a worker
    still starting is not idle either, and on a loaded machine a start takes seconds)."""
    one = QueryPool(PoolSettings(store=str(served.store_path), size=1, timeout=1.0))
    wait_for_workers(one, 1)
    yield one
    one.close()


def wait_for_workers(pool: QueryPool, n: int) -> None:
    wait_until(lambda: pool.stats()["idle"] >= n, timeout=60, what=f"{n} idle worker(s)")


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_answers_and_reuses_its_worker(pool):
    for _ in range(3):
        header, body = pool.run(ASK)
        assert header["status"] == 200 and b'"boolean":true' in body
    assert pool.stats() == {"workers": 1, "idle": 1, "long": 0, "restarts": 0}


def test_timeout_kills_and_replaces_the_worker(pool):
    worker = psutil.Process(pool.pids()[0])
    with pytest.raises(QueryTimeout):
        pool.run({"query": RUNAWAY})
    assert not worker.is_running() or worker.status() == psutil.STATUS_ZOMBIE
    wait_for_workers(pool, 1)
    assert pool.run(ASK)[0]["status"] == 200
    assert pool.stats()["restarts"] == 1


def test_busy_pool_says_so(pool):
    runaway = InThread(pool.run, {"query": RUNAWAY}, 3.0)
    wait_until(lambda: pool.stats()["idle"] == 0, what="the runaway taking the one worker")
    with pytest.raises(PoolBusy):
        pool.run(ASK, 0.3)
    runaway.raised(QueryTimeout)


def test_a_worker_killed_from_outside_is_reported_and_replaced(pool):
    """Killed while it runs the query, not before: a worker found dead as its query is sent
    is replaced and the query retried, which is another behaviour. An idle worker blocks on
    its pipe and spends no CPU; CPU spent after the query is sent is the sign it runs it."""
    worker = psutil.Process(pool.pids()[0])
    idle_cpu = sum(worker.cpu_times()[:2])
    runaway = InThread(pool.run, {"query": RUNAWAY}, 60.0)
    wait_until(
        lambda: sum(worker.cpu_times()[:2]) > idle_cpu + 0.1, what="the worker running the query"
    )
    worker.kill()
    runaway.raised(WorkerDied)
    wait_for_workers(pool, 1)
    assert pool.run(ASK)[0]["status"] == 200


def test_a_store_that_cannot_open_fails_at_start(tmp_path):
    with pytest.raises(RuntimeError, match="could not open the store"):
        QueryPool(PoolSettings(store=str(tmp_path / "nothing-here"), size=1))


def test_a_long_query_runs_at_lower_priority_once_another_comes(served):
    """A query past nice_after makes way only for another; alone it keeps its priority. Its
    move to the long lane, set for later than nice_after, is the sign that the pool has looked
    at it past nice_after (and found nothing to make way for)."""
    pool = QueryPool(
        PoolSettings(
            store=str(served.store_path), size=1, long_size=1, nice_after=0.2, long_after=0.4
        )
    )
    try:
        worker = psutil.Process(pool.pids()[0])
        runaway = InThread(pool.run, {"query": RUNAWAY}, 3.0)
        wait_until(lambda: pool.stats()["long"] == 1, what="the runaway moving to the long lane")
        assert worker.nice() == 0  # alone: nothing to make way for
        waiting = InThread(pool.run, ASK, 30.0)
        wait_until(lambda: worker.nice() == 10, what="the long query's lower priority")
        runaway.raised(QueryTimeout)
        assert waiting.returned()[0]["status"] == 200
        wait_for_workers(pool, 1)
        assert all(psutil.Process(pid).nice() == 0 for pid in pool.pids())
    finally:
        pool.close()


def test_a_worker_to_recycle_serves_until_its_replacement_has_started(served):
    """A worker whose memory grew past recycle_mb is replaced, but stays on (borrowed last)
    until the fresh one has started: the pool never has fewer workers ready than it keeps,
    and a query right after is answered at once by the old one."""
    pool = QueryPool(
        PoolSettings(store=str(served.store_path), size=1, timeout=5.0, recycle_mb=1)
    )  # every worker holds more than 1 MB
    try:
        old = pool.pids()
        assert pool.run(ASK)[0]["status"] == 200
        assert pool.pids()[:1] == old  # still there while its replacement starts
        assert pool.stats()["idle"] >= 1
        assert pool.run(ASK)[0]["status"] == 200
        wait_until(lambda: old[0] not in pool.pids(), what="the old worker let go")
        assert len(pool.pids()) >= 1
        # stopped as it is let go: its exit may take a moment to land on a loaded machine
        wait_until(lambda: not alive(old[0]), what="the old worker ended")
        assert pool.run(ASK)[0]["status"] == 200
        assert pool.stats()["restarts"] >= 1
    finally:
        pool.close()


class _SlowConnection:
    """A connection whose close takes a moment and that, like an fd, must be closed once."""

    def __init__(self):
        self.closes = 0

    def close(self):
        self.closes += 1
        if self.closes > 1:
            raise OSError(9, "Bad file descriptor")
        time.sleep(0.2)  # the window in which another thread also stops the worker


def test_a_worker_stopped_by_two_threads_at_once_is_closed_once():
    """close() and the thread whose query the worker ran may stop it together (the pool
    closed while a dump was being written): its pipes are closed once, and neither raises."""
    import subprocess
    import sys
    import threading

    from benchgraph.web import querypool

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    send, recv = _SlowConnection(), _SlowConnection()
    worker = querypool._Worker(proc=proc, send=send, recv=recv)
    errors = []

    def stop():
        try:
            querypool._kill(worker)
        except OSError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=stop) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == [] and (send.closes, recv.closes) == (1, 1)
    assert proc.poll() is not None


def test_closing_the_pool_while_a_query_runs_ends_that_query_with_a_pool_error(pool):
    runaway = InThread(pool.run, {"query": RUNAWAY}, 10.0)
    wait_until(lambda: pool.stats()["idle"] == 0, what="the runaway taking the one worker")
    pool.close()  # must not raise, whatever the query's thread does meanwhile
    runaway.raised(WorkerDied)
