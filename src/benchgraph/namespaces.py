"""The namespaces benchgraph writes, and the IRIs of records and graphs."""

from __future__ import annotations

import re
from collections.abc import Iterable

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

# One prefix per kind of record, so that a record's IRI prints as a prefixed name a query
# reads back: `acc:nvidia-h100-sxm`. `bgid:accelerators/nvidia-h100-sxm` is none (a local
# name holds no `/`). None clashes with a prefix in use here or in the outside graphs the
# README names (QUDT's `unit:`, `wd:`, `gx:`, ...); tests/test_prefixes.py checks it.
KIND_PREFIXES = {
    "benchmarks": "run",
    "accelerators": "acc",
    "systems": "sys",
    "interconnects": "ic",
    "engines": "engine",
    "models": "model",
    "metrics": "metric",
    "vendors": "vendor",
}

PREFIXES = {
    "bg": str(BG),
    **{prefix: f"{ID}{kind}/" for kind, prefix in KIND_PREFIXES.items()},
    "bgid": str(ID),  # still read, never printed: the kind prefixes above are pasteable
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


# The prefixes of record IRIs: queries and printed answers use them; dumps keep record IRIs
# whole (a measurement's IRI could not be written with them without escapes anyway).
RECORD_PREFIXES = frozenset({"bgid", *KIND_PREFIXES.values()})

# A local name that SPARQL and Turtle read as written, without escapes: ASCII letters,
# digits, `_`, `-` and `.` (not last); record ids are always so (records.ID_PATTERN).
PLAIN_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")
# The longest namespace first: `run:x` rather than `bgid:benchmarks/x`.
_BY_LENGTH = sorted(
    ((ns, p) for p, ns in PREFIXES.items() if p != "bgid"), key=lambda item: -len(item[0])
)


def split_iri(iri: str) -> tuple[str, str] | None:
    """(prefix, local name) of the longest predeclared namespace `iri` starts with."""
    for ns, prefix in _BY_LENGTH:
        if iri.startswith(ns):
            return prefix, iri[len(ns) :]
    return None


def pasteable(iri: str) -> str:
    """`iri` as a query can take it back: a prefixed name where its local name needs no
    escape, else `<iri>` (a measurement's `...#measurement-1`, an outside IRI)."""
    found = split_iri(iri)
    if found and (found[1] == "" or PLAIN_LOCAL.fullmatch(found[1])):
        return f"{found[0]}:{found[1]}"
    return f"<{iri}>"


def readable(iri: str) -> str:
    """`iri` as a person reads it: prefixed where a predeclared namespace holds it
    (`run:x#measurement-1`, which is not pasteable as it stands), else the IRI itself."""
    found = split_iri(iri)
    return f"{found[0]}:{found[1]}" if found else iri


def record_iri(kind: str, record_id: str) -> URIRef:
    """The IRI of a record: https://w3id.org/benchgraph/id/<kind folder>/<id>."""
    return URIRef(f"{ID}{kind}/{record_id}")


def graph_iri(kind: str, record_id: str) -> URIRef:
    """The named graph holding what one record file states."""
    return URIRef(f"{GRAPH}{kind}/{record_id}")


def graph_of(own: str) -> str:
    """The named graph of the record whose IRI is `own` (reasoning/infer.py and rules.py
    both ask)."""
    return str(GRAPH) + own[len(str(ID)) :] if own.startswith(str(ID)) else own


# A record's IRI in N-Quads lines made once for the records alike but for it (runs of one
# kind: reasoning.rules, store.load): renamed to each one's own.
RUN = "\x00run"


def renamed(lines: Iterable[str], was: str, now: str) -> list[str]:
    """N-Quads lines about the record `was` as lines about `now`, a record alike but for its
    IRI: `was` at the start of an IRI, followed by '>' or '#' (no other IRI goes on so)."""
    return sorted(
        line.replace(f"<{was}>", f"<{now}>").replace(f"<{was}#", f"<{now}#") for line in lines
    )


def sparql_prefixes() -> str:
    """PREFIX lines for every namespace above, for saved queries and the CLI."""
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
