"""Every error the web app answers has one shape, built by `error_body`, and is counted on
/metrics by its reason.

JSON for programs: {"ok": false, "status": 400, "title": "malformed query", "error": "...",
plus details such as "position"}; the same fields on an HTML page when a browser asks.
"""

from __future__ import annotations

import re

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from .negotiation import HTML, Format, NotAcceptable, choose

JSON_ERROR = Format("json", "application/json", "json", "", (), "JSON")
# The reason an error is counted under on /metrics: by its title, else by its status, else
# the title itself made a label ("bad graph IRI" -> "bad-graph-iri").
REASON_BY_TITLE = {
    "query timed out": "timeout",
    "query used too much memory": "memory",
    "client gone": "client-gone",
    "server busy": "busy",
    "result too large": "too-large",
    "federated query refused": "service",
    "federated query failed": "service-failed",
    "malformed query": "malformed",
    "read-only endpoint": "update",
    "query worker died": "worker-died",
    "query failed": "query-failed",
}
REASON_BY_STATUS = {
    404: "not-found", 405: "method-not-allowed", 406: "not-acceptable",
    413: "payload-too-large", 414: "uri-too-long", 415: "unsupported-media-type",
    431: "headers-too-large",
}


def error_body(status: int, title: str, detail: str, **extra: object) -> dict:
    """The body of every error response."""
    return {"ok": False, "status": status, "title": title, "error": detail, **extra}


def error_response(status: int, title: str, detail: str,
                   headers: dict[str, str] | None = None, **extra: object) -> Response:
    """An error as JSON, or as an HTML page for a client that prefers HTML."""
    body = error_body(status, title, detail, **extra)
    try:
        wants_html = choose((JSON_ERROR, HTML), request.headers.get("Accept")) is HTML
    except NotAcceptable:
        wants_html = False
    if wants_html:
        response = Response(render_template("error.html", error=body), status=status,
                            mimetype="text/html")
    else:
        response = jsonify(body)
        response.status_code = status
    response.headers.update(headers or {})
    response.vary.add("Accept")
    _count(status, title)
    return response


def reason(status: int, title: str) -> str:
    """The label an error is counted under on /metrics."""
    if title in REASON_BY_TITLE:
        return REASON_BY_TITLE[title]
    if status in REASON_BY_STATUS:
        return REASON_BY_STATUS[status]
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or str(status)


def _count(status: int, title: str) -> None:
    site = current_app.extensions.get("benchgraph")
    if site is not None:  # None only while the app is being made
        site.metrics.refused(reason(status, title), status)


def register(app: Flask) -> None:
    """Answer HTTP errors (404, 405, 415, ...) in the shape above."""

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        headers = {}
        if exc.code == 405 and exc.valid_methods:
            headers["Allow"] = ", ".join(exc.valid_methods)
        if isinstance(exc, SecurityError):  # Flask's TRUSTED_HOSTS check (publicbase.py)
            from .publicbase import refusal_detail

            return error_response(400, "host not allowed",
                                  refusal_detail(request.environ, current_app.config))
        return error_response(exc.code or 500, (exc.name or "error").lower(),
                              exc.description or "", headers)
