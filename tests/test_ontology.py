"""The ontology declares every term the build writes and stays consistent under OWL-RL.

The build closes `ontology/benchgraph.ttl` with owlrl and applies the result to the data, and
users query with its terms: a term the converter writes but the ontology lacks, a controlled
value whose notation drifts from the record format, or an axiom that makes the closure report
an inconsistency would each break a user's query or the build.
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
from importlib.resources import files
from itertools import combinations

import owlrl
import pytest
from owlrl.Namespaces import ERRNS
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS, SKOS, VANN, XSD

from benchgraph import vocab
from benchgraph.namespaces import BG, ONTOLOGY_IRI, QUDT, UNIT, record_iri
from benchgraph.rdf import convert
from benchgraph.records.schema import Record

ONTOLOGY_FILE = files("benchgraph") / "resources" / "ontology" / "benchgraph.ttl"
PROBE = Namespace("urn:benchgraph-test:probe:")
DECLARATION_TYPES = {
    OWL.Class,
    OWL.ObjectProperty,
    OWL.DatatypeProperty,
    OWL.AnnotationProperty,
    SKOS.Concept,
    SKOS.ConceptScheme,
    QUDT.Unit,
}
ROLE_CLASSES = [BG.ScaleUpFabric, BG.HostLink, BG.ScaleOutNetwork]


def _own(term) -> bool:
    """In benchgraph's namespaces. (rdflib's startswith takes no tuple of prefixes.)"""
    return isinstance(term, URIRef) and any(str(term).startswith(ns) for ns in (BG, UNIT))


# --- what the code emits ---------------------------------------------------------------


def _attribute_names(module) -> set[str]:
    """Every `BG.name` written in a module's source."""
    return set(re.findall(r"\bBG\.([A-Za-z_]\w*)", inspect.getsource(module)))


def _item_names(module) -> set[str]:
    """Every `BG["name"]` written in a module's source."""
    return set(re.findall(r"\bBG\[\s*[\"']([^\"']+)[\"']\s*\]", inspect.getsource(module)))


def _short(iri: URIRef) -> str:
    return re.split(r"[#/]", str(iri))[-1]


def _iris_in(value) -> set[URIRef]:
    if isinstance(value, URIRef):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_iris_in(v) for v in value.values())) if value else set()
    if isinstance(value, (tuple, list, set)):
        return set().union(*(_iris_in(v) for v in value)) if value else set()
    return set()


def _emitted_terms() -> set[URIRef]:
    """The bg: and bgunit: IRIs convert.py and vocab.py can write."""
    terms = {
        BG[name]
        for module in (convert, vocab)
        for name in _attribute_names(module) | _item_names(module)
    }
    for module in (convert, vocab):
        for name, value in vars(module).items():
            if name.isupper():
                terms |= _iris_in(value)
    return {t for t in terms if _own(t)}


EMITTED = sorted(_emitted_terms())


# --- a record of every kind, with every field the converter reads ----------------------

SAMPLES: dict[str, dict[str, dict]] = {
    "interconnects": {
        "nvlink-4": {
            "name": "NVLink 4",
            "role": "scale-up-fabric",
            "vendor": "NVIDIA",
            "generation": 4,
            "bandwidth_gb_s": 900,
        },
        "pcie-gen5": {"name": "PCIe Gen5", "role": "host-link", "generation": "Gen5"},
        "infiniband-ndr": {"name": "InfiniBand NDR", "role": "scale-out-network"},
    },
    "accelerators": {
        "gpu-a": {
            "name": "GPU A",
            "vendor": "NVIDIA",
            "memory_gb": 96,
            "form_factor": "PCIe",
            "interconnect_ids": ["nvlink-4"],
            "family": "gpu-family",
            "same_as": ["https://www.wikidata.org/wiki/Q1"],
        },
    },
    "systems": {
        "sys-a": {
            "name": "System A",
            "accelerators": [{"id": "gpu-a", "count": 8}],
            "nodes": 2,
            "host_cpu": "CPU X",
            "interconnect_ids": ["infiniband-ndr"],
            "interconnect_raw": {"accelerator_interconnect": "TBD"},
            "vendor": "V",
            "submitter": "S",
            "system_type": "datacenter",
            "availability": "available",
            "software": "stack 1",
        },
    },
    "metrics": {
        "tok-s-per-user": {
            "name": "decode tok/s per user",
            "unit": "tok/s",
            "direction": "higher-is-better",
            "scope": "per-user",
            "description": "decode throughput seen by one user",
        },
    },
    "engines": {"engine-a": {"name": "Engine A", "vendor": "E", "url": "https://example.org/e"}},
    "models": {
        "model-a": {
            "name": "Model A",
            "vendor": "M",
            "parameters_b": 284.5,
            "active_parameters_b": 13,
            "family": "model-family",
        },
    },
    "benchmarks": {
        "run-a": {
            "title": "Run A",
            "category": "inference/research",
            "status": "draft",
            "confidence": 0.75,
            "updated": dt.date(2026, 10, 4),
            "metric": "tok-s-per-user",
            "value": 93.9,
            "unit": "tok/s",
            "model": "model-a",
            "engine": "engine-a",
            "engine_version": "1.2",
            "accelerators": ["gpu-a"],
            "accelerator_count": 8,
            "system": "sys-a",
            "interconnect_ids": ["pcie-gen5"],
            "parallelism": {"tensor": 8, "expert": 8, "pipeline": 1, "data": 1},
            "concurrency": 1,
            "measured_by": "third_party",
            "reproducible": True,
            "methodology": "one user",
            "notes": "a note",
            "measurements": [
                {
                    "metric": "tok-s-per-user",
                    "value": 134.1,
                    "unit": "tok/s",
                    "condition": {"prompt_class": "structured"},
                },
                {"metric": "tok-s-per-user", "min": 143, "max": 169, "unit": "ms"},
                {
                    "metric": "tok-s-per-user",
                    "value": 220,
                    "out_of": 600,
                    "unit": "W",
                    "derived": True,
                    "note": "as reported",
                },
            ],
            "settings": {
                "kv_cache_dtype": "fp8_e4m3",
                "mem_fraction_static": 0.72,
                "speculative_algorithm": "DSPARK",
                "cuda_graph": True,
            },
            "workload": {
                "input_tokens": 1024,
                "output_tokens": 1024,
                "batch_size": 1,
                "dataset": "prompts",
            },
            "omitted_by_source": ["engine version"],
            "scenario": "Server",
            "division": "open",
            "availability": "available",
            "submitter": "S",
            "benchmark": "bench-a",
            "accuracy_target": "99%",
            "software": "stack 1",
            "history": [{"date": dt.date(2026, 10, 4), "note": "interconnect ids filled"}],
            "source": [
                {
                    "publisher": "P",
                    "title": "T",
                    "url": "https://example.org/r",
                    "date": dt.date(2026, 10, 1),
                    "repository": "org/repo",
                    "commit": "abc123",
                    "path": "a/b.json",
                    "row": 12,
                    "round": "v5.1",
                    "licence": "https://www.apache.org/licenses/LICENSE-2.0",
                    "note": "n",
                }
            ],
        },
    },
}


def _sample_triples() -> Graph:
    g = Graph()
    for kind, records in SAMPLES.items():
        for record_id, fields in records.items():
            record = Record(
                kind, record_id, f"data/{kind}/{record_id}.yaml", {"id": record_id, **fields}
            )
            for triple in convert.record_triples(record):
                g.add(triple)
            for triple in convert.provenance_triples(record, record.path, "0" * 40):
                g.add(triple)
    return g


# --- fixtures --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def onto() -> Graph:
    return Graph().parse(data=ONTOLOGY_FILE.read_text(encoding="utf-8"), format="turtle")


def _close(*graphs: Graph) -> Graph:
    g = Graph()
    for source in graphs:
        for triple in source:
            g.add(triple)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(g)
    return g


def _errors(g: Graph) -> list[str]:
    return sorted(str(m) for m in g.objects(None, ERRNS.error))


def _nothing(g: Graph) -> list:
    return sorted(g.subjects(RDF.type, OWL.Nothing))


@pytest.fixture(scope="module")
def closed_onto(onto) -> Graph:
    return _close(onto)


@pytest.fixture(scope="module")
def samples() -> Graph:
    return _sample_triples()


@pytest.fixture(scope="module")
def closed_samples(onto, samples) -> Graph:
    return _close(onto, samples)


# --- the file and its header -----------------------------------------------------------


def test_file_parses_and_is_an_owl_ontology(onto):
    assert (ONTOLOGY_IRI, RDF.type, OWL.Ontology) in onto
    assert len(onto) > 500


@pytest.mark.parametrize(
    "field",
    [
        DCTERMS.title,
        DCTERMS.description,
        DCTERMS.license,
        DCTERMS.created,
        DCTERMS.modified,
        OWL.versionIRI,
        OWL.versionInfo,
        VANN.preferredNamespacePrefix,
        VANN.preferredNamespaceUri,
    ],
    ids=_short,
)
def test_header_has(onto, field):
    assert onto.value(ONTOLOGY_IRI, field) is not None, f"header lacks {field}"


def test_header_values(onto):
    def value(prop):
        return onto.value(ONTOLOGY_IRI, prop)

    assert value(DCTERMS.license) == URIRef("https://www.apache.org/licenses/LICENSE-2.0")
    assert str(value(VANN.preferredNamespacePrefix)) == "bg"
    assert str(value(VANN.preferredNamespaceUri)) == str(BG)
    version = str(value(OWL.versionInfo))
    assert value(OWL.versionIRI) == URIRef(f"{ONTOLOGY_IRI}/{version}")
    created, modified = value(DCTERMS.created), value(DCTERMS.modified)
    assert created.datatype == modified.datatype == XSD.date
    assert created.toPython() <= modified.toPython()


# --- every term the code writes is declared and documented -----------------------------


def test_emitted_terms_were_found():
    # Guards the scan itself: if it stopped finding terms, the next test would pass vacuously.
    assert {
        BG.BenchmarkRun,
        BG.interconnect,
        BG.value,
        BG["format-fp8_e4m3"],
        UNIT["TOK-PER-SEC"],
        BG.SpeculativeDecodingSetting,
    } <= set(EMITTED)


@pytest.mark.parametrize("name", sorted(_attribute_names(convert) | _attribute_names(vocab)))
def test_bg_attribute_is_an_iri(name):
    # `BG.<name>` must reach the namespace, not a str method of the same name (`BG.index`).
    assert isinstance(getattr(BG, name), URIRef), f"BG.{name} is not an IRI; write BG[{name!r}]"


def _documentation_problems(g: Graph, term: URIRef) -> list[str]:
    problems = []
    if not set(g.objects(term, RDF.type)) & DECLARATION_TYPES:
        problems.append("not declared (no rdf:type of a class, property, concept or unit)")
    labels = [o for o in g.objects(term, RDFS.label) if isinstance(o, Literal)]
    if not any(o.language == "en" for o in labels):
        problems.append("no rdfs:label @en")
    definitions = [o for o in g.objects(term, SKOS.definition) if isinstance(o, Literal)]
    if not any(o.language == "en" for o in definitions):
        problems.append("no skos:definition @en")
    if (term, RDFS.isDefinedBy, ONTOLOGY_IRI) not in g:
        problems.append("no rdfs:isDefinedBy the ontology")
    return problems


@pytest.mark.parametrize("term", EMITTED, ids=_short)
def test_emitted_term_is_declared_and_documented(onto, term):
    assert _documentation_problems(onto, term) == []


def test_every_own_term_is_documented(onto):
    own = {s for s in onto.subjects() if _own(s)}
    problems = {t: p for t in sorted(own) if (p := _documentation_problems(onto, t))}
    assert problems == {}


def test_converted_records_use_declared_terms_as_declared(onto, samples):
    """Literals go through datatype properties, IRIs through object properties, and a literal
    has the datatype its property's range names."""
    problems = []
    for _s, p, o in sorted(samples):
        if p == RDF.type and o.startswith(str(BG)) and (o, RDF.type, OWL.Class) not in onto:
            problems.append(f"{o} used as a class but not an owl:Class")
        if not p.startswith(str(BG)):
            continue
        kind = OWL.DatatypeProperty if isinstance(o, Literal) else OWL.ObjectProperty
        if (p, RDF.type, kind) not in onto:
            problems.append(f"{p} has a {type(o).__name__} value but is not an {kind}")
        ranged = onto.value(p, RDFS.range)
        if isinstance(o, Literal) and ranged is not None and ranged.startswith(str(XSD)):
            datatype = o.datatype or XSD.string
            if datatype != ranged:
                problems.append(f"{p} {o!r}: datatype {datatype} but range {ranged}")
    assert problems == []


# --- the contract terms of the record format and the reasoning -------------------------


@pytest.mark.parametrize(
    "prop, expected",
    [
        (BG.value, XSD.decimal),
        (BG.acceleratorCount, XSD.integer),
        (BG.confidence, XSD.decimal),
        (BG.crossesDevices, XSD.boolean),
        (BG.fabricStatus, BG.FabricStatus),
        (BG.relativeChange, XSD.decimal),
        (BG.outperformsBaseline, XSD.boolean),
        (BG.interconnect, BG.Interconnect),
        (BG.model, BG.Model),
        (BG.engine, BG.Engine),
        (BG.accelerator, BG.Accelerator),
        (BG.status, BG.RecordStatus),
        (BG.modelParallelSize, XSD.integer),
    ],
    ids=_short,
)
def test_contract_property_range(onto, prop, expected):
    assert onto.value(prop, RDFS.range) == expected


@pytest.mark.parametrize(
    "table, scheme, cls",
    [
        (vocab.STATUS, BG.RecordStatuses, BG.RecordStatus),
        (vocab.MEASURED_BY, BG.MeasuringParties, BG.MeasuringParty),
        (
            {code: pair[0] for code, pair in vocab.ROLES.items()},
            BG.InterconnectRoles,
            BG.InterconnectRole,
        ),
        (vocab.DIRECTIONS, BG.MetricDirections, BG.MetricDirection),
        (vocab.SCOPES, BG.MetricScopes, BG.MetricScope),
        (vocab.NUMBER_FORMATS, BG.NumberFormats, BG.NumberFormat),
        (vocab.HOST_INTERFACE_CODES, BG.HostInterfaceKinds, BG.HostInterfaceKind),
    ],
    ids=[
        "status",
        "measured-by",
        "roles",
        "directions",
        "scopes",
        "number-formats",
        "host-interface-codes",
    ],
)
def test_controlled_values_form_a_scheme_with_the_record_codes(onto, table, scheme, cls):
    assert (scheme, RDF.type, SKOS.ConceptScheme) in onto
    assert set(onto.subjects(SKOS.inScheme, scheme)) == set(table.values())
    for code, concept in table.items():
        assert {SKOS.Concept, cls} <= set(onto.objects(concept, RDF.type)), concept
        assert [str(n) for n in onto.objects(concept, SKOS.notation)] == [code], concept
    tops = set(onto.objects(scheme, SKOS.hasTopConcept))
    assert tops == set(onto.subjects(SKOS.topConceptOf, scheme))
    assert all((c, SKOS.broader, None) in onto or c in tops for c in table.values())


def test_role_classes_are_the_interconnect_subclasses(onto):
    assert [cls for _, cls in vocab.ROLES.values()] == ROLE_CLASSES
    for cls in ROLE_CLASSES:
        assert (cls, RDFS.subClassOf, BG.Interconnect) in onto


def test_fabric_statuses(onto):
    statuses = {BG.ScaleUpFabricPresent, BG.NoScaleUpFabric, BG.FabricNotPublished}
    assert set(onto.subjects(SKOS.inScheme, BG.FabricStatuses)) == statuses
    assert set(onto.subjects(RDF.type, BG.FabricStatus)) == statuses
    assert (BG.fabricStatus, RDFS.domain, BG.BenchmarkRun) in onto


def test_model_parallel_sizes_exclude_data_parallelism(onto):
    parts = set(onto.subjects(RDFS.subPropertyOf, BG.modelParallelSize))
    assert parts == {BG.tensorParallelSize, BG.pipelineParallelSize, BG.expertParallelSize}
    # neither replica count splits a copy of the model: data parallelism replicates it
    # whole, attention data parallelism only its attention layers
    assert set(vocab.PARALLELISM.values()) == parts | {
        BG.dataParallelSize,
        BG.attentionDataParallelSize,
    }


@pytest.mark.parametrize(
    "code, iri", sorted((c, u) for c, u in vocab.UNITS.items() if u.startswith(str(UNIT)))
)
def test_own_unit_is_a_qudt_unit(onto, code, iri):
    assert (iri, RDF.type, QUDT.Unit) in onto
    assert str(onto.value(iri, QUDT.symbol)) == code
    assert onto.value(iri, QUDT.hasQuantityKind) is not None
    assert onto.value(iri, QUDT.conversionMultiplier) == Literal("1.0", datatype=XSD.decimal)


# --- OWL 2 RL: consistency, disjointness, the property chains --------------------------


def test_ontology_closure_is_consistent(closed_onto):
    assert _errors(closed_onto) == []
    assert _nothing(closed_onto) == []


def test_every_class_can_have_members(onto):
    """One individual per class: a class forced under two disjoint classes would clash."""
    probes = Graph()
    for cls in onto.subjects(RDF.type, OWL.Class):
        if isinstance(cls, URIRef) and cls.startswith(str(BG)):
            probes.add((PROBE[cls.split("#")[-1]], RDF.type, cls))
    assert len(probes) > 20
    closed = _close(onto, probes)
    assert _errors(closed) == []
    assert _nothing(closed) == []


def test_converted_records_are_consistent_with_the_ontology(closed_samples):
    assert _errors(closed_samples) == []
    assert _nothing(closed_samples) == []


ROLE_PAIRS = list(combinations(ROLE_CLASSES, 2))


def _clash_probe(first: URIRef, second: URIRef) -> URIRef:
    return PROBE[f"{_short(first)}-and-{_short(second)}"]


@pytest.fixture(scope="module")
def closed_clashes(onto) -> Graph:
    """One individual typed with each pair of role classes, closed together."""
    probes = Graph()
    for first, second in ROLE_PAIRS:
        probes.add((_clash_probe(first, second), RDF.type, first))
        probes.add((_clash_probe(first, second), RDF.type, second))
    return _close(onto, probes)


@pytest.mark.parametrize("first, second", ROLE_PAIRS, ids=_short)
def test_role_classes_are_disjoint(onto, closed_clashes, first, second):
    assert (first, OWL.disjointWith, second) in onto or (second, OWL.disjointWith, first) in onto
    probe = str(_clash_probe(first, second))
    assert any(probe in message for message in _errors(closed_clashes))


def test_run_interconnects_are_the_union_of_run_system_and_accelerators(closed_samples):
    run = record_iri("benchmarks", "run-a")
    found = set(closed_samples.objects(run, BG.interconnect))
    assert found == {
        record_iri("interconnects", i) for i in ("pcie-gen5", "nvlink-4", "infiniband-ndr")
    }
    assert (
        record_iri("systems", "sys-a"),
        BG.interconnect,
        record_iri("interconnects", "nvlink-4"),
    ) in closed_samples


def test_no_axioms_that_derive_triples_about_other_nodes_or_merge_them(onto):
    # Derived triples must have a record's own node as subject, and nothing may be merged.
    for p in (OWL.inverseOf, OWL.sameAs):
        assert list(onto.triples((None, p, None))) == [], p
    for t in (OWL.FunctionalProperty, OWL.InverseFunctionalProperty, OWL.SymmetricProperty):
        assert list(onto.subjects(RDF.type, t)) == [], t


def test_blank_nodes_only_in_property_chains(onto):
    """Any other blank node (a restriction, a union) would type data with blank nodes."""
    allowed = set()
    for chain in onto.objects(None, OWL.propertyChainAxiom):
        node = chain
        while isinstance(node, BNode):
            allowed.add(node)
            node = onto.value(node, RDF.rest)
    used = {n for triple in onto for n in triple if isinstance(n, BNode)}
    assert used - allowed == set()
