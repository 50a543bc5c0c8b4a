"""The fabric rules: a stated scale-up fabric checked against the parts' own records, and a
system's fabric text that is a sibling's copy."""

from __future__ import annotations

from collections.abc import Iterator

from rdflib import URIRef

from ..namespaces import BG, ID
from .facts import Dataset, RecordFacts

_FABRIC = str(BG.ScaleUpFabric)
# a part that states its fabric: a claim on it is checked against that (a contradiction of
# `none` is reported on its own), not against its interconnect list
_CARRIES = {str(BG.OptionalPeerFabric), str(BG.BuiltInPeerFabric), str(BG.NoPeerFabric)}


def fabric_claim(data: Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:FabricClaimConstraint, for runs and systems."""
    claimed = [
        t
        for d, t, k in rec.refs
        if k == "interconnects"
        and d.startswith("interconnect_ids")
        and data.has_class(k, t, _FABRIC)
    ]
    if not claimed:
        return
    for dotted, target, kind in rec.refs:
        other = (
            data.records.get((kind, target))
            if kind == "accelerators" and (dotted.startswith("accelerators"))
            else None
        )
        if other is not None and (
            any(
                k == "interconnects"
                and d.startswith("interconnect_ids")
                and data.has_class(k, t, _FABRIC)
                for d, t, k in other.refs
            )
            or data.fact(other, "", "peer-fabric") & _CARRIES
        ):
            return
    for target in dict.fromkeys(claimed):
        yield "", {"path": BG.interconnect, "value": URIRef(f"{ID}interconnects/{target}")}


_NO_PEER, _BUILT_IN = str(BG.NoPeerFabric), str(BG.BuiltInPeerFabric)
_STATES_FABRIC = str(BG.peerFabric)
# The fields of a source's system description that give the GPU-to-GPU fabric (MLPerf's):
# a sibling's copy of one of these is what the copy check compares.
FABRIC_TEXT_FIELDS = ("accelerator_interconnect", "accelerator_interconnect_topology")
PLACEHOLDERS = {"", "-", "n/a", "none", "tbd", "todo"}


def _claimed(data: Dataset, rec: RecordFacts) -> list[str]:
    """The scale-up fabrics a run or system lists itself."""
    return list(
        dict.fromkeys(
            t
            for d, t, k in rec.refs
            if k == "interconnects"
            and d.startswith("interconnect_ids")
            and data.has_class(k, t, _FABRIC)
        )
    )


def _source_of(data: Dataset, rec: RecordFacts, field: str | None) -> str:
    """The source of a record that states `field` (its property), else one the record
    derives it from, or its first: its address, or which entry of the record's source list
    it is."""
    sources = data.node_facts(rec, "#source-")
    order = sorted(sources, key=lambda k: int(k.rsplit("-", 1)[1]))
    chosen = [k for k in order if field is None or field in sources[k].get("states", ())] or [
        k for k in order if field in sources[k].get("derives", ())
    ]
    if not chosen:
        return "no source given" if field is None else "no source that states it"
    where = sorted(sources[chosen[0]].get("url", ())) or [
        f"source {chosen[0].rsplit('-', 1)[1]} of {rec.path}"
    ]
    return where[0]


def fabric_contradiction(data: Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:FabricContradictionConstraint, for runs and systems: a stated scale-up fabric on a
    part whose own record says it has no peer link (fabric: none)."""
    claimed = _claimed(data, rec)
    if not claimed:
        return
    for dotted, target, kind in rec.refs:
        if kind != "accelerators" or not dotted.startswith("accelerators"):
            continue
        part = data.records.get((kind, target))
        if part is None or _NO_PEER not in data.fact(part, "", "peer-fabric"):
            continue
        for ic in claimed:
            yield (
                "",
                {
                    "path": BG.interconnect,
                    "value": URIRef(f"{ID}interconnects/{ic}"),
                    "accelerator": target,
                    "acceleratorFile": part.path,
                    "acceleratorSource": _source_of(data, part, _STATES_FABRIC),
                    "ownSource": _source_of(data, rec, None),
                },
            )


def _count(values: set[str]) -> int | None:
    """A whole number stated once, else None (a count given as text is the shapes' to say)."""
    return int(next(iter(values))) if len(values) == 1 and next(iter(values)).isdigit() else None


def single_fabric(data: Dataset, rec: RecordFacts) -> Iterator[tuple[str, dict]]:
    """bg:SingleAcceleratorFabricConstraint: a system of one accelerator that lists a
    GPU-to-GPU fabric (a fabric joins accelerators; one has nothing to join)."""
    if rec.kind != "systems":
        return
    claimed = _claimed(data, rec)
    counts = [
        _count(v.get("count", set())) for v in data.node_facts(rec, "#accelerators-").values()
    ]
    nodes = _count(data.fact(rec, "", "nodes")) or 1
    kinds = _part_fabrics(data, _parts(rec))
    if (
        claimed
        and counts
        and None not in counts
        and sum(counts) * nodes == 1
        and kinds is not None
        and not kinds & {_BUILT_IN, _NO_PEER}
    ):
        for ic in claimed:
            yield "", {"path": BG.interconnect, "value": URIRef(f"{ID}interconnects/{ic}")}


def fabric_texts(data: Dataset, rec: RecordFacts) -> dict[str, str]:
    out = {}
    for v in data.node_facts(rec, "#interconnect-raw-").values():
        for field in v.get("raw-field", ()):
            for text in v.get("raw", ()):
                if field in FABRIC_TEXT_FIELDS and text.strip().lower() not in PLACEHOLDERS:
                    out[field] = text
    return out


def _parts(rec: RecordFacts) -> set[str]:
    return {t for d, t, k in rec.refs if k == "accelerators"}


def copied_fabric(data: Dataset, rec: RecordFacts) -> Iterator[tuple[str, str]]:
    """(field, sibling id) for each sibling system (same submitter) whose fabric text is
    byte-identical to this one's while its parts' own fabric differs: one of the two was
    likely copied (Cisco's C845A L40S and H200 NVL descriptions). Only systems that list a
    scale-up fabric, and parts that all state their fabric, are compared (SXM H100 and SXM
    H200 systems rightly share a text)."""
    if rec.kind != "systems" or not _claimed(data, rec) or not _parts(rec):
        return
    texts = {f: t for f, t in fabric_texts(data, rec).items() if _telling(t)}
    mine = _parts(rec)
    kinds = _part_fabrics(data, mine)
    if not texts or kinds is None:
        return
    for who in sorted(data.fact(rec, "", "submitter")):
        for other in data.systems_of.get(who, ()):
            if other is rec or _parts(other) == mine or not _claimed(data, other):
                continue
            theirs = _part_fabrics(data, _parts(other))
            if theirs is None or theirs == kinds:
                continue
            for field, text in sorted(fabric_texts(data, other).items()):
                if texts.get(field) == text:
                    yield field, other.id


def _telling(text: str) -> bool:
    """A fabric text specific enough for a byte-identical sibling to suggest copying: one
    with a count, generation or bandwidth ("18x 4th Gen NVLink, 900GB/s"). A bare name
    ("NVLINK") is what any two systems with that fabric write, and on the shipped data it
    paired an H100 SXM system with an H200 NVL one for no reason."""
    return any(c.isdigit() for c in text)


def _part_fabrics(data: Dataset, parts: set[str]) -> frozenset | None:
    """The peer-fabric kinds of these parts, or None if one of them states none."""
    out = set()
    for pid in parts:
        rec = data.records.get(("accelerators", pid))
        found = data.fact(rec, "", "peer-fabric") if rec is not None else set()
        if not found:
            return None
        out |= found
    return frozenset(out)
