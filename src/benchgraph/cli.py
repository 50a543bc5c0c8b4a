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
from .extra import add_with_options, joined

EXIT_OK, EXIT_INVALID, EXIT_CANNOT_RUN = 0, 1, 2


def _data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=Path("data"), metavar="DIR",
                        help="the folder of records (default: ./data)")


def _store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="QUERY_URL",
                        help="answer from this SPARQL store server (what `benchgraph push` "
                             "sent there) instead of building --data; credentials from "
                             "BENCHGRAPH_STORE_USER/_PASSWORD or BENCHGRAPH_STORE_TOKEN")


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
    add_with_options(p)  # in the --out dump; the build's own store never holds them
    p.set_defaults(run=cmd_build)

    p = _command(sub, "query", "Run a SPARQL query over the built dataset (stated + inferred).",
                 "benchgraph query 'SELECT ?run WHERE { ?run a bg:BenchmarkRun }'\n"
                 "  benchgraph query --example no-gpu-fabric\n\n" + _examples())
    _data_option(p)
    _store_option(p)
    p.add_argument("--format", choices=("table", "csv", "tsv", "json"), default="table")
    p.add_argument("--example", metavar="NAME", help="run a saved query from queries/")
    p.add_argument("query", nargs="?", metavar="QUERY",
                   help="SPARQL text, or @file.rq; the usual prefixes (bg:, rdfs:, ...) are "
                        "predeclared")
    add_with_options(p)
    p.set_defaults(run=cmd_query)

    p = _command(sub, "export", "Write the whole dataset in one RDF format.",
                 "benchgraph export --format ttl --out benchgraph.ttl")
    _data_option(p)
    _store_option(p)
    p.add_argument("--format", required=True,
                   help="ttl, trig, nt, nq, jsonld or rdf (RDF/XML); sssom: the links to "
                        "outside entities as an SSSOM mapping set (TSV)")
    p.add_argument("--out", type=Path, metavar="FILE", help="default: standard output")
    add_with_options(p)
    p.set_defaults(run=cmd_export)

    p = _command(sub, "validate", "Check every record and report every problem at once.",
                 "benchgraph validate --data data --format json")
    _data_option(p)
    p.add_argument("--format", choices=("text", "json", "turtle"), default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    add_with_options(p)  # each file must parse; its content is not validated
    p.set_defaults(run=cmd_validate)

    p = _command(sub, "push", "Bring a SPARQL store server to hold the build, graph by graph "
                 "(Graph Store Protocol): only what changed since the last push is sent.",
                 "BENCHGRAPH_STORE_USER=dba BENCHGRAPH_STORE_PASSWORD=... benchgraph push "
                 "--data data \\\n      --store http://127.0.0.1:8890/sparql "
                 "--graph-store http://127.0.0.1:8890/sparql-graph-crud-auth")
    _data_option(p)
    p.add_argument("--store", required=True, metavar="QUERY_URL",
                   help="the store's SPARQL query endpoint (to read what it holds)")
    p.add_argument("--graph-store", required=True, metavar="GSP_URL",
                   help="the store's Graph Store Protocol endpoint (to write graphs)")
    p.add_argument("--dry-run", action="store_true", help="say what would be sent; send nothing")
    p.add_argument("--full", action="store_true",
                   help="start over: remove benchgraph's graphs from the store, send all")
    p.set_defaults(run=cmd_push)

    _link_command(sub)
    for extension in ("benchgraph.importers.cli:add_import_commands",
                      "benchgraph.serve:add_serve_command"):
        module, _, func = extension.partition(":")
        try:
            mod = __import__(module, fromlist=[func])
        except ImportError:
            continue
        getattr(mod, func)(sub)
    return top


def _link_command(sub) -> None:
    from .reconcile import MIN_CONFIDENCE, WD, WIKIDATA_SPARQL
    from .sparqlclient import MAX_RESULT_MB, TIMEOUT, USER_AGENT

    p = _command(sub, "link",
                 "Propose links from records to the entities of a SPARQL endpoint (Wikidata's "
                 "by default) as an SSSOM file to review, or accept the rows a curator kept.",
                 "benchgraph link --data data --out links.sssom.tsv\n"
                 "  benchgraph link --data data --accept links.sssom.tsv --curator 'A. Curator'")
    _data_option(p)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out", type=Path, metavar="FILE.sssom.tsv",
                      help="write one best proposal per record without a link (and, beside "
                           "it, FILE.sssom.tsv.proposed: what was proposed, to tell the rows a "
                           "curator deletes)")
    mode.add_argument("--accept", type=Path, metavar="FILE.sssom.tsv",
                      help="write the file's rows into the records' same_as; rows deleted "
                           "from it are remembered as rejected (data/rejected-mappings.sssom.tsv)")
    p.add_argument("--endpoint", default=WIKIDATA_SPARQL, metavar="URL",
                   help="SPARQL endpoint (default: %(default)s)")
    p.add_argument("--min-confidence", type=float, default=MIN_CONFIDENCE, metavar="X",
                   help="leave out proposals below this (default: %(default)g)")
    p.add_argument("--namespace", default=WD, metavar="IRI",
                   help="the entities that count as a link (default: %(default)s)")
    p.add_argument("--timeout", type=float, default=TIMEOUT, metavar="SECONDS",
                   help="the most one request to the endpoint takes, all of it: connecting, "
                        "redirects and the whole answer (default: %(default)g)")
    p.add_argument("--max-result-mb", type=float, default=MAX_RESULT_MB, metavar="MB",
                   help="the largest answer read from the endpoint; a bigger one is an error "
                        "(default: %(default)g)")
    p.add_argument("--user-agent", default=USER_AGENT,
                   help="sent to the endpoint; name how to reach you (default: %(default)s)")
    p.add_argument("--curator", help="who accepts (default: git's user.name)")
    p.set_defaults(run=cmd_link)


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
    from .store.export import dump, format_for

    result = built(args, skip_invalid=args.skip_invalid, summary_if_unchanged=False)
    if args.out:
        try:
            fmt = format_for(args.out.suffix)
        except ValueError as exc:
            raise CannotRun(f"{args.out}: {exc}") from exc
        with joined(result.store_path, args.extra, args.reason_with) as store:
            dump(store, fmt, args.out, extra=_description(result, store, args.extra))
    elif args.extra:
        from .extra import check

        check(args.extra)  # they join a dump or a query, not the build's store
    print(f"built {result.records} records ({result.rebuilt} converted) -> {result.store_path}"
          + (f"; wrote {args.out}" if args.out else ""), file=sys.stderr)
    return EXIT_OK


def cmd_query(args) -> int:
    from .queries import render, run, saved_queries
    from .querysyntax import syntax_error
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
    def answer() -> tuple[str | None, str | None]:
        """The rendered answer, or why the engine could not give one (a SERVICE it could not
        reach, a remote store's refusal): told as text, so that no traceback carries the
        engine's result, which may only be dropped in the thread that made it."""
        try:
            return render(run(store, text), args.format), None
        except OSError as exc:
            return None, str(exc)

    with _reading(args) as store:
        try:
            # on a deep stack: Oxigraph recurses along long chains of patterns and operators
            shown, failed = bigstack.call(answer)
        except SyntaxError as exc:  # the place the endpoint reports too (querysyntax.py)
            raise CannotRun(f"the query does not parse: {syntax_error(text, exc)}") from exc
    if failed is not None:
        raise CannotRun(f"the query could not be answered: {failed}")
    sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")  # CSV ends its own
    return EXIT_OK


def cmd_export(args) -> int:
    from .store.export import dump, format_for

    if args.format.lower().lstrip(".") in ("sssom", "sssom.tsv"):
        from . import sssom

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
        dump(_remote(args), fmt, args.out if args.out else sys.stdout.buffer)
        return EXIT_OK
    result = built(args)
    with joined(result.store_path, args.extra, args.reason_with) as store:
        dump(store, fmt, args.out if args.out else sys.stdout.buffer,
             extra=_description(result, store, args.extra))
    return EXIT_OK


def _description(result, store=None, extra=()) -> list:
    """The dataset's VoID/DCAT description for a dump (the server holds it in what it serves;
    the build does not: see description.py); with --with graphs, of the store holding them
    (keyed as the server keys it), made afresh."""
    from .description import cached, describe

    if extra:
        from .serving import serving_key

        return describe(store, serving_key(result.key, list(extra)))
    return cached(result.open(), result.key, result.store_path.parent / "dumps")


def _remote(args):
    """The store server of --store (no --with: what it holds is what push sent)."""
    from . import store

    if args.extra:
        raise CannotRun("--with reads outside graphs into a local copy; with --store, push "
                        "them to the store instead")
    return store.open(args.store)


def _reading(args):
    """The store a command reads: --store's server, else the build of --data (with --with
    graphs beside it)."""
    from contextlib import nullcontext

    if getattr(args, "store", None):
        return nullcontext(_remote(args))
    return joined(built(args).store_path, args.extra, args.reason_with)


def cmd_push(args) -> int:
    from .store.push import push

    result = built(args)
    done = push(result.open(), result.key, args.store, args.graph_store,
                dry_run=args.dry_run, full=args.full, extra=_description(result))
    print(f"push: {'checked' if args.dry_run else 'done'} in {done.seconds:.1f} s "
          f"({done.local_quads:,} quads in the build)", file=sys.stderr)
    return EXIT_OK


def cmd_validate(args) -> int:
    from .build import build
    from .extra import check
    from .report import write_report

    result = build(args.data, skip_invalid=True)
    check(args.extra)  # outside graphs are read, never validated
    write_report(result.problems, args.format, sys.stdout)
    failing = {"violation"} | ({"warning"} if args.strict else set())
    return EXIT_INVALID if any(p.severity in failing for p in result.problems) else EXIT_OK


def cmd_link(args) -> int:
    import datetime as dt

    from .accept import PROPOSED, accept, rejected_pairs

    if not args.data.is_dir():
        raise CannotRun(f"{args.data}: no such data folder")
    if args.accept:
        done = accept(args.data, args.accept, args.curator)
        for path in done.written:
            print(f"linked: {path}", file=sys.stderr)
        print(f"{len(done.written)} record(s) written, {done.unchanged} row(s) already there, "
              f"{done.rejected} deleted row(s) remembered as rejected", file=sys.stderr)
        if not done.compared:
            print(f"benchgraph: no {args.accept.name}{PROPOSED} beside it (written by --out): "
                  "deleted rows could not be told, none was remembered", file=sys.stderr)
        return EXIT_OK
    from .reconcile import Reconciler, proposal_set, subjects
    from .sparqlclient import Endpoint

    endpoint = Endpoint(args.endpoint, args.user_agent, args.timeout, args.max_result_mb)
    reconciler = Reconciler(endpoint, args.namespace, rejected_pairs(args.data))
    proposals = reconciler.propose(subjects(args.data))
    ms, below = proposal_set(proposals, args.min_confidence, args.endpoint,
                             dt.date.today().isoformat())
    text = ms.write()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_name(args.out.name + PROPOSED).write_text(text, encoding="utf-8")
    for note in reconciler.notes:
        print(f"benchgraph: {note}", file=sys.stderr)
    print(f"{len(ms.rows)} proposal(s) written to {args.out} ({below} below "
          f"{args.min_confidence:g} left out; {endpoint.requests} request(s) to "
          f"{args.endpoint}); nothing is linked until `benchgraph link --accept {args.out}`",
          file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
