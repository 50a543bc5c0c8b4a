"""How long an over-budget query takes to be refused: the texts of issue 35, each through the
checks a query worker runs before anything is parsed or sent (the embedded store's
`needs_parse`, then the SERVICE check and the parse where those pass; a store server's
`check_remote`, then the same), timed in this process.

    .venv/bin/python benchmarks/refusal_bench.py [--runs N]

Prints, for each text, its size, the refusal's code and the median and worst of N runs (each
on a fresh cache: the one pass over a text, query/lexicon.py, is kept per text), and the same
for a saved query that passes (its checks and its parse), as the peer: the cost a refusal adds
to nothing. Report: benchmarks/reports/refusal.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

from benchgraph.errors import QueryRefused
from benchgraph.query import lexicon
from benchgraph.query.inspect import (
    _inspect,
    check_remote,
    inspect_query,
    needs_parse,
    refuse_service_early,
)
from benchgraph.query.saved import saved_queries


def texts() -> dict[str, str]:
    """The over-budget texts: 10,000 `||` in a FILTER (125 KB), 10,000 values in IN, a
    10,000-member collection, 3,000 OPTIONALs, 10,000 path alternatives, a 100,000-row
    VALUES with a FROM."""
    return {
        "FILTER with 10,000 ||": "SELECT * WHERE { ?s ?p ?o FILTER("
        + " || ".join(f"?o = {i}" for i in range(10_001))
        + ") }",
        "10,000 values in IN": "SELECT * WHERE { ?s ?p ?o FILTER(?o IN ("
        + ", ".join(str(i) for i in range(10_000))
        + ")) }",
        "10,000-item collection": "SELECT * WHERE { ?s ?p ("
        + " ".join(str(i) for i in range(10_000))
        + ") }",
        "3,000 OPTIONALs": "SELECT * WHERE { ?s ?p ?o "
        + " ".join(f"OPTIONAL {{ ?s ?p{i} ?o{i} }}" for i in range(3_000))
        + " }",
        "10,000 path alternatives": "SELECT * WHERE { ?s "
        + "|".join(f"<urn:p{i}>" for i in range(10_000))
        + " ?o }",
        "100k-row VALUES with FROM": "SELECT * FROM <https://w3id.org/benchgraph/ontology> "
        "WHERE { ?s ?p ?o } VALUES ?o { " + " ".join(str(i) for i in range(100_000)) + " }",
    }


def embedded(text: str) -> None:
    """The embedded store's checks, in the worker's order (web/queryworker.py)."""
    if needs_parse(text):
        refuse_service_early(text, ())
        inspect_query(text, None, ())


def remote(text: str) -> None:
    """A store server's checks, in the worker's order."""
    check_remote(text, None, ())
    refuse_service_early(text, ())
    inspect_query(text, None, ())


def timed(check, text: str, runs: int) -> tuple[str, list[float]]:
    times, code = [], "passed"
    for _ in range(runs):
        lexicon.clear_cache()
        _inspect.cache_clear()
        start = time.perf_counter()
        try:
            check(text)
        except QueryRefused as exc:
            code = exc.code
        times.append(time.perf_counter() - start)
    return code, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    cases = texts()
    cases["peer: saved scaling-by-fabric (passes)"] = saved_queries()["scaling-by-fabric"].text
    print(f"| text | KB | store | refusal | median ms | worst ms |  ({args.runs} runs)")
    print("|---|---|---|---|---|---|")
    for name, text in cases.items():
        for where, check in (("embedded", embedded), ("store server", remote)):
            code, times = timed(check, text, args.runs)
            print(
                f"| {name} | {len(text.encode()) / 1000:,.0f} | {where} | {code} | "
                f"{statistics.median(times) * 1000:,.1f} | {max(times) * 1000:,.1f} |"
            )


if __name__ == "__main__":
    main()
