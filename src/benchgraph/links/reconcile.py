"""`benchgraph link --out`: propose links from records to entities of a SPARQL endpoint
(Wikidata's by default), one best proposal per record, as an SSSOM file a curator reviews.

Only plain SPARQL 1.1 is asked of the endpoint (no text-search or label services), so any
store holding a Wikidata-shaped extract answers the same way: candidates are found by what
identifies them there (a part and a technology by its manufacturer, wdt:P176, and its class,
wdt:P31/wdt:P279*; a vendor, engine or model by its exact label in English or in Wikidata's
language-neutral `mul`), and their labels and alternative labels in every language are
compared here. A proposal is never a link: `benchgraph link --accept` writes the rows a
curator kept (accept.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..namespaces import BASE, record_iri
from ..records.files import find_record_files, kind_of
from ..records.reader import load_record
from ..records.schema import vendor_id
from . import sssom
from .sparql import Endpoint

WIKIDATA_SPARQL = "https://query.wikidata.org/sparql"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
# Wikidata's classes, each read in a stored source:
# - Q183484 graphics processing unit and Q122760264 graphics card model: issue 16's stored
#   copies; a Wikidata GPU harvester in the code index notes that RTX 4090 (Q114062761) is
#   P31 Q122760264, not Q183484, and asks for both with wdt:P31/wdt:P279*.
# - Q43229 organization: the allowed subject type of Wikidata property P1320 (OpenCorporates
#   ID), its property page as mirrored at speed.lescigales.org (pages corpus).
# - Q7397 software: `?item wdt:P31 wd:Q7397` in software-listing queries (code corpus).
# No class of interconnect technologies (bus, link standard) is stated in a stored source, so
# interconnects are asked by maker alone.
CLASSES = {
    "accelerators": (WD + "Q183484", WD + "Q122760264"),
    "interconnects": (),
    "vendors": (WD + "Q43229",),
    "engines": (WD + "Q7397",),
    "models": (),
}
KINDS = ("vendors", "accelerators", "interconnects", "engines", "models")
PROPOSALS_ID = BASE + "mappings/proposals.sssom.tsv"
JUSTIFICATION = "semapv:LexicalMatching"
TOOL = "benchgraph link"
MIN_CONFIDENCE = 0.8
RUNNERS_UP = 3

# Words that do not tell one part from another (a memory size is dropped before: "80 GB"),
# and legal forms that do not tell one company from another.
GENERIC = frozenset(
    "gpu gpus graphics card accelerator tensor core processing unit module the series".split()
)
LEGAL = frozenset(
    "corporation corp inc incorporated ltd limited co company llc gmbh ag sa plc".split()
)
_MEMORY = re.compile(r"\b\d+(?:\.\d+)?\s*[gt]i?b\b", re.I)
_ASIDE = re.compile(r"\([^)]*\)")  # "(generation not stated)": a remark, not the name
# The words by which a part or generation differs from its family: a close match when they
# are all that our name adds to theirs (H100 SXM to H100, NVLink 4 to NVLink), and no other.
_VARIANT = re.compile(r"^(?:\d+|\d+(?:st|nd|rd|th)|gen\d*|generation|sxm\d*|pcie|nvl|oam)$")
_TOKEN = re.compile(r"[^\W_]+")


@dataclass
class Subject:
    """A record that may be linked: its kind, id, name and vendor as written."""

    kind: str
    id: str
    name: str
    vendor: str | None
    linked: list[str] = field(default_factory=list)  # the IRIs its same_as already names

    @property
    def curie(self) -> str:
        return sssom.curie(str(record_iri(self.kind, self.id)))


@dataclass
class Proposal:
    subject: Subject
    object: str
    label: str
    predicate: str
    confidence: float
    runners_up: list[tuple[str, str, float]]

    def row(self) -> dict[str, str]:
        others = "; ".join(
            f"{sssom.curie(iri)} {label!r} {score:.2f}" for iri, label, score in self.runners_up
        )
        return {
            "subject_id": self.subject.curie,
            "subject_label": self.subject.name,
            "predicate_id": self.predicate,
            "object_id": sssom.curie(self.object),
            "object_label": self.label,
            "mapping_justification": JUSTIFICATION,
            "confidence": f"{self.confidence:.2f}",
            "creator_label": TOOL,
            "comment": f"runners-up: {others}" if others else "no runner-up",
        }


def subjects(data_dir: Path) -> list[Subject]:
    """The records of the kinds that link to outside entities, in a stable order."""
    out = []
    for path in find_record_files(data_dir):
        kind = kind_of(path, data_dir)
        if kind not in KINDS:
            continue
        record, _problems = load_record(path, data_dir)
        if record is None:
            continue
        f = record.fields
        linked = [
            str(x.get("iri")) if isinstance(x, dict) else str(x)
            for x in f.get("same_as") or []
            if x is not None
        ]
        out.append(
            Subject(
                kind,
                record.id,
                str(f.get("name") or record.id),
                str(f["vendor"]) if f.get("vendor") is not None else None,
                linked,
            )
        )
    return sorted(out, key=lambda s: (KINDS.index(s.kind), s.id))


def tokens(text: str, drop: Iterable[str] = ()) -> frozenset[str]:
    """The words that identify a thing in its name: lower-cased, memory sizes, generic words
    and `drop` (its maker's name) left out."""
    left = GENERIC | set(drop)
    text = _MEMORY.sub(" ", _ASIDE.sub(" ", text)).lower()
    return frozenset(t for t in _TOKEN.findall(text) if t not in left)


def score(ours: frozenset[str], theirs: frozenset[str]) -> tuple[float, str]:
    """How sure a name and a label name the same thing, and which match: the same words are
    an exact match (1.0); their words all among ours, ours adding only a variant (their
    family, our part: H100 for our H100 SXM) a close match (0.8-0.9); anything else at most
    0.7 (NVLink for NVLink-C2C or NVLink Switch; near-namesakes: L4 and L40S share no word,
    H100 SXM and H100 PCIe one of three)."""
    if not ours or not theirs:
        return 0.0, "skos:exactMatch"
    if ours == theirs:
        return 1.0, "skos:exactMatch"
    if theirs < ours and all(_VARIANT.match(t) for t in ours - theirs):
        return round(0.8 + 0.1 * len(theirs) / len(ours), 4), "skos:closeMatch"
    return round(0.7 * len(ours & theirs) / len(ours | theirs), 4), "skos:exactMatch"


class Reconciler:
    """Finds and scores candidates for each subject, asking the endpoint as little as it
    can (one query per vendor name, one per maker and kind)."""

    def __init__(
        self, endpoint: Endpoint, namespace: str = WD, rejected: set[tuple[str, str]] | None = None
    ):
        self.endpoint, self.namespace = endpoint, namespace
        self.rejected = rejected or set()
        self.vendors: dict[str, str | None] = {}  # vendor id or name -> its entity
        self.by_maker: dict[tuple[str, str], dict[str, list[str]]] = {}
        self.notes: list[str] = []

    def propose(self, all_subjects: list[Subject]) -> list[Proposal]:
        """One best proposal per subject without a link in the namespace (none where no
        candidate scores above 0)."""
        records = {(s.kind, s.id): s for s in all_subjects}
        out = []
        for s in all_subjects:
            own = self._link(s)
            if s.kind == "vendors":
                if own is None:
                    best = self._best(s, self._by_label(s.name, "vendors"), LEGAL)
                    if best is not None:
                        out.append(best)
                        self.vendors[s.id] = best.object
                else:
                    self.vendors[s.id] = own
                continue
            if own is not None:
                continue
            if s.kind in ("accelerators", "interconnects"):
                maker = self._maker(s, records)
                if maker is None:
                    self.notes.append(
                        f"{s.kind}/{s.id}: no manufacturer entity (vendor "
                        f"{s.vendor!r} has no link): not asked"
                    )
                    continue
                best = self._best(s, self._made_by(maker, s.kind), self._vendor_words(s))
            else:
                best = self._best(s, self._by_label(s.name, s.kind), self._vendor_words(s))
            if best is not None:
                out.append(best)
        return out

    def _link(self, s: Subject) -> str | None:
        return next((iri for iri in s.linked if iri.startswith(self.namespace)), None)

    def _vendor_words(self, s: Subject) -> frozenset[str]:
        if s.vendor is None:
            return frozenset()
        return tokens(s.vendor) | tokens(s.vendor.replace("-", " "))

    def _maker(self, s: Subject, records: dict) -> str | None:
        """The manufacturer's entity: the vendor record's link or this run's proposal for it,
        else (a vendor given as a plain name) the entity its name finds."""
        if s.vendor is None:
            return None
        vid = vendor_id(s.vendor)
        if vid is not None and ("vendors", vid) in records:
            return self.vendors.get(vid)
        if s.vendor not in self.vendors:
            name = Subject("vendors", "", s.vendor, None)
            best = self._best(name, self._by_label(s.vendor, "vendors"), LEGAL, keep=False)
            self.vendors[s.vendor] = best.object if best is not None else None
        return self.vendors[s.vendor]

    def _by_label(self, name: str, kind: str) -> dict[str, list[str]]:
        spellings = {name, name.upper(), name.lower(), name.title(), name.capitalize()}
        values = " ".join(
            f"{_literal(v)}@{lang}" for v in sorted(spellings) for lang in ("en", "mul")
        )
        return self._labels(f"""
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT DISTINCT ?item ?label WHERE {{
  VALUES ?name {{ {values} }}
  ?item rdfs:label|skos:altLabel ?name .
  {_typed(kind)}
  ?item rdfs:label|skos:altLabel ?label .
}}""")

    def _made_by(self, maker: str, kind: str) -> dict[str, list[str]]:
        key = (maker, kind)
        if key not in self.by_maker:
            self.by_maker[key] = self._labels(f"""
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT DISTINCT ?item ?label WHERE {{
  ?item <{WDT}P176> <{maker}> .
  {_typed(kind)}
  ?item rdfs:label|skos:altLabel ?label .
}}""")
        return self.by_maker[key]

    def _labels(self, query: str) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for row in self.endpoint.select(query):
            if row.get("item", "").startswith(self.namespace):
                found.setdefault(row["item"], []).append(row.get("label", ""))
        return found

    def _best(
        self, s: Subject, candidates: dict[str, list[str]], drop: Iterable[str], keep: bool = True
    ) -> Proposal | None:
        ours = tokens(s.name, drop) or tokens(s.id.replace("-", " "), drop)
        scored = []
        for iri, labels in candidates.items():
            if keep and (s.curie, sssom.curie(iri)) in self.rejected:
                continue
            best = max(
                ((score(ours, tokens(label, drop)), label) for label in labels),
                key=lambda x: (x[0][0], x[1]),
            )
            scored.append((best[0][0], best[0][1], iri, best[1]))
        scored.sort(key=lambda x: (-x[0], x[2]))
        if not scored or scored[0][0] <= 0:
            return None
        top, predicate, iri, label = scored[0]
        if len(scored) > 1 and scored[1][0] == top:
            top = round(top / 2, 4)  # two entities equally named: the curator decides
        runners = [(i, lab, sc) for sc, _p, i, lab in scored[1 : 1 + RUNNERS_UP]]
        return Proposal(s, iri, label, predicate, top, runners)


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _typed(kind: str) -> str:
    """The clause keeping a query to entities of a kind's Wikidata classes (P31, through
    P279); none for a kind without classes."""
    classes = CLASSES[kind]
    if not classes:
        return ""
    return (
        f"VALUES ?class {{ {' '.join(f'<{c}>' for c in classes)} }} "
        f"?item <{WDT}P31>/<{WDT}P279>* ?class ."
    )


def proposal_set(
    proposals: list[Proposal], min_confidence: float, endpoint: str, date: str
) -> tuple[sssom.MappingSet, int]:
    """The proposals at or above min_confidence as a mapping set; and how many fell below."""
    kept = [p for p in proposals if p.confidence >= min_confidence]
    ms = sssom.MappingSet(
        [p.row() for p in kept],
        header={
            "mapping_set_id": PROPOSALS_ID,
            "mapping_tool": TOOL,
            "mapping_date": date,
            "object_source": endpoint,
            "mapping_set_description": "Proposed links for a curator to review: delete a wrong "
            "row (it is remembered as rejected), edit one, then `benchgraph link --accept`.",
        },
    )
    return ms, len(proposals) - len(kept)
