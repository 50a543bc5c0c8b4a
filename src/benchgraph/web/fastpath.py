"""The SPARQL endpoint's common requests answered below Flask.

Measured per point lookup, Flask's request and app contexts, routing, the before/after hooks
and its Response object took 0.4 ms of the server's time, twice what the query itself takes
(the hop to a query worker and back included), and as much again as the whole answer of the
Oxigraph server. `FastSparql` wraps Flask's WSGI app (inside limits.RequestLimits, so every
size limit still applies first) and answers the requests clients send most, a query by GET,
by form POST or by direct POST whose answer is a 200, with the same headers and body as the
Flask view would (sparql.run_query, hooks.py): the same parser reads the request (werkzeug's),
the same pool runs the query, the same headers go out.

Every other request goes to Flask untouched: other paths, HEAD (Flask answers it as GET, with
no body) and OPTIONS, conditional and range requests, `download`, updates, an unusual body,
and a Host Flask would refuse (publicbase.host_allowed, the check Flask makes: a 400 there).
A query whose answer is not a 200 (refused, malformed, timed out, too large...) goes to Flask
too, carrying what it got (sparql.ANSWERED: the answer or the PoolError, and the seconds it
took), so that every error keeps its one shape, its negotiation and its counting (errors.py),
and no query runs twice.
"""

from __future__ import annotations

import gzip
import io
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from werkzeug.http import http_date, parse_accept_header, parse_options_header, quote_etag

from .hooks import EXPOSED, MIN_SIZE, _compressible, browser_headers
from .negotiation import formats_for
from .publicbase import host_allowed
from .publicbase import url as public_url
from .querypool import PoolError
from .sparql import ANSWERED, FORM_TYPE, QUERY_TYPE, client_gone

if TYPE_CHECKING:
    from flask import Flask

    from .site import Site

PATHS = ("/sparql", "/sparql/")
# Request headers that ask for more than a plain answer; Flask's view (and werkzeug's
# make_conditional) handles them.
CONDITIONAL = (
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
    "HTTP_RANGE",
    "HTTP_IF_RANGE",
)
# Parameters whose handling stays in Flask's view: an update is refused there, `download`
# adds a header.
TO_FLASK = ("update", "download")


class FastSparql:
    """WSGI middleware: answer plain /sparql queries, hand everything else to `app`."""

    def __init__(self, flask_app: Flask, app: Callable):
        self.flask_app = flask_app
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") in PATHS:
            answered = self.answer(environ, start_response)
            if answered is not None:
                return answered
        return self.app(environ, start_response)

    def answer(self, environ: dict, start_response: Callable) -> list[bytes] | None:
        """The answer of a plain query, or None for Flask to answer the request."""
        method = environ.get("REQUEST_METHOD")
        if method not in ("GET", "POST"):
            return None
        config = self.flask_app.config
        if config.get("SERVER_NAME") or not host_allowed(environ, config):
            return None  # Flask routes by SERVER_NAME, and refuses a Host not allowed
        if method == "GET" and any(key in environ for key in CONDITIONAL):
            return None
        try:
            read = self.read(environ, method)
        except (UnicodeDecodeError, ValueError):
            return None  # Flask answers what werkzeug cannot read
        if read is None:
            return None
        text, params, query_string = read
        accept = environ.get("HTTP_ACCEPT", "")
        site: Site = self.flask_app.extensions["benchgraph"]
        snapshot = site.enter_current()
        try:
            start = time.perf_counter()
            query = {
                "query": text,
                "base": public_url(config, environ["PATH_INFO"]).rstrip("/"),
                "formats": formats_for(accept, tuple(_getlist(params, "format"))),
                "default_graphs": _getlist(params, "default-graph-uri"),
                "named_graphs": _getlist(params, "named-graph-uri"),
            }
            try:
                header, body = snapshot.pool.run(
                    query, config["QUERY_TIMEOUT"], client_gone(environ)
                )
            except PoolError as exc:
                environ[ANSWERED] = (exc, time.perf_counter() - start)
                return None
            except Exception:  # a fault of the pool itself: Flask's view meets it and says so
                return None
            elapsed = time.perf_counter() - start
            if header["status"] != 200:
                environ[ANSWERED] = ((header, body), elapsed)
                return None
            site.metrics.observe(200, elapsed, header.get("form", ""))
            etag = None
            if method == "GET":  # as werkzeug's full_path reads
                etag = snapshot.etag(f"{environ['PATH_INFO']}?{query_string}", accept)
        finally:
            snapshot.leave()
        return self.respond(start_response, header, body, elapsed, etag, environ)

    def read(self, environ: dict, method: str) -> tuple[str, list, str] | None:
        """(query text, its parameters as (name, value) pairs, the query string) of a plain
        query request, else None. The parameters are read as werkzeug reads them (its
        Request.args and form); a body read here is put back for Flask."""
        query_string = environ.get("QUERY_STRING", "").encode("latin1").decode()
        args = _parse(query_string)
        if any(name in TO_FLASK for name, _value in args):
            return None
        if method == "GET":
            params = args
        else:
            length = environ.get("CONTENT_LENGTH")
            if not length or not length.isdigit() or int(length) == 0:
                return None  # Flask says what is missing
            mimetype, options = parse_options_header(environ.get("CONTENT_TYPE", ""))
            mimetype = mimetype.lower()
            if mimetype not in (FORM_TYPE, QUERY_TYPE):
                return None
            data = environ["wsgi.input"].read(int(length))
            environ["wsgi.input"] = io.BytesIO(data)  # for Flask, if it answers
            if len(data) != int(length):
                return None  # the client left early: werkzeug answers that
            if mimetype == QUERY_TYPE:
                if any(name == "query" for name, _value in args):
                    return None
                if options.get("charset", "utf-8").lower() not in ("utf-8", "utf8"):
                    return None
                return data.decode("utf-8"), args, query_string
            form = _parse(data.decode())
            if any(name in TO_FLASK for name, _value in form):
                return None
            params = args + form  # werkzeug's Request.values: the URL's, then the body's
        if len(_getlist(params, "query")) != 1:
            return None
        return _getlist(params, "query")[0], params, query_string

    def respond(
        self,
        start_response: Callable,
        header: dict,
        body: bytes,
        elapsed: float,
        etag: str | None,
        environ: dict,
    ) -> list[bytes]:
        """The 200 as sparql.run_query and the hooks (hooks.py) make it."""
        content_type = header["content_type"]
        headers = [
            ("Content-Type", content_type),
            (
                "Server-Timing",
                f"query;dur={elapsed * 1000:.1f}, "
                f"wait;dur={header.get('wait_s', 0) * 1000:.1f}, "
                f"slot;dur={header.get('slot_s', 0) * 1000:.1f}",
            ),
            ("Vary", "Accept, Accept-Encoding"),
        ]
        if etag:
            headers += [
                ("ETag", quote_etag(etag, weak=True)),
                ("Cache-Control", "no-cache"),
                ("Date", http_date()),
            ]
        mimetype = content_type.split(";")[0].strip().lower()
        encodings = environ.get("HTTP_ACCEPT_ENCODING")
        if (
            len(body) >= MIN_SIZE
            and encodings
            and _compressible(mimetype)
            and parse_accept_header(encodings)["gzip"] > 0
        ):
            body = gzip.compress(body, compresslevel=6, mtime=0)
            headers.append(("Content-Encoding", "gzip"))
        headers += [
            ("Content-Length", str(len(body))),
            ("Access-Control-Allow-Origin", "*"),
            ("Access-Control-Expose-Headers", EXPOSED),
            *browser_headers(self.flask_app.config),
        ]
        start_response("200 OK", headers)
        return [body]


def _parse(text: str) -> list[tuple[str, str]]:
    """URL-encoded parameters as werkzeug reads them (Request.args, and a form body): blank
    values kept, invalid UTF-8 left percent-encoded."""
    import werkzeug.urls  # noqa: F401 - registers the "werkzeug.url_quote" error handler

    return parse_qsl(text, keep_blank_values=True, errors="werkzeug.url_quote")


def _getlist(params: list[tuple[str, str]], name: str) -> list[str]:
    return [value for key, value in params if key == name]
