"""`benchgraph validate`: check every record and report every problem at once."""

from __future__ import annotations

import sys

from .common import EXIT_INVALID, EXIT_OK, data_folder
from .options import command, data_option, with_options


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    p = command(
        sub,
        "validate",
        "Check every record and report every problem at once.",
        "benchgraph validate --data data --format json",
    )
    data_option(p)
    p.add_argument("--format", choices=("text", "json", "turtle"), default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    with_options(p)  # each file must parse; its content is not validated
    p.set_defaults(run=run)


def run(args) -> int:
    from ..pipeline.steps import build
    from ..store.extra import check
    from .report import write_report

    data_folder(args)
    result = build(args.data, skip_invalid=True)
    check(args.extra)  # outside graphs are read, never validated
    write_report(result.problems, args.format, sys.stdout)
    failing = {"violation"} | ({"warning"} if args.strict else set())
    return EXIT_INVALID if any(p.severity in failing for p in result.problems) else EXIT_OK
