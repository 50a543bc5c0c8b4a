"""`benchgraph serve`: build the dataset, then serve it with gunicorn (never Flask's dev server).

The server runs on a private copy of the cached build (a RocksDB checkpoint: hard links, cheap),
into which `--with` files are loaded as extra named graphs; the cache itself is never written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from .errors import CannotRun

EXTENSIONS = {"owl": ox.RdfFormat.RDF_XML, "xml": ox.RdfFormat.RDF_XML,
              "json": ox.RdfFormat.JSON_LD, "jsonld": ox.RdfFormat.JSON_LD}


@dataclass
class Served:
    """A store prepared for serving: its path, its key and what the build left out."""

    store_path: Path
    key: str
    workdir: Path
    invalid_records: list[str] = field(default_factory=list)
    problem_counts: dict[str, int] = field(default_factory=dict)
    owner: int = field(default_factory=os.getpid)

    def app_config(self) -> dict[str, Any]:
        """The settings create_app needs to serve this store."""
        return {"STORE_PATH": str(self.store_path), "DATASET_KEY": self.key,
                "INVALID_RECORDS": self.invalid_records,
                "PROBLEM_COUNTS": self.problem_counts, "DUMP_DIR": str(self.workdir / "dumps")}

    def cleanup(self) -> None:
        """Delete the copy (only from the process that made it)."""
        if os.getpid() == self.owner:
            shutil.rmtree(self.workdir, ignore_errors=True)


def parse_with(value: str) -> tuple[Path, str | None]:
    """`FILE` or `FILE=GRAPH_IRI` (a file whose name holds '=' is taken whole if it exists)."""
    if Path(value).is_file() or "=" not in value:
        path, iri = value, None
    else:
        path, _, iri = value.partition("=")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"{path}: no such file")
    return Path(path), iri


def prepare(result: Any, extra: list[tuple[Path, str | None]]) -> Served:
    """A serving copy of a build (benchgraph.build.BuildResult) with the extra files loaded."""
    from .web import problem_counts

    workdir = Path(tempfile.mkdtemp(prefix="benchgraph-serve-"))
    copy = workdir / "store"
    key = hashlib.blake2b(result.key.encode(), digest_size=16)
    try:
        ox.Store.read_only(str(result.store_path)).backup(str(copy))
        if extra:
            store = ox.Store(str(copy))
            for path, iri in extra:
                graph = iri or path.resolve().as_uri()
                _load(store, path, graph)
                key.update(graph.encode() + b"\0" + hashlib.blake2b(path.read_bytes()).digest())
            store.flush()
            del store
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return Served(copy, key.hexdigest(), workdir, list(result.invalid_records),
                  problem_counts(result.problems))


def _load(store: ox.Store, path: Path, graph: str) -> None:
    if not path.is_file():
        raise CannotRun(f"--with {path}: no such file")
    extension = path.suffix.lstrip(".").lower()
    fmt = ox.RdfFormat.from_extension(extension) or EXTENSIONS.get(extension)
    if fmt is None:
        raise CannotRun(f"--with {path}: unknown RDF format (use .ttl .nt .nq .trig .rdf "
                        ".jsonld)")
    try:
        graph_node = ox.NamedNode(graph)
    except ValueError as exc:
        raise CannotRun(f"--with {path}={graph}: not an IRI: {exc}") from exc
    try:
        store.bulk_load(path=str(path), format=fmt, to_graph=graph_node)
    except (SyntaxError, ValueError, OSError) as exc:
        raise CannotRun(f"--with {path}: {exc}") from exc


# --- the command ---------------------------------------------------------------------------
def add_serve_command(subparsers: Any) -> None:
    """Add `serve` to benchgraph's argparse subcommands."""
    from .cli import _command, _data_option

    p = _command(subparsers, "serve",
                 "Serve the dataset: SPARQL endpoint at /sparql, query page at /, Linked Data "
                 "at /id/<kind>/<id>, dumps, /healthz, /metrics.",
                 "benchgraph serve --data data --port 5000 --with gpus.ttl=https://example.org/gpus")
    _data_option(p)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: %(default)s)")
    p.add_argument("--port", type=int, default=5000, help="port (default: %(default)s)")
    p.add_argument("--with", dest="extra", action="append", default=[], type=parse_with,
                   metavar="FILE[=GRAPH_IRI]",
                   help="load an RDF file as a named graph (named by GRAPH_IRI, else by the "
                        "file's URI); repeatable")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                   help="stop a query after this long (default: %(default)g)")
    p.add_argument("--query-workers", type=int, default=max(4, os.cpu_count() or 1),
                   metavar="N", help="queries that can run at once, per server process "
                                     "(default: %(default)s)")
    p.add_argument("--max-result-mb", type=float, default=64, metavar="MB",
                   help="refuse results bigger than this (default: %(default)g)")
    _limit_options(p)
    p.add_argument("--allow-service", action="append", default=[], metavar="ENDPOINT",
                   help="a SERVICE endpoint queries may call (federation is off otherwise); "
                        "repeatable")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="gunicorn server processes (default: %(default)s)")
    p.add_argument("--threads", type=int, default=16, metavar="N",
                   help="requests handled at once per server process (default: %(default)s)")
    p.add_argument("--access-log", action="store_true", help="log every request to stderr")
    p.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Build, prepare the serving store, run gunicorn until interrupted."""
    from .cli import built

    served = prepare(built(args), args.extra)
    try:
        host = f"[{args.host}]" if ":" in args.host else args.host
        settings = {
            "app": served.app_config() | {
                "QUERY_TIMEOUT": args.timeout, "QUERY_WORKERS": args.query_workers,
                "MAX_RESULT_BYTES": int(args.max_result_mb * 1024 * 1024),
                **_limit_config(args),
                "ALLOW_SERVICE": list(args.allow_service),
            },
            "gunicorn": {
                "bind": f"{host}:{args.port}", "workers": args.workers, "threads": args.threads,
                "worker_class": "gthread", "timeout": int(args.timeout) + 30,
                "graceful_timeout": 10, "keepalive": 5, "proc_name": "benchgraph",
                # The longest request line the app's limits let through: gunicorn refuses a
                # longer one (414) as soon as it passes it (web/requestline.py).
                "limit_request_line": _request_line_limit(args), "http_parser": "python",
                "accesslog": "-" if args.access_log else None, "errorlog": "-",
                # gunicorn 27's control socket is one path per user: two servers would clash.
                "control_socket_disable": True,
            },
        }
        path = served.workdir / "serve.json"
        path.write_text(json.dumps(settings), encoding="utf-8")
        print(f"benchgraph: serving {args.data} at http://{host}:{args.port}/ "
              "(SPARQL at /sparql)", file=sys.stderr)
        return _run_server_process(path)
    finally:
        served.cleanup()


def _limit_options(p: argparse.ArgumentParser) -> None:
    """The options of the request size limits (benchgraph.web.limits)."""
    from .web import DEFAULTS

    p.add_argument("--max-body-mb", type=float, default=DEFAULTS["MAX_CONTENT_LENGTH"] / 2**20,
                   metavar="MB", help="refuse (413) a request body longer than this, whether "
                                      "sent with a length or in chunks (default: %(default)g)")
    p.add_argument("--max-path-kb", type=float, default=DEFAULTS["MAX_PATH_BYTES"] / 1024,
                   metavar="KB", help="refuse (414) a longer URL path (default: %(default)g)")
    p.add_argument("--max-query-string-kb", type=float,
                   default=DEFAULTS["MAX_QUERY_STRING_BYTES"] / 1024, metavar="KB",
                   help="refuse (414) a longer URL query string, as sent (a GET carries the "
                        "SPARQL query there, URL-encoded; default: %(default)g)")


def _limit_config(args: argparse.Namespace) -> dict[str, int]:
    return {"MAX_CONTENT_LENGTH": int(args.max_body_mb * 2**20),
            "MAX_PATH_BYTES": int(args.max_path_kb * 1024),
            "MAX_QUERY_STRING_BYTES": int(args.max_query_string_kb * 1024)}


def _request_line_limit(args: argparse.Namespace) -> int:
    from .web.requestline import request_line_limit

    config = _limit_config(args)
    return request_line_limit(config["MAX_PATH_BYTES"], config["MAX_QUERY_STRING_BYTES"])


def _run_server_process(settings: Path) -> int:
    """Run gunicorn in a fresh process and wait for it, passing on signals to stop.

    gunicorn forks its workers; the build left RocksDB threads in this process, and a process
    forked from it would hang at exit waiting for threads it does not have. A fresh process
    has none."""
    proc = subprocess.Popen([sys.executable, "-m", "benchgraph.serve", str(settings)])

    def forward(signum: int, _frame: object) -> None:
        proc.send_signal(signum)

    previous = {sig: signal.signal(sig, forward)
                for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        return proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:
            proc.terminate()
            proc.wait()


def run_gunicorn(app_config: dict[str, Any], options: dict[str, Any]) -> None:
    """Run gunicorn in this process with the app built by create_app in each worker."""
    from gunicorn.app.base import BaseApplication

    class Application(BaseApplication):
        def load_config(self) -> None:
            for name, value in options.items():
                if value is not None and name in self.cfg.settings:
                    self.cfg.set(name, value)

        def load(self) -> Any:
            from .web import create_app

            return create_app(app_config)

    from .web import requestline

    requestline.install()  # before gunicorn forks its workers
    Application().run()


def main(argv: list[str]) -> int:
    """`python -m benchgraph.serve SETTINGS_JSON`: the server process cmd_serve starts."""
    settings = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    run_gunicorn(settings["app"], settings["gunicorn"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
