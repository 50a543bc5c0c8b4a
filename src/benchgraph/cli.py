"""The command line: parse arguments, call the library, map errors to exit codes.

Exit codes follow pySHACL: 0 fine, 1 the records do not conform, 2 benchgraph cannot run.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from . import bigstack
from .errors import BenchgraphError, CannotRun, RecordsInvalid

EXIT_OK, EXIT_INVALID, EXIT_CANNOT_RUN = 0, 1, 2


def _data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=Path("data"), metavar="DIR",
                        help="the folder of records (default: ./data)")


def _command(sub, name: str, help: str, example: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help,
                          epilog=f"Example:\n  {example}",
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _examples() -> str:
    """The saved queries --example runs, one line each with its title."""
    from .queries import saved_queries

    saved = saved_queries()
    width = max(map(len, saved), default=0)
    return "Saved queries (--example NAME):\n" + "\n".join(
        f"  {name.ljust(width)}  {query.title}" for name, query in saved.items())


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="benchgraph",
        description="AI-inference benchmark results as a validated, inferred knowledge graph.",
        epilog="Example:\n  benchgraph query --example no-gpu-fabric",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = _command(sub, "build", "Build the dataset from the records and write a dump.",
                 "benchgraph build --data data --out benchgraph.trig")
    _data_option(p)
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write a dump; format from the extension (.trig .nq .ttl .nt .jsonld)")
    p.add_argument("--skip-invalid", action="store_true",
                   help="build from the records that conform, naming each one left out")
    p.set_defaults(run=cmd_build)

    p = _command(sub, "query", "Run a SPARQL query over the built dataset (stated + inferred).",
                 "benchgraph query 'SELECT ?run WHERE { ?run a bg:BenchmarkRun }'\n"
                 "  benchgraph query --example no-gpu-fabric\n\n" + _examples())
    _data_option(p)
    p.add_argument("--format", choices=("table", "csv", "tsv", "json"), default="table")
    p.add_argument("--example", metavar="NAME", help="run a saved query from queries/")
    p.add_argument("query", nargs="?", metavar="QUERY",
                   help="SPARQL text, or @file.rq; the usual prefixes (bg:, rdfs:, ...) are "
                        "predeclared")
    p.set_defaults(run=cmd_query)

    p = _command(sub, "export", "Write the whole dataset in one RDF format.",
                 "benchgraph export --format ttl --out benchgraph.ttl")
    _data_option(p)
    p.add_argument("--format", required=True, help="ttl, trig, nt, nq or jsonld")
    p.add_argument("--out", type=Path, metavar="FILE", help="default: standard output")
    p.set_defaults(run=cmd_export)

    p = _command(sub, "validate", "Check every record and report every problem at once.",
                 "benchgraph validate --data data --format json")
    _data_option(p)
    p.add_argument("--format", choices=("text", "json", "turtle"), default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.set_defaults(run=cmd_validate)

    for extension in ("benchgraph.importers.cli:add_import_commands",
                      "benchgraph.serve:add_serve_command"):
        module, _, func = extension.partition(":")
        try:
            mod = __import__(module, fromlist=[func])
        except ImportError:
            continue
        getattr(mod, func)(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad arguments, 0 on --help
        return int(exc.code or 0)
    try:
        return args.run(args) or EXIT_OK
    except BrokenPipeError:
        # The reader stopped reading (`| head`): that is its choice, not an error to show.
        # Point stdout at /dev/null so the interpreter's last flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except RecordsInvalid as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        violations = sum(p.severity == "violation" for p in exc.problems)
        print(f"{violations} violation(s) (and {len(exc.problems) - violations} warning(s) or"
              " info); nothing was built: fix them, or build with --skip-invalid",
              file=sys.stderr)
        return EXIT_INVALID
    except CannotRun as exc:
        print(f"benchgraph: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except BenchgraphError as exc:
        print(f"benchgraph: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN


def built(args, skip_invalid: bool = True, summary_if_unchanged: bool = True):
    """Build (or reuse) the dataset of --data; report problems on stderr: each one when the
    records changed, else one line that counts them (`validate` lists them all)."""
    from .build import build

    result = build(args.data, skip_invalid=skip_invalid)
    if summary_if_unchanged and not result.changed:
        if result.problems or result.left_out:
            counts = Counter(p.severity for p in result.problems)
            said = ", ".join(f"{n} {severity}(s)" for severity, n in sorted(counts.items()))
            left = f"; {len(result.left_out)} record(s) left out" if result.left_out else ""
            print(f"benchgraph: records unchanged since the last build: {said or 'no problems'}"
                  f"{left} (benchgraph validate --data {args.data} lists them)",
                  file=sys.stderr)
        return result
    for problem in result.problems:
        print(problem, file=sys.stderr)
    for path, reason in sorted(result.left_out.items()):
        if not reason.startswith(path):
            print(f"{path}: left out: {reason}", file=sys.stderr)
    if result.left_out:
        print(f"{len(result.left_out)} record(s) left out of the build", file=sys.stderr)
    return result


def cmd_build(args) -> int:
    from .export import dump, format_for

    result = built(args, skip_invalid=args.skip_invalid, summary_if_unchanged=False)
    if args.out:
        try:
            fmt = format_for(args.out.suffix)
        except ValueError as exc:
            raise CannotRun(f"{args.out}: {exc}") from exc
        dump(result.open(), fmt, args.out)
    print(f"built {result.records} records ({result.rebuilt} converted) -> {result.store_path}"
          + (f"; wrote {args.out}" if args.out else ""), file=sys.stderr)
    return EXIT_OK


def cmd_query(args) -> int:
    from .queries import render, run, saved_queries
    from .querysyntax import from_engine
    from .querytext import QueryTextError, check_depth

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
    except QueryTextError as exc:
        raise CannotRun(f"the query is refused: {exc}") from None
    except ValueError as exc:  # BENCHGRAPH_QUERY_MAX_DEPTH is not a number
        raise CannotRun(str(exc)) from None
    store = built(args).open()
    try:
        # on a deep stack: Oxigraph recurses along long chains of patterns and operators
        shown = bigstack.call(lambda: render(run(store, text), args.format))
    except SyntaxError as exc:  # the engine's line and column, as the endpoint gives them
        raise CannotRun(f"the query does not parse: {from_engine(exc)}") from exc
    sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")  # CSV ends its own
    return EXIT_OK


def cmd_export(args) -> int:
    from .export import dump, format_for

    try:
        fmt = format_for(args.format)
    except ValueError as exc:
        raise CannotRun(str(exc)) from exc
    store = built(args).open()
    dump(store, fmt, args.out if args.out else sys.stdout.buffer)
    return EXIT_OK


def cmd_validate(args) -> int:
    from .build import build
    from .report import write_report

    result = build(args.data, skip_invalid=True)
    write_report(result.problems, args.format, sys.stdout)
    failing = {"violation"} | ({"warning"} if args.strict else set())
    return EXIT_INVALID if any(p.severity in failing for p in result.problems) else EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
