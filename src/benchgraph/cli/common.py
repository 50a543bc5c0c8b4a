"""What the commands share: the exit codes, the build of --data with its problems told on
stderr, and the store a command reads (the build, with --with graphs, or --store's server)."""

from __future__ import annotations

import sys
from collections import Counter

from ..errors import VIOLATION, BenchgraphError, CannotRun, RecordsInvalid
from ..store.extra import joined

# pySHACL's: 0 fine, 1 the records do not conform, 2 benchgraph cannot run
EXIT_OK, EXIT_INVALID, EXIT_CANNOT_RUN = 0, 1, 2


def data_folder(args) -> None:
    """CannotRun naming the folder looked in, and --data, when --data is no folder."""
    if not args.data.is_dir():
        raise CannotRun(
            f"no such data folder: {args.data} (looked in {args.data.absolute()}); give the "
            "folder of records with --data DIR (default: ./data, in the folder it runs from)"
        )


def told(exc: BenchgraphError, args) -> int:
    """Say on stderr why a command stopped; its exit code."""
    if isinstance(exc, RecordsInvalid):
        # the violations each (they stop the build), the rest counted: validate lists them
        for problem in exc.problems:
            if problem.severity == VIOLATION:
                print(problem, file=sys.stderr)
        print(
            f"benchgraph: {counted(exc.problems, 0, getattr(args, 'data', 'data'))}; nothing "
            "was built: fix the violations, or build with --skip-invalid",
            file=sys.stderr,
        )
        return EXIT_INVALID
    print(f"benchgraph: {exc}", file=sys.stderr)
    return EXIT_CANNOT_RUN


def built(args, skip_invalid: bool = True, summary_if_unchanged: bool = True, session=None):
    """Build (or reuse) the dataset of --data; tell its problems on stderr: the violations
    and the records left out each when the records changed (or `summary_if_unchanged` is
    false), and always one line that counts them and the warnings (`validate` lists all).
    `session`: a pipeline.session.Session (build --watch), told the changed files."""
    from ..pipeline.steps import build

    data_folder(args)
    result = build(args.data, skip_invalid=skip_invalid, session=session)
    listed = result.changed or not summary_if_unchanged
    if listed:
        for problem in result.problems:
            if problem.severity == VIOLATION:
                print(problem, file=sys.stderr)
        for path, reason in sorted(result.left_out.items()):
            if not reason.startswith(path):
                print(f"{path}: left out: {reason}", file=sys.stderr)
    line = counted(result.problems, len(result.left_out), args.data)
    if line:
        unchanged = "" if listed else "records unchanged since the last build: "
        print(f"benchgraph: {unchanged}{line}", file=sys.stderr)
    return result


def counted(problems, left_out: int, data) -> str:
    """One line for a build's problems: how many of each severity and records left out, and
    the command that lists them ("" when there are none)."""
    if not problems and not left_out:
        return ""
    counts = Counter(p.severity for p in problems)
    said = ", ".join(f"{n} {severity}(s)" for severity, n in sorted(counts.items()))
    left = f"; {left_out} record(s) left out of the build" if left_out else ""
    return f"{said or 'no problems'}{left} (benchgraph validate --data {data} lists them)"


def description(result, store=None, extra=(), reason: bool = False) -> list:
    """The dataset's VoID/DCAT description for a dump (the server holds it in what it serves;
    the build does not: see serving/description.py); with --with graphs (and --reason-with),
    of the store holding them, keyed as the server keys its data, made afresh."""
    from ..serving.description import cached, describe

    if extra:
        from ..serving.prepare import data_key

        return describe(store, data_key(result.key, list(extra), reason))
    return cached(result.open(), result.key, result.store_path.parent)


def remote(args):
    """The store server of --store (no --with: what it holds is what push sent)."""
    from .. import store

    if args.extra:
        raise CannotRun(
            "--with reads outside graphs into a local copy; with --store, push "
            "them to the store instead"
        )
    from ..query.inspect import check_store_query

    # every query sent is checked as the endpoint checks it; read with the serving account
    return store.open(args.store, gate=check_store_query)


def reading(args):
    """The store a command reads: --store's server, else the build of --data (with --with
    graphs beside it)."""
    from contextlib import nullcontext

    if getattr(args, "store", None):
        return nullcontext(remote(args))
    return joined(built(args).store_path, args.extra, args.reason_with)
