"""The shapes that need one record alone, run on its own triples where it is converted, and
a result located in the YAML: the file, line, field and value a curator edits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import product
from math import prod
from typing import Any
from urllib.parse import unquote

from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, XSD

from ..errors import INFO, VIOLATION, WARNING, Problem
from ..namespaces import BG, ID, record_iri
from ..rdf.convert import FIELD_PROPERTIES
from ..records.schema import FACT_FIELDS, Record, line_of
from .shacl import SH, Index, Result, Shapes, is_numeric
from .shapes import across_shape, curie, shape_info, shapes_graph

SEVERITY = {SH.Violation: VIOLATION, SH.Warning: WARNING, SH.Info: INFO}
# Nodes inside a record (`<record>#measurement-2`) and the YAML they come from.
NESTED = [
    (
        re.compile(r"measurement-(\d+)-(.+)"),
        lambda m, f: f"measurements.{int(m[1]) - 1}.condition.{unquote(m[2])}",
    ),
    (re.compile(r"measurement-(\d+)"), lambda m, f: f"measurements.{int(m[1]) - 1}."),
    (re.compile(r"source-(\d+)"), lambda m, f: f"source.{int(m[1]) - 1}."),
    (re.compile(r"revision-(\d+)"), lambda m, f: f"history.{int(m[1]) - 1}."),
    (re.compile(r"same-as-(\d+)"), lambda m, f: f"same_as.{int(m[1]) - 1}."),
    (re.compile(r"accelerators-(\d+)"), lambda m, f: f"accelerators.{int(m[1]) - 1}."),
    (re.compile(r"accelerator-use-(\d+)"), lambda m, f: f"accelerators.{int(m[1]) - 1}."),
    (re.compile(r"setting-(.+)"), lambda m, f: f"settings.{unquote(m[1])}"),
    (
        re.compile(r"interconnect-raw-(\d+)"),
        lambda m, f: (
            "interconnect_raw." + (sorted(f.get("interconnect_raw") or {}) or [""])[int(m[1]) - 1]
        ),
    ),
]


@lru_cache(maxsize=1)
def local_shapes() -> Shapes:
    """The shapes compiled for one record alone: constraints needing other records left out."""
    g = shapes_graph()
    # an sh:or of an across-records shape holds an sh:class too (host_interface: a record or
    # the on-chip code): it needs the other records as well
    return Shapes(
        g,
        LOCAL_TWINS,
        skip=lambda s, p: across_shape(g, s) and p in (SH["class"], SH.sparql, SH["or"]),
    )


# --- SPARQL twins (the SELECTs in shapes/, in Python; tests compare them with pySHACL) ------
PARALLEL = tuple(
    str(p)
    for p in (
        BG.tensorParallelSize,
        BG.pipelineParallelSize,
        BG.dataParallelSize,
        BG.expertParallelSize,
        BG.attentionDataParallelSize,
    )
)
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
            # expert and attention data parallelism reuse the ranks: each only bounds them
            needed = max([ranks, *(x.value for x in row[3:] if x is not None)])
            if needed > count.value:
                yield {"needed": needed, "count": count}


# The fact fields of a part that a source's `states` must name (records.FACT_FIELDS), by
# the property each becomes; the order of the shape's VALUES.
_FACTS = [(str(FIELD_PROPERTIES[f]), f) for f in FACT_FIELDS["accelerators"]]
_SOURCE, _STATES, _DERIVES = str(DCTERMS.source), str(BG.states), str(BG.derives)


def _unsourced(d: Index, focus: URIRef) -> Iterator[dict]:
    """bg:UnsourcedFactConstraint: a fact a source states, or one the record derives from
    a source, is sourced."""
    stated = {
        str(p)
        for src in d.objects(focus, _SOURCE)
        for link in (_STATES, _DERIVES)
        for p in d.objects(src, link)
    }
    for prop, name in _FACTS:
        if prop not in stated and d.objects(focus, prop):
            yield {"path": URIRef(prop), "field": Literal(name)}


LOCAL_TWINS = {BG.ParallelismConstraint: _parallelism, BG.UnsourcedFactConstraint: _unsourced}


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


def problem(
    r: Result,
    path: str,
    lines: dict[str, int],
    fields: dict[str, Any],
    own: URIRef,
    refs: Iterable[tuple] = (),
) -> Problem:
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
    local = focus[len(own) + 1 :]
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
