"""Request size limits on a live server: the body (413), the path and query string (414).

A body over MAX_CONTENT_LENGTH is refused whether it comes with a Content-Length or in chunks
(a chunked body used to be cut at the limit and the cut text run); a path or query string over
its limit is refused before it is routed, by the app within gunicorn's line limit and by
gunicorn beyond it, and no error repeats a long name whole.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from urllib.parse import quote, urlencode

import pytest

from benchgraph.web import DEFAULTS
from benchgraph.web.requestline import request_line_limit

pytestmark = pytest.mark.slow

MAX_BODY = DEFAULTS["MAX_CONTENT_LENGTH"]
MAX_PATH = DEFAULTS["MAX_PATH_BYTES"]
MAX_QUERY_STRING = DEFAULTS["MAX_QUERY_STRING_BYTES"]
JSON = "application/sparql-results+json"


def exchange(
    server, head: bytes, body: bytes = b"", timeout: float = 30
) -> tuple[int, dict[str, str], bytes]:
    """Send `head` + `body` on a fresh connection while reading the answer: a server that
    answers before the body is all sent is read, not met with a broken pipe."""
    sock = socket.create_connection((server.host, server.port), timeout=timeout)

    def send() -> None:
        try:
            sock.sendall(head + body)
        except OSError:
            pass  # the server answered and closed before the end: that answer is read below

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        response = http.client.HTTPResponse(sock)
        response.begin()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        sock.close()
        sender.join(timeout)


def post(
    server, body: bytes, content_type: str, chunked: bool
) -> tuple[int, dict[str, str], bytes]:
    """POST /sparql with the body sent with its length, or in 64 KiB chunks."""
    headers = [
        "POST /sparql HTTP/1.1",
        "Host: 127.0.0.1",
        f"Content-Type: {content_type}",
        f"Accept: {JSON}",
        "Connection: close",
    ]
    if chunked:
        headers.append("Transfer-Encoding: chunked")
        parts = [
            b"%x\r\n%s\r\n" % (len(body[i : i + 65536]), body[i : i + 65536])
            for i in range(0, len(body), 65536)
        ]
        payload = b"".join(parts) + b"0\r\n\r\n"
    else:
        headers.append(f"Content-Length: {len(body)}")
        payload = body
    return exchange(server, ("\r\n".join(headers) + "\r\n\r\n").encode(), payload)


def padded_ask(size: int, tail: str = "") -> str:
    """`ASK { }` padded with spaces to `size` characters, then `tail`."""
    head = "ASK { } "
    return head + " " * (size - len(head)) + tail


def as_body(query: str, form: bool) -> tuple[bytes, str]:
    if form:
        return urlencode({"query": query}).encode(), "application/x-www-form-urlencoded"
    return query.encode(), "application/sparql-query"


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
@pytest.mark.parametrize("form", [False, True], ids=["direct", "form"])
def test_a_body_over_the_limit_is_refused_not_cut(live_server, chunked, form):
    # The first MAX_BODY bytes alone are a valid query: cut there, it answered 200 `true`.
    query = padded_ask(MAX_BODY, " VALUES ?x { }")
    body, content_type = as_body(query, form)
    assert len(body) > MAX_BODY
    status, headers, data = post(live_server, body, content_type, chunked)
    assert status == 413, data[:300]
    assert headers["content-type"] == "application/json"
    error = json.loads(data)
    assert error["ok"] is False and error["status"] == 413
    assert f"{MAX_BODY:,} bytes" in error["error"] and "MAX_CONTENT_LENGTH" in error["error"]


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
def test_a_client_that_sends_all_before_reading_reads_the_413(live_server, chunked):
    # As urllib and SPARQLWrapper do: the refused body is read to its end, not left to break
    # the client's pipe, up to 4 times the limit.
    body = padded_ask(3 * MAX_BODY).encode()
    conn = http.client.HTTPConnection(live_server.host, live_server.port, timeout=30)
    try:
        headers = {"Content-Type": "application/sparql-query", "Accept": JSON}
        if chunked:
            pieces = (body[i : i + 65536] for i in range(0, len(body), 65536))
            conn.request("POST", "/sparql", body=pieces, headers=headers, encode_chunked=True)
        else:
            conn.request("POST", "/sparql", body=body, headers=headers)
        response = conn.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["status"] == 413
    finally:
        conn.close()


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
@pytest.mark.parametrize("form", [False, True], ids=["direct", "form"])
def test_a_body_up_to_the_limit_is_run_whole(live_server, chunked, form):
    # A form's fields were capped at Flask's 500 kB, not at MAX_CONTENT_LENGTH; and the
    # query's end must still be there: `VALUES ?x { }` makes the answer false.
    tail = " VALUES ?x { }"
    probe, _ = as_body(padded_ask(1000, tail), form)
    query = padded_ask(MAX_BODY - (len(probe) - 1000), tail)
    body, content_type = as_body(query, form)
    assert len(body) == MAX_BODY
    status, headers, data = post(live_server, body, content_type, chunked)
    assert status == 200, data[:300]
    assert json.loads(data)["boolean"] is False


def test_a_query_string_of_64_kb_is_run(live_server):
    literal = "é" * 11_000  # 66 kB once URL-encoded
    query = f'ASK {{ BIND("{literal}" AS ?x) FILTER(STRLEN(?x) = 11000) }}'
    target = "/sparql?" + urlencode({"query": query})
    assert len(target) > 64 * 1024
    status, _, data = live_server.request("GET", target, headers={"Accept": JSON})
    assert status == 200, data[:300]
    assert json.loads(data)["boolean"] is True


def test_a_query_string_over_the_limit_is_414(live_server):
    query = "ASK {} #" + "x" * MAX_QUERY_STRING
    status, headers, data = live_server.request(
        "GET", "/sparql?" + urlencode({"query": query}), headers={"Accept": JSON}
    )
    assert status == 414, data[:300]
    error = json.loads(data)
    assert error["status"] == 414 and "MAX_QUERY_STRING_BYTES" in error["error"]
    assert len(data) < 1000  # the query string is not repeated


def test_a_path_over_the_limit_is_414(live_server):
    path = "/id/engines/" + "a" * MAX_PATH
    status, headers, data = live_server.request("GET", path, headers={"Accept": "text/html"})
    assert status == 414
    assert headers["content-type"].startswith("text/html")
    assert b"MAX_PATH_BYTES" in data and data.count(b"a" * 100) <= 1
    assert len(data) < 5000


def test_a_path_within_the_limit_is_routed_and_not_echoed_whole(live_server):
    path = "/id/engines/" + "a" * (MAX_PATH - len("/id/engines/"))
    status, _, data = live_server.request("GET", path, headers={"Accept": "application/json"})
    assert status == 404
    error = json.loads(data)
    assert "there is no record engines/aaaa" in error["error"]
    assert len(error["error"]) < 300


def test_a_request_line_past_gunicorns_limit_is_refused_before_it_ends(live_server):
    # The line never ends: gunicorn must answer once it has read past its limit, not wait
    # for the rest (with no limit it read on, in time that grew as the square of the length).
    limit = request_line_limit(MAX_PATH, MAX_QUERY_STRING)
    # limit + 3 bytes: gunicorn refuses only once it has read them all, so none is left unread
    # to turn its close into a reset that could swallow the answer
    head = b"GET /" + b"a" * (limit + 3 - 5)
    status, _, data = exchange(live_server, head, timeout=10)
    assert status == 414
    assert b"aaaa" not in data


def test_limits_are_set_by_serve_options(tmp_path, web_cache):
    from web.web_support import start_server

    server = start_server(
        tmp_path,
        web_cache,
        "--max-body-mb",
        "0.01",
        "--max-path-kb",
        "1",
        "--max-query-string-kb",
        "2",
    )
    try:
        assert server.request("GET", "/id/engines/" + "a" * 1100)[0] == 414
        assert server.request("GET", "/id/engines/" + "a" * 900)[0] == 404
        ask = "ASK {} #"
        assert (
            server.request(
                "GET", "/sparql?query=" + quote(ask + "x" * 2100), headers={"Accept": JSON}
            )[0]
            == 414
        )
        assert (
            server.request(
                "GET", "/sparql?query=" + quote(ask + "x" * 1900), headers={"Accept": JSON}
            )[0]
            == 200
        )
        for chunked in (True, False):
            body, content_type = as_body(padded_ask(11_000), form=False)
            assert post(server, body, content_type, chunked)[0] == 413
            body, content_type = as_body(padded_ask(10_000), form=False)
            assert post(server, body, content_type, chunked)[0] == 200
        # gunicorn's line limit follows the options
        limit = request_line_limit(1024, 2048)
        assert exchange(server, b"GET /" + b"a" * (limit + 3 - 5), timeout=10)[0] == 414
    finally:
        server.stop()
