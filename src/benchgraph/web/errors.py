"""Every error the web app answers has one shape, built by `error_body`, and is counted on
/metrics by its reason.

JSON for programs: {"ok": false, "status": 400, "title": "malformed query", "error": "...",
plus details such as "position"}; the same fields on an HTML page when a browser asks.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from ..errors import BenchgraphError
from .negotiation import HTML, Format, NotAcceptable, choose

JSON_ERROR = Format("json", "application/json", "json", "", (), "JSON")
# The reason an error is counted under on /metrics: its code (QueryRefused's, a pool
# error's, the worker's), else by its status, else its title made a label ("bad graph IRI"
# -> "bad-graph-iri"). A code, not the title: a title is written for a person and may change.
REASON_BY_STATUS = {
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    413: "payload-too-large",
    414: "uri-too-long",
    415: "unsupported-media-type",
    431: "headers-too-large",
}


def error_body(status: int, title: str, detail: str, **extra: object) -> dict:
    """The body of every error response."""
    return {"ok": False, "status": status, "title": title, "error": detail, **extra}


def error_response(
    status: int,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    *,
    code: str | None = None,
    **extra: object,
) -> Response:
    """An error as JSON, or as an HTML page for a client that prefers HTML."""
    body = error_body(status, title, detail, **extra)
    try:
        wants_html = choose((JSON_ERROR, HTML), request.headers.get("Accept")) is HTML
    except NotAcceptable:
        wants_html = False
    if wants_html:
        response = Response(
            render_template("error.html", error=body), status=status, mimetype="text/html"
        )
    else:
        response = jsonify(body)
        response.status_code = status
    response.headers.update(headers or {})
    response.vary.add("Accept")
    _count(status, title, code)
    return response


def error_for(exc: BenchgraphError, headers: dict[str, str] | None = None) -> Response:
    """The answer of an error of benchgraph's family: its status, title, code and detail
    (and where in the query, when known)."""
    extra = {"position": exc.position} if exc.position else {}
    return error_response(exc.status or 500, exc.title, exc.detail, headers, code=exc.code, **extra)


def reason(status: int, title: str, code: str | None = None) -> str:
    """The label an error is counted under on /metrics."""
    if code:
        return code
    if status in REASON_BY_STATUS:
        return REASON_BY_STATUS[status]
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or str(status)


def _count(status: int, title: str, code: str | None) -> None:
    site = current_app.extensions.get("benchgraph")
    if site is not None:  # None only while the app is being made
        site.metrics.refused(reason(status, title, code), status)


def register(app: Flask) -> None:
    """Answer HTTP errors (404, 405, 415, ...) in the shape above."""

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        headers = {}
        if exc.code == 405 and exc.valid_methods:
            headers["Allow"] = ", ".join(exc.valid_methods)
        if isinstance(exc, SecurityError):  # Flask's TRUSTED_HOSTS check (publicbase.py)
            return error_response(
                400, "host not allowed", refusal_detail(request.environ, current_app.config)
            )
        return error_response(
            exc.code or 500, (exc.name or "error").lower(), exc.description or "", headers
        )


ECHO = 120  # characters of a refused or unknown name an error message repeats


def shorten(text: str, limit: int = ECHO) -> str:
    """`text`, or its first `limit` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def refusal_detail(environ: dict, config: Any) -> str:
    """What a client sending a Host not allowed is told."""
    host = environ.get("HTTP_HOST", "")
    names = ", ".join(config["TRUSTED_HOSTS"])
    return (
        f"this server answers as {config['PUBLIC_BASE']} (and {names}), not as "
        f"{shorten(host)!r}. The operator can add a name with `serve --allowed-host` "
        "(BENCHGRAPH_ALLOWED_HOSTS) or set `serve --public-base`"
    )
