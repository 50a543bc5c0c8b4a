"""The SPARQL endpoint's common requests answered below Flask.

Measured per point lookup, Flask's request and app contexts, routing, the before/after hooks
and its Response object took 0.4 ms of the server's time, twice what the query itself takes
(the hop to a query worker and back included), and as much again as the whole answer of the
Oxigraph server. `FastSparql` wraps Flask's WSGI app (inside limits.RequestLimits, so every
size limit still applies first) and answers the requests clients send most, a query by GET,
by form POST or by direct POST, whatever its outcome. It only routes: the request is read,
run and answered by endpoint.py, as Flask's view (sparql.py) reads, runs and answers it, and
what Flask's hooks add to the answer is added by the same functions (hooks.below_flask).

Every other request goes to Flask untouched: other paths, HEAD (Flask answers it as GET, with
no body) and OPTIONS, conditional and range requests, `download`, updates, a request the
protocol refuses, a client that prefers an HTML page (an error for it is rendered from the
site's templates), and a Host Flask would refuse (publicbase.host_allowed, the check Flask
makes: a 400 there). What was read goes with it (endpoint.OPERATION), so that no request is
read twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import BenchgraphError
from . import endpoint
from .errors import wants_html
from .hooks import below_flask
from .publicbase import host_allowed

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
        if wants_html(environ.get("HTTP_ACCEPT")):
            return None  # a refusal would be a page of the site: Flask renders it
        try:
            op = endpoint.operation(environ, config.get("MAX_CONTENT_LENGTH"))
        except Exception:  # noqa: BLE001 - kept in the environ: Flask's view answers it
            return None
        if op is None or op.kind != "query" or op.download:
            return None  # the service description, an update, a download: Flask's view
        site: Site = self.flask_app.extensions["benchgraph"]
        snapshot = site.enter_current()
        try:
            try:
                outcome, elapsed = endpoint.run(snapshot.pool, op, environ, config)
            except Exception:  # a fault of the pool itself: Flask's view meets it and says so
                return None
            endpoint.count(site.metrics, outcome, elapsed)
            etag = None
            if method == "GET" and not isinstance(outcome, BenchgraphError):
                etag = snapshot.etag(endpoint.etag_key(environ), environ.get("HTTP_ACCEPT", ""))
            written = endpoint.respond(outcome, environ, site.metrics, elapsed=elapsed, etag=etag)
        finally:
            snapshot.leave()
        status, headers, body = below_flask(*written, environ, config)
        start_response(status, headers)
        return [body]
