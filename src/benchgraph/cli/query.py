"""`benchgraph query`: run a SPARQL query over the built dataset, or a store server."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import CannotRun, QueryRefused
from ..query import stack
from .common import EXIT_OK, reading
from .options import command, data_option, store_option, with_options


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    p = command(sub, "query", "Run a SPARQL query over the built dataset (stated + inferred).",
                "benchgraph query 'SELECT ?run WHERE { ?run a bg:BenchmarkRun }'\n"
                "  benchgraph query --example no-gpu-fabric\n\n" + _examples())
    data_option(p)
    store_option(p)
    p.add_argument("--format", choices=("table", "csv", "tsv", "json"), default="table")
    p.add_argument("--example", metavar="NAME", help="run a saved query from queries/")
    p.add_argument("query", nargs="?", metavar="QUERY",
                   help="SPARQL text, or @file.rq; the usual prefixes (bg:, rdfs:, ...) are "
                        "predeclared")
    with_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..query.render import render, run
    from ..query.saved import saved_queries
    from ..query.syntax import syntax_error
    from ..query.text import check_depth

    if args.example:
        saved = saved_queries()
        if args.example not in saved:
            raise CannotRun(f"no saved query {args.example!r} (have: {', '.join(saved)})")
        text = saved[args.example].text
    elif args.query is None:
        raise CannotRun("give a QUERY or --example NAME")
    elif args.query.startswith("@"):
        try:
            text = Path(args.query[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise CannotRun(f"{args.query[1:]}: {exc.strerror}") from exc
    else:
        text = args.query
    try:
        check_depth(text)  # before the build: a query too deep is refused at once
    except QueryRefused as exc:
        raise CannotRun(f"the query is refused: {exc}") from None
    def answer() -> tuple[str | None, str | None]:
        """The rendered answer, or why the engine could not give one (a SERVICE it could not
        reach, a remote store's refusal): told as text, so that no traceback carries the
        engine's result, which may only be dropped in the thread that made it."""
        try:
            return render(run(store, text), args.format), None
        except OSError as exc:
            return None, str(exc)

    with reading(args) as store:
        try:
            # on a deep stack: Oxigraph recurses along long chains of patterns and operators
            shown, failed = stack.call(answer)
        except SyntaxError as exc:  # the place the endpoint reports too (query/syntax.py)
            raise CannotRun(f"the query does not parse: {syntax_error(text, exc)}") from exc
    if failed is not None:
        raise CannotRun(f"the query could not be answered: {failed}")
    sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")  # CSV ends its own
    return EXIT_OK


def _examples() -> str:
    """The saved queries --example runs, one line each with its title."""
    from ..query.saved import saved_queries

    saved = saved_queries()
    width = max(map(len, saved), default=0)
    return "Saved queries (--example NAME):\n" + "\n".join(
        f"  {name.ljust(width)}  {query.title}" for name, query in saved.items())
