"""Dumps: every quad once, in a fixed order, the same whether sorted in memory or in runs
on disk (what a dump of 100k records does)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pyoxigraph as ox
import pytest

from benchgraph.pipeline.steps import build
from benchgraph.store import export
from paths import TEST_DATA


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import os

    os.environ["BENCHGRAPH_CACHE"] = str(tmp_path_factory.mktemp("export-cache"))
    return build(TEST_DATA / "fabric").open()


def test_sorted_unique_merges_runs_on_disk(monkeypatch, tmp_path):
    monkeypatch.setattr(export, "RUN_LINES", 7)
    rng = random.Random(5)
    lines = [f'<s{rng.randrange(40)}> <p> "{rng.choice("aé€")}" .\n'.encode() for _ in range(200)]
    out = list(export.sorted_unique(lines, str(tmp_path)))
    assert out == sorted(set(lines))
    assert [line.decode() for line in out] == sorted({line.decode() for line in lines})
    assert not list(tmp_path.iterdir())  # the runs are gone once merged


def test_sorted_unique_reads_on_after_a_run_of_duplicates(monkeypatch, tmp_path):
    monkeypatch.setattr(export, "RUN_LINES", 7)
    lines = [b"<b> <p> <o> .\n"] * 10 + [b"<a> <p> <o> .\n", b"<c> <p> <o> .\n"]
    assert list(export.sorted_unique(lines, str(tmp_path))) == sorted(set(lines))


@pytest.mark.parametrize("fmt", list(export.FORMATS))
def test_dump_in_runs_is_the_dump_in_memory(store, monkeypatch, fmt):
    whole = export.dumps(store, fmt)
    monkeypatch.setattr(export, "RUN_LINES", 97)  # the fixture's 2k quads: many runs
    monkeypatch.setattr(export, "PARSE_LINES", 13)
    assert export.dumps(store, fmt) == whole


def test_nquads_dump_is_every_quad_once_in_line_order(store):
    lines = export.dumps(store, "nq").decode().splitlines()
    assert lines == sorted(set(lines))
    assert len(lines) == len(store)
    dumped = set(ox.parse(export.dumps(store, "nq"), ox.RdfFormat.N_QUADS))
    assert dumped == set(store)


def test_triple_dumps_are_the_union_each_triple_once(store):
    union = {
        (r["s"], r["p"], r["o"])
        for r in store.query(
            "SELECT DISTINCT ?s ?p ?o WHERE { ?s ?p ?o }", use_default_graph_as_union=True
        )
    }
    for fmt, rdf in (
        ("nt", ox.RdfFormat.N_TRIPLES),
        ("ttl", ox.RdfFormat.TURTLE),
        ("rdf", ox.RdfFormat.RDF_XML),
    ):
        text = export.dumps(store, fmt)
        parsed = [(q.subject, q.predicate, q.object) for q in ox.parse(text, rdf)]
        assert len(parsed) == len(set(parsed)) == len(union), fmt
        assert set(parsed) == union, fmt
    lines = export.dumps(store, "nt").decode().splitlines()
    assert lines == sorted(lines)


def test_quad_dumps_go_graph_by_graph(store):
    for fmt, rdf in (("trig", ox.RdfFormat.TRIG), ("jsonld", ox.RdfFormat.JSON_LD)):
        quads = list(ox.parse(export.dumps(store, fmt), rdf))
        assert set(quads) == set(store), fmt
        graphs = [str(q.graph_name) for q in quads]
        assert graphs == sorted(graphs), fmt  # each graph whole, in the order of its name


def test_dump_leaves_no_temporary_files(store, monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(export, "RUN_LINES", 97)
    for fmt in export.FORMATS:
        export.dumps(store, fmt)
    assert not list(tmp_path.iterdir())


def test_dump_to_a_file_sorts_beside_it(store, monkeypatch, tmp_path):
    monkeypatch.setattr(export, "RUN_LINES", 97)
    seen = []
    spill = tempfile.TemporaryFile

    def spy(*args, **kwargs):
        seen.append(kwargs.get("dir"))
        return spill(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", spy)
    out = tmp_path / "dumps" / "benchgraph.nq"
    export.dump(store, "nq", out)
    assert seen and all(Path(d).parent == out.parent for d in seen)
    assert [p.name for p in out.parent.iterdir()] == ["benchgraph.nq"]
    assert out.read_bytes() == export.dumps(store, "nq")


def test_export_command_writes_rdf_xml(tmp_path, monkeypatch, capsys):
    """`benchgraph export --format rdf` (the server offered RDF/XML; the command refused it)."""
    from benchgraph.cli.main import main

    out = tmp_path / "benchgraph.rdf"
    assert (
        main(["export", "--data", str(TEST_DATA / "fabric"), "--format", "rdf", "--out", str(out)])
        == 0
    )
    triples = list(ox.parse(path=str(out), format=ox.RdfFormat.RDF_XML))
    assert triples and out.read_bytes().startswith(b"<?xml")
