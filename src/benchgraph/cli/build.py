"""`benchgraph build`: build the dataset from the records, and write a dump."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import CannotRun
from ..store.extra import joined
from .common import EXIT_OK, built, description
from .options import command, data_option, with_options


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    p = command(
        sub,
        "build",
        "Build the dataset from the records and write a dump.",
        "benchgraph build --data data --out benchgraph.trig",
    )
    data_option(p)
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="write a dump; format from the extension (.trig .nq .ttl .nt .jsonld)",
    )
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="build from the records that conform, naming each one left out",
    )
    with_options(p)  # in the --out dump; the build's own store never holds them
    p.set_defaults(run=run)


def run(args) -> int:
    from ..store.export import dump, format_for

    result = built(args, skip_invalid=args.skip_invalid, summary_if_unchanged=False)
    if args.out:
        try:
            fmt = format_for(args.out.suffix)
        except ValueError as exc:
            raise CannotRun(f"{args.out}: {exc}") from exc
        with joined(result.store_path, args.extra, args.reason_with) as store:
            dump(
                store, fmt, args.out, extra=description(result, store, args.extra, args.reason_with)
            )
    elif args.extra:
        from ..store.extra import check

        check(args.extra)  # they join a dump or a query, not the build's store
    print(
        f"built {result.records} records ({result.rebuilt} converted) -> {result.store_path}"
        + (f"; wrote {args.out}" if args.out else ""),
        file=sys.stderr,
    )
    return EXIT_OK
