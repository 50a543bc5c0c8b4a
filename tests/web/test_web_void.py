"""The dataset's VoID and DCAT description: served at /.well-known/void, in every dump, the
same bytes for the same data."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD

from benchgraph.cli.main import main
from benchgraph.pipeline.steps import build
from benchgraph.serving.prepare import prepare
from benchgraph.web import create_app
from paths import DATA, TEST_DATA

VOID = "http://rdfs.org/ns/void#"
DCAT = "http://www.w3.org/ns/dcat#"
DATASET = URIRef("https://w3id.org/benchgraph/dataset")
DESCRIPTION = "https://w3id.org/benchgraph/graph/description"


def void(name: str) -> URIRef:
    return URIRef(VOID + name)


def described(client) -> Graph:
    response = client.get("/.well-known/void", headers={"Accept": "text/turtle"})
    assert response.status_code == 200 and response.mimetype == "text/turtle"
    return Graph().parse(data=response.get_data(as_text=True), format="turtle")


def count(client, query: str) -> int:
    response = client.get(
        "/sparql",
        query_string={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    )
    row = response.get_json()["results"]["bindings"][0]
    return int(next(iter(row.values()))["value"])


def test_void_says_what_the_dataset_holds(client, served, web_cache, monkeypatch):
    from benchgraph.pipeline.steps import build
    from web.web_support import RECORDS

    g = described(client)
    assert (DATASET, RDF.type, void("Dataset")) in g
    assert (DATASET, RDF.type, URIRef(DCAT + "Dataset")) in g
    version = str(g.value(DATASET, URIRef(DCAT + "version")))
    # the data's key (the build's), as `benchgraph export` states it: not the served key,
    # which covers the saved queries the page shows too
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(web_cache))
    assert build(RECORDS, skip_invalid=True).key in version and "benchgraph" in version
    # triples: every graph's but the description's own
    total = count(
        client,
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } "
        f"FILTER(?g != <{DESCRIPTION}>) }}",
    )
    assert g.value(DATASET, void("triples")).toPython() == total
    # classes and properties used, each with its count
    runs = count(
        client,
        "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { GRAPH ?g { ?r a "
        "<https://w3id.org/benchgraph/ontology#BenchmarkRun> } "
        f"FILTER(?g != <{DESCRIPTION}>) }}",
    )
    part = next(
        p
        for p in g.objects(DATASET, void("classPartition"))
        if g.value(p, void("class")) == URIRef("https://w3id.org/benchgraph/ontology#BenchmarkRun")
    )
    assert g.value(part, void("entities")).toPython() == runs > 0
    properties = {
        g.value(p, void("property")) for p in g.objects(DATASET, void("propertyPartition"))
    }
    assert URIRef("https://w3id.org/benchgraph/ontology#acceleratorCount") in properties
    assert g.value(DATASET, void("properties")).toPython() == len(properties)
    # triples per kind of graph, not per record
    spaces = {str(g.value(p, void("uriSpace"))): p for p in g.objects(DATASET, void("subset"))}
    runs_part = spaces["https://w3id.org/benchgraph/id/benchmarks/"]
    assert g.value(runs_part, void("entities")).toPython() == runs
    assert len(list(g.objects(DATASET, void("subset")))) < 20
    # where it is served and dumped, and the licences of its sources
    assert (DATASET, void("sparqlEndpoint"), URIRef("https://w3id.org/benchgraph/sparql")) in g
    assert (DATASET, void("sparqlEndpoint"), URIRef("http://localhost/sparql")) in g
    dumps = set(g.objects(DATASET, void("dataDump")))
    assert URIRef("https://w3id.org/benchgraph/dumps/benchgraph.nq") in dumps
    licences = {
        str(g.value(s, URIRef("http://purl.org/dc/terms/license")))
        for s in g.objects(DATASET, URIRef("http://purl.org/dc/terms/source"))
    }
    assert licences, "no source licence described"
    # no blank nodes: the same data gives the same bytes
    assert not [t for t in g if any(isinstance(x, BNode) for x in t)]


def test_void_is_queryable_and_for_a_browser_a_page(client):
    n = count(client, f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{DESCRIPTION}> {{ ?s ?p ?o }} }}")
    assert n > 20
    page = client.get("/.well-known/void", headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "void:classPartition" in page.get_data(as_text=True)
    assert client.get("/dataset").status_code == 303


def test_dumps_hold_the_description_byte_identical_for_the_same_data(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    first, second = tmp_path / "a.nq", tmp_path / "b.nq"
    assert (
        main(["export", "--data", str(TEST_DATA / "fabric"), "--format", "nq", "--out", str(first)])
        == 0
    )
    # a fresh cache: everything made again, the description among it
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache2"))
    assert (
        main(
            ["export", "--data", str(TEST_DATA / "fabric"), "--format", "nq", "--out", str(second)]
        )
        == 0
    )
    assert first.read_bytes() == second.read_bytes()
    quads = list(ox.parse(path=str(first), format=ox.RdfFormat.N_QUADS))
    mine = [q for q in quads if q.graph_name == ox.NamedNode(DESCRIPTION)]
    assert any(
        q.predicate.value == VOID + "triples"
        and q.subject.value == str(DATASET)
        and int(q.object.value) == len(quads) - len(mine)
        for q in mine
    )
    ttl = tmp_path / "a.ttl"
    assert (
        main(["export", "--data", str(TEST_DATA / "fabric"), "--format", "ttl", "--out", str(ttl)])
        == 0
    )
    g = Graph().parse(ttl)
    assert (DATASET, void("triples"), None) in g
    assert (DATASET, URIRef(DCAT + "version"), None) in g
    assert not list(g.objects(DATASET, void("triples")))[0] == Literal(0, datatype=XSD.integer)


@pytest.mark.slow
def test_shipped_service_description_is_small(tmp_path_factory, monkeypatch):
    """Clients (Comunica) fetch the service description to detect the endpoint: 1.7 MB of
    Turtle for the shipped data when it listed every record's graph."""
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path_factory.mktemp("shipped-sd")))
    served = prepare(build(DATA, skip_invalid=True), [])
    app = create_app(served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    try:
        response = app.test_client().get("/sparql", headers={"Accept": "text/turtle"})
        assert response.status_code == 200
        assert len(response.get_data()) < 200_000
        void_page = app.test_client().get("/.well-known/void", headers={"Accept": "text/turtle"})
        assert void_page.status_code == 200 and len(void_page.get_data()) < 200_000
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()
