"""What a record page's summary is made of (summary.py, runsummary.py): its lines, rows,
sources and basis; the page's quads read by subject and predicate (Facts); the record's
sources, which every kind lists; and the helpers that make a page's terms of values.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Protocol

import pyoxigraph as ox

from ..namespaces import BG, PREFIXES
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


# --- sources ---------------------------------------------------------------------------------
def sources(page: RecordPage, facts: Facts) -> list[Source]:
    """The record's sources, numbered in the order of their IRIs (as its page footnotes them)."""
    out = []
    nodes = sorted(facts.all(page.iri, f"{DCT}source"), key=lambda n: number(n.value))
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
                anchor(n),
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


# --- helpers ---------------------------------------------------------------------------------
def linked(page: RecordPage, node: object, predicate: str) -> ox.NamedNode | None:
    """One value of `predicate` on another record (a run's metric's scope), from the store."""
    if not isinstance(node, ox.NamedNode):
        return None
    for q in page.store.quads_for_pattern(node, ox.NamedNode(predicate), None, None):
        if isinstance(q.object, ox.NamedNode):
            return q.object
    return None


def terms_line(page: RecordPage, s: Summary, label: str, values: list[object]) -> None:
    if values:
        s.lines.append(Line(label, joined(page, values)))


def joined(page: RecordPage, values: list[object]) -> list[Term]:
    out: list[Term] = []
    for v in sorted(
        values,
        key=lambda v: (page.label(v.value) or v.value) if isinstance(v, ox.NamedNode) else v.value,
    ):
        if out:
            out.append(literal(page, ","))
        out.append(page.term(v))
    return out


def listed(*parts: list[Term], page: RecordPage) -> list[Term]:
    """The parts that are there, joined by commas."""
    out: list[Term] = []
    for part in parts:
        if part and out:
            out.append(literal(page, ","))
        out += part
    return out


def literal(page: RecordPage, text: str) -> Term:
    return page.term(ox.Literal(text))


def text_line(page: RecordPage, label: str, text: str) -> Line:
    return Line(label, [literal(page, text)])


def long_texts(facts: Facts, iri: str, fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(label, v.value) for p, label in fields for v in facts.all(iri, p)]


def number(iri: str) -> tuple[int, str]:
    found = NUMBERED.search(iri.rpartition("#")[2])
    return (int(found[1]) if found else 0, iri)


def anchor(iri: str) -> str:
    return iri.partition("#")[2]
