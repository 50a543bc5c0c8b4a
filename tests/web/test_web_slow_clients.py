"""Slow clients on a live server: a request head trickling in holds no thread, has one deadline
for the whole head, and one address holds a bounded number of connections.

Each slow client here sends a byte of its head every TRICKLE seconds and never ends it; all are
few and stop within SLOW_FOR seconds, whatever the server does.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from urllib.parse import quote

import pytest

from web.web_support import start_server

pytestmark = pytest.mark.slow

TRICKLE = 0.2  # seconds between two bytes of a slow client
SLOW_FOR = 30.0  # seconds at most that slow clients send, and a test waits for an answer
ASK = "/sparql?query=" + quote("ASK {}")
JSON = "application/sparql-results+json"


class SlowClients:
    """`n` connections sending an endless request head, one byte each per TRICKLE, from one
    thread, until stopped or SLOW_FOR has passed. Records which the server ended."""

    def __init__(self, server, n: int):
        self.socks = [
            socket.create_connection((server.host, server.port), timeout=5) for _ in range(n)
        ]
        self.head = (
            b"GET /sparql?query=ASK%20%7B%7D HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"X-Pad: " + b"a" * 100_000
        )
        self.sent = [0] * n
        self.ended = [False] * n
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        deadline = time.monotonic() + SLOW_FOR
        while not self.stop.is_set() and time.monotonic() < deadline:
            for i, sock in enumerate(self.socks):
                if self.ended[i]:
                    continue
                try:
                    sock.send(self.head[self.sent[i] : self.sent[i] + 1])
                    self.sent[i] += 1
                except OSError:
                    self.ended[i] = True
            self.stop.wait(TRICKLE)

    def wait_started(self, count: int = 2) -> None:
        """Until every connection has sent `count` bytes (polled)."""
        deadline = time.monotonic() + SLOW_FOR
        while min(self.sent) < count:
            assert time.monotonic() < deadline, "the slow clients could not send"
            time.sleep(0.05)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(SLOW_FOR)
        for sock in self.socks:
            sock.close()


def read_answer(sock: socket.socket) -> tuple[int, dict]:
    """The status and JSON body the server sends on `sock` (waiting up to SLOW_FOR)."""
    sock.settimeout(SLOW_FOR)
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, json.loads(response.read())


def refusals(server) -> str:
    return server.request("GET", "/metrics")[2].decode()


def test_slow_request_heads_hold_no_thread(tmp_path, web_cache):
    """With 4 threads and 12 connections trickling their heads, a cheap query is answered
    while every one of them is still sending (gunicorn's gthread gave each a thread)."""
    server = start_server(tmp_path, web_cache, "--threads", "4", "--header-timeout", "120")
    slow = None
    try:
        slow = SlowClients(server, 12)
        slow.wait_started()
        status, _, data = server.request("GET", ASK, headers={"Accept": JSON}, timeout=SLOW_FOR)
        still_sending = not any(slow.ended) and slow.thread.is_alive()
        assert status == 200
        assert json.loads(data)["boolean"] is True
        assert still_sending, "the cheap query was answered only once slow clients ended"
    finally:
        if slow is not None:
            slow.close()
        server.stop()


def test_a_request_head_has_one_deadline_however_it_trickles(tmp_path, web_cache):
    """A head still arriving, a byte every 0.2 s (within any per-read timeout), is answered
    408 in the error shape once --header-timeout has passed since the connection opened."""
    server = start_server(tmp_path, web_cache, "--header-timeout", "2")
    slow = None
    try:
        slow = SlowClients(server, 1)
        slow.wait_started()
        status, body = read_answer(slow.socks[0])
        assert slow.thread.is_alive(), "the client stopped sending before it was answered"
        assert status == 408
        assert body["ok"] is False and body["status"] == 408
        assert body["title"] == "request timeout"
        assert "HEADER_TIMEOUT" in body["error"]
        assert 'reason="request-timeout",status="408"' in refusals(server)
        assert server.request("GET", ASK, headers={"Accept": JSON})[0] == 200
    finally:
        if slow is not None:
            slow.close()
        server.stop()


def test_connections_per_client_address_are_capped(tmp_path, web_cache):
    """Past --max-connections-per-client open connections, the address's next one is a 429
    in the error shape; once one closes, a new one is served."""
    server = start_server(tmp_path, web_cache, "--max-connections-per-client", "3")
    held: list[socket.socket] = []
    try:
        held = [socket.create_connection((server.host, server.port), timeout=5) for _ in range(3)]
        extra = socket.create_connection((server.host, server.port), timeout=5)
        try:
            status, body = read_answer(extra)
        finally:
            extra.close()
        assert status == 429
        assert body["ok"] is False and body["title"] == "too many connections"
        assert "--max-connections-per-client" in body["error"]
        held.pop().close()
        deadline = time.monotonic() + SLOW_FOR
        while True:  # the server sees the close at its next look: poll
            try:
                status = server.request("GET", ASK, headers={"Accept": JSON})[0]
            except OSError:
                status = None
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert status == 200
        for sock in held:
            sock.close()
        held = []
        assert 'reason="too-many-connections",status="429"' in refusals(server)
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_no_cap_on_connections_with_zero(tmp_path, web_cache):
    """A cap of 0 turns it off (a proxy in front is one address), here set by its variable:
    40 connections are over the default cap."""
    server = start_server(tmp_path, web_cache, env={"BENCHGRAPH_MAX_CONNECTIONS_PER_CLIENT": "0"})
    held: list[socket.socket] = []
    try:
        held = [socket.create_connection((server.host, server.port), timeout=5) for _ in range(40)]
        assert server.request("GET", ASK, headers={"Accept": JSON})[0] == 200
    finally:
        for sock in held:
            sock.close()
        server.stop()
