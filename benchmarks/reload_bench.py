"""Reload benchmark: how long from an edit to its being served by `benchgraph serve --watch`
(and after SIGHUP), against the peer a user had before, a restart; and what the watcher
costs next to polling the files.

    python benchmarks/reload_bench.py [--data data] [--rounds 5] [--report FILE]

A copy of the data folder is served (its own build cache), 127.0.0.1 only. Each round sets
one accelerator's memory_gb to a new value and times, with a client asking every 20 ms,
until the endpoint answers it; a second client loops requests (one per 10 ms) on fresh
connections the whole time and counts what failed (refused connections, non-200 answers).
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
from pathlib import Path
from urllib.parse import urlencode

ACCELERATOR = "accelerators/nvidia-h100-sxm.yaml"
QUERY = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT ?m WHERE { <https://w3id.org/benchgraph/id/accelerators/nvidia-h100-sxm> bg:memoryGB ?m }"""
PACE = 0.01  # seconds between the looping client's requests: it probes, it does not load
LINKING = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {
  ?r ?p <https://w3id.org/benchgraph/id/accelerators/nvidia-h100-sxm> }"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask(port: int, query: str, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST",
            "/sparql",
            urlencode({"query": query}).encode(),
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/sparql-results+json",
            },
        )
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def value(port: int) -> float | None:
    try:
        status, body = ask(port, QUERY)
    except OSError:
        return None
    if status != 200:
        return None
    rows = json.loads(body)["results"]["bindings"]
    return float(rows[0]["m"]["value"]) if rows else None


def health(port: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/healthz")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


class Server:
    def __init__(self, data: Path, cache: Path, log: Path, *args: str, port: int = 0):
        self.port = port or free_port()
        self.log = log
        env = os.environ | {"BENCHGRAPH_CACHE": str(cache)}
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchgraph",
                    "serve",
                    "--data",
                    str(data),
                    "--port",
                    str(self.port),
                    "--query-workers",
                    "2",
                    *args,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )

    def wait_up(self, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self.log.read_text()[-3000:])
            try:
                if health(self.port).get("ok"):
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise RuntimeError("the server did not come up")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Prober:
    """Loops requests on fresh connections; counts failures and when they happened."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.ok = 0
        self.refused: list[float] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        deadline = time.monotonic() + 1800
        while not self._stop.is_set() and time.monotonic() < deadline:
            time.sleep(PACE)
            try:
                status, body = ask(self.port, QUERY)
                if status == 200:
                    self.ok += 1
                else:
                    self.errors.append(f"{status} {body[:100]!r}")
            except ConnectionRefusedError:
                self.refused.append(time.monotonic())
                time.sleep(0.005)
            except OSError as exc:
                self.errors.append(repr(exc))


def set_memory(data: Path, gb: int) -> None:
    file = data / ACCELERATOR
    lines = [
        f"memory_gb: {gb}" if line.startswith("memory_gb:") else line
        for line in file.read_text().splitlines()
    ]
    file.write_text("\n".join(lines) + "\n")


def served_after(port: int, gb: int, started: float, timeout: float = 120) -> float:
    while time.monotonic() - started < timeout:
        if value(port) == gb:
            return time.monotonic() - started
        time.sleep(0.02)
    raise RuntimeError(f"{gb} not served within {timeout} s")


def swaps(data: Path, cache: Path, log: Path, rounds: int, hup: bool) -> dict:
    args = () if hup else ("--watch",)
    server = Server(data, cache, log, *args)
    server.wait_up()
    times, rebuilds = [], []
    try:
        with Prober(server.port) as probe:
            for i in range(rounds):
                gb = 200 + i + (100 if hup else 0)
                started = time.monotonic()
                set_memory(data, gb)
                if hup:
                    server.proc.send_signal(signal.SIGHUP)
                times.append(served_after(server.port, gb, started))
                rebuilds.append(health(server.port)["last_rebuild"]["seconds"])
                time.sleep(1)
        linking = json.loads(ask(server.port, LINKING)[1])["results"]["bindings"][0]["n"]
        return {
            "times": times,
            "rebuild_s": rebuilds,
            "ok": probe.ok,
            "refused": len(probe.refused),
            "errors": probe.errors,
            "linking": int(linking["value"]),
        }
    finally:
        server.stop()


def restarts(data: Path, cache: Path, log: Path, rounds: int) -> dict:
    """The peer: stop the server and start it again on the edited data (same port)."""
    port = free_port()
    server = Server(data, cache, log, port=port)
    server.wait_up()
    times, gaps = [], []
    try:
        with Prober(port) as probe:
            for i in range(rounds):
                gb = 400 + i
                started = time.monotonic()
                set_memory(data, gb)
                server.stop()
                server = Server(data, cache, log, port=port)
                times.append(served_after(port, gb, started))
                gaps.append(probe.refused[-1] - probe.refused[0] if probe.refused else 0.0)
                probe.refused.clear()
                time.sleep(1)
        return {"times": times, "refused_window_s": gaps, "ok": probe.ok, "errors": probe.errors}
    finally:
        server.stop()


def watcher_costs(data: Path) -> dict:
    """One poll of every record file vs the watcher's idle CPU and event latency."""
    import watchfiles

    from benchgraph.records.files import scan_record_files

    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(10):
        files = scan_record_files(data)
    poll_ms = (time.process_time() - cpu) / 10 * 1000
    poll_wall = (time.perf_counter() - start) / 10 * 1000
    many = Path(tempfile.mkdtemp(prefix="bench-100k-"))
    try:
        for k in range(100):
            folder = many / "benchmarks" / f"f{k}"
            folder.mkdir(parents=True)
            for j in range(1000):
                (folder / f"r{j}.yaml").touch()
        cpu = time.process_time()
        for _ in range(3):
            n100k = len(scan_record_files(many))
        poll_100k_ms = (time.process_time() - cpu) / 3 * 1000
    finally:
        shutil.rmtree(many)
    stop, got = threading.Event(), []

    def run() -> None:
        for changes in watchfiles.watch(data, stop_event=stop, debounce=1600, step=50):
            got.append((time.perf_counter(), len(changes)))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    time.sleep(1)
    cpu = time.process_time()
    time.sleep(3)
    idle_ms = (time.process_time() - cpu) * 1000
    target = data / "engines" / "vllm.yaml"
    t0 = time.perf_counter()
    target.write_bytes(target.read_bytes())
    time.sleep(1)
    one = [(round((t - t0) * 1000), n) for t, n in got]
    got.clear()
    runs = sorted((data / "benchmarks").rglob("*.yaml"))[:50]
    t0 = time.perf_counter()
    for p in runs:
        p.write_bytes(p.read_bytes())
    time.sleep(2)
    burst = [(round((t - t0) * 1000), n) for t, n in got]
    stop.set()
    return {
        "files": len(files),
        "poll_cpu_ms": poll_ms,
        "poll_wall_ms": poll_wall,
        "files_100k": n100k,
        "poll_100k_cpu_ms": poll_100k_ms,
        "watch_idle_cpu_ms_3s": idle_ms,
        "one_write": one,
        "burst_50": burst,
    }


def fmt(xs: list[float]) -> str:
    return (
        f"median {statistics.median(xs):.2f} s, min {min(xs):.2f}, max {max(xs):.2f} "
        f"({len(xs)} rounds)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("data"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--report", type=Path)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-reload-"))
    try:
        data = work / "data"
        shutil.copytree(args.data, data)
        cache, log = work / "cache", work / "server.log"
        watched = swaps(data, cache, log, args.rounds, hup=False)
        hup = swaps(data, cache, log, args.rounds, hup=True)
        peer = restarts(data, cache, log, args.rounds)
        costs = watcher_costs(data)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [
        "# Reload benchmark",
        "",
        f"`python benchmarks/reload_bench.py --data {args.data} --rounds {args.rounds}` on "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{costs['files']} record files; the edited accelerator has {watched['linking']} "
        "records linking to it.",
        "",
        "## From an edit to its being served",
        "",
        f"- `serve --watch` (settle 0.5 s): {fmt(watched['times'])}; the rebuild itself "
        f"{fmt(watched['rebuild_s'])}. A client looping meanwhile: {watched['ok']} answers, "
        f"{watched['refused']} refused connections, {len(watched['errors'])} errors.",
        f"- SIGHUP right after the edit: {fmt(hup['times'])}; rebuild {fmt(hup['rebuild_s'])}. "
        f"Looping client: {hup['ok']} answers, {hup['refused']} refused, "
        f"{len(hup['errors'])} errors.",
        f"- Peer, a restart (SIGTERM, start again on the same port): {fmt(peer['times'])}; "
        f"connections refused for {fmt(peer['refused_window_s'])}; looping client: "
        f"{peer['ok']} answers, {len(peer['errors'])} other errors.",
        f"- Ratio watch / restart (medians): "
        f"{statistics.median(watched['times']) / statistics.median(peer['times']):.2f}; "
        f"SIGHUP / restart: "
        f"{statistics.median(hup['times']) / statistics.median(peer['times']):.2f}.",
        "",
        "## The watcher against polling",
        "",
        f"- One poll of every record file's size and time (records.scan_record_files): "
        f"{costs['poll_cpu_ms']:.1f} ms CPU ({costs['poll_wall_ms']:.1f} ms wall) for "
        f"{costs['files']} files; {costs['poll_100k_cpu_ms']:.0f} ms CPU for "
        f"{costs['files_100k']} files.",
        f"- watchfiles (inotify), idle: {costs['watch_idle_cpu_ms_3s']:.1f} ms CPU in 3 s.",
        f"- One write: batches (ms after the write, changes) {costs['one_write']}.",
        f"- 50 writes back to back: batches {costs['burst_50']}.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if watched["errors"] or hup["errors"]:
        print("errors during swaps:", watched["errors"][:5], hup["errors"][:5])
    if args.report:
        args.report.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
