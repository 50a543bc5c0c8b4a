"""The shapes marked bg:acrossRecords, run over the facts of every record: a link names a
record of the right class, a unit is its metric's, a stated fabric is one the parts carry
(their Python twins: fabric.py, and the unit check here)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from rdflib import Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import SKOS

from ..errors import Problem
from ..namespaces import BG, ID, record_iri
from ..rdf.convert import CLASSES
from .fabric import fabric_claim, fabric_contradiction, single_fabric
from .facts import KIND_CLASS, Dataset, RecordFacts
from .record import problem
from .shacl import SH, Result, render
from .shapes import shapes_graph

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
    ("systems", "accelerators.id"): [("#accelerators-{n}", BG.accelerator), ("", BG.accelerator)],
    ("systems", "interconnect_ids"): [("", BG.interconnect)],
    ("models", "family"): [("", SKOS.broader)],
}
NESTED_CLASSES = {"#measurement-": BG.Measurement, "#accelerators-": BG.AcceleratorConfig}


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
        # that class or a code, and records/schema.py leaves the code out of the references checked
        classes = list(g.objects(shape, SH["class"])) + [
            c
            for alts in g.objects(shape, SH["or"])
            for m in Collection(g, alts)
            for c in g.objects(m, SH["class"])
        ]
        for cls in classes:
            for (kind, spec), links in LINKS.items():
                for suffix, predicate in links:
                    focus = node_class[suffix[: suffix.find("{")] if suffix else ""]
                    if predicate == path and (focus or str(CLASSES[kind])) in targets:
                        by_ref.setdefault((kind, spec), []).append(
                            _ClassCheck(shape, suffix, predicate, str(cls), severity, message)
                        )
        for constraint in g.objects(shape, SH.sparql):
            if constraint not in ACROSS_TWINS:
                raise ValueError(f"{constraint}: a SPARQL constraint with no Python twin")
            twins.append(
                _TwinCheck(
                    shape,
                    targets,
                    ACROSS_TWINS[constraint],
                    str(g.value(constraint, SH.message) or ""),
                    severity,
                )
            )
    return by_ref, twins


TIME_UNITS = {"ns", "us", "ms", "s"}  # the only unit codes of one kind: they convert


def _unit_of_metric(data: Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
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
        unit, known = data.unit(rec.path, suffix)
        metric_unit = data.unit(metric.path, "")[0]
        if (
            unit is not None
            and metric_unit is not None
            and unit != metric_unit
            and not (unit in TIME_UNITS and metric_unit in TIME_UNITS)
            and known
        ):
            yield (
                suffix,
                {
                    "path": BG.unitCode,
                    "value": Literal(unit),
                    "metricId": target,
                    "metricUnit": metric_unit,
                },
            )


ACROSS_TWINS = {
    BG.UnitOfMetricConstraint: _unit_of_metric,
    BG.FabricClaimConstraint: fabric_claim,
    BG.FabricContradictionConstraint: fabric_contradiction,
    BG.SingleAcceleratorFabricConstraint: single_fabric,
}


def across_results(
    records: Iterable[RecordFacts], only: Iterable[RecordFacts] | None = None
) -> list[tuple[Result, RecordFacts]]:
    """The results of the across-record shapes on `only` (default: every record), with the
    whole dataset `records` to look links up in."""
    records = list(records)
    data = Dataset(records)
    by_ref, twins = across_checks()
    linking_kinds = {k for k, _ in by_ref}
    twins_of: dict[Any, list[_TwinCheck]] = {}
    for check in twins:
        twins_of.setdefault(check.twin, []).append(check)
    specs: dict[str, tuple[str, int]] = {}  # "measurements.2.metric" -> ("measurements.metric", 3)
    out = []
    for rec in records if only is None else only:
        for dotted, target, kind in rec.refs if rec.kind in linking_kinds else ():
            spec = specs.get(dotted)
            if spec is None:
                head, _, rest = dotted.partition(".")
                n, _, tail = rest.partition(".")
                spec = specs[dotted] = (
                    f"{head}.{tail}" if tail else head,
                    int(n) + 1 if n.isdigit() else 0,
                )
            for check in by_ref.get((rec.kind, spec[0]), ()):
                if not data.has_class(kind, target, check.cls):
                    focus = URIRef(f"{ID}{rec.kind}/{rec.id}{check.suffix.format(n=spec[1])}")
                    out.append(
                        (
                            Result(
                                focus,
                                check.predicate,
                                check.shape,
                                URIRef(f"{ID}{kind}/{target}"),
                                check.severity,
                                SH.ClassConstraintComponent,
                                check.message,
                            ),
                            rec,
                        )
                    )
        own = KIND_CLASS[rec.kind]
        for twin, checks in twins_of.items():
            for suffix, row in twin(data, rec):
                node_cls = str(BG.Measurement) if suffix else own
                for check in checks:
                    if node_cls not in check.targets:
                        continue
                    row = dict(row)
                    value, path = row.pop("value"), row.pop("path")
                    out.append(
                        (
                            Result(
                                URIRef(f"{ID}{rec.kind}/{rec.id}{suffix}"),
                                path,
                                check.shape,
                                value,
                                check.severity,
                                SH.SPARQLConstraintComponent,
                                render(check.message, row),
                            ),
                            rec,
                        )
                    )
    return out


def across_problems(
    records: Iterable[RecordFacts],
    only: Iterable[RecordFacts] | None = None,
    lines: Callable[[list[RecordFacts]], None] | None = None,
    alike: Callable[[str], list[RecordFacts]] | None = None,
) -> dict[str, list[Problem]]:
    """Problems of the across-record shapes, located in the YAML, by record file. `lines`:
    fills in the line maps of the records with a result, when the records came without.
    `alike`: a checked run's path -> the other runs with the same links and facts (nothing
    links to a run, so theirs are its results on their own nodes: they are not checked)."""
    out: dict[str, set[Problem]] = {}
    results = across_results(records, only)
    if alike:
        results += [
            (_renamed(r, rec, other), other) for r, rec in results for other in alike(rec.path)
        ]
    if lines is not None:
        lines(list({id(rec): rec for _, rec in results}.values()))
    for r, rec in results:
        own = record_iri(rec.kind, rec.id)
        out.setdefault(rec.path, set()).add(problem(r, rec.path, rec.lines, {}, own, rec.refs))
    return {path: sorted(ps) for path, ps in out.items()}


def _renamed(result: Result, rec: RecordFacts, other: RecordFacts) -> Result:
    """A result of `rec` as `other`'s, a run alike but for its IRI and file: its own nodes
    renamed, and its file where the message names it (a source with no address)."""
    was, now = f"{ID}{rec.kind}/{rec.id}", f"{ID}{other.kind}/{other.id}"

    def node(term: Any) -> Any:
        text = str(term)
        if isinstance(term, URIRef) and (text == was or text.startswith(was + "#")):
            return URIRef(now + text[len(was) :])
        return term

    return replace(
        result,
        focus=node(result.focus),
        value=node(result.value),
        message=result.message.replace(rec.path, other.path),
    )
