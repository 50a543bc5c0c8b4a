"""The dataset description's counts from the build cache (serving/counts.py) are the store's
own: on the shipped data, and after each kind of edit a rebuild counts again (a run, a
part's fabric that changes thousands of runs' derived quads, a record removed and one
added, a record removed alone); and they are refused where they could not be exact."""

from __future__ import annotations

import shutil

import pytest
import yaml

from benchgraph.namespaces import INFERRED_GRAPH
from benchgraph.pipeline import build
from benchgraph.serving import counts
from benchgraph.serving.description import describe
from paths import DATA


def _same_as_the_store(data) -> None:
    result = build(data, skip_invalid=True)
    store = result.open()
    found = counts.totals(result.store_path.parent, result.key, store)
    assert found is not None
    assert {str(q) for q in describe(store, result.key, found)} == {
        str(q) for q in describe(store, result.key)
    }


def _edit(path, change) -> None:
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(record)
    path.write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True), "utf-8")


@pytest.mark.slow
def test_the_counts_kept_per_graph_are_the_stores_after_every_kind_of_edit(copy_data):
    data = copy_data(DATA)
    result = build(data, skip_invalid=True)
    work, store = result.store_path.parent, result.open()
    # nothing kept yet: a command's or a server's start reads the store, as before
    assert counts.totals(work, result.key, store) is None
    started = counts.totals(work, result.key, store, start=True)
    assert started is not None
    assert {str(q) for q in describe(store, result.key, started)} == {
        str(q) for q in describe(store, result.key)
    }
    del store

    runs = sorted((data / "benchmarks").rglob("*.yaml"))
    _edit(runs[0], lambda r: r.update(title=r["title"] + " (edited)"))
    _same_as_the_store(data)

    part = data / "accelerators" / "nvidia-h100-sxm.yaml"
    _edit(
        part, lambda r: r.update(fabric="optional" if r.get("fabric") == "built-in" else "built-in")
    )
    _same_as_the_store(data)

    runs[1].unlink()
    copy = runs[2].with_name("copied-run-for-counts.yaml")
    shutil.copy(runs[2], copy)
    _edit(copy, lambda r: r.update(id="copied-run-for-counts"))
    _same_as_the_store(data)

    runs[3].unlink()  # a graph gone, none new: found by the number of graphs alone
    _same_as_the_store(data)


@pytest.mark.slow
def test_counts_of_another_build_are_not_given_for_this_one(copy_data):
    data = copy_data(DATA)
    first = build(data, skip_invalid=True)
    work = first.store_path.parent
    assert counts.totals(work, first.key, first.open(), start=True) is not None
    run = sorted((data / "benchmarks").rglob("*.yaml"))[0]
    _edit(run, lambda r: r.update(title=r["title"] + " (edited)"))
    second = build(data, skip_invalid=True)
    assert second.key != first.key
    # the cache now holds the second build: the first's store is not what it counts
    assert counts.totals(work, first.key, second.open()) is None
    assert counts.totals(work, second.key, second.open()) is not None


def test_a_source_in_a_graph_records_share_is_not_counted_as_a_sum():
    inferred = str(INFERRED_GRAPH)
    text = (
        f"<https://w3id.org/benchgraph/id/runs/a> <http://purl.org/dc/terms/source> "
        f"<https://w3id.org/benchgraph/id/runs/a#source-1> <{inferred}> .\n"
    )
    with pytest.raises(counts.Unsure):
        counts.count(text, (inferred,))


def test_lines_of_a_graph_not_named_are_not_counted():
    text = '<x:s> <x:p> "o" <x:elsewhere> .\n'
    with pytest.raises(counts.Unsure):
        counts.count(text, (str(INFERRED_GRAPH),))


def test_a_records_counts_by_kind_property_class_and_link():
    graph = "https://w3id.org/benchgraph/graph/accelerators/a"
    links = counts.LINKS
    text = (
        f"<x:a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <x:Part> <{graph}> .\n"
        f'<x:a> <x:name> "A b c" <{graph}> .\n'
        f"<x:a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <x:Thing> "
        f"<{counts.INFERRED}> .\n"
        f"<x:a> <http://www.w3.org/2004/02/skos/core#exactMatch> "
        f"<http://www.wikidata.org/entity/Q1> <{links}> .\n"
    )
    found = counts.count(text, (graph, counts.INFERRED, links))
    assert found["kind\taccelerators"] == 1 and found["triples\taccelerators"] == 2
    assert found[f"graph\t{counts.INFERRED}"] == 1 and found[f"graph\t{links}"] == 1
    assert found["class\tx:Part"] == 1 and found["class\tx:Thing"] == 1
    assert found["property\thttp://www.w3.org/1999/02/22-rdf-syntax-ns#type"] == 2
    assert (
        found[
            'link\t["http://www.w3.org/2004/02/skos/core#exactMatch", "http://www.wikidata.org/"]'
        ]
        == 1
    )
