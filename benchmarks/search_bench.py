"""What a search costs on the shipped data: `/search?q=` answers from the catalogue's index
(web/catalogue.py), which must answer in under 50 ms; measured here, never asserted in a test.

For each query: the index's own time (median and 95th percentile of repeated runs), and, as
the peer in the same run, the same search asked of the store in SPARQL (each word in a label
or id, case folded: `FILTER(CONTAINS(LCASE(?text), "h200") && ...)`), which is what /search
would cost without the index. Also the catalogue's build (once per served snapshot, in the
background). Writes benchmarks/reports/search.md.

    python benchmarks/search_bench.py [--data data] [--repeat 50]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import time
from pathlib import Path

from benchgraph.namespaces import PREFIXES
from benchgraph.pipeline.steps import build
from benchgraph.web.catalogue import build_catalogue

HERE = Path(__file__).resolve().parent
QUERIES = [
    "H200",
    "h100 sxm",
    "h100sxm",
    "MI300X",
    "rtx pro 6000",
    "nvlink",
    "llama2-70b",
    "llama2-70b-99 offline",
    "sglang",
    "gb200 nvl72",
    "nvidia",
    "dell xe9680",
    "tpu",
    "xyzzy",
    "a",
]


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE.parent / "data")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--out", type=Path, default=HERE / "reports" / "search.md")
    args = parser.parse_args()
    store = build(args.data, skip_invalid=True).open()
    load = os.getloadavg()[0]
    builds = timed(lambda: build_catalogue(store), 3)
    catalogue = build_catalogue(store)
    records = len(catalogue.by_iri)
    lines = []
    worst, slowest = 0.0, ""
    for q in QUERIES:
        times = timed(lambda q=q: catalogue.index.search(q), args.repeat)
        hits = catalogue.index.search(q, limit=None)
        words = [w for w in q.lower().split() if w]
        test = " && ".join(f'CONTAINS(LCASE(?text), "{w}")' for w in words)
        lookup = (
            "SELECT DISTINCT ?r WHERE { ?r bg:recordId ?id . "
            "{ ?r rdfs:label ?text } UNION { BIND(?id AS ?text) } "
            f"FILTER({test}) }}"
        )
        peer = timed(
            lambda lookup=lookup: list(
                store.query(lookup, use_default_graph_as_union=True, prefixes=PREFIXES)
            ),
            max(3, args.repeat // 10),
        )
        median, peer_median = statistics.median(times), statistics.median(peer)
        if p95(times) > worst:
            worst, slowest = p95(times), q
        lines.append(
            f"| `{q}` | {len(hits):,} | {median * 1000:.2f} | {p95(times) * 1000:.2f} "
            f"| {peer_median * 1000:.0f} | {peer_median / median:.0f} |"
        )
    report = [
        "# Search on the shipped data",
        "",
        f"{dt.date.today().isoformat()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} cores, load {load:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end; `python benchmarks/search_bench.py "
        f"--repeat {args.repeat}`.",
        "",
        f"{records:,} records, {len(catalogue.index.items):,} items in the index's "
        f"vocabulary. The catalogue (every kind's rows, facets and the index) builds in "
        f"{statistics.median(builds):.2f} s (median of 3), once per served snapshot, "
        "in the background as the snapshot is opened.",
        "",
        "| query | records found | search median (ms) | search p95 (ms) "
        "| the same in SPARQL, median (ms) | SPARQL / search |",
        "|---|---:|---:|---:|---:|---:|",
        *lines,
        "",
        f"Slowest 95th percentile: {worst * 1000:.1f} ms, for `{slowest}` (the target: under "
        "50 ms). The dearest queries hold words found in many names: each record a word is "
        "found in is scored. A word of one or two letters (`a`) matches word starts only. "
        "The SPARQL peer matches substrings only (no ranking, no ids split into words, no "
        "aliases).",
        "",
    ]
    args.out.write_text("\n".join(report), encoding="utf-8")
    print("\n".join(report))


if __name__ == "__main__":
    main()
