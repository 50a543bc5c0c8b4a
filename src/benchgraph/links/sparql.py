"""A plain SPARQL 1.1 protocol client for `benchgraph link`: SELECT over HTTP POST, JSON results.

The standard library's urllib is enough (one request per record, no session; it keeps the
proxy settings of the environment). Wikidata's query service asks every client for a
User-Agent that names the tool and how to reach its maintainers, and answers 429 with a
Retry-After when a client asks too fast: both are kept.

The endpoint is outside: nothing it sends is trusted. A request has one deadline for the whole
of it (connecting, redirects, every byte of the answer), an answer has a size limit, a redirect
is followed only on the endpoint's own origin, and every bad answer is one CannotRun naming
the endpoint and what was wrong, its own text with control characters escaped.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from .._version import __version__
from ..errors import CannotRun, printable

USER_AGENT = f"benchgraph/{__version__} (https://w3id.org/benchgraph; record linking) python-urllib"
TIMEOUT = 60.0  # seconds per request; the query service itself stops a query at 60 s
MAX_WAIT = 60.0  # the longest Retry-After honoured before giving up
# The largest answer read, as `serve --max-result-mb` for the answers it gives: the biggest
# one `link` asks for (a maker's parts and their labels in every language) is well under 1 MB.
MAX_RESULT_MB = 64.0
ERROR_BODY_BYTES = 300  # of an error answer, shown in the message
CHUNK = 64 * 1024
# SPARQL JSON results nest 4 deep ({"results": {"bindings": [{"x": {...}}]}}). json's C
# decoder recurses on the C stack up to the interpreter's recursion limit (Python 3.11): at the
# default limit a deep answer is a RecursionError, but where something raised the limit
# (query/stack.py does for the query parser, up to 3.2 million) 100,000 levels overflow an 8 MiB
# stack and kill the process (measured: 50,000 fit). There the depth is counted first: a few
# passes in C, about as long as the parse itself, so not where the limit is safe.
MAX_DEPTH = 32
SAFE_RECURSION_LIMIT = 20_000
# A string runs to its closing quote or, unclosed, to the end: a scan that could fail at the
# end would be retried from every later quote (quadratic in a run of \" pairs).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


class Endpoint:
    """A SPARQL endpoint asked SELECT queries, each answered as a list of {var: value}."""

    def __init__(
        self,
        url: str,
        user_agent: str = USER_AGENT,
        timeout: float = TIMEOUT,
        max_result_mb: float = MAX_RESULT_MB,
    ):
        self.url, self.user_agent, self.timeout = url, user_agent, timeout
        wrong = [
            f"{name} {value:g}"
            for name, value in (("--timeout", timeout), ("--max-result-mb", max_result_mb))
            if not value > 0
        ]
        if wrong:
            raise CannotRun(f"{', '.join(wrong)}: must be above 0")
        self.max_bytes = int(max_result_mb * 1024 * 1024)
        self.origin = _origin(url)
        if self.origin is None:
            raise CannotRun(f"{printable(url)}: not an http:// or https:// URL with a host")
        self.requests = 0

    def select(self, query: str) -> list[dict[str, str]]:
        """The rows of a SELECT, each variable's value as text (a literal's language tag is
        left out: labels are compared in every language)."""
        body = urllib.parse.urlencode({"query": query}).encode()
        # --timeout bounds the whole question, the endpoint's Retry-After and the second
        # request included: a wait longer than the time left is not waited for
        end = time.monotonic() + self.timeout
        try:
            return _rows(self._post(body, self.timeout), self.url)
        except _Busy as busy:  # asked to wait: once, then an answer or an error
            left = end - time.monotonic()
            if busy.wait >= left:
                raise CannotRun(
                    f"{self.url}: asked to wait {busy.wait:g} s (Retry-After), more than the "
                    f"{max(left, 0):.1f} s left of --timeout {self.timeout:g} s: not asked again"
                ) from None
            time.sleep(busy.wait)
        return _rows(self._post(body, end - time.monotonic(), retry=False), self.url)

    def _post(self, body: bytes, timeout: float, retry: bool = True) -> bytes:
        """The whole answer to one POST, read before the deadline and within the size limit."""
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "Accept": "application/sparql-results+json",
                "Content-Type": "application/x-www-form-urlencoded",
                "User-Agent": self.user_agent,
            },
        )
        self.requests += 1
        deadline = _Deadline(timeout)
        opener = urllib.request.build_opener(
            _HTTPHandler(deadline), _HTTPSHandler(deadline), _SameOrigin(self)
        )
        try:
            try:
                with opener.open(request) as response:
                    return self._read(response, deadline)
            except urllib.error.HTTPError as exc:
                detail = _error_body(exc)
                deadline.check(self)
                wait = _wait(exc)
                if retry and exc.code in (429, 503) and wait is not None:
                    raise _Busy(wait) from None
                if str(exc.reason).startswith(_SameOrigin.inf_msg):
                    raise CannotRun(
                        f"{self.url}: HTTP {exc.code}: redirected too many times (a loop?)"
                    ) from None
                raise CannotRun(
                    f"{self.url}: HTTP {exc.code} {printable(str(exc.reason))}"
                    + (f": {detail}" if detail else "")
                ) from None
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                deadline.check(self)
                reason = getattr(exc, "reason", None) or exc
                if isinstance(reason, TimeoutError):
                    raise CannotRun(self._late()) from None
                raise CannotRun(f"{self.url}: {printable(str(reason))}") from None
        finally:
            deadline.close()

    def _read(self, response, deadline: _Deadline) -> bytes:
        length = response.headers.get("Content-Length", "")
        if length.strip().isdigit() and int(length) > self.max_bytes:
            raise CannotRun(self._too_big(f" ({int(length):,} bytes said)"))
        pieces, size = [], 0
        while piece := response.read(CHUNK):
            size += len(piece)
            if size > self.max_bytes:
                raise CannotRun(self._too_big(""))
            pieces.append(piece)
        deadline.check(self)  # a connection cut at the deadline may look like a whole answer
        return b"".join(pieces)

    def _too_big(self, said: str) -> str:
        return (
            f"{self.url}: the answer is over {self.max_bytes / 1024 / 1024:g} MB{said}, "
            "the most read (--max-result-mb): not read further"
        )

    def _late(self) -> str:
        return f"{self.url}: no whole answer within {self.timeout:g} s (--timeout)"


class _Busy(Exception):
    """The endpoint answered 429 or 503 with a Retry-After it is worth waiting for."""

    def __init__(self, wait: float):
        self.wait = wait


class _Deadline:
    """One request's end. A socket timeout bounds each read, not their sum (a byte every few
    seconds never trips it), so at the deadline a timer shuts every socket the request opened:
    a read blocked on one returns at once."""

    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds left, the timeout of each socket operation (so connecting is bounded too)."""
        left = self.at - time.monotonic()
        if left <= 0 or self.passed:
            raise TimeoutError("the deadline passed")
        return left

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._sockets.append(sock)
            if self.passed:
                _shut(sock)
        return sock

    def check(self, endpoint: Endpoint) -> None:
        """Raise the endpoint's time-out when the deadline cut the request short."""
        if self.passed:
            raise CannotRun(endpoint._late())

    def _cut(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._sockets:
                _shut(sock)

    def close(self) -> None:
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    try:  # the plain socket's shutdown, under TLS too: the TLS layer is left to notice
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _connection(base: type[http.client.HTTPConnection], deadline: _Deadline):
    """http.client's connection class with each socket operation's timeout the time left,
    and its socket watched by the deadline from the moment it connects (before a proxy
    tunnel or a TLS handshake is read from it)."""

    class Connection(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            kwargs["timeout"] = deadline.left()
            super().__init__(*args, **kwargs)
            create = self._create_connection
            self._create_connection = lambda *a, **k: deadline.watch(create(*a, **k))

    return Connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline):
        super().__init__()
        self.deadline = deadline

    def http_open(self, req):
        return self.do_open(_connection(http.client.HTTPConnection, self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline):
        super().__init__()
        self.deadline = deadline

    def https_open(self, req):
        return self.do_open(
            _connection(http.client.HTTPSConnection, self.deadline), req, context=self._context
        )


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Follows a redirect on the endpoint's own origin (scheme, host, port), repeating the
    query (urllib would turn a 301/302 POST into a GET without it; a 303 is a GET by
    definition); refuses any other, whose answer would be another server's."""

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        fp.close()  # its body is never read: an endless one would be read before following
        if _origin(newurl) != self.endpoint.origin:
            raise CannotRun(
                f"{self.endpoint.url}: HTTP {code} redirects to "
                f"{printable(newurl)}, off the endpoint's origin "
                f"({_show(self.endpoint.origin)}): not followed"
            )
        if code == 303:
            headers = {k: v for k, v in req.headers.items() if k.lower() != "content-type"}
            return urllib.request.Request(newurl, headers=headers, method="GET")
        return urllib.request.Request(
            newurl, data=req.data, headers=req.headers, method=req.get_method()
        )


def _origin(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def _show(origin: tuple[str, str, int]) -> str:
    scheme, host, port = origin
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def _error_body(exc: urllib.error.HTTPError) -> str:
    try:
        return printable(exc.read(ERROR_BODY_BYTES).decode("utf-8", "replace").strip())
    except (http.client.HTTPException, OSError, ValueError):
        return ""


def _wait(exc: urllib.error.HTTPError) -> float | None:
    try:
        wait = float(exc.headers.get("Retry-After", ""))
    except (TypeError, ValueError):
        return None
    return wait if 0 <= wait <= MAX_WAIT else None


def _depth_within(data: bytes, limit: int) -> bool:
    """Whether JSON text nests at most `limit` deep: strings left out, then the innermost
    pairs of brackets taken away, once per level."""
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        left = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if not left or len(left) == len(brackets):
            return True  # none left, or unbalanced: json says where
        brackets = left
    return False


def _rows(data: bytes, url: str) -> list[dict[str, str]]:
    """The bindings of SPARQL JSON results, or one CannotRun saying what is wrong with them."""

    def bad(what: str) -> CannotRun:
        return CannotRun(f"{url}: the answer is not SPARQL JSON results: {printable(what)}")

    if sys.getrecursionlimit() > SAFE_RECURSION_LIMIT and not _depth_within(data, MAX_DEPTH):
        raise bad(f"nested too deep (over {MAX_DEPTH} levels)")
    try:
        answer = json.loads(data)
    except RecursionError:
        raise bad(f"nested too deep (over {sys.getrecursionlimit():,} levels)") from None
    except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError for bytes not UTF-8
        raise bad(str(exc)) from None
    results = answer.get("results") if isinstance(answer, dict) else None
    bindings = results.get("bindings") if isinstance(results, dict) else None
    if not isinstance(bindings, list):
        raise bad("no results.bindings list")
    rows = []
    for n, row in enumerate(bindings):
        if not isinstance(row, dict):
            raise bad(f"results.bindings[{n}] is not an object")
        values = {}
        for var, term in row.items():
            value = term.get("value") if isinstance(term, dict) else None
            if not isinstance(value, str):
                raise bad(f"results.bindings[{n}].{var} is not a term with a text value")
            values[var] = value
        rows.append(values)
    return rows
