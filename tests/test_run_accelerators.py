"""A run's accelerators: plain ids with accelerator_count (the seed's form), or {id, count}
for each kind, the run's total of it; a run on several kinds is told apart in the graph
(bg:acceleratorUse, bg:acceleratorKinds) so no per-accelerator figure reads as one kind's."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from benchgraph.errors import VIOLATION, WARNING
from benchgraph.namespaces import BG, record_iri
from benchgraph.rdf.convert import record_triples
from benchgraph.reasoning.infer import derive_local
from benchgraph.records.reader import load_record

SHOWN = "data/benchmarks/x.yaml"
RUN = record_iri("benchmarks", "x")


def read(body: str):
    return load_record(Path("/d/benchmarks/x.yaml"), Path("/d"), SHOWN, text="id: x\n" + body)


def acc(name: str) -> URIRef:
    return record_iri("accelerators", name)


def test_the_seeds_plain_list_with_a_count_stays_valid():
    record, problems = read("accelerators: [nvidia-h100-sxm]\naccelerator_count: 8\n")
    assert problems == []
    triples = set(record_triples(record))
    assert (RUN, BG.accelerator, acc("nvidia-h100-sxm")) in triples
    assert (RUN, BG.acceleratorCount, Literal(8, datatype=XSD.integer)) in triples
    assert not any(p == BG.acceleratorUse for _, p, _ in triples)
    assert (RUN, BG.acceleratorKinds, Literal(1, datatype=XSD.integer)) in set(
        derive_local(triples, RUN)
    )


MIXED = (
    "accelerators:\n- id: amd-instinct-mi300x\n  count: 32\n"
    "- id: amd-instinct-mi325x\n  count: 16\n"
)


@pytest.mark.parametrize("count", ["accelerator_count: 48\n", ""])
def test_a_run_on_two_kinds_states_each_kinds_total(count):
    record, problems = read(MIXED + count)
    assert problems == []
    triples = set(record_triples(record))
    uses = {o for s, p, o in triples if s == RUN and p == BG.acceleratorUse}
    assert len(uses) == 2
    totals = {
        next(o for s, p, o in triples if s == u and p == BG.acceleratorKind): next(
            o for s, p, o in triples if s == u and p == BG.totalCount
        )
        for u in uses
    }
    assert totals == {
        acc("amd-instinct-mi300x"): Literal(32, datatype=XSD.integer),
        acc("amd-instinct-mi325x"): Literal(16, datatype=XSD.integer),
    }
    # the run links each kind, and its total is stated or the counts' sum
    assert {o for s, p, o in triples if s == RUN and p == BG.accelerator} == set(totals)
    assert (RUN, BG.acceleratorCount, Literal(48, datatype=XSD.integer)) in triples
    assert (RUN, BG.acceleratorKinds, Literal(2, datatype=XSD.integer)) in set(
        derive_local(triples, RUN)
    )


@pytest.mark.parametrize(
    "body,line,field,value,says",
    [
        ("accelerators:\n- id: a\n- id: b\n  count: 2\n", 3, "accelerators.0", "", "has no count"),
        ("accelerators:\n- count: 2\n", 3, "accelerators.0", "", "has no id"),
        (
            "accelerators:\n- id: a\n  count: 0\n",
            4,
            "accelerators.0.count",
            "0",
            "whole number above 0",
        ),
        (
            "accelerators:\n- id: a\n  count: 2.5\n",
            4,
            "accelerators.0.count",
            "2.5",
            "whole number above 0",
        ),
        (
            MIXED + "accelerator_count: 40\n",
            7,
            "accelerator_count",
            "40",
            "not the sum of the accelerators' counts, 48 (32 amd-instinct-mi300x + 16 "
            "amd-instinct-mi325x)",
        ),
        (
            "accelerators:\n- a\n- id: b\n  count: 2\n",
            3,
            "accelerators.0",
            "a",
            "plain id in a list of {id, count} mappings",
        ),
        (
            "accelerators:\n- id: a\n  count: 2\n- id: a\n  count: 3\n",
            5,
            "accelerators.1.id",
            "a",
            "listed twice",
        ),
        (
            "accelerators:\n- id: a\n  count: 2\n  per_node: 1\n",
            5,
            "accelerators.0.per_node",
            "",
            "not a known field",
        ),
    ],
)
def test_a_bad_accelerator_entry_is_reported_at_its_line_and_field(body, line, field, value, says):
    _, problems = read(body)
    assert [(p.file, p.line, p.field, p.value, p.severity) for p in problems] == [
        (SHOWN, line, field, value, VIOLATION)
    ], problems
    assert says in problems[0].message


def test_every_bad_entry_is_reported_at_once():
    _, problems = read("accelerators:\n- id: a\n- id: b\n  count: -1\n- count: 3\n")
    assert [(p.line, p.field) for p in problems] == [
        (3, "accelerators.0"),
        (5, "accelerators.1.count"),
        (6, "accelerators.2"),
    ]


def test_several_kinds_without_counts_is_a_warning_naming_them():
    _, problems = read("accelerators: [a, b]\naccelerator_count: 8\n")
    assert [(p.line, p.field, p.value, p.severity) for p in problems] == [
        (2, "accelerators", "a, b", WARNING)
    ]
    assert "{id, count}" in problems[0].message
