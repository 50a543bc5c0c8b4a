"""`benchgraph export`: the whole dataset in one RDF format, or its links as SSSOM."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import CannotRun
from ..store.extra import joined
from .common import EXIT_OK, built, description, remote
from .options import command, data_option, store_option, with_options


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    p = command(
        sub,
        "export",
        "Write the whole dataset in one RDF format.",
        "benchgraph export --format ttl --out benchgraph.ttl",
    )
    data_option(p)
    store_option(p)
    p.add_argument(
        "--format",
        required=True,
        help="ttl, trig, nt, nq, jsonld or rdf (RDF/XML); sssom: the links to "
        "outside entities as an SSSOM mapping set (TSV)",
    )
    p.add_argument("--out", type=Path, metavar="FILE", help="default: standard output")
    with_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..store.export import dump, format_for

    if args.format.lower().lstrip(".") in ("sssom", "sssom.tsv"):
        from ..links import sssom

        with joined(built(args).store_path, args.extra, args.reason_with) as store:
            body = sssom.dump(store)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_bytes(body)
        else:
            sys.stdout.buffer.write(body)
        return EXIT_OK
    try:
        fmt = format_for(args.format)
    except ValueError as exc:
        raise CannotRun(f"{exc} or sssom") from exc
    if args.store:  # what the store holds, its description graph among it
        dump(remote(args), fmt, args.out if args.out else sys.stdout.buffer)
        return EXIT_OK
    result = built(args)
    with joined(result.store_path, args.extra, args.reason_with) as store:
        dump(
            store,
            fmt,
            args.out if args.out else sys.stdout.buffer,
            extra=description(result, store, args.extra, args.reason_with),
        )
    return EXIT_OK
