"""The explorer's rows (web/results.py): one per run from one query, a figure ranked only
within its metric and unit, facet counts among the rows the other filters keep."""

from __future__ import annotations

import pyoxigraph as ox

from benchgraph.web.results import build_results

BG = "https://w3id.org/benchgraph/ontology#"
ID = "https://w3id.org/benchgraph/id/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DEC = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")
INT = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")


def store_of(runs: list[tuple[str, str, str, str, str]]) -> ox.Store:
    """Runs as (id, value, unit, metric id, accelerator id), in one named graph each."""
    store = ox.Store()
    for rid, value, unit, metric, acc in runs:
        run, graph = ox.NamedNode(f"{ID}benchmarks/{rid}"), ox.NamedNode(f"urn:g:{rid}")
        for p, o in (
            (RDF_TYPE, ox.NamedNode(BG + "BenchmarkRun")),
            (BG + "recordId", ox.Literal(rid)),
            (RDFS_LABEL, ox.Literal(f"run {rid}")),
            (BG + "value", ox.Literal(value, datatype=DEC)),
            (BG + "unitCode", ox.Literal(unit)),
            (BG + "metric", ox.NamedNode(f"{ID}metrics/{metric}")),
            (BG + "accelerator", ox.NamedNode(f"{ID}accelerators/{acc}")),
            (BG + "acceleratorCount", ox.Literal("8", datatype=INT)),
        ):
            store.add(ox.Quad(run, ox.NamedNode(p), o, graph))
    return store


RUNS = [
    ("a", "100.5", "tok/s", "tok-s", "h100"),
    ("b", "3000", "ms", "ttft", "h100"),  # a bigger number of another metric
    ("c", "250.25", "tok/s", "tok-s", "l40s"),
    ("d", "20", "ms", "ttft", "l40s"),
]


def test_a_figure_is_ranked_only_within_its_metric_and_unit():
    table = build_results(store_of(RUNS))
    assert [r.id for r in table.rows] == ["a", "b", "c", "d"]
    order = table.orders["value"]
    ranked = sorted(range(4), key=order.desc.__getitem__)
    # each group best first, one after the other; 3000 ms never ranked above 250 tok/s
    groups = [table.rows[i].value.group for i in ranked]
    assert groups in (
        ["tok-s|tok/s", "tok-s|tok/s", "ttft|ms", "ttft|ms"],
        ["ttft|ms", "ttft|ms", "tok-s|tok/s", "tok-s|tok/s"],
    )
    by_group = {}
    for i in ranked:
        by_group.setdefault(table.rows[i].value.group, []).append(table.rows[i].value.value)
    assert all(values == sorted(values, reverse=True) for values in by_group.values())


def test_facet_counts_are_among_the_rows_the_other_filters_keep():
    table = build_results(store_of(RUNS))
    chosen = {"accelerator": ["l40s"]}
    assert [table.rows[i].id for i in table.select(table.keep(chosen))] == ["c", "d"]
    metrics = {key: n for key, _label, n in table.counts(chosen, "metric")}
    assert metrics == {"tok-s|tok/s": 1, "ttft|ms": 1}
    # a facet's own values stay choosable: both parts counted under the l40s filter
    parts = {key: n for key, _label, n in table.counts(chosen, "accelerator")}
    assert parts == {"h100": 2, "l40s": 2}
    assert table.keep({"accelerator": ["nothing-of-the-kind"]}) == 0
