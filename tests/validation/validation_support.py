"""Helpers of the validation tests: the shape examples, converted records, result keys."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from rdflib import Graph

from benchgraph.namespaces import PREFIXES, record_iri
from benchgraph.rdf.convert import record_triples
from benchgraph.records.files import find_record_files
from benchgraph.records.reader import load_record
from benchgraph.records.schema import Record
from paths import ROOT

EXAMPLES = ROOT / "shapes" / "examples"
BASE = EXAMPLES / "base"
BAD = Path(__file__).resolve().parent / "bad"


def convert_folder(data_dir: Path) -> list[tuple[Record, list]]:
    """Every readable record of a data folder, converted (as the build does)."""
    out = []
    for path in find_record_files(data_dir):
        record, _problems = load_record(path, data_dir)
        if record is not None:
            out.append((record, record_triples(record)))
    return out


def union_graph(converted: list[tuple[Record, list]]) -> Graph:
    """All records' triples in one graph, what pySHACL validates."""
    g = Graph()
    for _record, triples in converted:
        for t in triples:
            g.add(t)
    return g


@dataclass(frozen=True)
class Example:
    """One example of a shape: the base record changed by a field mapping or Turtle."""

    file: str
    shape: str
    verdict: str  # "valid" or "invalid"
    n: int
    record: str  # kind/id of the base record
    change: Any

    @property
    def name(self) -> str:
        return f"{self.shape}-{self.verdict}-{self.n}"

    @property
    def kind(self) -> str:
        return self.record.split("/")[0]

    @property
    def id(self) -> str:
        return f"x-{self.shape.lower()}-{self.verdict}-{self.n}"

    @property
    def iri(self) -> str:
        return str(record_iri(self.kind, self.id))

    def convert(self) -> tuple[Record, list]:
        kind, base_id = self.record.split("/")
        fields = yaml.safe_load((BASE / kind / f"{base_id}.yaml").read_text(encoding="utf-8"))
        if isinstance(self.change, dict):
            fields.update(self.change)
        fields = {k: v for k, v in fields.items() if v is not None}
        fields["id"] = self.id
        text = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True)
        record, problems = load_record(
            Path("/examples") / kind / f"{self.id}.yaml", Path("/examples"), text=text
        )
        assert record is not None and not problems, (self.name, problems)
        triples = record_triples(record)
        if isinstance(self.change, str):
            prefixes = "".join(f"@prefix {p}: <{iri}> .\n" for p, iri in PREFIXES.items())
            added = Graph().parse(
                data=prefixes + self.change.replace("$this", self.iri), format="turtle"
            )
            triples += list(added)
        return record, triples


def load_examples() -> list[Example]:
    """Every example of shapes/examples/*.yaml, in file order."""
    out = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        for shape, cases in spec["examples"].items():
            record = cases.get("record", spec["record"])
            for verdict in ("valid", "invalid"):
                for n, change in enumerate(cases.get(verdict) or [], 1):
                    out.append(Example(path.name, shape, verdict, n, record, change))
    return out


def keys(results) -> set[tuple[str, str, str, str]]:
    """(focus, path, shape, value) of each result: what pySHACL and the fast path share."""
    return {r.key() for r in results}


def diff(fast: set, reference: set) -> str:
    """The keys only one side has, for a failure message."""
    only_fast = "\n".join(f"  fast only: {k}" for k in sorted(fast - reference))
    only_ref = "\n".join(f"  pySHACL only: {k}" for k in sorted(reference - fast))
    return f"\n{only_fast}\n{only_ref}"
