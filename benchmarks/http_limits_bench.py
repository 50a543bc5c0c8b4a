"""Request-line benchmark: how long a live server takes to answer a GET with a very long path.

    python benchmarks/http_limits_bench.py [--data DIR] [--sizes 1 4 16] [--label NAME]
                                           [--report FILE]

Starts `benchgraph serve` (gunicorn, as users run it) on the records in DIR, then sends
`GET /<N MB of "a"> HTTP/1.1` for each size and times the answer: from the first byte sent to
the status line read (or to the server closing the connection, if it does so without one).
The client keeps sending while it reads, as a hostile client would. Machines are noisy, so each
time is also given as a ratio to a peer measured in the same run: a GET of a short unknown
path (a 404). The benchmark needs nothing of the code it measures: run it with PYTHONPATH at an
older tree to measure that tree. --label names the run; the report gets one section per run.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER = "GET of a short unknown path (404)"


def start(data: Path, tmp: Path) -> tuple[subprocess.Popen, int]:
    """`benchgraph serve` on a free port; waits until /healthz answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (tmp / "server.log").open("wb")
    env = os.environ | {"BENCHGRAPH_CACHE": str(tmp / "cache")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchgraph",
            "serve",
            "--data",
            str(data),
            "--port",
            str(port),
            "--query-workers",
            "1",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"benchgraph serve exited {proc.returncode}: see {log.name}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc, port
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("benchgraph serve did not answer /healthz")


def answer_time(port: int, path_bytes: int, timeout: float = 300) -> tuple[float, str]:
    """Seconds from the first byte sent to the status line (or the connection's end)."""
    request = (
        b"GET /"
        + b"a" * (path_bytes - 1)
        + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def send() -> None:
        try:
            sock.sendall(request)
        except OSError:
            pass  # the server answered and closed before the end

    start = time.perf_counter()
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        data += b" reset"
    elapsed = time.perf_counter() - start
    sock.close()
    sender.join(timeout)
    status = data.split(b"\r\n")[0].decode(errors="replace") if data else "closed, no answer"
    return elapsed, status.replace("HTTP/1.1 ", "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "web" / "data" / "records")
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 4, 16], metavar="MB")
    parser.add_argument("--repeat", type=int, default=3, help="times per size (median kept)")
    parser.add_argument("--label", default="this tree")
    parser.add_argument("--report", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="benchgraph-limits-bench-") as tmp:
        proc, port = start(args.data, Path(tmp))
        try:
            peer = statistics.median(answer_time(port, 20)[0] for _ in range(args.repeat))
            rows = [("20 B", PEER, peer, "404 NOT FOUND")]
            for mb in args.sizes:
                times, statuses = [], set()
                for _ in range(args.repeat):
                    elapsed, status = answer_time(port, int(mb * 2**20))
                    times.append(elapsed)
                    statuses.add(status)
                rows.append(
                    (
                        f"{mb:g} MB",
                        "GET of a long path",
                        statistics.median(times),
                        " / ".join(sorted(statuses)),
                    )
                )
        finally:
            proc.terminate()
            proc.wait(30)
    lines = [
        f"## {args.label}",
        "",
        "| path | request | s (median) | x peer | answer |",
        "|---:|---|---:|---:|---|",
    ]
    lines += [
        f"| {size} | {what} | {t:.3f} | {t / peer:,.0f} | {status} |"
        for size, what, t, status in rows
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        if not args.report.exists():
            args.report.write_text(
                "# Request-line benchmark\n\n"
                f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
                f"{platform.python_version()}.\n\nCommand: `python benchmarks/http_limits_bench.py"
                " --label NAME --report benchmarks/reports/http-limits.md` (for an older tree, "
                "with PYTHONPATH at its src/). Records: tests/web/data/records. Time: from the "
                "first byte of the request sent to the status line read, the client sending on "
                f"meanwhile. Peer: {PEER}, in the same run.\n\n",
                encoding="utf-8",
            )
        with args.report.open("a", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
