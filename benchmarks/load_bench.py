"""Load benchmark: cheap and heavy queries against `benchgraph serve`, idle and under load.

    python benchmarks/load_bench.py [--duration 60] [--clients 8] [--report FILE]
    python benchmarks/load_bench.py --short      # about 10 s of load, fewer idle samples
    python benchmarks/load_bench.py --slowloris 50 --slowloris-duration 30
    python benchmarks/load_bench.py --stall-clients 40 --stall-duration 20

Builds the shipped data/ (in a private cache), starts `benchgraph serve` on 127.0.0.1 with its
defaults, and measures each class of query alone (idle), then under load: `--clients` clients
each sending cheap and heavy queries in a seeded random mix, back to back, plus one runaway
client whose query runs to the server's time limit, again and again, for `--duration`
seconds. Then, with `--slowloris` connections each sending one byte of an endless request head
a second (from 127.0.0.2 and up, SLOW_PER_ADDRESS to an address, so that the per-address cap
leaves them all open; one closed by the server is opened again), one client sends cheap
queries one after another, each on a new connection, as a new visitor would. Then the stall
phases (issue 35), each `--stall-duration` seconds with `--stall-clients` connections from one
address (127.0.0.2) and from four (127.0.0.2-5): slow-body, POSTs declaring a 1,000,000-byte
body and sending one byte of it a second (one the server ends is opened again); no-read, GETs
of a large answer that are never read (sent once, and waited for until the server is writing
every answer). Meanwhile, from 127.0.0.10, a cheap `ASK {}` on a new connection each time
and, on a kept-alive connection, a saved query back to back; the same pair also runs in a
phase with no stalling client, its speed there the saved query's solo speed. Then the
over-budget phase: `--over-budget-clients` clients sending refusal_bench.py's over-budget
texts back to back beside the same pair, after its own solo phase. Reports
requests served, errors, p50/p95/max per class, the server's memory (PSS and RSS summed over
its processes) before and after, and the machine's load average in each phase. Machines are
noisy, so each class's latency under load is also given as a ratio to its own idle latency,
measured in the same run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import re
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import psutil

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "data"
REPORTS = ROOT / "benchmarks" / "reports"
HOST = "127.0.0.1"
# A point lookup: everything said of one accelerator.
CHEAP = "SELECT ?p ?o WHERE { <https://w3id.org/benchgraph/id/accelerators/nvidia-h100-sxm> ?p ?o }"
HEAVY_EXAMPLES = ("best-per-model", "fabric-status")
# Every pair of quads, counted: 1.5e11 pairs run to any time limit in flat memory (a 4-way
# join would grow past the memory limit first and be stopped for that).
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . FILTER(?c != ?f) }"
HEAVY_SHARE = 0.5  # of a mixed client's queries
SLOW_BYTE = 1.0  # seconds between two bytes of a slow client, as in issue 24
SLOW_PER_ADDRESS = 25  # slow connections from one source address (the server's cap: 32)
STALL_BODY = 1_000_000  # bytes a slow body declares, as in issue 35
# About 10 MB of JSON on the shipped data: far more than the socket buffers of a client that
# reads nothing (4 MB at most for the server's side here).
UNREAD = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 20000"
ASK_ALONE = "ASK {}"
STALL_SAVED = "fabric-status"  # the saved query whose speed is kept under stalls
STALL_FROM = "127.0.0.10"  # the measuring client's address, apart from the stalling ones
STALL_SOURCES = {
    "one address": ["127.0.0.2"],
    "4 addresses": [f"127.0.0.{i}" for i in (2, 3, 4, 5)],
}
ASK_TARGET_MS = 50.0  # issue 35: the cheap ASK's p95 under stalls
SAVED_TARGET = 0.5  # issue 35: the saved query keeps at least half its solo speed
# The figures of the run before lanes, memory limits and disconnect checks (issue 15).
EARLIER = {
    "idle": {"cheap": (3, 17), "heavy": (309, 321)},
    "load": {"cheap": (228, 577), "heavy": (615, 1127)},
    "errors": 0,
}


class Client:
    """One keep-alive HTTP connection to the server; reconnects after an error."""

    def __init__(self, port: int, timeout: float, source: str | None = None):
        self.port, self.timeout, self.conn = port, timeout, None
        self.source = (source, 0) if source else None
        self.timing: dict[str, str] = {}

    def query(self, text: str) -> tuple[int, float]:
        """(status, seconds) of one form-POSTed query; status 0 for a broken connection.
        The server's own account (Server-Timing: in the pool, of which queued) is kept in
        `self.timing`."""
        body = urlencode({"query": text})
        start = time.perf_counter()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    HOST, self.port, timeout=self.timeout, source_address=self.source
                )
            self.conn.request(
                "POST",
                "/sparql",
                body,
                {
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Accept": "application/sparql-results+json",
                },
            )
            response = self.conn.getresponse()
            response.read()
            status = response.status
            self.timing = dict(
                re.findall(r"(\w+);dur=([\d.]+)", response.getheader("Server-Timing") or "")
            )
        except (OSError, http.client.HTTPException):
            self.close()
            status = 0
        return status, time.perf_counter() - start

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def saved_query(name: str) -> str:
    return (ROOT / "queries" / f"{name}.rq").read_text(encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(cache: Path, port: int, log: Path, extra: list[str]) -> subprocess.Popen:
    """`benchgraph serve` on the shipped data; returns once /healthz answers."""
    env = os.environ | {"BENCHGRAPH_CACHE": str(cache)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchgraph",
                "serve",
                "--data",
                str(SHIPPED),
                "--host",
                HOST,
                "--port",
                str(port),
                *extra,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    deadline = time.monotonic() + 600  # the first build of data/ takes a while
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"benchgraph serve exited {proc.returncode}:\n{log.read_text()}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return proc
        except OSError:
            pass
        time.sleep(0.5)
    stop_server(proc)
    raise SystemExit("benchgraph serve did not answer /healthz in 600 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def server_memory(proc: subprocess.Popen) -> dict[str, float]:
    """PSS and RSS in MB summed over the server and every process below it."""
    pss = rss = 0
    count = 0
    for p in [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]:
        try:
            info = p.memory_full_info()
        except psutil.Error:
            continue
        pss, rss, count = pss + info.pss, rss + info.rss, count + 1
    return {"pss_mb": round(pss / 2**20, 1), "rss_mb": round(rss / 2**20, 1), "processes": count}


def cpu_seconds(proc: subprocess.Popen) -> dict[str, float]:
    """CPU seconds so far: the whole machine's busy time, the server's (its processes, and the
    query workers they have stopped), and this script's."""
    busy = psutil.cpu_times()
    server = 0.0
    for p in [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        server += t.user + t.system + t.children_user + t.children_system
    mine = os.times()
    return {
        "machine": busy.user
        + busy.nice
        + busy.system
        + busy.irq
        + busy.softirq
        + getattr(busy, "steal", 0.0),
        "server": server,
        "client": mine.user + mine.system,
    }


def cpu_share(before: dict[str, float], after: dict[str, float], seconds: float) -> dict:
    """Of the machine's CPU in a phase, what the server, this script and other work used."""
    spent = {k: after[k] - before[k] for k in before}
    other = max(0.0, spent["machine"] - spent["server"] - spent["client"])
    cores = os.cpu_count() or 1
    return {
        "seconds": round(seconds, 1),
        "cores": cores,
        "server_cpu_s": round(spent["server"], 1),
        "client_cpu_s": round(spent["client"], 1),
        "other_cpu_s": round(other, 1),
        "idle_cpu_s": round(max(0.0, cores * seconds - spent["machine"]), 1),
    }


def summary(latencies: list[float]) -> dict[str, float]:
    """Count, p50, p95, max in milliseconds."""
    if not latencies:
        return {"n": 0, "p50_ms": None, "p95_ms": None, "max_ms": None}
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
    }


def idle(port: int, queries: dict[str, list[str]], samples: dict[str, int]) -> dict:
    """Each class alone, one query at a time."""
    client = Client(port, 120)
    out = {}
    for name, texts in queries.items():
        for text in texts:  # warm up: connection, the workers' caches
            client.query(text)
        latencies, errors = [], 0
        for i in range(samples[name]):
            status, seconds = client.query(texts[i % len(texts)])
            latencies.append(seconds)
            errors += status != 200
        out[name] = summary(latencies) | {"errors": errors}
    client.close()
    return out


def under_load(
    port: int, queries: dict[str, list[str]], clients: int, duration: float, timeout: float
) -> dict:
    """`clients` mixed clients and one runaway client for `duration` seconds."""
    stop = time.monotonic() + duration
    results: dict[str, list[float]] = {"cheap": [], "heavy": [], "runaway": []}
    waits: dict[str, list[float]] = {name: [] for name in results}
    slots: dict[str, list[float]] = {name: [] for name in results}
    statuses: dict[str, dict[int, int]] = {name: {} for name in results}
    lock = threading.Lock()

    def record(name: str, status: int, seconds: float, timing: dict[str, str]) -> None:
        with lock:
            results[name].append(seconds)
            if "wait" in timing:
                waits[name].append(float(timing["wait"]) / 1000)
            if "slot" in timing:
                slots[name].append(float(timing["slot"]) / 1000)
            statuses[name][status] = statuses[name].get(status, 0) + 1

    def mixed(seed: int) -> None:
        rng = random.Random(seed)
        client = Client(port, timeout + 30)
        while time.monotonic() < stop:
            name = "heavy" if rng.random() < HEAVY_SHARE else "cheap"
            client.timing = {}
            status, seconds = client.query(rng.choice(queries[name]))
            record(name, status, seconds, client.timing)
        client.close()

    def runaway() -> None:
        while time.monotonic() < stop:
            # the run ends at `stop`: a query still running then is left (its connection
            # closed), not waited for
            client = Client(port, max(0.1, stop - time.monotonic()))
            status, seconds = client.query(RUNAWAY)
            client.close()
            if status or time.monotonic() < stop:
                record("runaway", status, seconds, {})

    threads = [threading.Thread(target=mixed, args=(i,)) for i in range(clients)]
    threads.append(threading.Thread(target=runaway))
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    out = {"seconds": round(elapsed, 1)}
    for name, latencies in results.items():
        # the runaway's answer is its time-limit error, 503: expected, not an error
        expected = 503 if name == "runaway" else 200
        errors = sum(n for status, n in statuses[name].items() if status != expected)
        out[name] = summary(latencies) | {
            "errors": errors,
            "statuses": statuses[name],
            "queued": summary(waits[name]),
            "for_slot": summary(slots[name]),
        }
    return out


class SlowLoris:
    """`n` connections, each sending one byte of an endless request head every SLOW_BYTE
    seconds; one the server answers or closes is opened again. Counts what the server said."""

    HEAD = (
        b"GET /sparql?query=ASK%20%7B%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 1_000_000
    )

    def __init__(self, port: int, n: int):
        self.port, self.n = port, n
        self.conns: dict[socket.socket, int] = {}  # -> bytes sent
        self.sources: dict[socket.socket, int] = {}  # -> its place, which names its address
        self.answers: dict[str, int] = {}  # the server's status line's code, or "closed"
        self.opened = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open(self, i: int) -> None:
        source = f"127.0.0.{2 + i // SLOW_PER_ADDRESS}"
        try:
            sock = socket.create_connection(
                (HOST, self.port), timeout=5, source_address=(source, 0)
            )
        except OSError:
            self.answers["connect-failed"] = self.answers.get("connect-failed", 0) + 1
            return
        sock.setblocking(False)
        self.conns[sock] = 0
        self.sources[sock] = i
        self.opened += 1

    def start(self) -> None:
        for i in range(self.n):
            self.open(i)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(SLOW_BYTE):
            with selectors.DefaultSelector() as sel:
                for sock in self.conns:
                    sel.register(sock, selectors.EVENT_READ)
                readable = {key.fileobj for key, _ in sel.select(0)}
            for sock in list(self.conns):
                ended = sock in readable
                if not ended:
                    try:
                        sock.send(self.HEAD[self.conns[sock] : self.conns[sock] + 1])
                        self.conns[sock] += 1
                    except OSError:
                        ended = True
                if ended:
                    self.ended(sock)
            taken = set(self.sources.values())
            for i in range(self.n):  # opened again from the same address
                if i not in taken and not self.stop.is_set():
                    self.open(i)

    def ended(self, sock: socket.socket) -> None:
        try:
            first = sock.recv(64)
        except OSError:
            first = b""
        code = first.split(b" ")[1].decode() if first.startswith(b"HTTP/") else "closed"
        self.answers[code] = self.answers.get(code, 0) + 1
        del self.conns[sock]
        del self.sources[sock]
        sock.close()

    def close(self) -> dict:
        self.stop.set()
        self.thread.join(30)
        still = len(self.conns)
        for sock in self.conns:
            sock.close()
        return {
            "connections": self.n,
            "opened": self.opened,
            "open_at_end": still,
            "answers": self.answers,
        }


def slowloris(port: int, query: str, n: int, duration: float) -> dict:
    """Cheap queries, each on a new connection, while `n` slow clients trickle heads."""
    slow = SlowLoris(port, n)
    slow.start()
    time.sleep(min(3.0, duration / 4))  # every slow connection has sent a few bytes
    load_avg = [round(os.getloadavg()[0], 1)]
    stop = time.monotonic() + duration
    latencies, statuses = [], {}
    while time.monotonic() < stop:
        client = Client(port, duration)  # a query unanswered by then counts as an error
        status, seconds = client.query(query)
        client.close()
        latencies.append(seconds)
        statuses[status] = statuses.get(status, 0) + 1
    load_avg.append(round(os.getloadavg()[0], 1))
    errors = sum(count for status, count in statuses.items() if status != 200)
    return {
        "cheap": summary(latencies) | {"errors": errors, "statuses": statuses},
        "slow": slow.close(),
        "seconds": duration,
        "load_average": load_avg,
    }


class Stallers:
    """`n` stalling connections spread over `sources`, kept by one thread. "slow-body": a POST
    declaring STALL_BODY bytes, sending one of them every SLOW_BYTE seconds; one the server
    ends is opened again. "no-read": a GET of UNREAD with a 4 KB receive window, never read;
    sent once. Counts how the server ended connections (its status code, or "closed")."""

    def __init__(self, port: int, mode: str, n: int, sources: list[str]):
        self.port, self.mode, self.n, self.sources = port, mode, n, sources
        self.conns: dict[socket.socket, int] = {}  # -> its place
        self.answers: dict[str, int] = {}
        self.opened = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def request(self) -> bytes:
        if self.mode == "slow-body":
            return (
                "POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/sparql-query\r\n"
                f"Content-Length: {STALL_BODY}\r\n\r\n"
            ).encode()
        path = "/sparql?" + urlencode({"query": UNREAD})
        return (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Accept: application/sparql-results+json\r\n\r\n"
        ).encode()

    def open(self, i: int) -> None:
        sock = socket.socket()
        try:
            if self.mode == "no-read":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(5)
            sock.bind((self.sources[i % len(self.sources)], 0))
            sock.connect((HOST, self.port))
            sock.sendall(self.request())
        except OSError:
            sock.close()
            self.count("connect-failed")
            return
        sock.setblocking(False)
        self.conns[sock] = i
        self.opened += 1

    def count(self, what: str) -> None:
        self.answers[what] = self.answers.get(what, 0) + 1

    def start(self) -> None:
        for i in range(self.n):
            self.open(i)
        if self.mode == "no-read":
            self.wait_written()
        self.thread.start()

    def wait_written(self, timeout: float = 300) -> None:
        """Until every no-read connection has its answer's first bytes: every query has run
        and the server is writing its answer (or ended the connection)."""
        deadline = time.monotonic() + timeout
        for sock in list(self.conns):
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                first = sock.recv(16, socket.MSG_PEEK)
            except OSError:
                first = b""
            finally:
                sock.setblocking(False)
            if not first.startswith(b"HTTP/1.1 200"):
                self.ended(sock)

    def run(self) -> None:
        while not self.stop.wait(SLOW_BYTE):
            if self.mode == "no-read":
                continue
            with selectors.DefaultSelector() as sel:
                for sock in self.conns:
                    sel.register(sock, selectors.EVENT_READ)
                readable = {key.fileobj for key, _ in sel.select(0)}
            for sock in list(self.conns):
                ended = sock in readable
                if not ended:
                    try:
                        sock.send(b"A")
                    except OSError:
                        ended = True
                if ended:
                    self.ended(sock)
            taken = set(self.conns.values())
            for i in range(self.n):
                if i not in taken and not self.stop.is_set():
                    self.open(i)

    def ended(self, sock: socket.socket) -> None:
        try:
            first = sock.recv(64)
        except OSError:
            first = b""
        self.count(first.split(b" ")[1].decode() if first.startswith(b"HTTP/") else "closed")
        del self.conns[sock]
        sock.close()

    def close(self) -> dict:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(30)
        still = len(self.conns)
        for sock in self.conns:
            sock.close()
        self.conns.clear()
        return {"opened": self.opened, "open_at_end": still, "answers": self.answers}


def measure_beside(port: int, saved: str, duration: float) -> dict:
    """For `duration` seconds from STALL_FROM: a cheap ASK, each on a new connection, one
    after another; and in another thread the saved query back to back on one connection."""
    stop = time.monotonic() + duration
    asks: list[float] = []
    saved_times: list[float] = []
    statuses: dict[str, dict[int, int]] = {"ask": {}, "saved": {}}

    def note(name: str, status: int) -> None:
        statuses[name][status] = statuses[name].get(status, 0) + 1

    def saved_loop() -> None:
        client = Client(port, duration + 60, STALL_FROM)
        while time.monotonic() < stop:
            status, seconds = client.query(saved)
            note("saved", status)
            if status == 200:
                saved_times.append(seconds)
        client.close()

    thread = threading.Thread(target=saved_loop)
    thread.start()
    while time.monotonic() < stop:
        client = Client(port, duration + 60, STALL_FROM)
        status, seconds = client.query(ASK_ALONE)
        client.close()
        note("ask", status)
        asks.append(seconds)
    thread.join()
    errors = sum(n for name in statuses for s, n in statuses[name].items() if s != 200)
    return {
        "ask": summary(asks),
        "saved": summary(saved_times),
        "statuses": statuses,
        "errors": errors,
    }


def settle(proc: subprocess.Popen, most: float = 0.25, timeout: float = 120) -> float:
    """Seconds until the server's processes use under `most` of a core over a second: after
    the no-read clients' 40 large queries, the query workers that ran them are replaced
    (querypool.py, RECYCLE_MB), which is the cost of those queries, not of unread answers."""
    start = time.monotonic()
    last = cpu_seconds(proc)["server"]
    while time.monotonic() - start < timeout:
        time.sleep(1.0)
        now = cpu_seconds(proc)["server"]
        if now - last < most:
            break
        last = now
    return round(time.monotonic() - start, 1)


def stalls(port: int, n: int, duration: float, proc: subprocess.Popen) -> dict:
    """The saved query and the ASK alone, then beside each kind of stalling client, from one
    address and from four."""
    saved = saved_query(STALL_SAVED)
    measure_beside(port, saved, min(3.0, duration))  # warm up
    out: dict = {"clients": n, "seconds": duration, "phases": {}}
    for mode in ("slow-body", "no-read"):
        for where, sources in STALL_SOURCES.items():
            # The solo phase just before each stall phase: the machine is shared, and its
            # load moves within minutes.
            solo = measure_beside(port, saved, duration)
            solo["load_average"] = round(os.getloadavg()[0], 1)
            print(f"  {mode}, {n} clients from {where} ...", file=sys.stderr)
            stall = Stallers(port, mode, n, sources)
            stall.start()
            settled = settle(proc) if mode == "no-read" else 0.0
            measured = measure_beside(port, saved, duration)
            out["phases"][f"{mode}, {where}"] = measured | {
                "stallers": stall.close(),
                "settled_s": settled,
                "load_average": round(os.getloadavg()[0], 1),
                "solo": solo,
            }
    return out


def over_budget(port: int, n: int, duration: float) -> dict:
    """The saved query and the ASK alone, then beside `n` clients (127.0.0.2-5) sending the
    over-budget texts of refusal_bench.py back to back, each one a 400 when the checks on its
    tokens refuse it (issue 35: four such texts kept both workers at their timeout)."""
    from refusal_bench import texts

    named = texts()
    bad = list(named.values())
    # each text alone first, one POST after another on one connection: the whole refusal as
    # a client sees it (sending up to 1.3 MB, the server's reading, checks and answer)
    alone: dict[str, dict] = {}
    client = Client(port, 60, STALL_FROM)
    for name, text in named.items():
        took = []
        for _ in range(7):
            status, seconds = client.query(text)
            took.append(seconds)
        alone[name] = summary(took) | {"status": status, "kb": round(len(text) / 1024)}
    client.close()
    saved = saved_query(STALL_SAVED)
    solo = measure_beside(port, saved, duration)
    solo["load_average"] = round(os.getloadavg()[0], 1)
    stop = threading.Event()
    sent: dict[int, int] = {}
    seconds: list[float] = []
    lock = threading.Lock()

    def loop(i: int) -> None:
        client = Client(port, 60, f"127.0.0.{2 + i % 4}")
        k = i
        while not stop.is_set():
            status, took = client.query(bad[k % len(bad)])
            k += 1
            with lock:
                sent[status] = sent.get(status, 0) + 1
                seconds.append(took)
        client.close()

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    measured = measure_beside(port, saved, duration)
    stop.set()
    for t in threads:
        t.join(120)
    return measured | {
        "clients": n,
        "texts": len(bad),
        "refused": sent,
        "refusal": summary(seconds),
        "alone": alone,
        "solo": solo,
        "load_average": round(os.getloadavg()[0], 1),
    }


def over_budget_lines(o: dict) -> list[str]:
    """The over-budget phase's lines."""
    base, got = o["solo"]["saved"]["p50_ms"], o["saved"]["p50_ms"]
    speed = base / got if base and got else None
    r = o["refusal"]
    return [
        "",
        f"Over-budget texts (issue 35): {o['clients']} clients (127.0.0.2-5) sending the "
        f"{o['texts']} texts of `benchmarks/refusal_bench.py` (10,000 `||`, 10,000 IN values, "
        "a 10,000-item collection, 3,000 OPTIONALs, 10,000 path alternatives, a 100k-row "
        "VALUES with FROM: 0.1-1.3 MB each) back to back, form-POSTed, beside the same ASK and "
        f"`{STALL_SAVED}` pair as the stall phases, after its own solo phase.",
        "",
        "| sent | answers by status | refusal p50 / p95 / max ms (client side, whole POST) "
        "| ASK p50 / p95 ms | saved p50 ms | solo p50 ms | speed / solo | load avg solo, phase |",
        "|---|---|---|---|---|---|---|---|",
        f"| {r['n']:,} | {', '.join(f'{k}: {v:,}' for k, v in sorted(o['refused'].items()))} "
        f"| {fmt(r['p50_ms'])} / {fmt(r['p95_ms'])} / {fmt(r['max_ms'])} "
        f"| {fmt(o['ask']['p50_ms'])} / {fmt(o['ask']['p95_ms'])} | {fmt(got)} | {fmt(base)} "
        f"| {'-' if speed is None else f'{speed:.2f}'} "
        f"| {o['solo']['load_average']:g}, {o['load_average']:g} |",
        "",
        "Each text alone, before the phase (7 POSTs one after another on one connection, "
        "client side):",
        "",
        "| text | KB | status | p50 / max ms |",
        "|---|---|---|---|",
    ] + [
        f"| {name} | {a['kb']:,} | {a['status']} | {a['p50_ms']:.1f} / {a['max_ms']:.1f} |"
        for name, a in o.get("alone", {}).items()
    ]


def stall_lines(w: dict) -> list[str]:
    """The stall phases' table."""
    lines = [
        "",
        f"Stalling clients (issue 35): {w['clients']} connections for {w['seconds']:g} s a "
        "phase, from one address (127.0.0.2; the cap of 32 connections an address answers "
        "the rest 429) or four (127.0.0.2-5). slow-body: a POST declaring a body of "
        f"{STALL_BODY:,} bytes and sending one byte of it every {SLOW_BYTE:g} s (one the "
        f"server ends is opened again); no-read: a GET of `{UNREAD}` (about 10 MB of JSON) "
        "with a 4 KB receive window, never read, the phase measured once the server is "
        "writing every answer and its CPU has settled (the query workers that ran those "
        "answers are replaced, querypool.py's RECYCLE_MB: the settling seconds are given). "
        f"From {STALL_FROM}: `{ASK_ALONE}` on a new connection each time, one after another, "
        f"and beside it the saved query `{STALL_SAVED}` back to back on one connection. Just "
        "before each phase the same pair runs for as long with no stalling client (solo): "
        "the saved query's speed is its solo p50 over its p50 in the phase.",
        "",
        "| phase | ASK n | ASK p50 / p95 / max ms | solo ASK p95 ms | saved n | saved p50 ms "
        "| solo p50 ms | speed / solo | errors | stalling connections: opened, open at end, "
        "ended by the server | settled s | load avg solo, phase |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    met = True
    for name, p in w["phases"].items():
        a, sv, solo = p["ask"], p["saved"], p["solo"]
        base = solo["saved"]["p50_ms"]
        speed = base / sv["p50_ms"] if base and sv["p50_ms"] else None
        st = p["stallers"]
        met = met and a["p95_ms"] is not None and a["p95_ms"] < ASK_TARGET_MS
        met = met and speed is not None and speed >= SAVED_TARGET
        lines.append(
            f"| {name} | {a['n']:,} | {fmt(a['p50_ms'])} / {fmt(a['p95_ms'])} / "
            f"{fmt(a['max_ms'])} | {fmt(solo['ask']['p95_ms'])} | {sv['n']:,} | "
            f"{fmt(sv['p50_ms'])} | {fmt(base)} | {'-' if speed is None else f'{speed:.2f}'} "
            f"| {p['errors'] + solo['errors']} | {st['opened']}, {st['open_at_end']}, "
            f"{st['answers'] or 'none'} | {p['settled_s']:g} | {solo['load_average']:g}, "
            f"{p['load_average']:g} |"
        )
    lines += [
        "",
        f"Targets (issue 35): ASK p95 under {ASK_TARGET_MS:g} ms and the saved query at least "
        f"{SAVED_TARGET:.0%} of its solo speed in every stall phase: "
        f"{'met' if met else 'NOT met'}.",
    ]
    return lines


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def report(result: dict) -> str:
    """The Markdown report."""
    i, load = result["idle"], result["load"]
    s = result["settings"]
    lines = [
        "# Load: cheap and heavy queries, idle and under load",
        "",
        f"`python benchmarks/load_bench.py {s['argv']}` on {result['machine']}; the shipped "
        f"data ({result['quads']:,} quads), `benchgraph serve` with its defaults "
        f"(query workers: {s['query_workers']} at once, "
        f"{result['health']['query_workers']['workers']} processes when started; time limit "
        f"{s['timeout']:g} s).",
        "",
        f"Idle: each class alone, one query at a time ({i['cheap']['n']} cheap, "
        f"{i['heavy']['n']} heavy). Under load: {s['clients']} clients sending cheap and heavy "
        f"queries ({HEAVY_SHARE:.0%} heavy, seeded) back to back, plus one client sending a "
        f"runaway query that runs to the time limit, again and again, for "
        f"{load['seconds']:g} s. Cheap is a point lookup (everything said of one accelerator); "
        f"heavy is the saved queries {' and '.join(HEAVY_EXAMPLES)}.",
        "",
        "| class | idle p50 / p95 / max ms | load n | load p50 / p95 / max ms | p95 load / idle "
        "| errors | earlier idle p50 / p95 | earlier load p50 / p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("cheap", "heavy"):
        a, b = i[name], load[name]
        ratio = b["p95_ms"] / a["p95_ms"] if a["p95_ms"] and b["p95_ms"] else None
        e_idle, e_load = EARLIER["idle"][name], EARLIER["load"][name]
        lines.append(
            f"| {name} | {fmt(a['p50_ms'])} / {fmt(a['p95_ms'])} / {fmt(a['max_ms'])} "
            f"| {b['n']:,} | {fmt(b['p50_ms'])} / {fmt(b['p95_ms'])} / {fmt(b['max_ms'])} "
            f"| {'-' if ratio is None else f'{ratio:.1f}x'} | {a['errors'] + b['errors']} "
            f"| {e_idle[0]:,} / {e_idle[1]:,} | {e_load[0]:,} / {e_load[1]:,} |"
        )
    r = load["runaway"]
    cheap_idle_p95 = i["cheap"]["p95_ms"]
    target = max(5 * cheap_idle_p95, 50.0)
    cheap_p95 = load["cheap"]["p95_ms"]
    queued = {n: load[n]["queued"] for n in ("cheap", "heavy")}
    cpu = load.get("cpu")
    lines += [
        f"| runaway | - | {r['n']} | {fmt(r['p50_ms'])} / - / {fmt(r['max_ms'])} | - | "
        f"{r['errors']} | - | - |",
        "",
        f"Requests served under load: {sum(load[n]['n'] for n in ('cheap', 'heavy', 'runaway')):,}"
        f" ({load['cheap']['n'] + load['heavy']['n']:,} cheap and heavy); errors: "
        f"{load['cheap']['errors'] + load['heavy']['errors']} (a runaway's 503 at the time "
        f"limit is its expected answer; its statuses: {r['statuses']}).",
        "",
        "Of that, time queued for a lane's slot and worker (the server's Server-Timing "
        "`wait`): "
        + "; ".join(
            f"{n} p50 / p95 / max {fmt(q['p50_ms'])} / {fmt(q['p95_ms'])} / {fmt(q['max_ms'])} ms"
            for n, q in queued.items()
        )
        + ". Of which for a slot alone (`slot`; the rest is for an idle worker): "
        + "; ".join(
            f"{n} p95 / max {fmt(load[n]['for_slot']['p95_ms'])} / "
            f"{fmt(load[n]['for_slot']['max_ms'])} ms"
            for n in ("cheap", "heavy")
            if "for_slot" in load[n]
        )
        + ".",
        "",
        f"Target (issue 15): cheap p95 under load within 5x idle or 50 ms, whichever is larger: "
        f"{target:.0f} ms here; measured {fmt(cheap_p95)} ms: "
        f"{'met' if cheap_p95 is not None and cheap_p95 <= target else 'NOT met'}.",
        "",
        "CPU under load, of the machine's "
        + (
            f"{cpu['cores'] * cpu['seconds']:.0f} core-seconds ({cpu['cores']} cores x "
            f"{cpu['seconds']:g} s): the server {cpu['server_cpu_s']:g}, this script "
            f"{cpu['client_cpu_s']:g}, other work on the machine {cpu['other_cpu_s']:g}, idle "
            f"{cpu['idle_cpu_s']:g}."
            if cpu
            else "-"
        ),
        "",
        "Server memory, summed over its processes (gunicorn and query workers):",
        "",
        "| when | PSS MB | RSS MB | processes |",
        "|---|---|---|---|",
    ]
    for when in ("before", "after"):
        m = result["memory"][when]
        lines.append(
            f"| {when} load | {m['pss_mb']:,.0f} | {m['rss_mb']:,.0f} | {m['processes']} |"
        )
    w = result.get("slowloris")
    if w:
        c, sl = w["cheap"], w["slow"]
        ratio = c["p95_ms"] / i["cheap"]["p95_ms"] if c["p95_ms"] and i["cheap"]["p95_ms"] else None
        lines += [
            "",
            f"Slow clients: {sl['connections']} connections, each sending one byte of an "
            f"endless request head every {SLOW_BYTE:g} s (from {SLOW_PER_ADDRESS} to a source "
            "address, 127.0.0.2 and up; one the server ends is opened again), while one client "
            f"sends the cheap query, each time on a new connection, for {w['seconds']:g} s:",
            "",
            "| class | n | p50 / p95 / max ms | p95 / idle p95 | errors |",
            "|---|---|---|---|---|",
            f"| cheap, new connection each | {c['n']:,} | {fmt(c['p50_ms'])} / "
            f"{fmt(c['p95_ms'])} / {fmt(c['max_ms'])} | "
            f"{'-' if ratio is None else f'{ratio:.1f}x'} | {c['errors']} |",
            "",
            f"Slow connections opened: {sl['opened']} ({sl['open_at_end']} open at the end); "
            f"how the server ended the others: {sl['answers'] or 'none'}. Load average at the "
            f"phase's start and end: {w['load_average'][0]:g} and {w['load_average'][1]:g}.",
        ]
    if result.get("stalls"):
        lines += stall_lines(result["stalls"])
    if result.get("over_budget"):
        lines += over_budget_lines(result["over_budget"])
    lines += [
        "",
        f"Server /metrics refusals after the run: {result['refusals'] or 'none'}.",
        "",
        f"The machine's 1-minute load average at the start and at the end of the "
        f"load: {result['load_average'][0]:g} and {result['load_average'][1]:g} (other "
        "work shares its cores).",
        "",
    ]
    return "\n".join(lines)


def refusal_counts(port: int) -> dict[str, int]:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    found = {}
    for line in text.splitlines():
        if line.startswith("benchgraph_refusals_total{"):
            labels, value = line.rsplit(" ", 1)
            found[labels.removeprefix("benchgraph_refusals_total")] = int(value)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--clients", type=int, default=8, help="mixed clients")
    parser.add_argument(
        "--short", action="store_true", help="10 s of load and fewer idle samples, for CI"
    )
    parser.add_argument(
        "--cache", type=Path, default=None, help="build cache (default: a fresh temporary one)"
    )
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        help="Markdown report (default: benchmarks/reports/load.md, or "
        "load-short.md with --short); the JSON goes beside it",
    )
    parser.add_argument(
        "--slowloris",
        type=int,
        default=50,
        metavar="N",
        help="slow connections of the last phase; 0 for none (default: %(default)s)",
    )
    parser.add_argument(
        "--slowloris-duration",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds of the slow clients' phase (default: 30, 10 with --short)",
    )
    parser.add_argument(
        "--stall-clients",
        type=int,
        default=40,
        metavar="N",
        help="stalling connections of each stall phase; 0 for none (default: %(default)s)",
    )
    parser.add_argument(
        "--stall-duration",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds of each stall phase (default: 20, 8 with --short)",
    )
    parser.add_argument(
        "--over-budget-clients",
        type=int,
        default=4,
        metavar="N",
        help="clients sending over-budget texts in their phase (default: 4; 0: no phase)",
    )
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="an extra `benchgraph serve` argument (repeatable)",
    )
    args = parser.parse_args(argv)
    duration = 10.0 if args.short and args.duration == 60.0 else args.duration
    samples = {"cheap": 60, "heavy": 10} if args.short else {"cheap": 300, "heavy": 30}
    report_path = args.report or REPORTS / ("load-short.md" if args.short else "load.md")
    timeout = 30.0
    for i, arg in enumerate(args.serve_arg):
        if arg == "--timeout":
            timeout = float(args.serve_arg[i + 1])
    queries = {"cheap": [CHEAP], "heavy": [saved_query(n) for n in HEAVY_EXAMPLES]}

    with tempfile.TemporaryDirectory(prefix="benchgraph-load-") as tmp:
        cache = args.cache or Path(tmp) / "cache"
        port = free_port()
        log = Path(tmp) / "server.log"
        print(f"building {SHIPPED} and starting the server on {HOST}:{port} ...", file=sys.stderr)
        proc = start_server(cache, port, log, args.serve_arg)
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
            conn.request("GET", "/healthz")
            health = json.loads(conn.getresponse().read())
            conn.close()
            count = _count_quads(port)
            load_avg = [round(os.getloadavg()[0], 1)]
            print("idle ...", file=sys.stderr)
            idle_result = idle(port, queries, samples)
            before = server_memory(proc)
            print(f"under load for {duration:g} s ...", file=sys.stderr)
            cpu_before, started = cpu_seconds(proc), time.monotonic()
            load_result = under_load(port, queries, args.clients, duration, timeout)
            load_result["cpu"] = cpu_share(
                cpu_before, cpu_seconds(proc), time.monotonic() - started
            )
            time.sleep(1.0)
            after = server_memory(proc)
            load_avg.append(round(os.getloadavg()[0], 1))
            slow_result = None
            if args.slowloris:
                slow_for = args.slowloris_duration or (10.0 if args.short else 30.0)
                print(f"{args.slowloris} slow clients for {slow_for:g} s ...", file=sys.stderr)
                slow_result = slowloris(port, CHEAP, args.slowloris, slow_for)
            stall_result = None
            if args.stall_clients:
                stall_for = args.stall_duration or (8.0 if args.short else 20.0)
                print(f"stall phases, {stall_for:g} s each ...", file=sys.stderr)
                stall_result = stalls(port, args.stall_clients, stall_for, proc)
            budget_result = None
            if args.over_budget_clients:
                budget_for = args.stall_duration or (8.0 if args.short else 20.0)
                print(f"over-budget texts, {budget_for:g} s ...", file=sys.stderr)
                budget_result = over_budget(port, args.over_budget_clients, budget_for)
            refused = refusal_counts(port)
        finally:
            stop_server(proc)
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"{psutil.virtual_memory().total / 2**30:.0f} GiB, "
        f"Python {platform.python_version()}",
        "settings": {
            "argv": " ".join(argv if argv is not None else sys.argv[1:]),
            "clients": args.clients,
            "duration": duration,
            "timeout": timeout,
            "query_workers": max(4, os.cpu_count() or 1),
            "heavy_share": HEAVY_SHARE,
            "samples": samples,
            "serve_args": args.serve_arg,
        },
        "quads": count,
        "health": health,
        "idle": idle_result,
        "load": load_result,
        "memory": {"before": before, "after": after},
        "refusals": refused,
        "load_average": load_avg,
        "slowloris": slow_result,
        "stalls": stall_result,
        "over_budget": budget_result,
        "earlier": EARLIER,
    }
    text = report(result)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(text, encoding="utf-8")
    report_path.with_suffix(".json").write_text(
        json.dumps(result, indent=2) + "\n", encoding="utf-8"
    )
    print(text)
    return 0


def _count_quads(port: int) -> int:
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    conn.request(
        "POST",
        "/sparql",
        urlencode({"query": "SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }"}),
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/sparql-results+json",
        },
    )
    body = json.loads(conn.getresponse().read())
    conn.close()
    return int(body["results"]["bindings"][0]["n"]["value"])


if __name__ == "__main__":
    raise SystemExit(main())
