"""`benchgraph push`: bring a SPARQL store server to hold the build, graph by graph."""

from __future__ import annotations

import sys

from .common import EXIT_OK, built, description
from .options import command, data_option


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    p = command(
        sub,
        "push",
        "Bring a SPARQL store server to hold the build, graph by graph "
        "(Graph Store Protocol): only what changed since the last push is sent.",
        "BENCHGRAPH_STORE_USER=dba BENCHGRAPH_STORE_PASSWORD=... benchgraph push "
        "--data data \\\n      --store http://127.0.0.1:8890/sparql "
        "--graph-store http://127.0.0.1:8890/sparql-graph-crud-auth",
    )
    data_option(p)
    p.add_argument(
        "--store",
        required=True,
        metavar="QUERY_URL",
        help="the store's SPARQL query endpoint (to read what it holds)",
    )
    p.add_argument(
        "--graph-store",
        required=True,
        metavar="GSP_URL",
        help="the store's Graph Store Protocol endpoint (to write graphs)",
    )
    p.add_argument("--dry-run", action="store_true", help="say what would be sent; send nothing")
    p.add_argument(
        "--full",
        action="store_true",
        help="start over: remove benchgraph's graphs from the store, send all",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from ..store.push import push

    result = built(args)
    done = push(
        result.open(),
        result.key,
        args.store,
        args.graph_store,
        dry_run=args.dry_run,
        full=args.full,
        extra=description(result),
    )
    print(
        f"push: {'checked' if args.dry_run else 'done'} in {done.seconds:.1f} s "
        f"({done.local_quads:,} quads in the build)",
        file=sys.stderr,
    )
    return EXIT_OK
