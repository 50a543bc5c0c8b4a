"""Linked Data: every record IRI and the ontology IRI resolve on this server.

`/id/<kind>/<id>` answers an HTML page for a browser and RDF for an RDF client (by Accept,
or `?format=`). The page shows what the record's file states, grouped by node; its links
followed both ways; its provenance (the record graph's own triples); and what was derived,
marked as such. Every value goes through Jinja's escaping: notes are free text.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

import pyoxigraph as ox
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from ..namespaces import (
    BASE,
    BG,
    DESCRIPTION_GRAPH,
    GRAPH,
    ID,
    INFERRED_GRAPH,
    LINK_GRAPH,
    ONTOLOGY_IRI,
    UNIT,
    graph_iri,
    pasteable,
    readable,
    record_iri,
)
from ..rdf.convert import CLASSES
from ..serving.description import DATASET, DCAT, ENDPOINT, VOID
from ..store.export import DUMP_PREFIXES
from .errors import error_response, shorten
from .hooks import not_modified
from .negotiation import GRAPH as GRAPH_FORMATS
from .negotiation import HTML, TURTLE, Format, NotAcceptable, choose, serialize_rdf
from .performance import performance
from .publicbase import url as public_url
from .site import Site
from .summary import Line, build_summary
from .terms import Fact, Term
from .ui import with_prefixes

bp = Blueprint("ld", __name__)

RDFS_LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
INFERRED = ox.NamedNode(str(INFERRED_GRAPH))
LINKS = ox.NamedNode(str(LINK_GRAPH))
ONTOLOGY = ox.NamedNode(str(ONTOLOGY_IRI))
DESCRIPTION = ox.NamedNode(str(DESCRIPTION_GRAPH))
VOID_ENDPOINT = ox.NamedNode(VOID + "sparqlEndpoint")
VOID_PREFIXES = {**DUMP_PREFIXES, "void": VOID, "dcat": DCAT}
OFFERED = (*GRAPH_FORMATS, HTML)  # RDF for */*, HTML for a browser (it asks for text/html)


@dataclass
class Node:
    """One subject on the page (the record, or a node below it such as #measurement-1)."""

    iri: str
    anchor: str
    facts: list[Fact] = field(default_factory=list)
    example: tuple[Term, Term] | None = None  # on the ontology's page: a use in the data
    types: list[Fact] = field(default_factory=list)  # its rdf:type facts, shown in one row


@dataclass
class Incoming:
    """The records that link here by one property: the first few, and how to see all."""

    predicate: Term
    links: list[tuple[Term, bool]]
    total: int
    more: int
    more_link: str  # the query page, on the query that lists them all
    by_kind: dict[str, int] = field(default_factory=dict)  # how many of each kind of record


# Links to a record that say what uses it: counted by kind in its summary ("Runs on it: 380"),
# each count linking to the query that lists them.
USED_BY = {
    str(BG.accelerator): "on it",
    str(BG.system): "on it",
    str(BG.model): "of it",
    str(BG.engine): "on it",
    str(BG.metric): "measured by it",
    str(BG.madeBy): "made by it",
    str(BG.interconnect): "with it",
}
KIND_WORDS = {"benchmarks": "runs"}


def questions(kind: str, iri: str) -> list[tuple[str, str]]:
    """The saved questions about a record of `kind` (those with a parameter of its type), each
    with the link that asks it of this record."""
    from ..query.params import KIND_OF_TYPE
    from .ui import query_params

    wanted = {t for t, k in KIND_OF_TYPE.items() if k == kind}
    out = []
    for name, query in sorted(site().examples.items()):
        for p in query_params(query):
            if p.type in wanted:
                out.append(
                    (query.title, url_for("ui.index", example=name, **{p.name: pasteable(iri)}))
                )
                break
    return out


def incoming_query(predicate: str, iri: str, kind: str | None = None) -> str:
    """The query listing every record (of `kind`) that links to `iri` by `predicate`."""
    typed = f"\n  ?record a {pasteable(str(CLASSES[kind]))} ." if kind in CLASSES else ""
    return (
        f"SELECT ?record ?label WHERE {{\n  ?record {pasteable(predicate)} "
        f"{pasteable(iri)} .{typed}\n  OPTIONAL {{ ?record rdfs:label ?label }}\n}}\n"
        "ORDER BY ?record\n"
    )


def query_link(query: str, view: str = "table") -> str:
    """The query page opened on `query` (its fragment holds the query and the view)."""
    return (
        url_for("ui.index")
        + "#"
        + urlencode({"query": with_prefixes(query), "view": view}, quote_via=quote)
    )


def site() -> Site:
    return current_app.extensions["benchgraph"]


@bp.route("/id/<kind>/<path:record_id>")
def record(kind: str, record_id: str) -> Response:
    """A record: HTML for people, RDF for programs."""
    if kind not in CLASSES:
        abort(
            404,
            f"there is no kind of record called {shorten(kind)!r}; kinds: "
            + ", ".join(sorted(CLASSES)),
        )
    answer = _negotiated("ld", request.path)
    if isinstance(answer, Response):
        return answer
    fmt, etag = answer
    iri, graph = str(record_iri(kind, record_id)), str(graph_iri(kind, record_id))
    store = site().store()
    try:
        stated = list(store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
    except ValueError:  # not even an IRI: no record has that id
        stated = []
    if not stated:
        abort(404, f"there is no record {kind}/{shorten(record_id)} in this dataset")
    own = [q for q in stated if _is_own(q.subject, iri)]
    # what reasoning added about its nodes, and its links to outside entities (which live
    # in the link graph, build.LINK_PREDICATES)
    subjects = {q.subject for q in own}
    derived = [
        q
        for subject in subjects
        for g in (INFERRED, LINKS)
        for q in store.quads_for_pattern(subject, None, None, g)
    ]
    # nodes below the record that only the build made (a fabric status's basis, a
    # comparison): shown with what they hold, so a derived fact says what it rests on
    below = {
        q.object
        for q in derived
        if isinstance(q.object, ox.NamedNode)
        and q.object not in subjects
        and _is_own(q.object, iri)
    }
    derived += [
        q
        for node in sorted(below, key=lambda n: n.value)
        for q in store.quads_for_pattern(node, None, None, INFERRED)
    ]
    if fmt is not HTML:
        return _rdf(stated + derived, fmt, etag)
    page = RecordPage(store, iri, graph, site().link_limit)
    return _html(
        render_template(
            "record.html",
            page=page.build(stated, derived, kind),
            kind=kind,
            record_id=record_id,
            formats=GRAPH_FORMATS,
        ),
        etag,
    )


@bp.route("/graph/<kind>/<path:record_id>")
def record_graph(kind: str, record_id: str) -> Response:
    """A record's graph IRI leads to the record's page, which shows the graph."""
    return redirect(url_for("ld.record", kind=kind, record_id=record_id), 303)


@bp.route("/.well-known/void")
def void() -> Response:
    """The dataset's VoID and DCAT description (serving/description.py): RDF, or a page of it."""
    answer = _negotiated("void", public_url(current_app.config, "/"))
    if isinstance(answer, Response):
        return answer
    fmt, etag = answer
    quads = list(site().store().quads_for_pattern(None, None, None, DESCRIPTION))
    here = public_url(current_app.config, "/sparql")
    if quads and here != ENDPOINT.value:  # served elsewhere than its public IRI: say so too
        quads.append(ox.Quad(DATASET, VOID_ENDPOINT, ox.NamedNode(here), DESCRIPTION))
    if fmt is not HTML:
        return _rdf(quads, fmt, etag)
    turtle = serialize_rdf(quads, TURTLE, VOID_PREFIXES).decode()
    return _html(
        render_template("void.html", turtle=turtle, formats=GRAPH_FORMATS, dataset=DATASET.value),
        etag,
    )


@bp.route("/dataset")
def dataset() -> Response:
    """The dataset's IRI leads to its description."""
    return redirect(url_for("ld.void", **request.args), 303)


# The ontology's page is made here, from the served ontology graph, rather than by pyLODE:
# measured with pyLODE 3.6.0 (ontpub profile) on ontology/benchgraph.ttl, it needs Python
# 3.12 (benchgraph supports 3.11) and kurra pinned below 3.1 (3.1.1 breaks its import),
# took 4.5 s for a 462 KB page that left out 2 of 147 terms, and cannot show a term's use
# in the data, which this page does.
@bp.route("/ontology")
def ontology() -> Response:
    """The ontology: its terms as a page, or its graph as RDF."""
    answer = _negotiated("ontology")
    if isinstance(answer, Response):
        return answer
    fmt, etag = answer
    store = site().store()
    quads = list(store.quads_for_pattern(None, None, None, ONTOLOGY))
    if fmt is not HTML:
        return _rdf(quads, fmt, etag)
    return _html(
        render_template(
            "ontology.html",
            sections=ontology_sections(store, quads),
            toc=ontology_toc(quads),
            iri=str(ONTOLOGY_IRI),
            formats=GRAPH_FORMATS,
        ),
        etag,
    )


@bp.route("/ontology/terms.json")
def ontology_terms() -> Response:
    """The ontology's classes and properties with their labels: what the query editor
    completes, from this server (it asks no outside service)."""
    etag = site().etag("ontology-terms")
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    body = (
        site()
        .snapshot()
        .made(
            "ontology-terms",
            lambda: json.dumps(
                ontology_term_list(
                    list(site().store().quads_for_pattern(None, None, None, ONTOLOGY))
                ),
                ensure_ascii=False,
            ),
        )
    )
    response = Response(body, mimetype="application/json")
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = "no-cache"
    return response


# --- building pages -------------------------------------------------------------------------
class RecordPage:
    """What a record's page shows, read from its graph and the inferred graph."""

    def __init__(self, store: ox.Store, iri: str, graph: str, link_limit: int):
        self.store, self.iri, self.graph, self.limit = store, iri, graph, link_limit
        self._labels: dict[str, str | None] = {}

    def build(self, stated: list[ox.Quad], derived: list[ox.Quad], kind: str = "") -> dict:
        own = [q for q in stated if _is_own(q.subject, self.iri)]
        provenance = [q for q in stated if q.subject.value == self.graph]
        said = {q.triple for q in stated}
        nodes: dict[str, Node] = {}
        for q in sorted(own, key=_order) + sorted(derived, key=_order):
            if q.graph_name == INFERRED and q.triple in said:
                continue
            subject = q.subject.value
            node = nodes.setdefault(subject, Node(subject, subject.partition("#")[2]))
            fact = Fact(
                self.term(q.predicate), self.term(q.object), derived=q.graph_name == INFERRED
            )
            (node.types if q.predicate == RDF_TYPE else node.facts).append(fact)
        main = nodes.pop(self.iri, Node(self.iri, ""))
        incoming = self.incoming()
        summary = build_summary(self, kind, own + derived)
        summary.performance = performance(
            self.store, kind, self.iri, _local_href, url_for("explore.explore")
        )
        for group in incoming:  # the runs on a part, a system, a model, an engine
            if group.predicate.iri not in USED_BY:
                continue
            for linking, count in sorted(group.by_kind.items()):
                query = incoming_query(group.predicate.iri, self.iri, linking)
                summary.lines.append(
                    Line(
                        f"{KIND_WORDS.get(linking, linking).capitalize()} "
                        f"{USED_BY[group.predicate.iri]}",
                        [Term(f"{count}", query_link(query))],
                    )
                )
        return {
            "iri": self.iri,
            "graph": self.graph,
            "label": self.label(self.iri),
            "paste": pasteable(self.iri),
            "questions": questions(kind, self.iri),
            "types": [f.value for f in main.types if not f.derived],
            "summary": summary,
            "main": main,
            "nodes": sorted(nodes.values(), key=lambda n: n.iri),
            "provenance": [
                Fact(self.term(q.predicate), self.term(q.object))
                for q in sorted(provenance, key=_order)
            ],
            "incoming": incoming,
            "derived_count": sum(
                f.derived for n in [main, *nodes.values()] for f in n.facts + n.types
            ),
        }

    def incoming(self) -> list[Incoming]:
        """Links to this record from others, by property, at most `limit` of each; past
        that, the query that lists them all."""
        seen: dict[tuple[str, str], bool] = {}
        target = ox.NamedNode(self.iri)
        for q in self.store.quads_for_pattern(None, None, target, None):
            if (
                _is_own(q.subject, self.iri)
                or q.subject.value == self.graph
                or q.graph_name == ONTOLOGY
            ):
                continue  # its own nodes, its provenance, the ontology's mentions
            key = (q.predicate.value, q.subject.value)
            seen[key] = seen.get(key, True) and q.graph_name == INFERRED
        by_predicate: dict[str, list[tuple[str, bool]]] = defaultdict(list)
        for (predicate, subject), derived in sorted(seen.items()):
            by_predicate[predicate].append((subject, derived))
        out = []
        for predicate, links in sorted(by_predicate.items()):
            shown = [(self.term(ox.NamedNode(s)), d) for s, d in links[: self.limit]]
            more = len(links) - len(shown)
            kinds = Counter(_kind_of(s) for s, _ in links)
            out.append(
                Incoming(
                    self.term(ox.NamedNode(predicate)),
                    shown,
                    len(links),
                    more,
                    query_link(incoming_query(predicate, self.iri)),
                    {k: n for k, n in kinds.items() if k},
                )
            )
        return out

    def term(self, term: object) -> Term:
        if isinstance(term, ox.NamedNode):
            return Term(
                readable(term.value),
                _local_href(term.value),
                self.label(term.value),
                paste=pasteable(term.value),
                iri=term.value,
            )
        if isinstance(term, ox.Literal):
            datatype = term.datatype.value if term.datatype else None
            if datatype in (XSD_STRING, RDF_LANG_STRING):
                datatype = None
            return Term(
                term.value, datatype=datatype and readable(datatype), language=term.language
            )
        return Term(str(term))

    def label(self, iri: str) -> str | None:
        if iri not in self._labels:
            found = next(
                iter(self.store.quads_for_pattern(ox.NamedNode(iri), RDFS_LABEL, None, None)), None
            )
            self._labels[iri] = found.object.value if found else None
        return self._labels[iri]


def ontology_sections(store: ox.Store, quads: list[ox.Quad]) -> list[tuple[str, list[Node]]]:
    """The ontology's terms grouped by what they are (classes, properties, ...)."""
    page = RecordPage(store, str(ONTOLOGY_IRI), str(ONTOLOGY_IRI), 0)
    nodes: dict[str, Node] = {}
    kinds: dict[str, str] = {}
    for q in sorted(quads, key=_order):
        subject = q.subject.value
        node = nodes.setdefault(subject, Node(subject, _anchor(subject)))
        node.facts.append(Fact(page.term(q.predicate), page.term(q.object)))
        if q.predicate == RDF_TYPE:
            kinds.setdefault(subject, SECTION_OF.get(q.object.value, "Other terms"))
    groups: dict[str, list[Node]] = defaultdict(list)
    for subject, node in nodes.items():
        section = (
            "The ontology" if subject == str(ONTOLOGY_IRI) else kinds.get(subject, "Other terms")
        )
        groups[section].append(node)
    for section in ("Classes", "Properties"):
        for node in groups.get(section, []):
            node.example = _example(store, page, node.iri, section == "Classes")
    order = ["The ontology", "Classes", "Properties", "Concepts", "Units", "Other terms"]
    return [(name, sorted(groups[name], key=lambda n: n.iri)) for name in order if groups.get(name)]


def ontology_term_list(quads: list[ox.Quad]) -> dict[str, list[dict[str, str]]]:
    """{"classes": [...], "properties": [...]}, each term's IRI, prefixed name, label and
    definition."""
    kinds: dict[str, str] = {}
    text: dict[tuple[str, str], str] = {}
    for q in quads:
        s, p = q.subject.value, q.predicate.value
        if q.predicate == RDF_TYPE:
            section = SECTION_OF.get(q.object.value)
            if section in ("Classes", "Properties"):
                kinds.setdefault(s, section)
        elif p in (RDFS_LABEL.value, SKOS_DEFINITION) and isinstance(q.object, ox.Literal):
            if q.object.language in (None, "en"):
                text.setdefault((s, p), q.object.value)
    out: dict[str, list[dict[str, str]]] = {"classes": [], "properties": []}
    for iri, section in sorted(kinds.items()):
        out["classes" if section == "Classes" else "properties"].append(
            {
                "iri": iri,
                "name": pasteable(iri),
                "label": text.get((iri, RDFS_LABEL.value), ""),
                "definition": text.get((iri, SKOS_DEFINITION), ""),
            }
        )
    return out


@dataclass
class TocEntry:
    anchor: str
    label: str
    children: list[tuple[str, str]] = field(default_factory=list)


def ontology_toc(quads: list[ox.Quad]) -> list[tuple[str, list[TocEntry]]]:
    """The ontology page's table of contents: each class with the properties whose domain it
    is, the properties of no one class, each concept scheme with its concepts, the units."""
    types: dict[str, set[str]] = defaultdict(set)
    labels: dict[str, str] = {}
    domains: dict[str, set[str]] = defaultdict(set)
    schemes: dict[str, set[str]] = defaultdict(set)
    for q in quads:
        s, p, o = q.subject.value, q.predicate.value, q.object
        if q.predicate == RDF_TYPE:
            types[s].add(o.value)
        elif p == RDFS_LABEL.value and getattr(o, "language", None) in (None, "en"):
            labels.setdefault(s, o.value)
        elif p in (RDFS_DOMAIN, SCHEMA_DOMAIN) and isinstance(o, ox.NamedNode):
            domains[s].add(o.value)
        elif p == SKOS_IN_SCHEME:
            schemes[o.value].add(s)

    def entry(iri: str) -> tuple[str, str]:
        return _anchor(iri), labels.get(iri) or _anchor(iri)

    def section_of(iri: str) -> str | None:
        return next((SECTION_OF[t] for t in sorted(types.get(iri, ())) if t in SECTION_OF), None)

    classes = sorted(
        (i for i in types if section_of(i) == "Classes"), key=lambda i: entry(i)[1].casefold()
    )
    properties = [i for i in types if section_of(i) == "Properties"]
    by_class: dict[str, list[str]] = defaultdict(list)
    loose = []
    for prop in properties:
        owners = [d for d in domains.get(prop, ()) if d in types]
        for d in owners:
            by_class[d].append(prop)
        if not owners:
            loose.append(prop)

    def children(iris) -> list[tuple[str, str]]:
        return sorted((entry(i) for i in iris), key=lambda e: e[1].casefold())

    main = [TocEntry(*entry(c), children(by_class.get(c, []))) for c in classes]
    main.sort(key=lambda e: (not e.children, e.label.casefold()))  # the main classes first
    toc = [("Classes, with their properties", main)]
    if loose:
        toc.append(("Properties of no one class", [TocEntry(*e) for e in children(loose)]))
    concept_schemes = [
        TocEntry(*entry(sch), children(members)) for sch, members in sorted(schemes.items())
    ]
    if concept_schemes:
        toc.append(
            ("Concepts, by scheme", sorted(concept_schemes, key=lambda e: e.label.casefold()))
        )
    units = [i for i in types if section_of(i) == "Units"]
    if units:
        toc.append(("Units", [TocEntry(*e) for e in children(units)]))
    return toc


RDFS_DOMAIN = "http://www.w3.org/2000/01/rdf-schema#domain"
SCHEMA_DOMAIN = "https://schema.org/domainIncludes"
SKOS_IN_SCHEME = "http://www.w3.org/2004/02/skos/core#inScheme"
SKOS_DEFINITION = "http://www.w3.org/2004/02/skos/core#definition"


def _example(
    store: ox.Store, page: RecordPage, iri: str, is_class: bool, tries: int = 50
) -> tuple[Term, Term] | None:
    """One use of a term in the data (not in the ontology or the description): an instance
    of a class, a subject and value of a property. Looked up on the store's indexes: a
    page of 100+ terms costs milliseconds at 100k records."""
    term = ox.NamedNode(iri)
    found = (
        store.quads_for_pattern(None, RDF_TYPE, term, None)
        if is_class
        else store.quads_for_pattern(None, term, None, None)
    )
    for i, q in enumerate(found):
        if i >= tries:
            break
        if q.graph_name not in (ONTOLOGY, DESCRIPTION):
            return page.term(q.subject), page.term(q.object)
    return None


OWL = "http://www.w3.org/2002/07/owl#"
SECTION_OF = {
    OWL + "Class": "Classes",
    "http://www.w3.org/2000/01/rdf-schema#Class": "Classes",
    OWL + "ObjectProperty": "Properties",
    OWL + "DatatypeProperty": "Properties",
    OWL + "AnnotationProperty": "Properties",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property": "Properties",
    "http://www.w3.org/2004/02/skos/core#Concept": "Concepts",
    "http://www.w3.org/2004/02/skos/core#ConceptScheme": "Concepts",
    "http://qudt.org/schema/qudt/Unit": "Units",
}
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


# --- helpers -------------------------------------------------------------------------------
def _negotiated(*key: str) -> tuple[Format, str] | Response:
    """The format the client asked for and the page's ETag for it; or the answer at once:
    406 for a format not offered, 304 for a copy the client has."""
    try:
        fmt = _format()
    except NotAcceptable as exc:
        return error_response(406, "not acceptable", str(exc))
    etag = site().etag(*key, fmt.name)
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    return fmt, etag


def _format() -> Format:
    return choose(OFFERED, request.headers.get("Accept"), request.args.getlist("format"))


def _rdf(quads: list[ox.Quad], fmt: Format, etag: str) -> Response:
    body = serialize_rdf(quads, fmt, DUMP_PREFIXES)
    response = Response(body, content_type=fmt.content_type)
    return _finish(response, etag)


def _html(text: str, etag: str) -> Response:
    return _finish(Response(text, mimetype="text/html"), etag)


def _finish(response: Response, etag: str) -> Response:
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept")
    return response


def _is_own(subject: object, iri: str) -> bool:
    value = getattr(subject, "value", "")
    return value == iri or value.startswith(iri + "#")


def _order(q: ox.Quad) -> tuple:
    return (q.subject.value, q.predicate != RDF_TYPE, q.predicate.value, str(q.object))


def _kind_of(iri: str) -> str:
    """The kind of record an IRI names (`benchmarks`), or "" for another IRI."""
    return iri[len(str(ID)) :].partition("/")[0] if iri.startswith(str(ID)) else ""


def _anchor(iri: str) -> str:
    return iri.rpartition("#")[2] if "#" in iri else iri.rstrip("/").rpartition("/")[2]


def _local_href(iri: str) -> str | None:
    """Where an IRI leads from a page: this server for its own IRIs, else the IRI itself."""
    root = request.script_root
    if iri.startswith((str(ID), str(GRAPH))):
        return f"{root}/{iri[len(BASE) :]}"
    if iri == str(ONTOLOGY_IRI):
        return f"{root}/ontology"
    if iri.startswith((str(BG), str(UNIT))):
        return f"{root}/ontology#{_anchor(iri)}"
    if iri.startswith(("http://", "https://")):
        return iri
    return None
