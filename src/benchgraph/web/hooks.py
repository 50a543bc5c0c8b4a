"""What every request and response goes through: the size limits on the way in; CORS,
security headers, conditional answers (304) and gzip on the way out."""

from __future__ import annotations

import gzip
import threading

from flask import Flask, Response, abort, current_app, request

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


def not_modified(etag: str) -> Response:
    """A 304 for a client that holds the representation `etag` names (weakly)."""
    response = Response(status=304)
    response.set_etag(etag, weak=True)
    response.vary.add("Accept")
    return response


def cors(response: Response) -> Response:
    """Any page may read any response (no credentials are ever involved)."""
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Access-Control-Expose-Headers"] = EXPOSED
    if request.method == "OPTIONS":
        response.headers["Access-Control-Allow-Methods"] = "GET, HEAD, POST, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = request.headers.get(
            "Access-Control-Request-Headers", "Accept, Content-Type"
        )
        response.headers["Access-Control-Max-Age"] = "86400"
    return response


def browser_headers(config: dict) -> list[tuple[str, str]]:
    """What a browser may do with a response: never sniff its type, run and load only what
    this server sends (CONTENT_SECURITY_POLICY), tell other sites nothing of its URLs. Also
    sent by fastpath.py, which answers plain queries below Flask."""
    out = [("X-Content-Type-Options", "nosniff")]
    if config["CONTENT_SECURITY_POLICY"]:
        out.append(("Content-Security-Policy", config["CONTENT_SECURITY_POLICY"]))
    if config["REFERRER_POLICY"]:
        out.append(("Referrer-Policy", config["REFERRER_POLICY"]))
    return out


def security_headers(response: Response) -> Response:
    """browser_headers on every response Flask answers."""
    for name, value in browser_headers(current_app.config):
        response.headers[name] = value
    return response


def conditional(response: Response) -> Response:
    """Turn a 200 whose ETag the client already holds into a 304."""
    if (
        request.method in ("GET", "HEAD")
        and response.status_code == 200
        and response.get_etag()[0]
        and not response.direct_passthrough
    ):
        response.make_conditional(request)
    return response


def compress(response: Response) -> Response:
    """gzip text-like bodies for clients that accept it; the ETag becomes weak. A HEAD too,
    whose headers (Content-Encoding, Content-Length) are GET's."""
    response.vary.add("Accept-Encoding")
    if (
        response.status_code != 200
        or "Content-Encoding" in response.headers
        or not _compressible(response.mimetype or "")
        or request.accept_encodings["gzip"] <= 0
    ):
        return response
    if response.direct_passthrough:  # a static file: compress it once
        etag = response.get_etag()[0] or ""
        key = (request.path, etag)
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
    elif response.is_streamed:
        return response
    else:
        body = response.get_data()
        if len(body) < MIN_SIZE:
            return response
        data = gzip.compress(body, compresslevel=6, mtime=0)
    response.set_data(data)
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag and not weak:
        response.set_etag(etag, weak=True)
    return response


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
