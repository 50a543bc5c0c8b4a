"""Where a request ends (web/framing.py) and writes that never wait (web/outbox.py), without a
server: the HTTP worker hands a request to a thread only when these say it is whole, and
writes every answer through an Outbox."""

from __future__ import annotations

import socket
import time

import pytest

from benchgraph.web.framing import BadFraming, Body, Chunks, head_end
from benchgraph.web.outbox import Backlog, Outbox, WriteTimeout

HEAD = b"POST /sparql HTTP/1.1\r\nHost: x\r\n"


def test_a_head_ends_at_its_blank_line():
    data = HEAD + b"Content-Length: 3\r\n\r\nabc"
    assert head_end(data) == len(data) - 3
    assert head_end(HEAD) is None


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (b"Content-Length: 12\r\n", Body(length=12)),
        (b"content-length:12\r\nExpect: 100-continue\r\n", Body(12, expects_continue=True)),
        (b"Transfer-Encoding: chunked\r\n", Body(chunked=True)),
        # heads gunicorn refuses are framed without a body, so they reach it at once
        (b"Content-Length: 1\r\nContent-Length: 2\r\n", Body()),
        (b"Content-Length: +5\r\n", Body()),
        (b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", Body()),
        (b"Transfer-Encoding: gzip\r\n", Body()),
        (b"", Body()),
    ],
)
def test_the_body_a_head_declares(headers, expected):
    assert Body.of(HEAD + headers + b"\r\n") == expected


def test_chunks_are_followed_as_they_come():
    body = b"3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nTrailer: x\r\n\r\nNEXT"
    chunks = Chunks(0)
    for cut in range(len(body) - 4):
        assert chunks.advance(body[:cut]) is None
    assert chunks.advance(body) == len(body) - 4
    assert chunks.size == 7


@pytest.mark.parametrize("body", [b"zz\r\n", b"3\r\nabcX\r\n", b"1" * 5000])
def test_malformed_chunks_are_refused(body):
    with pytest.raises(BadFraming):
        Chunks(0).advance(body)


def test_an_answer_nobody_reads_is_kept_not_waited_for():
    """A write far larger than the socket takes returns at once; the rest is kept, and sent
    once the peer reads."""
    ours, theirs = socket.socketpair()
    try:
        box = Outbox(ours, 1 << 20, Backlog(1 << 30), time.monotonic() + 30)
        answer = b"x" * (8 << 20)
        box.sendall(answer)
        assert 0 < box.size < len(answer)
        got = 0
        theirs.settimeout(5)
        while got < len(answer):
            got += len(theirs.recv(1 << 20))
            box.flush()
        assert box.size == 0 and box.sent == len(answer)
    finally:
        ours.close()
        theirs.close()


def test_a_second_write_past_the_cap_gives_up_at_the_deadline():
    ours, theirs = socket.socketpair()
    try:
        backlog = Backlog(1 << 30)
        box = Outbox(ours, 1024, backlog, time.monotonic() + 0.5)
        box.sendall(b"x" * (8 << 20))
        with pytest.raises(WriteTimeout):
            box.sendall(b"more")
        assert box.timed_out and box.size == 0 and backlog.total == 0
    finally:
        ours.close()
        theirs.close()
