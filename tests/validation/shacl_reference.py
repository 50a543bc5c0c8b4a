"""pySHACL's results, the reference the fast passes are held to (tests and
benchmarks/validate_bench.py): test-only, so kept out of the shipped package."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rdflib import Graph, URIRef

from benchgraph.records.schema import Record
from benchgraph.validation.across import across_results
from benchgraph.validation.facts import facts_from_triples
from benchgraph.validation.record import local_shapes
from benchgraph.validation.shacl import SH, Index, Result
from benchgraph.validation.shapes import shapes_graph


def reference_results(data: Graph) -> list[Result]:
    """pySHACL's results for a graph (the whole dataset's stated triples), as Results."""
    import pyshacl

    shapes = Graph()
    shapes += shapes_graph()  # a copy: pySHACL adds to the shapes graph it is given
    _conforms, report, _text = pyshacl.validate(
        data, shacl_graph=shapes, inference="none", advanced=False
    )
    out = []
    for node in report.objects(None, SH.result):

        def one(p: URIRef, node: Any = node) -> Any:
            return report.value(node, p)

        out.append(
            Result(
                one(SH.focusNode),
                one(SH.resultPath),
                one(SH.sourceShape),
                one(SH.value),
                one(SH.resultSeverity),
                one(SH.sourceConstraintComponent),
                str(one(SH.resultMessage) or ""),
            )
        )
    return out


def fast_results(converted: Iterable[tuple[Record, list]]) -> list[Result]:
    """Both passes over converted records (record, triples), as the build runs them."""
    local: list[Result] = []
    facts = []
    shapes = local_shapes()
    for record, triples in converted:
        local += shapes.evaluate(Index(triples))
        facts.append(facts_from_triples(record, triples))
    return local + [r for r, _ in across_results(facts)]
