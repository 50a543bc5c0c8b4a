"""The explorer's rows (web/results.py): one per run from one query, a figure ranked only
within its metric and unit, facet counts among the rows the other filters keep."""

from __future__ import annotations

import logging

import pyoxigraph as ox
import pytest

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


def test_workload_precision_and_status_narrow_to_one_comparable_group():
    """The conditions that make two rows of one table comparable (NVIDIA's tables give each
    part at many input/output lengths, and the A100 at FP16 beside FP8 parts) are filters."""
    store = store_of(RUNS)
    a, c = ox.NamedNode(f"{ID}benchmarks/a"), ox.NamedNode(f"{ID}benchmarks/c")
    g = ox.NamedNode("urn:g:a")
    setting = ox.BlankNode()
    for s, p, o in (
        (a, "inputTokens", ox.Literal("128", datatype=INT)),
        (a, "outputTokens", ox.Literal("2048", datatype=INT)),
        (c, "batchSize", ox.Literal("64", datatype=INT)),
        (a, "setting", setting),
        (setting, "settingName", ox.Literal("precision")),
        (setting, "settingValue", ox.Literal("FP8")),
        (a, "status", ox.NamedNode(BG + "Verified")),
    ):
        store.add(ox.Quad(s, ox.NamedNode(BG + p), o, g))
    table = build_results(store)
    rows = {r.id: r for r in table.rows}
    assert rows["a"].labels("workload") == "128 in / 2048 out"
    assert rows["c"].labels("workload") == "batch 64"
    assert rows["a"].labels("precision") == "FP8" and rows["c"].labels("precision") == ""
    assert [key for key, _label in rows["a"].facets["status"]] == ["Verified"]
    kept = table.keep({"workload": ["128 in / 2048 out"], "precision": ["FP8"]})
    assert [table.rows[i].id for i in table.select(kept)] == ["a"]


class _Pool:
    def close(self) -> None:
        pass


def _snapshot(path) -> object:
    from benchgraph.web.site import Snapshot

    return Snapshot(path, "key", _Pool(), path, id="s1")


@pytest.mark.parametrize("when", ["before", "while"])
def test_rows_made_ahead_stop_quietly_once_their_snapshot_is_closed(tmp_path, caplog, when):
    """A snapshot swapped out (or an app shut) while its rows are made ahead: its folder may go
    under them, and nobody will ask for them; nothing is logged as an error."""
    from benchgraph.web.explore import make_ahead

    snapshot = _snapshot(tmp_path / "gone")  # its store's folder removed, as at a teardown
    if when == "before":
        snapshot.close()
    else:

        def closed_as_read():
            snapshot.close()  # the app shuts as the rows are being made
            raise FileNotFoundError(tmp_path / "gone" / "CURRENT")

        snapshot.store = closed_as_read
    with caplog.at_level("DEBUG", logger="benchgraph.web"):
        make_ahead(snapshot)
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []


def test_rows_that_fail_on_an_open_snapshot_are_logged(tmp_path):
    """Read from the module's own logger: in a whole suite's run the record once missed the
    root logger's capture (what else in the process had set logging up is not known)."""
    from benchgraph.web import explore

    snapshot = _snapshot(tmp_path / "gone")  # served, yet its store cannot be read: a fault
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = records.append
    logger = explore.log
    was = logger.disabled
    logger.disabled = False
    logger.addHandler(handler)
    try:
        explore.make_ahead(snapshot)
    finally:
        logger.removeHandler(handler)
        logger.disabled = was
    (error,) = [r for r in records if r.levelname == "ERROR"]
    assert "explorer rows not made ahead" in error.getMessage()
    assert error.exc_info and issubclass(error.exc_info[0], OSError)
