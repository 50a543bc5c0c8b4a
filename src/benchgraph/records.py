"""YAML record files -> Record objects, with the line of every field.

No rdflib here: this module knows the record format (the folder names the kind, `id`
equals the file stem, which keys each kind may have) and nothing about RDF. Values are
checked only for shape (a list where a list belongs); their meaning is SHACL's job.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

import yaml

from .errors import Problem

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
# Date fields: a quoted '2026-10-04' there is a date too (YAML writers quote them).
DATE_FIELD = re.compile(r"^(updated|(history|source)\.\d+\.date)$")
DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# A field's shape: "scalar", "list" (of scalars), "map" (free keys, scalar values),
# a dict (a mapping with exactly those keys), or [dict] (a list of such mappings).
SCALAR, LIST, MAP = "scalar", "list", "map"

SOURCE = {
    "publisher": SCALAR, "title": SCALAR, "url": SCALAR, "date": SCALAR,
    "repository": SCALAR, "commit": SCALAR, "path": SCALAR, "row": SCALAR,
    "round": SCALAR, "licence": SCALAR, "note": SCALAR,
}
HISTORY = {"date": SCALAR, "note": SCALAR}
COMMON = {
    "id": SCALAR, "name": SCALAR, "same_as": LIST, "notes": SCALAR, "updated": SCALAR,
    "source": [SOURCE], "history": [HISTORY],
}
MEASUREMENT = {
    "metric": SCALAR, "value": SCALAR, "min": SCALAR, "max": SCALAR, "unit": SCALAR,
    "condition": MAP, "out_of": SCALAR, "derived": SCALAR, "note": SCALAR,
}

KINDS: dict[str, dict[str, Any]] = {
    "interconnects": {
        "role": SCALAR, "vendor": SCALAR, "generation": SCALAR, "bandwidth_gb_s": SCALAR,
    },
    "accelerators": {
        "vendor": SCALAR, "memory_gb": SCALAR, "form_factor": SCALAR,
        "interconnect_ids": LIST, "family": SCALAR,
    },
    "systems": {
        "accelerators": [{"id": SCALAR, "count": SCALAR}], "nodes": SCALAR,
        "host_cpu": SCALAR, "interconnect_ids": LIST, "interconnect_raw": MAP,
        "fabric_published": SCALAR,
        "vendor": SCALAR, "submitter": SCALAR, "system_type": SCALAR,
        "availability": SCALAR, "software": SCALAR,
    },
    "metrics": {"unit": SCALAR, "direction": SCALAR, "scope": SCALAR, "description": SCALAR},
    "engines": {"vendor": SCALAR, "url": SCALAR},
    "models": {
        "vendor": SCALAR, "parameters_b": SCALAR, "active_parameters_b": SCALAR,
        "family": SCALAR,
    },
    "benchmarks": {
        "title": SCALAR, "category": SCALAR, "status": SCALAR, "confidence": SCALAR,
        "metric": SCALAR, "value": SCALAR, "unit": SCALAR, "model": SCALAR,
        "engine": SCALAR, "engine_version": SCALAR, "accelerators": LIST,
        "accelerator_count": SCALAR, "system": SCALAR, "interconnect_ids": LIST,
        "fabric_published": SCALAR,
        "parallelism": {"tensor": SCALAR, "expert": SCALAR, "pipeline": SCALAR, "data": SCALAR},
        "concurrency": SCALAR, "measured_by": SCALAR, "reproducible": SCALAR,
        "methodology": SCALAR, "measurements": [MEASUREMENT], "settings": MAP,
        "workload": {
            "input_tokens": SCALAR, "output_tokens": SCALAR, "batch_size": SCALAR,
            "dataset": SCALAR,
        },
        "omitted_by_source": LIST, "scenario": SCALAR, "division": SCALAR,
        "availability": SCALAR, "submitter": SCALAR, "benchmark": SCALAR,
        "accuracy_target": SCALAR, "software": SCALAR,
    },
}
for _kind, _fields in KINDS.items():
    _fields.update({k: v for k, v in COMMON.items() if k not in _fields})
del KINDS["benchmarks"]["name"]  # a run has a title instead

# The fields holding ids of other records, and the kind each must name.
REFERENCES: dict[str, dict[str, str]] = {
    "accelerators": {"interconnect_ids": "interconnects", "family": "accelerators"},
    "systems": {"accelerators.id": "accelerators", "interconnect_ids": "interconnects"},
    "models": {"family": "models"},
    "benchmarks": {
        "metric": "metrics", "model": "models", "engine": "engines",
        "accelerators": "accelerators", "system": "systems",
        "interconnect_ids": "interconnects", "measurements.metric": "metrics",
    },
}


def line_of(lines: dict[str, int], dotted: str) -> int:
    """The line of a dotted field, or of the nearest field above it that has one."""
    while dotted:
        if dotted in lines:
            return lines[dotted]
        dotted = dotted.rpartition(".")[0]
    return 1


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
                    yield f"{head}.{i}", str(item), kind
            elif value is not None:
                yield head, str(value), kind


def find_record_files(data_dir: Path) -> list[Path]:
    """Every YAML file below a kind folder of data_dir, in a stable order."""
    return [Path(f[0]) for f in scan_record_files(data_dir)]


BY_NAME = attrgetter("name")


def scan_record_files(data_dir: Path, prefix: str = "") -> list[tuple[str, str, int, int]]:
    """(path, prefix + path below data_dir with "/", size, modification time in ns) of every
    record file, in find_record_files' order: one pass of scandir and stat, no pathlib (a
    build lists 100k files)."""
    found: list[tuple[str, str, int, int]] = []

    def walk(folder: str, rel: str) -> None:
        try:
            with os.scandir(folder) as it:
                names = sorted(it, key=BY_NAME)
        except OSError:  # as os.walk: an unreadable or missing folder holds no records
            return
        below = []
        for d in names:
            if d.is_dir():
                if not d.is_symlink():
                    below.append(d)
            elif d.name.endswith((".yaml", ".yml")):
                st = d.stat()
                found.append((d.path, f"{rel}/{d.name}", st.st_size, st.st_mtime_ns))
        for d in below:
            walk(d.path, f"{rel}/{d.name}")

    for kind in KINDS:
        walk(os.path.join(data_dir, kind), prefix + kind)
    return found


def kind_of(path: Path, data_dir: Path) -> str:
    """The kind folder a record file sits in."""
    return path.relative_to(data_dir).parts[0]


def load_record(path: Path, data_dir: Path, display: str | None = None,
                text: str | None = None) -> tuple[Record | None, list[Problem]]:
    """Read one record file; return the record (None if unreadable) and its problems."""
    shown = display or str(path)
    kind = kind_of(path, data_dir)
    try:
        # bytes decoded: reading the file as text took 18 us a record, this 11
        text = path.read_bytes().decode("utf-8") if text is None else text
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        return None, [Problem(shown, line, "", f"is not valid YAML: {exc.problem}",
                              code="yaml-syntax")]
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return None, [Problem(shown, 1, "", f"cannot be read: {exc}", code="unreadable")]
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 1 if node is not None else 1
        return None, [Problem(shown, line, "", "must be a YAML mapping of fields",
                              code="not-a-mapping")]
    reader = _Reader(shown)
    fields = reader.mapping(node, KINDS[kind], "")
    problems = reader.problems
    record_id = fields.get("id")
    stem = path.stem
    if record_id is None:
        problems.append(Problem(shown, 1, "id", "is required and must equal the file name "
                                f"'{stem}'", code="id-missing"))
    elif str(record_id) != stem:
        problems.append(Problem(shown, reader.lines.get("id", 1), "id",
                                f"must equal the file name '{stem}'", value=str(record_id),
                                code="id-mismatch"))
    elif not ID_PATTERN.match(stem):
        problems.append(Problem(shown, reader.lines.get("id", 1), "id",
                                "must be lower-case letters, digits, '.', '_' or '-', "
                                "starting with a letter or digit", value=stem,
                                code="id-pattern"))
    record = Record(kind, stem, shown, fields, reader.lines)
    return record, problems


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, resolving each scalar's tag once per process: PyYAML's resolver
    matched about 80 scalars a record against its patterns in Python, a fifth of reading
    a record, and keys and many values repeat from record to record."""

    _tags: dict[tuple[str, tuple[bool, bool]], str] = {}

    def resolve(self, kind, value, implicit):  # type: ignore[no-untyped-def]
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = self._tags.get(key)
        if tag is None:
            if len(self._tags) > 100_000:
                self._tags.clear()
            tag = self._tags[key] = super().resolve(kind, value, implicit)
        return tag

    def descend_resolver(self, current_node, current_index):  # type: ignore[no-untyped-def]
        pass  # benchgraph adds no path resolvers: nothing to follow

    def ascend_resolver(self):  # type: ignore[no-untyped-def]
        pass


class _Reader:
    """Turns a composed YAML node into plain values, noting lines and shape problems."""

    def __init__(self, shown: str):
        self.shown = shown
        self.lines: dict[str, int] = {}
        self.problems: list[Problem] = []

    def problem(self, node: yaml.Node, dotted: str, message: str, value: str = "",
                code: str = "shape") -> None:
        self.problems.append(Problem(self.shown, node.start_mark.line + 1, dotted, message,
                                     value=value, code=code))

    def mapping(self, node: yaml.Node, spec: Any, prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            dotted = f"{prefix}{key}"
            self.lines[dotted] = key_node.start_mark.line + 1
            if key in out:
                self.problem(key_node, dotted, "appears twice", code="duplicate-key")
                continue
            if spec == MAP:
                out[key] = self.scalar(value_node, dotted)
                continue
            if key not in spec:
                allowed = ", ".join(sorted(spec))
                self.problem(key_node, dotted, f"is not a known field (known: {allowed})",
                             code="unknown-key")
                continue
            out[key] = self.value(value_node, spec[key], dotted)
        return out

    def value(self, node: yaml.Node, spec: Any, dotted: str) -> Any:
        if spec == SCALAR:
            return self.scalar(node, dotted)
        if isinstance(spec, list) and isinstance(node, yaml.MappingNode) and dotted.endswith(
            "source"
        ):
            return [self.mapping(node, spec[0], f"{dotted}.0.")]
        if spec == LIST or isinstance(spec, list):
            if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
                return []
            if not isinstance(node, yaml.SequenceNode):
                self.problem(node, dotted, "must be a list", value=_show(node))
                return []
            items = []
            for i, item in enumerate(node.value):
                here = f"{dotted}.{i}"
                self.lines[here] = item.start_mark.line + 1
                if spec == LIST:
                    items.append(self.scalar(item, here))
                elif isinstance(item, yaml.MappingNode):
                    items.append(self.mapping(item, spec[0], here + "."))
                else:
                    self.problem(item, here, "must be a mapping", value=_show(item))
            return items
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, dotted, "must be a mapping", value=_show(node))
            return {}
        return self.mapping(node, spec, dotted + ".")

    def scalar(self, node: yaml.Node, dotted: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            self.problem(node, dotted, "must be a single value", value=_show(node))
            return None
        tag = node.tag.rsplit(":", 1)[-1]
        text = node.value
        try:
            if tag == "null":
                return None
            if tag == "bool":
                return text.lower() in ("true", "yes", "on")
            if tag == "int":
                return int(text.replace("_", ""), 0) if text[:2] in ("0x", "0o") else int(
                    text.replace("_", ""))
            if tag == "float":
                return float(text.replace("_", ""))
            if tag == "timestamp" or (tag == "str" and DATE_FIELD.match(dotted)
                                      and DATE_TEXT.match(text)):
                tag = "timestamp"
                return _timestamp(text)
        except ValueError:
            self.problem(node, dotted, "is not a real date" if tag == "timestamp"
                         else f"is not a valid {tag}", value=text, code="bad-scalar")
            return text
        return text


def _timestamp(text: str) -> dt.date | dt.datetime:
    if len(text) == 10:
        return dt.date.fromisoformat(text)
    return dt.datetime.fromisoformat(text.replace("t", "T").replace(" ", "T", 1))


def _show(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return node.value
    return "a mapping" if isinstance(node, yaml.MappingNode) else "a list"
