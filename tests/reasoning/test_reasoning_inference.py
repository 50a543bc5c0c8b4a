"""OWL-RL: the ontology closed once, its hierarchy applied per record, the same answers as a
full owlrl closure, and no noise in the inferred graph."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from benchgraph.namespaces import BG, INFERRED_GRAPH
from benchgraph.query.render import run
from benchgraph.reasoning.infer import Reasoner, owlrl_closure, useful
from benchgraph.reasoning.ontology import ontology_graph, reasoner

from .reasoning_support import INFERRED, REASONING, build_store, select

# What the build derives that is not OWL: the project's own rules (infer.derive_local, rules.py).
PROJECT = {
    BG.fabricStatus,
    BG.crossesDevices,
    BG.acceleratorKinds,
    BG.comparison,
    BG.compared,
    BG.baseline,
    BG.relativeChange,
    BG.outperformsBaseline,
    BG.fabricStatusBasis,
}


def _rdflib(term):
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    return Literal(
        term.value,
        lang=term.language,
        datatype=None if term.language else URIRef(term.datatype.value),
    )


def _split(store: ox.Store) -> tuple[set, set]:
    """(stated triples, inferred triples) of a built store."""
    stated, inferred = set(), set()
    for quad in store:
        triple = tuple(_rdflib(t) for t in (quad.subject, quad.predicate, quad.object))
        (inferred if quad.graph_name.value == INFERRED else stated).add(triple)
    return stated, inferred


def _project(triples: set) -> set:
    comparisons = {
        s for s, p, o in triples if p == RDF.type and o in (BG.Comparison, BG.FabricStatusBasis)
    }
    return {t for t in triples if t[1] in PROJECT or t[0] in comparisons}


def _graph(triples) -> Graph:
    g = Graph()
    for t in triples:
        g.add(t)
    return g


def _noise(triples) -> dict[str, int]:
    return {
        "reflexive sameAs": sum(1 for s, p, o in triples if p == OWL.sameAs and s == o),
        "owl:Thing / rdfs:Resource typing": sum(
            1 for s, p, o in triples if p == RDF.type and o in (OWL.Thing, RDFS.Resource)
        ),
        "datatype axioms": sum(
            1
            for s, p, o in triples
            if str(s).startswith(str(XSD))
            or (p == RDF.type and (o == RDFS.Datatype or str(o).startswith(str(XSD))))
        ),
    }


def test_the_ontology_uses_only_what_the_fast_path_implements():
    assert reasoner().unsupported() == []


def test_an_unsupported_axiom_is_named():
    g = Graph()
    for t in ontology_graph():
        g.add(t)
    g.add((BG.accelerator, OWL.inverseOf, BG.probeAcceleratorOf))
    assert any("inverseOf" in line for line in Reasoner(g).unsupported())


def test_raw_owlrl_adds_the_noise_that_the_filter_removes():
    g = _graph([(BG.run, RDF.type, BG.BenchmarkRun), (BG.run, BG.value, Literal(1.5))])
    for t in ontology_graph():
        g.add(t)
    before = set(g)
    import owlrl

    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(g)
    raw = set(g) - before
    assert all(_noise(raw).values())  # the filter has work to do
    assert not any(_noise({t for t in raw if useful(t)}).values())


def test_the_inferred_graph_has_no_noise(fixture_store):
    _, inferred = _split(fixture_store)
    assert _noise(inferred) == {
        "reflexive sameAs": 0,
        "owl:Thing / rdfs:Resource typing": 0,
        "datatype axioms": 0,
    }
    assert not any(isinstance(s, BNode) or isinstance(o, BNode) for s, _, o in inferred)


def test_the_ontology_closure_is_in_the_inferred_graph(fixture_store):
    assert bool(
        run(
            fixture_store,
            f"""ASK {{ GRAPH <{INFERRED}> {{
        bg:SpeculativeDecodingSetting rdfs:subClassOf mls:HyperParameterSetting .
        bg:tensorParallelSize rdfs:domain prov:Activity }} }}""",
        )
    )


def test_same_answers_as_a_full_owlrl_closure(fixture_store):
    """owlrl over what the records state (plus the project's own derived facts) entails
    exactly the OWL part of the inferred graph; and the built store is closed: owlrl adds
    nothing useful to it."""
    stated, inferred = _split(fixture_store)
    project = _project(inferred)
    reference = owlrl_closure(_graph(stated | project))
    ours = inferred - project
    assert sorted(reference - ours) == []
    assert sorted(ours - reference) == []
    assert sorted(owlrl_closure(_graph(stated | inferred))) == []


def test_queries_need_no_class_or_property_paths(fixture_store):
    """A run is found as an mls:Run / prov:Activity, a TP or PP size as a model-parallel size,
    without rdfs:subClassOf* or rdfs:subPropertyOf* in the query."""
    runs = select(fixture_store, "SELECT ?r WHERE { ?r a mls:Run , prov:Activity }")
    assert len(runs) == 11
    sizes = select(
        fixture_store,
        """SELECT ?size WHERE {
        <https://w3id.org/benchgraph/id/benchmarks/h100-2node-tp8-pp2>
            bg:modelParallelSize ?size } ORDER BY ?size""",
    )
    assert sizes == [("2",), ("8",)]


def test_local_reasoning_claims_only_the_records_own_nodes():
    """A record never adds triples about another record, even one whose id it prefixes."""
    own = "https://w3id.org/benchgraph/id/benchmarks/run"
    other = URIRef(own + "-2")
    triples = [
        (URIRef(own), RDF.type, BG.BenchmarkRun),
        (other, RDF.type, BG.BenchmarkRun),
        (URIRef(own), BG.tensorParallelSize, Literal(2)),
        (URIRef(own + "#setting-x"), RDF.type, BG.SpeculativeDecodingSetting),
    ]
    added = reasoner().local(triples, own)
    assert added and all(s != other for s, _, _ in added)
    assert (URIRef(own + "#setting-x"), RDF.type, BG.EngineSetting) in added


@pytest.mark.parametrize("predicate", [BG.interconnect, BG.fabricStatus])
def test_rules_predicates_live_only_in_the_inferred_graph(fixture_store, predicate):
    """What the cross-record rules derive is in the inferred graph, never in a record's."""
    rows = select(
        fixture_store,
        f"""SELECT ?g WHERE {{ ?run a bg:BenchmarkRun .
        GRAPH ?g {{ ?run <{predicate}> ?o }} }}""",
    )
    graphs = {g for (g,) in rows}
    if predicate == BG.fabricStatus:
        assert graphs == {str(INFERRED_GRAPH)}
    else:  # a run's own list stays in its record's graph
        assert str(INFERRED_GRAPH) in graphs


def test_the_fixture_builds_cleanly(tmp_path):
    store = build_store(REASONING, tmp_path / "cache")
    assert select(store, "SELECT (COUNT(*) AS ?n) WHERE { ?r a bg:BenchmarkRun }") == [("11",)]
