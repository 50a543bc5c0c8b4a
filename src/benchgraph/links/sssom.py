"""SSSOM mapping sets (https://mapping-commons.github.io/sssom/): the dataset's links to outside
entities as the TSV ontology curators exchange, and the files `benchgraph link` proposes and
a curator accepts.

Written and read here, not with the `sssom` package: its install pulls 75 packages (pandas,
numpy, linkml, Sphinx among them; `pip install --dry-run --report` of sssom 0.4) for what is a
YAML header in `#` lines and a TSV table, and `benchgraph serve` would carry it. The format's
rules kept here: the header holds mapping_set_id, license and curie_map; every row has
subject_id, predicate_id, object_id and mapping_justification (a semapv CURIE); identifiers
are CURIEs of the curie_map where one fits; rows are sorted, so the same links give the same
bytes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
import yaml

from ..errors import CannotRun
from ..namespaces import BASE, BG, ID, LINK_GRAPH, PREFIXES

MAPPING_SET_ID = BASE + "mappings/benchgraph.sssom.tsv"
# The links are benchgraph's own curation, under the project's licence (pyproject.toml).
LICENSE = "https://www.apache.org/licenses/LICENSE-2.0"
SEMAPV = "https://w3id.org/semapv/vocab/"
CURIE_MAP = {
    "bgid": str(ID),
    "skos": PREFIXES["skos"],
    "semapv": SEMAPV,
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "schema": PREFIXES["schema"],
}
# What a link written as a bare IRI is: a curator wrote it, without saying how it was found.
UNSPECIFIED = "semapv:UnspecifiedMatching"
MANUAL = "semapv:ManualMappingCuration"
COLUMNS = (
    "subject_id",
    "subject_label",
    "predicate_modifier",
    "predicate_id",
    "object_id",
    "object_label",
    "mapping_justification",
    "confidence",
    "author_label",
    "reviewer_label",
    "creator_label",
    "mapping_date",
    "comment",
)
REQUIRED = ("subject_id", "predicate_id", "object_id", "mapping_justification")
PREDICATES = {"skos:exactMatch": "exact", "skos:closeMatch": "close", "skos:broadMatch": "broad"}
MEDIA_TYPE = "text/tab-separated-values"


class MappingFileError(CannotRun):
    """A mapping file that cannot be read, naming the file and line."""


@dataclass
class MappingSet:
    """An SSSOM mapping set: its header and rows (each a dict of COLUMNS)."""

    rows: list[dict[str, str]] = field(default_factory=list)
    header: dict = field(default_factory=dict)
    lines: list[int] = field(default_factory=list)  # the file line of each row, when read

    def write(self) -> str:
        header = {
            "curie_map": dict(CURIE_MAP),
            "mapping_set_id": MAPPING_SET_ID,
            "license": LICENSE,
        } | self.header
        out = io.StringIO()
        for line in yaml.safe_dump(
            header, sort_keys=False, allow_unicode=True, width=1000
        ).splitlines():
            out.write(f"# {line}\n" if line else "#\n")
        used = [c for c in COLUMNS if c in REQUIRED or any(r.get(c) for r in self.rows)]
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(used)
        for row in sorted(self.rows, key=lambda r: (r["subject_id"], r["object_id"])):
            writer.writerow([_cell(row.get(c, "")) for c in used])
        return out.getvalue()


def _cell(value: object) -> str:
    # a tab or line break would end the cell or the row: the TSV has no quoting rule for them
    return " ".join(str(value).split()) if value is not None else ""


def curie(iri: str) -> str:
    """The CURIE of an IRI under CURIE_MAP, else the IRI."""
    for prefix, ns in CURIE_MAP.items():
        if iri.startswith(ns) and len(iri) > len(ns):
            return f"{prefix}:{iri[len(ns) :]}"
    return iri


def expand(value: str, curie_map: dict[str, str]) -> str:
    """The IRI of a CURIE under the file's curie_map (a full IRI stays as it is)."""
    prefix, sep, rest = value.partition(":")
    if sep and prefix in curie_map and not rest.startswith("//"):
        return curie_map[prefix] + rest
    return value


def read(path: Path) -> MappingSet:
    """A mapping set file: its `#` header (YAML) and its rows, each with its line number."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MappingFileError(f"{path}: {exc.strerror or exc}") from exc
    lines = text.splitlines()
    head = [line[1:] for line in lines if line.startswith("#")]
    try:
        header = yaml.safe_load("\n".join(h[1:] if h.startswith(" ") else h for h in head))
    except yaml.YAMLError as exc:
        raise MappingFileError(f"{path}: the # header is not YAML: {exc}") from exc
    header = header if isinstance(header, dict) else {}
    body = [
        (n, line) for n, line in enumerate(lines, 1) if not line.startswith("#") and line.strip()
    ]
    out = MappingSet(header=header)
    if not body:
        return out
    columns = body[0][1].split("\t")
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise MappingFileError(
            f"{path}:{body[0][0]}: the column(s) {', '.join(missing)} are "
            "missing (SSSOM requires them)"
        )
    for n, line in body[1:]:
        cells = next(csv.reader([line], delimiter="\t"))
        out.rows.append(dict(zip(columns, cells + [""] * (len(columns) - len(cells)))))
        out.lines.append(n)
    return out


# The dataset's links (the link graph) with what the record says of each (its bg:Mapping node,
# in the record's graph): one row per link, whichever way the record wrote it.
_LINKS = f"""
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX dct: <http://purl.org/dc/terms/>
PREFIX bg: <{BG}>
SELECT ?s ?p ?o ?label ?justification ?confidence ?curator ?date WHERE {{
  GRAPH <{LINK_GRAPH}> {{
    ?s ?p ?o FILTER(?p IN (skos:exactMatch, skos:closeMatch, skos:broadMatch))
  }}
  OPTIONAL {{ ?s rdfs:label ?label }}
  OPTIONAL {{
    ?s bg:mapping ?m . ?m bg:mappedTo ?o .
    OPTIONAL {{ ?m bg:mappingJustification ?justification }}
    OPTIONAL {{ ?m bg:mappingConfidence ?confidence }}
    OPTIONAL {{ ?m dct:creator ?curator }}
    OPTIONAL {{ ?m dct:date ?date }}
  }}
}}"""


def from_store(store: ox.Store) -> MappingSet:
    """The dataset's links as a mapping set."""
    rows: dict[tuple[str, str, str], dict[str, str]] = {}
    for r in store.query(_LINKS, use_default_graph_as_union=True):
        values = {
            k: (r[k].value if r[k] is not None else "")
            for k in ("s", "p", "o", "label", "justification", "confidence", "curator", "date")
        }
        justification = values["justification"] or (MANUAL if values["curator"] else UNSPECIFIED)
        row = {
            "subject_id": curie(values["s"]),
            "subject_label": values["label"],
            "predicate_id": curie(values["p"]),
            "object_id": curie(values["o"]),
            "mapping_justification": justification,
            "confidence": values["confidence"],
            "mapping_date": values["date"],
        }
        # who stands behind it: the one who made it by hand, or who reviewed a matcher's
        # proposal (`benchgraph link` proposes; a curator accepts)
        if values["curator"]:
            row["author_label" if justification == MANUAL else "reviewer_label"] = values["curator"]
        rows.setdefault((row["subject_id"], row["predicate_id"], row["object_id"]), row)
    return MappingSet(list(rows.values()))


def dump(store: ox.Store) -> bytes:
    """The dataset's links as SSSOM TSV bytes (export --format sssom, /dumps/)."""
    return from_store(store).write().encode()
