"""YAML record files -> Record objects, with the line of every field.

No rdflib here: this module knows the record format (the folder names the kind, `id`
equals the file stem, which keys each kind may have, what kind of value each field holds)
and nothing about RDF. Each scalar is read by its field's kind, not by what YAML's implicit
typing makes of it: YAML 1.1 reads `NO` as false, `1.10` as 1.1 and `0755` as 493, and
YAML 1.2 reads some of them otherwise, so a text field keeps its text as written and a
spelling the two read differently is an error where it matters. Values are otherwise
checked only for shape (a list where a list belongs); their meaning is SHACL's job.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from operator import attrgetter
from pathlib import Path
from typing import Any

import yaml

from .errors import INFO, VIOLATION, WARNING, CannotRun, Problem

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
    "publisher": TEXT, "title": TEXT, "url": TEXT, "date": DATE,
    "repository": TEXT, "commit": TEXT, "path": TEXT, "row": TEXT,
    "round": TEXT, "licence": TEXT, "note": TEXT,
    # what the source is (SOURCE_KINDS; the older yes/no `secondary: true` reads as
    # `kind: blog`), the fact fields of the record this source states (checked against the
    # record's kind below) and those the record derives from it with others (the source
    # states something else, e.g. of the part's architecture, from which the fact follows)
    "kind": TEXT, "states": LIST, "derives": LIST, "secondary": BOOL,
}
# What a source may be, strongest first: the maker of the thing, a maker of systems with it,
# the site that runs the machine, a paper, the press, a reseller, a blog, a result set. The
# codes of vocab.SOURCE_KINDS, kept here as text (reading records needs no RDF).
SOURCE_KINDS = ("vendor", "oem", "operator", "paper", "press", "reseller", "blog", "result-set")
HISTORY = {"date": DATE, "note": TEXT}
# A link to an outside entity: a bare IRI (an exact match) or this mapping (SSSOM's fields).
SAME_AS = {
    "iri": TEXT, "match": TEXT, "justification": TEXT, "confidence": NUMBER,
    "curator": TEXT, "date": DATE, "source": TEXT,
}
COMMON = {
    "id": TEXT, "name": TEXT, "same_as": ([SAME_AS],), "notes": TEXT, "updated": DATE,
    "source": [SOURCE], "history": [HISTORY],
}
MEASUREMENT = {
    "metric": TEXT, "value": NUMBER, "min": NUMBER, "max": NUMBER, "unit": TEXT,
    "condition": MAP, "out_of": NUMBER, "derived": BOOL, "note": TEXT,
}

KINDS: dict[str, dict[str, Any]] = {
    "interconnects": {
        "role": TEXT, "vendor": TEXT, "generation": TEXT, "bandwidth_gb_s": NUMBER,
    },
    "accelerators": {
        "vendor": TEXT, "chip_vendor": TEXT, "memory_gb": NUMBER, "form_factor": TEXT,
        "interconnect_ids": LIST, "family": TEXT,
        "architecture": TEXT, "memory_type": TEXT, "counted_as": TEXT, "dies": NUMBER,
        "host_interface": TEXT, "host_lanes": NUMBER, "tdp_w": NUMBER,
        # ISO 8601 as precise as the source: "2023", "2023-10" or "2023-10-12" (text, so
        # that a plain 2023 keeps its precision)
        "released": TEXT,
        "fabric": TEXT, "fabric_interconnect": TEXT, "fabric_bandwidth_gb_s": NUMBER,
    },
    "vendors": {},
    "systems": {
        "accelerators": [{"id": TEXT, "count": NUMBER}], "nodes": NUMBER,
        "host_cpu": TEXT, "interconnect_ids": LIST, "interconnect_raw": TEXT_MAP,
        "fabric_published": BOOL,
        "vendor": TEXT, "submitter": TEXT, "system_type": TEXT,
        "availability": TEXT, "software": TEXT,
    },
    "metrics": {"unit": TEXT, "direction": TEXT, "scope": TEXT, "description": TEXT},
    "engines": {"vendor": TEXT, "url": TEXT},
    "models": {
        "vendor": TEXT, "parameters_b": NUMBER, "active_parameters_b": NUMBER,
        "family": TEXT,
    },
    "benchmarks": {
        "title": TEXT, "category": TEXT, "status": TEXT, "confidence": NUMBER,
        "metric": TEXT, "value": NUMBER, "unit": TEXT, "model": TEXT,
        "engine": TEXT, "engine_version": TEXT,
        # plain ids with accelerator_count (the seed), or {id, count}: the run's total of
        # each kind, which a run on several kinds needs (check_run_accelerators)
        "accelerators": ([ACCELERATOR_COUNT],),
        "accelerator_count": NUMBER, "system": TEXT, "interconnect_ids": LIST,
        "fabric_published": BOOL,
        "parallelism": {"tensor": NUMBER, "expert": NUMBER, "pipeline": NUMBER,
                        "data": NUMBER},
        "concurrency": NUMBER, "measured_by": TEXT, "reproducible": BOOL,
        "methodology": TEXT, "measurements": [MEASUREMENT], "settings": MAP,
        "workload": {
            "input_tokens": NUMBER, "output_tokens": NUMBER, "batch_size": NUMBER,
            "dataset": TEXT,
        },
        "omitted_by_source": LIST, "scenario": TEXT, "division": TEXT,
        "availability": TEXT, "submitter": TEXT, "benchmark": TEXT,
        # "as the source states it": MLPerf's 99 and 99.9 are numbers, "99%" is text
        "accuracy_target": VALUE, "software": TEXT,
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
        "architecture", "memory_gb", "memory_type", "form_factor", "counted_as", "dies",
        "host_interface", "host_lanes", "tdp_w", "released", "fabric",
        "fabric_interconnect", "fabric_bandwidth_gb_s",
    ),
}
# What a source's `states` may name: the record's own fields, but its bookkeeping.
NOT_STATED = {"id", "source", "history", "updated", "notes", "same_as"}

# The fields holding ids of other records, and the kind each must name.
REFERENCES: dict[str, dict[str, str]] = {
    "accelerators": {"interconnect_ids": "interconnects", "family": "accelerators",
                     "host_interface": "interconnects", "fabric_interconnect": "interconnects"},
    "systems": {"accelerators.id": "accelerators", "interconnect_ids": "interconnects"},
    "models": {"family": "models"},
    "benchmarks": {
        "metric": "metrics", "model": "models", "engine": "engines",
        "accelerators": "accelerators", "system": "systems",
        "interconnect_ids": "interconnects", "measurements.metric": "metrics",
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
    kind: {f: "vendors" for f in ("vendor", "chip_vendor") if f in KINDS[kind]}
    for kind in KINDS
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

    def is_soft(self, dotted: str) -> bool:
        """Whether a reference may name no record (a vendor given as a plain name)."""
        return dotted in SOFT_REFERENCES.get(self.kind, {})


def find_record_files(data_dir: Path) -> list[Path]:
    """Every YAML file below a kind folder of data_dir, in a stable order."""
    return [Path(f[0]) for f in scan_record_files(data_dir)]


BY_NAME = attrgetter("name")


def scan_record_files(data_dir: Path, prefix: str = "") -> list[tuple[str, str, int, int]]:
    """(path, prefix + path below data_dir with "/", size, modification time in ns) of every
    record file, in find_record_files' order: one pass of scandir and stat, no pathlib (a
    build lists 100k files).

    A symlink to a folder is walked as the folder, each real folder once (a link to a folder
    above it would loop). Any other name ending in .yaml is listed, whatever it is: a FIFO, a
    device or a dangling symlink is that file's problem when it is read (read_record_bytes),
    never a reason to stop listing; its size and time are those of the link when its target
    cannot be stat-ed."""
    found: list[tuple[str, str, int, int]] = []
    seen: set[tuple[int, int]] = set()

    def walk(folder: str, rel: str) -> None:
        try:
            st = os.stat(folder)
            with os.scandir(folder) as it:
                names = sorted(it, key=BY_NAME)
        except OSError:  # as os.walk: an unreadable or missing folder holds no records
            return
        if (st.st_dev, st.st_ino) in seen:
            return
        seen.add((st.st_dev, st.st_ino))
        below = []
        for d in names:
            try:
                is_dir = d.is_dir()  # through a symlink too
            except OSError:
                is_dir = False
            if is_dir:
                below.append(d)
            elif d.name.endswith((".yaml", ".yml")):
                try:
                    st = d.stat()
                except OSError:  # a dangling symlink, or one that loops
                    st = d.stat(follow_symlinks=False)
                found.append((d.path, f"{rel}/{d.name}", st.st_size, st.st_mtime_ns))
        for d in below:
            walk(d.path, f"{rel}/{d.name}")

    for kind in KINDS:
        walk(os.path.join(data_dir, kind), prefix + kind)
    return found


def kind_of(path: Path, data_dir: Path) -> str:
    """The kind folder a record file sits in."""
    return path.relative_to(data_dir).parts[0]


# --- reading a record file: only regular files, and no bigger than the limit --------------

MAX_RECORD_BYTES = 8 * 1024 * 1024  # the default; the largest shipped record is under 40 KB
LIMIT_VARIABLE = "BENCHGRAPH_MAX_RECORD_BYTES"
_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3}


def max_record_bytes() -> int:
    """The size limit of one record file: $BENCHGRAPH_MAX_RECORD_BYTES (bytes, or a number
    with KiB, MiB or GiB), 8 MiB by default. A file over it is that record's problem: a
    huge file took the whole build's memory (a symlink to /dev/zero: a MemoryError)."""
    raw = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not raw:
        return MAX_RECORD_BYTES
    m = re.fullmatch(r"([0-9]+)\s*([a-z]*)", raw.lower())
    if not m or m[2] not in _UNITS or int(m[1]) == 0:
        raise CannotRun(f"{LIMIT_VARIABLE}={raw!r}: give the largest record file to read, in "
                        "bytes or with KiB, MiB or GiB, e.g. 8MiB")
    return int(m[1]) * _UNITS[m[2]]


def size_text(n: int) -> str:
    """A size as a person reads it: 17,000,000 bytes (16.2 MiB)."""
    if n < 1024:
        return f"{n:,} bytes"
    for unit, size in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if n >= size:
            amount = f"{n / size:.1f}".removesuffix(".0")
            return f"{n:,} bytes ({amount} {unit})"
    raise AssertionError(n)


class RecordFileError(Exception):
    """A record file that is not read: not a regular file, too big, or not there."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message, self.code = message, code


_FILE_TYPES = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISDIR, "a folder"))


def _not_regular(mode: int) -> RecordFileError:
    what = next((name for test, name in _FILE_TYPES if test(mode)), "not a file")
    return RecordFileError(f"is not a regular file ({what}): only regular files, or symlinks "
                           "to one, are read as records", "not-a-file")


def _too_big(size: int, limit: int, more: bool = False) -> RecordFileError:
    return RecordFileError(
        f"is {'over ' if more else ''}{size_text(size)}, over the limit of {size_text(limit)}"
        f" for one record file (${LIMIT_VARIABLE}): shorten or split it, or raise the limit",
        "file-too-large")


def read_record_bytes(path: str, limit: int | None = None) -> bytes:
    """The bytes of a record file, or RecordFileError. Only a regular file (or a symlink to
    one) is opened: a FIFO blocked every command reading it, /dev/zero never ended. The file
    is checked again once open, and read to the limit and no further, as it may change."""
    limit = max_record_bytes() if limit is None else limit
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _unopened(path, exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(st.st_mode)
    if st.st_size > limit:
        raise _too_big(st.st_size, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _unopened(path, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced between the stat and the open
            raise _not_regular(st.st_mode)
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(limit + 1 - got, 1 << 20) or 1)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise _too_big(limit, limit, more=True)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _unopened(path: str, exc: OSError) -> RecordFileError:
    if os.path.islink(path):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        if isinstance(exc, FileNotFoundError):
            return RecordFileError(f"is a symlink to {target}, which does not exist",
                                   "unreadable")
        if exc.errno == 40:  # ELOOP
            return RecordFileError(f"is a symlink that loops ({target})", "unreadable")
    return RecordFileError(f"cannot be read: {exc.strerror or exc}", "unreadable")


def load_record(path: Path, data_dir: Path, display: str | None = None,
                text: str | None = None, limit: int | None = None
                ) -> tuple[Record | None, list[Problem]]:
    """Read one record file; return the record (None if unreadable) and its problems.
    `text`: the file's text, not read from disk; `limit`: max_record_bytes() by default."""
    shown = display or str(path)
    kind = kind_of(path, data_dir)
    try:
        # bytes decoded: reading the file as text took 18 us a record, this 11
        text = read_record_bytes(str(path), limit).decode("utf-8") if text is None else text
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except RecordFileError as exc:
        return None, [Problem(shown, 1, "", exc.message, code=exc.code)]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        return None, [Problem(shown, line, "", f"is not valid YAML: {exc.problem}",
                              code="yaml-syntax")]
    except UnicodeDecodeError as exc:
        return None, [Problem(shown, 1, "", f"is not UTF-8 text (byte {exc.start:,}): save it "
                              "as UTF-8", code="unreadable")]
    except (OSError, yaml.YAMLError, RecursionError) as exc:
        return None, [Problem(shown, 1, "", f"cannot be read: {exc}", code="unreadable")]
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 1 if node is not None else 1
        return None, [Problem(shown, line, "", "must be a YAML mapping of fields",
                              code="not-a-mapping")]
    reader = _Reader(shown)
    fields = reader.mapping(node, KINDS[kind], "")
    problems = reader.problems
    if any(p.code == "alias" for p in problems):
        problems = _at_the_alias(text, problems)
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
    problems += _stated_fields(kind, fields, reader.lines, shown)
    problems += _source_kinds(fields, reader.lines, shown)
    problems += _aggregated_facts(fields, reader.lines, shown)
    if kind == "benchmarks":
        problems += check_run_accelerators(fields, reader.lines, shown)
    record = Record(kind, stem, shown, fields, reader.lines)
    return record, problems


def check_run_accelerators(fields: dict[str, Any], lines: dict[str, int],
                           shown: str) -> list[Problem]:
    """A run's `accelerators` in one form: plain ids (with accelerator_count, as the seed),
    or an {id, count} mapping for each kind, the run's total of it across nodes, whose sum
    accelerator_count, where given, equals. A run on several kinds without a count of each
    is a warning: a figure per accelerator cannot be told apart by kind."""
    items = fields.get("accelerators")
    if not isinstance(items, list) or not items:
        return []
    problems: list[Problem] = []

    def bad(dotted: str, message: str, value: Any = "", code: str = "accelerators",
            severity: str = VIOLATION) -> None:
        problems.append(Problem(shown, line_of(lines, dotted), dotted, message,
                                value="" if value is None else _shortened(str(value)),
                                code=code, severity=severity))

    mappings = [i for i, item in enumerate(items) if isinstance(item, dict)]
    plain = [i for i, item in enumerate(items) if not isinstance(item, dict)]
    if mappings and plain:
        for i in plain:
            bad(f"accelerators.{i}", "is a plain id in a list of {id, count} mappings: give "
                "every entry as a mapping (id: and count:, the run's total of that kind)",
                items[i])
        return problems
    seen: dict[str, int] = {}
    for i, (ident, _) in enumerate((str(x.get("id")) if isinstance(x, dict) else str(x), 0)
                                   for x in items):
        if ident in seen and ident != "None":
            bad(f"accelerators.{i}" + (".id" if mappings else ""),
                f"is listed twice (also as entry {seen[ident] + 1}): list each kind once"
                + (" with its total count" if mappings else ""), ident)
        seen.setdefault(ident, i)
    if plain:
        if len(seen) > 1:
            bad("accelerators", f"lists {len(seen)} kinds of accelerator without a count of "
                "each: give each as {id, count} (the run's total of that kind), so a figure "
                "per accelerator is never read as any one kind's", ", ".join(seen),
                severity=WARNING)
        return problems
    total = 0
    for i in mappings:
        item = items[i]
        if item.get("id") is None:
            bad(f"accelerators.{i}", "has no id: name the accelerator record (id: ...)")
        count = item.get("count")
        if count is None:
            bad(f"accelerators.{i}", "has no count: give the run's total of this kind across "
                "its nodes (count: ...), or list plain ids with accelerator_count")
        elif isinstance(count, bool) or not isinstance(count, int) or count < 1:
            bad(f"accelerators.{i}.count", "must be a whole number above 0: the run's total "
                "of this kind across its nodes", count)
        else:
            total += count
    stated = fields.get("accelerator_count")
    counted = all(isinstance(items[i].get("count"), int) and items[i]["count"] > 0
                  for i in mappings)
    if counted and isinstance(stated, int) and not isinstance(stated, bool) \
            and stated != total:
        parts = " + ".join(f"{items[i]['count']} {items[i].get('id')}" for i in mappings)
        bad("accelerator_count", f"is not the sum of the accelerators' counts, {total} "
            f"({parts}): make them agree, or leave accelerator_count out", stated,
            code="accelerator-count-mismatch")
    return problems


def _stated_fields(kind: str, fields: dict[str, Any], lines: dict[str, int],
                   shown: str) -> list[Problem]:
    """A source's `states` and `derives` name fields of the record's kind (an error
    otherwise)."""
    known = sorted(set(KINDS[kind]) - NOT_STATED)
    out = []
    for i, src in enumerate(fields.get("source") or []):
        if not isinstance(src, dict):
            continue
        for listed in ("states", "derives"):
            for j, name in enumerate(src.get(listed) or []):
                if name not in known:
                    dotted = f"source.{i}.{listed}.{j}"
                    out.append(Problem(shown, line_of(lines, dotted), dotted,
                                       f"names no field of {kind} records (fields: "
                                       f"{', '.join(known)})", value=str(name),
                                       code="unknown-stated-field"))
    return out


def _source_kinds(fields: dict[str, Any], lines: dict[str, int], shown: str) -> list[Problem]:
    """The older `secondary:` of a source, read as its kind: `secondary: true` (not the
    vendor's own page) as `kind: blog`, the weakest page, with an info message asking for the
    source's own kind; `secondary:` beside a `kind:` is left for the kind. (A kind that is no
    kind of source is SHACL's to report, as every controlled value.)"""
    out = []
    for i, src in enumerate(fields.get("source") or []):
        if not isinstance(src, dict) or "secondary" not in src:
            continue
        secondary = src.pop("secondary")
        dotted = f"source.{i}.secondary"
        if src.get("kind") is not None:
            message = ("is the older form of kind:, which this source gives: the kind is "
                       "read and secondary left out; remove it")
        elif secondary is True:
            src["kind"] = "blog"
            message = ("is the older form of kind: and reads as kind: blog, the weakest page; "
                       f"give the source's own kind ({', '.join(SOURCE_KINDS)})")
        else:
            message = ("is the older form of kind: and says only that this is no secondary "
                       f"page: give the source's kind ({', '.join(SOURCE_KINDS)})")
        out.append(Problem(shown, line_of(lines, dotted), dotted, message,
                           value=str(secondary).lower(), code="secondary", severity=INFO))
    return out


def aggregator_hosts() -> frozenset[str]:
    """The hosts of spec aggregators and content sites, which are no source of a fact
    (resources/validation/aggregator-hosts.txt: one host a line, # comments)."""
    return _aggregator_hosts(str(resources.files("benchgraph").joinpath(
        "resources", "validation", "aggregator-hosts.txt")))


_HOSTS: dict[str, frozenset[str]] = {}


def _aggregator_hosts(path: str) -> frozenset[str]:
    if path not in _HOSTS:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:  # the install itself is broken
            raise CannotRun(f"{path}: the list of aggregator hosts cannot be read: {exc}") from exc
        _HOSTS[path] = frozenset(line.split("#", 1)[0].strip().lower()
                                 for line in text.splitlines() if line.split("#", 1)[0].strip())
    return _HOSTS[path]


HOST = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#:@]+@)?([^/?#:]+)", re.IGNORECASE)


def source_host(url: Any) -> str | None:
    """The host of a source's address, lower-cased (None for no address)."""
    m = HOST.match(url) if isinstance(url, str) else None
    return m.group(2).lower().rstrip(".") if m else None


def on_aggregator(url: Any, hosts: frozenset[str]) -> str | None:
    """The listed host a source's address is on (the host or a domain above it), else None."""
    host = source_host(url)
    while host:
        if host in hosts:
            return host
        host = host.partition(".")[2] if "." in host else ""
    return None


def _aggregated_facts(fields: dict[str, Any], lines: dict[str, int], shown: str
                      ) -> list[Problem]:
    """A warning for each fact the record gives whose only sources, of those that state or
    derive it, are on spec aggregators or content sites: such a page is no source."""
    hosts = aggregator_hosts()
    naming: dict[str, list[dict]] = {}
    for src in fields.get("source") or []:
        if isinstance(src, dict):
            for listed in ("states", "derives"):
                for name in src.get(listed) or []:
                    if isinstance(name, str) and fields.get(name) is not None:
                        naming.setdefault(name, []).append(src)
    out = []
    for name, sources in naming.items():
        found = [on_aggregator(src.get("url"), hosts) for src in sources]
        if all(found):
            out.append(Problem(
                shown, line_of(lines, name), name,
                f"rests only on {', '.join(sorted(set(found)))}, a spec aggregator or content "
                "site, which is no source: cite the vendor's, an OEM's, an operator's page, a "
                "reseller's table, the press or a paper, or remove the fact",
                value=_shortened(str(fields[name])), code="aggregator-only", severity=WARNING))
    return out


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, resolving each scalar's tag once per process: PyYAML's resolver
    matched about 80 scalars a record against its patterns in Python, a fifth of reading
    a record, and keys and many values repeat from record to record. The tag is YAML 1.1's
    reading of a plain scalar, which _Reader compares with YAML 1.2's where it matters."""

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


# --- reading a scalar by what its field holds ---------------------------------------------

Y = "tag:yaml.org,2002:"
NULL_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, STR_TAG, TIMESTAMP_TAG = (
    Y + t for t in ("null", "bool", "int", "float", "str", "timestamp"))
TRUE, FALSE = ("true", "True", "TRUE"), ("false", "False", "FALSE")  # 1.1 and 1.2 alike
# YAML 1.1's other booleans (its spec has y and n too, though PyYAML leaves them text)
BOOL_WORDS = {**dict.fromkeys(("yes", "Yes", "YES", "on", "On", "ON", "y", "Y"), True),
              **dict.fromkeys(("no", "No", "NO", "off", "Off", "OFF", "n", "N"), False)}
PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
PLAIN_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
LEADING_ZERO = re.compile(r"[-+]?0[0-9]+\Z")
DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# YAML 1.2's core schema, which the 1.1 reading (the resolved tag) is compared with
CORE_12 = ((NULL_TAG, re.compile(r"(?:~|null|Null|NULL|)\Z")),
           (BOOL_TAG, re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")),
           (INT_TAG, re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")),
           (FLOAT_TAG, re.compile(r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")))
CORE_12_START = frozenset("0123456789+-.~nNtTfF")


def core_12_tag(text: str) -> str:
    """The tag YAML 1.2's core schema gives a plain scalar."""
    if text and text[0] not in CORE_12_START:
        return STR_TAG
    return next((tag for tag, pattern in CORE_12 if pattern.match(text)), STR_TAG)


def _reading_11(text: str) -> str:
    """What YAML 1.1 (PyYAML) makes of a plain scalar, for a message (only on errors)."""
    try:
        return _said(yaml.safe_load(text), text)
    except (yaml.YAMLError, ValueError, OverflowError):
        return "an error"


def _reading_12(text: str) -> str:
    """What YAML 1.2's core schema makes of a plain scalar, for a message."""
    tag = core_12_tag(text)
    try:
        if tag == INT_TAG:
            return _said(int(text, 0) if text[:2] in ("0o", "0x") else int(text), text)
        if tag == FLOAT_TAG:
            return _said(float(text.lower().replace(".inf", "inf").replace(".nan", "nan")),
                         text)
    except ValueError:  # over Python's 4,300 digits
        return "a number"
    return {NULL_TAG: "nothing (null)", BOOL_TAG: text.lower()}.get(tag, "text")


def _said(value: Any, text: str) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return _shortened(repr(value)) if not math.isnan(value) else "not-a-number"
    if isinstance(value, (dt.date, dt.datetime)):
        return f"the date {value.isoformat()}"
    return "text"


class _Reader:
    """Turns a composed YAML node into plain values, noting lines and shape problems."""

    def __init__(self, shown: str):
        self.shown = shown
        self.lines: dict[str, int] = {}
        self.problems: list[Problem] = []
        self.seen: set[int] = set()  # the mappings and lists read, to refuse aliases of them

    def problem(self, node: yaml.Node, dotted: str, message: str, value: str = "",
                code: str = "shape") -> None:
        self.problems.append(Problem(self.shown, node.start_mark.line + 1, dotted, message,
                                     value=_shortened(value), code=code))

    def first_time(self, node: yaml.Node, dotted: str) -> bool:
        """False for a mapping or list met before: a YAML alias (*name) of it. Refused, as
        aliases of aliases grow without bound (and one may contain itself)."""
        if id(node) not in self.seen:
            self.seen.add(id(node))
            return True
        self.problem(node, dotted, "repeats another part of the file through a YAML alias "
                     "(*name): write it out in full", code="alias")
        return False

    def mapping(self, node: yaml.Node, spec: Any, prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if not self.first_time(node, prefix.rstrip(".")):
            return out
        free = spec in (MAP, TEXT_MAP)
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.problem(key_node, prefix.rstrip("."), "has a key that is not a name",
                             value=_show(key_node), code="shape")
                continue
            key = key_node.value  # a key is a name, whatever YAML would type it as
            dotted = f"{prefix}{key}"
            self.lines[dotted] = key_node.start_mark.line + 1
            if key in out:
                self.problem(key_node, dotted, "appears twice", code="duplicate-key")
                continue
            if free:
                out[key] = self.scalar(value_node, VALUE if spec == MAP else TEXT, dotted)
                continue
            if key not in spec:
                allowed = ", ".join(sorted(spec))
                self.problem(key_node, dotted, f"is not a known field (known: {allowed})",
                             code="unknown-key")
                continue
            out[key] = self.value(value_node, spec[key], dotted)
        return out

    def value(self, node: yaml.Node, spec: Any, dotted: str) -> Any:
        if spec in SCALARS:
            return self.scalar(node, spec, dotted)
        if isinstance(spec, list) and isinstance(node, yaml.MappingNode) and dotted.endswith(
            "source"
        ):
            return [self.mapping(node, spec[0], f"{dotted}.0.")]
        if spec == LIST or isinstance(spec, (list, tuple)):
            # items: texts (LIST), mappings of spec[0]'s keys ([dict]), or either, each a text
            # or a mapping of spec[0][0]'s keys ((dict,): `same_as`, an IRI or a link)
            keys = spec[0][0] if isinstance(spec, tuple) else (
                spec[0] if isinstance(spec, list) else None)
            texts = not isinstance(spec, list)
            items: list = []
            for i, item in enumerate(self.sequence(node, dotted)):
                here = f"{dotted}.{i}"
                self.lines[here] = item.start_mark.line + 1
                if keys is not None and isinstance(item, yaml.MappingNode):
                    if id(item) in self.seen:  # an alias: not an item
                        self.first_time(item, here)
                        continue
                    items.append(self.mapping(item, keys, here + "."))
                elif texts:
                    items.append(self.scalar(item, TEXT, here))
                else:
                    self.problem(item, here, "must be a mapping", value=_show(item))
            return items
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, dotted, "must be a mapping", value=_show(node))
            return {}
        return self.mapping(node, spec, dotted + ".")

    def sequence(self, node: yaml.Node, dotted: str) -> list[yaml.Node]:
        """The items of a list field: none for an empty value, and none (with the problem
        reported) for a value that is no list or an alias of one read before."""
        if isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG:
            return []
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, dotted, "must be a list", value=_show(node))
            return []
        if not self.first_time(node, dotted):
            return []
        return node.value

    def scalar(self, node: yaml.Node, kind: str, dotted: str) -> Any:
        """The value of a scalar in a field of this kind (TEXT, NUMBER, ...)."""
        if not isinstance(node, yaml.ScalarNode):
            self.problem(node, dotted, "must be a single value", value=_show(node))
            return None
        text, tag = node.value, node.tag
        if node.style:  # quoted, or a block scalar (plain: None, or "" from libyaml): text
            if kind == DATE and DATE_TEXT.match(text):
                return self.date(node, dotted)
            return text
        if tag == NULL_TAG:
            return None
        if kind == TEXT:
            return text
        if kind == NUMBER:
            return self.number(node, dotted)
        if kind == BOOL:
            if text in TRUE or text in FALSE:
                return text in TRUE
            if text in BOOL_WORDS:
                self.problem(node, dotted, f"is read as {str(BOOL_WORDS[text]).lower()} by "
                             "YAML 1.1 and as text by YAML 1.2: write true or false",
                             value=text, code="not-true-or-false")
            return text
        if kind == DATE:
            return self.date(node, dotted) if tag == TIMESTAMP_TAG else text
        return self.free(node, dotted)

    def number(self, node: yaml.ScalarNode, dotted: str) -> Any:
        """A plain decimal number as int or float. A spelling of a number that is not plain
        decimal (0755, 1_000, 0x10, 12:30, .inf) is an error; other text is kept, for the
        shapes to report ("must be a number")."""
        text = node.value
        if PLAIN_INT.match(text):
            try:
                return int(text)
            except ValueError:  # over Python's 4,300 digits
                return self.unkept(node, dotted, "has more digits than benchgraph reads")
        if PLAIN_NUMBER.match(text) and not LEADING_ZERO.match(text):
            return self.float(node, dotted)
        if LEADING_ZERO.match(text) or node.tag in (INT_TAG, FLOAT_TAG) or core_12_tag(
            text
        ) in (INT_TAG, FLOAT_TAG):
            if re.search(r"\.(?:inf|nan)\Z", text, re.IGNORECASE):
                message = "is not a finite number: write a number in plain decimal digits"
            else:
                r11, r12 = _reading_11(text), _reading_12(text)
                numbers = [r for r in dict.fromkeys((r12, r11)) if r[0].isdigit() or r[0] == "-"]
                how = (f"YAML 1.1 reads it as {r11} and YAML 1.2 as {r12}" if r11 != r12 else
                       f"it is {r11} in a spelling that not every YAML reader takes")
                message = (f"is not a plain decimal number ({how}): write it in plain decimal "
                           f"digits, e.g. {' or '.join(numbers) or '1000'}")
            self.problem(node, dotted, message, value=text, code="not-plain-decimal")
        return text

    def float(self, node: yaml.ScalarNode, dotted: str) -> Any:
        """The float of a plain decimal, if it keeps the number exactly: a 64-bit float keeps
        15 significant digits, and 1e400 is infinite and 1e-400 zero."""
        text = node.value
        number = float(text)
        if math.isinf(number):
            return self.unkept(node, dotted, "is too large a number for benchgraph to keep")
        digits = sum(c.isdigit() for c in text)
        if (digits > 15 or "e" in text or "E" in text) and Decimal(repr(number)) != Decimal(
            text
        ):
            if number == 0:
                return self.unkept(node, dotted, "is too small a number for benchgraph to "
                                   "keep (it would be 0)")
            return self.unkept(node, dotted, "has more significant digits than benchgraph "
                               f"keeps exactly (a 64-bit float keeps 15): round it, e.g. to "
                               f"{number:.15g}")
        return number

    def unkept(self, node: yaml.ScalarNode, dotted: str, message: str) -> str:
        self.problem(node, dotted, message, value=node.value, code="number-not-kept")
        return node.value

    def date(self, node: yaml.ScalarNode, dotted: str) -> Any:
        try:
            return _timestamp(node.value)
        except ValueError:
            self.problem(node, dotted, "is not a real date", value=node.value,
                         code="bad-scalar")
            return node.value

    def free(self, node: yaml.ScalarNode, dotted: str) -> Any:
        """A plain scalar of a free map (settings, condition) or VALUE field: what YAML 1.1
        and 1.2 both read the same way (true, false, 16, 0.72, text), or an error."""
        text, tag = node.value, node.tag
        tag_12 = core_12_tag(text)
        if tag == tag_12 and text not in BOOL_WORDS:
            if tag == STR_TAG:
                return text
            if tag == BOOL_TAG:
                return text in TRUE
            if tag == INT_TAG and PLAIN_INT.match(text):
                return self.number(node, dotted)
            if tag == FLOAT_TAG and PLAIN_NUMBER.match(text):
                return self.float(node, dotted)
        if tag == FLOAT_TAG and re.search(r"\.(?:inf|nan)\Z", text, re.IGNORECASE):
            how = "is not a finite number"
        else:
            r11 = "true" if BOOL_WORDS.get(text) else "false" if text in BOOL_WORDS else (
                _reading_11(text))
            r12 = _reading_12(text)
            how = (f"is read as {r11} by YAML 1.1 and as {r12} by YAML 1.2" if r11 != r12 else
                   f"is {r11} in a spelling that not every YAML reader takes")
        self.problem(node, dotted, f"{how}: quote it ('{text}') if it is text, or write "
                     "true, false or a plain decimal number", value=text,
                     code="ambiguous-yaml")
        return text


def _at_the_alias(text: str, problems: list[Problem]) -> list[Problem]:
    """Alias problems moved from the line of the part repeated (all a composed node knows)
    to the line of the alias itself, found among the file's tokens (only on this rare
    path: a second reading of the file)."""
    anchors: dict[str, int] = {}
    aliases: list[tuple[str, int]] = []
    try:
        for token in yaml.scan(text, Loader=_Loader):
            if isinstance(token, yaml.AnchorToken):
                anchors[token.value] = token.start_mark.line + 1
            elif isinstance(token, yaml.AliasToken):
                aliases.append((token.value, token.start_mark.line + 1))
    except yaml.YAMLError:
        return problems
    out = []
    for p in problems:
        if p.code == "alias":
            hit = next((a for a in aliases if anchors.get(a[0]) == p.line), None)
            if hit is not None:
                aliases.remove(hit)
                p = Problem(p.file, hit[1], p.field, f"repeats the part on line {p.line} "
                            f"through a YAML alias (*{hit[0]}): write it out in full",
                            code="alias")
        out.append(p)
    return out


# A date-time already in xsd:dateTime's own spelling is stored as written (a `Z` stays `Z`);
# YAML's other spellings (a space for the T, a lower-case t) are written in that spelling.
XSD_DATETIME = re.compile(
    r"\A-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?\Z")


class Timestamp(dt.datetime):
    """A date-time that remembers how its record wrote it."""

    written: str


def _timestamp(text: str) -> dt.date | dt.datetime:
    if len(text) == 10:
        return dt.date.fromisoformat(text)
    value = dt.datetime.fromisoformat(text.replace("t", "T").replace(" ", "T", 1))
    stamp = Timestamp(value.year, value.month, value.day, value.hour, value.minute,
                      value.second, value.microsecond, value.tzinfo)
    stamp.written = text if XSD_DATETIME.match(text) else value.isoformat()
    return stamp


def _shortened(text: str) -> str:
    """A value as a message shows it: a long one cut in the middle."""
    if len(text) <= 200:
        return text
    return f"{text[:100]}...{text[-40:]} ({len(text):,} characters)"


def _show(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return node.value
    return "a mapping" if isinstance(node, yaml.MappingNode) else "a list"
