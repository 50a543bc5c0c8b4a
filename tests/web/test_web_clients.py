"""Real SPARQL clients against a live `benchgraph serve`: SPARQLWrapper and rdflib's
SPARQLStore, each with SELECT, ASK, CONSTRUCT and DESCRIBE."""

from __future__ import annotations

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import JSON, POST, RDFXML, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

from web.web_support import ID

pytestmark = pytest.mark.slow

H100 = URIRef(f"{ID}accelerators/nvidia-h100-sxm")
BG = "https://w3id.org/benchgraph/ontology#"
PREFIXES = f"PREFIX bg: <{BG}>\nPREFIX rdfs: <{RDFS}>\n"
SELECT = PREFIXES + "SELECT ?a ?label WHERE { ?a a bg:Accelerator ; rdfs:label ?label } ORDER BY ?a"
ASK = PREFIXES + f"ASK {{ <{H100}> a bg:Accelerator }}"
CONSTRUCT = PREFIXES + (
    "CONSTRUCT { ?a rdfs:label ?label } WHERE { ?a a bg:Accelerator ; rdfs:label ?label }"
)
DESCRIBE = f"DESCRIBE <{H100}>"


def wrapper(live_server, query: str, fmt: str, method: str | None = None) -> SPARQLWrapper:
    sparql = SPARQLWrapper(live_server.url + "/sparql")
    sparql.setQuery(query)
    sparql.setReturnFormat(fmt)
    if method:
        sparql.setMethod(method)
    return sparql


@pytest.mark.parametrize("method", [None, POST])
def test_sparqlwrapper_select(live_server, method):
    result = wrapper(live_server, SELECT, JSON, method).queryAndConvert()
    labels = {b["a"]["value"]: b["label"]["value"] for b in result["results"]["bindings"]}
    assert labels[str(H100)] == "NVIDIA H100 SXM 80 GB"
    xml = wrapper(live_server, SELECT, XML, method).queryAndConvert()
    assert len(xml.getElementsByTagName("result")) == len(labels)


def test_sparqlwrapper_ask(live_server):
    assert wrapper(live_server, ASK, JSON).queryAndConvert()["boolean"] is True
    assert (
        wrapper(live_server, ASK.replace("Accelerator", "Engine"), JSON).queryAndConvert()[
            "boolean"
        ]
        is False
    )


@pytest.mark.parametrize("fmt", [RDFXML, TURTLE])
def test_sparqlwrapper_construct_and_describe(live_server, fmt):
    constructed = wrapper(live_server, CONSTRUCT, fmt).queryAndConvert()
    if isinstance(constructed, bytes):
        constructed = Graph().parse(data=constructed, format="turtle")
    assert (H100, RDFS.label, Literal("NVIDIA H100 SXM 80 GB")) in constructed
    described = wrapper(live_server, DESCRIBE, fmt).queryAndConvert()
    if isinstance(described, bytes):
        described = Graph().parse(data=described, format="turtle")
    assert (H100, RDF.type, URIRef(BG + "Accelerator")) in described


def test_a_long_query_by_get(live_server):
    """GET carries the whole query in the URL; a 30 kB one still gets through."""
    values = " ".join(f'"{i:05d}"' for i in range(4000))
    query = f"SELECT (COUNT(*) AS ?n) WHERE {{ VALUES ?v {{ {values} }} }}"
    result = wrapper(live_server, query, JSON).queryAndConvert()
    assert result["results"]["bindings"][0]["n"]["value"] == "4000"


def test_sparqlwrapper_sees_a_malformed_query(live_server):
    with pytest.raises(QueryBadFormed):
        wrapper(live_server, "SELECT * WHERE {", JSON).queryAndConvert()


@pytest.fixture(params=["GET", "POST", "POST_FORM"])
def remote(live_server, request) -> Graph:
    """rdflib's SPARQLStore, which sends `application/sparql-results+xml, application/rdf+xml`
    whatever the query form, in each of its three ways of sending a query."""
    store = SPARQLStore(query_endpoint=live_server.url + "/sparql", method=request.param)
    return Graph(store=store)


def test_sparqlstore_select(remote):
    rows = list(remote.query(SELECT))
    assert (H100, Literal("NVIDIA H100 SXM 80 GB")) in [tuple(r) for r in rows]


def test_sparqlstore_ask(remote):
    assert remote.query(ASK).askAnswer is True


def test_sparqlstore_construct(remote):
    graph = remote.query(CONSTRUCT).graph
    assert (H100, RDFS.label, Literal("NVIDIA H100 SXM 80 GB")) in graph


def test_sparqlstore_describe(remote):
    graph = remote.query(DESCRIBE).graph
    assert (H100, RDF.type, URIRef(BG + "Accelerator")) in graph


def test_sparqlstore_triples(remote):
    assert (H100, RDFS.label, Literal("NVIDIA H100 SXM 80 GB")) in remote
