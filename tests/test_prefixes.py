"""Every IRI benchgraph prints can be pasted back into a query: one prefix per kind of record
(`acc:nvidia-h100-sxm`), predeclared wherever queries run, clashing with no prefix in use."""

from __future__ import annotations

import re

import pytest

from benchgraph.links.sssom import CURIE_MAP
from benchgraph.namespaces import KIND_PREFIXES, PREFIXES, pasteable, readable, record_iri
from benchgraph.pipeline.steps import build
from benchgraph.query.render import run
from benchgraph.rdf.convert import CLASSES
from paths import ROOT

RECORDS = ROOT / "tests" / "web" / "data" / "records"
# Prefixes of the outside vocabularies the README and the alignments name, beside ours.
DECLARED = re.compile(r"(?im)^\s*(?:@prefix|PREFIX)\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>")


@pytest.fixture(scope="module")
def store():
    return build(RECORDS, skip_invalid=True).open()


def test_every_kind_has_its_own_prefix():
    assert set(KIND_PREFIXES) == set(CLASSES)
    assert len(set(KIND_PREFIXES.values())) == len(KIND_PREFIXES)


def test_no_kind_prefix_clashes_with_a_prefix_in_use():
    """A prefix of ours that another file binds to something else would mislead a reader
    who pastes between them (QUDT's `unit:` is the example)."""
    in_use: dict[str, set[str]] = {}
    for folder in ("ontology", "shapes", "queries", "src/benchgraph/resources"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".ttl", ".rq"):
                for prefix, iri in DECLARED.findall(path.read_text(encoding="utf-8")):
                    in_use.setdefault(prefix, set()).add(iri)
    for prefix, iri in CURIE_MAP.items():
        in_use.setdefault(prefix, set()).add(iri)
    for kind, prefix in KIND_PREFIXES.items():
        assert in_use.get(prefix, {PREFIXES[prefix]}) == {PREFIXES[prefix]}, (kind, prefix)
    others = {p: ns for p, ns in PREFIXES.items() if p not in KIND_PREFIXES.values()}
    assert not set(KIND_PREFIXES.values()) & set(others)


@pytest.mark.parametrize(
    ("iri", "printed", "shown"),
    [
        (
            str(record_iri("accelerators", "nvidia-h100-sxm")),
            "acc:nvidia-h100-sxm",
            "acc:nvidia-h100-sxm",
        ),
        (
            str(record_iri("benchmarks", "mlperf-v4.1-x-99.9-offline")),
            "run:mlperf-v4.1-x-99.9-offline",
            "run:mlperf-v4.1-x-99.9-offline",
        ),
        (
            str(record_iri("benchmarks", "seed")) + "#measurement-1",
            "<https://w3id.org/benchgraph/id/benchmarks/seed#measurement-1>",
            "run:seed#measurement-1",
        ),
        ("http://qudt.org/vocab/unit/W", "unit:W", "unit:W"),
        ("https://example.org/x", "<https://example.org/x>", "https://example.org/x"),
    ],
)
def test_printed_forms(iri, printed, shown):
    assert pasteable(iri) == printed
    assert readable(iri) == shown


def test_every_record_iri_as_printed_runs_in_values(store):
    """The printed form of each record's IRI, pasted into VALUES, finds that record."""
    rows = run(store, "SELECT ?r WHERE { ?r bg:recordId ?id }")
    iris = [row[0].value for row in rows]
    assert len(iris) > 5
    values = " ".join(pasteable(iri) for iri in iris)
    assert all(not p.startswith("<") for p in values.split())
    found = run(store, f"SELECT ?r WHERE {{ VALUES ?r {{ {values} }} ?r bg:recordId ?id }}")
    assert sorted(row[0].value for row in found) == sorted(iris)
