"""The W3C SPARQL 1.1 Protocol and Service Description tests, one test per manifest entry,
run against a live `benchgraph serve` that loaded each ut:graphData file with --with.

The 7 update tests expect a writable store; this endpoint is read-only by design, so they
are strict xfails (one that starts passing is reported). Every other entry must pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from xml.etree import ElementTree

import pytest
from rdflib import Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF

from web.web_support import HERE, W3C

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
HTS = Namespace("http://www.w3.org/2011/http-statusCodes#")
SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
SH = Namespace("http://www.w3.org/ns/shacl#")
SHAPES = Namespace("https://w3id.org/benchgraph/tests/service-description#")

BOOLEAN_TYPES = {"application/sparql-results+json", "application/sparql-results+xml"}
TABULAR_TYPES = BOOLEAN_TYPES | {"text/csv", "text/tab-separated-values"}
RDF_TYPES = {
    "text/turtle": "turtle",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
    "application/n-quads": "nquads",
    "application/trig": "trig",
}
READ_ONLY = "the endpoint is read-only by design: SPARQL Update gets 403"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes | None
    statuses: set[int] = field(default_factory=set)  # acceptable status classes: 2, 3, 4
    format: str | None = None
    boolean: bool | None = None


def protocol_cases() -> list:
    """One pytest param per entry of the protocol manifest, in manifest order."""
    manifest = W3C / "protocol" / "manifest.ttl"
    if not manifest.is_file():
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(
                    reason=f"{W3C} is not here (the W3C suite lives in ../shared)"
                ),
            )
        ]
    g = Graph().parse(manifest, format="turtle")
    entries = Collection(g, g.value(URIRef(manifest.as_uri()), MF.entries))
    cases = []
    for entry in entries:
        name = str(entry).rpartition("#")[2]
        requests = [
            _request(g, r) for r in Collection(g, g.value(g.value(entry, MF.action), HT.requests))
        ]
        marks = (
            [pytest.mark.xfail(strict=True, reason=READ_ONLY)] if name.startswith("update_") else []
        )
        cases.append(pytest.param(requests, id=name, marks=marks))
    return cases


def _request(g: Graph, node) -> Request:
    headers = {}
    header_list = g.value(node, HT.headers)
    if header_list is not None:
        for h in Collection(g, header_list):
            headers[str(g.value(h, HT.fieldName))] = str(g.value(h, HT.fieldValue))
    body = None
    body_node = g.value(node, HT.body)
    if body_node is not None:
        encoding = str(g.value(body_node, CNT.characterEncoding) or "UTF-8")
        body = str(g.value(body_node, CNT.chars)).encode(encoding)
    response = g.value(node, HT.resp)
    statuses = {
        int(str(s).rpartition("StatusCode")[2][0]) for s in g.objects(response, MF.expectedStatus)
    }
    boolean = g.value(response, MF.expectedBoolean)
    fmt = g.value(response, MF.expectedFormat)
    # The manifest's paths start with /sparql/; this endpoint is /sparql.
    path = str(g.value(node, HT.absolutePath)).replace("/sparql/", "/sparql", 1)
    return Request(
        str(g.value(node, HT.methodName)),
        path,
        headers,
        body,
        statuses,
        str(fmt) if fmt is not None else None,
        boolean.toPython() if boolean is not None else None,
    )


@pytest.mark.slow
@pytest.mark.parametrize("requests", protocol_cases())
def test_w3c_protocol(live_server, requests):
    for req in requests:
        status, headers, body = live_server.request(req.method, req.path, req.body, req.headers)
        detail = f"{req.method} {req.path} -> {status} {body[:300]!r}"
        assert status // 100 in req.statuses, detail
        if req.format is None:
            continue
        media_type = headers.get("content-type", "").split(";")[0].strip()
        if req.format == "boolean":
            assert media_type in BOOLEAN_TYPES, detail
            value = _boolean(media_type, body)
            if req.boolean is not None:
                assert value is req.boolean, detail
        elif req.format == "tabular":
            assert media_type in TABULAR_TYPES, detail
            _parse_results(media_type, body)
        elif req.format == "RDF":
            assert media_type in RDF_TYPES, detail
            Graph().parse(data=body, format=RDF_TYPES[media_type])


def _boolean(media_type: str, body: bytes) -> bool:
    if media_type.endswith("json"):
        return json.loads(body)["boolean"]
    root = ElementTree.fromstring(body)
    found = root.find("{http://www.w3.org/2005/sparql-results#}boolean")
    return found.text.strip() == "true"


def _parse_results(media_type: str, body: bytes) -> None:
    if media_type.endswith("json"):
        assert "results" in json.loads(body)
    elif media_type.endswith("xml"):
        ElementTree.fromstring(body)
    else:
        assert body.decode("utf-8").splitlines()[0].strip("?")


# --- Service Description -----------------------------------------------------------------------
def _service_description(live_server, accept: str = "text/turtle") -> tuple[str, Graph]:
    status, headers, body = live_server.request("GET", "/sparql", headers={"Accept": accept})
    assert status == 200, body[:300]
    media_type = headers["content-type"].split(";")[0]
    assert media_type in RDF_TYPES
    return live_server.url + "/sparql", Graph().parse(data=body, format=RDF_TYPES[media_type])


def sd_shapes(endpoint: str) -> Graph:
    """The test's SHACL shapes, with sd:endpoint required to be the URL asked."""
    shapes = Graph().parse(HERE / "data" / "service-description-shapes.ttl", format="turtle")
    shapes.add((SHAPES["Service-endpoint"], SH.hasValue, URIRef(endpoint)))
    return shapes


@pytest.mark.skipif(not W3C.is_dir(), reason="the W3C suite lives in ../shared")
def test_w3c_sd_has_endpoint_triple(live_server):
    endpoint, g = _service_description(live_server)
    assert (None, SD.endpoint, URIRef(endpoint)) in g


@pytest.mark.skipif(not W3C.is_dir(), reason="the W3C suite lives in ../shared")
@pytest.mark.parametrize(
    "accept", ["text/turtle", "application/rdf+xml", "application/ld+json", "*/*", ""]
)
def test_w3c_sd_returns_rdf(live_server, accept):
    _endpoint, g = _service_description(live_server, accept)
    assert len(g) > 0


@pytest.mark.skipif(not W3C.is_dir(), reason="the W3C suite lives in ../shared")
def test_w3c_sd_conforms_to_schema(live_server):
    from pyshacl import validate

    endpoint, g = _service_description(live_server)
    conforms, _graph, text = validate(g, shacl_graph=sd_shapes(endpoint))
    assert conforms, text
    # The default dataset names the graphs loaded with --with, with their triple counts.
    names = {str(o) for o in g.objects(None, SD.name)}
    assert "http://kasei.us/2009/09/sparql/data/data1.rdf" in names


def test_sd_shapes_catch_a_wrong_description(live_server):
    """The shapes are not vacuous: a description with another endpoint, no language and no
    dataset does not conform."""
    from pyshacl import validate

    endpoint, g = _service_description(live_server)
    wrong = Graph()
    for s, p, o in g:
        if p == SD.endpoint:
            o = URIRef("http://elsewhere.example/sparql")
        if p not in (SD.supportedLanguage, SD.defaultDataset):
            wrong.add((s, p, o))
    conforms, _graph, text = validate(wrong, shacl_graph=sd_shapes(endpoint))
    assert not conforms
    for path in ("endpoint", "supportedLanguage", "defaultDataset"):
        assert path in text
    assert (None, RDF.type, SD.Service) in wrong
