"""Every error the web app answers has one shape, written by `written` (its body by
`error_body`), and is counted on /metrics by its reason.

JSON for programs: {"ok": false, "status": 400, "title": "malformed query", "error": "...",
plus details such as "position"}; the same fields on an HTML page when a browser asks. An
error of benchgraph's family is mapped to status, title, code and fields in one place
(BenchgraphError.answer) and written here (`refusal`); Flask's views answer with
`error_response` and `error_for`, the SPARQL endpoint with endpoint.respond, gunicorn's worker
(httpworker.py) with `written` itself.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from flask import Flask, Response, current_app, render_template, request
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


@lru_cache(maxsize=256)
def wants_html(accept: str | None) -> bool:
    """Whether a client prefers an HTML page to JSON (a browser): its error is then a page,
    which only Flask renders (the fast path hands such a request to Flask)."""
    try:
        return choose((JSON_ERROR, HTML), accept) is HTML
    except NotAcceptable:
        return False


def written(
    status: int,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    *,
    code: str | None = None,
    accept: str | None = None,
    metrics: Any = None,
    **extra: object,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """An error as every layer answers it, (status, headers, body): JSON as Flask's jsonify
    writes it, or an HTML page for a client that prefers one (in Flask's request context);
    counted on `metrics` under its reason."""
    body = error_body(status, title, detail, **extra)
    if wants_html(accept):
        data = render_template("error.html", error=body).encode()
        content_type = "text/html; charset=utf-8"
    else:
        data = (json.dumps(body, sort_keys=True, separators=(",", ":")) + "\n").encode()
        content_type = "application/json"
    if metrics is not None:
        metrics.refused(reason(status, title, code), status)
    return (
        status,
        [("Content-Type", content_type), ("Vary", "Accept"), *(headers or {}).items()],
        data,
    )


def refusal(
    exc: BenchgraphError, accept: str | None, metrics: Any
) -> tuple[int, list[tuple[str, str]], bytes]:
    """An error of benchgraph's family, written: its answer (status, title, code, detail,
    where in the query, Retry-After) in the one shape."""
    return written(**exc.answer(), accept=accept, metrics=metrics)


def response(status: int, headers: list[tuple[str, str]], body: bytes) -> Response:
    """What `written` (or endpoint.respond) wrote, as Flask's Response."""
    return Response(body, status=status, headers=headers)


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
    return response(
        *written(
            status,
            title,
            detail,
            headers,
            code=code,
            accept=request.headers.get("Accept"),
            metrics=_metrics(),
            **extra,
        )
    )


def error_for(exc: BenchgraphError) -> Response:
    """The answer of an error of benchgraph's family, in Flask's view."""
    return response(*refusal(exc, request.headers.get("Accept"), _metrics()))


def reason(status: int, title: str, code: str | None = None) -> str:
    """The label an error is counted under on /metrics."""
    if code:
        return code
    if status in REASON_BY_STATUS:
        return REASON_BY_STATUS[status]
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or str(status)


def _metrics() -> Any:
    site = current_app.extensions.get("benchgraph")
    return None if site is None else site.metrics  # None only while the app is being made


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
