"""JSON-LD dumps with an `@context` of the dump prefixes, so keys read `bg:value`, not the
whole IRI: written here, node by node from the dump's sorted quads, because pyoxigraph's
writer (0.5) takes no context and writes every IRI expanded, and rdflib's holds the whole
graph in memory (6M quads at 100k records).

The document is `{"@context": {...}, "@graph": [...]}`: the default graph's nodes, and one
`{"@id": graph, "@graph": [...]}` per named graph, in the dump's order (graph by graph, each
graph's triples in N-Triples order, so a subject's triples are consecutive). An IRI is written
as a compact IRI where a prefix holds it; one that a JSON-LD reader would take for a compact
IRI as it stands (its scheme is a prefix: `bg:x`) is written in a node whose context is null.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import groupby
from typing import IO

import pyoxigraph as ox

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


class Writer:
    """JSON-LD text for quads, with `prefixes` as its context."""

    def __init__(self, prefixes: dict[str, str]):
        self.prefixes = prefixes
        # the longest namespace first, as the dumps' Turtle does
        self.by_length = sorted(prefixes.items(), key=lambda item: -len(item[1]))

    def compact(self, iri: str) -> str:
        for prefix, ns in self.by_length:
            if iri.startswith(ns) and not iri[len(ns) :].startswith("//"):
                return f"{prefix}:{iri[len(ns) :]}"
        return iri

    def ambiguous(self, iri: str) -> bool:
        """Whether a reader of this context would expand `iri`, written whole, into another."""
        scheme, colon, _ = iri.partition(":")
        return bool(colon) and scheme in self.prefixes and self.compact(iri) == iri

    def write(self, quads: Iterable[ox.Quad], out: IO[bytes]) -> None:
        """The document, written to `out` a node at a time."""
        out.write(b'{"@context":' + _json(self.prefixes) + b',"@graph":[')
        sep = b""
        for graph, in_graph in groupby(quads, key=lambda q: q.graph_name):
            triples = (q.triple for q in in_graph)
            full = False
            if not isinstance(graph, ox.DefaultGraph):  # {"@id": graph, "@graph": [...]}
                name = _id(graph)
                full = self.ambiguous(name)
                head = {"@context": None, "@id": name} if full else {"@id": self.compact(name)}
                out.write(sep + _json(head)[:-1] + b',"@graph":[')
                sep = b""
            for node in self.nodes(triples, full):
                out.write(sep + _json(node))
                sep = b","
            if not isinstance(graph, ox.DefaultGraph):
                out.write(b"]}")
                sep = b","
        out.write(b"]}\n")

    def nodes(self, triples: Iterator[ox.Triple], full: bool = False) -> Iterator[dict]:
        """A node object for each subject's consecutive triples."""
        for subject, of_subject in groupby(triples, key=lambda t: t.subject):
            of_subject = list(of_subject)
            terms = [_id(subject)] + [t.predicate.value for t in of_subject]
            terms += [
                t.object.datatype.value if isinstance(t.object, ox.Literal) else _id(t.object)
                for t in of_subject
            ]
            bare = full or any(self.ambiguous(iri) for iri in terms)
            yield self.node(subject, of_subject, bare)

    def node(self, subject, triples: list[ox.Triple], bare: bool) -> dict:
        name = (lambda iri: iri) if bare else self.compact
        node: dict = {"@context": None} if bare else {}
        node["@id"] = name(_id(subject))
        properties = {}
        for predicate, same in groupby(triples, key=lambda t: t.predicate.value):
            objects = [t.object for t in same]
            if predicate == RDF_TYPE and all(isinstance(o, ox.NamedNode) for o in objects):
                node["@type"] = [name(o.value) for o in objects]  # after @id, for a reader
            else:
                properties[name(predicate)] = [self.value(o, name) for o in objects]
        node.update(properties)
        return node

    @staticmethod
    def value(term, name) -> object:
        if isinstance(term, ox.Literal):
            if term.language:
                return {"@value": term.value, "@language": term.language}
            if term.datatype.value == XSD_STRING:
                return term.value
            return {"@value": term.value, "@type": name(term.datatype.value)}
        return {"@id": name(_id(term))}


def _id(term) -> str:
    """An IRI's text, or a blank node's `_:label`."""
    return f"_:{term.value}" if isinstance(term, ox.BlankNode) else term.value


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
