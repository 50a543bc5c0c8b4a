"""What a page of the results explorer (/explore) costs at 100k runs: the shipped records, their
runs copied to `--runs` (benchmarks/synth.py's replicate, so the facets are MLPerf's and the
other sources' own), built and served by the app in this process (Flask's test client: the
whole request, HTML rendered, no network).

For each filter: the page's median and 95th percentile over `--repeat` requests (each a full
render, no ETag sent), after one request that makes the explorer's rows (web/results.py, once
per served snapshot; its time is reported apart). As the peer in the same run, the same filter
asked of an Oxigraph server (tests/stores/servers.py, on a copy of the same store) in SPARQL:
the page's rows (results.py's query with the filter's patterns, ORDER BY, LIMIT), and those
rows with each facet's counts (one GROUP BY query a facet), which is what the page would cost
if it asked a store on each request. Writes benchmarks/reports/explore.md.

    python benchmarks/explore_bench.py [--runs 100000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))
from synth import replicate  # noqa: E402

from benchgraph.namespaces import PREFIXES  # noqa: E402
from benchgraph.web.results import QUERY  # noqa: E402
from stores import servers  # noqa: E402 - the tests' servers, as the store tests start them

# The filters measured: what an analyst's first questions narrow to (README, the explorer).
FILTERS = [
    ("no filter", ""),
    ("llama2-70b, Offline, closed", "model=llama2-70b&scenario=Offline&division=closed"),
    (
        "llama2-70b Offline, by efficiency",
        "model=llama2-70b&scenario=Offline&sort=efficiency",
    ),
    (
        "H100 SXM and L40S, 4 or 8",
        "accelerator=nvidia-h100-sxm&accelerator=nvidia-l40s&count=4&count=8",
    ),
    ("MI300X", "accelerator=amd-instinct-mi300x"),
    ("no scale-up fabric, MLPerf v4.1", "fabric=NoScaleUpFabric&source=MLCommons+v4.1"),
]
# Each facet's SPARQL path, and how a filter value is written in SPARQL, for the peer.
PATHS = {
    "source": ("dct:source/dct:publisher", None),
    "division": ("bg:division", "literal"),
    "model": ("bg:model", "<https://w3id.org/benchgraph/id/models/{}>"),
    "benchmark": ("bg:benchmarkName", "literal"),
    "scenario": ("bg:scenario", "literal"),
    "target": ("bg:accuracyTarget", "number"),
    "metric": ("bg:metric", None),
    "accelerator": ("bg:accelerator", "<https://w3id.org/benchgraph/id/accelerators/{}>"),
    "vendor": ("bg:accelerator/bg:madeBy", None),
    "count": ("bg:acceleratorCount", "number"),
    "fabric": ("bg:fabricStatus", "bg:{}"),
    "engine": ("bg:engine", "<https://w3id.org/benchgraph/id/engines/{}>"),
}
FIGURE_ORDER = {"value": "?value", "efficiency": "?eff", "power": "?watts"}


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def patterns(args: dict[str, list[str]], but: str | None = None) -> str:
    """The filter as SPARQL: a VALUES of the values chosen for each facet (as the page ORs
    them), joined with the run."""
    out = []
    for i, (facet, values) in enumerate(args.items()):
        if facet not in PATHS or facet == but:
            continue
        path, form = PATHS[facet]
        if facet == "source":  # "MLCommons v4.1": the publisher and the round
            publisher, _, round_ = values[0].rpartition(" ")
            out.append(
                f'?run dct:source ?s{i} . ?s{i} dct:publisher "{publisher}" ; bg:round "{round_}" .'
            )
            continue
        terms = [
            json.dumps(v) if form == "literal" else v if form == "number" else form.format(v)
            for v in values
        ]
        out.append(f"?run {path} ?f{i} . VALUES ?f{i} {{ {' '.join(terms)} }}")
    return "\n  ".join(out)


def rows_query(args: dict[str, list[str]], sort: str, per: int = 100) -> str:
    anchor = "?run a bg:BenchmarkRun ; bg:recordId ?id ."
    text = QUERY.replace(anchor, anchor + "\n  " + patterns(args), 1)
    return text + f"ORDER BY DESC({FIGURE_ORDER.get(sort, '?value')}) LIMIT {per}\n"


def facet_query(args: dict[str, list[str]], facet: str) -> str:
    path = PATHS[facet][0]
    return (
        "SELECT ?v (COUNT(DISTINCT ?run) AS ?n) WHERE {\n  ?run a bg:BenchmarkRun .\n  "
        + patterns(args, but=facet)
        + f"\n  ?run {path} ?v .\n}} GROUP BY ?v"
    )


PEER_TIMEOUT = 60  # seconds the peer server lets a query run (the tests' servers: 10)


class TimedOut(Exception):
    """The server stopped the query at its time limit (PEER_TIMEOUT)."""


def start_peer(folder: Path) -> servers.Server:
    """`oxigraph serve-read-only` on the store in `folder`, as tests/stores/servers.py starts
    it but with a longer time limit: the peer's filtered queries take longer than 10 s."""
    import subprocess

    port = servers.free_port()
    log = folder / "oxigraph.log"
    proc = subprocess.Popen(
        [
            servers.oxigraph_binary(),
            "serve-read-only",
            "--location",
            str(folder / "store"),
            "--bind",
            f"127.0.0.1:{port}",
            "--union-default-graph",
            "--timeout-s",
            str(PEER_TIMEOUT),
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    server = servers.Server("oxigraph", f"{base}/query", f"{base}/store", proc, log)
    servers._wait(server.query, proc, log)
    return server


def ask(server_url: str, text: str) -> int:
    prologue = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
    body = urllib.parse.urlencode({"query": prologue + text}).encode()
    request = urllib.request.Request(
        server_url,
        data=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/sparql-results+json",
        },
    )
    with urllib.request.urlopen(request, timeout=PEER_TIMEOUT * 2) as r:
        body = r.read()
    try:
        return len(json.loads(body)["results"]["bindings"])
    except ValueError as exc:  # cut off: the server's limit stopped it while it streamed
        raise TimedOut() from exc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--peer-repeat", type=int, default=5)
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "explore.md")
    parser.add_argument("--work", type=Path, default=None, help="keep the built data here")
    options = parser.parse_args()

    from benchgraph.pipeline.steps import build
    from benchgraph.serving.prepare import prepare
    from benchgraph.web import create_app
    from benchgraph.web.explore import results

    work = options.work or Path(tempfile.mkdtemp(prefix="benchgraph-explore-bench-"))
    records = work / "records"
    if not records.exists():
        replicate(options.data, records, options.runs)
    os.environ.setdefault("BENCHGRAPH_CACHE", str(work / "cache"))
    started = time.perf_counter()
    result = build(records, skip_invalid=True)
    built = time.perf_counter() - started
    served = prepare(result, [])
    started = time.perf_counter()  # the rows are made ahead as the app opens its snapshot
    app = create_app(
        served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1, "DUMPS_AHEAD": False}
    )
    client = app.test_client()
    with app.test_request_context("/explore"):
        app.preprocess_request()
        table = results()
        made = time.perf_counter() - started
    n_rows = len(table.rows)
    lines = []
    for name, query in FILTERS:
        url = "/explore" + ("?" + query if query else "")
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        shown = client.get(url + ("&" if query else "?") + "format=json")
        total = shown.json["total"]
        times = timed(lambda url=url: client.get(url).close(), options.repeat)
        lines.append([name, query, total, times])
        print(name, total, f"{statistics.median(times) * 1000:.1f} ms", flush=True)
    app.extensions["benchgraph"].close()

    # the peer: the same store, copied, under an Oxigraph server
    copy = work / "oxigraph"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(served.store_path, copy / "store")
    server = start_peer(copy)
    try:
        for line in lines:
            args = urllib.parse.parse_qs(line[1])
            sort = (args.pop("sort", ["value"]))[0]
            rows_text = rows_query(args, sort)
            facets = [facet_query(args, f) for f in PATHS]

            def page(rows_text=rows_text, facets=facets):
                ask(server.query, rows_text)
                for f in facets:
                    ask(server.query, f)

            rows_times = page_times = None
            if line[1]:  # the target is a filtered page; the whole table is not asked
                try:
                    ask(server.query, rows_text)  # warm
                    rows_times = timed(
                        lambda t=rows_text: ask(server.query, t), options.peer_repeat
                    )
                    page_times = timed(page, 1)
                except TimedOut:
                    pass
            line += [rows_times, page_times]
            print(line[0], "peer done", flush=True)
    finally:
        server.stop()
        served.cleanup()

    ms = lambda v: f"{v * 1000:.1f}"  # noqa: E731
    out = [
        "# Explorer benchmark",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {dt.date.today().isoformat()}.",
        "",
        "Command: `python benchmarks/explore_bench.py "
        f"--runs {options.runs} --repeat {options.repeat} --peer-repeat {options.peer_repeat}`",
        "",
        f"Records: the shipped data/, its runs copied to {options.runs:,} (`synth.replicate`): "
        f"{n_rows:,} explorer rows. Build {built:.1f} s (from the build cache when the folder "
        f"is kept: `--work`). The app opened, then in its background thread the browse pages' "
        f"catalogue and after it the explorer's rows (one SPARQL query, and each column's "
        f"order) made from the store, in {made:.1f} s: once per served snapshot.",
        "",
        "Page: `GET /explore?...` through the app (Flask's test client, the HTML rendered: 100 "
        "rows, every facet's counts, the chart's data), median and p95 of "
        f"{options.repeat} requests. Peer: the same filter as SPARQL on an Oxigraph server "
        "(`oxigraph serve-read-only` on a copy of the store, over HTTP on 127.0.0.1): the "
        "page's rows alone (the explorer's query with the filter, ORDER BY, LIMIT 100), and "
        f"the rows with one GROUP BY query per facet ({len(PATHS)}): the rows' median of "
        f"{options.peer_repeat} after one to warm, the rows with the facets once; the server's "
        f"time limit {PEER_TIMEOUT} s.",
        "",
        "| filter | runs kept | page median ms | page p95 ms | Oxigraph rows median ms "
        "| Oxigraph rows + facets ms | x (rows + facets / page) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, query, total, times, rows_times, page_times in lines:
        med = statistics.median(times)
        peer = statistics.median(page_times) if page_times else None
        cut = f"over {PEER_TIMEOUT} s (stopped)" if query else "not asked"
        out.append(
            f"| {name} (`{query or '-'}`) | {total:,} | {ms(med)} | {ms(p95(times))} | "
            f"{ms(statistics.median(rows_times)) if rows_times else cut} | "
            f"{ms(peer) if peer else cut} | {f'{peer / med:.1f}' if peer else '-'} |"
        )
    worst = max(statistics.median(line[3]) for line in lines if line[1])
    out += [
        "",
        "Target: a filtered page in at most 300 ms median. Slowest filtered median here: "
        f"{ms(worst)} ms ({'met' if worst <= 0.3 else 'NOT met'}).",
        "",
    ]
    options.report.write_text("\n".join(out), encoding="utf-8")
    print("\n".join(out))
    if not options.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
