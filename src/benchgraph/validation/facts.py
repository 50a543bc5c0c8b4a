"""The small facts of each record that the across-record checks read (kind, id, links,
units, fabrics), read from its triples or its N-Quads, and the dataset of them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pyoxigraph as ox
from rdflib import URIRef
from rdflib.namespace import RDF, XSD

from ..namespaces import BG, QUDT, SCHEMA, record_iri
from ..rdf.convert import CLASSES
from ..rdf.nquads import term
from ..records.schema import Record

# What the dataset pass reads from a record's own triples (the rest comes from its links).
FACT_PREDICATES = {
    str(BG.unitCode): "unit",
    str(QUDT.hasUnit): "known-unit",
    str(RDF.type): "type",
    # what the fabric checks read: a part's own fabric, which source states
    # it and where each source is, a system's size, submitter and fabric text
    str(BG.peerFabric): "peer-fabric",
    str(BG.states): "states",
    str(BG.derives): "derives",
    str(SCHEMA.url): "url",
    str(BG.countPerNode): "count",
    str(BG.nodes): "nodes",
    str(BG.submitter): "submitter",
    str(BG.sourceField): "raw-field",
    str(BG.rawValue): "raw",
}
# An integer fact (a count) as the N-Quads write it.
_INTEGER = re.compile(r'^"(\d+)"\^\^<http://www\.w3\.org/2001/XMLSchema#integer>$')


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
            line = text[begin : end if end != -1 else len(text)]
            start = text.find(needle, start + 1)
            subject = line[1 : line.index("> <")]
            if not subject.startswith(own):
                continue
            obj = line[line.index(needle[1:]) + len(needle) - 1 : line.rindex(" <")]
            _read_fact(subject[len(own) :], fact, obj, line, out, hard)
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
        _read_fact(
            subject[len(own) :], fact, obj, f"<{subject}> <{p}> {obj} <urn:x:g> .", out, hard
        )
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
    elif '"^^<' not in obj and "@" not in obj[obj.rfind('"') :]:
        hard.append(line)  # a typed literal is not a unit code: skipped


def _facts_end(out: set, hard: list[str], own: str) -> list[tuple[str, str, str]]:
    """The facts read, with those of the `hard` lines parsed."""
    for quad in ox.parse("\n".join(hard).encode(), ox.RdfFormat.N_QUADS) if hard else ():
        o = quad.object
        if isinstance(o, ox.Literal) and o.datatype.value == _STRING:
            out.add(
                (quad.subject.value[len(own) :], FACT_PREDICATES[quad.predicate.value], o.value)
            )
    # a value the cache's text form cannot hold is not a unit code (the unit shape says so)
    return sorted(f for f in out if "\t" not in f[2] and "\n" not in f[2])


_STRING = str(XSD.string)


def facts_from_triples(record: Record, triples: list) -> RecordFacts:
    """RecordFacts of a converted record (tests and benchmarks; the build uses its cache)."""
    from ..rdf.nquads import nquads

    own = str(record_iri(record.kind, record.id))
    text = nquads(triples, URIRef("urn:x-benchgraph:graph"))
    return RecordFacts(
        record.path,
        record.kind,
        record.id,
        list(record.references()),
        record.lines,
        facts_from_nquads(record.kind, text, own),
    )


class Dataset:
    """What the across-record checks read: which records exist, their links, and the facts
    (units, interconnect roles) of the records that carry them.

    A record's facts are indexed when a check first asks for them: a run's are read only by
    its own checks (nothing links to a run), and indexing every run's up front was a third
    of a cold build's check phase (0.6 of 1.8 s at 15k shipped-shaped runs)."""

    def __init__(self, records: Iterable[RecordFacts]):
        records = sorted(records, key=lambda r: r.path, reverse=True)
        # a link names the first file of an id (a second one is a duplicate-id problem)
        self.records = {(r.kind, r.id): r for r in records}
        self._by_path = {r.path: r for r in records}
        # a record's facts by node suffix and fact: {"": {"peer-fabric": {...}}, ...}
        self._facts: dict[tuple[str, str], dict[str, dict[str, set[str]]]] = {}
        # a file's units by node suffix, and the suffixes whose unit is a known one
        self._units: dict[str, tuple[dict[str, str], set[str]]] = {}
        self.systems_of: dict[str, list[RecordFacts]] = {}  # submitter -> its systems
        for r in records:
            if r.kind == "systems" and self.records[(r.kind, r.id)] is r:
                for who in self.fact(r, "", "submitter"):
                    self.systems_of.setdefault(who, []).append(r)

    def _of(self, key: tuple[str, str]) -> dict[str, dict[str, set[str]]]:
        """The facts of the first file of an id, by node suffix and fact."""
        mine = self._facts.get(key)
        if mine is None:
            mine = self._facts[key] = {}
            first = self.records.get(key)
            for suffix, fact, value in first.facts if first is not None else ():
                mine.setdefault(suffix, {}).setdefault(fact, set()).add(value)
        return mine

    def fact(self, rec: RecordFacts, suffix: str, fact: str) -> set[str]:
        return self._of((rec.kind, rec.id)).get(suffix, {}).get(fact, set())

    def node_facts(self, rec: RecordFacts, prefix: str) -> dict[str, dict[str, set[str]]]:
        """The facts of the nodes of a record whose suffix starts with prefix."""
        return {k: v for k, v in self._of((rec.kind, rec.id)).items() if k.startswith(prefix)}

    def has_class(self, kind: str, rid: str, cls: str) -> bool:
        """Whether the record (kind, rid) exists and is of class cls: its kind's own, or a
        type its first file states beyond that."""
        if (kind, rid) not in self.records:
            return False
        return KIND_CLASS[kind] == cls or cls in self._of((kind, rid)).get("", {}).get("type", ())

    def unit(self, path: str, suffix: str) -> tuple[str | None, bool]:
        """The unit code a file gives a node (suffix "" for the record), and whether it is
        a known one."""
        got = self._units.get(path)
        if got is None:
            units: dict[str, str] = {}
            known: set[str] = set()
            rec = self._by_path.get(path)
            for sfx, fact, value in rec.facts if rec is not None else ():
                if fact == "unit":
                    units[sfx] = value
                elif fact == "known-unit":
                    known.add(sfx)
            got = self._units[path] = (units, known)
        return got[0].get(suffix), suffix in got[1]


KIND_CLASS = {kind: str(cls) for kind, cls in CLASSES.items()}
