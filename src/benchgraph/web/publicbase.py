"""How the server names itself, and which Host headers it answers.

Wherever the server names itself (the service description's endpoint, the VoID, the query
page's config, a query's base IRI) it says its public base (PUBLIC_BASE: `serve
--public-base`, else $BENCHGRAPH_PUBLIC_BASE, else the address it binds), never the Host a
client sent. A request whose Host is not on the allow-list (ALLOWED_HOSTS, the public base's
host, the bound address, and `localhost` for a server on a loopback or every address) is a 400
"host not allowed". The check is Flask's own TRUSTED_HOSTS (werkzeug's `get_host`, which
ignores the port), set here; fastpath.py calls the same `host_allowed` before it answers.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from werkzeug.exceptions import SecurityError
from werkzeug.wsgi import get_host

from ..errors import BenchgraphError

DEFAULT = "http://localhost"  # an app made without a base or an address (Flask's test client)
WILDCARDS = ("", "0.0.0.0", "::")


class BadPublicBase(BenchgraphError, ValueError):
    """A PUBLIC_BASE that is not an http(s) origin."""

    code = "bad-public-base"


def normalize(base: str) -> str:
    """`scheme://host[:port]`, lowercased, from a public base as given; a path, query or
    fragment is refused (the server's routes start at the root of its base)."""
    parts = urlsplit(base.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise BadPublicBase(
            f"public base {base!r}: give an http(s) URL such as https://benchgraph.example.org"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise BadPublicBase(
            f"public base {base!r}: give the origin only (scheme, host, "
            "port), with no path, query or user; the server's paths start "
            "at its root"
        )
    try:
        parts.port  # noqa: B018 - raises for a port out of range
    except ValueError as exc:
        raise BadPublicBase(f"public base {base!r}: {exc}") from None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def bound_base(host: str, port: int) -> str:
    """The public base of a server bound to `host`:`port` and given none: that address, or
    this machine's name for a server on every address."""
    if host in WILDCARDS:
        host = socket.gethostname().lower()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _hosts(value: Any) -> list[str]:
    """A list of hosts from a list, or from one string of them (an environment variable)."""
    if not value:
        return []
    if isinstance(value, str):
        return [h for h in value.replace(",", " ").split() if h]
    return [str(h) for h in value]


def allowed_hosts(base: str, allowed: Iterable[str], bind_host: str | None) -> list[str]:
    """The Host names the server answers (werkzeug compares names; the port is ignored)."""
    names = [urlsplit(base).hostname or "", *allowed]
    if bind_host is not None:
        names.append(bind_host)
        if bind_host in WILDCARDS or _loopback(bind_host):
            names += ["localhost", "127.0.0.1"]
        if bind_host in WILDCARDS:
            names.append(socket.gethostname())
    out: list[str] = []
    for name in names:
        name = name.strip().lower()
        if name and name not in WILDCARDS and name not in out:
            out.append(name)
    return out


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def configure(config: dict) -> None:
    """Set PUBLIC_BASE (normalized) and TRUSTED_HOSTS from the app's settings, and let pages
    connect to the public base: the query page sends its queries there, and a page loaded
    under another allowed name (localhost for 127.0.0.1) was blocked by `connect-src 'self'`."""
    bind_host, bind_port = config.get("BIND_HOST"), config.get("BIND_PORT")
    base = config.get("PUBLIC_BASE") or (
        bound_base(bind_host, int(bind_port)) if bind_host is not None and bind_port else DEFAULT
    )
    config["PUBLIC_BASE"] = normalize(base)
    config["TRUSTED_HOSTS"] = allowed_hosts(
        config["PUBLIC_BASE"], _hosts(config.get("ALLOWED_HOSTS")), bind_host
    )
    policy = config.get("CONTENT_SECURITY_POLICY") or ""
    if "connect-src 'self'" in policy and config["PUBLIC_BASE"] not in policy:
        config["CONTENT_SECURITY_POLICY"] = policy.replace(
            "connect-src 'self'", f"connect-src 'self' {config['PUBLIC_BASE']}", 1
        )


def url(config: Any, path: str) -> str:
    """The public URL of `path` (which starts with "/")."""
    return config["PUBLIC_BASE"] + path


def host_allowed(environ: dict, config: Any) -> bool:
    """Whether Flask would take this request's Host (as its create_url_adapter checks it)."""
    try:
        get_host(environ, config["TRUSTED_HOSTS"])
    except SecurityError:
        return False
    return True
