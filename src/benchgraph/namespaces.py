"""The namespaces benchgraph writes, and the IRIs of records and graphs."""

from __future__ import annotations

from rdflib import Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SDO, SKOS, XSD

BASE = "https://w3id.org/benchgraph/"


class _CachedNamespace(Namespace):
    """A Namespace whose terms are made once and kept as attributes of the instance, so
    later lookups skip __getattr__: conversion asks for them millions of times."""

    def __getattr__(self, name: str) -> URIRef:
        if name.startswith("__"):
            raise AttributeError(name)
        term = self.__dict__[name] = URIRef(str(self) + name)
        return term

BG = _CachedNamespace(BASE + "ontology#")
ID = Namespace(BASE + "id/")
GRAPH = Namespace(BASE + "graph/")
UNIT = Namespace(BASE + "unit/")
QUDT = Namespace("http://qudt.org/schema/qudt/")
QUDT_UNIT = Namespace("http://qudt.org/vocab/unit/")
MLS = Namespace("http://www.w3.org/ns/mls#")
SOSA = Namespace("http://www.w3.org/ns/sosa/")
SCHEMA = SDO

ONTOLOGY_IRI = URIRef(BASE + "ontology")
INFERRED_GRAPH = GRAPH["inferred"]
LINK_GRAPH = GRAPH["links"]  # links to other datasets (Wikidata, ...), a void:Linkset
DESCRIPTION_GRAPH = GRAPH["description"]  # the dataset's VoID/DCAT description

PREFIXES = {
    "bg": str(BG),
    "bgid": str(ID),  # queries only: dumps keep record IRIs whole
    "bgunit": str(UNIT),
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "owl": str(OWL),
    "xsd": str(XSD),
    "skos": str(SKOS),
    "dct": str(DCTERMS),
    "prov": str(PROV),
    "schema": str(SCHEMA),
    "qudt": str(QUDT),
    "unit": str(QUDT_UNIT),
    "mls": str(MLS),
    "sosa": str(SOSA),
}


def record_iri(kind: str, record_id: str) -> URIRef:
    """The IRI of a record: https://w3id.org/benchgraph/id/<kind folder>/<id>."""
    return URIRef(f"{ID}{kind}/{record_id}")


def graph_iri(kind: str, record_id: str) -> URIRef:
    """The named graph holding what one record file states."""
    return URIRef(f"{GRAPH}{kind}/{record_id}")


def graph_of(own: str) -> str:
    """The named graph of the record whose IRI is `own` (reasoning/infer.py and rules.py
    both ask)."""
    return str(GRAPH) + own[len(str(ID)):] if own.startswith(str(ID)) else own


def sparql_prefixes() -> str:
    """PREFIX lines for every namespace above, for saved queries and the CLI."""
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
