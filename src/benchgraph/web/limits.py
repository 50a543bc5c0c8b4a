"""How much of a request the server takes: its path, its query string and its body.

`RequestLimits` wraps the WSGI app and looks at a request before Flask routes it: a path or
query string over its limit is refused (414) without being routed or parsed, and a body is read
whole, up to MAX_CONTENT_LENGTH, however it is sent. Werkzeug alone cuts a chunked body at the
limit without a word (the cut text would then run as the query); here a byte past the limit is
a 413. The refusal itself is answered by `refuse`, the first before-request hook, so that it
has the one error shape and the headers of every other response.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from flask import Response, request

from .errors import ECHO, error_response

REFUSAL = "benchgraph.refusal"  # the environ key a refused request carries to `refuse`
READ_SIZE = 64 * 1024
# A refused body up to this many times the limit is read to its end and dropped, so that a
# client that sends it whole before reading (urllib, SPARQLWrapper) reads the 413 instead of
# meeting a broken pipe; a longer one is left unread and the connection ends with the answer.
DRAIN_FACTOR = 4


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused before it is routed."""

    status: int
    title: str
    detail: str


@dataclass(frozen=True)
class Limits:
    """The sizes a request may have, in bytes as sent (the path and query string still
    percent-encoded); the defaults are in benchgraph.web.DEFAULTS."""

    max_path: int
    max_query_string: int
    max_body: int | None

    @classmethod
    def from_config(cls, config: Any) -> Limits:
        body = config.get("MAX_CONTENT_LENGTH")
        return cls(
            int(config["MAX_PATH_BYTES"]),
            int(config["MAX_QUERY_STRING_BYTES"]),
            None if body is None else int(body),
        )


class RequestLimits:
    """WSGI middleware: refuse a request over the limits before the app sees its target, and
    give the app the body whole, as a stream of known length."""

    def __init__(self, app: Callable, limits: Limits):
        self.app = app
        self.limits = limits

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        refusal = self.check_target(environ) or self.read_body(environ)
        if refusal is not None:
            # The app answers the refusal (one error shape, the usual headers), but never
            # routes or parses what was refused: it sees "/" with no query string or body.
            environ = environ | {
                "PATH_INFO": "/",
                "QUERY_STRING": "",
                "CONTENT_LENGTH": "0",
                "wsgi.input": io.BytesIO(),
                REFUSAL: refusal,
            }
        return self.app(environ, start_response)

    def check_target(self, environ: dict) -> Refusal | None:
        """A 414 for a path or query string over its limit; lengths only, nothing parsed."""
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if raw is not None:
            path, _, query = raw.partition("?")
            path = path.partition("#")[0]
        else:
            path, query = environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", "")
        for what, value, limit, key in (
            ("path", path, self.limits.max_path, "MAX_PATH_BYTES"),
            ("query string", query, self.limits.max_query_string, "MAX_QUERY_STRING_BYTES"),
        ):
            if len(value) > limit:
                return Refusal(
                    414,
                    "uri too long",
                    f"the {what} is {len(value):,} bytes long; this server takes "
                    f"{what}s of up to {limit:,} bytes ({key}); it begins "
                    f"{value[: ECHO // 2]!r}…",
                )
        return None

    def read_body(self, environ: dict) -> Refusal | None:
        """Read a body of unknown length (chunked) up to one byte past the limit; a 413 when
        that byte comes. A body within it is handed on with its length; a Content-Length over
        the limit is a 413 at once. A refused body is drained (see DRAIN_FACTOR)."""
        limit = self.limits.max_body
        if limit is None:
            return None
        declared = environ.get("CONTENT_LENGTH")
        if declared:
            try:
                length = int(declared)
            except ValueError:
                return None  # werkzeug treats it as no length: an empty body
            if length <= limit:
                return None
            if length <= DRAIN_FACTOR * limit:
                drain(environ["wsgi.input"], length)
            return too_large(limit, f"{length:,} bytes")
        if not environ.get("wsgi.input_terminated"):
            return None  # no length and no end the server vouches for: werkzeug reads nothing
        stream = environ["wsgi.input"]
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = stream.read(min(READ_SIZE, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            drain(stream, DRAIN_FACTOR * limit - size)
            return too_large(limit, "longer than that (sent in chunks)")
        environ["wsgi.input"] = io.BytesIO(b"".join(chunks))
        environ["CONTENT_LENGTH"] = str(size)
        return None


def drain(stream: Any, most: int) -> None:
    """Read and drop up to `most` bytes of the body, or to its end."""
    while most > 0:
        chunk = stream.read(min(READ_SIZE, most))
        if not chunk:
            return
        most -= len(chunk)


def too_large(limit: int, size: str) -> Refusal:
    return Refusal(
        413,
        "content too large",
        f"the request body is {size}; this server takes bodies of up to {limit:,} "
        "bytes (MAX_CONTENT_LENGTH). Send a shorter query, or ask the operator to "
        "raise the limit",
    )


def refuse() -> Response | None:
    """Answer a request the middleware refused (the app's first before-request hook)."""
    refusal: Refusal | None = request.environ.get(REFUSAL)
    if refusal is None:
        return None
    return error_response(refusal.status, refusal.title, refusal.detail)
