"""The shapes file itself: its header, stable IRIs and messages, severities, the controlled
values it lists (the same as the record format's), and a shape for every field converted."""

from __future__ import annotations

from rdflib import Graph, URIRef
from rdflib import namespace as ns
from rdflib.collection import Collection
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS, SH

from benchgraph import namespaces, vocab
from benchgraph.namespaces import BG, QUDT
from benchgraph.rdf.convert import CLASSES
from benchgraph.records import schema
from benchgraph.validation.across import ACROSS_TWINS, across_checks
from benchgraph.validation.record import LOCAL_TWINS, local_shapes
from benchgraph.validation.shapes import shapes_dir, shapes_graph

from .validation_support import BASE, convert_folder

SHAPES = shapes_dir() / "benchgraph-shapes.ttl"


def shapes() -> set[URIRef]:
    g = shapes_graph()
    return set(g.subjects(RDF.type, SH.NodeShape)) | set(g.subjects(RDF.type, SH.PropertyShape))


def test_header():
    g = shapes_graph()
    onto = URIRef("https://w3id.org/benchgraph/shapes")
    assert (onto, RDF.type, OWL.Ontology) in g
    for p in (DCTERMS.title, DCTERMS.description, DCTERMS.license, OWL.versionIRI, OWL.versionInfo):
        assert g.value(onto, p) is not None, p


def test_every_shape_has_a_stable_iri_a_message_and_a_meant_severity():
    g = shapes_graph()
    for shape in shapes():
        assert isinstance(shape, URIRef) and shape.startswith(str(BG)), shape
        assert shape[len(BG) :].split("-")[0].endswith("Shape"), shape
        assert str(g.value(shape, SH.message) or "").strip(), shape
        assert g.value(shape, SH.severity) in (None, SH.Violation, SH.Warning, SH.Info), shape
    severities = {g.value(s, SH.severity) for s in shapes()}
    assert {SH.Warning, SH.Info} <= severities


def test_the_fast_parse_reads_what_rdflib_reads():
    assert isomorphic(shapes_graph(), Graph().parse(SHAPES, format="turtle"))


def _in(shape: URIRef) -> set:
    g = shapes_graph()
    return set(Collection(g, g.value(BG[shape], SH["in"])))


def test_controlled_values_are_the_record_formats():
    assert _in("BenchmarkRunShape-status") == set(vocab.STATUS.values())
    assert _in("BenchmarkRunShape-measured_by") == set(vocab.MEASURED_BY.values())
    assert _in("InterconnectShape-role") == {role for role, _cls in vocab.ROLES.values()}
    assert _in("MetricShape-direction") == set(vocab.DIRECTIONS.values())
    assert _in("MetricShape-scope") == set(vocab.SCOPES.values())
    assert _in("EngineSettingShape-number_format") == set(vocab.NUMBER_FORMATS.values())
    for shape in ("BenchmarkRunShape-unit", "MeasurementShape-unit", "MetricShape-unit"):
        assert {str(u) for u in _in(shape)} == set(vocab.UNITS), shape


def test_every_sparql_constraint_has_a_twin():
    local_shapes()
    across_checks()
    g = shapes_graph()
    constraints = set(g.objects(None, SH.sparql))
    assert constraints == set(LOCAL_TWINS) | set(ACROSS_TWINS)


def test_fields_named_by_shapes_are_fields_of_the_record_format():
    g = shapes_graph()
    nested = {
        BG.Source: schema.SOURCE,
        BG.Revision: schema.HISTORY,
        BG.Measurement: schema.MEASUREMENT,
        BG.AcceleratorConfig: {"id": 0, "count": 0},
        BG.Mapping: schema.SAME_AS,
        BG.AcceleratorUse: schema.ACCELERATOR_COUNT,
    }
    kinds = {cls: kind for kind, cls in CLASSES.items()}
    for shape in shapes():
        field = str(g.value(shape, SH.name) or g.value(shape, BG.recordField) or "")
        if not field:
            continue
        parents = list(g.subjects(SH.property, shape)) or [shape]
        for cls in {c for p in parents for c in g.objects(p, SH.targetClass)}:
            spec = nested.get(cls) or schema.KINDS[kinds[cls]]
            head, _, tail = field.partition(".")
            assert head in spec, (shape, field)
            if tail:
                assert tail in spec[head], (shape, field)


# Predicates with no shape of their own: types, and copies of a field checked elsewhere.
UNCHECKED = {RDF.type, RDFS.label, namespaces.SCHEMA.sameAs, QUDT.hasUnit}
COPIES = {(str(BG.System), BG.accelerator)}  # of accelerators.N.id, checked there


def test_every_predicate_the_conversion_writes_has_a_shape():
    g = shapes_graph()
    paths: dict[str, set] = {}
    for node_shape in g.subjects(SH.targetClass, None):
        for cls in g.objects(node_shape, SH.targetClass):
            props = set(g.objects(node_shape, SH.property))
            paths.setdefault(str(cls), set()).update(g.value(p, SH.path) for p in props)
    missing = set()
    for _record, triples in convert_folder(BASE):
        types: dict = {}
        for s, p, o in triples:
            if p == RDF.type:
                types.setdefault(s, set()).add(str(o))
        for s, p, _o in triples:
            if p in UNCHECKED or (p == DCTERMS.title and s not in types):
                continue
            if not any(p in paths.get(c, ()) or (c, p) in COPIES for c in types.get(s, ())):
                missing.add((str(p), tuple(sorted(types.get(s, ())))))
    assert missing == set()


def test_datatypes_are_xsd():
    g = shapes_graph()
    assert {str(d) for d in g.objects(None, SH.datatype)} <= {
        str(ns.XSD[t])
        for t in (
            "string",
            "integer",
            "decimal",
            "boolean",
            "date",
            "dateTime",
            "gYear",
            "gYearMonth",
        )
    }
