"""A query's limits beyond time: its memory, its client leaving, the lanes that keep cheap
queries from waiting behind heavy ones, and /metrics counting every refusal by reason."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from urllib.parse import urlencode

import psutil
import pytest

from benchgraph.web import memory
from benchgraph.web.querypool import (
    ClientGone,
    PoolBusy,
    PoolSettings,
    QueryPool,
    QueryTimeout,
    default_memory_mb,
)
from web.web_support import InThread, start_server, wait_until

# The query: every pair of triples, sorted, of which one is kept. Oxigraph holds all
# n^2 rows to sort them (770 MB for the test records' 1,651 quads).
ORDER_BY_LIMIT_1 = "SELECT * { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c LIMIT 1"
# Every pair of triples, sent: a result of about 1 GB, under the server's result cap here.
HUGE_RESULT = "SELECT * { ?a ?b ?c . ?d ?e ?f }"
# n^4 rows to count: CPU for minutes, little memory.
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
ASK = "ASK { ?s ?p ?o }"
LIMIT_MB = 300
# Long enough that a query grows to the memory limit first on a loaded machine (at 20 s one
# was stopped by the time limit under load), and that waits below it are generous.
TIME_LIMIT = 120.0


@pytest.fixture(scope="module")
def limited(tmp_path_factory, web_cache):
    """A server with a small memory limit, a result cap above it and a long time limit."""
    server = start_server(
        tmp_path_factory.mktemp("limited"),
        web_cache,
        "--query-memory-mb",
        str(LIMIT_MB),
        "--max-result-mb",
        "4000",
        "--timeout",
        str(TIME_LIMIT),
    )
    yield server
    server.stop()


def query_workers(server) -> list[psutil.Process]:
    found = []
    for proc in psutil.Process(server.proc.pid).children(recursive=True):
        try:
            if "benchgraph.web.queryworker" in " ".join(proc.cmdline()):
                found.append(proc)
        except psutil.NoSuchProcess:
            pass
    return found


class PeakMemory:
    """The largest private resident memory any query worker of a server reaches, sampled
    every 20 ms in a thread."""

    def __init__(self, server) -> None:
        self.server, self.peak, self._stop = server, 0, threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            for proc in query_workers(self.server):
                try:
                    info = proc.memory_info()
                except psutil.NoSuchProcess:
                    continue
                self.peak = max(self.peak, info.rss - info.shared)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def settle(server) -> None:
    """Wait until every query worker is started and idle (none is still replacing another)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        workers = server.health()["query_workers"]
        if workers["idle"] == workers["workers"] == len(query_workers(server)):
            return
        time.sleep(0.1)
    raise AssertionError(f"the query workers did not settle: {workers}")


def alive(proc: psutil.Process) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def cpu_seconds(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def refusals(server_or_client, reason: str) -> int:
    """benchgraph_refusals_total for `reason`, summed over statuses, from /metrics."""
    if hasattr(server_or_client, "request"):
        text = server_or_client.request("GET", "/metrics")[2].decode()
    else:
        text = server_or_client.get("/metrics").get_data(as_text=True)
    pattern = rf'^benchgraph_refusals_total\{{reason="{re.escape(reason)}",status="\d+"\}} (\d+)$'
    return sum(int(n) for n in re.findall(pattern, text, re.M))


# --- memory ---------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("query", [ORDER_BY_LIMIT_1, HUGE_RESULT], ids=["order-by", "huge"])
def test_a_query_over_the_memory_limit_is_stopped_with_a_clear_error(limited, query):
    restarts = limited.health()["query_workers"]["restarts"]
    before = refusals(limited, "memory")
    watch = PeakMemory(limited)
    status, _headers, body = limited.query(query, timeout=TIME_LIMIT + 10)
    peak = watch.stop()
    assert status == 507, body[:500]
    error = json.loads(body)
    assert error["title"] == "query used too much memory"
    assert f"limit of {LIMIT_MB} MB per query" in error["error"]
    assert "add a LIMIT" in error["error"]
    # the query did grow toward the limit, and its worker never went far past it
    assert LIMIT_MB * memory.MB // 2 < peak < LIMIT_MB * memory.MB * 1.1, peak / memory.MB
    assert refusals(limited, "memory") == before + 1
    assert limited.health()["query_workers"]["restarts"] > restarts
    status, _headers, body = limited.query(ASK)
    assert status == 200 and json.loads(body)["boolean"] is True


# --- a client that leaves -------------------------------------------------------------------
def send_and_leave(server, query: str) -> socket.socket:
    """A raw HTTP request of `query`; the caller closes the socket without reading."""
    body = urlencode({"query": query}).encode()
    sock = socket.create_connection((server.host, server.port))
    sock.sendall(
        b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    return sock


@pytest.mark.slow
def test_a_query_whose_client_left_is_stopped(limited):
    timeouts = refusals(limited, "timeout")
    gone = refusals(limited, "client-gone")
    settle(limited)
    restarts = limited.health()["query_workers"]["restarts"]
    workers = {proc: cpu_seconds(proc) for proc in query_workers(limited)}
    clients = [send_and_leave(limited, RUNAWAY) for _ in range(5)]

    def running() -> list[psutil.Process]:
        # an idle worker uses no CPU at all (on a shared machine a niced query may get little)
        return [proc for proc, used in workers.items() if cpu_seconds(proc) > used + 0.01]

    wait_until(lambda: len(running()) >= 3, timeout=TIME_LIMIT / 4, what="the slow queries running")
    busy = running()
    for sock in clients:
        sock.close()
    deadline = time.monotonic() + TIME_LIMIT / 2  # well before the time limit would stop them
    while refusals(limited, "client-gone") < gone + 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert refusals(limited, "client-gone") == gone + 5
    assert refusals(limited, "timeout") == timeouts
    # the workers that ran them were killed (and replaced): a kill is sent as the refusal is
    # counted, and takes a moment to land on a loaded machine
    wait_until(
        lambda: not any(alive(proc) for proc in busy), timeout=30, what="the busy workers killed"
    )
    wait_until(
        lambda: limited.health()["query_workers"]["restarts"] >= restarts + len(busy),
        timeout=30,
        what="the killed workers replaced",
    )
    status, _headers, body = limited.query(ASK, timeout=TIME_LIMIT / 2)
    assert status == 200 and json.loads(body)["boolean"] is True


# --- lanes ----------------------------------------------------------------------------------
@pytest.fixture
def laned(served):
    """One short slot, one long slot, one spare; a query is long after 0.3 s."""
    pool = QueryPool(
        PoolSettings(
            store=str(served.store_path), size=1, long_size=1, spare=1, long_after=0.3, timeout=4.0
        )
    )
    yield pool
    pool.close()


def run_in_thread(pool: QueryPool, query: str) -> InThread:
    """A runaway query in a thread; `.raised(QueryTimeout)` checks its end in the test's."""
    return InThread(pool.run, {"query": query})


ASK_JOB = {"query": ASK, "accept": "application/sparql-results+json"}


def test_a_long_query_leaves_the_short_lane_to_cheap_ones(laned):
    runaway = run_in_thread(laned, RUNAWAY)
    wait_until(lambda: laned.stats()["long"] == 1, what="the runaway moving to the long lane")
    # the one short slot is free again, and a warm worker waits for it
    for _ in range(3):
        header, body = laned.run(ASK_JOB, 0.5)
        assert header["status"] == 200 and b"true" in body
    runaway.raised(QueryTimeout)


def niced(pool: QueryPool) -> int:
    """How many of the pool's workers run at a lowered priority (a long query making way)."""
    count = 0
    for pid in pool.pids():
        try:
            count += psutil.Process(pid).nice() > 0
        except psutil.NoSuchProcess:
            pass
    return count


def test_the_long_lane_is_capped(laned):
    first = run_in_thread(laned, RUNAWAY)
    wait_until(lambda: laned.stats()["long"] == 1, what="the first runaway moving to the long lane")
    second = run_in_thread(laned, RUNAWAY)  # finds the long lane full: keeps its short slot
    # it holds the short slot once it has a worker, and stays there past the lane's 0.3 s
    wait_until(
        lambda: laned.stats()["idle"] == 0 or not second.is_alive(),
        what="the second runaway taking a worker",
    )
    # both lowered in priority (nice_after, 0.5 s, past long_after's 0.3 s): the pool has looked
    # at the second past the moment it would move, were the long lane not full
    wait_until(lambda: niced(laned) == 2, what="both runaways lowered in priority")
    assert laned.stats()["long"] == 1
    with pytest.raises(PoolBusy):
        laned.run(ASK_JOB, 0.5)
    first.raised(QueryTimeout)
    second.raised(QueryTimeout)


def test_the_pool_grows_with_the_long_lane_and_shrinks_back(served):
    """Each query moving to the long lane is replaced in the short one; stopped, the long
    ones are not replaced. The queries run until the test lets them go (their client
    "leaves"), so a loaded machine's slow starts cannot end them before the pool has grown."""
    pool = QueryPool(
        PoolSettings(
            store=str(served.store_path),
            size=1,
            long_size=2,
            spare=1,
            long_after=0.05,
            idle_retire=0.5,
            timeout=300.0,
        )
    )
    try:
        # the short lane's and a spare: the long lane's start as queries move there
        assert pool.stats()["workers"] == 2
        leave = threading.Event()
        threads = [InThread(pool.run, {"query": RUNAWAY}, None, leave.is_set) for _ in range(2)]
        wait_until(
            lambda: pool.stats()["workers"] == 4,
            timeout=120,
            what="a worker started in the short lane for each query in the long one",
        )
        assert pool.stats()["long"] == 2
        leave.set()
        for thread in threads:
            thread.raised(ClientGone)
        # the two long ones were stopped and not replaced: enough are left
        assert pool.stats() == {"workers": 2, "idle": 2, "long": 0, "restarts": 2}
        assert pool.run(ASK_JOB)[0]["status"] == 200
    finally:
        pool.close()


# --- the default memory limit ---------------------------------------------------------------
def test_the_default_memory_limit_shares_half_the_machine(monkeypatch):
    monkeypatch.setattr(memory, "machine_memory", lambda: 24 * 1024 * memory.MB)
    # 2 server processes x (4 short + 8 long) queries share 12 GB
    assert default_memory_mb(2, 4) == 12 * 1024 // 24
    monkeypatch.setattr(memory, "machine_memory", lambda: 1024 * memory.MB)
    assert default_memory_mb(4, 8) == memory.FLOOR_MB


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_cgroup_limit_below_the_ram_wins(tmp_path, monkeypatch, version):
    limit = 3 * 1024 * memory.MB
    if version == "v2":
        (tmp_path / "proc").write_text("0::/box\n")
        folder = tmp_path / "cg" / "box"
        folder.mkdir(parents=True)
        (folder / "memory.max").write_text(f"{limit}\n")
    else:
        (tmp_path / "proc").write_text("4:memory:/box\n3:cpu:/box\n")
        folder = tmp_path / "cg" / "memory" / "box"
        folder.mkdir(parents=True)
        (folder / "memory.limit_in_bytes").write_text(f"{limit}\n")
    monkeypatch.setattr(memory, "PROC_CGROUP", tmp_path / "proc")
    monkeypatch.setattr(memory, "CGROUP", tmp_path / "cg")
    assert memory.machine_memory() == limit
    (folder / ("memory.max" if version == "v2" else "memory.limit_in_bytes")).write_text(
        "max\n" if version == "v2" else "9223372036854771712\n"
    )
    assert memory.machine_memory() > limit  # no limit: the RAM


# --- refusals on /metrics -------------------------------------------------------------------
def test_metrics_count_refusals_by_reason(client, app):
    reasons = [
        "malformed",
        "update",
        "not-found",
        "unsupported-media-type",
        "payload-too-large",
        "method-not-allowed",
        "uri-too-long",
    ]
    before = {r: refusals(client, r) for r in reasons}
    assert client.get("/sparql", query_string={"query": "SELECT nonsense"}).status_code == 400
    assert client.post("/sparql", data={"update": "CLEAR ALL"}).status_code == 403
    assert client.post("/sparql", data={"update": "DROP ALL"}).status_code == 403
    assert client.get("/no/such/page").status_code == 404
    assert client.post("/sparql", data=b"ASK {}", content_type="text/plain").status_code == 415
    big = app.config["MAX_CONTENT_LENGTH"] + 1
    # refused by werkzeug before the view runs
    assert client.post("/sparql", data={"query": "ASK {} #" + "x" * big}).status_code == 413
    assert client.delete("/sparql").status_code == 405
    # refused before routing (web/limits.py)
    assert client.get("/" + "a" * (app.config["MAX_PATH_BYTES"] + 1)).status_code == 414
    after = {r: refusals(client, r) for r in reasons}
    assert {r: after[r] - before[r] for r in reasons} == {
        "malformed": 1,
        "update": 2,
        "not-found": 1,
        "unsupported-media-type": 1,
        "payload-too-large": 1,
        "method-not-allowed": 1,
        "uri-too-long": 1,
    }
    text = client.get("/metrics").get_data(as_text=True)
    assert "# TYPE benchgraph_refusals_total counter" in text
    assert re.search(r'^benchgraph_refusals_total\{reason="update",status="403"\} \d+$', text, re.M)
