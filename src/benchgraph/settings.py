"""Every setting of benchgraph, in one table (datasette's SETTINGS is the model): its name,
the environment variable that sets it, `serve`'s flag for it, its default, type and meaning.

The environment is read here and nowhere else. The web app takes its config from the table
(`app_defaults`, then `from_environ`, then what `serve` passes); the query checks, the build
and the store client ask `raw` for theirs. A process told its settings by its parent (a
query worker, by the pool) gets them with `configure`, which `raw` prefers to the
environment. `benchgraph serve --help-settings` prints the table (`text`), and the README's
settings section is the table too (`markdown`; tests/test_settings.py holds both to it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "BENCHGRAPH_"

# Who reads a setting: the web app's config (every server process), the query checks (the
# server processes and their query workers), the build, or the store client.
APP, QUERY, BUILD, STORE = "app", "query", "build", "store"
READERS = {
    APP: "the web app (benchgraph serve)",
    QUERY: "the query checks (serve, query, export)",
    BUILD: "the build",
    STORE: "remote stores (credentials: read from the environment only)",
}

# What a page of this server may run and load: its own scripts, styles and images, and requests
# to itself; no inline script, no eval, no plugins, no framing, no <base>, and forms submit only
# here. The two hashes are the <style> elements YASGUI's table column resizer adds (the table
# layout, and the cursor while a column is dragged); tests/web check them against the bundle.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' "
    "'sha256-zCK2EVMoPc04mRF/g5CotUvxbJPWS+8V0b+s9ptqQIk=' "
    "'sha256-c0O6TmFAkgpNbHxKAa1BrveWHHopjEtC47i0PzMudxg='; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "object-src 'none'"
)


@dataclass(frozen=True)
class Setting:
    """One setting: `flag` is serve's option for it, in `unit`s (the setting is the flag's
    value times `scale`); `flag_default`, when given, is serve's default, which then
    stands in for the environment."""

    name: str
    default: Any
    type: str  # as a person reads it: int, float, str, list, bool, path, size
    meaning: str
    reader: str = APP
    flag: str | None = None
    unit: str | None = None
    scale: float = 1
    flag_default: Any = None
    shown: str | None = None  # the default in words, where it is computed

    @property
    def env(self) -> str:
        return PREFIX + self.name


def _s(*args: Any, **kwargs: Any) -> Setting:
    return Setting(*args, **kwargs)


MIB = 1024 * 1024

SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        # -- what is served (serve sets these; create_app(config) takes them too)
        _s("STORE_PATH", None, "path", "a pyoxigraph store directory, opened read-only"),
        _s("STORE_URL", None, "str", "else a remote SPARQL store's query URL (what push wrote)"),
        _s("STORE_WARNING", None, "str", "what serve could not check of the store's account"),
        _s("DATASET_KEY", "", "str", "a hash of the served data: the base of every ETag"),
        _s("DATA_DIR", "data", "path", "the records built when STORE_PATH is not given"),
        _s("INVALID_RECORDS", [], "list", "record files left out of the build (set by serve)"),
        _s("LEFT_OUT", {}, "json", "every record file left out of the build, and why"),
        _s("SNAPSHOT_FILE", None, "path", "the pointer file naming the snapshot to serve"),
        _s("PROBLEM_COUNTS", {}, "json", "problems of the build by severity (set by serve)"),
        _s("QUERIES_DIR", None, "path", "saved example queries; default: the shipped ones"),
        _s("DUMP_DIR", None, "path", "where dumps are written; default: beside the store"),
        _s("LINK_LIMIT", 200, "int", "incoming links listed on a record page"),
        _s("DUMPS_AHEAD", True, "bool", "write a snapshot's dumps as it opens (0: on demand)"),
        # -- queries
        _s(
            "QUERY_TIMEOUT",
            30.0,
            "float",
            "stop a query after this long",
            flag="--timeout",
            unit="SECONDS",
        ),
        _s(
            "QUERY_WORKERS",
            max(4, os.cpu_count() or 1),
            "int",
            "queries that can run at once, per server process",
            flag="--query-workers",
            unit="N",
            shown="the machine's cores, at least 4",
        ),
        _s(
            "QUERY_MEMORY_MB",
            None,
            "int",
            "stop a query whose worker holds more memory than this; 0 for no limit",
            flag="--query-memory-mb",
            unit="MB",
            shown="half the machine's memory, physical or cgroup, over server processes x "
            "(query workers + long-lane workers)",
        ),
        _s(
            "MAX_RESULT_BYTES",
            64 * MIB,
            "int",
            "refuse results bigger than this",
            flag="--max-result-mb",
            unit="MB",
            scale=MIB,
        ),
        _s(
            "ALLOW_SERVICE",
            [],
            "list",
            "a SERVICE endpoint queries may call (federation is off otherwise); repeatable",
            flag="--allow-service",
            unit="ENDPOINT",
        ),
        _s("QUERY_MAX_DEPTH", 256, "int", "refuse (400) a query nested deeper", QUERY),
        _s(
            "QUERY_MAX_OPERATORS",
            50_000,
            "int",
            "refuse (400) a query with more operators and separators",
            QUERY,
        ),
        _s(
            "QUERY_MAX_PARTS",
            400,
            "int",
            "refuse (400) a query with more parts than this: patterns, groups, OPTIONALs, "
            "UNION branches, FILTERs, BINDs, path steps, operators, function calls (what "
            "store servers survive, with room)",
            QUERY,
            flag="--max-query-parts",
            unit="N",
        ),
        _s(
            "QUERY_MAX_TOKENS",
            5_000,
            "int",
            "refuse (400) a text rdflib must read with more tokens",
            QUERY,
        ),
        # -- requests (web/limits.py, and under gunicorn web/httpworker.py)
        _s(
            "MAX_CONTENT_LENGTH",
            4 * MIB,
            "int",
            "refuse (413) a request body longer than this, whether sent with a length or in chunks",
            flag="--max-body-mb",
            unit="MB",
            scale=MIB,
        ),
        _s(
            "MAX_PATH_BYTES",
            8 * 1024,
            "int",
            "refuse (414) a longer URL path",
            flag="--max-path-kb",
            unit="KB",
            scale=1024,
        ),
        _s(
            "MAX_QUERY_STRING_BYTES",
            256 * 1024,
            "int",
            "refuse (414) a longer URL query string, as sent (a GET carries the SPARQL query "
            "there, URL-encoded)",
            flag="--max-query-string-kb",
            unit="KB",
            scale=1024,
        ),
        _s(
            "HEADER_TIMEOUT",
            10.0,
            "float",
            "answer 408 and close a connection whose request head is not all sent this long "
            "after it opened, however it trickles in",
            flag="--header-timeout",
            unit="SECONDS",
        ),
        _s(
            "BODY_TIMEOUT",
            10.0,
            "float",
            "answer 408 to a body not all sent this long after its head, plus a second for "
            "every MIN_RATE bytes of its length",
            flag="--body-timeout",
            unit="SECONDS",
        ),
        _s(
            "WRITE_TIMEOUT",
            10.0,
            "float",
            "drop a client that has not taken its answer this long after it was made, plus "
            "a second for every MIN_RATE bytes of it",
            flag="--write-timeout",
            unit="SECONDS",
        ),
        _s(
            "MIN_RATE",
            64 * 1024,
            "int",
            "bytes a second a body or an answer must move at, past its timeout",
            flag="--min-rate",
            unit="BYTES",
        ),
        _s(
            "WRITE_BACKLOG",
            512 * MIB,
            "int",
            "bytes all of a process's unsent answers may hold; past it a thread writing "
            "waits for room",
            flag="--write-backlog-mb",
            unit="MB",
            scale=MIB,
        ),
        _s(
            "MAX_CONNECTIONS_PER_CLIENT",
            32,
            "int",
            "answer 429 and close a client address's connection past this many open at "
            "once; 0 for no limit. Behind a proxy every client has the proxy's address: "
            "raise it or turn it off there",
            flag="--max-connections-per-client",
            unit="N",
        ),
        # -- responses, and the name the server gives itself (web/publicbase.py)
        _s("CONTENT_SECURITY_POLICY", CSP, "str", "sent on every response; empty: none"),
        _s(
            "REFERRER_POLICY", "same-origin", "str", "other sites are never sent this server's URLs"
        ),
        _s(
            "PUBLIC_BASE",
            None,
            "str",
            "the origin clients reach the server at (behind a proxy, the proxy's), e.g. "
            "https://benchgraph.example.org: the service description, the VoID and the "
            "query page name it",
            flag="--public-base",
            unit="URL",
            shown="the address bound",
        ),
        _s(
            "ALLOWED_HOSTS",
            [],
            "list",
            "a Host name answered besides the public base's and the bound address (and "
            "localhost on a loopback address); others are a 400; repeatable (the "
            "environment: one comma-separated string)",
            flag="--allowed-host",
            unit="NAME",
        ),
        _s(
            "BIND_HOST",
            None,
            "str",
            "the address serve listens on",
            flag="--host",
            unit="HOST",
            flag_default="127.0.0.1",
        ),
        _s(
            "BIND_PORT",
            None,
            "int",
            "the port serve listens on",
            flag="--port",
            unit="PORT",
            flag_default=5000,
        ),
        # -- the build
        _s(
            "CACHE",
            None,
            "path",
            "where builds are cached (default: .benchgraph/ beside the data folder)",
            BUILD,
        ),
        _s(
            "MAX_RECORD_BYTES",
            8 * MIB,
            "size",
            "the largest record file read (bytes, or "
            "with KiB, MiB or GiB); a bigger one is that record's problem",
            BUILD,
        ),
        _s(
            "BUILDER_MAX_MB",
            2048,
            "int",
            "serve --watch's builder ends after a rebuild that took its resident memory past "
            "this, to give it back (the next rebuild starts a new one)",
            BUILD,
        ),
        # -- remote stores: push's account, and the read-only one of serve, query, export
        _s("STORE_USER", None, "str", "push's user at the store (basic or digest)", STORE),
        _s("STORE_PASSWORD", None, "str", "push's password", STORE),
        _s("STORE_TOKEN", None, "str", "else push's bearer token", STORE),
        _s(
            "SERVE_STORE_USER",
            None,
            "str",
            "the read-only user of serve, query and export with --store",
            STORE,
        ),
        _s("SERVE_STORE_PASSWORD", None, "str", "its password", STORE),
        _s("SERVE_STORE_TOKEN", None, "str", "else its bearer token", STORE),
    )
}

BY_ENV = {s.env: s for s in SETTINGS.values()}

_configured: dict[str, str] = {}


def app_defaults() -> dict[str, Any]:
    """The web app's config before the environment. The query settings are left out: given
    (by the environment or serve), they are passed on; else their readers' defaults apply."""
    return {s.name: _copy(s.default) for s in SETTINGS.values() if s.reader == APP}


def from_environ(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The app and query settings the environment sets, each read as JSON where it is JSON
    (BENCHGRAPH_QUERY_TIMEOUT=5 is 5, BENCHGRAPH_DUMPS_AHEAD=false is False), else as text:
    what Flask's from_prefixed_env reads, but only the table's names."""
    environ = os.environ if environ is None else environ
    found: dict[str, Any] = {}
    for s in SETTINGS.values():
        if s.reader in (APP, QUERY) and s.env in environ:
            try:
                found[s.name] = json.loads(environ[s.env])
            except ValueError:
                found[s.name] = environ[s.env]
    return found


def value(name: str, given: Mapping[str, Any]) -> Any:
    """A setting as the app will see it: `given` (serve's flags), else the environment's,
    else the table's default."""
    if name in given:
        return given[name]
    return from_environ().get(name, SETTINGS[name].default)


def raw(name: str) -> str | None:
    """A setting as given to this process (`configure`), else as the environment spells it,
    else None (its reader applies the default)."""
    setting = SETTINGS[name]  # a KeyError: a name not in the table
    if name in _configured:
        return _configured[name]
    return os.environ.get(setting.env)


def raw_env(env: str) -> str | None:
    """`raw` by environment name (the store accounts name theirs so)."""
    return raw(BY_ENV[env].name)


def configure(values: Mapping[str, Any]) -> None:
    """This process's settings, as its parent gave them; replaces what was configured."""
    _configured.clear()
    for name, value in values.items():
        SETTINGS[name]  # noqa: B018 - a KeyError: a name not in the table
        if value is not None:
            _configured[name] = str(value)


def configured() -> dict[str, str]:
    """What `configure` gave, to pass on to a child process."""
    return dict(_configured)


def _copy(value: Any) -> Any:
    return type(value)(value) if isinstance(value, (list, dict)) else value


def shown_default(s: Setting) -> str:
    """A setting's default as its flag (or else the environment) spells it."""
    if s.shown:
        return s.shown
    value = s.flag_default if s.flag_default is not None else s.default
    if value is None or value in ([], {}, ""):
        return "none"
    if s.name == "CONTENT_SECURITY_POLICY":
        return "this server's own sources only"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and s.scale != 1:
        return f"{value / s.scale:g} {s.unit}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}" if value >= 10_000 else str(value)
    return str(value)


def text() -> str:
    """The table for a terminal: `benchgraph serve --help-settings`."""
    lines = ["Settings (environment variable, serve's flag, default):", ""]
    for reader, title in READERS.items():
        lines.append(f"{title}:")
        for s in SETTINGS.values():
            if s.reader != reader:
                continue
            flag = f"  {s.flag} {s.unit}" if s.flag else ""
            lines.append(f"  {s.env}{flag}  (default: {shown_default(s)})")
            lines.append(f"      {s.meaning}")
        lines.append("")
    return "\n".join(lines)


def markdown() -> str:
    """The table as the README shows it."""
    rows = [
        "| environment variable | `serve` flag | default | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for s in SETTINGS.values():
        flag = f"`{s.flag} {s.unit}`" if s.flag else ""
        meaning = f"{s.meaning} ({s.type}; read by {READERS[s.reader].split(' (')[0]})"
        rows.append(f"| `{s.env}` | {flag} | {shown_default(s)} | {meaning} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # python -m benchgraph.settings: the README's table
    print(markdown(), end="")
