"""`benchgraph serve`: build the dataset, then serve it with gunicorn (never Flask's dev server).

The server runs on a private copy of the cached build (a RocksDB checkpoint: hard links, cheap),
into which `--with` files are loaded as extra named graphs; the cache itself is never written.
Each copy is a snapshot in the serving root (see snapshots.py): on SIGHUP, and with --watch on
every change, this process rebuilds (reload.py) and publishes a new snapshot, which the server
processes swap in without a restart.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import CannotRun
from ..query.text import DEFAULT_MAX_PARTS, MAX_PARTS_ENV
from ..serving import snapshots
from ..serving.prepare import prepare
from ..serving.process import run_server_process
from ..serving.reload import SETTLE, Job, Reloader
from ..serving.watch import Watcher
from .common import built
from .options import command, data_option, with_options


def add(subparsers: Any) -> None:
    """Add `serve` to benchgraph's argparse subcommands."""
    p = command(
        subparsers,
        "serve",
        "Serve the dataset: SPARQL endpoint at /sparql, query page at /, Linked Data "
        "at /id/<kind>/<id>, dumps, /healthz, /metrics.",
        "benchgraph serve --data data --port 5000 --with gpus.ttl=https://example.org/gpus",
    )
    data_option(p)
    p.add_argument(
        "--store",
        metavar="QUERY_URL",
        help="serve what `benchgraph push` wrote to this SPARQL store server, "
        "instead of building --data (no --with, --watch)",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    p.add_argument("--port", type=int, default=5000, help="port (default: %(default)s)")
    p.add_argument(
        "--public-base",
        metavar="URL",
        default=None,
        help="the origin clients reach the server at (behind a proxy, the "
        "proxy's), e.g. https://benchgraph.example.org: the service "
        "description, the VoID and the query page name it (default: "
        "$BENCHGRAPH_PUBLIC_BASE, else the address bound)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=None,
        metavar="NAME",
        help="a Host name answered besides the public base's and the bound "
        "address (and localhost on a loopback address); others are a 400; "
        "repeatable (default: $BENCHGRAPH_ALLOWED_HOSTS)",
    )
    with_options(p)
    p.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="stop a query after this long (default: %(default)g)",
    )
    p.add_argument(
        "--query-workers",
        type=int,
        default=max(4, os.cpu_count() or 1),
        metavar="N",
        help="queries that can run at once, per server process (default: %(default)s)",
    )
    p.add_argument(
        "--query-memory-mb",
        type=int,
        default=None,
        metavar="MB",
        help="stop a query whose worker holds more memory than this; 0 for no "
        "limit (default: half the machine's memory, physical or cgroup, over "
        "workers x (query workers + long-lane workers))",
    )
    p.add_argument(
        "--max-result-mb",
        type=float,
        default=64,
        metavar="MB",
        help="refuse results bigger than this (default: %(default)g)",
    )
    p.add_argument(
        "--max-query-parts",
        type=int,
        default=None,
        metavar="N",
        help="refuse (400) a query with more parts than this: patterns, groups, "
        "OPTIONALs, UNION branches, FILTERs, BINDs, path steps, operators, "
        "function calls (default: $BENCHGRAPH_QUERY_MAX_PARTS, else "
        f"{DEFAULT_MAX_PARTS}: what store servers survive, with room)",
    )
    _limit_options(p)
    p.add_argument(
        "--allow-service",
        action="append",
        default=[],
        metavar="ENDPOINT",
        help="a SERVICE endpoint queries may call (federation is off otherwise); repeatable",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="gunicorn server processes (default: %(default)s)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=16,
        metavar="N",
        help="requests handled at once per server process (default: %(default)s)",
    )
    p.add_argument("--access-log", action="store_true", help="log every request to stderr")
    p.add_argument(
        "--watch",
        action="store_true",
        help="rebuild when a record, a --with file, a saved query, the ontology or "
        "the shapes change, and serve the new build without a restart (SIGHUP "
        "rebuilds too, with or without --watch)",
    )
    p.add_argument(
        "--settle",
        type=float,
        default=SETTLE,
        metavar="SECONDS",
        help="with --watch, rebuild once no file has changed for this long, so a "
        "checkout or a save is one rebuild (default: %(default)g)",
    )
    p.add_argument(
        "--watch-poll",
        action="store_true",
        help="with --watch, look for changes by polling, for file systems that "
        "report none (some network and container mounts)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build, prepare the serving snapshot, run gunicorn until interrupted; rebuild and swap
    in a new snapshot on SIGHUP, and with --watch on every change."""
    if args.max_query_parts is not None:
        if args.max_query_parts < 1:
            raise CannotRun(f"--max-query-parts {args.max_query_parts}: give at least 1")
        # read where queries are checked: the query workers, which inherit the environment
        os.environ[MAX_PARTS_ENV] = str(args.max_query_parts)
    if args.store:
        return _serve_store(args)
    root = Path(tempfile.mkdtemp(prefix="benchgraph-serve-"))
    watcher = None
    try:
        queries = _queries_dir()
        served = prepare(built(args), args.extra, root, queries, args.reason_with, optimize=True)
        if served.left_out:
            print(
                f"benchgraph: {snapshots.left_out_summary(served.left_out)['text']}",
                file=sys.stderr,
            )
        reloader = Reloader(
            root,
            Job(
                str(args.data),
                str(root),
                [(str(p), iri) for p, iri in args.extra],
                str(queries) if queries else None,
                args.reason_with,
            ),
            served.pointer(),
            settle=args.settle,
        )
        if args.watch:
            watcher = _watch(args, queries, reloader)
            reloader.watching = watcher.watching
            reloader.publish()
        host = f"[{args.host}]" if ":" in args.host else args.host
        settings = {
            "app": served.app_config()
            | {
                "SNAPSHOT_FILE": str(root / snapshots.POINTER),
                "QUERY_TIMEOUT": args.timeout,
                "QUERY_WORKERS": args.query_workers,
                "MAX_RESULT_BYTES": int(args.max_result_mb * 1024 * 1024),
                **_limit_config(args),
                **_host_config(args),
                "ALLOW_SERVICE": list(args.allow_service),
                "QUERY_MEMORY_MB": _query_memory_mb(args),
            },
            "gunicorn": _gunicorn_options(args, host),
        }
        path = root / "serve.json"
        path.write_text(json.dumps(settings), encoding="utf-8")
        print(
            f"benchgraph: serving {args.data} at http://{host}:{args.port}/ "
            "(SPARQL at /sparql)" + ("; watching for changes" if watcher else ""),
            file=sys.stderr,
        )
        return run_server_process(path, reloader)
    finally:
        if watcher is not None:
            watcher.stop()
        shutil.rmtree(root, ignore_errors=True)


class _NoReloads:
    """A remote store is rebuilt by pushes, not by this process."""

    def tick(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def hangup(self) -> None:
        pass


def _serve_store(args: argparse.Namespace) -> int:
    """Serve a remote store: the same app, its query workers asking the store."""
    from ..store.http import check_url

    check_url(args.store, "--store")
    warning = _check_read_only(args.store)
    root = Path(tempfile.mkdtemp(prefix="benchgraph-serve-"))
    try:
        host = f"[{args.host}]" if ":" in args.host else args.host
        settings = {
            "app": {
                "STORE_URL": args.store,
                "DUMP_DIR": str(root / "dumps"),
                "STORE_WARNING": warning,
                "QUERY_TIMEOUT": args.timeout,
                "QUERY_WORKERS": args.query_workers,
                "MAX_RESULT_BYTES": int(args.max_result_mb * 1024 * 1024),
                **_limit_config(args),
                **_host_config(args),
                "ALLOW_SERVICE": list(args.allow_service),
                "QUERY_MEMORY_MB": _query_memory_mb(args),
            },
            "gunicorn": _gunicorn_options(args, host),
        }
        path = root / "serve.json"
        path.write_text(json.dumps(settings), encoding="utf-8")
        print(
            f"benchgraph: serving the store {args.store} at http://{host}:{args.port}/ "
            "(SPARQL at /sparql)",
            file=sys.stderr,
        )
        return run_server_process(path, _NoReloads())
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _check_read_only(url: str) -> str | None:
    """Refuse (CannotRun) to serve a store with an account that can write to it, where the
    store says so without anything written (RemoteStore.can_write); where it cannot say,
    the warning to print and log (None: the account is known to be read-only)."""
    from ..store.http import SERVE_ACCOUNT, CannotRun
    from ..store.remote import RemoteStore

    store = RemoteStore(url, account=SERVE_ACCOUNT)
    try:
        writes, how = store.can_write()
    except CannotRun as exc:  # down now: its queries answer 503 until it is back
        writes, how = None, f"the store could not be asked ({exc})"
    finally:
        store.close()
    if writes:
        raise CannotRun(
            f"--store {url}: the serving account can write to the store ({how}). Serve with "
            f"an account that can only read ({SERVE_ACCOUNT.user} and "
            f"{SERVE_ACCOUNT.password}, or {SERVE_ACCOUNT.token}; push keeps its own "
            "account): for Virtuoso, a user with the SPARQL_SELECT role only, or its "
            "anonymous /sparql; for the Oxigraph server, `oxigraph serve-read-only` (README: "
            '"Pushing to a store server")'
        )
    if writes is None:
        warning = (
            f"WARNING: could not learn whether the serving account can write to "
            f"{url} ({how}); serve with an account that can only read"
        )
        print(f"benchgraph: {warning}", file=sys.stderr)
        return warning
    return None


def _gunicorn_options(args: argparse.Namespace, host: str) -> dict[str, Any]:
    return {
        "bind": f"{host}:{args.port}",
        "workers": args.workers,
        "threads": args.threads,
        # gthread, keeping a busy connection's next request on its thread (web/httpworker.py)
        "worker_class": "benchgraph.web.httpworker.LingeringWorker",
        "timeout": int(args.timeout) + 30,
        "graceful_timeout": 10,
        "keepalive": 5,
        "proc_name": "benchgraph",
        # The longest request line the app's limits let through: gunicorn refuses a
        # longer one (414) as soon as it passes it (web/requestline.py).
        "limit_request_line": _request_line_limit(args),
        "http_parser": "python",
        "accesslog": "-" if args.access_log else None,
        "errorlog": "-",
        # gunicorn 27's control socket is one path per user: two servers would clash.
        "control_socket_disable": True,
    }


def _queries_dir() -> Path | None:
    """The saved queries the app shows: $BENCHGRAPH_QUERIES_DIR, else the shipped ones."""
    from ..resources import resource

    named = os.environ.get("BENCHGRAPH_QUERIES_DIR")
    return Path(named) if named else resource("queries")


def _watch(args: argparse.Namespace, queries: Path | None, reloader: Reloader) -> Watcher:
    """Watch what the served dataset is made of."""
    from ..resources import resource

    watcher = Watcher(reloader.changed, poll=args.watch_poll)
    watcher.tree(args.data)
    watcher.files([path for path, _iri in args.extra])
    if queries is not None:
        watcher.folder(queries, ".rq")
    for folder in ("ontology", "shapes"):
        watcher.folder(resource(folder), ".ttl")
    return watcher


def _limit_options(p: argparse.ArgumentParser) -> None:
    """The options of the request size limits (benchgraph.web.limits)."""
    from ..web import DEFAULTS

    p.add_argument(
        "--max-body-mb",
        type=float,
        default=DEFAULTS["MAX_CONTENT_LENGTH"] / 2**20,
        metavar="MB",
        help="refuse (413) a request body longer than this, whether "
        "sent with a length or in chunks (default: %(default)g)",
    )
    p.add_argument(
        "--max-path-kb",
        type=float,
        default=DEFAULTS["MAX_PATH_BYTES"] / 1024,
        metavar="KB",
        help="refuse (414) a longer URL path (default: %(default)g)",
    )
    p.add_argument(
        "--max-query-string-kb",
        type=float,
        default=DEFAULTS["MAX_QUERY_STRING_BYTES"] / 1024,
        metavar="KB",
        help="refuse (414) a longer URL query string, as sent (a GET carries the "
        "SPARQL query there, URL-encoded; default: %(default)g)",
    )
    # These two default to None so that $BENCHGRAPH_HEADER_TIMEOUT and
    # $BENCHGRAPH_MAX_CONNECTIONS_PER_CLIENT, read by create_app, still apply.
    p.add_argument(
        "--header-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="answer 408 and close a connection whose request head is not all sent "
        "this long after it opened, however it trickles in (default: "
        f"{DEFAULTS['HEADER_TIMEOUT']:g}, or $BENCHGRAPH_HEADER_TIMEOUT)",
    )
    p.add_argument(
        "--max-connections-per-client",
        type=int,
        default=None,
        metavar="N",
        help="answer 429 and close a client address's connection past this many "
        "open at once; 0 for no limit. Behind a proxy every client has the "
        "proxy's address: raise it or turn it off there (default: "
        f"{DEFAULTS['MAX_CONNECTIONS_PER_CLIENT']}, or "
        "$BENCHGRAPH_MAX_CONNECTIONS_PER_CLIENT)",
    )


def _limit_config(args: argparse.Namespace) -> dict[str, Any]:
    config: dict[str, Any] = {
        "MAX_CONTENT_LENGTH": int(args.max_body_mb * 2**20),
        "MAX_PATH_BYTES": int(args.max_path_kb * 1024),
        "MAX_QUERY_STRING_BYTES": int(args.max_query_string_kb * 1024),
    }
    if args.header_timeout is not None:
        config["HEADER_TIMEOUT"] = args.header_timeout
    if args.max_connections_per_client is not None:
        config["MAX_CONNECTIONS_PER_CLIENT"] = args.max_connections_per_client
    return config


def _host_config(args: argparse.Namespace) -> dict[str, Any]:
    """How the server names itself and the Host names it answers (web/publicbase.py); an
    option not given leaves its BENCHGRAPH_* variable to create_app."""
    from ..errors import CannotRun
    from ..web.publicbase import BadPublicBase, normalize

    config: dict[str, Any] = {"BIND_HOST": args.host, "BIND_PORT": args.port}
    if args.public_base is not None:
        try:
            config["PUBLIC_BASE"] = normalize(args.public_base)
        except BadPublicBase as exc:
            raise CannotRun(f"--public-base: {exc}") from None
    if args.allowed_host is not None:
        config["ALLOWED_HOSTS"] = list(args.allowed_host)
    return config


def _request_line_limit(args: argparse.Namespace) -> int:
    from ..web.requestline import request_line_limit

    config = _limit_config(args)
    return request_line_limit(config["MAX_PATH_BYTES"], config["MAX_QUERY_STRING_BYTES"])


def _query_memory_mb(args: argparse.Namespace) -> int:
    """--query-memory-mb, or its default for this many server processes and query workers."""
    from ..web.querypool import default_memory_mb

    if args.query_memory_mb is not None:
        return args.query_memory_mb
    return default_memory_mb(args.workers, args.query_workers)
