"""Every shape's valid and invalid examples (shapes/examples/) give exactly what they claim.

A valid example gives no result; an invalid one gives results of its shape and of no other.
All examples are checked together, in one dataset with the base records, by the fast path the
build uses; pySHACL over the same dataset must give the same results.
"""

from __future__ import annotations

import pytest
from rdflib.namespace import RDF, SH

from benchgraph.namespaces import BG
from benchgraph.validation.shapes import shapes_graph

from .shacl_reference import fast_results, reference_results
from .validation_support import BASE, convert_folder, diff, keys, load_examples, union_graph

EXAMPLES = load_examples()


@pytest.fixture(scope="module")
def results_by_record(example_dataset):
    by_record: dict[str, list] = {}
    for r in fast_results(example_dataset):
        by_record.setdefault(str(r.focus).split("#")[0], []).append(r)
    return by_record


def test_the_base_records_conform(results_by_record):
    base = {str(rec_iri) for rec_iri in _iris(convert_folder(BASE))}
    assert [r for iri in base for r in results_by_record.get(iri, [])] == []


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_example(example, results_by_record):
    found = results_by_record.get(example.iri, [])
    shapes = {r.shape.split("#")[1] for r in found}
    if example.verdict == "valid":
        assert found == [], f"{example.file}: {example.change!r} should conform"
    else:
        assert shapes == {example.shape}, f"{example.file}: {example.change!r} gave {shapes}"


def test_every_shape_with_constraints_has_valid_and_invalid_examples():
    g = shapes_graph()
    have = {(e.shape, e.verdict) for e in EXAMPLES}
    missing = []
    for shape in set(g.subjects(RDF.type, SH.PropertyShape)) | set(
        g.subjects(RDF.type, SH.NodeShape)
    ):
        own = {p for p in g.predicates(shape) if str(p).startswith(str(SH))} - {
            SH.targetClass,
            SH.property,
            SH.message,
            SH.severity,
            SH.name,
            SH.path,
        }
        name = shape[len(BG) :]
        if own and not {(name, "valid"), (name, "invalid")} <= have:
            missing.append(name)
    assert missing == []


def test_examples_name_real_shapes():
    g = shapes_graph()
    unknown = {e.shape for e in EXAMPLES if (BG[e.shape], None, None) not in g}
    assert unknown == set()


@pytest.mark.slow
def test_pyshacl_agrees_on_the_examples(example_dataset):
    fast = keys(fast_results(example_dataset))
    reference = keys(reference_results(union_graph(example_dataset)))
    assert fast == reference, diff(fast, reference)


def _iris(converted):
    from benchgraph.namespaces import record_iri

    return [record_iri(r.kind, r.id) for r, _ in converted]
