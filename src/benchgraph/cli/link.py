"""`benchgraph link`: propose links to outside entities, or accept a curator's."""

from __future__ import annotations

import sys
from pathlib import Path

from .common import EXIT_OK, data_folder
from .options import command, data_option


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    from ..links.reconcile import MIN_CONFIDENCE, WD, WIKIDATA_SPARQL
    from ..links.sparql import MAX_RESULT_MB, TIMEOUT, USER_AGENT

    p = command(
        sub,
        "link",
        "Propose links from records to the entities of a SPARQL endpoint (Wikidata's "
        "by default) as an SSSOM file to review, or accept the rows a curator kept.",
        "benchgraph link --data data --out links.sssom.tsv\n"
        "  benchgraph link --data data --accept links.sssom.tsv --curator 'A. Curator'",
    )
    data_option(p)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--out",
        type=Path,
        metavar="FILE.sssom.tsv",
        help="write one best proposal per record without a link (and, beside "
        "it, FILE.sssom.tsv.proposed: what was proposed, to tell the rows a "
        "curator deletes)",
    )
    mode.add_argument(
        "--accept",
        type=Path,
        metavar="FILE.sssom.tsv",
        help="write the file's rows into the records' same_as; rows deleted "
        "from it are remembered as rejected (data/rejected-mappings.sssom.tsv)",
    )
    p.add_argument(
        "--endpoint",
        default=WIKIDATA_SPARQL,
        metavar="URL",
        help="SPARQL endpoint (default: %(default)s)",
    )
    p.add_argument(
        "--min-confidence",
        type=float,
        default=MIN_CONFIDENCE,
        metavar="X",
        help="leave out proposals below this (default: %(default)g)",
    )
    p.add_argument(
        "--namespace",
        default=WD,
        metavar="IRI",
        help="the entities that count as a link (default: %(default)s)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="SECONDS",
        help="the most one request to the endpoint takes, all of it: connecting, "
        "redirects and the whole answer (default: %(default)g)",
    )
    p.add_argument(
        "--max-result-mb",
        type=float,
        default=MAX_RESULT_MB,
        metavar="MB",
        help="the largest answer read from the endpoint; a bigger one is an error "
        "(default: %(default)g)",
    )
    p.add_argument(
        "--user-agent",
        default=USER_AGENT,
        help="sent to the endpoint; name how to reach you (default: %(default)s)",
    )
    p.add_argument("--curator", help="who accepts (default: git's user.name)")
    p.set_defaults(run=run)


def run(args) -> int:
    import datetime as dt

    from ..links.accept import PROPOSED, accept, rejected_pairs, write_proposals

    data_folder(args)
    if args.accept:
        done = accept(args.data, args.accept, args.curator)
        for path in done.written:
            print(f"linked: {path}", file=sys.stderr)
        print(
            f"{len(done.written)} record(s) written, {done.unchanged} row(s) already there, "
            f"{done.rejected} deleted row(s) remembered as rejected",
            file=sys.stderr,
        )
        if not done.compared:
            print(
                f"benchgraph: no {args.accept.name}{PROPOSED} beside it (written by --out): "
                "deleted rows could not be told, none was remembered",
                file=sys.stderr,
            )
        return EXIT_OK
    from ..links.reconcile import Reconciler, proposal_set, subjects
    from ..links.sparql import Endpoint

    endpoint = Endpoint(args.endpoint, args.user_agent, args.timeout, args.max_result_mb)
    reconciler = Reconciler(endpoint, args.namespace, rejected_pairs(args.data))
    proposals = reconciler.propose(subjects(args.data))
    ms, below = proposal_set(
        proposals, args.min_confidence, args.endpoint, dt.date.today().isoformat()
    )
    write_proposals(ms, args.out)
    for note in reconciler.notes:
        print(f"benchgraph: {note}", file=sys.stderr)
    print(
        f"{len(ms.rows)} proposal(s) written to {args.out} ({below} below "
        f"{args.min_confidence:g} left out; {endpoint.requests} request(s) to "
        f"{args.endpoint}); nothing is linked until `benchgraph link --accept {args.out}`",
        file=sys.stderr,
    )
    return EXIT_OK
