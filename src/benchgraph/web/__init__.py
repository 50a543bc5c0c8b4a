"""The web app: a SPARQL endpoint, Linked Data pages and a query page over the built dataset.

`create_app(config)` takes the defaults of the settings table (benchgraph/settings.py), then
its `BENCHGRAPH_*` environment variables, then `config`. SNAPSHOT_FILE names the pointer
file of `benchgraph serve` (see serving/snapshots.py): the app serves the snapshot it names
and swaps in each new one. Else STORE_PATH names a prepared store (benchgraph.serving
prepares one); without either the app builds DATA_DIR itself, as `benchgraph serve` would.

    server.py       the server process: gunicorn, with the app this module makes
    httpworker.py   gunicorn's worker: request heads read without a thread
    framing.py      where an HTTP/1 request ends (head, body), from the bytes read so far
    outbox.py       a response's writes that never wait on a client that does not read
    requestline.py  gunicorn's request line read up to the limit, in linear time
    limits.py       what a request may be (path, query string, body), before Flask routes it
    endpoint.py     the SPARQL endpoint's one request reader, query run and response writer
    fastpath.py     routes the SPARQL endpoint's common requests below Flask (to endpoint.py)
    sparql.py       the SPARQL 1.1 Protocol endpoint at /sparql, its Service Description
    negotiation.py  which serialization answers a request (query form, Accept)
    querypool.py    the query workers, with a time and memory limit per query, in two lanes
    poolerrors.py   what a query the pool gave no answer is answered (timeout, busy, ...)
    queryworker.py  one query worker process: the store read-only, one query at a time
    memory.py       the memory the machine grants and a worker holds
    site.py         a server process's state: the snapshot it serves, swapped on reload
    hooks.py        every request and response: CORS, security headers, 304, gzip
    errors.py       the one shape of every error answered
    publicbase.py   the name the server gives itself, and the Host headers it answers
    ui.py           the query page at /
    browse.py       /id/ lists and /search, without SPARQL (catalogue.py: what they read)
    explore.py      the results explorer at /explore (results.py: its rows, made once per
                    snapshot, filtered, faceted and sorted)
    ld.py           Linked Data: record and ontology IRIs resolve here (summary.py: the
                    words a record page leads with, runsummary.py a run's, pagefacts.py
                    what they are made of; performance.py: a part's or model's best runs;
                    terms.py: RDF terms as a page shows them)
    figures.py      numbers for people: 4 significant digits with their unit
    dumps.py        the whole dataset, one file per format, written once per snapshot
    ops.py          /healthz and /metrics (metrics.py: the counts)

May import: serving, query, links, pipeline and everything below them; not cli.
"""

from __future__ import annotations

import atexit
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import settings

if TYPE_CHECKING:
    from flask import Flask

    from .querypool import PoolSettings
    from .site import Snapshot

__all__ = ["create_app"]

# The app's config before the environment: every row of the settings table the app or the
# query checks read (benchgraph/settings.py holds each one's default and meaning).
DEFAULTS: dict[str, Any] = settings.app_defaults()
CSP = settings.CSP


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The Flask app, with its query workers started."""
    # Imported here, not above: query worker processes import this package and need no Flask.
    from flask import Flask

    from ..query.saved import saved_queries
    from . import browse, dumps, errors, explore, hooks, ld, limits, ops, publicbase, sparql, ui
    from .fastpath import FastSparql
    from .querypool import QueryPool
    from .site import Site, Snapshot

    app = Flask(__name__)
    app.config.from_mapping(DEFAULTS)
    app.config.from_mapping(settings.from_environ())
    if config:
        app.config.from_mapping(config)
    c = app.config
    # The query checks' settings config gives (serve's --max-query-parts): this process's,
    # and its query workers' (_pool_settings). The environment's are read where they apply.
    settings.configure(_query_settings(config or {}))
    publicbase.configure(c)
    queries = Path(c["QUERIES_DIR"]) if c["QUERIES_DIR"] else None
    if c["STORE_URL"]:
        snapshot = _remote_snapshot(c)
        if c["STORE_WARNING"]:
            app.logger.warning("%s", c["STORE_WARNING"])
    elif c["SNAPSHOT_FILE"]:
        pointer = Path(c["SNAPSHOT_FILE"])
        snapshot = _open_current(pointer, c)
    else:
        if not c["STORE_PATH"]:
            _build_into(c)
        store_path = Path(c["STORE_PATH"])
        snapshot = Snapshot(
            store_path=store_path,
            key=c["DATASET_KEY"] or _fallback_key(store_path),
            pool=QueryPool(_pool_settings(c, store_path)),
            dump_dir=Path(c["DUMP_DIR"] or store_path.parent / "dumps"),
            invalid_records=list(c["INVALID_RECORDS"]),
            problem_counts=dict(c["PROBLEM_COUNTS"]),
            left_out=dict(c["LEFT_OUT"]),
        )
    site = Site(
        snapshot,
        saved_queries(queries),
        link_limit=int(c["LINK_LIMIT"]),
        load_examples=lambda: saved_queries(queries),
        on_open=[explore.make_ahead, *([dumps.write_ahead] if _flag(c["DUMPS_AHEAD"]) else [])],
    )
    if c["SNAPSHOT_FILE"] and not c["STORE_URL"]:
        site.follow(pointer, lambda info: _open_snapshot(info, c))
    app.extensions["benchgraph"] = site
    atexit.register(site.close)
    app.before_request(site.pin)
    app.teardown_request(site.unpin)
    for blueprint in (sparql.bp, ld.bp, browse.bp, explore.bp, ui.bp, dumps.bp, ops.bp):
        app.register_blueprint(blueprint)
    errors.register(app)
    hooks.register(app)
    # The WSGI stack: the size limits first, then plain queries answered below Flask
    # (fastpath.py), then Flask. Composed here, not in hooks.py, which fastpath.py reads.
    app.wsgi_app = limits.RequestLimits(
        FastSparql(app, app.wsgi_app), limits.Limits.from_config(app.config)
    )
    return app


def _remote_snapshot(c: Mapping[str, Any]) -> Snapshot:
    """The remote store as the served snapshot: its key the pushed build's (else one made
    of the URL), its dumps written from what it holds."""
    from .. import scratch
    from ..query.inspect import check_store_query
    from ..store.http import CannotRun
    from ..store.remote import RemoteStore
    from .querypool import QueryPool
    from .site import Snapshot

    url = c["STORE_URL"]
    try:
        key = RemoteStore(url, gate=check_store_query).dataset_key()
    except CannotRun:  # down now: its queries answer 503 until it is back
        key = None
    key = key or hashlib.blake2b(url.encode(), digest_size=16).hexdigest()
    # no DUMP_DIR: a folder of its own, deleted when the app shuts (Snapshot.close)
    own = None if c["DUMP_DIR"] else scratch.make("dumps")
    return Snapshot(
        store_path=Path(),
        key=key,
        pool=QueryPool(_pool_settings(c, url)),
        dump_dir=own or Path(c["DUMP_DIR"]),
        url=url,
        own_folder=own,
    )


def _build_into(config: dict) -> None:
    """Build DATA_DIR (leaving out invalid records) and serve a private copy of it."""
    from ..pipeline.steps import build
    from ..serving.prepare import prepare

    result = build(Path(config["DATA_DIR"]), skip_invalid=True)
    served = prepare(result, [])
    atexit.register(served.cleanup)
    config.update(served.app_config())


def _pool_settings(c: Mapping[str, Any], store_path: Path | str) -> PoolSettings:
    """The query pool's settings for the store at `store_path`."""
    from .querypool import PoolSettings, default_memory_mb, long_lane, spares

    allow = c["ALLOW_SERVICE"]
    allow = [allow] if isinstance(allow, str) else list(allow)  # one IRI from the environment
    size = int(c["QUERY_WORKERS"])
    memory_mb = c["QUERY_MEMORY_MB"]
    return PoolSettings(
        store=str(store_path),
        size=size,
        timeout=float(c["QUERY_TIMEOUT"]),
        max_bytes=int(c["MAX_RESULT_BYTES"]),
        allow_service=tuple(allow),
        long_size=long_lane(size),
        spare=spares(size),
        memory_mb=default_memory_mb(1, size) if memory_mb in (None, "") else int(memory_mb),
        query_settings=settings.configured(),
    )


def _query_settings(c: Mapping[str, Any]) -> dict[str, Any]:
    """The query checks' settings `c` gives (serve's --max-query-parts)."""
    return {
        s.name: c[s.name]
        for s in settings.SETTINGS.values()
        if s.reader == settings.QUERY and c.get(s.name) is not None
    }


def _open_snapshot(info: dict[str, Any], c: Mapping[str, Any]) -> Snapshot:
    """A snapshot the pointer names, held open (see snapshots.hold), its workers started."""
    from ..serving import snapshots
    from .querypool import QueryPool
    from .site import Snapshot

    store_path = Path(info["store"])
    held = snapshots.hold(store_path.parent)
    try:
        pool = QueryPool(_pool_settings(c, store_path))
    except BaseException:
        held.close()
        raise
    return Snapshot(
        store_path=store_path,
        key=info["key"],
        pool=pool,
        dump_dir=Path(info["dump_dir"]),
        invalid_records=info["invalid_records"],
        problem_counts=info["problem_counts"],
        left_out=info["left_out"],
        id=info["id"],
        built_at=info["built_at"],
        records=info["records"],
        held=held,
    )


def _open_current(pointer: Path, c: Mapping[str, Any]) -> Snapshot:
    """The snapshot the pointer names now (read again if it was swept meanwhile)."""
    from ..serving import snapshots

    for _attempt in range(20):
        try:
            return _open_snapshot(snapshots.read(pointer)["snapshot"], c)
        except snapshots.SnapshotGone:
            continue
    raise RuntimeError(f"{pointer}: its snapshots keep vanishing")


def _flag(value: object) -> bool:
    """A setting's truth, also as the environment spells it (BENCHGRAPH_DUMPS_AHEAD=0)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false", "no", "off")
    return bool(value)


def _fallback_key(store_path: Path) -> str:
    """Without a dataset key, the store files' names and times stand for the data."""
    h = hashlib.blake2b(digest_size=16)
    for path in sorted(store_path.iterdir()):
        h.update(f"{path.name}:{path.stat().st_mtime_ns}".encode())
    return h.hexdigest()
