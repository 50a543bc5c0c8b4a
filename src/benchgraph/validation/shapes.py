"""The shapes in shapes/, parsed once per process, and what a result needs of its shape."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD

from ..namespaces import BG
from ..resources import resource
from .shacl import SH


def shapes_dir() -> Path:
    return resource("shapes")


@lru_cache(maxsize=1)
def shapes_graph() -> Graph:
    """Every shapes/*.ttl, parsed (by Oxigraph: rdflib's Turtle parser is several times
    slower, and every `benchgraph` command pays it)."""
    g = Graph()
    for path in sorted(shapes_dir().glob("*.ttl")):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            g.add((_term(t.subject), _term(t.predicate), _term(t.object)))
    return g


def _term(t: Any) -> Any:
    if isinstance(t, ox.NamedNode):
        return URIRef(t.value)
    if isinstance(t, ox.BlankNode):
        return BNode(t.value)
    if t.language:
        return Literal(t.value, lang=t.language)
    if t.datatype.value == str(XSD.string):
        return Literal(t.value)  # as rdflib reads a plain literal, and convert.py writes it
    return Literal(t.value, datatype=URIRef(t.datatype.value))


def across_shape(g: Graph, shape: URIRef) -> bool:
    return (shape, BG.acrossRecords, Literal(True)) in g


@dataclass(frozen=True)
class ShapeInfo:
    """What a result needs from its shape to become a Problem."""

    field: str
    line_field: str
    message: str


@cache
def shape_info(shape: URIRef) -> ShapeInfo:
    g = shapes_graph()
    field = g.value(shape, SH.name) or g.value(shape, BG.recordField) or ""
    return ShapeInfo(
        str(field), str(g.value(shape, BG.lineField) or ""), str(g.value(shape, SH.message) or "")
    )


def curie(iri: URIRef) -> str:
    return "bg:" + iri[len(BG) :] if iri.startswith(str(BG)) else str(iri)
