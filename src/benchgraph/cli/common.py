"""What the commands share: the exit codes, the build of --data with its problems told on
stderr, and the store a command reads (the build, with --with graphs, or --store's server)."""

from __future__ import annotations

import sys
from collections import Counter

from ..errors import CannotRun
from ..store.extra import joined

# pySHACL's: 0 fine, 1 the records do not conform, 2 benchgraph cannot run
EXIT_OK, EXIT_INVALID, EXIT_CANNOT_RUN = 0, 1, 2


def built(args, skip_invalid: bool = True, summary_if_unchanged: bool = True):
    """Build (or reuse) the dataset of --data; report problems on stderr: each one when the
    records changed, else one line that counts them (`validate` lists them all)."""
    from ..pipeline.steps import build

    result = build(args.data, skip_invalid=skip_invalid)
    if summary_if_unchanged and not result.changed:
        if result.problems or result.left_out:
            counts = Counter(p.severity for p in result.problems)
            said = ", ".join(f"{n} {severity}(s)" for severity, n in sorted(counts.items()))
            left = f"; {len(result.left_out)} record(s) left out" if result.left_out else ""
            print(
                f"benchgraph: records unchanged since the last build: {said or 'no problems'}"
                f"{left} (benchgraph validate --data {args.data} lists them)",
                file=sys.stderr,
            )
        return result
    for problem in result.problems:
        print(problem, file=sys.stderr)
    for path, reason in sorted(result.left_out.items()):
        if not reason.startswith(path):
            print(f"{path}: left out: {reason}", file=sys.stderr)
    if result.left_out:
        print(f"{len(result.left_out)} record(s) left out of the build", file=sys.stderr)
    return result


def description(result, store=None, extra=(), reason: bool = False) -> list:
    """The dataset's VoID/DCAT description for a dump (the server holds it in what it serves;
    the build does not: see serving/description.py); with --with graphs (and --reason-with),
    of the store holding them, keyed as the server keys its data, made afresh."""
    from ..serving.description import cached, describe

    if extra:
        from ..serving.prepare import data_key

        return describe(store, data_key(result.key, list(extra), reason))
    return cached(result.open(), result.key, result.store_path.parent / "dumps")


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
