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
    p = command(
        sub,
        "query",
        "Run a SPARQL query over the built dataset (stated + inferred).",
        "benchgraph query 'SELECT ?run WHERE { ?run a bg:BenchmarkRun }'\n"
        "  benchgraph query --example no-gpu-fabric --limit 10\n"
        "  benchgraph query --list\n"
        "  benchgraph query --example per-watt --format csv --short\n"
        "  benchgraph query --example why-fabric-status --param run=run:"
        "ev-sglang-dsv41-production-decode-tok-s-per-user\n\n" + _examples(),
    )
    data_option(p)
    store_option(p)
    p.add_argument("--format", choices=("table", "csv", "tsv", "json"), default="table")
    p.add_argument("--example", metavar="NAME", help="run a saved query from queries/")
    p.add_argument(
        "--list",
        action="store_true",
        help="list every saved query with its title and parameters, and run nothing",
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the saved query (repeatable; one it takes several "
        "of may be given again, or comma-separated); NAME= empty: every value",
    )
    p.add_argument(
        "--short",
        action="store_true",
        help="csv, tsv and json: write each IRI as the table does (acc:nvidia-h100-sxm, "
        "run:..., bg:...; one with no prefix whole), not in full",
    )
    p.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="table format: show the first N rows (and how many there are)",
    )
    p.add_argument(
        "query",
        nargs="?",
        metavar="QUERY",
        help="SPARQL text, or @file.rq; the usual prefixes (bg:, rdfs:, ...) are predeclared",
    )
    with_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..query.render import render, run
    from ..query.saved import saved_queries
    from ..query.suggest import did_you_mean
    from ..query.syntax import syntax_error
    from ..query.text import check_depth

    if args.list:
        sys.stdout.write(listing(saved_queries()))
        return EXIT_OK
    if args.param and not args.example:
        raise CannotRun("--param goes with --example NAME: a saved query declares its parameters")
    if args.limit is not None and args.limit < 1:
        raise CannotRun(f"--limit: {args.limit} is not a number of rows (1 or more)")
    if args.example:
        saved = saved_queries()
        if args.example not in saved:
            raise CannotRun(
                f"no saved query {args.example!r}{did_you_mean(args.example, saved)}: "
                "benchgraph query --list lists them"
            )
        text = _with_params(saved[args.example], args.param)  # each value's type, at once
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
        _check_query(text, bool(getattr(args, "store", None)))
    except QueryRefused as exc:
        raise CannotRun(f"the query is refused: {exc}") from None

    def answer() -> tuple[str | None, str | None]:
        """The rendered answer, or why the engine could not give one (a SERVICE it could not
        reach, a remote store's refusal): told as text, so that no traceback carries the
        engine's result, which may only be dropped in the thread that made it."""
        try:
            result = run(store, text)  # a SyntaxError here is the query's
        except OSError as exc:
            return None, str(exc)
        try:
            return render(result, args.format, args.limit, args.short), None
        except OSError as exc:
            return None, str(exc)
        except SyntaxError as exc:  # a store's results, read as they are rendered
            return None, f"the store's answer is not results benchgraph reads: {exc}"

    with reading(args) as store:
        if args.param:  # and each record it names, now that the dataset is here
            text = _with_params(saved[args.example], args.param, store)
        try:
            # on a deep stack: Oxigraph recurses along long chains of patterns and operators
            shown, failed = stack.call(answer)
        except SyntaxError as exc:  # the place the endpoint reports too (query/syntax.py)
            raise CannotRun(f"the query does not parse: {syntax_error(text, exc)}") from exc
    if failed is not None:
        raise CannotRun(f"the query could not be answered: {failed}")
    sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")  # CSV ends its own
    return EXIT_OK


def _with_params(query, given: list[str], store=None) -> str:
    """The saved query's text with `--param NAME=VALUE`s written into its VALUES, each
    value read by the parameter's type (query/params.py), and with a `store`, each IRI one
    it holds; a bad one cannot run (exit 2)."""
    import pyoxigraph as ox

    from ..query.params import ParameterError, split_values, with_values

    values: dict[str, list[str]] = {}
    for item in given:
        name, eq, value = item.partition("=")
        if not eq:
            raise CannotRun(f"--param {item!r}: give NAME=VALUE (NAME= for every value)")
        param = next((p for p in query.params if p.name == name), None)
        values.setdefault(name, []).extend(
            split_values(value) if param is not None and param.many else [value]
        )

    def known(iri: str) -> bool:
        return (
            next(iter(store.quads_for_pattern(ox.NamedNode(iri), None, None, None)), None)
            is not None
        )

    try:
        return with_values(
            query.text, query.params, values, known=known if store is not None else None
        )
    except ParameterError as exc:
        raise CannotRun(f"--param {exc}") from None


def _examples() -> str:
    """The saved queries --example runs, one line each with its title."""
    from ..query.saved import saved_queries

    saved = saved_queries()
    width = max(map(len, saved), default=0)
    return "Saved queries (--example NAME):\n" + "\n".join(
        f"  {name.ljust(width)}  {query.title}" for name, query in saved.items()
    )


def listing(saved: dict) -> str:
    """Every saved query: its name and title, then a line for each parameter it takes (how
    --param gives it, what it is and its default)."""
    from ..query.params import typed

    width = max(map(len, saved), default=0)
    out = []
    for name, query in saved.items():
        out.append(f"{name.ljust(width)}  {query.title}\n")
        for p in query.params:
            default = ", ".join(typed(t) for t in p.default if t != "UNDEF")
            label = f"{p.label}: " if p.label and p.label != p.name else ""
            value = "|".join(p.choices) if p.choices else p.type.upper()
            out.append(
                f"{'':{width}}    --param {p.name}={value}{',...' if p.many else ''}"
                f"  {label}{p.hint}" + (f"; default {default}" if default else "") + "\n"
            )
    return "".join(out)


def _check_query(text: str, remote: bool) -> None:
    """The endpoint's checks of what a query may hold, before anything is built or sent: for
    a store server every query is parsed, its functions and its size checked (the store
    runs it); on the embedded store, its size (the algebra budget)."""
    from ..namespaces import PREFIXES
    from ..query.inspect import check_parts, check_store_query

    if remote:
        check_store_query(text, None, PREFIXES)
    else:
        check_parts(text, PREFIXES)
