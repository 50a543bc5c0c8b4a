"""Record -> RDF triples (pure functions; no I/O, no store).

A record becomes the triples its file states, about its own IRI and about nodes below it
(`<record>#measurement-1`, ...). No blank nodes, so dumps are byte-stable.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import quote

from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS, XSD

from .namespaces import BG, GRAPH, QUDT, SCHEMA, graph_iri, record_iri
from .records import Record
from .vocab import (
    DIRECTIONS,
    MEASURED_BY,
    NUMBER_FORMATS,
    PARALLELISM,
    ROLES,
    SCOPES,
    STATUS,
    UNITS,
    is_speculative_setting,
)

Triple = tuple[URIRef, URIRef, Any]
# What the shapes accept as an http(s) IRI; the store loads our N-Quads without checking.
IRI = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")

CLASSES = {
    "benchmarks": BG.BenchmarkRun, "accelerators": BG.Accelerator,
    "interconnects": BG.Interconnect, "systems": BG.System, "engines": BG.Engine,
    "models": BG.Model, "metrics": BG.Metric,
}


def record_triples(record: Record) -> list[Triple]:
    """Every triple the record states."""
    return list(_Converter(record).triples())


def provenance_triples(record: Record, file_path: str, commit: str | None) -> list[Triple]:
    """What the dataset says about the record's named graph: its file and last commit."""
    g = graph_iri(record.kind, record.id)
    out: list[Triple] = [
        (g, RDF.type, BG.RecordGraph),
        (g, BG.sourceFile, Literal(file_path)),
        (g, PROV.wasDerivedFrom, URIRef(
            "https://w3id.org/benchgraph/file/" + quote(file_path, safe="/"))),
        (g, BG.describes, record_iri(record.kind, record.id)),
    ]
    if commit:
        out.append((g, BG.gitCommit, Literal(commit)))
    return out


# What no other record's checks or rules read of a record: its documentation. (Across-record
# checks read links, kinds, units and interconnect types; the rules links, types, fabric and
# direction flags; the ontology infers none of those from these.) With the record's sources,
# history and provenance they are left out of `outward`.
DOCUMENTATION = frozenset(f"<{p}>" for p in (
    RDFS.label, RDFS.comment, DCTERMS.title, DCTERMS.description, DCTERMS.modified,
    DCTERMS.source, SKOS.note, SKOS.exactMatch, SCHEMA.sameAs, BG.revision))


def outward(stated: str, own: str) -> str:
    """A digest of what other records may read of a record, from its stated N-Quads: an edit
    that keeps it (a note, a source, a date) cannot change another record's problems or
    derived facts, so a rebuild checks and derives again only the record itself."""
    skip = (f"<{own}#source-", f"<{own}#revision-", f"<{GRAPH}")
    kept = [line for line in stated.splitlines()
            if not line.startswith(skip) and line.split(" ", 2)[1] not in DOCUMENTATION]
    return hashlib.blake2b("\n".join(kept).encode(), digest_size=12).hexdigest()


def literal(value: Any, datatype: URIRef | None = None) -> Literal:
    """A literal of the value's natural XSD type, or of `datatype` when it fits. Made once
    per distinct value: rdflib's Literal() costs microseconds and values repeat."""
    # a Timestamp's spelling is part of it: equal instants written differently stay apart
    key = (type(value), value, datatype, getattr(value, "written", None))
    try:
        return _LITERALS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable value (a list where a scalar belongs): SHACL reports it
        return _literal(value, datatype)
    if len(_LITERALS) > 100_000:
        _LITERALS.clear()
    made = _LITERALS[key] = _literal(value, datatype)
    return made


_LITERALS: dict[tuple, Literal] = {}


def _literal(value: Any, datatype: URIRef | None = None) -> Literal:
    if datatype == XSD.decimal and isinstance(value, (int, float)) and not isinstance(
        value, bool
    ):
        return Literal(_decimal(value), datatype=XSD.decimal)
    if datatype == XSD.integer and isinstance(value, int) and not isinstance(value, bool):
        return Literal(value, datatype=XSD.integer)
    if isinstance(value, bool):
        return Literal(value)
    if isinstance(value, int):
        return Literal(value, datatype=XSD.integer)
    if isinstance(value, float):
        return Literal(_decimal(value), datatype=XSD.decimal)
    if isinstance(value, dt.datetime):
        written = getattr(value, "written", None)
        if written:  # rdflib would respell it (Z as +00:00): keep the record's spelling
            return Literal(written, datatype=XSD.dateTime, normalize=False)
        return Literal(value.isoformat(), datatype=XSD.dateTime)
    if isinstance(value, dt.date):
        return Literal(value.isoformat(), datatype=XSD.date)
    return Literal(str(value))


def _decimal(value: float | int) -> Decimal:
    try:
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        return Decimal(0)


class _Converter:
    def __init__(self, record: Record):
        self.r = record
        self.s = record_iri(record.kind, record.id)
        self.f = record.fields

    def triples(self) -> Iterator[Triple]:
        s, f = self.s, self.f
        yield s, RDF.type, CLASSES[self.r.kind]
        yield s, BG.recordId, Literal(self.r.id)
        label = f.get("title") if self.r.kind == "benchmarks" else f.get("name")
        if label is not None:
            yield s, RDFS.label, Literal(str(label))
            if self.r.kind == "benchmarks":
                yield s, DCTERMS.title, Literal(str(label))
        for iri in f.get("same_as") or []:
            if iri is not None:
                yield s, SKOS.exactMatch, URIRef(str(iri))
                yield s, SCHEMA.sameAs, URIRef(str(iri))
        if f.get("notes") is not None:
            yield s, SKOS.note, Literal(str(f["notes"]))
        if f.get("updated") is not None:
            yield s, DCTERMS.modified, literal(f["updated"])
        yield from self.sources(f.get("source") or [])
        yield from self.history(f.get("history") or [])
        yield from getattr(self, self.r.kind)()

    # --- shared parts -------------------------------------------------------------
    def ref(self, kind: str, value: Any) -> URIRef:
        return record_iri(kind, str(value))

    def node(self, suffix: str) -> URIRef:
        return URIRef(f"{self.s}#{suffix}")

    def concept(self, table: dict, value: Any, prop: URIRef) -> Iterator[Triple]:
        """A controlled value: its concept if known, else the raw text (SHACL flags it)."""
        if value is None:
            return
        hit = table.get(value) if isinstance(value, str) else None
        if isinstance(hit, tuple):
            hit = hit[0]
        yield self.s, prop, hit if hit is not None else Literal(str(value))

    def plain(self, prop: URIRef, key: str, datatype: URIRef | None = None) -> Iterator[Triple]:
        value = self.f.get(key)
        if value is not None:
            yield self.s, prop, literal(value, datatype)

    def links(self, prop: URIRef, key: str, kind: str) -> Iterator[Triple]:
        value = self.f.get(key)
        items = value if isinstance(value, list) else ([] if value is None else [value])
        for item in items:
            if item is not None:
                yield self.s, prop, self.ref(kind, item)

    def unit(self, subject: URIRef, code: Any) -> Iterator[Triple]:
        if code is None:
            return
        yield subject, BG.unitCode, literal(str(code))
        if code in UNITS:
            yield subject, QUDT.hasUnit, UNITS[code]

    def sources(self, sources: list[dict]) -> Iterator[Triple]:
        props = {
            "publisher": DCTERMS.publisher, "title": DCTERMS.title, "date": DCTERMS.date,
            "repository": BG.repository, "commit": BG.commit, "path": BG.sourcePath,
            "row": BG.sourceRow, "round": BG.round, "licence": DCTERMS.license,
            "note": RDFS.comment,
        }
        for i, src in enumerate(sources, 1):
            node = self.node(f"source-{i}")
            yield self.s, DCTERMS.source, node
            yield node, RDF.type, BG.Source
            for key, value in src.items():
                if value is None:
                    continue
                if key == "url":
                    yield node, SCHEMA.url, URIRef(str(value))
                elif key == "licence" and IRI.match(str(value)):  # else kept as its text
                    yield node, DCTERMS.license, URIRef(str(value))
                else:
                    yield node, props[key], literal(value)

    def history(self, entries: list[dict]) -> Iterator[Triple]:
        for i, entry in enumerate(entries, 1):
            node = self.node(f"revision-{i}")
            yield self.s, BG.revision, node
            yield node, RDF.type, BG.Revision
            if entry.get("date") is not None:
                yield node, DCTERMS.date, literal(entry["date"])
            if entry.get("note") is not None:
                yield node, RDFS.comment, Literal(str(entry["note"]))

    # --- kinds --------------------------------------------------------------------
    def interconnects(self) -> Iterator[Triple]:
        role = self.f.get("role")
        yield from self.concept(ROLES, role, BG.role)
        if role in ROLES:
            yield self.s, RDF.type, ROLES[role][1]
        yield from self.plain(BG.vendor, "vendor")
        yield from self.plain(BG.generation, "generation")
        yield from self.plain(BG.bandwidthGBps, "bandwidth_gb_s", XSD.decimal)

    def accelerators(self) -> Iterator[Triple]:
        yield from self.plain(BG.vendor, "vendor")
        yield from self.plain(BG.memoryGB, "memory_gb", XSD.decimal)
        yield from self.plain(BG.formFactor, "form_factor")
        yield from self.links(BG.interconnect, "interconnect_ids", "interconnects")
        yield from self.links(SKOS.broader, "family", "accelerators")

    def systems(self) -> Iterator[Triple]:
        for i, item in enumerate(self.f.get("accelerators") or [], 1):
            node = self.node(f"accelerators-{i}")
            yield self.s, BG.acceleratorConfig, node
            yield node, RDF.type, BG.AcceleratorConfig
            if item.get("id") is not None:
                yield self.s, BG.accelerator, self.ref("accelerators", item["id"])
                yield node, BG.accelerator, self.ref("accelerators", item["id"])
            if item.get("count") is not None:
                yield node, BG.countPerNode, literal(item["count"], XSD.integer)
        yield from self.plain(BG.nodes, "nodes", XSD.integer)
        yield from self.plain(BG.hostCpu, "host_cpu")
        yield from self.links(BG.interconnect, "interconnect_ids", "interconnects")
        yield from self.plain(BG.fabricPublished, "fabric_published")
        for i, (key, value) in enumerate(sorted((self.f.get("interconnect_raw") or {}).items()),
                                         1):
            node = self.node(f"interconnect-raw-{i}")
            yield self.s, BG.interconnectRaw, node
            yield node, RDF.type, BG.RawInterconnect
            yield node, BG.sourceField, literal(key)
            yield node, BG.rawValue, Literal("" if value is None else str(value))
        for key, prop in (("vendor", BG.vendor), ("submitter", BG.submitter),
                          ("system_type", BG.systemType), ("availability", BG.availability),
                          ("software", BG.software)):
            yield from self.plain(prop, key)

    def metrics(self) -> Iterator[Triple]:
        yield from self.unit(self.s, self.f.get("unit"))
        yield from self.concept(DIRECTIONS, self.f.get("direction"), BG.direction)
        yield from self.concept(SCOPES, self.f.get("scope"), BG.scope)
        yield from self.plain(DCTERMS.description, "description")

    def engines(self) -> Iterator[Triple]:
        yield from self.plain(BG.vendor, "vendor")
        if self.f.get("url") is not None:
            yield self.s, SCHEMA.url, URIRef(str(self.f["url"]))

    def models(self) -> Iterator[Triple]:
        yield from self.plain(BG.vendor, "vendor")
        yield from self.plain(BG.parametersBillions, "parameters_b", XSD.decimal)
        yield from self.plain(BG.activeParametersBillions, "active_parameters_b", XSD.decimal)
        yield from self.links(SKOS.broader, "family", "models")

    def benchmarks(self) -> Iterator[Triple]:
        s, f = self.s, self.f
        yield from self.plain(BG.category, "category")
        yield from self.concept(STATUS, f.get("status"), BG.status)
        yield from self.plain(BG.confidence, "confidence", XSD.decimal)
        yield from self.links(BG.metric, "metric", "metrics")
        yield from self.plain(BG.value, "value", XSD.decimal)
        yield from self.unit(s, f.get("unit"))
        yield from self.links(BG.model, "model", "models")
        yield from self.links(BG.engine, "engine", "engines")
        yield from self.plain(BG.engineVersion, "engine_version")
        yield from self.run_accelerators()
        yield from self.links(BG.system, "system", "systems")
        yield from self.links(BG.interconnect, "interconnect_ids", "interconnects")
        yield from self.plain(BG.fabricPublished, "fabric_published")
        for key, value in (f.get("parallelism") or {}).items():
            if value is not None:
                yield s, PARALLELISM[key], literal(value, XSD.integer)
        yield from self.plain(BG.concurrency, "concurrency", XSD.integer)
        yield from self.concept(MEASURED_BY, f.get("measured_by"), BG.measuredBy)
        yield from self.plain(BG.reproducible, "reproducible")
        yield from self.plain(BG.methodology, "methodology")
        for key, prop in (("scenario", BG.scenario), ("division", BG.division),
                          ("availability", BG.availability), ("submitter", BG.submitter),
                          ("benchmark", BG.benchmarkName),
                          ("accuracy_target", BG.accuracyTarget), ("software", BG.software)):
            yield from self.plain(prop, key)
        for key, value in (f.get("workload") or {}).items():
            if value is not None:
                prop = {"input_tokens": BG.inputTokens, "output_tokens": BG.outputTokens,
                        "batch_size": BG.batchSize, "dataset": BG.dataset}[key]
                yield s, prop, literal(value, None if key == "dataset" else XSD.integer)
        for item in f.get("omitted_by_source") or []:
            if item is not None:
                yield s, BG.omittedBySource, literal(str(item))
        yield from self.settings(f.get("settings") or {})
        yield from self.measurements(f.get("measurements") or [])

    def run_accelerators(self) -> Iterator[Triple]:
        """The run's accelerators: a link to each kind, and for the {id, count} form a node
        per kind with the run's total of it. Where that form gives every count and no
        accelerator_count, the total is their sum (the file's own counts, added up)."""
        s, f = self.s, self.f
        items = f.get("accelerators")
        items = items if isinstance(items, list) else []
        counts = []
        for i, item in enumerate(items, 1):
            ident = item.get("id") if isinstance(item, dict) else item
            if ident is not None:
                yield s, BG.accelerator, self.ref("accelerators", ident)
            if not isinstance(item, dict):
                continue
            node = self.node(f"accelerator-use-{i}")
            yield s, BG.acceleratorUse, node
            yield node, RDF.type, BG.AcceleratorUse
            if ident is not None:
                # not bg:accelerator, whose property chains would give the node interconnects
                yield node, BG.acceleratorKind, self.ref("accelerators", ident)
            count = item.get("count")
            if count is not None:
                yield node, BG.totalCount, literal(count, XSD.integer)
            counts.append(count)
        if f.get("accelerator_count") is not None:
            yield from self.plain(BG.acceleratorCount, "accelerator_count", XSD.integer)
        elif counts and all(isinstance(c, int) and not isinstance(c, bool) and c > 0
                            for c in counts):
            yield s, BG.acceleratorCount, literal(sum(counts), XSD.integer)

    def settings(self, settings: dict) -> Iterator[Triple]:
        for name in sorted(settings):
            value = settings[name]
            node = self.node("setting-" + quote(name, safe=""))
            yield self.s, BG.setting, node
            yield node, RDF.type, (BG.SpeculativeDecodingSetting if is_speculative_setting(name)
                                   else BG.EngineSetting)
            yield node, BG.settingName, literal(name)
            if value is not None:
                yield node, BG.settingValue, literal(value)
                if isinstance(value, str) and value.lower() in NUMBER_FORMATS:
                    yield node, BG.numberFormat, NUMBER_FORMATS[value.lower()]

    def measurements(self, items: list[dict]) -> Iterator[Triple]:
        for i, item in enumerate(items, 1):
            node = self.node(f"measurement-{i}")
            yield self.s, BG.measurement, node
            yield node, RDF.type, BG.Measurement
            if item.get("metric") is not None:
                yield node, BG.metric, self.ref("metrics", item["metric"])
            for key, prop in (("value", BG.value), ("min", BG.minValue), ("max", BG.maxValue),
                              ("out_of", BG.outOf)):
                if item.get(key) is not None:
                    yield node, prop, literal(item[key], XSD.decimal)
            yield from self.unit(node, item.get("unit"))
            if item.get("derived") is not None:
                yield node, BG.derived, literal(item["derived"])
            if item.get("note") is not None:
                yield node, RDFS.comment, Literal(str(item["note"]))
            for key in sorted(item.get("condition") or {}):
                value = item["condition"][key]
                cond = URIRef(f"{node}-{quote(key, safe='')}")
                yield node, BG.condition, cond
                yield cond, RDF.type, BG.Condition
                yield cond, BG.conditionName, literal(key)
                yield cond, BG.conditionValue, literal(value)
