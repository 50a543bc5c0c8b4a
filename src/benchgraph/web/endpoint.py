"""The SPARQL endpoint's one request reader, one query run and one response writer, used by
the fast path below Flask (fastpath.py) and by Flask's view (sparql.py) alike.

`operation` reads a request (the WSGI environ and its body) into an `Operation`: the query
text, its dataset, the `format` asked, whether it is to be downloaded. It reads as werkzeug
reads Flask's request.args and request.form (the same parse_qsl call), once per request: the
fast path reads it and, when it hands the request on, Flask's view finds the Operation (or
the error of reading it) in the environ instead of parsing the body again. `run` builds the
job and runs it in the pool, once: its outcome is the worker's 200 or an error of the family
(the worker's refusal rebuilt from its answer, or the pool's), and `count` counts it on
/metrics. `respond` writes every outcome, a 200 (`answer_headers`) or a refusal (the one
error shape, errors.written), as (status, headers, body): Flask's view makes it a Response,
and the fast path adds to it what Flask's hooks add (hooks.below_flask, the same code).
"""

from __future__ import annotations

import io
import logging
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from werkzeug.http import parse_options_header, quote_etag
from werkzeug.wsgi import get_input_stream

from ..errors import Answered, BenchgraphError
from . import errors
from .negotiation import GRAPH, SOLUTIONS, formats_for
from .poolerrors import PoolError, QueryTimeout
from .publicbase import url as public_url

log = logging.getLogger(__name__)
OPERATION = "benchgraph.operation"  # the environ key of what `operation` read (or raised)
FORM_TYPE = "application/x-www-form-urlencoded"
QUERY_TYPE = "application/sparql-query"
UPDATE_TYPE = "application/sparql-update"


class ProtocolError(BenchgraphError):
    """A request the SPARQL protocol does not allow; carries the status to answer."""

    def __init__(self, status: int, title: str, detail: str):
        self.status, self.title = status, title
        super().__init__(detail)


class ReadOnly(BenchgraphError):
    """An update: the endpoint is read-only, whatever way the update comes."""

    status, title, code = 403, "read-only endpoint", "update"

    def __init__(self) -> None:
        super().__init__(
            "this endpoint does not accept SPARQL Update: the dataset is built from the "
            "record files, so change those instead"
        )


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
Outcome = tuple[dict, bytes] | BenchgraphError  # a 200's (header, body), or why there is none


def run(pool: Any, op: Operation, environ: dict, config: Any) -> tuple[Outcome, float]:
    """(the worker's 200 (header, body), or the error that stopped the query: the worker's
    refusal or the pool's; seconds taken)."""
    start = time.perf_counter()
    job = {
        "query": op.text,
        "base": public_url(config, environ["PATH_INFO"]).rstrip("/"),
        "formats": formats_for(environ.get("HTTP_ACCEPT", ""), op.formats),
        "default_graphs": op.default_graphs,
        "named_graphs": op.named_graphs,
    }
    outcome: Outcome
    try:
        outcome = pool.run(job, config["QUERY_TIMEOUT"], client_gone(environ))
        if outcome[0]["status"] != 200:
            outcome = Answered(outcome[0]["refusal"])
    except PoolError as exc:
        log.warning("%s: %s", exc.title, exc)
        outcome = exc
    return outcome, time.perf_counter() - start


def count(metrics: Any, outcome: Outcome, elapsed: float) -> None:
    """Count a query's outcome on /metrics (metrics.py): its status, its form, a timeout."""
    if isinstance(outcome, BenchgraphError):
        metrics.observe(
            outcome.answer()["status"], elapsed, timed_out=isinstance(outcome, QueryTimeout)
        )
    else:
        metrics.observe(200, elapsed, outcome[0].get("form", ""))


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
EXTENSIONS = {f.name: f.extension for f in (*SOLUTIONS, *GRAPH)}  # a download's file name


def respond(
    outcome: Outcome,
    environ: dict,
    metrics: Any,
    *,
    elapsed: float = 0.0,
    etag: str | None = None,
    download: bool = False,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """The endpoint's one response to every outcome, (status, headers, body): a query's 200
    (answer_headers), or a refusal (the request's, the query's, the pool's) in the one error
    shape, counted on /metrics by its reason."""
    if isinstance(outcome, BenchgraphError):
        return errors.refusal(outcome, environ.get("HTTP_ACCEPT"), metrics)
    header, body = outcome
    extension = EXTENSIONS[header["format"]] if download else None
    return 200, answer_headers(header, elapsed, etag, extension), body


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
