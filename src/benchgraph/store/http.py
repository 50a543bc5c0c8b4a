"""The HTTP client of remote stores: kept-alive connections, authentication, safe retries.

The standard library's http.client, not urllib.request (which opens a connection per
request: a push of 13k graphs paid a TCP handshake and an authentication round trip each)
and no third-party client (none in benchgraph's dependencies does digest authentication).

Credentials come from the environment only, never from an option or a URL, and never appear
in a message or a log: a user and password (HTTP basic or digest, as the store's challenge
asks) or a bearer token, of one of two accounts. Push writes with BENCHGRAPH_STORE_USER,
_PASSWORD, _TOKEN (PUSH_ACCOUNT); everything that only reads (`serve`, `query` and `export`
with --store) reads with BENCHGRAPH_SERVE_STORE_USER, _PASSWORD, _TOKEN (SERVE_ACCOUNT), an
account of its own that should have no right to write (README: "Pushing to a store server").
"""

from __future__ import annotations

import hashlib
import http.client
import re
import secrets
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from ..errors import CannotRun
from ..settings import raw_env


@dataclass(frozen=True)
class Account:
    """The environment variables that hold one account's credentials."""

    user: str
    password: str
    token: str

    def hint(self) -> str:
        return f"set {self.user} and {self.password}, or {self.token}"

    def given(self) -> bool:
        return bool(raw_env(self.user) or raw_env(self.token))


PUSH_ACCOUNT = Account(
    "BENCHGRAPH_STORE_USER", "BENCHGRAPH_STORE_PASSWORD", "BENCHGRAPH_STORE_TOKEN"
)
SERVE_ACCOUNT = Account(
    "BENCHGRAPH_SERVE_STORE_USER", "BENCHGRAPH_SERVE_STORE_PASSWORD", "BENCHGRAPH_SERVE_STORE_TOKEN"
)
USER, PASSWORD, TOKEN = PUSH_ACCOUNT.user, PUSH_ACCOUNT.password, PUSH_ACCOUNT.token
RETRIES = (0.2, 0.6, 1.5)  # seconds before each retry of a request that is safe to repeat
RETRY_STATUS = {502, 503, 504}
CONNECT_TIMEOUT = 10.0
_DEADLOCK = re.compile(rb"\b40001\b|[Dd]eadlock")  # SQL's state of a rolled-back transaction


class StoreUnavailable(CannotRun):
    """The store could not be reached, or said it cannot answer now (a 502/503/504)."""

    status, title = 503, "store unavailable"


class StoreError(CannotRun):
    """The store answered with an error of its own; carries the store's status (the
    endpoint answers 502: the store failed, not the client) and its message."""

    status, title = 502, "store error"

    def __init__(self, status: int, message: str):
        self.store_status = status
        super().__init__(message)


class StoreTimeout(StoreError):
    """The store stopped the query at its own time limit (and would have sent part)."""

    status, title, code = 503, "query timed out", "timeout"

    def __init__(self, message: str):
        super().__init__(503, message)


class QueryNotSent(StoreError):
    """A query benchgraph does not send to the store: it could not be kept to the dataset
    (a graph the push did not write, or what Virtuoso 7.2 cannot answer so kept)."""

    status, title, code = 403, "graph refused", "graph-refused"

    def __init__(self, message: str):
        super().__init__(403, message)


class StoreTooLarge(StoreError):
    """The store's answer passed the size benchgraph reads of one (it is not cut)."""

    status, title, code = 422, "result too large", "too-large"

    def __init__(self, message: str):
        super().__init__(422, message)


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def content_type(self) -> str:
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()


def check_url(url: str, what: str) -> str:
    """An http(s) URL without credentials in it (they would show in logs and `ps`)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CannotRun(f"{what} {_safe(url)}: not an http(s) URL")
    if parts.username or parts.password:
        raise CannotRun(
            f"{what}: credentials do not belong in the URL (they would show in "
            "logs and process lists); give them in the environment ("
            f"{PUSH_ACCOUNT.hint()} for push; {SERVE_ACCOUNT.hint()} for serve, "
            "query and export)"
        )
    return url


def _safe(url: str) -> str:
    """The URL without any user information, for messages."""
    parts = urlsplit(url)
    if "@" in parts.netloc:
        parts = parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2])
    return parts.geturl()


class Client:
    """Requests to one store (any of its URLs), one kept-alive connection per thread, with
    the credentials of one account (push's unless told)."""

    def __init__(self, timeout: float | None = None, account: Account = PUSH_ACCOUNT):
        self.timeout = timeout
        self.account = account
        self._local = threading.local()
        self._challenge: dict[str, str] | None = None  # the digest challenge last met
        self._scheme: str | None = None  # "basic" or "digest" once the store asked
        self._nc = 0
        self._lock = threading.Lock()
        self.server = ""  # the store's Server header, once one answered

    # --- requests ---------------------------------------------------------------------
    def request(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        params: list[tuple[str, str]] = (),
        retry: bool = True,
        timeout: float | None = None,
        limit: int | None = None,
    ) -> Response:
        """Send one request; retry a connection failure or a 502/503/504 when `retry` (only
        for requests that are safe to repeat). Raises StoreUnavailable; StoreTooLarge when
        the answer passes `limit` bytes."""
        if params:
            url = url + ("&" if "?" in url else "?") + urlencode(params)
        attempts = (0.0, *RETRIES) if retry else (0.0,)
        last: Exception | None = None
        for pause in attempts:
            if pause:
                time.sleep(pause)
            try:
                response = self._send(method, url, body, headers or {}, timeout, limit)
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                last = exc
                if body and self._scheme != "basic" and raw_env(self.account.user):
                    # a store that asks for credentials (or a fresh nonce) may close the
                    # connection before it reads the body (Virtuoso does past a few MB), so
                    # its challenge is never read: ask for one without a body first
                    self._refresh(url)
                continue
            if retry and response.status == 500 and _DEADLOCK.search(response.body[:4000]):
                # two writes met (Virtuoso's SR172): the store rolled this one back whole
                last = StoreUnavailable(
                    f"{_safe(url)}: the store answered 500: {store_text(response.body)}"
                )
                continue
            if response.status in RETRY_STATUS and retry:
                last = StoreUnavailable(
                    f"{_safe(url)}: the store answered "
                    f"{response.status}: {store_text(response.body)}"
                )
                continue
            return response
        if isinstance(last, StoreUnavailable):
            raise last
        raise StoreUnavailable(
            f"{_safe(urlsplit(url)._replace(query='').geturl())}: the "
            f"store cannot be reached ({type(last).__name__}: {last})"
        )

    def _refresh(self, url: str) -> None:
        """Learn the store's current digest challenge with a request that has no body."""
        try:
            self._send("HEAD", url, None, {}, CONNECT_TIMEOUT)
        except (OSError, http.client.HTTPException):
            self._drop()

    def _send(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: dict[str, str],
        timeout: float | None,
        limit: int | None = None,
    ) -> Response:
        parts = urlsplit(url)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        for _round in range(3):  # at most: no credentials, then credentials, then a stale nonce
            conn = self._connection(parts, timeout)
            sent = dict(headers)
            sent.update(self._authorization(method, path))
            conn.request(method, path, body=body, headers=sent)
            raw = conn.getresponse()
            data = raw.read() if limit is None else raw.read(limit + 1)
            if limit is not None and len(data) > limit:
                self._drop()  # the rest is never read: the connection cannot be used again
                raise StoreTooLarge(
                    f"the store's answer passes the {limit:,} bytes read of "
                    "one; add a LIMIT or narrow the query"
                )
            self.server = raw.getheader("Server") or self.server
            if raw.getheader("Connection", "").lower() == "close":
                self._drop()
            response = Response(raw.status, raw.headers, data)
            if response.status != 401 or not self._learn(raw.headers):
                return response
        return response

    def _connection(self, parts, timeout: float | None) -> http.client.HTTPConnection:
        key = (parts.scheme, parts.hostname, parts.port)
        conns = self._local.__dict__.setdefault("conns", {})
        conn = conns.get(key)
        wanted = timeout if timeout is not None else self.timeout
        if conn is None:
            kind = (
                http.client.HTTPSConnection
                if parts.scheme == "https"
                else http.client.HTTPConnection
            )
            conn = conns[key] = kind(parts.hostname, parts.port, timeout=CONNECT_TIMEOUT)
            conn.connect()
        if conn.sock is not None:
            conn.sock.settimeout(wanted)
        return conn

    def _drop(self) -> None:
        for conn in self._local.__dict__.pop("conns", {}).values():
            conn.close()

    def close(self) -> None:
        self._drop()

    # --- authentication ---------------------------------------------------------------
    def _authorization(self, method: str, path: str) -> dict[str, str]:
        token = raw_env(self.account.token)
        if token:
            return {"Authorization": f"Bearer {token}"}
        user = raw_env(self.account.user)
        password = raw_env(self.account.password)
        if not user or password is None or self._scheme is None:
            return {}
        if self._scheme == "basic":
            import base64

            return {
                "Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
            }
        return {"Authorization": self._digest(method, path, user, password)}

    def _learn(self, headers: http.client.HTTPMessage) -> bool:
        """Take the store's challenge; False when there is nothing to answer it with."""
        if raw_env(self.account.token) or not raw_env(self.account.user):
            return False
        for value in headers.get_all("WWW-Authenticate") or []:
            scheme, _, rest = value.partition(" ")
            scheme = scheme.lower()
            if scheme == "digest":
                challenge = dict(re.findall(r'(\w+)="?([^",]*)"?', rest))
                with self._lock:
                    stale = challenge.get("stale", "").lower() == "true"
                    if (
                        self._scheme == "digest"
                        and not stale
                        and self._challenge
                        and self._challenge.get("nonce") == challenge.get("nonce")
                    ):
                        return False  # the same nonce refused: the credentials are wrong
                    self._scheme, self._challenge, self._nc = "digest", challenge, 0
                return True
            if scheme == "basic":
                if self._scheme == "basic":
                    return False
                self._scheme = "basic"
                return True
        return False

    def _digest(self, method: str, path: str, user: str, password: str) -> str:
        """RFC 7616 digest (MD5 or SHA-256, qop auth)."""
        with self._lock:
            c = dict(self._challenge or {})
            self._nc += 1
            nc = f"{self._nc:08x}"
        algorithm = c.get("algorithm", "MD5").upper()
        h = {"MD5": hashlib.md5, "SHA-256": hashlib.sha256}.get(algorithm, hashlib.md5)

        def digest(text: str) -> str:
            return h(text.encode()).hexdigest()

        realm, nonce = c.get("realm", ""), c.get("nonce", "")
        ha1 = digest(f"{user}:{realm}:{password}")
        ha2 = digest(f"{method}:{path}")
        cnonce = secrets.token_hex(8)
        fields = [
            f'username="{user}"',
            f'realm="{realm}"',
            f'nonce="{nonce}"',
            f'uri="{path}"',
            f"algorithm={algorithm}",
        ]
        if "auth" in c.get("qop", "").split(","):
            response = digest(f"{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}")
            fields += ["qop=auth", f"nc={nc}", f'cnonce="{cnonce}"']
        else:
            response = digest(f"{ha1}:{nonce}:{ha2}")
        fields.append(f'response="{response}"')
        if "opaque" in c:
            fields.append(f'opaque="{c["opaque"]}"')
        return "Digest " + ", ".join(fields)


def store_text(body: bytes, limit: int = 160) -> str:
    """A store's error body as one short line: its first line of words (an HTML page's tags
    left out), cut at `limit` characters. Never the rest: Virtuoso's message goes on with
    the whole query it was sent, benchgraph's rewriting of it included."""
    text = body[: 64 * 1024].decode("utf-8", "replace")
    if text.lstrip()[:1] == "<" and "<html" in text[:300].lower():  # a page: its words only
        text = re.sub(r"<[^>]+>", "\n", text)
    line = next((" ".join(part.split()) for part in text.splitlines() if part.strip()), "")
    return line[:limit] + ("..." if len(line) > limit else "")


def error_from(
    response: Response, what: str, account: Account = PUSH_ACCOUNT
) -> StoreError | StoreUnavailable:
    """The error for a store's non-2xx answer to `what` (asked with `account`)."""
    if response.status in RETRY_STATUS:
        return StoreUnavailable(
            f"{what}: the store answered {response.status}: {store_text(response.body)}"
        )
    if response.status in (401, 403):
        hint = (
            f" ({account.hint()})"
            if not account.given()
            else " (the credentials in the environment were refused)"
        )
        return StoreError(
            response.status, f"{what}: the store refused access ({response.status}){hint}"
        )
    return StoreError(
        response.status,
        f"{what}: the store answered {response.status}: {store_text(response.body)}",
    )
