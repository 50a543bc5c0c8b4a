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

from ..namespaces import BG, GRAPH, QUDT, SCHEMA, graph_iri, record_iri
from ..records.schema import Record, vendor_id
from ..vocab import (
    COUNTED_AS,
    DIRECTIONS,
    FORM_FACTOR_SPELLINGS,
    FORM_FACTORS,
    HOST_INTERFACE_CODES,
    MATCHES,
    MEASURED_BY,
    NUMBER_FORMATS,
    PARALLELISM,
    PEER_FABRICS,
    ROLES,
    SCOPES,
    SOURCE_KINDS,
    STATUS,
    UNITS,
    is_speculative_setting,
)

Triple = tuple[URIRef, URIRef, Any]
# What the shapes accept as an http(s) IRI; the store loads our N-Quads without checking.
IRI = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")

CLASSES = {
    "benchmarks": BG.BenchmarkRun,
    "accelerators": BG.Accelerator,
    "interconnects": BG.Interconnect,
    "systems": BG.System,
    "engines": BG.Engine,
    "models": BG.Model,
    "metrics": BG.Metric,
    "vendors": BG.Organisation,
}
# The property each fact field becomes, for a source's `states` (`?source bg:states
# bg:formFactor`): a field named there is the predicate whose value the source vouches for.
FIELD_PROPERTIES = {
    "name": RDFS.label,
    "vendor": BG.madeBy,
    "chip_vendor": BG.chipMadeBy,
    "architecture": BG.architecture,
    "memory_gb": BG.memoryGB,
    "memory_type": BG.memoryType,
    "form_factor": BG.formFactor,
    "counted_as": BG.countedAs,
    "dies": BG.dies,
    "host_interface": BG.hostInterface,
    "host_lanes": BG.hostLanes,
    "tdp_w": BG.tdpW,
    "released": BG.released,
    "fabric": BG.peerFabric,
    "fabric_interconnect": BG.fabricInterconnect,
    "fabric_bandwidth_gb_s": BG.fabricBandwidthGBps,
    "family": SKOS.broader,
    "interconnect_ids": BG.interconnect,
    "accelerators": BG.accelerator,
    "system": BG.system,
}
RELEASED = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def record_triples(record: Record) -> list[Triple]:
    """Every triple the record states."""
    return list(_Converter(record).triples())


def provenance_triples(record: Record, file_path: str, commit: str | None) -> list[Triple]:
    """What the dataset says about the record's named graph: its file and last commit."""
    g = graph_iri(record.kind, record.id)
    out: list[Triple] = [
        (g, RDF.type, BG.RecordGraph),
        (g, BG.sourceFile, Literal(file_path)),
        (
            g,
            PROV.wasDerivedFrom,
            URIRef("https://w3id.org/benchgraph/file/" + quote(file_path, safe="/")),
        ),
        (g, BG.describes, record_iri(record.kind, record.id)),
    ]
    if commit:
        out.append((g, BG.gitCommit, Literal(commit)))
    return out


# What no other record's checks or rules read of a record: its documentation. (Across-record
# checks read links, kinds, units and interconnect types; the rules links, types, fabric and
# direction flags; the ontology infers none of those from these.) With the record's sources,
# history and provenance they are left out of `outward`.
DOCUMENTATION = frozenset(
    f"<{p}>"
    for p in (
        RDFS.label,
        RDFS.comment,
        DCTERMS.title,
        DCTERMS.description,
        DCTERMS.modified,
        DCTERMS.source,
        SKOS.note,
        SKOS.altLabel,
        SKOS.exactMatch,
        SKOS.closeMatch,
        SKOS.broadMatch,
        SCHEMA.sameAs,
        BG.revision,
        BG.mapping,
    )
)
# What the across-record checks and rules read of a record's sources: which source states a
# fact (a contradiction names the source that states or derives the part's fabric) and what
# kind of source it is. Its address is not: an
# edit of that alone leaves a reader's message naming the old one until it is checked again.
# A source's kind is read too: a run's fabric status carries the strongest kind of source
# behind the fact that decided it (rules.py).
SOURCE_READ = frozenset(f"<{p}>" for p in (BG.states, BG.derives, BG.sourceKind))


def outward(stated: str, own: str) -> str:
    """A digest of what other records may read of a record, from its stated N-Quads: an edit
    that keeps it (a note, a source, a date) cannot change another record's problems or
    derived facts, so a rebuild checks and derives again only the record itself."""
    skip = (f"<{own}#revision-", f"<{own}#same-as-", f"<{GRAPH}")
    source = f"<{own}#source-"
    kept = [
        line
        for line in stated.splitlines()
        if not line.startswith(skip)
        and (
            line.split(" ", 2)[1] in SOURCE_READ
            if line.startswith(source)
            else line.split(" ", 2)[1] not in DOCUMENTATION
        )
    ]
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
    if datatype == XSD.decimal and isinstance(value, (int, float)) and not isinstance(value, bool):
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
        yield from self.same_as(f.get("same_as") or [])
        if f.get("notes") is not None:
            yield s, SKOS.note, Literal(str(f["notes"]))
        for alias in f.get("aliases") or []:
            yield s, SKOS.altLabel, Literal(str(alias))
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
            "publisher": DCTERMS.publisher,
            "title": DCTERMS.title,
            "date": DCTERMS.date,
            "repository": BG.repository,
            "commit": BG.commit,
            "path": BG.sourcePath,
            "row": BG.sourceRow,
            "round": BG.round,
            "licence": DCTERMS.license,
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
                elif key in ("states", "derives"):
                    # a name of no field is records/checks.py's to report
                    link = BG.states if key == "states" else BG.derives
                    for name in value:
                        prop = FIELD_PROPERTIES.get(str(name))
                        yield node, link, prop if prop is not None else literal(str(name))
                elif key == "kind":  # a code that names no kind stays text: SHACL flags it
                    hit = SOURCE_KINDS.get(value) if isinstance(value, str) else None
                    yield node, BG.sourceKind, hit if hit is not None else literal(str(value))
                elif key == "secondary":  # read as a kind already (records.checks)
                    continue
                else:
                    yield node, props[key], literal(value)

    def same_as(self, links: list) -> Iterator[Triple]:
        """Links to outside entities: SKOS mappings plus schema:sameAs, never owl:sameAs
        (under OWL-RL it merges a part with its family and copies every statement onto the
        outside IRI). A mapping's own facts (who, when, why, how sure) hang on a node."""
        for i, link in enumerate(links, 1):
            if link is None:
                continue
            if not isinstance(link, dict):
                yield self.s, SKOS.exactMatch, URIRef(str(link))
                yield self.s, SCHEMA.sameAs, URIRef(str(link))
                continue
            node = self.node(f"same-as-{i}")
            yield self.s, BG.mapping, node
            yield node, RDF.type, BG.Mapping
            match = link.get("match", "exact")
            prop = SKOS[MATCHES[match]] if match in MATCHES else None
            if match is not None:
                yield node, BG.matchKind, prop if prop is not None else literal(str(match))
            iri = link.get("iri")
            if iri is not None:
                yield node, BG.mappedTo, URIRef(str(iri))
                if prop is not None and IRI.match(str(iri)):  # else the mapping's shape says
                    yield self.s, prop, URIRef(str(iri))
                    if match != "broad":  # their family is not the same thing as our part
                        yield self.s, SCHEMA.sameAs, URIRef(str(iri))
            for key, p in (
                ("justification", BG.mappingJustification),
                ("curator", DCTERMS.creator),
                ("date", DCTERMS.date),
            ):
                if link.get(key) is not None:
                    yield node, p, literal(link[key])
            if link.get("confidence") is not None:
                yield node, BG.mappingConfidence, literal(link["confidence"], XSD.decimal)
            src = link.get("source")
            if src is not None:
                yield node, DCTERMS.source, URIRef(src) if IRI.match(str(src)) else literal(src)

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
        yield from self.vendor()
        yield from self.plain(BG.generation, "generation")
        yield from self.plain(BG.bandwidthGBps, "bandwidth_gb_s", XSD.decimal)

    def vendor(self) -> Iterator[Triple]:
        """`vendor` (and `chip_vendor`): the name as written, and the vendor record an
        id-shaped value names (whether it exists is the build's to say: records/schema.py)."""
        yield from self.plain(BG.vendor, "vendor")
        for key, prop in (("vendor", BG.madeBy), ("chip_vendor", BG.chipMadeBy)):
            target = vendor_id(self.f.get(key))
            if target is not None:
                yield self.s, prop, self.ref("vendors", target)
            elif key == "chip_vendor" and self.f.get(key) is not None:
                yield self.s, BG.chipVendor, literal(str(self.f[key]))

    def accelerators(self) -> Iterator[Triple]:
        f = self.f
        yield from self.vendor()
        yield from self.plain(BG.memoryGB, "memory_gb", XSD.decimal)
        form = f.get("form_factor")
        yield from self.concept(
            FORM_FACTORS,
            FORM_FACTOR_SPELLINGS.get(form, form) if isinstance(form, str) else form,
            BG.formFactor,
        )
        yield from self.links(BG.interconnect, "interconnect_ids", "interconnects")
        yield from self.links(SKOS.broader, "family", "accelerators")
        yield from self.plain(BG.architecture, "architecture")
        yield from self.plain(BG.memoryType, "memory_type")
        yield from self.concept(COUNTED_AS, f.get("counted_as"), BG.countedAs)
        yield from self.plain(BG.dies, "dies", XSD.integer)
        # the host and fabric links are not bg:interconnect: the property chain carries
        # that onto every run, and an optional fabric must not make every run "present"
        host = f.get("host_interface")
        if isinstance(host, str) and host in HOST_INTERFACE_CODES:  # on its host's chip
            yield from self.concept(HOST_INTERFACE_CODES, host, BG.hostInterface)
        else:
            yield from self.links(BG.hostInterface, "host_interface", "interconnects")
        yield from self.plain(BG.hostLanes, "host_lanes", XSD.integer)
        yield from self.plain(BG.tdpW, "tdp_w", XSD.decimal)
        yield from self.released(f.get("released"))
        yield from self.concept(PEER_FABRICS, f.get("fabric"), BG.peerFabric)
        yield from self.links(BG.fabricInterconnect, "fabric_interconnect", "interconnects")
        yield from self.plain(BG.fabricBandwidthGBps, "fabric_bandwidth_gb_s", XSD.decimal)

    def released(self, value: Any) -> Iterator[Triple]:
        """An ISO 8601 date as precise as its source: xsd:gYear, xsd:gYearMonth or xsd:date;
        anything else as text, for the shape to report."""
        if value is None:
            return
        text = str(value)
        m = RELEASED.match(text)
        datatype = None
        if m and m[3]:
            try:
                dt.date.fromisoformat(text)
                datatype = XSD.date
            except ValueError:
                pass
        elif m and m[2]:
            datatype = XSD.gYearMonth if 1 <= int(m[2]) <= 12 else None
        elif m:
            datatype = XSD.gYear
        yield (
            self.s,
            BG.released,
            Literal(text, datatype=datatype, normalize=False)
            if datatype is not None
            else Literal(text),
        )

    def vendors(self) -> Iterator[Triple]:
        return iter(())

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
        for i, (key, value) in enumerate(sorted((self.f.get("interconnect_raw") or {}).items()), 1):
            node = self.node(f"interconnect-raw-{i}")
            yield self.s, BG.interconnectRaw, node
            yield node, RDF.type, BG.RawInterconnect
            yield node, BG.sourceField, literal(key)
            yield node, BG.rawValue, Literal("" if value is None else str(value))
        yield from self.vendor()
        for key, prop in (
            ("submitter", BG.submitter),
            ("system_type", BG.systemType),
            ("availability", BG.availability),
            ("software", BG.software),
        ):
            yield from self.plain(prop, key)

    def metrics(self) -> Iterator[Triple]:
        yield from self.unit(self.s, self.f.get("unit"))
        yield from self.concept(DIRECTIONS, self.f.get("direction"), BG.direction)
        yield from self.concept(SCOPES, self.f.get("scope"), BG.scope)
        yield from self.plain(DCTERMS.description, "description")

    def engines(self) -> Iterator[Triple]:
        yield from self.vendor()
        if self.f.get("url") is not None:
            yield self.s, SCHEMA.url, URIRef(str(self.f["url"]))

    def models(self) -> Iterator[Triple]:
        yield from self.vendor()
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
        for key, prop in (
            ("scenario", BG.scenario),
            ("division", BG.division),
            ("availability", BG.availability),
            ("submitter", BG.submitter),
            ("benchmark", BG.benchmarkName),
            ("accuracy_target", BG.accuracyTarget),
            ("software", BG.software),
        ):
            yield from self.plain(prop, key)
        for key, value in (f.get("workload") or {}).items():
            if value is not None:
                prop = {
                    "input_tokens": BG.inputTokens,
                    "output_tokens": BG.outputTokens,
                    "batch_size": BG.batchSize,
                    "dataset": BG.dataset,
                }[key]
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
        elif counts and all(
            isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in counts
        ):
            yield s, BG.acceleratorCount, literal(sum(counts), XSD.integer)

    def settings(self, settings: dict) -> Iterator[Triple]:
        for name in sorted(settings):
            value = settings[name]
            node = self.node("setting-" + quote(name, safe=""))
            yield self.s, BG.setting, node
            yield (
                node,
                RDF.type,
                (
                    BG.SpeculativeDecodingSetting
                    if is_speculative_setting(name)
                    else BG.EngineSetting
                ),
            )
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
            for key, prop in (
                ("value", BG.value),
                ("min", BG.minValue),
                ("max", BG.maxValue),
                ("out_of", BG.outOf),
            ):
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
