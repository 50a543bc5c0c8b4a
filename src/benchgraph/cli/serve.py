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
import sys
from pathlib import Path
from typing import Any

from .. import scratch
from ..errors import CannotRun
from ..serving import snapshots
from ..serving.prepare import prepare
from ..serving.process import run_server_process
from ..serving.reload import SETTLE, Job, Reloader
from ..serving.watch import Watcher
from ..settings import raw, value
from .common import built
from .options import command, data_option, given_settings, setting_options, with_options


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
    with_options(p)
    # --host, --port, the query and request limits, the public base: rows of the settings
    # table (benchgraph/settings.py), each also a BENCHGRAPH_* variable
    setting_options(p)
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
    config = _app_config(args)
    if args.store:
        return _serve_store(args, config)
    root = scratch.make("serve")
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
            reloader.start()
        config |= served.app_config() | {"SNAPSHOT_FILE": str(root / snapshots.POINTER)}
        note = "; watching for changes" if watcher else ""
        return _serve(args, root, config, reloader, str(args.data), note)
    finally:
        if watcher is not None:
            watcher.stop()
        scratch.remove(root)


def _serve(
    args: argparse.Namespace,
    root: Path,
    config: dict[str, Any],
    reloader: Any,
    what: str,
    note: str = "",
) -> int:
    """Write the server process's settings (serve.json), built once here for a build and a
    store alike, and run it until interrupted."""
    path = root / "serve.json"
    path.write_text(
        json.dumps(
            {
                "app": config,
                "gunicorn": _gunicorn_options(args, config),
                "parent": os.getpid(),  # the server ends with this process (web/server.py)
            }
        ),
        encoding="utf-8",
    )
    host = _bracketed(config["BIND_HOST"])
    print(
        f"benchgraph: serving {what} at http://{host}:{config['BIND_PORT']}/ "
        f"(SPARQL at /sparql){note}",
        file=sys.stderr,
    )
    return run_server_process(path, reloader)


def _app_config(args: argparse.Namespace) -> dict[str, Any]:
    """The app's settings from serve's flags: only those given, so that a BENCHGRAPH_*
    variable applies where its flag is not given (create_app reads them)."""
    config = given_settings(args)
    parts = config.get("QUERY_MAX_PARTS")
    if parts is not None and parts < 1:
        raise CannotRun(f"--max-query-parts {parts}: give at least 1")
    if "PUBLIC_BASE" in config:
        from ..web.publicbase import BadPublicBase, normalize

        try:
            config["PUBLIC_BASE"] = normalize(config["PUBLIC_BASE"])
        except BadPublicBase as exc:
            raise CannotRun(f"--public-base: {exc}") from None
    if value("QUERY_MEMORY_MB", config) in (None, ""):
        # the default for this many server processes and query workers
        from ..web.querypool import default_memory_mb

        config["QUERY_MEMORY_MB"] = default_memory_mb(
            args.workers, int(value("QUERY_WORKERS", config))
        )
    return config


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class _NoReloads:
    """A remote store is rebuilt by pushes, not by this process."""

    def tick(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def hangup(self) -> None:
        pass


def _serve_store(args: argparse.Namespace, config: dict[str, Any]) -> int:
    """Serve a remote store: the same app, its query workers asking the store."""
    from ..store.http import check_url

    check_url(args.store, "--store")
    warning = _check_read_only(args.store)
    root = scratch.make("serve")
    try:
        config |= {
            "STORE_URL": args.store,
            "DUMP_DIR": str(root / "dumps"),
            "STORE_WARNING": warning,
        }
        return _serve(args, root, config, _NoReloads(), f"the store {args.store}")
    finally:
        scratch.remove(root)


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


def _gunicorn_options(args: argparse.Namespace, config: dict[str, Any]) -> dict[str, Any]:
    from ..web.requestline import request_line_limit

    return {
        "bind": f"{_bracketed(config['BIND_HOST'])}:{config['BIND_PORT']}",
        "workers": args.workers,
        "threads": args.threads,
        # gthread, keeping a busy connection's next request on its thread (web/httpworker.py)
        "worker_class": "benchgraph.web.httpworker.LingeringWorker",
        "timeout": int(float(value("QUERY_TIMEOUT", config))) + 30,
        "graceful_timeout": 10,
        "keepalive": 5,
        "proc_name": "benchgraph",
        # The longest request line the app's limits let through: gunicorn refuses a
        # longer one (414) as soon as it passes it (web/requestline.py).
        "limit_request_line": request_line_limit(
            int(value("MAX_PATH_BYTES", config)), int(value("MAX_QUERY_STRING_BYTES", config))
        ),
        "http_parser": "python",
        "accesslog": "-" if args.access_log else None,
        "errorlog": "-",
        # gunicorn 27's control socket is one path per user: two servers would clash.
        "control_socket_disable": True,
    }


def _queries_dir() -> Path | None:
    """The saved queries the app shows: $BENCHGRAPH_QUERIES_DIR, else the shipped ones."""
    from ..resources import resource

    named = raw("QUERIES_DIR")
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
