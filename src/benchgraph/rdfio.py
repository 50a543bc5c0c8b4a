"""N-Quads text for rdflib triples: the form in which records travel to the store."""

from __future__ import annotations

from collections.abc import Iterable

from rdflib import Literal, URIRef
from rdflib.plugins.serializers.nt import _quoteLiteral


def term(t: object) -> str:
    """One term in N-Triples syntax."""
    if isinstance(t, Literal):
        return _quoteLiteral(t)
    if isinstance(t, URIRef):
        return f"<{t}>"
    raise TypeError(f"benchgraph writes no blank nodes: {t!r}")


def nquads(triples: Iterable[tuple], graph: URIRef) -> str:
    """The triples as N-Quads lines in `graph`, sorted so the text is stable."""
    g = f"<{graph}>"
    return "".join(sorted({f"{term(s)} {term(p)} {term(o)} {g} .\n" for s, p, o in triples}))
