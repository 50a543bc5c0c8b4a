"""Every error the web app answers has one shape, built by `error_body`.

JSON for programs: {"ok": false, "status": 400, "title": "malformed query", "error": "...",
plus details such as "position"}; the same fields on an HTML page when a browser asks.
"""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .negotiation import HTML, Format, NotAcceptable, choose

JSON_ERROR = Format("json", "application/json", "json", "", (), "JSON")


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
    return response


def register(app: Flask) -> None:
    """Answer HTTP errors (404, 405, 415, ...) in the shape above."""

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        headers = {}
        if exc.code == 405 and exc.valid_methods:
            headers["Allow"] = ", ".join(exc.valid_methods)
        return error_response(exc.code or 500, (exc.name or "error").lower(),
                              exc.description or "", headers)
