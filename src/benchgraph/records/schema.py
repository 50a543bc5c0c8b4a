"""The record format: the kinds of record, the fields of each and what each holds, and
the links between records; `Record`, one record as read. No YAML and no rdflib here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")

# What a field holds, which says how its YAML scalar is read (_Reader.scalar):
TEXT = "text"  # the text exactly as written (`NO`, `1.10`, `0755` stay as they are)
NUMBER = "number"  # a plain decimal number, as int or float; other text is kept for the shapes
BOOL = "bool"  # true or false; yes/no/on/off/y/n are errors, other text is kept
DATE = "date"  # a date or date-time (a quoted 2026-10-04 too); other text as written
VALUE = "value"  # a number, true/false or text; a plain scalar that YAML 1.1 and 1.2 read
# differently (yes, 0755, 1_000, 12:30, 2026-01-01, ...) is an error asking to quote it
# A field's shape: one of the above, LIST (of TEXT), MAP (free keys, VALUE values), TEXT_MAP
# (free keys, TEXT values), a dict (a mapping with exactly those keys), [dict] (a list of
# such mappings), or ([dict],) (a list whose items are each TEXT or such a mapping).
LIST, MAP, TEXT_MAP = "list", "map", "text-map"
ACCELERATOR_COUNT = {"id": TEXT, "count": NUMBER}
SCALARS = (TEXT, NUMBER, BOOL, DATE, VALUE)

SOURCE = {
    "publisher": TEXT,
    "title": TEXT,
    "url": TEXT,
    "date": DATE,
    "repository": TEXT,
    "commit": TEXT,
    "path": TEXT,
    "row": TEXT,
    "round": TEXT,
    "licence": TEXT,
    "note": TEXT,
    # what the source is (SOURCE_KINDS; the older yes/no `secondary: true` reads as
    # `kind: blog`), the fact fields of the record this source states (checked against the
    # record's kind below) and those the record derives from it with others (the source
    # states something else, e.g. of the part's architecture, from which the fact follows)
    "kind": TEXT,
    "states": LIST,
    "derives": LIST,
    "secondary": BOOL,
}
# What a source may be, strongest first: the maker of the thing, a maker of systems with it,
# the site that runs the machine, a paper, the press, a reseller, a blog, a result set. The
# codes of vocab.SOURCE_KINDS, kept here as text (reading records needs no RDF).
SOURCE_KINDS = ("vendor", "oem", "operator", "paper", "press", "reseller", "blog", "result-set")
HISTORY = {"date": DATE, "note": TEXT}
# A link to an outside entity: a bare IRI (an exact match) or this mapping (SSSOM's fields).
SAME_AS = {
    "iri": TEXT,
    "match": TEXT,
    "justification": TEXT,
    "confidence": NUMBER,
    "curator": TEXT,
    "date": DATE,
    "source": TEXT,
}
COMMON = {
    "id": TEXT,
    "name": TEXT,
    "same_as": ([SAME_AS],),
    "notes": TEXT,
    "updated": DATE,
    "source": [SOURCE],
    "history": [HISTORY],
    # other names of the thing (as sources or submitters spell it: "H100-SXM5-80GB"): found
    # by /search, read as skos:altLabel
    "aliases": LIST,
}
MEASUREMENT = {
    "metric": TEXT,
    "value": NUMBER,
    "min": NUMBER,
    "max": NUMBER,
    "unit": TEXT,
    "condition": MAP,
    "out_of": NUMBER,
    "derived": BOOL,
    "note": TEXT,
}

KINDS: dict[str, dict[str, Any]] = {
    "interconnects": {
        "role": TEXT,
        "vendor": TEXT,
        "generation": TEXT,
        "bandwidth_gb_s": NUMBER,
    },
    "accelerators": {
        "vendor": TEXT,
        "chip_vendor": TEXT,
        "memory_gb": NUMBER,
        "form_factor": TEXT,
        "interconnect_ids": LIST,
        "family": TEXT,
        "architecture": TEXT,
        "memory_type": TEXT,
        "counted_as": TEXT,
        "dies": NUMBER,
        "host_interface": TEXT,
        "host_lanes": NUMBER,
        "tdp_w": NUMBER,
        # ISO 8601 as precise as the source: "2023", "2023-10" or "2023-10-12" (text, so
        # that a plain 2023 keeps its precision)
        "released": TEXT,
        "fabric": TEXT,
        "fabric_interconnect": TEXT,
        "fabric_bandwidth_gb_s": NUMBER,
    },
    "vendors": {},
    "systems": {
        "accelerators": [{"id": TEXT, "count": NUMBER}],
        "nodes": NUMBER,
        "host_cpu": TEXT,
        "interconnect_ids": LIST,
        "interconnect_raw": TEXT_MAP,
        "fabric_published": BOOL,
        "vendor": TEXT,
        "submitter": TEXT,
        "system_type": TEXT,
        "availability": TEXT,
        "software": TEXT,
    },
    "metrics": {"unit": TEXT, "direction": TEXT, "scope": TEXT, "description": TEXT},
    "engines": {"vendor": TEXT, "url": TEXT},
    "models": {
        "vendor": TEXT,
        "parameters_b": NUMBER,
        "active_parameters_b": NUMBER,
        "family": TEXT,
    },
    "benchmarks": {
        "title": TEXT,
        "category": TEXT,
        "status": TEXT,
        "confidence": NUMBER,
        "metric": TEXT,
        "value": NUMBER,
        "unit": TEXT,
        "model": TEXT,
        "engine": TEXT,
        "engine_version": TEXT,
        # plain ids with accelerator_count (the seed), or {id, count}: the run's total of
        # each kind, which a run on several kinds needs (check_run_accelerators)
        "accelerators": ([ACCELERATOR_COUNT],),
        "accelerator_count": NUMBER,
        "system": TEXT,
        "interconnect_ids": LIST,
        "fabric_published": BOOL,
        "parallelism": {
            "tensor": NUMBER,
            "expert": NUMBER,
            "pipeline": NUMBER,
            "data": NUMBER,
            "attention_data": NUMBER,
        },
        "concurrency": NUMBER,
        "measured_by": TEXT,
        "reproducible": BOOL,
        "methodology": TEXT,
        "measurements": [MEASUREMENT],
        "settings": MAP,
        "workload": {
            "input_tokens": NUMBER,
            "output_tokens": NUMBER,
            "batch_size": NUMBER,
            "dataset": TEXT,
        },
        "omitted_by_source": LIST,
        "scenario": TEXT,
        "division": TEXT,
        "availability": TEXT,
        "submitter": TEXT,
        "benchmark": TEXT,
        # "as the source states it": MLPerf's 99 and 99.9 are numbers, "99%" is text
        "accuracy_target": VALUE,
        "software": TEXT,
    },
}
for _kind, _fields in KINDS.items():
    _fields.update({k: v for k, v in COMMON.items() if k not in _fields})
del KINDS["benchmarks"]["name"]  # a run has a title instead

# The facts of an accelerator record that a source must state (catalogue format): each one a
# record gives should be in the `states` of one of its sources (a warning otherwise). The
# vendor fields are links to vendor records, which carry their own sources.
FACT_FIELDS: dict[str, tuple[str, ...]] = {
    "accelerators": (
        "architecture",
        "memory_gb",
        "memory_type",
        "form_factor",
        "counted_as",
        "dies",
        "host_interface",
        "host_lanes",
        "tdp_w",
        "released",
        "fabric",
        "fabric_interconnect",
        "fabric_bandwidth_gb_s",
    ),
}
# What a source's `states` may name: the record's own fields, but its bookkeeping.
NOT_STATED = {"id", "source", "history", "updated", "notes", "same_as", "aliases"}

# The fields holding ids of other records, and the kind each must name.
REFERENCES: dict[str, dict[str, str]] = {
    "accelerators": {
        "interconnect_ids": "interconnects",
        "family": "accelerators",
        "host_interface": "interconnects",
        "fabric_interconnect": "interconnects",
    },
    "systems": {"accelerators.id": "accelerators", "interconnect_ids": "interconnects"},
    "models": {"family": "models"},
    "benchmarks": {
        "metric": "metrics",
        "model": "models",
        "engine": "engines",
        "accelerators": "accelerators",
        "system": "systems",
        "interconnect_ids": "interconnects",
        "measurements.metric": "metrics",
    },
}


# Reference fields that may instead hold a code naming no record: `host_interface: on-chip`
# for a GPU on its host CPU's own chip or module, where no interconnect joins the two. The
# codes are those of vocab.HOST_INTERFACE_CODES, kept here as text so that reading records
# needs no RDF (a test checks that the two agree).
CODES: dict[tuple[str, str], frozenset[str]] = {
    ("accelerators", "host_interface"): frozenset({"on-chip"}),
}


# Links to vendor records that may also be a plain name: `vendor: nvidia` names
# data/vendors/nvidia.yaml when it exists; a vendor naming no record stays valid as the
# name it is (an info message says so), and one that is not id-shaped (`NVIDIA`) is a name.
SOFT_REFERENCES: dict[str, dict[str, str]] = {
    kind: {f: "vendors" for f in ("vendor", "chip_vendor") if f in KINDS[kind]} for kind in KINDS
}


def vendor_id(value: Any) -> str | None:
    """The vendor record id a `vendor:` value may name: the value when it is id-shaped."""
    return value if isinstance(value, str) and ID_PATTERN.match(value) else None


def line_of(lines: dict[str, int], dotted: str) -> int:
    """The line of a dotted field, or of the nearest field above it that has one."""
    while dotted:
        if dotted in lines:
            return lines[dotted]
        dotted = dotted.rpartition(".")[0]
    return 1


def shortened(text: str) -> str:
    """A value as a message shows it: a long one cut in the middle."""
    if len(text) <= 200:
        return text
    return f"{text[:100]}...{text[-40:]} ({len(text):,} characters)"


@dataclass
class Record:
    """One record file: its kind (the folder), id, fields and the line of each field."""

    kind: str
    id: str
    path: str
    fields: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)

    def line(self, dotted: str) -> int:
        """The line of a field such as `parallelism.tensor` or `measurements.1.value`."""
        return line_of(self.lines, dotted)

    def references(self) -> Iterator[tuple[str, str, str]]:
        """(dotted field, id, kind it must name) for every link to another record."""
        for spec, kind in REFERENCES.get(self.kind, {}).items():
            head, _, tail = spec.partition(".")
            value = self.fields.get(head)
            if tail:
                for i, item in enumerate(value or []):
                    if isinstance(item, dict) and item.get(tail) is not None:
                        yield f"{head}.{i}.{tail}", str(item[tail]), kind
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, dict):  # a run's {id, count}
                        if item.get("id") is not None:
                            yield f"{head}.{i}.id", str(item["id"]), kind
                    else:
                        yield f"{head}.{i}", str(item), kind
            elif value is not None and value not in CODES.get((self.kind, head), ()):
                yield head, str(value), kind
        for head, kind in SOFT_REFERENCES.get(self.kind, {}).items():
            target = vendor_id(self.fields.get(head))
            if target is not None:
                yield head, target, kind
