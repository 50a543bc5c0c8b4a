"""The summary a record's page leads with, in words a person reads.

A run: its headline, hardware, fabric and measurements (runsummary.py). A part: its vendor's
facts as a spec table, each fact footnoted with the sources that state it. A system: its
parts and its fabric. Other kinds: their main facts. Everything is read from the quads the
page already holds, and the labels of what they link to (one indexed look-up each); what a
summary is made of is in pagefacts.py.
"""

from __future__ import annotations

from collections import defaultdict

import pyoxigraph as ox

from ..namespaces import BG
from ..rdf.convert import FIELD_PROPERTIES
from ..vocab import SOURCE_KINDS
from .pagefacts import (
    DCT,
    RDF_TYPE,
    RDFS,
    SKOS,
    Facts,
    Line,
    RecordPage,
    Source,
    Summary,
    joined,
    literal,
    long_texts,
    sources,
    text_line,
)
from .runsummary import run_summary
from .terms import Term

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


def build_summary(page: RecordPage, kind: str, quads: list[ox.Quad]) -> Summary:
    """The summary of the record `page.iri` of `kind`, from its stated and derived quads."""
    facts = Facts(quads)
    make = {"benchmarks": run_summary, "accelerators": _part, "systems": _system}.get(kind, _other)
    summary = make(page, facts)
    summary.kind = kind
    return summary


# --- parts -----------------------------------------------------------------------------------
def _part(page: RecordPage, facts: Facts) -> Summary:
    iri = page.iri
    s = Summary("accelerators")
    s.sources = sources(page, facts)
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
            joined(page, values),
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
    s.notes = long_texts(facts, iri, [(f"{SKOS}note", "Note")])
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


# --- systems ---------------------------------------------------------------------------------
def _system(page: RecordPage, facts: Facts) -> Summary:
    iri = page.iri
    s = Summary("systems")
    parts: list[Term] = []
    for config in sorted(facts.all(iri, str(BG.acceleratorConfig)), key=lambda n: n.value):
        kind = facts.one(config.value, str(BG.accelerator))
        count = facts.text(config.value, str(BG.countPerNode))
        if parts:
            parts.append(literal(page, "+"))
        if count:
            parts.append(literal(page, f"{count} \u00d7"))
        if kind is not None:
            parts.append(page.term(kind))
    nodes = facts.text(iri, str(BG.nodes))
    if parts:
        parts.append(literal(page, "per node"))
        s.lines.append(Line("Parts", parts))
    if nodes:
        s.lines.append(text_line(page, "Nodes", nodes))
    cpu = facts.text(iri, str(BG.hostCpu))
    if cpu:
        s.lines.append(text_line(page, "Host CPU", cpu))
    links = facts.all(iri, str(BG.interconnect))
    if links:
        s.lines.append(Line("Fabric and host links", joined(page, links)))
    published = facts.text(iri, str(BG.fabricPublished))
    if published:
        s.lines.append(
            text_line(
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
                text_line(page, f"As the source wrote it: {name}", value if value else "(blank)")
            )
    for p, label in (
        (BG.submitter, "Submitter"),
        (BG.systemType, "System type"),
        (BG.software, "Software"),
        (BG.availability, "Availability"),
    ):
        text = facts.text(iri, str(p))
        if text:
            s.lines.append(text_line(page, label, text))
    s.sources = sources(page, facts)
    s.notes = long_texts(facts, iri, [(f"{SKOS}note", "Note")])
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
        s.lines.append(Line(label, joined(page, values)))
    s.sources = sources(page, facts)
    s.notes = long_texts(
        facts, iri, [(f"{DCT}description", "Description"), (f"{SKOS}note", "Note")]
    )
    return s
