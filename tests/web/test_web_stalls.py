"""No client can stall a live server: slow request bodies and answers nobody reads hold no
thread and no query worker, a body has one deadline (408), a long one is refused from its
length (413), a request line over gunicorn's limit is a 414 in the one error shape, and the
per-address cap counts the socket's address, not X-Forwarded-For.

Stalling clients come from 127.0.0.1 and from 127.0.0.2-5 (all loopback on Linux); the cheap
query that must still be answered comes from 127.0.0.10. Each stalling client stops within
STALL_FOR seconds, whatever the server does.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from urllib.parse import quote

import pytest

from web.web_support import start_server, wait_until

pytestmark = pytest.mark.slow

STALL_FOR = 60.0  # seconds at most that stalling clients hold on, and a test waits
BYTE_EVERY = 1.0  # seconds between two bytes of a slow body, as in issue 35
CLIENTS = 40
ELSEWHERE = "127.0.0.10"  # the address of the client that must be answered
ONE = ["127.0.0.1"]
SEVERAL = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
ASK = "/sparql?query=" + quote("ASK {}")
# About 5.9 MB of JSON on the test records: more than the socket buffers of a client reading
# nothing (its receive buffer made 4 KB) and of the server (4 MB at most here).
BIG = "/sparql?query=" + quote("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 12000")
JSON = "application/sparql-results+json"


def connect(server, source: str, small_window: bool = False) -> socket.socket:
    sock = socket.socket()
    if small_window:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect((server.host, server.port))
    return sock


def ask_from(server, source: str = ELSEWHERE, timeout: float = STALL_FOR) -> int:
    """The status of a cheap ASK sent from `source` (waiting up to `timeout`)."""
    conn = http.client.HTTPConnection(
        server.host, server.port, timeout=timeout, source_address=(source, 0)
    )
    try:
        conn.request("GET", ASK, headers={"Accept": JSON})
        response = conn.getresponse()
        assert json.loads(response.read())["boolean"] is True
        return response.status
    finally:
        conn.close()


def read_answer(sock: socket.socket, timeout: float = STALL_FOR) -> tuple[int, str, dict]:
    """The status, Content-Type and JSON body the server sends on `sock`."""
    sock.settimeout(timeout)
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, response.getheader("Content-Type", ""), json.loads(response.read())


def metrics(server) -> str:
    return server.request("GET", "/metrics")[2].decode()


class SlowBodies:
    """`n` POSTs (spread over `sources`) declaring a body of `length` bytes and sending one
    byte of it every `every` seconds, from one thread, until stopped or STALL_FOR has passed.
    A connection the server refused or closed is marked ended."""

    def __init__(self, server, n: int, sources: list[str], length: int = 1_000_000, every=1.0):
        self.head = (
            f"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/sparql-query\r\nContent-Length: {length}\r\n\r\n"
        ).encode()
        self.socks = [connect(server, sources[i % len(sources)]) for i in range(n)]
        self.every = every
        self.sent = [0] * n
        self.ended = [False] * n
        for i in range(n):
            self.send(i, self.head)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def send(self, i: int, data: bytes) -> None:
        try:
            self.socks[i].sendall(data)
            self.sent[i] += 1
        except OSError:
            self.ended[i] = True

    def run(self) -> None:
        deadline = time.monotonic() + STALL_FOR
        while not self.stop.is_set() and time.monotonic() < deadline:
            for i in range(len(self.socks)):
                if not self.ended[i]:
                    self.send(i, b"A")
            self.stop.wait(self.every)

    def sending(self) -> bool:
        return self.thread.is_alive() and not self.stop.is_set()

    def wait_started(self, count: int = 3) -> None:
        """Until every connection still open has sent `count` bytes of its body."""
        wait_until(
            lambda: all(s >= count or e for s, e in zip(self.sent, self.ended)),
            STALL_FOR,
            "the slow bodies' first bytes",
        )

    def close(self) -> None:
        self.stop.set()
        self.thread.join(STALL_FOR)
        for sock in self.socks:
            sock.close()


class NonReaders:
    """`n` GETs of a large answer (spread over `sources`) that never read it; each is known to
    be answered once the answer's first bytes have reached its socket."""

    def __init__(self, server, n: int, sources: list[str], path: str = BIG):
        self.socks = [
            connect(server, sources[i % len(sources)], small_window=True) for i in range(n)
        ]
        for sock in self.socks:
            sock.sendall(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {JSON}\r\n\r\n".encode()
            )

    def wait_answered(self) -> list[bytes]:
        """The first bytes each connection got (its status line), once all have some: the
        server is writing every answer (or refused the connection)."""
        firsts = []
        for sock in self.socks:
            sock.settimeout(STALL_FOR)
            firsts.append(sock.recv(16, socket.MSG_PEEK))
        return firsts

    def close(self) -> None:
        for sock in self.socks:
            sock.close()


@pytest.mark.parametrize("sources", [ONE, SEVERAL], ids=["one-address", "four-addresses"])
def test_slow_bodies_hold_no_thread(tmp_path, web_cache, sources):
    """40 POSTs declaring 1,000,000 bytes and sending one a second (from one address: 32 of
    them under the cap) hold none of the 16 threads: a cheap ASK from another address is
    answered while every one is still sending (gunicorn read a body on a thread)."""
    server = start_server(tmp_path, web_cache)
    slow = None
    try:
        slow = SlowBodies(server, CLIENTS, sources, every=BYTE_EVERY)
        slow.wait_started()
        assert ask_from(server) == 200
        assert slow.sending(), "the ASK was answered only once the slow bodies had stopped"
        assert sum(not e for e in slow.ended) >= 32
    finally:
        if slow is not None:
            slow.close()
        server.stop()


def test_a_slow_body_has_one_deadline(tmp_path, web_cache):
    """A body still arriving, a byte every 0.2 s, is answered 408 in the error shape once its
    deadline (BODY_TIMEOUT, and its length at MIN_RATE) has passed, and counted."""
    server = start_server(
        tmp_path,
        web_cache,
        env={"BENCHGRAPH_BODY_TIMEOUT": "1", "BENCHGRAPH_MIN_RATE": "1000000"},
    )
    slow = None
    try:
        slow = SlowBodies(server, 1, ONE, every=0.2)
        slow.wait_started()
        status, content_type, body = read_answer(slow.socks[0])
        assert slow.sending(), "the client stopped sending before it was answered"
        assert status == 408 and content_type == "application/json"
        assert body["ok"] is False and body["status"] == 408
        assert body["title"] == "request timeout"
        assert "BODY_TIMEOUT" in body["error"] and "1,000,000 bytes" in body["error"]
        assert 'reason="body-timeout",status="408"' in metrics(server)
        assert ask_from(server) == 200
    finally:
        if slow is not None:
            slow.close()
        server.stop()


def test_a_long_content_length_is_refused_before_its_body(tmp_path, web_cache):
    """A Content-Length over MAX_CONTENT_LENGTH (4 MB) is a 413 before any of the body is
    sent (it was waited for on a thread, to be drained)."""
    server = start_server(tmp_path, web_cache)
    sock = connect(server, "127.0.0.2")
    try:
        sock.sendall(
            b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/sparql-query\r\nContent-Length: 5000000\r\n\r\n"
        )
        status, content_type, body = read_answer(sock)
        assert status == 413 and content_type == "application/json"
        assert body["ok"] is False and "5,000,000 bytes" in body["error"]
        assert "MAX_CONTENT_LENGTH" in body["error"]
    finally:
        sock.close()
        server.stop()


def test_a_chunked_body_is_read_whole_off_the_threads(tmp_path, web_cache):
    """A chunked body sent in pieces is read by the main loop and run whole."""
    server = start_server(tmp_path, web_cache)
    sock = connect(server, "127.0.0.2")
    try:
        text = b"ASK { }"
        sock.sendall(
            b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/sparql-query\r\nAccept: " + JSON.encode() + b"\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        for piece in (text[:3], text[3:]):
            sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        status, _, body = read_answer(sock)
        assert status == 200 and body["boolean"] is True
    finally:
        sock.close()
        server.stop()


@pytest.mark.parametrize("sources", [ONE, SEVERAL], ids=["one-address", "four-addresses"])
def test_answers_nobody_reads_hold_no_thread_or_worker(tmp_path, web_cache, sources):
    """40 GETs of a 5.9 MB answer that never read it (from one address: 32 under the cap)
    hold none of the threads or query workers: a cheap ASK from another address is answered
    while they all still hold their connections (gunicorn wrote on the thread). A query time
    limit of 30 s: the 40 queries wait their turn for the 3 workers rather than get a 503."""
    server = start_server(tmp_path, web_cache, "--timeout", "30")
    readers = None
    try:
        readers = NonReaders(server, CLIENTS, sources)
        firsts = readers.wait_answered()
        assert sum(f.startswith(b"HTTP/1.1 200") for f in firsts) >= 32, firsts
        assert ask_from(server) == 200
    finally:
        if readers is not None:
            readers.close()
        server.stop()


def test_a_client_that_does_not_read_is_dropped_and_freed(tmp_path, web_cache):
    """Past WRITE_TIMEOUT (and its size at MIN_RATE), a connection whose answer is not taken
    is dropped, counted, and no longer counts against its address's cap."""
    server = start_server(
        tmp_path,
        web_cache,
        "--max-connections-per-client",
        "2",
        env={"BENCHGRAPH_WRITE_TIMEOUT": "1", "BENCHGRAPH_MIN_RATE": "100000000"},
    )
    readers = None
    try:
        readers = NonReaders(server, 2, ["127.0.0.2"])
        readers.wait_answered()
        wait_until(
            lambda: (
                'benchgraph_connections_dropped_total{reason="write-timeout"} 2' in metrics(server)
            ),
            STALL_FOR,
            "the two connections dropped",
        )
        assert ask_from(server, "127.0.0.2") == 200  # the address's connections freed
    finally:
        if readers is not None:
            readers.close()
        server.stop()


def test_a_request_line_over_the_limit_is_a_414_in_the_error_shape(tmp_path, web_cache):
    """A query string over 256 KB (past gunicorn's request line limit) gets the one error
    shape, not gunicorn's HTML page."""
    server = start_server(tmp_path, web_cache)
    try:
        status, headers, data = server.request(
            "GET", "/sparql?query=" + "a" * 300_000, headers={"Accept": JSON}
        )
        assert status == 414
        assert headers["content-type"] == "application/json"
        body = json.loads(data)
        assert body["ok"] is False and body["status"] == 414
        assert body["title"] == "uri too long"
        assert "MAX_QUERY_STRING_BYTES" in body["error"]
        assert 'reason="uri-too-long",status="414"' in metrics(server)
    finally:
        server.stop()


def test_x_forwarded_for_does_not_dodge_the_cap(tmp_path, web_cache):
    """The per-address cap counts the socket's address: three connections from 127.0.0.2,
    each claiming another client in X-Forwarded-For, fill its cap of 3, and a fourth with yet
    another claim is a 429; a client naming 127.0.0.2 in the header is not counted as it."""
    server = start_server(tmp_path, web_cache, "--max-connections-per-client", "3")
    held: list[socket.socket] = []
    try:
        for n in range(3):
            sock = connect(server, "127.0.0.2")
            sock.sendall(
                f"GET {ASK} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 10.0.0.{n}\r\n".encode()
            )  # a head not ended: the connection stays open
            held.append(sock)
        extra = connect(server, "127.0.0.2")
        try:
            extra.sendall(
                f"GET {ASK} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 10.0.0.99\r\n"
                f"Accept: {JSON}\r\n\r\n".encode()
            )
            status, _, body = read_answer(extra)
        finally:
            extra.close()
        assert status == 429 and body["title"] == "too many connections"
        assert "127.0.0.2" in body["error"]
        conn = http.client.HTTPConnection(
            server.host, server.port, timeout=STALL_FOR, source_address=("127.0.0.3", 0)
        )
        try:
            conn.request("GET", ASK, headers={"Accept": JSON, "X-Forwarded-For": "127.0.0.2"})
            assert conn.getresponse().status == 200
        finally:
            conn.close()
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_expect_100_continue_gets_one_interim_answer(tmp_path, web_cache):
    """A client that waits for 100 Continue before its body gets it once the head is read
    (from the main loop), and only once, then its answer."""
    server = start_server(tmp_path, web_cache)
    sock = connect(server, "127.0.0.2")
    try:
        text = b"ASK { }"
        sock.sendall(
            b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
            b"Content-Type: application/sparql-query\r\nAccept: " + JSON.encode() + b"\r\n"
            b"Content-Length: " + str(len(text)).encode() + b"\r\n\r\n"
        )
        sock.settimeout(STALL_FOR)
        interim = b""
        while not interim.endswith(b"\r\n\r\n"):
            interim += sock.recv(1)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(text)
        status, _, body = read_answer(sock)
        assert status == 200 and body["boolean"] is True
    finally:
        sock.close()
        server.stop()


def test_a_kept_alive_connections_next_slow_body_has_its_deadline_too(tmp_path, web_cache):
    """After a first request answered at once, the same connection's next POST trickling
    its body is a 408 at its deadline, not a thread held."""
    server = start_server(
        tmp_path,
        web_cache,
        env={"BENCHGRAPH_BODY_TIMEOUT": "1", "BENCHGRAPH_MIN_RATE": "1000000"},
    )
    sock = connect(server, "127.0.0.2")
    try:
        sock.sendall(f"GET {ASK} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {JSON}\r\n\r\n".encode())
        sock.settimeout(STALL_FOR)
        first = http.client.HTTPResponse(sock)
        first.begin()
        assert first.status == 200 and json.loads(first.read())["boolean"] is True
        sock.sendall(
            b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/sparql-query\r\nContent-Length: 1000000\r\n\r\nAS"
        )
        status, _, body = read_answer(sock)
        assert status == 408 and "BODY_TIMEOUT" in body["error"]
    finally:
        sock.close()
        server.stop()
