"""The SPARQL 1.1 Protocol endpoint at /sparql, and its Service Description.

Queries come by GET, form POST or direct POST; the protocol's default-graph-uri and
named-graph-uri override the query's FROM clauses. The endpoint is read-only: an update is
refused whatever way it comes. Each query runs in a worker process of the pool, under a hard
time limit, and its answer is sent only once complete, so a client never gets a 200 with a
cut body. The request is read, its query run and its answer or refusal written by
endpoint.py, for this view and for the fast path (fastpath.py), which answers plain queries
below Flask; everything else comes here.
"""

from __future__ import annotations

import pyoxigraph as ox
from flask import Blueprint, Response, current_app, render_template, request

from ..errors import BenchgraphError
from ..namespaces import GRAPH as GRAPH_NS
from ..serving.description import by_kind
from . import endpoint as endpoint_module
from .endpoint import Operation, Outcome, ProtocolError, ReadOnly
from .errors import response
from .hooks import not_modified
from .negotiation import GRAPH, HTML, TURTLE, NotAcceptable, choose, serialize_rdf
from .poolerrors import PoolError
from .publicbase import url as public_url
from .site import Site

bp = Blueprint("sparql", __name__)

SD_NS = "http://www.w3.org/ns/sparql-service-description#"
FORMATS = "http://www.w3.org/ns/formats/"
SIMPLE_ENTAILMENT = "http://www.w3.org/ns/entailment/Simple"
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
VOID_TRIPLES = ox.NamedNode("http://rdfs.org/ns/void#triples")
VOID_SUBSET = ox.NamedNode("http://rdfs.org/ns/void#subset")
VOID_DATASET = ox.NamedNode("http://rdfs.org/ns/void#Dataset")
VOID_ENTITIES = ox.NamedNode("http://rdfs.org/ns/void#entities")
VOID_URI_SPACE = ox.NamedNode("http://rdfs.org/ns/void#uriSpace")
DCT_DESCRIPTION = ox.NamedNode("http://purl.org/dc/terms/description")
SEE_ALSO = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#seeAlso")
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
SD_PREFIXES = {
    "sd": SD_NS,
    "formats": FORMATS,
    "void": "http://rdfs.org/ns/void#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}
RESULT_FORMATS = {
    "json": "SPARQL_Results_JSON",
    "xml": "SPARQL_Results_XML",
    "csv": "SPARQL_Results_CSV",
    "tsv": "SPARQL_Results_TSV",
    "turtle": "Turtle",
    "ntriples": "N-Triples",
    "nquads": "N-Quads",
    "trig": "TriG",
    "jsonld": "JSON-LD",
    "rdfxml": "RDF_XML",
}


class DescriptionUnavailable(BenchgraphError):
    """The Service Description could not be made: the queries counting its graphs failed."""

    status, title = 503, "service description unavailable"


def site() -> Site:
    return current_app.extensions["benchgraph"]


@bp.route("/sparql/", methods=["GET", "POST"], endpoint="endpoint_slash")
@bp.route("/sparql", methods=["GET", "POST"])
def endpoint() -> Response:
    """Answer a query, or describe the service when there is none."""
    try:
        operation = read_operation()
    except ProtocolError as exc:
        return respond(exc)
    if operation is None:
        return service_description()
    if operation.kind == "update":
        return respond(ReadOnly())
    return run_query(operation)


def read_operation() -> Operation | None:
    """The operation of the request (endpoint.py reads it, once: the fast path may have)."""
    return endpoint_module.operation(request.environ, current_app.config.get("MAX_CONTENT_LENGTH"))


def run_query(operation: Operation) -> Response:
    """Run the query in a worker; answer its result, or the reason it has none."""
    s = site()
    etag = None
    if request.method in ("GET", "HEAD"):  # HEAD: GET's answer, Flask leaves out the body
        etag = s.etag(endpoint_module.etag_key(request.environ), request.headers.get("Accept", ""))
        if request.if_none_match.contains_weak(etag):
            return not_modified(etag)
    outcome, elapsed = endpoint_module.run(s.pool, operation, request.environ, current_app.config)
    endpoint_module.count(s.metrics, outcome, elapsed)
    return respond(outcome, elapsed=elapsed, etag=etag, download=operation.download)


def respond(outcome: Outcome, **how: object) -> Response:
    """The endpoint's response (endpoint.respond, as the fast path writes it) as Flask's."""
    return response(*endpoint_module.respond(outcome, request.environ, site().metrics, **how))


def endpoint_url() -> str:
    """The endpoint's IRI as asked (/sparql or /sparql/), on the public base."""
    return public_url(current_app.config, request.path)


# --- Service Description -----------------------------------------------------------------
def service_description() -> Response:
    """The SPARQL Service Description of this endpoint, in the format the client prefers."""
    s = site()
    endpoint_iri = endpoint_url()
    try:
        fmt = choose((*GRAPH, HTML), request.headers.get("Accept"), request.args.getlist("format"))
    except NotAcceptable as exc:
        return respond(exc)
    etag = s.etag("sd", endpoint_iri, fmt.name)
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)

    def make() -> bytes:
        triples = describe_service(s, endpoint_iri)
        if fmt is HTML:
            turtle = serialize_rdf(triples, TURTLE, SD_PREFIXES).decode()
            return render_template("service.html", turtle=turtle, endpoint=endpoint_iri).encode()
        return serialize_rdf(triples, fmt, SD_PREFIXES)

    try:
        body = s.remember(("sd", endpoint_iri, fmt.name), make)
    except (PoolError, RuntimeError) as exc:
        return respond(DescriptionUnavailable(str(exc)))
    response = Response(
        body, content_type="text/html; charset=utf-8" if fmt is HTML else fmt.content_type
    )
    response.set_etag(etag, weak=True)
    response.vary.add("Accept")
    return response


def describe_service(s: Site, endpoint_iri: str) -> list[ox.Triple]:
    """The description: endpoint, language, result formats, features, dataset and counts."""
    service = ox.NamedNode(endpoint_iri + "#service")
    out = [
        ox.Triple(service, RDF_TYPE, SD("Service")),
        ox.Triple(service, SD("endpoint"), ox.NamedNode(endpoint_iri)),
        ox.Triple(service, SD("supportedLanguage"), SD("SPARQL11Query")),
        ox.Triple(service, SD("defaultEntailmentRegime"), ox.NamedNode(SIMPLE_ENTAILMENT)),
    ]
    out += [
        ox.Triple(service, SD("resultFormat"), ox.NamedNode(FORMATS + name))
        for name in RESULT_FORMATS.values()
    ]
    features = ["UnionDefaultGraph", "EmptyGraphs"]
    if s.pool.settings.allow_service:
        features.append("BasicFederatedQuery")
    out += [ox.Triple(service, SD("feature"), SD(name)) for name in features]
    per_graph, union = s.graph_counts()
    dataset, default = ox.BlankNode("dataset"), ox.BlankNode("default")
    out += [
        ox.Triple(service, SD("defaultDataset"), dataset),
        ox.Triple(dataset, RDF_TYPE, SD("Dataset")),
        ox.Triple(dataset, SD("defaultGraph"), default),
        ox.Triple(default, RDF_TYPE, SD("Graph")),
        ox.Triple(default, VOID_TRIPLES, _integer(union)),
        # the rest is in the VoID: clients fetch this just to learn what the endpoint is
        ox.Triple(
            dataset, SEE_ALSO, ox.NamedNode(public_url(current_app.config, "/.well-known/void"))
        ),
    ]
    # Record graphs are counted per kind, not listed: one a record made this 1.7 MB of
    # Turtle at 6k records (about 30 MB at 100k). The other graphs are named one by one.
    kinds, others = by_kind(per_graph)
    for i, (name, count) in enumerate(sorted(others.items())):
        named, graph = ox.BlankNode(f"named{i}"), ox.BlankNode(f"graph{i}")
        out += [
            ox.Triple(dataset, SD("namedGraph"), named),
            ox.Triple(named, RDF_TYPE, SD("NamedGraph")),
            ox.Triple(named, SD("name"), ox.NamedNode(name)),
            ox.Triple(named, SD("graph"), graph),
            ox.Triple(graph, RDF_TYPE, SD("Graph")),
            ox.Triple(graph, VOID_TRIPLES, _integer(count)),
        ]
    for kind, counts in sorted(kinds.items()):
        part = ox.BlankNode(f"records-{kind}")
        out += [
            ox.Triple(dataset, VOID_SUBSET, part),
            ox.Triple(part, RDF_TYPE, VOID_DATASET),
            ox.Triple(
                part,
                DCT_DESCRIPTION,
                ox.Literal(
                    f"{len(counts)} named graphs, one per {kind} record: <{GRAPH_NS}{kind}/{{id}}>",
                    language="en",
                ),
            ),
            ox.Triple(part, VOID_URI_SPACE, ox.Literal(f"{GRAPH_NS}{kind}/")),
            ox.Triple(part, VOID_ENTITIES, _integer(len(counts))),
            ox.Triple(part, VOID_TRIPLES, _integer(sum(counts))),
        ]
    return out


def SD(name: str) -> ox.NamedNode:  # noqa: N802 - reads like the vocabulary's prefix
    return ox.NamedNode(SD_NS + name)


def _integer(n: int) -> ox.Literal:
    return ox.Literal(str(n), datatype=ox.NamedNode(XSD_INTEGER))
