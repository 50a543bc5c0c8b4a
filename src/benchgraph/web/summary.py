"""The summary a record's page leads with, in words a person reads.

A run: its headline value with unit and scope, model, hardware, fabric status with its basis,
engine, status and confidence, who measured it and when, and its measurements as rows. A part:
its vendor's facts as a spec table, each fact footnoted with the sources that state it. A
system: its parts and its fabric. Other kinds: their main facts. Everything is read from the
quads the page already holds, and the labels of what they link to (one indexed look-up each).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Protocol

import pyoxigraph as ox

from ..namespaces import BG, PREFIXES
from ..rdf.convert import FIELD_PROPERTIES
from ..vocab import SOURCE_KINDS
from .figures import figure
from .terms import Term


class RecordPage(Protocol):
    """What a summary reads of the page it is on (ld.RecordPage)."""

    iri: str
    store: object

    def term(self, term: object) -> Term: ...

    def label(self, iri: str) -> str | None: ...


RDFS = PREFIXES["rdfs"]
DCT = PREFIXES["dct"]
SKOS = PREFIXES["skos"]
SCHEMA = PREFIXES["schema"]
RDF_TYPE = PREFIXES["rdf"] + "type"
# How strong a fabric status's basis is: the strongest kind of source behind the fact that
# decided it, and whether that fact is stated or derived (reasoning/rules.py). Shown beside
# the basis; any other fact of a basis node is shown after it.
BASIS_STRENGTH = str(BG.basisSourceKind)
BASIS_EVIDENCE = str(BG.basisEvidence)
BASIS_KNOWN = {
    str(BG.basisRule),
    str(BG.basisStatus),
    str(BG.restsOn),
    str(BG.basisAccelerator),
    RDF_TYPE,
    BASIS_STRENGTH,
    BASIS_EVIDENCE,
}
# The facts of a part's spec table, in the order its record lists them.
SPEC = [
    str(p)
    for name, p in FIELD_PROPERTIES.items()
    if name not in ("name", "interconnect_ids", "accelerators", "system", "family")
]
SPEC.insert(1, str(BG.vendor))  # a vendor named by no record: its name
SPEC += [str(BG.interconnect), f"{SKOS}broader"]
# A spec row's source strength: the strongest kind of source that states it, ranked as
# vocab.SOURCE_KINDS (the vendor's own first, as the build ranks a fabric's basis); the
# kinds a reader should weigh with care are shown weaker.
KIND_RANK = {str(iri): rank for rank, iri in enumerate(SOURCE_KINDS.values())}
KIND_WORD = {str(iri): code.replace("-", " ") for code, iri in SOURCE_KINDS.items()}
KIND_WORD[str(BG.OemSource)] = "OEM"
WEAK_KINDS = {str(BG.ResellerSource), str(BG.BlogSource), str(BG.PressSource)}
NUMBERED = re.compile(r"-(\d+)(?:-|$)")


@dataclass
class Line:
    """One line of a summary: what it is, and its value as terms (links and text)."""

    label: str
    value: list[Term]
    notes: list[int] = field(default_factory=list)  # the sources that state it (footnotes)
    derived_from: list[int] = field(default_factory=list)  # the sources it is derived from
    hint: str | None = None  # a tooltip: what the line means
    strength: tuple[str, str, str] | None = None  # a spec row's: (word, class, tooltip)


@dataclass
class Measurement:
    """A measurement as a row: "93.9 tok/s, prose" with its metric and what it is set against."""

    value: str
    unit: str
    metric: Term | None
    conditions: list[tuple[str, str]]
    change: str | None = None  # against the group's baseline: "+43 %"
    baseline: str | None = None  # the baseline's conditions: "prose"
    derived: bool = False
    note: str | None = None
    anchor: str = ""


@dataclass
class Source:
    number: int
    anchor: str
    publisher: str | None
    title: str | None
    url: str | None
    secondary: bool
    kind: Term | None  # what the source is (bg:sourceKind): vendor, OEM, reseller, blog, ...
    quote: str | None
    states: list[Term]
    derives: list[Term]
    extra: list[tuple[str, str]]  # repository, commit, round, row, ...


@dataclass
class Basis:
    """Why a run's fabric status is what it is, for one kind of accelerator."""

    accelerator: Term | None
    rule: Term | None
    status: Term | None
    rests_on: list[Term]
    strength: Term | None  # the strongest kind of source behind it (BASIS_STRENGTH)
    evidence: Term | None  # stated or derived (BASIS_EVIDENCE)
    more: list[tuple[Term, Term]]


@dataclass
class Summary:
    kind: str
    headline: str | None = None
    headline_hint: str | None = None
    lines: list[Line] = field(default_factory=list)
    basis: list[Basis] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    spec: list[Line] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (what, text): the long text
    performance: object | None = None  # a part's or model's best runs (performance.py)


class Facts:
    """The page's quads by subject and predicate (IRIs as strings)."""

    def __init__(self, quads: list[ox.Quad]):
        self.by: dict[str, dict[str, list[object]]] = defaultdict(lambda: defaultdict(list))
        for q in quads:
            values = self.by[q.subject.value][q.predicate.value]
            if q.object not in values:
                values.append(q.object)

    def all(self, subject: str, predicate: str) -> list[object]:
        return self.by.get(subject, {}).get(predicate, [])

    def one(self, subject: str, predicate: str) -> object | None:
        found = self.all(subject, predicate)
        return found[0] if found else None

    def text(self, subject: str, predicate: str) -> str | None:
        found = self.one(subject, predicate)
        return getattr(found, "value", None)


def build_summary(page: RecordPage, kind: str, quads: list[ox.Quad]) -> Summary:
    """The summary of the record `page.iri` of `kind`, from its stated and derived quads."""
    facts = Facts(quads)
    make = {"benchmarks": _run, "accelerators": _part, "systems": _system}.get(kind, _other)
    summary = make(page, facts)
    summary.kind = kind
    return summary


# --- runs ------------------------------------------------------------------------------------
def _run(page: RecordPage, facts: Facts) -> Summary:
    iri = page.iri
    s = Summary("benchmarks")
    value, unit = facts.text(iri, str(BG.value)), facts.text(iri, str(BG.unitCode))
    metric = facts.one(iri, str(BG.metric))
    scope = _linked(page, metric, str(BG.scope))
    if value is not None:
        s.headline = " ".join(
            x for x in (figure(value), unit, scope and page.label(scope.value)) if x
        )
        s.headline_hint = page.label(metric.value) if metric is not None else None
    if metric is not None:
        s.lines.append(Line("Metric", [page.term(metric)]))
    bench = [facts.text(iri, str(p)) for p in (BG.benchmarkName, BG.scenario, BG.division)]
    if any(bench):
        s.lines.append(
            _text_line(
                page,
                "Benchmark",
                ", ".join(
                    b
                    for b in (
                        bench[0],
                        bench[1] and f"{bench[1]} scenario",
                        bench[2] and f"{bench[2]} division",
                    )
                    if b
                ),
            )
        )
    _terms_line(page, s, "Model", facts.all(iri, str(BG.model)))
    s.lines.append(Line("Hardware", _hardware(page, facts)))
    system = facts.all(iri, str(BG.system))
    _terms_line(page, s, "System", system)
    s.lines += _fabric(page, facts)
    s.basis = _basis(page, facts)
    _parallelism(page, facts, s)
    engine = facts.all(iri, str(BG.engine))
    if engine:
        version = facts.text(iri, str(BG.engineVersion))
        s.lines.append(
            Line(
                "Engine",
                [page.term(engine[0])]
                + ([_text(page, ","), _text(page, f"version {version}")] if version else []),
            )
        )
    status = facts.one(iri, str(BG.status))
    confidence = facts.text(iri, str(BG.confidence))
    if status is not None or confidence:
        s.lines.append(
            Line(
                "Status",
                _listed(
                    [page.term(status)] if status is not None else [],
                    [_text(page, f"confidence {confidence}")] if confidence else [],
                    page=page,
                ),
            )
        )
    by = facts.one(iri, str(BG.measuredBy))
    submitter = facts.text(iri, str(BG.submitter))
    if by is not None or submitter:
        s.lines.append(
            Line(
                "Measured by",
                _listed(
                    [page.term(by)] if by is not None else [],
                    [_text(page, f"submitted by {submitter}")] if submitter else [],
                    page=page,
                ),
            )
        )
    date = facts.text(iri, f"{DCT}modified")
    rounds = sorted(
        {
            r.value
            for src in facts.all(iri, f"{DCT}source")
            for r in facts.all(src.value, str(BG.round))
        }
    )
    if date or rounds:
        s.lines.append(
            _text_line(
                page,
                "Date",
                "; ".join(([f"updated {date}"] if date else []) + [f"round {r}" for r in rounds]),
            )
        )
    s.measurements = _measurements(page, facts)
    s.sources = _sources(page, facts)
    s.notes = _long_texts(
        facts, iri, [(f"{SKOS}note", "Note"), (str(BG.methodology), "Methodology")]
    )
    return s


def _hardware(page: RecordPage, facts: Facts) -> list[Term]:
    """ "8 x NVIDIA RTX PRO 6000", or each kind with its total on a run of several kinds."""
    iri = page.iri
    totals = {}
    for use in facts.all(iri, str(BG.acceleratorUse)):
        kind = facts.one(use.value, str(BG.acceleratorKind))
        count = facts.text(use.value, str(BG.totalCount))
        if kind is not None:
            totals[kind.value] = count
    kinds = facts.all(iri, str(BG.accelerator))
    count = facts.text(iri, str(BG.acceleratorCount))
    out: list[Term] = []
    for i, kind in enumerate(kinds):
        n = totals.get(kind.value) or (count if len(kinds) == 1 else None)
        if i:
            out.append(_text(page, "+"))
        if n:
            out.append(_text(page, f"{n} \u00d7"))
        out.append(page.term(kind))
    if not kinds:
        out.append(_text(page, "no accelerator (CPU only)" if count is None else f"{count}"))
    return out


def _fabric(page: RecordPage, facts: Facts) -> list[Line]:
    iri = page.iri
    status = facts.one(iri, str(BG.fabricStatus))
    lines = []
    if status is not None:
        lines.append(
            Line(
                "Fabric status",
                [page.term(status)],
                hint="the fabric present in the run's hardware, as its records "
                "state it; its basis is below",
            )
        )
    links = facts.all(iri, str(BG.interconnect))
    if links:
        lines.append(Line("Interconnects", _joined(page, links)))
    return lines


def _basis(page: RecordPage, facts: Facts) -> list[Basis]:
    out = []
    for node in sorted(facts.all(page.iri, str(BG.fabricStatusBasis)), key=lambda n: n.value):
        n = node.value

        def term(p: str, n: str = n) -> Term | None:
            found = facts.one(n, p)
            return page.term(found) if found is not None else None

        more = [
            (page.term(ox.NamedNode(p)), page.term(v))
            for p, values in sorted(facts.by.get(n, {}).items())
            if p not in BASIS_KNOWN
            for v in values
        ]
        out.append(
            Basis(
                term(str(BG.basisAccelerator)),
                term(str(BG.basisRule)),
                term(str(BG.basisStatus)),
                [page.term(x) for x in facts.all(n, str(BG.restsOn))],
                term(BASIS_STRENGTH),
                term(BASIS_EVIDENCE),
                more,
            )
        )
    return out


def _parallelism(page: RecordPage, facts: Facts, s: Summary) -> None:
    iri = page.iri
    sizes = [
        (name, facts.text(iri, str(p)))
        for name, p in (
            ("tensor", BG.tensorParallelSize),
            ("pipeline", BG.pipelineParallelSize),
            ("expert", BG.expertParallelSize),
            ("data", BG.dataParallelSize),
        )
    ]
    said = [f"{name} {size}" for name, size in sizes if size]
    crosses = facts.text(iri, str(BG.crossesDevices))
    if said or crosses:
        text = ", ".join(said) or "not stated"
        if crosses:
            text += "; crosses devices" if crosses == "true" else "; stays on one device"
        s.lines.append(_text_line(page, "Parallelism", text))
    concurrency = facts.text(iri, str(BG.concurrency))
    if concurrency:
        s.lines.append(_text_line(page, "Concurrency", concurrency))


def _measurements(page: RecordPage, facts: Facts) -> list[Measurement]:
    iri = page.iri
    changes: dict[str, tuple[str, str]] = {}
    for c in facts.all(iri, str(BG.comparison)):
        compared = facts.one(c.value, str(BG.compared))
        baseline = facts.one(c.value, str(BG.baseline))
        change = facts.text(c.value, str(BG.relativeChange))
        if compared is not None and change is not None:
            against = (
                ", ".join(
                    facts.text(x.value, str(BG.conditionValue)) or ""
                    for x in facts.all(baseline.value, str(BG.condition))
                )
                if baseline is not None
                else ""
            )
            changes[compared.value] = (_percent(change), against)
    rows = []
    for m in sorted(facts.all(iri, str(BG.measurement)), key=lambda n: _number(n.value)):
        n = m.value
        value = facts.text(n, str(BG.value))
        low, high = facts.text(n, str(BG.minValue)), facts.text(n, str(BG.maxValue))
        low, high = figure(low), figure(high)
        shown = (
            figure(value)
            if value is not None
            else (f"{low}\u2013{high}" if low and high else low or high or "")
        )
        out_of = facts.text(n, str(BG.outOf))
        if out_of:
            shown = f"{shown} of {figure(out_of)}"
        conditions = []
        for c in facts.all(n, str(BG.condition)):
            name, v = (
                facts.text(c.value, str(BG.conditionName)),
                facts.text(c.value, str(BG.conditionValue)),
            )
            if name is not None:
                conditions.append((name, v or ""))
        metric = facts.one(n, str(BG.metric))
        change, base = changes.get(n, (None, None))
        rows.append(
            Measurement(
                shown,
                facts.text(n, str(BG.unitCode)) or "",
                page.term(metric) if metric else None,
                sorted(conditions),
                change,
                base or None,
                facts.text(n, str(BG.derived)) == "true",
                facts.text(n, f"{RDFS}comment"),
                _anchor(n),
            )
        )
    return rows


# --- parts -----------------------------------------------------------------------------------
def _part(page: RecordPage, facts: Facts) -> Summary:
    iri = page.iri
    s = Summary("accelerators")
    s.sources = _sources(page, facts)
    stated: dict[str, list[int]] = defaultdict(list)
    derived: dict[str, list[int]] = defaultdict(list)
    for src in s.sources:
        for t in src.states:
            stated[t.iri].append(src.number)
        for t in src.derives:
            derived[t.iri].append(src.number)
    for p in SPEC:
        values = facts.all(iri, p)
        if not values or (p == str(BG.vendor) and facts.all(iri, str(BG.madeBy))):
            continue  # the vendor's name beside its record says nothing more
        line = Line(
            page.label(p) or page.term(ox.NamedNode(p)).text,
            _joined(page, values),
            notes=stated.get(p, []),
        )
        line.derived_from = derived.get(p, [])
        if not line.notes and not line.derived_from and p != f"{SKOS}broader":
            line.hint = "no source of this record states it"
        if p != f"{SKOS}broader":  # the family is the record's own grouping, not a fact
            line.strength = source_strength(
                [s.sources[n - 1] for n in line.notes], bool(line.derived_from)
            )
        s.spec.append(line)
    s.notes = _long_texts(facts, iri, [(f"{SKOS}note", "Note")])
    return s


def source_strength(stating: list[Source], derived: bool) -> tuple[str, str, str]:
    """How strong the sources of a spec row are, as (word, CSS class, tooltip): the
    strongest kind among those that state it; "derived" where sources only derive it; "no
    source" where none does."""
    kinds = [src.kind.iri for src in stating if src.kind is not None and src.kind.iri]
    ranked = sorted((k for k in kinds if k in KIND_RANK), key=KIND_RANK.__getitem__)
    if ranked:
        kind = ranked[0]
        return (
            KIND_WORD[kind],
            "weak" if kind in WEAK_KINDS else "strong",
            f"the strongest source that states it is a {KIND_WORD[kind]} source"
            + ("; weigh it with care" if kind in WEAK_KINDS else ""),
        )
    if stating:
        return ("kind not given", "weak", "stated by a source that does not say what it is")
    if derived:
        return (
            "derived",
            "derived",
            "no source states it of this part; it follows from what sources state "
            "of its family or architecture",
        )
    return ("no source", "none", "no source of this record states it")


def _sources(page: RecordPage, facts: Facts) -> list[Source]:
    out = []
    nodes = sorted(facts.all(page.iri, f"{DCT}source"), key=lambda n: _number(n.value))
    extra_fields = (
        (str(BG.repository), "repository"),
        (str(BG.commit), "commit"),
        (str(BG.sourcePath), "path"),
        (str(BG.sourceRow), "row"),
        (str(BG.round), "round"),
    )
    for i, node in enumerate(nodes, 1):
        n = node.value
        url = facts.one(n, f"{SCHEMA}url")
        out.append(
            Source(
                i,
                _anchor(n),
                facts.text(n, f"{DCT}publisher"),
                facts.text(n, f"{DCT}title"),
                url.value if url is not None else None,
                facts.text(n, str(BG.secondarySource)) == "true",
                page.term(facts.one(n, str(BG.sourceKind)))
                if facts.one(n, str(BG.sourceKind)) is not None
                else None,
                facts.text(n, f"{RDFS}comment"),
                [page.term(t) for t in facts.all(n, str(BG.states))],
                [page.term(t) for t in facts.all(n, str(BG.derives))],
                [(label, facts.text(n, p)) for p, label in extra_fields if facts.text(n, p)],
            )
        )
    return out


# --- systems ---------------------------------------------------------------------------------
def _system(page: RecordPage, facts: Facts) -> Summary:
    iri = page.iri
    s = Summary("systems")
    parts: list[Term] = []
    for config in sorted(facts.all(iri, str(BG.acceleratorConfig)), key=lambda n: n.value):
        kind = facts.one(config.value, str(BG.accelerator))
        count = facts.text(config.value, str(BG.countPerNode))
        if parts:
            parts.append(_text(page, "+"))
        if count:
            parts.append(_text(page, f"{count} \u00d7"))
        if kind is not None:
            parts.append(page.term(kind))
    nodes = facts.text(iri, str(BG.nodes))
    if parts:
        parts.append(_text(page, "per node"))
        s.lines.append(Line("Parts", parts))
    if nodes:
        s.lines.append(_text_line(page, "Nodes", nodes))
    cpu = facts.text(iri, str(BG.hostCpu))
    if cpu:
        s.lines.append(_text_line(page, "Host CPU", cpu))
    links = facts.all(iri, str(BG.interconnect))
    if links:
        s.lines.append(Line("Fabric and host links", _joined(page, links)))
    published = facts.text(iri, str(BG.fabricPublished))
    if published:
        s.lines.append(
            _text_line(
                page,
                "Fabric published",
                "yes"
                if published == "true"
                else "no: the source leaves the fabric blank (N/A, TBD)",
            )
        )
    for raw in sorted(facts.all(iri, str(BG.interconnectRaw)), key=lambda n: n.value):
        name = facts.text(raw.value, str(BG.sourceField))
        value = facts.text(raw.value, str(BG.rawValue))
        if name:
            s.lines.append(
                _text_line(page, f"As the source wrote it: {name}", value if value else "(blank)")
            )
    for p, label in (
        (BG.submitter, "Submitter"),
        (BG.systemType, "System type"),
        (BG.software, "Software"),
        (BG.availability, "Availability"),
    ):
        text = facts.text(iri, str(p))
        if text:
            s.lines.append(_text_line(page, label, text))
    s.sources = _sources(page, facts)
    s.notes = _long_texts(facts, iri, [(f"{SKOS}note", "Note")])
    return s


# --- other kinds -----------------------------------------------------------------------------
def _other(page: RecordPage, facts: Facts) -> Summary:
    """Engines, models, metrics, interconnects, vendors: their own facts, long text apart."""
    iri = page.iri
    s = Summary("")
    skip = {
        RDF_TYPE,
        f"{RDFS}label",
        str(BG.recordId),
        f"{DCT}source",
        f"{SKOS}note",
        f"{DCT}description",
        f"{DCT}title",
        str(BG.revision),
        str(BG.mapping),
    }
    for p, values in sorted(facts.by.get(iri, {}).items(), key=lambda kv: kv[0]):
        if p in skip or not values:
            continue
        label = page.label(p) or page.term(ox.NamedNode(p)).text
        s.lines.append(Line(label, _joined(page, values)))
    s.sources = _sources(page, facts)
    s.notes = _long_texts(
        facts, iri, [(f"{DCT}description", "Description"), (f"{SKOS}note", "Note")]
    )
    return s


# --- helpers ---------------------------------------------------------------------------------
def _linked(page: RecordPage, node: object, predicate: str) -> ox.NamedNode | None:
    """One value of `predicate` on another record (a run's metric's scope), from the store."""
    if not isinstance(node, ox.NamedNode):
        return None
    for q in page.store.quads_for_pattern(node, ox.NamedNode(predicate), None, None):
        if isinstance(q.object, ox.NamedNode):
            return q.object
    return None


def _terms_line(page: RecordPage, s: Summary, label: str, values: list[object]) -> None:
    if values:
        s.lines.append(Line(label, _joined(page, values)))


def _joined(page: RecordPage, values: list[object]) -> list[Term]:
    out: list[Term] = []
    for v in sorted(
        values,
        key=lambda v: (page.label(v.value) or v.value) if isinstance(v, ox.NamedNode) else v.value,
    ):
        if out:
            out.append(_text(page, ","))
        out.append(page.term(v))
    return out


def _listed(*parts: list[Term], page: RecordPage) -> list[Term]:
    """The parts that are there, joined by commas."""
    out: list[Term] = []
    for part in parts:
        if part and out:
            out.append(_text(page, ","))
        out += part
    return out


def _text(page: RecordPage, text: str) -> Term:
    return page.term(ox.Literal(text))


def _text_line(page: RecordPage, label: str, text: str) -> Line:
    return Line(label, [_text(page, text)])


def _long_texts(facts: Facts, iri: str, fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(label, v.value) for p, label in fields for v in facts.all(iri, p)]


def _percent(change: str) -> str:
    try:
        value = float(change) * 100
    except ValueError:
        return change
    return f"{value:+.0f} %" if abs(value) >= 1 else f"{value:+.1f} %"


def _number(iri: str) -> tuple[int, str]:
    found = NUMBERED.search(iri.rpartition("#")[2])
    return (int(found[1]) if found else 0, iri)


def _anchor(iri: str) -> str:
    return iri.partition("#")[2]
