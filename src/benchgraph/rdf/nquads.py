"""N-Quads text for rdflib triples: the form in which records travel to the store."""

from __future__ import annotations

from collections.abc import Iterable

from rdflib import BNode, Literal, URIRef
from rdflib.plugins.serializers.nt import _quoteLiteral


def term(t: object) -> str:
    """One term in N-Triples syntax."""
    if type(t) is URIRef:
        return f"<{t}>"
    if isinstance(t, Literal):
        text = _LITERALS.get(t)
        if text is None:
            if len(_LITERALS) > 100_000:
                _LITERALS.clear()
            text = _LITERALS[t] = _quoteLiteral(t)
        return text
    if isinstance(t, URIRef):
        return f"<{t}>"
    if isinstance(t, BNode):  # only the ontology has them; its graph is canonicalised first
        return f"_:{t}"
    raise TypeError(f"cannot write {t!r} as N-Quads")


# Literals repeat across records (units, flags, small numbers, dates): written once each.
_LITERALS: dict[Literal, str] = {}


def nquads(triples: Iterable[tuple], graph: URIRef) -> str:
    """The triples as N-Quads lines in `graph`, sorted so the text is stable."""
    g = f"<{graph}>"
    return "".join(sorted({f"{term(s)} {term(p)} {term(o)} {g} .\n" for s, p, o in triples}))
