"""SHACL validation of records, reported at the file, line and field a curator edits.

Two passes, both from the shapes in shapes/ (see shacl.py for the evaluator):
- check_record: the shapes that need the record alone, on its own triples. It runs where the
  record is converted (worker processes) and the build caches it with the record's content.
- check_dataset: the shapes marked bg:acrossRecords (a link names a record of the right
  class, a unit is its metric's, a stated fabric is one the accelerators carry), once per
  build, over small per-record facts: kind, id, links and units.
reference_results runs pySHACL over a whole graph; tests hold both passes to it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from itertools import product
from math import prod
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import DCTERMS, RDF, SKOS, XSD

from ..errors import INFO, VIOLATION, WARNING, Problem
from ..namespaces import BG, ID, QUDT, SCHEMA, record_iri
from ..rdf.convert import CLASSES, FIELD_PROPERTIES
from ..rdf.nquads import term
from ..records.schema import FACT_FIELDS, Record, line_of
from ..store.cache import DIGEST, KIND
from ..store.cache import ID as ROW_ID
from .shacl import SH, Index, Result, Shapes, is_numeric, render

if TYPE_CHECKING:
    from ..store.cache import Cache, Entries

SEVERITY = {SH.Violation: VIOLATION, SH.Warning: WARNING, SH.Info: INFO}
# Nodes inside a record (`<record>#measurement-2`) and the YAML they come from.
NESTED = [
    (re.compile(r"measurement-(\d+)-(.+)"), lambda m, f: (
        f"measurements.{int(m[1]) - 1}.condition.{unquote(m[2])}")),
    (re.compile(r"measurement-(\d+)"), lambda m, f: f"measurements.{int(m[1]) - 1}."),
    (re.compile(r"source-(\d+)"), lambda m, f: f"source.{int(m[1]) - 1}."),
    (re.compile(r"revision-(\d+)"), lambda m, f: f"history.{int(m[1]) - 1}."),
    (re.compile(r"same-as-(\d+)"), lambda m, f: f"same_as.{int(m[1]) - 1}."),
    (re.compile(r"accelerators-(\d+)"), lambda m, f: f"accelerators.{int(m[1]) - 1}."),
    (re.compile(r"accelerator-use-(\d+)"), lambda m, f: f"accelerators.{int(m[1]) - 1}."),
    (re.compile(r"setting-(.+)"), lambda m, f: f"settings.{unquote(m[1])}"),
    (re.compile(r"interconnect-raw-(\d+)"), lambda m, f: "interconnect_raw." + (
        sorted(f.get("interconnect_raw") or {}) or [""])[int(m[1]) - 1]),
]
# How a reference (records.Record.references) is stated in RDF: (node suffix, predicate).
LINKS: dict[tuple[str, str], list[tuple[str, URIRef]]] = {
    ("benchmarks", "metric"): [("", BG.metric)],
    ("benchmarks", "model"): [("", BG.model)],
    ("benchmarks", "engine"): [("", BG.engine)],
    ("benchmarks", "accelerators"): [("", BG.accelerator)],
    ("benchmarks", "system"): [("", BG.system)],
    ("benchmarks", "interconnect_ids"): [("", BG.interconnect)],
    ("benchmarks", "measurements.metric"): [("#measurement-{n}", BG.metric)],
    ("accelerators", "interconnect_ids"): [("", BG.interconnect)],
    ("accelerators", "family"): [("", SKOS.broader)],
    ("accelerators", "host_interface"): [("", BG.hostInterface)],
    ("accelerators", "fabric_interconnect"): [("", BG.fabricInterconnect)],
    ("systems", "accelerators.id"): [("#accelerators-{n}", BG.accelerator),
                                     ("", BG.accelerator)],
    ("systems", "interconnect_ids"): [("", BG.interconnect)],
    ("models", "family"): [("", SKOS.broader)],
}
NESTED_CLASSES = {"#measurement-": BG.Measurement, "#accelerators-": BG.AcceleratorConfig}
# What the dataset pass reads from a record's own triples (the rest comes from its links).
FACT_PREDICATES = {str(BG.unitCode): "unit", str(QUDT.hasUnit): "known-unit",
                   str(RDF.type): "type",
                   # what the fabric checks read: a part's own fabric, which source states
                   # it and where each source is, a system's size, submitter and fabric text
                   str(BG.peerFabric): "peer-fabric", str(BG.states): "states",
                   str(BG.derives): "derives",
                   str(SCHEMA.url): "url", str(BG.countPerNode): "count",
                   str(BG.nodes): "nodes", str(BG.submitter): "submitter",
                   str(BG.sourceField): "raw-field", str(BG.rawValue): "raw"}
# An integer fact (a count) as the N-Quads write it.
_INTEGER = re.compile(r'^"(\d+)"\^\^<http://www\.w3\.org/2001/XMLSchema#integer>$')


# --- the shapes ---------------------------------------------------------------------------
def shapes_dir() -> Path:
    return Path(str(resources.files("benchgraph").joinpath("resources", "shapes")))


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


def _across(g: Graph, shape: URIRef) -> bool:
    return (shape, BG.acrossRecords, Literal(True)) in g


@lru_cache(maxsize=1)
def local_shapes() -> Shapes:
    """The shapes compiled for one record alone: constraints needing other records left out."""
    g = shapes_graph()
    # an sh:or of an across-records shape holds an sh:class too (host_interface: a record or
    # the on-chip code): it needs the other records as well
    return Shapes(g, LOCAL_TWINS,
                  skip=lambda s, p: _across(g, s) and p in (SH["class"], SH.sparql, SH["or"]))


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
    return ShapeInfo(str(field), str(g.value(shape, BG.lineField) or ""),
                     str(g.value(shape, SH.message) or ""))


def curie(iri: URIRef) -> str:
    return "bg:" + iri[len(BG):] if iri.startswith(str(BG)) else str(iri)


# --- SPARQL twins (the SELECTs in shapes/, in Python; tests compare them with pySHACL) ------
PARALLEL = tuple(str(p) for p in (BG.tensorParallelSize, BG.pipelineParallelSize,
                                   BG.dataParallelSize, BG.expertParallelSize))
COUNT = str(BG.acceleratorCount)


def _parallelism(d: Index, focus: URIRef) -> Iterator[dict]:
    """bg:ParallelismConstraint."""
    sizes = [d.objects(focus, p) or [None] for p in PARALLEL]
    if all(s == [None] for s in sizes):
        return
    for count in d.objects(focus, COUNT):
        if not (is_numeric(count) and count.value > 0):
            continue
        for row in product(*sizes):
            if any(x is not None and not is_numeric(x) for x in row):
                continue
            ranks = prod(x.value if x is not None else 1 for x in row[:3])
            expert = row[3].value if row[3] is not None else 1
            needed = expert if expert > ranks else ranks
            if needed > count.value:
                yield {"needed": needed, "count": count}


# The fact fields of a part that a source's `states` must name (records.FACT_FIELDS), by
# the property each becomes; the order of the shape's VALUES.
_FACTS = [(str(FIELD_PROPERTIES[f]), f) for f in FACT_FIELDS["accelerators"]]
_SOURCE, _STATES, _DERIVES = str(DCTERMS.source), str(BG.states), str(BG.derives)


def _unsourced(d: Index, focus: URIRef) -> Iterator[dict]:
    """bg:UnsourcedFactConstraint: a fact a source states, or one the record derives from
    a source, is sourced."""
    stated = {str(p) for src in d.objects(focus, _SOURCE)
              for link in (_STATES, _DERIVES) for p in d.objects(src, link)}
    for prop, name in _FACTS:
        if prop not in stated and d.objects(focus, prop):
            yield {"path": URIRef(prop), "field": Literal(name)}


LOCAL_TWINS = {BG.ParallelismConstraint: _parallelism,
               BG.UnsourcedFactConstraint: _unsourced}


# --- one record ------------------------------------------------------------------------------
def check_record(record: Record, triples: list, known: Iterable[Problem] = ()) -> list[Problem]:
    """Problems of one record on its own. A result at a field already reported by `known`
    (e.g. `2026-02-30 is not a real date` from reading the YAML) is not repeated."""
    results = local_shapes().evaluate(Index(triples))
    taken = {(p.line, p.field.split(".")[0]) for p in known}
    out = set()
    for r in results:
        p = problem(r, record.path, record.lines, record.fields, record_iri(record.kind, record.id))
        if (p.line, p.field.split(".")[0]) not in taken:
            out.add(p)
    return sorted(out)


def problem(r: Result, path: str, lines: dict[str, int], fields: dict[str, Any],
            own: URIRef, refs: Iterable[tuple] = ()) -> Problem:
    """A result located in the YAML: the field from the shape (prefixed for nested nodes),
    the line of that field (of the list item for a value in a list), the value as written."""
    info = shape_info(r.shape)
    prefix = _prefix(str(r.focus), str(own), fields)
    field = (prefix + info.field if prefix.endswith(".") or not prefix else prefix).rstrip(".")
    value = _shown(r.value, r.focus)
    if not value and r.value == r.focus and isinstance(fields.get(field), (str, int, float)):
        value = _shown(Literal(fields[field]), None)  # a rule about a field: show the field
    line = line_of(lines, field) if field in lines or not info.line_field else None
    if line is None:
        line = line_of(lines, prefix + info.line_field)
    item = _item(field, value, fields, refs)
    if item is not None and item in lines:
        line = lines[item]
    message = r.message or info.message
    if r.component == SH.MinCountConstraintComponent:
        message = "is missing; it " + message
    elif r.component == SH.MaxCountConstraintComponent:
        message = "is given more than once; it " + message
    severity = SEVERITY.get(r.severity, VIOLATION)
    return Problem(path, line, field, message, value, curie(r.shape), severity)


def _prefix(focus: str, own: str, fields: dict) -> str:
    if focus == own or not focus.startswith(own + "#"):
        return ""
    local = focus[len(own) + 1:]
    for pattern, make in NESTED:
        m = pattern.fullmatch(local)
        if m:
            return make(m, fields)
    return ""


def _shown(value: object, focus: object) -> str:
    if value is None or value == focus:
        return ""
    if isinstance(value, URIRef) and value.startswith(str(ID)):
        return value.rsplit("/", 1)[1]
    if isinstance(value, Literal) and value.datatype == XSD.boolean:
        return "true" if value.value else "false"
    return str(value)


def _item(field: str, value: str, fields: dict, refs: Iterable[tuple]) -> str | None:
    """The dotted name of the list item holding value (`accelerators.1`), if any."""
    for dotted, target, _kind in refs:
        if target == value and dotted.rsplit(".", 1)[0] == field:
            return dotted
    items = fields.get(field) if "." not in field else None
    if isinstance(items, list):
        for i, item in enumerate(items):
            if str(item) == value:
                return f"{field}.{i}"
    return None


# --- across records ------------------------------------------------------------------------
@dataclass
class RecordFacts:
    """What the dataset pass needs of one record: where it is, its links and a few facts."""

    path: str
    kind: str
    id: str
    refs: list[tuple[str, str, str]]
    lines: dict[str, int]
    facts: list[tuple[str, str, str]]  # (node suffix, fact, value), see FACT_PREDICATES


_NEEDLES = [(f"> <{p}> ", fact) for p, fact in FACT_PREDICATES.items()]
_FACT_OF = {URIRef(p): fact for p, fact in FACT_PREDICATES.items()}
_TYPE_NEEDLE = f"> <{RDF.type}> "


def facts_from_nquads(kind: str, text: str, own: str) -> list[tuple[str, str, str]]:
    """The facts of FACT_PREDICATES in a record's N-Quads (types only of interconnects).

    Read with string search, not a parser: this runs over every record on a first build.
    A line it cannot read plainly (an escaped literal) goes to Oxigraph's parser."""
    out = set()
    hard = []
    for needle, fact in _NEEDLES:
        if needle == _TYPE_NEEDLE and kind != "interconnects":
            continue
        start = text.find(needle)
        while start != -1:
            begin = text.rfind("\n", 0, start) + 1
            end = text.find("\n", start)
            line = text[begin:end if end != -1 else len(text)]
            start = text.find(needle, start + 1)
            subject = line[1:line.index("> <")]
            if not subject.startswith(own):
                continue
            obj = line[line.index(needle[1:]) + len(needle) - 1:line.rindex(" <")]
            _read_fact(subject[len(own):], fact, obj, line, out, hard)
    return _facts_end(out, hard, own)


def triple_facts(kind: str, triples: list, own: str) -> list[tuple[str, str, str]]:
    """facts_from_nquads of the N-Quads these triples are written as, read from the triples:
    a first build takes every record's facts where it is converted, and searching the text
    it had just written cost as much as writing it. Each object is read as its N-Quads
    term (rdfio.term), by the same rules."""
    out: set[tuple[str, str, str]] = set()
    hard: list[str] = []
    for s, p, o in triples:
        fact = _FACT_OF.get(p)
        if fact is None or (fact == "type" and kind != "interconnects"):
            continue
        subject = str(s)
        if not isinstance(s, URIRef) or not subject.startswith(own):
            continue
        obj = term(o)
        _read_fact(subject[len(own):], fact, obj, f"<{subject}> <{p}> {obj} <urn:x:g> .",
                   out, hard)
    return _facts_end(out, hard, own)


def _read_fact(suffix: str, fact: str, obj: str, line: str, out: set, hard: list) -> None:
    """One fact's object as N-Quads writes it (an IRI, an integer, a plain literal) into
    `out`; its line into `hard` when it needs a parser (an escaped literal)."""
    if obj.startswith("<") and obj.endswith(">"):
        out.add((suffix, fact, obj[1:-1]))
    elif (m := _INTEGER.match(obj)) is not None:
        out.add((suffix, fact, m[1]))
    elif obj.startswith('"') and obj.endswith('"') and "\\" not in obj:
        out.add((suffix, fact, obj[1:-1]))
    elif '"^^<' not in obj and "@" not in obj[obj.rfind('"'):]:
        hard.append(line)  # a typed literal is not a unit code: skipped


def _facts_end(out: set, hard: list[str], own: str) -> list[tuple[str, str, str]]:
    """The facts read, with those of the `hard` lines parsed."""
    for quad in ox.parse("\n".join(hard).encode(), ox.RdfFormat.N_QUADS) if hard else ():
        o = quad.object
        if isinstance(o, ox.Literal) and o.datatype.value == _STRING:
            out.add((quad.subject.value[len(own):], FACT_PREDICATES[quad.predicate.value],
                     o.value))
    # a value the cache's text form cannot hold is not a unit code (the unit shape says so)
    return sorted(f for f in out if "\t" not in f[2] and "\n" not in f[2])


_STRING = str(XSD.string)


def facts_from_triples(record: Record, triples: list) -> RecordFacts:
    """RecordFacts of a converted record (tests and benchmarks; the build uses its cache)."""
    from ..rdf.nquads import nquads

    own = str(record_iri(record.kind, record.id))
    text = nquads(triples, URIRef("urn:x-benchgraph:graph"))
    return RecordFacts(record.path, record.kind, record.id, list(record.references()),
                       record.lines, facts_from_nquads(record.kind, text, own))


@dataclass(frozen=True)
class _ClassCheck:
    """sh:class on a link, as a reference of a record kind names it."""

    shape: URIRef
    suffix: str  # the focus node: the record ("") or a node inside it ("#measurement-{n}")
    predicate: URIRef
    cls: str
    severity: URIRef
    message: str


@dataclass(frozen=True)
class _TwinCheck:
    shape: URIRef
    targets: frozenset[str]
    twin: Any
    message: str
    severity: URIRef


@lru_cache(maxsize=1)
def across_checks() -> tuple[dict[tuple[str, str], list[_ClassCheck]], list[_TwinCheck]]:
    """The constraints of bg:acrossRecords shapes: sh:class on links, by (record kind,
    reference field), and the SPARQL constraints with their twins."""
    g = shapes_graph()
    by_ref: dict[tuple[str, str], list[_ClassCheck]] = {}
    twins = []
    node_class = {"": None, **{s: str(c) for s, c in NESTED_CLASSES.items()}}
    for shape in sorted(g.subjects(BG.acrossRecords, Literal(True)), key=str):
        parents = list(g.subjects(SH.property, shape)) or [shape]
        targets = frozenset(str(c) for p in parents for c in g.objects(p, SH.targetClass))
        severity = g.value(shape, SH.severity) or SH.Violation
        message = str(g.value(shape, SH.message) or "")
        path = g.value(shape, SH.path)
        # sh:class on the shape, or on a member of its sh:or: host_interface is a record of
        # that class or a code, and records.py leaves the code out of the references checked
        classes = list(g.objects(shape, SH["class"])) + [
            c for alts in g.objects(shape, SH["or"]) for m in Collection(g, alts)
            for c in g.objects(m, SH["class"])]
        for cls in classes:
            for (kind, spec), links in LINKS.items():
                for suffix, predicate in links:
                    focus = node_class[suffix[:suffix.find("{")] if suffix else ""]
                    if predicate == path and (focus or str(CLASSES[kind])) in targets:
                        by_ref.setdefault((kind, spec), []).append(_ClassCheck(
                            shape, suffix, predicate, str(cls), severity, message))
        for constraint in g.objects(shape, SH.sparql):
            if constraint not in ACROSS_TWINS:
                raise ValueError(f"{constraint}: a SPARQL constraint with no Python twin")
            twins.append(_TwinCheck(shape, targets, ACROSS_TWINS[constraint],
                                    str(g.value(constraint, SH.message) or ""), severity))
    return by_ref, twins


class _Dataset:
    """What the across-record checks read: which records exist, their links, and the facts
    (units, interconnect roles) of the records that carry them."""

    def __init__(self, records: Iterable[RecordFacts]):
        records = sorted(records, key=lambda r: r.path, reverse=True)
        # a link names the first file of an id (a second one is a duplicate-id problem)
        self.records = {(r.kind, r.id): r for r in records}
        # a record's facts by node suffix and fact: {"": {"peer-fabric": {...}}, ...}
        self.facts: dict[tuple[str, str], dict[str, dict[str, set[str]]]] = {}
        for r in records:
            if self.records[(r.kind, r.id)] is r:
                mine = self.facts[(r.kind, r.id)] = {}
                for suffix, fact, value in r.facts:
                    mine.setdefault(suffix, {}).setdefault(fact, set()).add(value)
        self.systems_of: dict[str, list[RecordFacts]] = {}  # submitter -> its systems
        for r in records:
            if r.kind == "systems" and self.records[(r.kind, r.id)] is r:
                for who in self.fact(r, "", "submitter"):
                    self.systems_of.setdefault(who, []).append(r)
        self.types: dict[tuple[str, str], set[str]] = {}  # beyond the kind's own class
        self.units: dict[tuple[str, str], str] = {}  # (file, node suffix) -> unit code
        self.known_units: set[tuple[str, str]] = set()
        for r in records:
            for suffix, fact, value in r.facts:
                if fact == "type" and not suffix and self.records[(r.kind, r.id)] is r:
                    self.types.setdefault((r.kind, r.id), set()).add(value)
                elif fact == "unit":
                    self.units[(r.path, suffix)] = value
                elif fact == "known-unit":
                    self.known_units.add((r.path, suffix))

    def fact(self, rec: RecordFacts, suffix: str, fact: str) -> set[str]:
        return self.facts.get((rec.kind, rec.id), {}).get(suffix, {}).get(fact, set())

    def node_facts(self, rec: RecordFacts, prefix: str) -> dict[str, dict[str, set[str]]]:
        """The facts of the nodes of a record whose suffix starts with prefix."""
        return {k: v for k, v in self.facts.get((rec.kind, rec.id), {}).items()
                if k.startswith(prefix)}

    def has_class(self, kind: str, rid: str, cls: str) -> bool:
        if (kind, rid) not in self.records:
            return False
        return _KIND_CLASS[kind] == cls or cls in self.types.get((kind, rid), ())


_KIND_CLASS = {kind: str(cls) for kind, cls in CLASSES.items()}
TIME_UNITS = {"ns", "us", "ms", "s"}  # the only unit codes of one kind: they convert


def _unit_of_metric(data: _Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:UnitOfMetricConstraint, for the run and each of its measurements:
    (focus suffix, bindings)."""
    if rec.kind != "benchmarks":
        return
    for dotted, target, kind in rec.refs:
        metric = data.records.get((kind, target)) if kind == "metrics" else None
        if metric is None:
            continue
        if dotted == "metric":
            suffix = ""
        elif dotted.startswith("measurements."):
            suffix = f"#measurement-{int(dotted.split('.')[1]) + 1}"
        else:
            continue
        unit = data.units.get((rec.path, suffix))
        metric_unit = data.units.get((metric.path, ""))
        if (unit is not None and metric_unit is not None and unit != metric_unit
                and not (unit in TIME_UNITS and metric_unit in TIME_UNITS)
                and (rec.path, suffix) in data.known_units):
            yield suffix, {"path": BG.unitCode, "value": Literal(unit), "metricId": target,
                           "metricUnit": metric_unit}


_FABRIC = str(BG.ScaleUpFabric)
# a part that states its fabric: a claim on it is checked against that (a contradiction of
# `none` is reported on its own), not against its interconnect list
_CARRIES = {str(BG.OptionalPeerFabric), str(BG.BuiltInPeerFabric), str(BG.NoPeerFabric)}


def _fabric_claim(data: _Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:FabricClaimConstraint, for runs and systems."""
    claimed = [t for d, t, k in rec.refs if k == "interconnects" and d.startswith(
        "interconnect_ids") and data.has_class(k, t, _FABRIC)]
    if not claimed:
        return
    for dotted, target, kind in rec.refs:
        other = data.records.get((kind, target)) if kind == "accelerators" and (
            dotted.startswith("accelerators")) else None
        if other is not None and (any(
                k == "interconnects" and d.startswith("interconnect_ids")
                and data.has_class(k, t, _FABRIC) for d, t, k in other.refs)
                or data.fact(other, "", "peer-fabric") & _CARRIES):
            return
    for target in dict.fromkeys(claimed):
        yield "", {"path": BG.interconnect, "value": URIRef(f"{ID}interconnects/{target}")}


_NO_PEER, _BUILT_IN = str(BG.NoPeerFabric), str(BG.BuiltInPeerFabric)
_STATES_FABRIC = str(BG.peerFabric)
# The fields of a source's system description that give the GPU-to-GPU fabric (MLPerf's):
# a sibling's copy of one of these is what the copy check compares.
FABRIC_TEXT_FIELDS = ("accelerator_interconnect", "accelerator_interconnect_topology")
PLACEHOLDERS = {"", "-", "n/a", "none", "tbd", "todo"}


def _claimed(data: _Dataset, rec: RecordFacts) -> list[str]:
    """The scale-up fabrics a run or system lists itself."""
    return list(dict.fromkeys(t for d, t, k in rec.refs if k == "interconnects"
                              and d.startswith("interconnect_ids")
                              and data.has_class(k, t, _FABRIC)))


def _source_of(data: _Dataset, rec: RecordFacts, field: str | None) -> str:
    """The source of a record that states `field` (its property), else one the record
    derives it from, or its first: its address, or which entry of the record's source list
    it is."""
    sources = data.node_facts(rec, "#source-")
    order = sorted(sources, key=lambda k: int(k.rsplit("-", 1)[1]))
    chosen = [k for k in order if field is None or field in sources[k].get("states", ())] \
        or [k for k in order if field in sources[k].get("derives", ())]
    if not chosen:
        return "no source given" if field is None else "no source that states it"
    where = sorted(sources[chosen[0]].get("url", ())) or [
        f"source {chosen[0].rsplit('-', 1)[1]} of {rec.path}"]
    return where[0]


def _fabric_contradiction(data: _Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:FabricContradictionConstraint, for runs and systems: a stated scale-up fabric on a
    part whose own record says it has no peer link (fabric: none)."""
    claimed = _claimed(data, rec)
    if not claimed:
        return
    for dotted, target, kind in rec.refs:
        if kind != "accelerators" or not dotted.startswith("accelerators"):
            continue
        part = data.records.get((kind, target))
        if part is None or _NO_PEER not in data.fact(part, "", "peer-fabric"):
            continue
        for ic in claimed:
            yield "", {"path": BG.interconnect, "value": URIRef(f"{ID}interconnects/{ic}"),
                       "accelerator": target, "acceleratorFile": part.path,
                       "acceleratorSource": _source_of(data, part, _STATES_FABRIC),
                       "ownSource": _source_of(data, rec, None)}


def _count(values: set[str]) -> int | None:
    """A whole number stated once, else None (a count given as text is the shapes' to say)."""
    return int(next(iter(values))) if len(values) == 1 and next(iter(values)).isdigit() \
        else None


def _single_fabric(data: _Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:SingleAcceleratorFabricConstraint: a system of one accelerator that lists a
    GPU-to-GPU fabric (a fabric joins accelerators; one has nothing to join)."""
    if rec.kind != "systems":
        return
    claimed = _claimed(data, rec)
    counts = [_count(v.get("count", set())) for v in data.node_facts(rec, "#accelerators-")
              .values()]
    nodes = _count(data.fact(rec, "", "nodes")) or 1
    kinds = _part_fabrics(data, _parts(rec))
    if (claimed and counts and None not in counts and sum(counts) * nodes == 1
            and kinds is not None and not kinds & {_BUILT_IN, _NO_PEER}):
        for ic in claimed:
            yield "", {"path": BG.interconnect, "value": URIRef(f"{ID}interconnects/{ic}")}


def _fabric_texts(data: _Dataset, rec: RecordFacts) -> dict[str, str]:
    out = {}
    for v in data.node_facts(rec, "#interconnect-raw-").values():
        for field in v.get("raw-field", ()):
            for text in v.get("raw", ()):
                if field in FABRIC_TEXT_FIELDS and text.strip().lower() not in PLACEHOLDERS:
                    out[field] = text
    return out


def _parts(rec: RecordFacts) -> set[str]:
    return {t for d, t, k in rec.refs if k == "accelerators"}


def _copied_fabric(data: _Dataset, rec: RecordFacts) -> Iterator[tuple[str, str]]:
    """(field, sibling id) for each sibling system (same submitter) whose fabric text is
    byte-identical to this one's while its parts' own fabric differs: one of the two was
    likely copied (Cisco's C845A L40S and H200 NVL descriptions). Only systems that list a
    scale-up fabric, and parts that all state their fabric, are compared (SXM H100 and SXM
    H200 systems rightly share a text)."""
    if rec.kind != "systems" or not _claimed(data, rec) or not _parts(rec):
        return
    texts = {f: t for f, t in _fabric_texts(data, rec).items() if _telling(t)}
    mine = _parts(rec)
    kinds = _part_fabrics(data, mine)
    if not texts or kinds is None:
        return
    for who in sorted(data.fact(rec, "", "submitter")):
        for other in data.systems_of.get(who, ()):
            if other is rec or _parts(other) == mine or not _claimed(data, other):
                continue
            theirs = _part_fabrics(data, _parts(other))
            if theirs is None or theirs == kinds:
                continue
            for field, text in sorted(_fabric_texts(data, other).items()):
                if texts.get(field) == text:
                    yield field, other.id


def copied_fabric_problems(entries: Entries, cache: Cache) -> list[Problem]:
    """Systems whose fabric text is a sibling's (_copied_fabric), a warning each. Not a
    shape: it compares records that do not link to each other, so it runs over every
    system's facts (kept by the across-record pass) on each build that changed something."""
    rows = cache.db.execute("SELECT path, kind, facts FROM validate_across WHERE kind IN "
                            "('systems', 'accelerators', 'interconnects')").fetchall()
    recs = []
    for path, kind, text in rows:
        if path not in entries:
            continue
        e = entries[path]
        facts = [tuple(f.split("\t")) for f in text.split("\n")] if text else []
        recs.append(RecordFacts(path, kind, e.id, [], {}, facts))
    cache.read_refs([entries[r.path] for r in recs])
    for r in recs:
        r.refs = entries[r.path].refs
    data = _Dataset(recs)
    out = []
    for rec in recs:
        for field, sibling in _copied_fabric(data, rec):
            e = entries[rec.path]
            out.append(Problem(rec.path, line_of(e.lines, f"interconnect_raw.{field}"),
                               f"interconnect_raw.{field}",
                               f"is byte for byte the text of systems/{sibling}, whose parts "
                               "have another fabric: check which system it was copied from",
                               value=next(iter(_fabric_texts(data, rec).values()), ""),
                               code="copied-fabric-text", severity=WARNING))
    return sorted(out)


def _telling(text: str) -> bool:
    """A fabric text specific enough for a byte-identical sibling to suggest copying: one
    with a count, generation or bandwidth ("18x 4th Gen NVLink, 900GB/s"). A bare name
    ("NVLINK") is what any two systems with that fabric write, and on the shipped data it
    paired an H100 SXM system with an H200 NVL one for no reason."""
    return any(c.isdigit() for c in text)


def _part_fabrics(data: _Dataset, parts: set[str]) -> frozenset | None:
    """The peer-fabric kinds of these parts, or None if one of them states none."""
    out = set()
    for pid in parts:
        rec = data.records.get(("accelerators", pid))
        found = data.fact(rec, "", "peer-fabric") if rec is not None else set()
        if not found:
            return None
        out |= found
    return frozenset(out)


ACROSS_TWINS = {BG.UnitOfMetricConstraint: _unit_of_metric,
                BG.FabricClaimConstraint: _fabric_claim,
                BG.FabricContradictionConstraint: _fabric_contradiction,
                BG.SingleAcceleratorFabricConstraint: _single_fabric}


def across_results(records: Iterable[RecordFacts], only: Iterable[RecordFacts] | None = None
                   ) -> list[tuple[Result, RecordFacts]]:
    """The results of the across-record shapes on `only` (default: every record), with the
    whole dataset `records` to look links up in."""
    records = list(records)
    data = _Dataset(records)
    by_ref, twins = across_checks()
    linking_kinds = {k for k, _ in by_ref}
    twins_of: dict[Any, list[_TwinCheck]] = {}
    for check in twins:
        twins_of.setdefault(check.twin, []).append(check)
    specs: dict[str, tuple[str, int]] = {}  # "measurements.2.metric" -> ("measurements.metric", 3)
    out = []
    for rec in (records if only is None else only):
        for dotted, target, kind in rec.refs if rec.kind in linking_kinds else ():
            spec = specs.get(dotted)
            if spec is None:
                head, _, rest = dotted.partition(".")
                n, _, tail = rest.partition(".")
                spec = specs[dotted] = (f"{head}.{tail}" if tail else head,
                                        int(n) + 1 if n.isdigit() else 0)
            for check in by_ref.get((rec.kind, spec[0]), ()):
                if not data.has_class(kind, target, check.cls):
                    focus = URIRef(f"{ID}{rec.kind}/{rec.id}{check.suffix.format(n=spec[1])}")
                    out.append((Result(focus, check.predicate, check.shape,
                                       URIRef(f"{ID}{kind}/{target}"), check.severity,
                                       SH.ClassConstraintComponent, check.message), rec))
        own = _KIND_CLASS[rec.kind]
        for twin, checks in twins_of.items():
            for suffix, row in twin(data, rec):
                node_cls = str(BG.Measurement) if suffix else own
                for check in checks:
                    if node_cls not in check.targets:
                        continue
                    row = dict(row)
                    value, path = row.pop("value"), row.pop("path")
                    out.append((Result(URIRef(f"{ID}{rec.kind}/{rec.id}{suffix}"), path,
                                       check.shape, value, check.severity,
                                       SH.SPARQLConstraintComponent,
                                       render(check.message, row)), rec))
    return out


def across_problems(records: Iterable[RecordFacts], only: Iterable[RecordFacts] | None = None,
                    lines: Callable[[list[RecordFacts]], None] | None = None
                    ) -> dict[str, list[Problem]]:
    """Problems of the across-record shapes, located in the YAML, by record file. `lines`:
    fills in the line maps of the records with a result, when the records came without."""
    out: dict[str, set[Problem]] = {}
    results = across_results(records, only)
    if lines is not None:
        lines(list({id(rec): rec for _, rec in results}.values()))
    for r, rec in results:
        own = record_iri(rec.kind, rec.id)
        out.setdefault(rec.path, set()).add(problem(r, rec.path, rec.lines, {}, own, rec.refs))
    return {path: sorted(ps) for path, ps in out.items()}


def check_dataset(entries: Entries, cache: Cache, fresh: list[str], gone: list[str],
                  link_problems: list[Problem],
                  quiet: Container[tuple[str, str]] = ()) -> list[Problem]:
    """The across-record problems of a build, plus link_problems (those about a link the
    shapes report too, e.g. a dangling one, are left out: one line per problem).

    Incremental: each record's facts and problems are kept in the build cache with its
    content's digest. Only records that changed, and those whose checks read a changed or
    removed record, are checked again; nothing links to a run, so an edit to runs re-checks
    those runs alone. `fresh` and `gone`: the files converted and removed since the last
    build, which the cache's table of facts is compared with (all of it if it has not the
    same records). `quiet`: (kind, id) of fresh records whose edit kept what others read of
    them (convert.outward); their readers keep their problems."""
    found = _Across(entries, cache).problems(fresh, gone, quiet)
    found += copied_fabric_problems(entries, cache)
    taken = {(p.file, p.line, p.field.split(".")[0]) for p in found}
    kept = [p for p in link_problems if p.code != "dangling-reference"
            or (p.file, p.line, p.field.split(".")[0]) not in taken]
    return kept + found


class _Across:
    """The across-record pass of one build, over the cache of the previous one."""

    TABLE = ("CREATE TABLE IF NOT EXISTS validate_across (path TEXT PRIMARY KEY, digest TEXT,"
             " kind TEXT, facts TEXT, problems TEXT)")

    def __init__(self, entries: Entries, cache: Cache):
        self.entries = entries.with_kind()
        self.cache = cache
        self.db = cache.db
        self.db.execute(self.TABLE)

    def problems(self, fresh: list[str], gone: list[str],
                 quiet: Container[tuple[str, str]]) -> list[Problem]:
        gone = gone + [p for p in fresh if p not in self.entries]  # now unreadable
        changed = [p for p in fresh if p in self.entries]
        known = {p for (p,) in self.db.execute(
            "SELECT path FROM validate_across WHERE path IN (SELECT value FROM json_each(?))",
            (json.dumps(changed + gone),))}
        (count,), = self.db.execute("SELECT count(*) FROM validate_across")
        expected = len(self.entries) - len([p for p in changed if p not in known]) + len(
            [p for p in gone if p in known])
        if count != expected:  # not the last build's records: compare them all
            stored = dict(self.db.execute("SELECT path, digest FROM validate_across"))
            changed = [p for p, row in self.entries.rows.items()
                       if stored.get(p) != row[DIGEST]]
            gone = [p for p in stored if p not in self.entries]
            quiet = ()  # told against the last build, which this table may not be
        if changed or gone:
            self._update(changed, gone, quiet)
        out = []
        for (text,) in self.db.execute(
                "SELECT problems FROM validate_across WHERE problems != ''"):
            out.extend(Problem(**d) for d in json.loads(text))
        return out

    def _update(self, changed: list[str], gone: list[str],
                quiet: Container[tuple[str, str]]) -> None:
        gone_keys = {(k, p.rsplit("/", 1)[1].rsplit(".", 1)[0]) for p, k in self.db.execute(
            "SELECT path, kind FROM validate_across WHERE path IN (SELECT value FROM "
            "json_each(?))", (json.dumps(gone),))}
        changed_keys = {(self.entries[p].kind, self.entries[p].id) for p in changed}
        moved = gone_keys | {k for k in changed_keys if k[0] != "benchmarks" and k not in quiet}
        affected = set(changed)
        rows = self.entries.rows
        if len(changed) > len(self.entries) // 2:
            affected = set(self.entries)  # cheaper than finding who reads what
        elif moved:  # a record others link to changed: find who reads it, two links deep
            first = {p for found in self.cache.readers(moved).values() for p in found
                     if p in self.entries}
            second = {p for found in self.cache.readers(
                {(rows[q][KIND], rows[q][ROW_ID]) for q in first
                 if rows[q][KIND] == "accelerators"}
                ).values() for p in found if p in self.entries}
            affected |= first | second
        facts = self._facts(affected)
        read = [self.entries[p] for p, row in rows.items()
                if row[KIND] != "benchmarks" or p in affected]
        self.cache.read_refs(read)
        # nothing links to a run: the other runs are not needed to check these records; only
        # the line maps of checked records with a problem are read (in one query: an edited
        # accelerator has thousands of runs checked again, one query each took 0.3 s in 1k)
        records = [RecordFacts(e.path, e.kind, e.id, e.refs, {}, facts.get(e.path, []))
                   for e in read]
        mine = [r for r in records if r.path in affected]

        def lines(found: list[RecordFacts]) -> None:
            self.cache.read_lines([self.entries[r.path] for r in found])
            for r in found:
                r.lines = self.entries[r.path].lines

        found = across_problems(records, mine, lines)
        self.db.executemany(
            "INSERT OR REPLACE INTO validate_across VALUES (?, ?, ?, ?, ?)",
            [(r.path, self.entries[r.path].digest, r.kind,
              "\n".join("\t".join(f) for f in r.facts),
              json.dumps([p.as_dict() for p in found[r.path]]) if r.path in found else "")
             for r in mine])
        self.db.executemany("DELETE FROM validate_across WHERE path = ?", [(p,) for p in gone])

    def _facts(self, affected: set[str]) -> dict[str, list[tuple[str, str, str]]]:
        """Facts of the affected records (from their N-Quads when they changed) and of every
        record that is not a run (what runs link to; few)."""
        out: dict[str, list] = {}
        digests = {}
        rows = self.db.execute(
            "SELECT path, digest, facts FROM validate_across WHERE kind != 'benchmarks' "
            "OR path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(affected)),))
        for path, digest, text in rows:
            digests[path] = digest
            out[path] = [tuple(f.split("\t")) for f in text.split("\n")] if text else []
        wanted = [p for p, row in self.entries.rows.items()
                  if (p in affected or row[KIND] != "benchmarks")
                  and digests.get(p) != row[DIGEST]]
        missing = [p for p in wanted
                   if self.entries[p].facts is None and not self.entries[p].stated]
        quads = self.cache.get(missing, quads=True) if missing else {}
        for path in wanted:
            e = quads.get(path) or self.entries[path]
            out[path] = e.facts if e.facts is not None else facts_from_nquads(
                e.kind, e.stated, str(record_iri(e.kind, e.id)))
        return out


# --- the reference ----------------------------------------------------------------------------
def reference_results(data: Graph) -> list[Result]:
    """pySHACL's results for a graph (the whole dataset's stated triples), as Results."""
    import pyshacl

    shapes = Graph()
    shapes += shapes_graph()  # a copy: pySHACL adds to the shapes graph it is given
    _conforms, report, _text = pyshacl.validate(data, shacl_graph=shapes, inference="none",
                                                advanced=False)
    out = []
    for node in report.objects(None, SH.result):
        def one(p: URIRef, node: Any = node) -> Any:
            return report.value(node, p)

        out.append(Result(one(SH.focusNode), one(SH.resultPath), one(SH.sourceShape),
                          one(SH.value), one(SH.resultSeverity),
                          one(SH.sourceConstraintComponent), str(one(SH.resultMessage) or "")))
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
