"""The dataset described in VoID and DCAT: what it holds, where it is served, under which
licences, made from the store itself.

One graph, `<graph/description>`, that the server loads into what it serves (so it is
queryable and in every dump) and `benchgraph export` adds to its dump. It holds no clock
time and names no blank node, so the same data gives the same bytes: the version is the
package's and the data's build key. Counting graphs, classes and properties in the store
reads every quad (16.5 s at 8M quads), so the counts come from the build's cache where they
can (serving/counts.py: a rebuild counts again only the graphs it changed), and the
description is made once per served snapshot and kept beside its dumps (`cached`), not at
build time.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from .._version import __version__
from ..namespaces import (
    BASE,
    DESCRIPTION_GRAPH,
    GRAPH,
    ID,
    INFERRED_GRAPH,
    LINK_GRAPH,
    ONTOLOGY_IRI,
)
from . import counts

VOID = "http://rdfs.org/ns/void#"
DCAT = "http://www.w3.org/ns/dcat#"
DCT = "http://purl.org/dc/terms/"
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
XSD = "http://www.w3.org/2001/XMLSchema#"
DATASET = ox.NamedNode(BASE + "dataset")
ENDPOINT = ox.NamedNode(BASE + "sparql")
GRAPH_NAME = ox.NamedNode(str(DESCRIPTION_GRAPH))
# the dump formats and their media types (web/dumps.py serves /dumps/benchgraph.<ext>)
DUMPS = {
    "nq": "application/n-quads",
    "trig": "application/trig",
    "jsonld": "application/ld+json",
    "ttl": "text/turtle",
    "nt": "application/n-triples",
    "rdf": "application/rdf+xml",
}
TITLE = "benchgraph: AI-inference benchmark results"
ABOUT = (
    "Curated inference benchmark results (MLPerf Inference, Argonne LLM-Inference-Bench "
    "and others) with the hardware, fabric, parallelism, provenance and confidence each "
    "depends on, validated with SHACL and enriched by inference."
)

COUNT_GRAPHS = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
COUNT_PROPERTIES = "SELECT ?p (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?p"
COUNT_CLASSES = "SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE { GRAPH ?g { ?s a ?c } } GROUP BY ?c"
SOURCES = """
PREFIX dct: <http://purl.org/dc/terms/>
PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT ?licence ?publisher ?repository (COUNT(DISTINCT ?g) AS ?records) WHERE {
  GRAPH ?g { ?record dct:source ?source . ?source dct:license ?licence .
             OPTIONAL { ?source dct:publisher ?publisher }
             OPTIONAL { ?source bg:repository ?repository } }
} GROUP BY ?licence ?publisher ?repository
"""
# over the link graph as the default graph (`GRAPH ?g` here would read every named graph)
LINKS = (
    "SELECT ?p ?target (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(isIRI(?o)) "
    "BIND(REPLACE(STR(?o), '^(https?://[^/]+/).*$', '$1') AS ?target) } "
    "GROUP BY ?p ?target"
)


def describe(store: ox.Store, key: str, counted: Counter | None = None) -> list[ox.Quad]:
    """The description of what `store` holds (its description graph left out), with its
    counts read from the store, or `counted` (counts.totals) in their place."""
    out = _Out()
    d = DATASET
    out.add(d, RDF_TYPE, _n(VOID + "Dataset"), _n(DCAT + "Dataset"))
    out.add(d, _n(DCT + "title"), ox.Literal(TITLE, language="en"))
    out.add(d, _n(DCT + "description"), ox.Literal(ABOUT, language="en"))
    out.add(d, _n(DCAT + "version"), ox.Literal(f"benchgraph {__version__}, data {key}"))
    out.add(d, _n(DCT + "identifier"), ox.Literal(key))
    out.add(d, _n(VOID + "sparqlEndpoint"), ENDPOINT)
    out.add(d, _n(VOID + "vocabulary"), ox.NamedNode(str(ONTOLOGY_IRI)))
    out.add(d, _n(VOID + "uriSpace"), ox.Literal(str(ID)))
    _endpoint_service(out)
    for ext, media in DUMPS.items():
        url = ox.NamedNode(f"{BASE}dumps/benchgraph.{ext}")
        dist = _iri("distribution", ext)
        out.add(d, _n(VOID + "dataDump"), url)
        out.add(d, _n(DCAT + "distribution"), dist)
        out.add(dist, RDF_TYPE, _n(DCAT + "Distribution"))
        out.add(dist, _n(DCAT + "downloadURL"), url)
        out.add(
            dist,
            _n(DCAT + "mediaType"),
            ox.NamedNode(f"https://www.iana.org/assignments/media-types/{media}"),
        )
        out.add(dist, _n(DCT + "format"), ox.Literal(media))

    found = _Counts.of(counted) if counted is not None else _Counts.read(store)
    out.add(
        d,
        _n(VOID + "triples"),
        _int(sum(t for _, t in found.kinds.values()) + sum(found.others.values())),
    )
    _graph_kinds(out, found.kinds, found.others)
    _partitions(out, found.classes, found.properties)
    _sources(out, found.sources)
    if str(LINK_GRAPH) in found.others:
        _linkset(out, found.links)
    return [ox.Quad(s, p, o, GRAPH_NAME) for s, p, o in sorted(out.triples, key=str)]


@dataclass
class _Counts:
    """What the description counts: record graphs by kind (graphs, quads), the other graphs'
    quads, subjects by class, quads by property, records by source (licence, publisher,
    repository) and the link graph's quads by predicate and site."""

    kinds: dict[str, tuple[int, int]]
    others: dict[str, int]
    classes: list[tuple[ox.NamedNode, int]]
    properties: list[tuple[ox.NamedNode, int]]
    sources: list[tuple[Any, Any, Any, int]]
    links: list[tuple[ox.NamedNode, str, int]]

    @classmethod
    def read(cls, store: ox.Store) -> _Counts:
        """Counted in the store, every quad read."""
        graphs = {str(r["g"].value): int(r["n"].value) for r in store.query(COUNT_GRAPHS)}
        graphs.pop(str(DESCRIPTION_GRAPH), None)
        kinds, others = by_kind(graphs)
        links = []
        if str(LINK_GRAPH) in graphs:
            for r in store.query(LINKS, default_graph=ox.NamedNode(str(LINK_GRAPH))):
                target = r["target"].value if r["target"] is not None else ""
                links.append((r["p"], target, int(r["n"].value)))
        return cls(
            {kind: (len(sizes), sum(sizes)) for kind, sizes in kinds.items()},
            others,
            [
                (r["c"], int(r["n"].value))
                for r in store.query(COUNT_CLASSES)
                if isinstance(r["c"], ox.NamedNode)
            ],
            [(r["p"], int(r["n"].value)) for r in store.query(COUNT_PROPERTIES)],
            [
                (r["licence"], r["publisher"], r["repository"], int(r["records"].value))
                for r in store.query(SOURCES)
            ],
            links,
        )

    @classmethod
    def of(cls, counted: Counter) -> _Counts:
        """From counts.totals."""
        parts: dict[str, dict[str, int]] = defaultdict(dict)
        for name, n in counted.items():
            part, _, rest = name.partition("\t")
            parts[part][rest] = n
        others = dict(parts["graph"])
        others.pop(str(DESCRIPTION_GRAPH), None)
        sources = []
        for row, n in parts["source"].items():
            licence, publisher, repository = json.loads(row)
            sources.append(
                (
                    counts.term(licence),
                    counts.term(publisher) if publisher else None,
                    counts.term(repository) if repository else None,
                    n,
                )
            )
        links = []
        for row, n in parts["link"].items():
            p, target = json.loads(row)
            links.append((ox.NamedNode(p), target, n))
        return cls(
            {kind: (n, parts["triples"].get(kind, 0)) for kind, n in parts["kind"].items()},
            others,
            [(ox.NamedNode(c), n) for c, n in parts["class"].items()],
            [(ox.NamedNode(p), n) for p, n in parts["property"].items()],
            sources,
            links,
        )


def cached(store: ox.Store, key: str, work: Path) -> list[ox.Quad]:
    """describe() of the build in `work` (or a copy of it), kept as
    `work/dumps/<key>/description.nq` for the next start on the same data; its counts from
    that build's cache where they can be (counts.totals)."""
    path = work / "dumps" / key / "description.nq"
    if path.is_file():
        return list(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS))
    quads = describe(store, key, counts.totals(work, key, store))
    partial = path.with_name(f"description.nq.{os.getpid()}.part")  # see dumps.sweep
    # A server still on the last snapshot sweeps the other snapshots' folders once it has
    # written a dump (web/dumps.sweep): it leaves one holding this process's partial file,
    # but may take the folder before the file is in it. Written again in a new folder.
    for attempt in range(3):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            ox.serialize(quads, str(partial), ox.RdfFormat.N_QUADS)
            partial.replace(path)
            return quads
        except FileNotFoundError:
            if attempt == 2:
                raise


class _Out:
    def __init__(self) -> None:
        self.triples: set[tuple] = set()

    def add(self, s: ox.NamedNode, p: ox.NamedNode, *objects: object) -> None:
        for o in objects:
            self.triples.add((s, p, o))


def _endpoint_service(out: _Out) -> None:
    service = _iri("service", "sparql")
    out.add(DATASET, _n(DCAT + "accessService"), service)
    out.add(service, RDF_TYPE, _n(DCAT + "DataService"))
    out.add(service, _n(DCAT + "endpointURL"), ENDPOINT)
    out.add(service, _n(DCAT + "servesDataset"), DATASET)
    out.add(
        service, _n(DCT + "conformsTo"), ox.NamedNode("https://www.w3.org/TR/sparql11-protocol/")
    )


def by_kind(graphs: dict[str, int]) -> tuple[dict[str, list[int]], dict[str, int]]:
    """Graph sizes split into the record graphs' (`graph/<kind>/<id>`), listed per kind, and
    every other graph's by name (the service description counts them the same way)."""
    kinds: dict[str, list[int]] = defaultdict(list)
    others: dict[str, int] = {}
    for name, count in graphs.items():
        rest = name[len(str(GRAPH)) :] if name.startswith(str(GRAPH)) else ""
        if "/" in rest:
            kinds[rest.partition("/")[0]].append(count)
        else:
            others[name] = count
    return dict(kinds), others


def _graph_kinds(out: _Out, kinds: dict[str, tuple[int, int]], others: dict[str, int]) -> None:
    """A subset per kind of graph: the records of each kind (one graph each, counted, not
    listed: 100k records would be 100k entries; graphs and quads), the inferred graph, the
    ontology, the links and any graph loaded beside them."""
    for kind, (graphs, quads) in sorted(kinds.items()):
        part = _iri("records", kind)
        out.add(DATASET, _n(VOID + "subset"), part)
        out.add(part, RDF_TYPE, _n(VOID + "Dataset"))
        out.add(part, _n(DCT + "title"), ox.Literal(f"{kind} records", language="en"))
        out.add(
            part,
            _n(DCT + "description"),
            ox.Literal(
                f"One named graph per {kind} record file: <{GRAPH}{kind}/{{id}}>, about "
                f"<{ID}{kind}/{{id}}>.",
                language="en",
            ),
        )
        out.add(part, _n(VOID + "uriSpace"), ox.Literal(f"{ID}{kind}/"))
        out.add(part, _n(VOID + "entities"), _int(graphs))
        out.add(part, _n(VOID + "triples"), _int(quads))
    titles = {
        str(INFERRED_GRAPH): "what inference adds",
        str(ONTOLOGY_IRI): "the ontology",
        str(LINK_GRAPH): "links to other datasets",
    }
    for name, count in sorted(others.items()):
        part = _iri("graph", name)
        out.add(DATASET, _n(VOID + "subset"), part)
        out.add(part, RDF_TYPE, _n(VOID + "Dataset"))
        out.add(
            part,
            _n(DCT + "title"),
            ox.Literal(
                f"The graph <{name}>" + (f": {titles[name]}" if name in titles else ""),
                language="en",
            ),
        )
        out.add(part, _n(VOID + "triples"), _int(count))


def _partitions(out: _Out, classes: list, properties: list) -> None:
    out.add(DATASET, _n(VOID + "classes"), _int(len(classes)))
    out.add(DATASET, _n(VOID + "properties"), _int(len(properties)))
    for c, n in classes:
        part = _iri("class", c.value)
        out.add(DATASET, _n(VOID + "classPartition"), part)
        out.add(part, _n(VOID + "class"), c)
        out.add(part, _n(VOID + "entities"), _int(n))
    for p, n in properties:
        part = _iri("property", p.value)
        out.add(DATASET, _n(VOID + "propertyPartition"), part)
        out.add(part, _n(VOID + "property"), p)
        out.add(part, _n(VOID + "triples"), _int(n))


def _sources(out: _Out, rows: list) -> None:
    """Each source the records cite with a licence: its publisher, repository, licence and
    how many records cite it."""
    for licence, publisher, repository, n in rows:
        named = [t.value if t is not None else "" for t in (licence, publisher, repository)]
        source = _iri("source", "\n".join(named))
        out.add(DATASET, _n(DCT + "source"), source)
        out.add(source, _n(DCT + "license"), licence)
        if publisher is not None:
            out.add(source, _n(DCT + "publisher"), publisher)
        if repository is not None:
            out.add(source, _n(DCT + "title"), repository)
        out.add(source, _n(VOID + "entities"), _int(n))


def _linkset(out: _Out, rows: list) -> None:
    """The link graph as linksets: one per link predicate and target site."""
    for p, target, n in rows:
        part = _iri("linkset", f"{p.value}\n{target}")
        out.add(DATASET, _n(VOID + "subset"), part)
        out.add(part, RDF_TYPE, _n(VOID + "Linkset"))
        out.add(part, _n(VOID + "linkPredicate"), p)
        out.add(part, _n(VOID + "subjectsTarget"), DATASET)
        if target:
            out.add(part, _n(VOID + "objectsTarget"), ox.NamedNode(target))
        out.add(part, _n(VOID + "triples"), _int(n))


def _iri(kind: str, name: str) -> ox.NamedNode:
    """A stable IRI for a part of the description (no blank nodes: the same data, the same
    bytes)."""
    tag = hashlib.blake2b(name.encode(), digest_size=6).hexdigest()
    return ox.NamedNode(f"{DATASET.value}#{kind}-{tag}")


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _int(n: int) -> ox.Literal:
    return ox.Literal(str(n), datatype=ox.NamedNode(XSD + "integer"))
