"""Serving benchmark: `benchgraph serve` against the Oxigraph server and rdflib-endpoint, over
HTTP, on the same data, in one run.

    python benchmarks/serve_bench.py [--sizes shipped 10000 100000] [--repeat 5]
                                     [--duration 10] [--work DIR] [--out DIR]

A size is `shipped` (data/), a number of runs (the shipped runs copied to that many,
benchmarks/synth.replicate) or a data folder. For each size the records are built (a cache
per size under --work, so a second run reuses it), the build's store is dumped as N-Quads, and
three servers are started side by side on 127.0.0.1:
  - `benchgraph serve`, as `make run` starts it (gunicorn, its defaults);
  - `oxigraph serve-read-only --union-default-graph` on those N-Quads (`oxigraph load` first);
  - `rdflib-endpoint serve` on those N-Quads (an rdflib Dataset, union default graph), where
    it loads within --rdflib-load-timeout and the data has at most --rdflib-max-quads quads.
Each saved query (queries/*.rq) and a point lookup (everything said of one accelerator) is
sent to each server in turn, `--repeat` times after one warm-up, every request with text of
its own (a numbered comment; the point lookup's variables renamed), so that no cache keyed by
the text hides the cost of reading a new query. Then a cheap and a heavy query run closed-loop
for --duration seconds from 1 and from 8 clients: throughput and p50/p95. Last, the serving
memory of each server: PSS summed over all its processes (psutil).

Every request is a form POST asking for SPARQL JSON, without Accept-Encoding (no gzip), on a
keep-alive connection. Machines are noisy: what counts are the ratios, measured in one run,
with the servers' requests interleaved. The report and its raw JSON go to --out
(benchmarks/reports/serve.md and serve.json by default).

With --baseline REV a fourth server is another commit's `benchgraph serve` (installed in an
environment of its own by benchmarks/baseline.py, building the records with its own code):
its requests are interleaved with the others', each throughput run is made for today's and
the baseline's servers alternately, twice each, and the report gains a section of today's
times over the baseline's. The records then come from the baseline's data/ (which the later
code reads too; --records today for today's).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from urllib.parse import urlencode

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import replicate  # noqa: E402

SHIPPED = ROOT / "data"
QUERIES = ROOT / "queries"
REPORTS = ROOT / "benchmarks" / "reports"
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"
POINT = "point lookup"
# Everything said of one accelerator; its variables are renamed for every request.
POINT_QUERY = (
    "SELECT ?p{n} ?o{n} WHERE {{ "
    "<https://w3id.org/benchgraph/id/accelerators/nvidia-h100-sxm> ?p{n} ?o{n} }}"
)
HEAVY = "best-per-model"
CLIENTS = (1, 8)
SERVERS = ("benchgraph", "oxigraph", "rdflib-endpoint")
BASELINE = "baseline"  # --baseline REV: that commit's benchgraph serve
JSON_TYPE = "application/sparql-results+json"


def point_query(n: int) -> str:
    return POINT_QUERY.format(n=n)


def saved_queries() -> dict[str, str]:
    from benchgraph.namespaces import sparql_prefixes

    # The other servers know no predeclared prefixes: every query declares them all.
    prefixes = sparql_prefixes()
    return {p.stem: prefixes + p.read_text(encoding="utf-8") for p in sorted(QUERIES.glob("*.rq"))}


def varied(text: str, n: int) -> str:
    """The query with text of its own: a numbered comment at its end."""
    return f"{text}\n# request {n}\n"


# --- HTTP ------------------------------------------------------------------------------------
class Client:
    """One keep-alive connection; reconnects after an error."""

    def __init__(self, port: int, path: str, timeout: float):
        self.port, self.path, self.timeout = port, path, timeout
        self.conn: http.client.HTTPConnection | None = None

    def query(self, text: str) -> tuple[int, float, bytes]:
        """(status, seconds, body); status 0 for a connection that failed. A kept-alive
        connection the server closed meanwhile (each closes idle ones after a while) is
        opened again and the request sent once more, as HTTP clients do; the time counts
        from the request that was answered."""
        body = urlencode({"query": text})
        for attempt in range(2):
            reused = self.conn is not None
            start = time.perf_counter()
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
                self.conn.request(
                    "POST",
                    self.path,
                    body,
                    {"Content-Type": "application/x-www-form-urlencoded", "Accept": JSON_TYPE},
                )
                response = self.conn.getresponse()
                data = response.read()
                status = response.status
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return status, time.perf_counter() - start, data
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if reused and attempt == 0 and not isinstance(exc, TimeoutError):
                    continue
                return 0, time.perf_counter() - start, str(exc).encode()
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def rows(data: bytes) -> int | None:
    try:
        parsed = json.loads(data)
    except ValueError:
        return None
    if "boolean" in parsed:
        return 1
    return len(parsed.get("results", {}).get("bindings", []))


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Server:
    name: str
    proc: subprocess.Popen
    port: int
    path: str
    log: Path
    started_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def memory(self) -> dict[str, float]:
        """PSS and RSS in MB summed over the server and every process below it."""
        pss = rss = 0
        count = 0
        by_role: dict[str, float] = {}
        try:
            top = psutil.Process(self.proc.pid)
            procs = [top, *top.children(recursive=True)]
        except psutil.Error:
            return {"pss_mb": 0.0, "rss_mb": 0.0, "processes": 0, "by_role": {}}
        for p in procs:
            try:
                info = p.memory_full_info()
                role = role_of(p)
            except psutil.Error:
                continue
            pss, rss, count = pss + info.pss, rss + info.rss, count + 1
            by_role[role] = by_role.get(role, 0.0) + info.pss / 2**20
        return {
            "pss_mb": round(pss / 2**20, 1),
            "rss_mb": round(rss / 2**20, 1),
            "processes": count,
            "by_role": {k: round(v, 1) for k, v in by_role.items()},
        }

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def role_of(p: psutil.Process) -> str:
    """What a benchgraph process is, by its command line (others: the program's name)."""
    line = " ".join(p.cmdline())
    if "benchgraph.web.queryworker" in line:
        return "query workers"
    if "benchgraph.web.server" in line:  # gunicorn: the master, and the workers it forked
        return "gunicorn worker" if p.parent().cmdline() == p.cmdline() else "gunicorn master"
    if "benchgraph.web.server" in line:
        return "serve command (build, reloads)"
    return p.name()


def start(
    name: str,
    argv: list[str],
    port: int,
    path: str,
    log: Path,
    wait: float,
    env: dict | None = None,
) -> Server:
    """Start a server and wait until a query answers; its start-up time is kept."""
    began = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=os.environ | (env or {}),
            start_new_session=True,
        )
    server = Server(name, proc, port, path, log)
    deadline = time.monotonic() + wait
    probe = Client(port, path, 10)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"{name} exited {proc.returncode}: {log.read_text(errors='replace')[-2000:]}"
            )
        status, _s, _d = probe.query("ASK { }")
        if status == 200:
            probe.close()
            server.started_s = round(time.perf_counter() - began, 1)
            return server
        time.sleep(0.25)
    probe.close()
    server.stop()
    raise TimeoutError(f"{name} did not answer within {wait:g} s")


# --- preparing a size ------------------------------------------------------------------------
@dataclass
class Prepared:
    label: str
    data: Path
    cache: Path
    store: Path
    nquads: Path
    quads: int
    runs: int
    build_s: float
    dump_s: float


def prepare(size: str, work: Path, shipped: Path = SHIPPED) -> Prepared:
    """The data folder for `size`, built (cached under `work`), and its N-Quads; `shipped`:
    the data folder that `shipped` and the copies are made of."""
    import pyoxigraph as ox

    from benchgraph.pipeline.steps import build

    if size == "shipped":
        data, label = shipped, "shipped"
    elif size.isdigit():
        data, label = work / f"data-{size}", f"{int(size):,} runs"
        if not (data / "benchmarks").is_dir():
            tmp = work / f"data-{size}.part"
            shutil.rmtree(tmp, ignore_errors=True)
            replicate(shipped, tmp, int(size))
            tmp.rename(data)
    else:
        data = Path(size).resolve()
        label = data.name
    slug = label.replace(",", "").replace(" ", "-")
    cache = work / f"cache-{slug}"
    os.environ["BENCHGRAPH_CACHE"] = str(cache)
    began = time.perf_counter()
    result = build(data, skip_invalid=True)
    build_s = time.perf_counter() - began
    nquads = work / f"{slug}.nq"
    stamp = nquads.with_suffix(".key")
    began = time.perf_counter()
    if not nquads.exists() or not stamp.exists() or stamp.read_text() != result.key:
        store = ox.Store.read_only(str(result.store_path))
        store.dump(str(nquads), ox.RdfFormat.N_QUADS)
        del store
        stamp.write_text(result.key)
    dump_s = time.perf_counter() - began
    with nquads.open("rb") as f:
        quads = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    runs = sum(1 for _ in (data / "benchmarks").rglob("*.yaml"))
    return Prepared(
        label,
        data,
        cache,
        result.store_path,
        nquads,
        quads,
        runs,
        round(build_s, 1),
        round(dump_s, 1),
    )


def start_servers(p: Prepared, work: Path, args: argparse.Namespace) -> tuple[dict, dict]:
    """The three servers on p's data; and what happened to each (load time, or why not)."""
    servers: dict[str, Server] = {}
    account: dict[str, dict] = {}
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    slug = p.nquads.stem
    try:
        port = free_port()
        servers["benchgraph"] = start(
            "benchgraph",
            [
                sys.executable,
                "-m",
                "benchgraph",
                "serve",
                "--data",
                str(p.data),
                "--host",
                HOST,
                "--port",
                str(port),
            ],
            port,
            "/sparql",
            logs / f"{slug}-benchgraph.log",
            900,
            {"BENCHGRAPH_CACHE": str(p.cache)},
        )
        account["benchgraph"] = {"start_s": servers["benchgraph"].started_s}
        if args.baseline_env is not None:  # its own build of the same records, with its code
            port = free_port()
            servers[BASELINE] = start(
                BASELINE,
                [
                    str(args.baseline_env.python),
                    "-m",
                    "benchgraph",
                    "serve",
                    "--data",
                    str(p.data),
                    "--host",
                    HOST,
                    "--port",
                    str(port),
                ],
                port,
                "/sparql",
                logs / f"{slug}-baseline.log",
                1800,
                {
                    "BENCHGRAPH_CACHE": str(
                        work / f"baseline-{args.baseline_env.sha[:10]}" / p.cache.name
                    )
                },
            )
            account[BASELINE] = {"start_s": servers[BASELINE].started_s}

        location = work / f"{slug}-oxigraph"
        stamp = location / "benchgraph.key"
        began = time.perf_counter()
        key = p.nquads.with_suffix(".key").read_text()
        if not stamp.exists() or stamp.read_text() != key:
            shutil.rmtree(location, ignore_errors=True)
            subprocess.run(
                [
                    str(BIN / "oxigraph"),
                    "load",
                    "--location",
                    str(location),
                    "--file",
                    str(p.nquads),
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            stamp.write_text(key)
            load_s = round(time.perf_counter() - began, 1)
        else:
            load_s = None  # loaded by an earlier run of this bench
        port = free_port()
        servers["oxigraph"] = start(
            "oxigraph",
            [
                str(BIN / "oxigraph"),
                "serve-read-only",
                "--location",
                str(location),
                "--bind",
                f"{HOST}:{port}",
                "--union-default-graph",
            ],
            port,
            "/query",
            logs / f"{slug}-oxigraph.log",
            300,
        )
        account["oxigraph"] = {"load_s": load_s, "start_s": servers["oxigraph"].started_s}

        if "rdflib-endpoint" in args.skip:
            account["rdflib-endpoint"] = {"loaded": False, "why": "not started: --skip"}
        elif p.quads > args.rdflib_max_quads:
            account["rdflib-endpoint"] = {
                "loaded": False,
                "why": f"not started: {p.quads:,} quads, over --rdflib-max-quads "
                f"{args.rdflib_max_quads:,}",
            }
        else:
            port = free_port()
            try:
                servers["rdflib-endpoint"] = start(
                    "rdflib-endpoint",
                    [
                        str(BIN / "rdflib-endpoint"),
                        "serve",
                        "--host",
                        HOST,
                        "--port",
                        str(port),
                        str(p.nquads),
                    ],
                    port,
                    "/",
                    logs / f"{slug}-rdflib-endpoint.log",
                    args.rdflib_load_timeout,
                )
                account["rdflib-endpoint"] = {
                    "loaded": True,
                    "load_s": servers["rdflib-endpoint"].started_s,
                }
            except (TimeoutError, RuntimeError, OSError) as exc:  # OSError: not installed
                account["rdflib-endpoint"] = {"loaded": False, "why": str(exc)[:300]}
    except BaseException:
        for server in servers.values():
            server.stop()
        raise
    return servers, account


# --- measuring ---------------------------------------------------------------------------------
def time_queries(
    servers: dict[str, Server], queries: dict[str, str], repeat: int, timeout: float
) -> dict:
    """Each query on each server: one warm-up, then `repeat` times, the servers interleaved,
    each request with text of its own. Medians in ms, rows of the answer."""
    clients = {name: Client(s.port, s.path, timeout) for name, s in servers.items()}
    out: dict[str, dict] = {}
    n = 0
    for qname, text in queries.items():
        out[qname] = {}
        samples: dict[str, list[float]] = {name: [] for name in servers}
        counts: dict[str, int | None] = {}
        errors: dict[str, str] = {}
        statuses: dict[str, Counter] = {name: Counter() for name in servers}
        skipped: set[str] = set()
        for rep in range(repeat + 1):
            for name, client in clients.items():
                if name in skipped:
                    continue
                n += 1
                query = point_query(n) if qname == POINT else varied(text, n)
                status, seconds, data = client.query(query)
                statuses[name][status] += 1
                if status != 200:
                    errors[name] = f"{status}: {data[:200].decode(errors='replace')}"
                    skipped.add(name)
                    continue
                counts[name] = rows(data)
                if rep:
                    samples[name].append(seconds)
                elif seconds > timeout / (repeat + 1):
                    skipped.add(name)  # too slow to repeat within the time allowed
                    samples[name].append(seconds)
                    errors.setdefault(name, "")
        for name in servers:
            s = samples[name]
            out[qname][name] = {
                "median_ms": round(statistics.median(s) * 1000, 2) if s else None,
                "n": len(s),
                "rows": counts.get(name),
                "error": errors.get(name) or None,
                "statuses": status_counts(statuses[name]),
                "failures": sum(n for st, n in statuses[name].items() if st != 200),
                "samples_ms": [round(x * 1000, 2) for x in s],
            }
    for client in clients.values():
        client.close()
    return out


def throughput(
    server: Server, text: str | None, clients: int, duration: float, timeout: float
) -> dict:
    """Closed-loop clients for `duration` s: requests per second, p50/p95 ms, errors.
    `text` None is the point lookup."""
    stop = time.monotonic() + duration
    latencies: list[float] = []
    statuses: Counter = Counter()
    why: dict[int, str] = {}  # the first answer of each failing status
    lock = threading.Lock()
    counter = iter(range(10**9))

    def loop() -> None:
        client = Client(server.port, server.path, timeout)
        while True:
            with lock:
                n = next(counter)
            query = point_query(n) if text is None else varied(text, n)
            status, seconds, data = client.query(query)
            with lock:
                statuses[status] += 1
                if status == 200:
                    latencies.append(seconds)
                else:
                    why.setdefault(status, data[:200].decode(errors="replace"))
            if time.monotonic() >= stop:
                break
        client.close()

    began = time.monotonic()
    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))] if ordered else None
    errors = sum(n for status, n in statuses.items() if status != 200)
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "n": len(ordered),
        "errors": errors,
        "statuses": status_counts(statuses),
        "why": {str(k): v for k, v in sorted(why.items())},
        "per_s": round(len(ordered) / elapsed, 2),
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p95_ms": round(p95 * 1000, 1) if p95 is not None else None,
    }


def measure(p: Prepared, work: Path, args: argparse.Namespace) -> dict:
    servers, account = start_servers(p, work, args)
    try:
        time.sleep(1.0)  # let the spare workers settle
        memory_start = {name: s.memory() for name, s in servers.items()}
        queries = {POINT: POINT_QUERY} | saved_queries()
        print(f"  {p.label}: timing {len(queries)} queries x {args.repeat} ...", file=sys.stderr)
        timed = time_queries(servers, queries, args.repeat, args.query_timeout)
        loads: dict[str, list] = {name: [] for name in servers}
        for kind, text in (("cheap", None), ("heavy", queries[HEAVY])):
            running = []
            for name in servers:
                heavy_ms = timed[HEAVY][name]["median_ms"]
                if kind == "heavy" and heavy_ms is None:
                    loads[name].append({"kind": kind, "skipped": "it failed when timed"})
                elif kind == "heavy" and heavy_ms > 1000 * args.duration:
                    loads[name].append(
                        {"kind": kind, "skipped": "one query takes longer than the run"}
                    )
                else:
                    running.append(name)
            pair = [n for n in ("benchgraph", BASELINE) if n in running]
            # today's and the baseline's servers alternately, twice each (ABBA)
            turns = (pair + pair[::-1] if len(pair) == 2 else pair) + [
                n for n in running if n not in pair
            ]
            for clients in CLIENTS:
                for name in turns:
                    print(f"  {p.label}: {name} {kind} x{clients} ...", file=sys.stderr)
                    loads[name].append(
                        {"kind": kind}
                        | throughput(
                            servers[name], text, clients, args.duration, args.query_timeout
                        )
                    )
        time.sleep(1.0)
        memory_end = {name: s.memory() for name, s in servers.items()}
        memory_settled = {}
        if args.settle:  # idle long enough for benchgraph to stop the workers load added
            time.sleep(args.settle)
            memory_settled = {name: s.memory() for name, s in servers.items()}
    finally:
        for server in servers.values():
            server.stop()
    return {
        "label": p.label,
        "data": str(p.data),
        "runs": p.runs,
        "quads": p.quads,
        "build_s": p.build_s,
        "dump_s": p.dump_s,
        "servers": account,
        "queries": timed,
        "load": loads,
        "memory": {"started": memory_start, "after": memory_end, "settled": memory_settled},
    }


def status_counts(statuses: Counter) -> dict[str, int]:
    """Requests by HTTP status ("0": the connection failed or timed out), for the JSON."""
    return {str(status): n for status, n in sorted(statuses.items())}


def failed_text(statuses: dict[str, int]) -> str:
    """ "8 failed: 503 x8" for the report; "" when every request was a 200."""
    failed = {k: n for k, n in statuses.items() if k != "200"}
    if not failed:
        return ""
    return f"{sum(failed.values())} failed: " + ", ".join(
        f"{'no answer' if k == '0' else k} x{n}" for k, n in failed.items()
    )


# --- the report ------------------------------------------------------------------------------
def ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}" if value < 10 else f"{value:,.0f}"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if not a or not b else f"{a / b:.2f}"


def report(result: dict) -> str:
    m = result["machine"]
    lines = [
        "# Serving: benchgraph against the Oxigraph server and rdflib-endpoint",
        "",
        f"`python benchmarks/serve_bench.py {result['argv']}` on {m['platform']}, "
        f"{m['cores']} cores, {m['memory_gib']} GiB; load average {m['load_start']} at the "
        f"start, {m['load_end']} at the end (the cores are shared with other work, so the "
        "ratios, measured in one run with the servers' requests interleaved, are what count). "
        f"Versions: {', '.join(f'{k} {v}' for k, v in result['versions'].items())}.",
        "",
        f"Each query: one warm-up, then median of {result['repeat']} requests (the `n` column "
        "says how many where fewer), each with text of its own (a numbered comment; the point "
        "lookup's variables renamed). Form POST, SPARQL JSON, keep-alive, no gzip. "
        "`x Ox` and `x rdflib-e` are benchgraph's time over the peer's.",
        "",
        "| data | query | rows | benchgraph ms | Oxigraph ms | rdflib-endpoint ms "
        "| x Ox | x rdflib-e | n |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in result["sizes"]:
        first = True
        for qname, by in size["queries"].items():
            bg, ox_, rl = (by.get(s, {}) for s in SERVERS)
            counts = {s: by[s]["rows"] for s in by if by[s]["rows"] is not None}
            rows_text = ", ".join(sorted({f"{v:,}" for v in counts.values()}))
            if len(set(counts.values())) > 1:
                rows_text += " (differ: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()) + ")"
            n = sorted({v.get("n") for v in by.values() if v.get("median_ms") is not None})
            label = (
                f"{size['label']} ({size['runs']:,} runs, {size['quads']:,} quads)" if first else ""
            )
            first = False
            lines.append(
                f"| {label} | {qname} | {rows_text} | {ms(bg.get('median_ms'))} "
                f"| {ms(ox_.get('median_ms'))} | {ms(rl.get('median_ms'))} "
                f"| {ratio(bg.get('median_ms'), ox_.get('median_ms'))} "
                f"| {ratio(bg.get('median_ms'), rl.get('median_ms'))} "
                f"| {'/'.join(map(str, n))} |"
            )
    failures = sum(
        v.get("failures", 0)
        for s in result["sizes"]
        for by in s["queries"].values()
        for v in by.values()
    )
    lines += [
        "",
        f"Errors ({failures} requests failed; each is listed with its HTTP status "
        "and the first answer):"
        if failures
        or any(
            v.get("error")
            for s in result["sizes"]
            for by in s["queries"].values()
            for v in by.values()
        )
        else "No query failed on any server (every request answered 200).",
        "",
    ]
    for size in result["sizes"]:
        for qname, by in size["queries"].items():
            for server, v in by.items():
                if v.get("error") or v.get("failures"):
                    failed = failed_text(v.get("statuses", {}))
                    lines.append(
                        f"- {size['label']}, {qname}, {server}: "
                        f"{failed + '; ' if failed else ''}{v.get('error') or ''}"
                    )
    lines += [
        "",
        f"Throughput: closed-loop clients for {result['duration']:g} s each; cheap is the "
        f"point lookup, heavy is {HEAVY}.",
        "",
        "| data | query | clients | benchgraph /s | p50 / p95 ms | Oxigraph /s | p50 / p95 ms "
        "| rdflib-endpoint /s | p50 / p95 ms | x Ox p95 |",
        "|---|---|---:|---:|---|---:|---|---:|---|---:|",
    ]
    why: list[str] = []  # the first answer of each failing status, listed below the table
    for size in result["sizes"]:
        rows_by: dict[tuple, dict] = {}
        for server, runs in size["load"].items():
            for run in runs:
                by = rows_by.setdefault((run["kind"], run.get("clients")), {})
                by.setdefault(server, run)  # the first of each server's (ABBA: see measure)
        for (kind, clients), by in rows_by.items():
            if clients is None:
                continue
            cells = []
            for server in SERVERS:
                run = by.get(server)
                if not run or "per_s" not in run:
                    cells += ["-", "-"]
                else:
                    failed = failed_text(run.get("statuses", {}))
                    cells += [
                        f"{run['per_s']:,.1f}",
                        f"{ms(run['p50_ms'])} / {ms(run['p95_ms'])}"
                        + (f" ({failed})" if failed else ""),
                    ]
                    for status, answer in run.get("why", {}).items():
                        why.append(
                            f"- {size['label']}, {kind} x{clients}, {server}: {status}: {answer}"
                        )
            bg, ox_ = by.get("benchgraph", {}), by.get("oxigraph", {})
            lines.append(
                f"| {size['label']} | {kind} | {clients} | "
                + " | ".join(cells)
                + f" | {ratio(bg.get('p95_ms'), ox_.get('p95_ms'))} |"
            )
    if why:
        lines += [
            "",
            "Failed requests under load, the first answer of each status (0: no "
            "answer, the connection failed or timed out):",
            "",
            *why,
        ]
    lines += [
        "",
        "Serving memory: PSS (and RSS) summed over every process of each server, MB: after "
        "start-up (idle), right after the runs, and settled (idle for "
        f"{result.get('settle', 0):g} s more, when benchgraph has stopped the workers the load "
        "added); benchgraph's PSS by process role.",
        "",
        "| data | benchgraph PSS (RSS) | Oxigraph PSS (RSS) | rdflib-endpoint PSS (RSS) "
        "| x Ox PSS | benchgraph by role |",
        "|---|---|---|---|---:|---|",
    ]
    for size in result["sizes"]:
        for when in ("started", "after", "settled"):
            mem = size["memory"].get(when)
            if not mem:
                continue
            cells = []
            for server in SERVERS:
                v = mem.get(server)
                cells.append(
                    "-"
                    if not v
                    else f"{v['pss_mb']:,.0f} ({v['rss_mb']:,.0f}), {v['processes']} proc."
                )
            bg, ox_ = mem.get("benchgraph", {}), mem.get("oxigraph", {})
            roles = ", ".join(f"{k} {v:,.0f}" for k, v in (bg.get("by_role") or {}).items())
            lines.append(
                f"| {size['label']}, {when} | "
                + " | ".join(cells)
                + f" | {ratio(bg.get('pss_mb'), ox_.get('pss_mb'))} | {roles} |"
            )
    lines += [
        "",
        "Set-up per size: the build (cached from an earlier run where it says so), "
        "the N-Quads dump, each server's start-up (Oxigraph: `oxigraph load` first; "
        "rdflib-endpoint: parsing the N-Quads into memory).",
        "",
        "| data | build s | dump s | benchgraph start s | oxigraph load s "
        "| oxigraph start s | rdflib-endpoint |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for size in result["sizes"]:
        a = size["servers"]
        rl = a.get("rdflib-endpoint", {})
        rl_text = (
            f"loaded in {rl['load_s']:g} s"
            if rl.get("loaded")
            else f"did not load: {rl.get('why', '')}"
        )
        ox_load = a["oxigraph"].get("load_s")
        lines.append(
            f"| {size['label']} | {size['build_s']:g} | {size['dump_s']:g} "
            f"| {a['benchgraph']['start_s']:g} "
            f"| {'earlier run' if ox_load is None else f'{ox_load:g}'} "
            f"| {a['oxigraph']['start_s']:g} | {rl_text} |"
        )
    if result.get("baseline"):
        lines += baseline_section(result)
    lines.append("")
    return "\n".join(lines)


def baseline_section(result: dict) -> list[str]:
    """Today's benchgraph serve over the baseline commit's, on the same records."""
    b = result["baseline"]
    lines = [
        "",
        f"## Today's benchgraph serve against {b['rev']} ({b['sha'][:10]})",
        "",
        f"The same records served by {b['rev']}'s code, its requests interleaved with the "
        "others'; `x base` is today's time over the baseline's (above 1: today is slower). "
        f"Records: {b['records']}.",
        "",
        "| data | query | rows today / base | today ms | base ms | x base |",
        "|---|---|---|---:|---:|---:|",
    ]
    for size in result["sizes"]:
        for qname, by in size["queries"].items():
            bg, base = by.get("benchgraph", {}), by.get(BASELINE, {})
            rows_text = " / ".join(
                "-" if v.get("rows") is None else f"{v['rows']:,}" for v in (bg, base)
            )
            lines.append(
                f"| {size['label']} | {qname} | {rows_text} "
                f"| {ms(bg.get('median_ms'))} | {ms(base.get('median_ms'))} "
                f"| {ratio(bg.get('median_ms'), base.get('median_ms'))} |"
            )
    lines += [
        "",
        "Throughput, today's and the baseline's servers alternately (today, base, "
        "base, today), each run listed:",
        "",
        "| data | query | clients | today /s | base /s | base /s over today's "
        "| today p95 ms "
        "| base p95 ms |",
        "|---|---|---:|---|---|---:|---|---|",
    ]
    for size in result["sizes"]:
        keys = dict.fromkeys(
            (r["kind"], r.get("clients"))
            for r in size["load"].get("benchgraph", [])
            if r.get("clients")
        )
        for kind, clients in keys:
            got = {
                server: [
                    r
                    for r in size["load"].get(server, [])
                    if r["kind"] == kind and r.get("clients") == clients and "per_s" in r
                ]
                for server in ("benchgraph", BASELINE)
            }
            mean = {
                k: statistics.mean(r["per_s"] for r in v) if v else None for k, v in got.items()
            }
            rates = {k: ", ".join(f"{r['per_s']:,.1f}" for r in v) or "-" for k, v in got.items()}
            p95 = {k: ", ".join(ms(r["p95_ms"]) for r in v) or "-" for k, v in got.items()}
            lines.append(
                f"| {size['label']} | {kind} | {clients} | {rates['benchgraph']} "
                f"| {rates[BASELINE]} | {ratio(mean[BASELINE], mean['benchgraph'])} "
                f"| {p95['benchgraph']} | {p95[BASELINE]} |"
            )
    lines += [
        "",
        "Serving memory, PSS (RSS) MB summed over each server's processes:",
        "",
        "| data | when | today | base | x base PSS |",
        "|---|---|---|---|---:|",
    ]
    for size in result["sizes"]:
        for when in ("started", "after", "settled"):
            mem = size["memory"].get(when) or {}
            today, base = mem.get("benchgraph"), mem.get(BASELINE)
            if not today or not base:
                continue
            lines.append(
                f"| {size['label']} | {when} "
                + "".join(f"| {v['pss_mb']:,.0f} ({v['rss_mb']:,.0f}) " for v in (today, base))
                + f"| {ratio(today['pss_mb'], base['pss_mb'])} |"
            )
    lines += [
        "",
        "Start-up (each builds the records with its own code first, from an empty "
        "cache): "
        + "; ".join(
            f"{size['label']}: today {size['servers']['benchgraph']['start_s']:g} s, "
            f"base {size['servers'][BASELINE]['start_s']:g} s"
            for size in result["sizes"]
            if BASELINE in size["servers"]
        )
        + ".",
    ]
    return lines


def versions() -> dict[str, str]:
    out = {}
    for package in (
        "pyoxigraph",
        "oxigraph",
        "rdflib",
        "rdflib-endpoint",
        "flask",
        "gunicorn",
        "uvicorn",
    ):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "absent"
    try:
        out["benchgraph"] = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out["benchgraph"] = metadata.version("benchgraph")
    out["python"] = platform.python_version()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        default=["shipped", "10000", "100000"],
        help="shipped, a number of runs, or a data folder (default: %(default)s)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed requests per query")
    parser.add_argument(
        "--duration", type=float, default=10.0, help="seconds of each throughput run"
    )
    parser.add_argument(
        "--query-timeout",
        type=float,
        default=300.0,
        help="seconds a request may take before its server is skipped",
    )
    parser.add_argument(
        "--rdflib-max-quads",
        type=int,
        default=1_000_000,
        help="start rdflib-endpoint only on data of at most this many quads "
        "(it holds them in Python objects)",
    )
    parser.add_argument(
        "--rdflib-load-timeout",
        type=float,
        default=900.0,
        help="seconds rdflib-endpoint may take to load",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=65.0,
        help="seconds idle after the runs before memory is measured again "
        "(benchgraph stops extra workers idle for 60 s)",
    )
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["rdflib-endpoint"],
        help="leave a peer out (a quicker look)",
    )
    parser.add_argument(
        "--baseline", metavar="REV", help="serve the same records with this commit's benchgraph too"
    )
    parser.add_argument(
        "--baseline-dir",
        type=Path,
        metavar="DIR",
        help="where the baseline's environment is made and kept (default: "
        ".benchgraph/ of this checkout)",
    )
    parser.add_argument(
        "--records",
        choices=("baseline", "today"),
        default="baseline",
        help="with --baseline: whose data/ `shipped` and the copies are made "
        "of (default: the baseline's, which the later code reads too)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=None,
        help="where data folders, builds and stores are kept between runs "
        "(default: a temporary folder, removed)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=REPORTS / "serve.md",
        help="the Markdown report; the JSON goes beside it (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    args.baseline_env = None
    shipped = SHIPPED
    if args.baseline:
        import baseline

        args.baseline_env = baseline.prepare(args.baseline, args.baseline_dir or baseline.HOME)
        if args.records == "baseline":
            shipped = args.baseline_env.tree / "data"
    work = args.work or Path(tempfile.mkdtemp(prefix="benchgraph-serve-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    load_start = round(os.getloadavg()[0], 1)
    sizes = []
    try:
        for size in args.sizes:
            print(f"preparing {size} ...", file=sys.stderr)
            prepared = prepare(size, work, shipped)
            sizes.append(measure(prepared, work, args))
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    result = {
        "argv": " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {
            "platform": f"{platform.machine()} {platform.system()}",
            "cores": os.cpu_count(),
            "memory_gib": round(psutil.virtual_memory().total / 2**30),
            "load_start": load_start,
            "load_end": round(os.getloadavg()[0], 1),
        },
        "versions": versions(),
        "repeat": args.repeat,
        "duration": args.duration,
        "settle": args.settle,
        "sizes": sizes,
    }
    if args.baseline_env is not None:
        result["baseline"] = {
            "rev": args.baseline,
            "sha": args.baseline_env.sha,
            "records": f"{args.baseline}'s data/"
            if args.records == "baseline"
            else "today's data/",
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = report(result)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
