"""The SPARQL endpoint's one request reader, one query run and one response writer, used by
the fast path below Flask (fastpath.py) and by Flask's view (sparql.py) alike.

`operation` reads a request (the WSGI environ and its body) into an `Operation`: the query
text, its dataset, the `format` asked, whether it is to be downloaded. It reads as werkzeug
reads Flask's request.args and request.form (the same parse_qsl call), once per request: the
fast path reads it and, when it hands the request on, Flask's view finds the Operation (or
the error of reading it) in the environ instead of parsing the body again. `run` builds the
job and runs it in the pool, once; a fast path's answer that is not a 200 reaches the view in
the environ (ANSWERED), and `count` counts an outcome on /metrics. `answer_headers` writes the
headers of a 200, and `below_flask` adds what Flask's hooks (hooks.py) would add, for the
fast path. A refusal is answered by Flask's view alone (errors.py: its one shape, negotiated).
"""

from __future__ import annotations

import gzip
import io
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from werkzeug.http import http_date, parse_accept_header, parse_options_header, quote_etag
from werkzeug.wsgi import get_input_stream

from ..errors import BenchgraphError
from .hooks import EXPOSED, MIN_SIZE, _compressible, browser_headers
from .negotiation import formats_for
from .publicbase import url as public_url
from .querypool import PoolError, QueryTimeout

OPERATION = "benchgraph.operation"  # the environ key of what `operation` read (or raised)
ANSWERED = "benchgraph.answered"  # the environ key of a fast path's answer that is not a 200
FORM_TYPE = "application/x-www-form-urlencoded"
QUERY_TYPE = "application/sparql-query"
UPDATE_TYPE = "application/sparql-update"


class ProtocolError(BenchgraphError):
    """A request the SPARQL protocol does not allow; carries the status to answer."""

    def __init__(self, status: int, title: str, detail: str):
        self.status, self.title = status, title
        super().__init__(detail)


@dataclass(frozen=True)
class Operation:
    """What a protocol request asks: a query (or an update), its dataset, and how the
    answer is to be sent."""

    kind: str  # "query" or "update"
    text: str
    default_graphs: list[str]
    named_graphs: list[str]
    formats: tuple[str, ...] = ()  # the `format` parameters (the URL's, then a form's)
    download: bool = False  # `download` in the URL: the answer as an attachment


def operation(environ: dict, max_body: int | None = None) -> Operation | None:
    """The operation of the request, following the SPARQL 1.1 Protocol; None for none (the
    service description). Read once: a second call gives what the first read, or raises
    what it raised."""
    if OPERATION in environ:
        read = environ[OPERATION]
    else:
        try:
            read = _read(environ, max_body)
        except Exception as exc:  # noqa: BLE001 - kept to be raised where it is answered
            read = exc
        environ[OPERATION] = read
    if isinstance(read, Exception):
        raise read
    return read


def _read(environ: dict, max_body: int | None) -> Operation | None:
    method = environ.get("REQUEST_METHOD", "GET")
    args = _parse(environ.get("QUERY_STRING", "").encode("latin1").decode())
    mimetype, options = parse_options_header(environ.get("CONTENT_TYPE", ""))
    mimetype = mimetype.lower()
    # werkzeug's request.values: the URL's parameters, and a form body's but for a GET
    form = (
        _parse_body(_body(environ, max_body)) if method != "GET" and mimetype == FORM_TYPE else []
    )
    formats = tuple(_getlist(args + form, "format"))
    download = bool(next(iter(_getlist(args, "download")), ""))
    if method in ("GET", "HEAD"):
        params = args
    else:
        charset = options.get("charset", "utf-8").lower()
        if mimetype in (QUERY_TYPE, UPDATE_TYPE) and charset not in ("utf-8", "utf8"):
            raise ProtocolError(
                415, "unsupported media type", f"the body must be UTF-8, not {charset}"
            )
        if mimetype == FORM_TYPE:
            params = args + form
        elif mimetype in (QUERY_TYPE, UPDATE_TYPE):
            kind = "query" if mimetype == QUERY_TYPE else "update"
            if _getlist(args, "query") or _getlist(args, "update"):
                raise ProtocolError(
                    400, "bad request", f"a direct POST carries the {kind} in its body only"
                )
            return Operation(
                kind,
                _utf8(_body(environ, max_body)),
                _getlist(args, "default-graph-uri"),
                _getlist(args, "named-graph-uri"),
                formats,
                download,
            )
        else:
            raise ProtocolError(
                415,
                "unsupported media type",
                f"POST a query as {FORM_TYPE} (query=...) or as {QUERY_TYPE}; "
                f"got {mimetype or 'no Content-Type'}",
            )
    queries, updates = _getlist(params, "query"), _getlist(params, "update")
    if len(queries) + len(updates) > 1:
        raise ProtocolError(
            400, "bad request", "give exactly one query (or update) parameter per request"
        )
    if updates:
        return Operation("update", updates[0], [], [], formats, download)
    if not queries:
        if method == "POST":
            raise ProtocolError(400, "bad request", "the request has no query parameter")
        return None
    return Operation(
        "query",
        queries[0],
        _getlist(params, "default-graph-uri"),
        _getlist(params, "named-graph-uri"),
        formats,
        download,
    )


def _body(environ: dict, max_body: int | None) -> bytes:
    """The body, read as werkzeug reads it (its input stream: a short body is the client
    gone, werkzeug's ClientDisconnected), and put back for whatever reads it next."""
    data = get_input_stream(environ, max_content_length=max_body).read()
    environ["wsgi.input"] = io.BytesIO(data)
    return data


def _parse(text: str) -> list[tuple[str, str]]:
    """URL-encoded parameters as werkzeug reads them (Request.args, and a form body): blank
    values kept, invalid UTF-8 left percent-encoded."""
    import werkzeug.urls  # noqa: F401 - registers the "werkzeug.url_quote" error handler

    return parse_qsl(text, keep_blank_values=True, errors="werkzeug.url_quote")


def _parse_body(data: bytes) -> list[tuple[str, str]]:
    """A form body's parameters; none for a body not UTF-8 (werkzeug's silent form parser)."""
    try:
        return _parse(data.decode())
    except ValueError:
        return []


def _getlist(params: list[tuple[str, str]], name: str) -> list[str]:
    return [value for key, value in params if key == name]


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(400, "bad request", f"the body is not UTF-8: {exc}") from None


# --- the run ------------------------------------------------------------------------------
def run(
    pool: Any, op: Operation, environ: dict, config: Any
) -> tuple[tuple[dict, bytes] | PoolError, float]:
    """(the worker's (header, body), or the PoolError that stopped it; seconds taken)."""
    start = time.perf_counter()
    job = {
        "query": op.text,
        "base": public_url(config, environ["PATH_INFO"]).rstrip("/"),
        "formats": formats_for(environ.get("HTTP_ACCEPT", ""), op.formats),
        "default_graphs": op.default_graphs,
        "named_graphs": op.named_graphs,
    }
    try:
        outcome = pool.run(job, config["QUERY_TIMEOUT"], client_gone(environ))
    except PoolError as exc:
        outcome = exc
    return outcome, time.perf_counter() - start


def count(metrics: Any, outcome: tuple[dict, bytes] | PoolError, elapsed: float) -> None:
    """Count a query's outcome on /metrics (metrics.py): its status, its form, a timeout."""
    if isinstance(outcome, PoolError):
        metrics.observe(outcome.status, elapsed, timed_out=isinstance(outcome, QueryTimeout))
    else:
        metrics.observe(outcome[0]["status"], elapsed, outcome[0].get("form", ""))


def etag_key(environ: dict) -> str:
    """What a GET's ETag is made of (with its Accept): the path and query string as
    werkzeug's request.full_path reads them."""
    return f"{environ['PATH_INFO']}?{environ.get('QUERY_STRING', '').encode('latin1').decode()}"


def client_gone(environ: dict) -> Callable[[], bool] | None:
    """A check of whether the client closed its connection, for the pool to stop its query;
    None where the socket cannot be seen (Flask's test client, TLS)."""
    sock = environ.get("gunicorn.socket")
    sock = getattr(sock, "raw", sock)  # the socket behind the worker's Outbox (outbox.py)
    if not isinstance(sock, socket.socket) or isinstance(sock, ssl.SSLSocket):
        return None

    def gone() -> bool:
        # The request is read whole by now: the client sends nothing more until the answer
        # (at most a pipelined request), so end-of-stream means it closed the connection.
        try:
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    return gone


# --- the answer ---------------------------------------------------------------------------
def answer_headers(
    header: dict, elapsed: float, etag: str | None, download: str | None = None
) -> list[tuple[str, str]]:
    """The headers of a 200: its type, its timing, what it varies by, its ETag, and a
    `download` answer's file name (its extension given)."""
    headers = [
        ("Content-Type", header["content_type"]),
        (
            "Server-Timing",
            f"query;dur={elapsed * 1000:.1f}, "
            f"wait;dur={header.get('wait_s', 0) * 1000:.1f}, "
            f"slot;dur={header.get('slot_s', 0) * 1000:.1f}",
        ),
        ("Vary", "Accept"),
    ]
    if etag:
        headers += [("ETag", quote_etag(etag, weak=True)), ("Cache-Control", "no-cache")]
    if download:
        headers.append(("Content-Disposition", f'attachment; filename="result.{download}"'))
    return headers


def below_flask(
    headers: list[tuple[str, str]], body: bytes, environ: dict, config: Any
) -> tuple[str, list[tuple[str, str]], bytes]:
    """(status, headers, body) of a 200 answered below Flask: `headers` and what Flask's
    hooks add to them (hooks.py: the date of a conditional answer, gzip, CORS, the browser
    headers), in the order the fast path has always sent them."""
    out = []
    for name, value in headers:
        if name == "Vary":
            value = "Accept, Accept-Encoding"
        out.append((name, value))
        if name == "Cache-Control":  # werkzeug's make_conditional dates an answer with an ETag
            out.append(("Date", http_date()))
    mimetype = headers[0][1].split(";")[0].strip().lower()
    encodings = environ.get("HTTP_ACCEPT_ENCODING")
    if (
        len(body) >= MIN_SIZE
        and encodings
        and _compressible(mimetype)
        and parse_accept_header(encodings)["gzip"] > 0
    ):
        body = gzip.compress(body, compresslevel=6, mtime=0)
        out.append(("Content-Encoding", "gzip"))
    out += [
        ("Content-Length", str(len(body))),
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Expose-Headers", EXPOSED),
        *browser_headers(config),
    ]
    return "200 OK", out, body
