"""`benchgraph link` against hostile endpoints: tiny HTTP servers on 127.0.0.1 that send an
endless answer, trickle one, redirect elsewhere, answer bad JSON or an error body with
terminal escapes. Each ends in one message naming the endpoint (exit 2), within the
deadline, never a traceback, and no escape reaches the terminal."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import urllib.parse

import pytest

from benchgraph.cli.main import main
from paths import TEST_DATA

RESULTS = b'{"head": {"vars": ["item", "label"]}, "results": {"bindings": []}}'
TICK = 0.1  # seconds between two bytes of a trickle


class Server:
    """An HTTP server on a free 127.0.0.1 port that writes what `answer(server, request,
    conn)` writes, raw: each connection on a thread of its own, each answer ending by itself
    (a bound of bytes or seconds) or when the test closes the server."""

    def __init__(self, answer):
        self.answer = answer
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/sparql"
        self.requests: list[dict] = []
        self.stop = threading.Event()
        self.client_left = threading.Event()  # a write failed: the client hung up
        self.threads: list[threading.Thread] = []
        self._start(self._accept)

    def _start(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self.threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._start(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    piece = conn.recv(65536)
                    if not piece:
                        return
                    data += piece
                head, _, body = data.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = dict(line.split(": ", 1) for line in lines[1:])
                while len(body) < int(headers.get("Content-Length", 0)):
                    body += conn.recv(65536)
                method, path, _ = lines[0].split(" ", 2)
                request = {
                    "method": method,
                    "path": path,
                    "headers": headers,
                    "query": urllib.parse.parse_qs(body.decode()).get("query"),
                }
                self.requests.append(request)
                self.answer(self, request, conn)
        except OSError:
            self.client_left.set()

    def trickle(self, conn: socket.socket, data: bytes) -> None:
        for byte in data:
            if self.stop.wait(TICK):
                return
            conn.sendall(bytes([byte]))

    def close(self) -> None:
        self.stop.set()
        self.listener.close()
        for thread in self.threads:
            thread.join(timeout=10)
        assert not any(t.is_alive() for t in self.threads), "a server thread did not end"


@pytest.fixture
def serve():
    started = []

    def start(answer) -> Server:
        started.append(Server(answer))
        return started[-1]

    yield start
    for server in started:
        server.close()


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    target = tmp_path / "data"
    shutil.copytree(TEST_DATA / "wikidata-fixture" / "records", target)
    return target


def link(records, url: str, capsys, *more: str) -> tuple[int, str]:
    """Run `benchgraph link --out`; its exit code and what it wrote on stderr."""
    code = main(
        [
            "link",
            "--data",
            str(records),
            "--endpoint",
            url,
            "--out",
            str(records.parent / "links.sssom.tsv"),
            *more,
        ]
    )
    return code, capsys.readouterr().err


def one_message(err: str, url: str) -> str:
    """The run's stderr is one line of benchgraph's, naming the endpoint."""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"benchgraph: {url}: "), err
    return lines[0]


def answer(status: bytes, body: bytes, *headers: bytes) -> bytes:
    head = [
        b"HTTP/1.1 " + status,
        b"Content-Length: %d" % len(body),
        b"Connection: close",
        *headers,
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def test_an_endless_answer_is_cut_at_the_size_limit(serve, records, capsys):
    bound = 16 * 1024 * 1024  # the server gives up here; the client must stop far sooner

    def endless(server, request, conn):
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
            b"Connection: close\r\n\r\n" + b'{"results": {"bindings": ['
        )
        block, sent = b'{"item": {"type": "uri", "value": "x"}}, ' * 4096, 0
        while sent < bound and not server.stop.is_set():
            conn.sendall(block)
            sent += len(block)

    server = serve(endless)
    code, err = link(records, server.url, capsys, "--max-result-mb", "1")
    message = one_message(err, server.url)
    assert code == 2 and "the answer is over 1 MB" in message and "--max-result-mb" in message
    assert server.client_left.wait(10), "the server sent its whole bound: the client read on"


@pytest.mark.parametrize("where", ["status line", "body"])
def test_a_trickle_ends_at_the_deadline_of_the_whole_request(where, serve, records, capsys):
    """A byte every TICK seconds never trips a per-read timeout; the deadline stops it."""

    def trickle(server, request, conn):
        head = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
        if where == "body":
            conn.sendall(head)
            server.trickle(conn, RESULTS)
        else:
            server.trickle(conn, head)

    server = serve(trickle)
    code, err = link(records, server.url, capsys, "--timeout", "1")
    message = one_message(err, server.url)
    assert code == 2 and message.endswith("no whole answer within 1 s (--timeout)")
    assert server.client_left.wait(10), "the trickle ran to its end: the client waited on"


@pytest.mark.parametrize("elsewhere", ["another port", "another host name", "https"])
def test_a_redirect_off_the_endpoints_origin_is_refused(elsewhere, serve, records, capsys):
    other = serve(lambda server, request, conn: conn.sendall(answer(b"200 OK", RESULTS)))
    target = {
        "another port": other.url,
        "another host name": "http://localhost:{port}/elsewhere",
        "https": "https://127.0.0.1:{port}/sparql",
    }[elsewhere]

    def redirect(server, request, conn):
        location = target.format(port=server.port).encode()
        if request["path"] == "/sparql":
            conn.sendall(answer(b"302 Found", b"", b"Location: " + location))
        else:  # where "another host name" leads, were it followed
            conn.sendall(answer(b"200 OK", RESULTS))

    server = serve(redirect)
    code, err = link(records, server.url, capsys)
    message = one_message(err, server.url)
    assert code == 2, err
    assert message.endswith(
        f"HTTP 302 redirects to {target.format(port=server.port)}, off "
        f"the endpoint's origin (http://127.0.0.1:{server.port}): "
        "not followed"
    )
    assert other.requests == [] and len(server.requests) == 1


def test_a_redirect_on_the_endpoints_origin_is_followed_with_the_query(serve):
    from benchgraph.links.sparql import Endpoint

    row = {"item": {"type": "uri", "value": "http://www.wikidata.org/entity/Q1"}}

    def moved(server, request, conn):
        if request["path"] == "/old":
            conn.sendall(answer(b"302 Found", b"", b"Location: /sparql"))
        elif request["method"] == "POST" and request["query"] == ["ASK {}"]:
            conn.sendall(answer(b"200 OK", json.dumps({"results": {"bindings": [row]}}).encode()))
        else:
            conn.sendall(answer(b"400 Bad Request", b"no query"))

    server = serve(moved)
    endpoint = Endpoint(f"http://127.0.0.1:{server.port}/old")
    assert endpoint.select("ASK {}") == [{"item": "http://www.wikidata.org/entity/Q1"}]
    assert [(r["method"], r["path"], r["query"]) for r in server.requests] == [
        ("POST", "/old", ["ASK {}"]),
        ("POST", "/sparql", ["ASK {}"]),
    ]


@pytest.mark.parametrize(
    "body, said",
    [
        (b'{"results": "\xff"}', "invalid start byte"),
        (b"[]", "no results.bindings list"),
        (b'{"results": []}', "no results.bindings list"),
        (b'{"results": {"bindings": [1]}}', "results.bindings[0] is not an object"),
        (
            b'{"results": {"bindings": [{"item": "Q1"}]}}',
            "results.bindings[0].item is not a term with a text value",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (b'{"results": {"bindings": ' + b"[" * 100_000, "nested too deep"),
    ],
    ids=[
        "not UTF-8",
        "a list",
        "results a list",
        "a row not an object",
        "a value not a term",
        "nested 100,000 deep",
        "nested and cut",
    ],
)
def test_a_bad_answer_is_one_message(body, said, serve, records, capsys):
    server = serve(lambda server, request, conn: conn.sendall(answer(b"200 OK", body)))
    code, err = link(records, server.url, capsys)
    message = one_message(err, server.url)
    assert code == 2
    assert (
        message.startswith(f"benchgraph: {server.url}: the answer is not SPARQL JSON results: ")
        and said in message
    )


def test_a_deep_answer_is_refused_where_the_recursion_limit_was_raised(tmp_path):
    """Where the query parser raised the recursion limit (bigstack.py), json's C decoder
    would recurse 100,000 levels on an 8 MiB stack and kill the process: the depth is counted
    first. In a process of its own, so that a crash fails this test and nothing else."""
    import subprocess
    import sys

    script = (
        "import sys; sys.setrecursionlimit(10_000_000)\n"
        "from benchgraph.links.sparql import _rows\n"
        "from benchgraph.errors import CannotRun\n"
        "try:\n    _rows(b'[' * 100_000 + b']' * 100_000, 'http://x/sparql')\n"
        "except CannotRun as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (
        0,
        "http://x/sparql: the answer is not SPARQL "
        "JSON results: nested too deep (over 32 levels)\n",
    )


def test_the_endpoints_own_text_reaches_the_terminal_escaped(serve, records, capsys):
    body = b"\x1b[31mboom\x1b]0;owned\x07\x1b[0m\r\nsecond line \xe2\x80\xae"

    def error(server, request, conn):
        conn.sendall(answer(b"500 \x1b[2JBad", body))

    server = serve(error)
    code, err = link(records, server.url, capsys)
    message = one_message(err, server.url)
    assert code == 2
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in message)
    assert message == (
        f"benchgraph: {server.url}: HTTP 500 \\x1b[2JBad: \\x1b[31mboom"
        "\\x1b]0;owned\\x07\\x1b[0m\\r\\nsecond line \\u202e"
    )


def test_requests_name_the_tool(serve):
    """Wikidata's query service asks clients for a User-Agent naming the tool."""
    from benchgraph.links.sparql import USER_AGENT, Endpoint

    server = serve(lambda server, request, conn: conn.sendall(answer(b"200 OK", RESULTS)))
    assert Endpoint(server.url).select("ASK {}") == []
    assert server.requests[0]["headers"]["User-Agent"] == USER_AGENT
    assert "benchgraph/" in USER_AGENT


def test_a_busy_endpoint_is_asked_again_once_after_its_retry_after(serve):
    from benchgraph.links.sparql import Endpoint

    def busy(server, request, conn):
        if len(server.requests) == 1:
            conn.sendall(answer(b"429 Too Many Requests", b"slow down", b"Retry-After: 0"))
        else:
            conn.sendall(answer(b"200 OK", RESULTS))

    server = serve(busy)
    endpoint = Endpoint(server.url)
    assert endpoint.select("ASK {}") == [] and endpoint.requests == 2


def test_a_retry_after_longer_than_the_time_left_is_not_waited_for(serve, records, capsys):
    """--timeout is one deadline for the whole question: a Retry-After of 60 s against a 5 s
    timeout ends the command at once with the reason, and asks no second time."""

    def busy(server, request, conn):
        if len(server.requests) == 1:
            conn.sendall(answer(b"429 Too Many Requests", b"slow down", b"Retry-After: 60"))
        else:
            conn.sendall(answer(b"200 OK", RESULTS))

    server = serve(busy)
    code, err = link(records, server.url, capsys, "--timeout", "5")
    message = one_message(err, server.url)
    assert code == 2 and len(server.requests) == 1
    assert "asked to wait 60 s (Retry-After)" in message and "--timeout 5 s" in message


def test_an_endpoint_that_is_no_http_url_is_one_message(records, capsys):
    code, err = link(records, "ftp://127.0.0.1/sparql", capsys)
    assert code == 2 and err == (
        "benchgraph: ftp://127.0.0.1/sparql: not an http:// or https:// URL with a host\n"
    )


def test_a_deadline_or_size_limit_of_nothing_is_refused(records, capsys):
    code, err = link(
        records, "http://127.0.0.1:9/sparql", capsys, "--timeout", "0", "--max-result-mb", "-1"
    )
    assert code == 2 and err == "benchgraph: --timeout 0, --max-result-mb -1: must be above 0\n"


def test_a_tls_handshake_that_trickles_ends_at_the_deadline(records, capsys):
    """An https endpoint goes through the same deadline from its connection on: a TLS
    handshake that sends a record header, then a byte every TICK seconds, ends at it (Python's
    ssl module bounds a handshake too, so before the deadline this ended with its own words)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop, left = threading.Event(), threading.Event()

    def handshake():
        conn, _ = listener.accept()
        with conn:
            try:
                for byte in b"\x16\x03\x03\x40\x00" + b"a" * 100:  # a 16 KB record, slowly
                    if stop.wait(TICK):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                left.set()

    thread = threading.Thread(target=handshake, daemon=True)
    thread.start()
    url = f"https://127.0.0.1:{listener.getsockname()[1]}/sparql"
    try:
        code, err = link(records, url, capsys, "--timeout", "1")
        assert code == 2 and one_message(err, url).endswith(
            "no whole answer within 1 s (--timeout)"
        )
        assert left.wait(10), "the handshake ran to its end: the client waited on"
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=10)
