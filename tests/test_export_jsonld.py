"""The JSON-LD dump: an @context of the dump prefixes, compact keys, and the same dataset
when read back (rdflib.compare, graph by graph; and pyoxigraph's reader), byte-identical from
`benchgraph export` and from the server's /dumps/."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pyoxigraph as ox
import pytest
from rdflib import Dataset, URIRef
from rdflib.compare import graph_diff, to_isomorphic

from benchgraph.pipeline.steps import build
from benchgraph.store import export
from benchgraph.store.export import DUMP_PREFIXES
from paths import TEST_DATA

BG = "https://w3id.org/benchgraph/ontology#"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import os

    os.environ["BENCHGRAPH_CACHE"] = str(tmp_path_factory.mktemp("jsonld-cache"))
    return build(TEST_DATA / "fabric").open()


def _graphs(quads_or_dataset) -> dict[str, object]:
    """Each graph (by name; "" the default) as an isomorphic rdflib graph."""
    out: dict[str, Dataset] = {}
    ds = quads_or_dataset
    if not isinstance(ds, Dataset):
        ds = Dataset()
        ds.parse(
            data=ox.serialize(list(quads_or_dataset), format=ox.RdfFormat.N_QUADS), format="nquads"
        )
    for graph in ds.graphs():
        name = "" if graph.identifier == URIRef("urn:x-rdflib:default") else str(graph.identifier)
        if len(graph):
            out[name] = to_isomorphic(graph)
    return out


def _same(expected: dict, got: dict) -> None:
    assert sorted(got) == sorted(expected)
    for name, graph in expected.items():
        if got[name] != graph:
            _both, only_expected, only_got = graph_diff(graph, got[name])
            raise AssertionError(
                f"graph {name!r}: only in the store {sorted(only_expected)[:5]}, "
                f"only in the dump {sorted(only_got)[:5]}"
            )


def test_the_dump_has_the_prefixes_as_its_context_and_compact_keys(store):
    doc = json.loads(export.dumps(store, "jsonld"))
    assert doc["@context"] == DUMP_PREFIXES
    keys = {k for g in doc["@graph"] for node in g.get("@graph", [g]) for k in node}
    assert "bg:fabricStatus" in keys and "rdfs:label" in keys
    spaces = tuple(DUMP_PREFIXES.values())
    assert not any(k.startswith(spaces) for k in keys), [k for k in keys if k.startswith(spaces)]
    ids = [v for node in _walk(doc["@graph"]) for k in ("@id", "@type") for v in _many(node, k)]
    assert "bg:NoScaleUpFabric" in ids
    assert not any(v.startswith(BG) for v in ids)  # every bg: IRI compact, values too


def _walk(value):
    if isinstance(value, list):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk(item)


def _many(node: dict, key: str) -> list:
    value = node.get(key, [])
    return value if isinstance(value, list) else [value]


def test_the_dump_reads_back_as_the_same_dataset(store):
    text = export.dumps(store, "jsonld")
    parsed = Dataset()
    parsed.parse(data=text, format="json-ld")
    _same(_graphs(store), _graphs(parsed))
    assert set(ox.parse(text, ox.RdfFormat.JSON_LD)) == set(store)  # pyoxigraph's reader too


def test_awkward_terms_read_back_unchanged(tmp_path):
    """Blank nodes, language tags, typed literals, a blank type, and IRIs a JSON-LD reader
    would take for compact IRIs as they stand (scheme `bg`, a `//` after a namespace)."""
    g = ox.NamedNode("http://example.org/g")
    odd = ox.NamedNode("bg:looks-compact")
    b = ox.BlankNode("b1")
    p = ox.NamedNode(BG + "p")
    quads = [
        ox.Quad(ox.NamedNode(BG + "s"), p, ox.Literal("chat", language="fr"), g),
        ox.Quad(
            ox.NamedNode(BG + "s"),
            p,
            ox.Literal("12", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
            g,
        ),  # fmt: skip
        ox.Quad(b, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), b, g),
        ox.Quad(odd, p, ox.NamedNode("https://schema.org//double"), g),
        ox.Quad(ox.NamedNode(BG + "s"), p, odd, ox.DefaultGraph()),
        ox.Quad(ox.NamedNode(BG + "t"), p, ox.Literal('"quoted"\n\\'), odd),
    ]
    store = ox.Store()
    store.extend(quads)
    text = export.dumps(store, "jsonld")
    parsed = Dataset()
    parsed.parse(data=text, format="json-ld")
    _same(_graphs(quads), _graphs(parsed))
    read = list(ox.parse(text, ox.RdfFormat.JSON_LD))  # pyoxigraph's reader too
    plain = [q for q in quads if not isinstance(q.subject, ox.BlankNode)]
    assert len(read) == len(quads) and set(plain) <= set(read)


def test_export_and_the_server_give_the_same_bytes(tmp_path, monkeypatch):
    from benchgraph.cli.main import main
    from benchgraph.serving.prepare import prepare
    from benchgraph.web import create_app

    data = TEST_DATA / "fabric"
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    served = prepare(build(data, skip_invalid=True), [])
    app = create_app(
        served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1, "DUMPS_AHEAD": False}
    )
    try:
        response = app.test_client().get("/dumps/benchgraph.jsonld")
        assert response.status_code == 200
        assert response.mimetype == "application/ld+json"
        out = tmp_path / "cli.jsonld"
        with redirect_stdout(io.StringIO()):
            assert (
                main(["export", "--data", str(data), "--format", "jsonld", "--out", str(out)]) == 0
            )
        assert response.data == out.read_bytes()
        assert json.loads(response.data)["@context"]["bg"] == BG
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()
