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
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problem
from .checks import (
    check_aggregated_facts,
    check_run_accelerators,
    check_source_kinds,
    check_stated_fields,
)
from .files import RecordFileError, kind_of, read_record_bytes
from .schema import (
    BOOL,
    DATE,
    ID_PATTERN,
    KINDS,
    LIST,
    MAP,
    NUMBER,
    SCALARS,
    TEXT,
    TEXT_MAP,
    VALUE,
    Record,
    shortened,
)


def load_record(
    path: Path,
    data_dir: Path,
    display: str | None = None,
    text: str | None = None,
    limit: int | None = None,
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
        return None, [
            Problem(shown, line, "", f"is not valid YAML: {exc.problem}", code="yaml-syntax")
        ]
    except UnicodeDecodeError as exc:
        return None, [
            Problem(
                shown,
                1,
                "",
                f"is not UTF-8 text (byte {exc.start:,}): save it as UTF-8",
                code="unreadable",
            )
        ]
    except (OSError, yaml.YAMLError, RecursionError) as exc:
        return None, [Problem(shown, 1, "", f"cannot be read: {exc}", code="unreadable")]
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 1 if node is not None else 1
        return None, [
            Problem(shown, line, "", "must be a YAML mapping of fields", code="not-a-mapping")
        ]
    reader = _Reader(shown)
    fields = reader.mapping(node, KINDS[kind], "")
    problems = reader.problems
    if any(p.code == "alias" for p in problems):
        problems = _at_the_alias(text, problems)
    record_id = fields.get("id")
    stem = path.stem
    if record_id is None:
        problems.append(
            Problem(
                shown,
                1,
                "id",
                f"is required and must equal the file name '{stem}'",
                code="id-missing",
            )
        )
    elif str(record_id) != stem:
        problems.append(
            Problem(
                shown,
                reader.lines.get("id", 1),
                "id",
                f"must equal the file name '{stem}'",
                value=str(record_id),
                code="id-mismatch",
            )
        )
    elif not ID_PATTERN.match(stem):
        problems.append(
            Problem(
                shown,
                reader.lines.get("id", 1),
                "id",
                "must be lower-case letters, digits, '.', '_' or '-', "
                "starting with a letter or digit",
                value=stem,
                code="id-pattern",
            )
        )
    problems += check_stated_fields(kind, fields, reader.lines, shown)
    problems += check_source_kinds(fields, reader.lines, shown)
    problems += check_aggregated_facts(fields, reader.lines, shown)
    if kind == "benchmarks":
        problems += check_run_accelerators(fields, reader.lines, shown)
    record = Record(kind, stem, shown, fields, reader.lines)
    return record, problems


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
    Y + t for t in ("null", "bool", "int", "float", "str", "timestamp")
)
TRUE, FALSE = ("true", "True", "TRUE"), ("false", "False", "FALSE")  # 1.1 and 1.2 alike
# YAML 1.1's other booleans (its spec has y and n too, though PyYAML leaves them text)
BOOL_WORDS = {
    **dict.fromkeys(("yes", "Yes", "YES", "on", "On", "ON", "y", "Y"), True),
    **dict.fromkeys(("no", "No", "NO", "off", "Off", "OFF", "n", "N"), False),
}
PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
PLAIN_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
LEADING_ZERO = re.compile(r"[-+]?0[0-9]+\Z")
DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# YAML 1.2's core schema, which the 1.1 reading (the resolved tag) is compared with
CORE_12 = (
    (NULL_TAG, re.compile(r"(?:~|null|Null|NULL|)\Z")),
    (BOOL_TAG, re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")),
    (INT_TAG, re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")),
    (
        FLOAT_TAG,
        re.compile(
            r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
        ),
    ),
)
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
            return _said(float(text.lower().replace(".inf", "inf").replace(".nan", "nan")), text)
    except ValueError:  # over Python's 4,300 digits
        return "a number"
    return {NULL_TAG: "nothing (null)", BOOL_TAG: text.lower()}.get(tag, "text")


def _said(value: Any, text: str) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return shortened(repr(value)) if not math.isnan(value) else "not-a-number"
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

    def problem(
        self, node: yaml.Node, dotted: str, message: str, value: str = "", code: str = "shape"
    ) -> None:
        self.problems.append(
            Problem(
                self.shown,
                node.start_mark.line + 1,
                dotted,
                message,
                value=shortened(value),
                code=code,
            )
        )

    def first_time(self, node: yaml.Node, dotted: str) -> bool:
        """False for a mapping or list met before: a YAML alias (*name) of it. Refused, as
        aliases of aliases grow without bound (and one may contain itself)."""
        if id(node) not in self.seen:
            self.seen.add(id(node))
            return True
        self.problem(
            node,
            dotted,
            "repeats another part of the file through a YAML alias (*name): write it out in full",
            code="alias",
        )
        return False

    def mapping(self, node: yaml.Node, spec: Any, prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if not self.first_time(node, prefix.rstrip(".")):
            return out
        free = spec in (MAP, TEXT_MAP)
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.problem(
                    key_node,
                    prefix.rstrip("."),
                    "has a key that is not a name",
                    value=_show(key_node),
                    code="shape",
                )
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
                self.problem(
                    key_node, dotted, f"is not a known field (known: {allowed})", code="unknown-key"
                )
                continue
            out[key] = self.value(value_node, spec[key], dotted)
        return out

    def value(self, node: yaml.Node, spec: Any, dotted: str) -> Any:
        if spec in SCALARS:
            return self.scalar(node, spec, dotted)
        if (
            isinstance(spec, list)
            and isinstance(node, yaml.MappingNode)
            and dotted.endswith("source")
        ):
            return [self.mapping(node, spec[0], f"{dotted}.0.")]
        if spec == LIST or isinstance(spec, (list, tuple)):
            # items: texts (LIST), mappings of spec[0]'s keys ([dict]), or either, each a text
            # or a mapping of spec[0][0]'s keys ((dict,): `same_as`, an IRI or a link)
            keys = (
                spec[0][0]
                if isinstance(spec, tuple)
                else (spec[0] if isinstance(spec, list) else None)
            )
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
                self.problem(
                    node,
                    dotted,
                    f"is read as {str(BOOL_WORDS[text]).lower()} by "
                    "YAML 1.1 and as text by YAML 1.2: write true or false",
                    value=text,
                    code="not-true-or-false",
                )
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
        if (
            LEADING_ZERO.match(text)
            or node.tag in (INT_TAG, FLOAT_TAG)
            or core_12_tag(text) in (INT_TAG, FLOAT_TAG)
        ):
            if re.search(r"\.(?:inf|nan)\Z", text, re.IGNORECASE):
                message = "is not a finite number: write a number in plain decimal digits"
            else:
                r11, r12 = _reading_11(text), _reading_12(text)
                numbers = [r for r in dict.fromkeys((r12, r11)) if r[0].isdigit() or r[0] == "-"]
                how = (
                    f"YAML 1.1 reads it as {r11} and YAML 1.2 as {r12}"
                    if r11 != r12
                    else f"it is {r11} in a spelling that not every YAML reader takes"
                )
                message = (
                    f"is not a plain decimal number ({how}): write it in plain decimal "
                    f"digits, e.g. {' or '.join(numbers) or '1000'}"
                )
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
        if (digits > 15 or "e" in text or "E" in text) and Decimal(repr(number)) != Decimal(text):
            if number == 0:
                return self.unkept(
                    node, dotted, "is too small a number for benchgraph to keep (it would be 0)"
                )
            return self.unkept(
                node,
                dotted,
                "has more significant digits than benchgraph "
                f"keeps exactly (a 64-bit float keeps 15): round it, e.g. to "
                f"{number:.15g}",
            )
        return number

    def unkept(self, node: yaml.ScalarNode, dotted: str, message: str) -> str:
        self.problem(node, dotted, message, value=node.value, code="number-not-kept")
        return node.value

    def date(self, node: yaml.ScalarNode, dotted: str) -> Any:
        try:
            return _timestamp(node.value)
        except ValueError:
            self.problem(node, dotted, "is not a real date", value=node.value, code="bad-scalar")
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
            r11 = (
                "true"
                if BOOL_WORDS.get(text)
                else "false"
                if text in BOOL_WORDS
                else (_reading_11(text))
            )
            r12 = _reading_12(text)
            how = (
                f"is read as {r11} by YAML 1.1 and as {r12} by YAML 1.2"
                if r11 != r12
                else f"is {r11} in a spelling that not every YAML reader takes"
            )
        self.problem(
            node,
            dotted,
            f"{how}: quote it ('{text}') if it is text, or write "
            "true, false or a plain decimal number",
            value=text,
            code="ambiguous-yaml",
        )
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
                p = Problem(
                    p.file,
                    hit[1],
                    p.field,
                    f"repeats the part on line {p.line} "
                    f"through a YAML alias (*{hit[0]}): write it out in full",
                    code="alias",
                )
        out.append(p)
    return out


# A date-time already in xsd:dateTime's own spelling is stored as written (a `Z` stays `Z`);
# YAML's other spellings (a space for the T, a lower-case t) are written in that spelling.
XSD_DATETIME = re.compile(r"\A-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?\Z")


class Timestamp(dt.datetime):
    """A date-time that remembers how its record wrote it."""

    written: str


def _timestamp(text: str) -> dt.date | dt.datetime:
    if len(text) == 10:
        return dt.date.fromisoformat(text)
    value = dt.datetime.fromisoformat(text.replace("t", "T").replace(" ", "T", 1))
    stamp = Timestamp(
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
        value.tzinfo,
    )
    stamp.written = text if XSD_DATETIME.match(text) else value.isoformat()
    return stamp


def _show(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return node.value
    return "a mapping" if isinstance(node, yaml.MappingNode) else "a list"
