"""What every request and response goes through: the size limits on the way in; CORS,
security headers, conditional answers (304) and gzip on the way out.

Each hook on the way out is a function of the response's headers (and body), called by Flask
on every response it answers and, by `below_flask`, on the SPARQL answers and refusals the
fast path writes below Flask (fastpath.py): one rule for both."""

from __future__ import annotations

import gzip
import threading
from collections.abc import MutableMapping
from typing import Any

from flask import Flask, Response, abort, current_app, request
from werkzeug.http import (
    HTTP_STATUS_CODES,
    http_date,
    parse_accept_header,
    quote_etag,
    unquote_etag,
)

from . import limits
from .errors import shorten

COMPRESSIBLE = (
    "text/",
    "application/json",
    "application/javascript",
    "application/xml",
    "application/n-triples",
    "application/n-quads",
    "application/trig",
    "image/svg+xml",
)
COMPRESSIBLE_SUFFIXES = ("+json", "+xml")
MIN_SIZE = 500
EXPOSED = "ETag, Content-Disposition, Server-Timing, Retry-After"
# A response's headers as the hooks read and write them: werkzeug's Headers in Flask, a dict
# below it (below_flask), each name in one spelling.
HeaderMap = MutableMapping[str, str]

_static_gzip: dict[tuple[str, str], bytes] = {}  # (path, etag) -> compressed bytes
_static_lock = threading.Lock()


def register(app: Flask) -> None:
    """Install the hooks on the app (the WSGI layers below Flask are create_app's)."""
    # First of all before-request hooks: a refused request does nothing else.
    app.before_request_funcs.setdefault(None, []).insert(0, limits.refuse)
    app.after_request(security_headers)
    app.after_request(cors)
    app.after_request(compress)  # after_request hooks run last-registered first
    app.after_request(conditional)


def below_flask(
    status: int, headers: list[tuple[str, str]], body: bytes, environ: dict, config: Any
) -> tuple[str, list[tuple[str, str]], bytes]:
    """(status line, headers, body) of a response written below Flask, with what the hooks
    add to the same response in Flask, in their order: the date of a revalidated answer (no
    conditional request is answered below Flask), gzip, CORS, the browser headers."""
    # A dict, not werkzeug's Headers (ten times the cost here): the names are written and
    # read in one spelling, and none twice.
    out = dict(headers)
    if revalidated(environ["REQUEST_METHOD"], status, out):
        dated(out)
    body = gzip_body(out, status, body, environ)
    add_cors(out, environ)
    add_browser_headers(out, config)
    out["Content-Length"] = str(len(body))
    return f"{status} {HTTP_STATUS_CODES.get(status, 'unknown').upper()}", list(out.items()), body


def not_modified(etag: str) -> Response:
    """A 304 for a client that holds the representation `etag` names (weakly)."""
    response = Response(status=304)
    response.set_etag(etag, weak=True)
    response.vary.add("Accept")
    return response


def cors(response: Response) -> Response:
    add_cors(response.headers, request.environ)
    return response


def add_cors(headers: HeaderMap, environ: dict) -> None:
    """Any page may read any response (no credentials are ever involved)."""
    headers["Access-Control-Allow-Origin"] = "*"
    headers["Access-Control-Expose-Headers"] = EXPOSED
    if environ.get("REQUEST_METHOD") == "OPTIONS":
        headers["Access-Control-Allow-Methods"] = "GET, HEAD, POST, OPTIONS"
        headers["Access-Control-Allow-Headers"] = environ.get(
            "HTTP_ACCESS_CONTROL_REQUEST_HEADERS", "Accept, Content-Type"
        )
        headers["Access-Control-Max-Age"] = "86400"


def browser_headers(config: Any) -> list[tuple[str, str]]:
    """What a browser may do with a response: never sniff its type, run and load only what
    this server sends (CONTENT_SECURITY_POLICY), tell other sites nothing of its URLs. Also
    sent by httpworker.py with the errors it answers without the app."""
    out = [("X-Content-Type-Options", "nosniff")]
    if config["CONTENT_SECURITY_POLICY"]:
        out.append(("Content-Security-Policy", config["CONTENT_SECURITY_POLICY"]))
    if config["REFERRER_POLICY"]:
        out.append(("Referrer-Policy", config["REFERRER_POLICY"]))
    return out


def add_browser_headers(headers: HeaderMap, config: Any) -> None:
    for name, value in browser_headers(config):
        headers[name] = value


def security_headers(response: Response) -> Response:
    """browser_headers on every response Flask answers."""
    add_browser_headers(response.headers, current_app.config)
    return response


def conditional(response: Response) -> Response:
    """Turn a 200 whose ETag the client already holds into a 304."""
    if revalidated(request.method, response.status_code, response.headers) and not (
        response.direct_passthrough
    ):
        dated(response.headers)
        response.make_conditional(request)
    return response


def revalidated(method: str, status: int, headers: HeaderMap) -> bool:
    """Whether a client may revalidate the response: a GET's 200 with an ETag."""
    return (
        method in ("GET", "HEAD") and status == 200 and bool(unquote_etag(headers.get("ETag"))[0])
    )


def dated(headers: HeaderMap) -> None:
    """A revalidated answer's Date (werkzeug's make_conditional would add it, but not over this)."""
    if "Date" not in headers:
        headers["Date"] = http_date()


def compress(response: Response) -> Response:
    """gzip text-like bodies for clients that accept it; the ETag becomes weak. A HEAD too,
    whose headers (Content-Encoding, Content-Length) are GET's."""
    headers, status = response.headers, response.status_code
    if response.direct_passthrough:  # a static file: compress it once
        if gzip_wanted(headers, status, request.environ):
            response.set_data(_static_gzipped(response))
            gzipped(headers)
    elif response.is_streamed:
        add_vary(headers, "Accept-Encoding")
    else:
        body = response.get_data()
        data = gzip_body(headers, status, body, request.environ)
        if data is not body:
            response.set_data(data)
    return response


def gzip_body(headers: HeaderMap, status: int, body: bytes, environ: dict) -> bytes:
    """`body`, gzipped where it is worth it and the client takes it (its headers then say so)."""
    if not gzip_wanted(headers, status, environ) or len(body) < MIN_SIZE:
        return body
    data = gzip.compress(body, compresslevel=6, mtime=0)
    gzipped(headers)
    return data


def gzip_wanted(headers: HeaderMap, status: int, environ: dict) -> bool:
    """Whether a response may be gzipped for this client: a text-like 200 not encoded yet,
    to a client that takes gzip. Its Vary says it depends on Accept-Encoding, either way."""
    add_vary(headers, "Accept-Encoding")
    encodings = environ.get("HTTP_ACCEPT_ENCODING")  # most API clients send none
    return (
        status == 200
        and bool(encodings)
        and "Content-Encoding" not in headers
        and _compressible(headers.get("Content-Type", "").split(";")[0].strip().lower())
        and parse_accept_header(encodings)["gzip"] > 0
    )


def gzipped(headers: HeaderMap) -> None:
    """Mark a body as gzipped: its encoding, and its ETag made weak (the bytes changed)."""
    headers["Content-Encoding"] = "gzip"
    etag, weak = unquote_etag(headers.get("ETag"))
    if etag and not weak:
        headers["ETag"] = quote_etag(etag, weak=True)


def add_vary(headers: HeaderMap, name: str) -> None:
    """`name` among the headers the response varies by (as werkzeug's response.vary.add)."""
    vary = headers.get("Vary")
    if not vary:
        headers["Vary"] = name
    elif name.lower() not in (v.strip().lower() for v in vary.split(",")):
        headers["Vary"] = f"{vary}, {name}"


def _static_gzipped(response: Response) -> bytes:
    """A static file's bytes gzipped, once per file and ETag."""
    key = (request.path, response.get_etag()[0] or "")
    with _static_lock:
        data = _static_gzip.get(key)
    if data is None:
        response.direct_passthrough = False
        data = gzip.compress(response.get_data(), compresslevel=6, mtime=0)
        with _static_lock:
            _static_gzip[key] = data
    else:
        response.response.close()
        response.direct_passthrough = False
    return data


def _compressible(mimetype: str) -> bool:
    return mimetype.startswith(COMPRESSIBLE) or mimetype.endswith(COMPRESSIBLE_SUFFIXES)


# --- what the listing pages (browse.py, explore.py) share ---------------------------------
FORMATS = {"html": "text/html", "json": "application/json", "csv": "text/csv"}


def page_format() -> str:
    """html, json or csv: from ?format=, else the Accept header (HTML when it is no matter)."""
    given = request.args.get("format")
    if given is not None:
        if given not in FORMATS:
            abort(400, f"format: {shorten(given)!r} is not one of " + ", ".join(FORMATS))
        return given
    best = request.accept_mimetypes.best_match(list(FORMATS.values()), default="text/html")
    return next(k for k, v in FORMATS.items() if v == best)


def int_arg(name: str, default: int, low: int, high: int) -> int:
    given = request.args.get(name)
    if given is None:
        return default
    try:
        value = int(given)
    except ValueError:
        abort(400, f"{name}: {shorten(given)!r} is not a whole number")
    return max(low, min(high, value))


def finish(response: Response, etag: str) -> Response:
    """A page's answer, revalidated by its weak ETag on every use (the listings, the explorer)."""
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept")
    return response
