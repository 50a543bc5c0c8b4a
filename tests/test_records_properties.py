"""Property tests of the record reader and the converter (hypothesis).

Records are generated from the field table (schema.KINDS): every field of a kind may be
given, each scalar written plain, quoted, double-quoted with escapes or as a block, holding
random text (any unicode), numbers in many spellings and the scalars YAML 1.1 and 1.2 read
differently. Whatever the record, the reader returns a record or problems that name the
file, a line of it and the field, and never raises; a value it returns is the text as
written (text fields), the number the text spells (numeric fields), true or false, or the
text kept for the shapes to report: never a value changed silently. The converter turns any
record read into triples without raising, and a record without a violation into N-Quads
the store's own parser takes.

Short by default; BENCHGRAPH_HYPOTHESIS_EXAMPLES=5000 (say) for a long run.
"""

from __future__ import annotations

import os
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchgraph.errors import VIOLATION
from benchgraph.namespaces import graph_iri
from benchgraph.rdf.convert import record_triples
from benchgraph.rdf.nquads import nquads
from benchgraph.records import reader, schema
from benchgraph.validation.record import check_record

EXAMPLES = int(os.environ.get("BENCHGRAPH_HYPOTHESIS_EXAMPLES", "60"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ROOT = Path("/props")

# Scalars that YAML 1.1 and 1.2 read differently, or as something else than text.
ODD = [
    "NO",
    "no",
    "No",
    "off",
    "Off",
    "ON",
    "yes",
    "Yes",
    "y",
    "n",
    "Y",
    "N",
    "true",
    "False",
    "TRUE",
    "tRue",
    "null",
    "Null",
    "~",
    "",
    "1.10",
    "1.0",
    "0755",
    "007",
    "00",
    "0",
    "-0",
    "+1",
    "1_000",
    "1__0",
    "0x10",
    "0o17",
    "0b101",
    "12:30",
    "1:30:00",
    "190:20:30.15",
    "1e3",
    "1.0e3",
    "1.0e+3",
    "1E-3",
    ".5",
    "+.5",
    "1.",
    ".inf",
    "-.Inf",
    ".NaN",
    "1e400",
    "1e-400",
    "2026-01-01",
    "2026-01-01T00:00:00Z",
    "2026-01-01 10:00:00",
    "2026-02-30",
    "2026-1-1",
    "=",
    "<<",
    "0.1234567890123456789",
    "123456789012345678901234567890",
    "-12.5e-3",
    "3.14159",
    "93.9",
    "1" + "0" * 30,
    "v5.1",
    "fp8_e4m3",
]
PLAIN_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._/+%()=-]*[A-Za-z0-9)]\Z|[A-Za-z0-9]\Z")
LINE = st.from_regex(r"[A-Za-z0-9][ -~]{0,30}[!-~]", fullmatch=True).filter(
    lambda t: not re.search(r"\s#|:\s|\s$", t)
)

# --- writing YAML ---------------------------------------------------------------------------


def double_quoted(text: str) -> str:
    """A YAML double-quoted scalar of any text: printable ASCII as itself, the rest escaped."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif " " <= c <= "~":
            out.append(c)
        else:
            out.append(f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'


CLEAN_NUMBER = st.from_regex(r"-?(0|[1-9][0-9]{0,9})(\.[0-9]{1,4})?", fullmatch=True)


@st.composite
def scalar(draw, kind: str, clean: bool = False) -> tuple[str, str, str]:
    """(YAML text of the scalar, the text it holds, its style: plain/quoted/block). `clean`:
    only what must read without a problem (quoted text, plain decimals, true/false)."""
    if clean and (kind == schema.NUMBER or kind == schema.VALUE and draw(st.booleans())):
        number = draw(CLEAN_NUMBER)
        return number, number, "plain"
    if clean and kind == schema.BOOL:
        word = draw(st.sampled_from(["true", "false"]))
        return word, word, "plain"
    if not clean and (kind == schema.NUMBER or kind == schema.VALUE and draw(st.booleans())):
        spelled = draw(
            st.one_of(
                st.integers(-(10**25), 10**25).map(str),
                st.floats(allow_nan=False, allow_infinity=False).map(repr),
                st.from_regex(
                    r"[-+]?[0-9]{1,20}(\.[0-9]{0,20})?([eE][-+]?[0-9]{1,3})?", fullmatch=True
                ),
                st.sampled_from(ODD),
            )
        )
        if draw(st.integers(0, 9)) == 0:
            return f"'{spelled}'", spelled, "quoted"
        return spelled, spelled, "plain"
    if not clean and kind == schema.BOOL and draw(st.booleans()):
        word = draw(
            st.sampled_from(
                [
                    "true",
                    "false",
                    "True",
                    "FALSE",
                    "yes",
                    "no",
                    "on",
                    "off",
                    "y",
                    "n",
                    "1",
                    "0",
                    "maybe",
                ]
            )
        )
        return word, word, "plain"
    style = draw(st.sampled_from(["odd", "plain", "double", "single", "block"][clean:]))
    if style == "odd":
        odd = draw(st.sampled_from(ODD))
        return odd, odd, "plain"
    if style == "plain":
        text = draw(LINE)
        if PLAIN_SAFE.match(text) and not (
            clean
            and (kind == schema.DATE or (kind == schema.VALUE and not plain_text_in_both(text)))
        ):
            return text, text, "plain"
        style = "double"
    if style == "single":
        text = draw(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30))
        return "'" + text.replace("'", "''") + "'", text, "quoted"
    if style == "block":
        lines = draw(st.lists(LINE, min_size=1, max_size=4))
        return "|-\n" + "\n".join(f"    {line}" for line in lines), "\n".join(lines), "quoted"
    text = draw(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
    return double_quoted(text), text, "quoted"


NAMES = st.one_of(st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True), st.sampled_from(ODD[:12]))


@st.composite
def record_text(
    draw, kind: str, clean: bool = False
) -> tuple[str, dict[str, tuple[str, str, str]]]:
    """A record of `kind` as YAML text, and what was written: dotted field -> (field kind,
    text held, style). `clean`: see scalar."""
    written: dict[str, tuple[str, str, str]] = {}
    lines = ["id: x-prop"]
    written["id"] = (schema.TEXT, "x-prop", "plain")

    def put(spec: Any, dotted: str, key_text: str, indent: str) -> None:
        if isinstance(spec, tuple):  # items of text or mappings (same_as): the mappings;
            # a run's accelerators as plain ids (their {id, count} form: test_run_accelerators)
            spec = schema.LIST if key_text == "accelerators" else spec[0]
        if spec in schema.SCALARS:
            yaml_text, held, style = draw(scalar(spec, clean))
            if yaml_text.startswith("|-"):
                yaml_text = yaml_text.replace("\n    ", "\n" + indent + "    ")
            lines.append(f"{indent}{key_text}: {yaml_text}")
            written[dotted] = (spec, held, style)
        elif spec in (schema.LIST,) and key_text in ("states", "derives") and clean:
            # a clean record's source states (or derives) fields of its kind (others are reported)
            names = draw(
                st.lists(
                    st.sampled_from(sorted(set(schema.KINDS[kind]) - schema.NOT_STATED)),
                    max_size=3,
                    unique=True,
                )
            )
            lines.append(f"{indent}{key_text}: [{', '.join(names)}]")
            for i, name in enumerate(names):
                written[f"{dotted}.{i}"] = (schema.TEXT, name, "plain")
        elif spec in (schema.LIST,):
            # a clean run's plain list names one kind: several without their counts are
            # reported, as is one kind twice (test_run_accelerators has the {id, count} form)
            items = draw(st.integers(0, 1 if clean and key_text == "accelerators" else 3))
            lines.append(f"{indent}{key_text}:" + ("" if items else " []"))
            for i in range(items):
                yaml_text, held, style = draw(scalar(schema.TEXT, clean))
                if yaml_text.startswith("|-"):
                    yaml_text = double_quoted(held)
                    style = "quoted"
                lines.append(f"{indent}  - {yaml_text}")
                written[f"{dotted}.{i}"] = (schema.TEXT, held, style)
        elif spec in (schema.MAP, schema.TEXT_MAP):
            lines.append(f"{indent}{key_text}:" + " {}")
            keys = draw(st.lists(NAMES, max_size=5, unique=True))
            if keys:
                lines[-1] = f"{indent}{key_text}:"
            for name in keys:
                put(
                    schema.VALUE if spec == schema.MAP else schema.TEXT,
                    f"{dotted}.{name}",
                    double_quoted(name) if not PLAIN_SAFE.match(name) else name,
                    indent + "  ",
                )
        elif isinstance(spec, dict):
            lines.append(f"{indent}{key_text}:" + " {}")
            chosen = draw(st.lists(st.sampled_from(sorted(spec)), max_size=4, unique=True))
            if chosen:
                lines[-1] = f"{indent}{key_text}:"
            for name in chosen:
                put(spec[name], f"{dotted}.{name}", name, indent + "  ")
        else:  # a list of mappings
            count = draw(st.integers(0, 2))
            lines.append(f"{indent}{key_text}:" + ("" if count else " []"))
            for i in range(count):
                # a clean source gives no `secondary:`, the older form of `kind:`, which is
                # read as a kind with an info message (tests/test_source_kinds.py)
                keys = sorted(k for k in spec[0] if not (clean and k == "secondary"))
                chosen = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True))
                lines.append(f"{indent}  -")
                for name in chosen:
                    put(spec[0][name], f"{dotted}.{i}.{name}", name, indent + "    ")

    fields = schema.KINDS[kind]
    # the fields of each kind of value, then any others
    names = [
        draw(st.sampled_from(sorted(n for n, spec in fields.items() if spec == want)))
        for want in (schema.NUMBER, schema.BOOL, schema.TEXT, schema.MAP, schema.VALUE, schema.DATE)
        if any(spec == want for n, spec in fields.items() if n != "id")
    ]
    names += draw(st.lists(st.sampled_from(sorted(set(fields) - {"id"})), max_size=10, unique=True))
    for name in dict.fromkeys(n for n in names if n != "id"):
        put(fields[name], name, name, "")
    return "\n".join(lines) + "\n", written


# --- what a value may be ----------------------------------------------------------------


def value_at(fields: dict, dotted: str) -> Any:
    value: Any = fields
    for part in dotted.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def spells(value: Any, text: str) -> bool:
    """The number is the one the text spells in plain decimal, exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if not reader.PLAIN_NUMBER.match(text) or reader.LEADING_ZERO.match(text):
        return False
    if isinstance(value, int):
        return reader.PLAIN_INT.match(text) is not None and value == int(text)
    return Decimal(repr(value)) == Decimal(text)


YAML_11_BOOLS = {
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "y",
    "Y",
    "n",
    "N",
}


def plain_text_in_both(text: str) -> bool:
    """YAML 1.1 and 1.2 both read this plain scalar as its text."""
    return yaml_11_text(text) and not CORE_12_NOT_TEXT.match(text) and text not in YAML_11_BOOLS


def yaml_11_text(text: str) -> bool:
    """YAML 1.1 (PyYAML) reads the plain scalar as this very text."""
    try:
        return yaml.safe_load(f"x: {text}")["x"] == text
    except yaml.YAMLError:
        return False


# YAML 1.2's core schema (spec 10.3.2), written out here apart from records.py
CORE_12_NOT_TEXT = re.compile(
    r"(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+"
    r"|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|)\Z"
)


def check_value(kind: str, value: Any, held: str, style: str) -> str | None:
    """Why this value is not an allowed reading of the scalar (None: it is)."""
    if style == "plain" and held in ("", "~", "null", "Null", "NULL"):
        return None if value is None else "a null read as a value"
    if kind == schema.TEXT or style != "plain":
        if kind == schema.DATE and re.fullmatch(r"\d{4}-\d{2}-\d{2}", held):
            return None
        return None if value == held and type(value) is str else "text changed"
    if isinstance(value, str):
        if value != held:
            return "text changed"
        if kind == schema.VALUE and not plain_text_in_both(held):  # else an error
            return "an ambiguous scalar kept without a problem"
        return None
    if isinstance(value, bool):
        return (
            None
            if (held in ("true", "True", "TRUE")) is value and held.lower() in ("true", "false")
            else "a boolean from other words"
        )
    if kind in (schema.NUMBER, schema.VALUE):
        return None if spells(value, held) else "a number other than the one written"
    if kind == schema.DATE:
        return None
    return f"an unexpected {type(value).__name__}"


def read(text: str, kind: str):
    path = ROOT / kind / "x-prop.yaml"
    return reader.load_record(path, ROOT, f"data/{kind}/x-prop.yaml", text=text)


KINDS = st.sampled_from(sorted(schema.KINDS) + ["benchmarks"] * 3)  # the most fields


@SETTINGS
@given(st.data())
def test_every_value_is_as_written_or_reported(data):
    kind = data.draw(KINDS)
    text, written = data.draw(record_text(kind))
    record, problems = read(text, kind)  # never raises
    line_count = text.count("\n") + 1
    for p in problems:
        assert p.file == f"data/{kind}/x-prop.yaml" and 1 <= p.line <= line_count, p
    if record is None:
        assert problems and all(not p.field for p in problems), problems
        return
    reported = [p.field for p in problems]
    for dotted, (field_kind, held, style) in written.items():
        if any(
            dotted == f or dotted.startswith(f + ".") or f.startswith(dotted + ".")
            for f in reported
            if f
        ):
            continue
        try:
            value = value_at(record.fields, dotted)
        except (KeyError, IndexError):
            raise AssertionError(f"{dotted} was written and neither read nor reported") from None
        why = check_value(field_kind, value, held, style)
        assert why is None, f"{dotted}: {held!r} ({style}) -> {value!r}: {why}\n{text}"
    for p in problems:  # a reading problem names a field written (or the file)
        assert p.field == "" or any(d == p.field or d.startswith(p.field + ".") for d in written), p


@SETTINGS
@given(st.data())
def test_clean_records_read_without_problems(data):
    """No false alarm: quoted text, plain text, plain decimal numbers and true/false."""
    kind = data.draw(KINDS)
    text, written = data.draw(record_text(kind, clean=True))
    record, problems = read(text, kind)
    assert record is not None and problems == [], (problems, text)
    for dotted, (field_kind, held, style) in written.items():
        value = value_at(record.fields, dotted)
        assert check_value(field_kind, value, held, style) is None, (dotted, held, value)


@SETTINGS
@given(st.data())
def test_the_converter_takes_every_record_read(data):
    kind = data.draw(KINDS)
    text, _written = data.draw(record_text(kind))
    record, problems = read(text, kind)
    if record is None:
        return
    triples = record_triples(record)  # never raises
    stated = nquads(triples, graph_iri(record.kind, record.id))
    problems += check_record(record, triples, problems)
    if not any(p.severity == VIOLATION for p in problems):
        # what the build would load: the store's own reader takes it whole
        quads = list(ox.parse(stated.encode(), ox.RdfFormat.N_QUADS, lenient=True))
        assert len(quads) == len(set(triples))
