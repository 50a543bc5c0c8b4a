"""A run's summary, in words a person reads: its headline value with unit and scope, model,
hardware, fabric status with its basis, parallelism, engine, status and confidence, who
measured it and when, and its measurements as rows (each with its change against the
group's baseline).
"""

from __future__ import annotations

import pyoxigraph as ox

from ..namespaces import BG
from .figures import figure
from .pagefacts import (
    DCT,
    RDF_TYPE,
    RDFS,
    SKOS,
    Basis,
    Facts,
    Line,
    Measurement,
    RecordPage,
    Summary,
    anchor,
    joined,
    linked,
    listed,
    literal,
    long_texts,
    number,
    sources,
    terms_line,
    text_line,
)
from .terms import Term

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


def run_summary(page: RecordPage, facts: Facts) -> Summary:
    """The summary of the run `page.iri`, from its quads."""
    iri = page.iri
    s = Summary("benchmarks")
    value, unit = facts.text(iri, str(BG.value)), facts.text(iri, str(BG.unitCode))
    metric = facts.one(iri, str(BG.metric))
    scope = linked(page, metric, str(BG.scope))
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
            text_line(
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
    terms_line(page, s, "Model", facts.all(iri, str(BG.model)))
    s.lines.append(Line("Hardware", _hardware(page, facts)))
    system = facts.all(iri, str(BG.system))
    terms_line(page, s, "System", system)
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
                + ([literal(page, ","), literal(page, f"version {version}")] if version else []),
            )
        )
    status = facts.one(iri, str(BG.status))
    confidence = facts.text(iri, str(BG.confidence))
    if status is not None or confidence:
        s.lines.append(
            Line(
                "Status",
                listed(
                    [page.term(status)] if status is not None else [],
                    [literal(page, f"confidence {confidence}")] if confidence else [],
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
                listed(
                    [page.term(by)] if by is not None else [],
                    [literal(page, f"submitted by {submitter}")] if submitter else [],
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
            text_line(
                page,
                "Date",
                "; ".join(([f"updated {date}"] if date else []) + [f"round {r}" for r in rounds]),
            )
        )
    s.measurements = _measurements(page, facts)
    s.sources = sources(page, facts)
    s.notes = long_texts(
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
            out.append(literal(page, "+"))
        if n:
            out.append(literal(page, f"{n} \u00d7"))
        out.append(page.term(kind))
    if not kinds:
        out.append(literal(page, "no accelerator (CPU only)" if count is None else f"{count}"))
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
        lines.append(Line("Interconnects", joined(page, links)))
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
        s.lines.append(text_line(page, "Parallelism", text))
    concurrency = facts.text(iri, str(BG.concurrency))
    if concurrency:
        s.lines.append(text_line(page, "Concurrency", concurrency))


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
    for m in sorted(facts.all(iri, str(BG.measurement)), key=lambda n: number(n.value)):
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
                anchor(n),
            )
        )
    return rows


def _percent(change: str) -> str:
    try:
        value = float(change) * 100
    except ValueError:
        return change
    return f"{value:+.0f} %" if abs(value) >= 1 else f"{value:+.1f} %"
