"""Reasoning: the ontology's semantics applied to each record, then cross-record rules.

Strategy (measured; see README, Design): owlrl closes the ontology alone once; the closure's
class and property hierarchy is then applied to each record's own triples in Python (cached
per record, so an edit re-infers one record); rules that join records run as SPARQL in the
query store.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS

Triple = tuple


class Reasoner:
    """The ontology's class and property hierarchy, ready to apply to one record at a time."""

    def __init__(self, ontology: Graph):
        self.superclasses: dict[URIRef, set[URIRef]] = defaultdict(set)
        self.superproperties: dict[URIRef, set[URIRef]] = defaultdict(set)
        for sub, sup in ontology.subject_objects(RDFS.subClassOf):
            if isinstance(sub, URIRef) and isinstance(sup, URIRef) and sup != OWL.Thing:
                self.superclasses[sub].add(sup)
        for sub, sup in ontology.subject_objects(RDFS.subPropertyOf):
            if isinstance(sub, URIRef) and isinstance(sup, URIRef):
                self.superproperties[sub].add(sup)
        _close(self.superclasses)
        _close(self.superproperties)

    def local(self, triples: Iterable[Triple], own: str) -> list[Triple]:
        """What the hierarchy adds to a record's triples, about the record's own nodes only
        (subjects starting with `own`), minus what is already stated."""
        stated = set(triples)
        out = set()
        for s, p, o in stated:
            if not str(s).startswith(own):
                continue
            for q in self.superproperties.get(p, ()):
                out.add((s, q, o))
            if p == RDF.type:
                for c in self.superclasses.get(o, ()):
                    out.add((s, RDF.type, c))
        return sorted(out - stated)


def _close(edges: dict[URIRef, set[URIRef]]) -> None:
    """Transitive closure in place, without self-loops."""
    for node in list(edges):
        seen: set[URIRef] = set()
        todo = list(edges[node])
        while todo:
            n = todo.pop()
            if n in seen or n == node:
                continue
            seen.add(n)
            todo.extend(edges.get(n, ()))
        edges[node] = seen


def derive(store, runs: list[str] | None = None) -> None:
    """Cross-record rules, run in the query store into the inferred graph (see rules.py)."""
    from .rules import run_rules

    run_rules(store, runs)
