"""What the web tests share: where their data is, and live `benchgraph serve` processes."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlencode

import psutil

from paths import SHARED

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "data" / "records"
EXAMPLES = HERE / "data" / "queries"
W3C = SHARED / "data" / "w3c" / "rdf-tests" / "sparql" / "sparql11"
ID = "https://w3id.org/benchgraph/id/"
GRAPH = "https://w3id.org/benchgraph/graph/"
LIVE_TIMEOUT = 3.0  # seconds: the live servers' query time limit


@dataclass
class LiveServer:
    """A running `benchgraph serve`."""

    url: str
    proc: subprocess.Popen
    log: Path

    @property
    def host(self) -> str:
        return self.url.split("//")[1].split(":")[0]

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30,
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP request, sent exactly as given (http.client adds no Content-Type)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()

    def query(
        self, text: str, accept: str = "application/sparql-results+json", timeout: float = 30
    ) -> tuple[int, dict[str, str], bytes]:
        """POST a query form-encoded, as YASGUI does."""
        return self.request(
            "POST",
            "/sparql",
            urlencode({"query": text}).encode(),
            {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept},
            timeout=timeout,
        )

    def health(self) -> dict:
        return json.loads(self.request("GET", "/healthz")[2])

    def stop(self) -> None:
        """SIGTERM, as a service manager would; kill what is left after 20 s."""
        if self.proc.poll() is None:
            tree = psutil.Process(self.proc.pid).children(recursive=True)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            for child in tree:
                if child.is_running():
                    child.kill()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    tmp: Path, cache: Path, *args: str, env: dict[str, str] | None = None
) -> LiveServer:
    """`benchgraph serve` on the test records; waits until /healthz answers."""
    port = free_port()
    log = tmp / f"server-{port}.log"
    environment = (
        os.environ
        | {"BENCHGRAPH_CACHE": str(cache), "BENCHGRAPH_QUERIES_DIR": str(EXAMPLES)}
        | (env or {})
    )
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchgraph",
                "serve",
                "--data",
                str(RECORDS),
                "--port",
                str(port),
                "--timeout",
                str(LIVE_TIMEOUT),
                "--query-workers",
                "3",
                *args,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    server = LiveServer(f"http://127.0.0.1:{port}", proc, log)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"benchgraph serve exited {proc.returncode}:\n" + log.read_text(errors="replace")
            )
        try:
            if server.request("GET", "/healthz", timeout=2)[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("benchgraph serve did not answer /healthz:\n" + log.read_text())


def w3c_graph_data() -> list[tuple[Path, str]]:
    """Every (file, graph name) a W3C protocol test loads (its ut:graphData)."""
    from rdflib import Graph, Namespace
    from rdflib.namespace import RDFS

    ut = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
    manifest = W3C / "protocol" / "manifest.ttl"
    g = Graph().parse(manifest, format="turtle")
    found = set()
    for node in g.objects(None, ut.graphData):
        file_iri, name = g.value(node, ut.graph), g.value(node, RDFS.label)
        found.add((Path(str(file_iri).removeprefix("file://")), str(name)))
    return sorted(found)


class Listener:
    """An HTTP endpoint on 127.0.0.1 that records every connection (before answering it) and
    every request, and answers one SPARQL row, so an engine that calls it gets a real
    answer: the witness that a refused SERVICE was never called."""

    def __init__(self) -> None:
        self.connections: list[tuple[str, int]] = []
        self.requests: list[str] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                listener.requests.append(
                    self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                )
                self._answer()

            def do_GET(self) -> None:  # noqa: N802
                listener.requests.append(self.path)
                self._answer()

            def _answer(self) -> None:
                body = json.dumps(
                    {
                        "head": {"vars": ["x"]},
                        "results": {
                            "bindings": [{"x": {"type": "literal", "value": "from the listener"}}]
                        },
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request, client_address) -> bool:
                listener.connections.append(client_address)
                return True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/sparql"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class InThread:
    """A call run in a thread of its own, its outcome carried back to the test's thread:
    `raised(ExcType)` joins it and fails the test unless the call raised that error (a
    `pytest.raises` inside the thread could only warn)."""

    def __init__(self, call, *args) -> None:
        self.error: BaseException | None = None
        self.value = None

        def run() -> None:
            try:
                self.value = call(*args)
            except BaseException as exc:  # noqa: BLE001 - carried to the test's thread
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def is_alive(self) -> bool:
        return self.thread.is_alive()

    def join(self, timeout: float = 120) -> None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"the call did not end within {timeout} s"

    def raised(self, expected: type[BaseException], timeout: float = 120) -> BaseException:
        self.join(timeout)
        assert isinstance(self.error, expected), (
            f"expected {expected.__name__}, got {self.error!r} (value {self.value!r})"
        )
        return self.error

    def returned(self, timeout: float = 120):
        self.join(timeout)
        if self.error is not None:
            raise self.error
        return self.value


def wait_until(condition, timeout: float = 30, what: str = "the condition") -> None:
    """Poll `condition()` until it is true; fail after `timeout` seconds naming `what`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.02)
