"""Saved queries that take parameters: `# param:` header lines, and the text a query runs as
once its parameters are given.

    # param: run type=run label="the run"
    # param: status type=status many

Each parameter names a variable the query binds in a `VALUES ?name { ... }` clause of its own
(its default: the file runs as it stands, on any endpoint). A value given for it replaces what
is between those braces; no value keeps the default; an empty value removes the clause (the
variable is then free: every run, every status). A value is read by its type into an RDF term
(a record IRI, a date, a number, a status) and written back by pyoxigraph, so whatever a person
types becomes one term inside the braces or is refused, naming the parameter: it is never text
in the query.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import pyoxigraph as ox

from ..errors import BenchgraphError, Problem
from ..namespaces import BG, ID, KIND_PREFIXES, pasteable

# The types a parameter may have: what a value is read as.
TYPES = {
    "run": "a run: run:<id>, its IRI or its id",
    "part": "an accelerator: acc:<id>, its IRI or its id",
    "system": "a system: sys:<id>, its IRI or its id",
    "model": "a model: model:<id>, its IRI or its id",
    "text": "a name as the records write it: llama2-70b-99, Offline",
    "date": "a date: YYYY-MM-DD",
    "number": "a number: 0.8, 12, 1e3",
    "status": "a status of the ontology: bg:Draft, Draft or draft",
}
KIND_OF_TYPE = {"run": "benchmarks", "part": "accelerators", "system": "systems", "model": "models"}
RECORD_ID = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")  # records.ID_PATTERN
DATE = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\Z")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\Z")
STATUS_NAME = re.compile(r"[A-Za-z][A-Za-z-]*\Z")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# a text value: a name as records write them (no quote, brace, <, #, \ or control character)
TEXT = re.compile(r"[\w .,:@+/()-]{1,200}\Z")
VALUES = r"(?i:VALUES)\s+[?$]{name}\s*\{{([^{{}}]*)\}}"


class ParameterError(BenchgraphError):
    """A value a parameter cannot take: the message names the parameter, the value and why."""

    def __init__(self, name: str, value: str, why: str):
        self.name, self.value, self.why = name, value, why
        super().__init__(f"{name}: {value!r} {why}")


@dataclass(frozen=True)
class Parameter:
    """One `# param:` line: the variable, its type, whether it takes several values, what the
    page calls it, and its default (the terms of its VALUES clause in the file)."""

    name: str
    type: str
    many: bool = False
    label: str = ""
    default: tuple[str, ...] = ()  # each term as the query writes it
    line: int = 0
    span: tuple[int, int] = (0, 0)  # where its VALUES clause is in the text
    choices: tuple[str, ...] = field(default=())  # a status's local names, or a text's values

    def as_dict(self) -> dict:
        """What a form shows of it: its default as a person types it (acc:x, 2026-06-01)."""
        return {
            "name": self.name,
            "type": self.type,
            "many": self.many,
            "label": self.label or self.name,
            "default": [typed(t) for t in self.default if t != "UNDEF"],
            "hint": self.hint,
        }

    @property
    def hint(self) -> str:
        """What a value is: its choices where a text has a closed list (`one of wall, board`),
        else its type's words."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        return TYPES[self.type]


def parse_params(text: str, path: str = "") -> tuple[tuple[Parameter, ...], list[Problem]]:
    """The `# param:` lines of a saved query's header, and every problem with them."""
    code = _code_spans(text)
    params: list[Parameter] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("#"):
            break
        key, _, value = line.lstrip("# ").partition(":")
        if key.strip().lower() != "param":
            continue
        param, wrong = parse_param(value.strip(), text, number, code)
        problems += [Problem(path, number, "param", message, v) for v, message in wrong]
        if param is not None:
            if any(p.name == param.name for p in params):
                problems.append(Problem(path, number, "param", "is declared twice", param.name))
            else:
                params.append(param)
    return tuple(params), problems


def parse_param(
    spec: str, text: str, line: int, code: list[tuple[int, int]]
) -> tuple[Parameter | None, list[tuple[str, str]]]:
    """A `# param:` line's words as a Parameter, and what is wrong as (value, message)."""
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        return None, [(spec, f"is not read: {exc}")]
    if not words:
        return None, [("", "names no parameter; give `# param: NAME type=TYPE [many]`")]
    name = words[0].lstrip("?$")
    wrong: list[tuple[str, str]] = []
    if not NAME.fullmatch(name):
        wrong.append((words[0], "is not a variable name"))
    kind, many, label, choices = None, False, "", ()
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if key == "type" and eq:
            kind = value
        elif word == "many":
            many = True
        elif key == "label" and eq:
            label = value
        elif key == "choices" and eq:  # a text's values: choices=wall,board
            choices = tuple(split_values(value))
        else:
            wrong.append((word, "is not understood; give type=TYPE, many, label=TEXT, choices=A,B"))
    if kind not in TYPES:
        wrong.append((kind or "", "is not a type; one of " + ", ".join(TYPES)))
    if wrong:
        return None, wrong
    found = [
        m
        for m in re.finditer(VALUES.format(name=re.escape(name)), text)
        if any(a <= m.start() < b for a, b in code)
    ]
    if len(found) != 1:
        return None, [
            (
                name,
                f"the query needs one `VALUES ?{name} {{ ... }}` for it, "
                f"holding its default; it has {len(found)}",
            )
        ]
    match = found[0]
    default = tuple(_terms(match.group(1)))
    if choices and kind != "text":
        return None, [(name, "takes choices=... only with type=text")]
    param = Parameter(name, kind, many, label, default, line, match.span(), choices)
    if len(default) > 1 and not many:
        return None, [(name, "has several defaults but takes one value; add `many`")]
    for term in default:
        if term != "UNDEF":
            try:
                read(param, term)
            except ParameterError as exc:
                return None, [(term, f"is no default for {name}: {exc.why}")]
    return param, []


# An IRIREF as both grammars define it (with Oxigraph's \\u escapes); a `<` that starts none
# is a less-than.
_IRIREF = re.compile(r'<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>')


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The stretches of the query outside strings, <IRIs> and # comments (a `<` that starts
    no IRI, a less-than, stays code): where a VALUES clause of the query's own may be."""
    spans, start, i, n = [], 0, 0, len(text)
    while i < n:
        c = text[i]
        end = None
        if c == "#":
            end = _line_end(text, i)
        elif c in "\"'":
            end = _string_end(text, i)
        elif c == "<":
            iri = _IRIREF.match(text, i)
            end = iri.end() if iri else None
        if end is None:
            i += 1
            continue
        spans.append((start, i))
        start = i = end
    spans.append((start, n))
    return spans


def _line_end(text: str, start: int) -> int:
    """Where a comment starting at `start` ends: the first CR or LF (Oxigraph's rule; rdflib
    ends it at LF only, which is why a bare CR is refused)."""
    ends = [p for p in (text.find("\n", start), text.find("\r", start)) if p >= 0]
    return min(ends) if ends else len(text)


def _string_end(text: str, start: int) -> int:
    """The index after the string literal opening at `start` (or where a short string breaks
    at a line end: the parsers refuse that; the scan only has to go on past it)."""
    quote = text[start]
    long = text.startswith(quote * 3, start)
    i = start + (3 if long else 1)
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if long and text.startswith(quote * 3, i):
            return i + 3
        if not long and c == quote:
            return i + 1
        if not long and c in "\r\n":
            return i
        i += 1
    return n


def typed(term: str) -> str:
    """A term of a VALUES clause as a person types it: `acc:x` for `<...accelerators/x>`,
    `2026-06-01` for `"2026-06-01"^^xsd:date`."""
    if term.startswith("<") and term.endswith(">"):
        return pasteable(term[1:-1])
    found = re.fullmatch(r'"([^"]*)"\^\^(?:xsd:\w+|<[^>]*>)', term)
    return found[1] if found else term


def _terms(body: str) -> list[str]:
    """The terms of a VALUES clause of one variable, as written."""
    return re.findall(r'"(?:[^"\\]|\\.)*"(?:\^\^\S+|@[A-Za-z-]+)?|<[^>]*>|\S+', body)


class Term(NamedTuple):
    """A value as the query writes it (`run:x`, `0.8`, `"2026-06-01"^^xsd:date`), and the IRI
    it names, if it is one."""

    text: str
    iri: str | None = None


def read(param: Parameter, value: str) -> Term:
    """One value of `param` as a term, or ParameterError. Each term is written from what its
    type's pattern accepted, never from the value as typed: a prefixed name whose local part
    needs no escape, or an IRI pyoxigraph checked; a number or date its pattern matched."""
    value = value.strip()
    kind = param.type
    if kind in KIND_OF_TYPE:
        return _iri_term(_record(param, value, KIND_OF_TYPE[kind]))
    if kind == "date":
        text = _lexical(value)
        if not DATE.fullmatch(text):
            raise ParameterError(param.name, value, "is not a date (YYYY-MM-DD)")
        return Term(f'"{text}"^^xsd:date')
    if kind == "number":
        text = _lexical(value)
        if not NUMBER.fullmatch(text):
            raise ParameterError(param.name, value, "is not a number")
        why = _out_of_range(text)
        if why:
            raise ParameterError(param.name, value, why)
        return Term(text)
    if kind == "text":
        text = value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value
        if param.choices:
            found = next((c for c in param.choices if c.casefold() == text.casefold()), None)
            if found is None:
                raise ParameterError(param.name, value, "is not one of " + ", ".join(param.choices))
            text = found
        if not TEXT.fullmatch(text):
            raise ParameterError(
                param.name, value, "is not a name (letters, digits, spaces and .,:@+/()-)"
            )
        return Term(str(ox.Literal(text)))  # a string literal, as pyoxigraph writes it
    if kind == "status":
        text = value.strip("<>")
        for ns in (str(BG), "bg:"):
            if text.startswith(ns):
                text = text[len(ns) :]
        found = STATUS_NAME.fullmatch(text)
        if not found:
            raise ParameterError(param.name, value, "is not a status (bg:Draft, Draft, draft)")
        local = _camel(found[0])
        if param.choices and local not in param.choices:
            raise ParameterError(param.name, value, "is not one of " + ", ".join(param.choices))
        return _iri_term(str(BG) + local)
    raise ParameterError(param.name, value, f"has a type benchgraph does not know ({kind})")


# What the stores hold of each number a parameter may be written as (SPARQL reads 12 as
# xsd:integer, 0.8 as xsd:decimal, 1e3 as xsd:double). Past these a store does not refuse the
# value, it compares it as an error and answers no rows (9223372036854775808 on Oxigraph
# 0.5.13), so they are refused here: Virtuoso's integers are signed 64-bit, Oxigraph's
# xsd:decimal a 128-bit integer of 10^-18 units (|x| < 1.7 x 10^20, 18 digits after the
# point), a double IEEE 754's (1e309 reads as INF, 1e-400 as 0).
INTEGER_RANGE = (-(2**63), 2**63 - 1)
DECIMAL_DIGITS, DECIMAL_BELOW = 18, 10**20
DOUBLE_RANGE = (2.2250738585072014e-308, 1.7976931348623157e308)


def _out_of_range(text: str) -> str:
    """Why a number NUMBER matched is outside what the stores hold; "" where it is not."""
    from decimal import Decimal

    low, high = INTEGER_RANGE
    if "e" in text.lower():
        number = Decimal(text)
        if number != 0 and not DOUBLE_RANGE[0] <= abs(number) <= Decimal(DOUBLE_RANGE[1]):
            return (
                "is outside the range of a double (about 2.2e-308 to 1.8e308 either side of 0), "
                "which the stores would read as infinity or 0"
            )
        return ""
    if "." not in text:
        if not low <= int(text) <= high:
            return (
                f"is outside the range of the stores' integers ({low:,} to {high:,}, signed "
                "64-bit): they would compare it as an error and answer no rows"
            )
        return ""
    whole, _, fraction = text.lstrip("+-").partition(".")
    if len(fraction.rstrip("0")) > DECIMAL_DIGITS or abs(Decimal(text)) >= DECIMAL_BELOW:
        return (
            f"is outside what the stores' decimals hold (under 10^20, at most "
            f"{DECIMAL_DIGITS} digits after the point): they would compare it as an error "
            "and answer no rows; write it as a double (1.5e20) if it is that large"
        )
    return ""


# A value pasted as a typed literal: "2026-06-01"^^xsd:date (its quotes may be left out).
TYPED = re.compile(r'"?([^"^]*)"?\^\^(?:xsd:\w+|<[^<>"{}|^`\\\x00-\x20]*>)')


def _lexical(value: str) -> str:
    """What a date or number is written as: the value, without the quotes and datatype of a
    typed literal pasted whole; anything after its datatype stays, for the pattern to refuse
    (`2026-06-01"^^xsd:date } ...` is no date)."""
    found = TYPED.fullmatch(value)
    if found:
        return found[1]
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value


def _iri_term(iri: str) -> Term:
    return Term(pasteable(ox.NamedNode(iri).value), iri)  # NamedNode checks the IRI


def _record(param: Parameter, value: str, kind: str) -> str:
    prefix = KIND_PREFIXES[kind]
    base = f"{ID}{kind}/"
    text = value
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    if text.startswith(f"{prefix}:"):
        text = text[len(prefix) + 1 :]
    elif text.startswith(base):
        text = text[len(base) :]
    elif text.startswith(("http://", "https://")) or ":" in text:
        raise ParameterError(param.name, value, f"is not {TYPES[param.type]}")
    if not RECORD_ID.fullmatch(text):
        raise ParameterError(param.name, value, f"is not {TYPES[param.type]}")
    return base + text


def _camel(word: str) -> str:
    """`draft` and `not-published` as the ontology spells its concepts: Draft, NotPublished."""
    if word[0].isupper():
        return word
    return "".join(part[:1].upper() + part[1:] for part in word.split("-"))


def with_values(
    text: str,
    params: tuple[Parameter, ...],
    given: dict[str, list[str]],
    known: Callable[[str], bool] | None = None,
) -> str:
    """The query with each given parameter's VALUES clause holding its values as terms; an
    empty list removes the clause. Raises ParameterError for a value its type refuses, for
    an IRI `known` does not know (a run the dataset does not hold), or for a parameter the
    query does not take."""
    names = [p.name for p in params]
    for name in given:
        if name not in names:
            from .suggest import did_you_mean

            raise ParameterError(
                name,
                ",".join(given[name]),
                f"is not a parameter of this query{did_you_mean(name, names)}; it takes "
                + (", ".join(names) or "none"),
            )
    edits = []
    for p in params:
        if p.name not in given:
            # UNDEF (every value) as no clause: the same answer, and Virtuoso's planner costs
            # a VALUES no pattern joins at days and refuses it
            if p.default == ("UNDEF",):
                edits.append((p.span, ""))
            continue
        values = [v for v in given[p.name] if v.strip()]
        if len(values) > 1 and not p.many:
            raise ParameterError(p.name, ", ".join(values), "takes one value")
        terms = [read(p, v) for v in values]
        for v, term in zip(values, terms):
            if known is not None and term.iri and not known(term.iri):
                what = KIND_OF_TYPE.get(p.type, "status")
                raise ParameterError(
                    p.name,
                    v,
                    f"names no record of {what} in this dataset"
                    if p.type in KIND_OF_TYPE
                    else "is no term of this dataset",
                )
        clause = f"VALUES ?{p.name} {{ {' '.join(t.text for t in terms)} }}" if terms else ""
        edits.append((p.span, clause))
    for (start, end), clause in sorted(edits, reverse=True):
        text = text[:start] + clause + text[end:]
    return text


def split_values(value: str) -> list[str]:
    """A value as typed, of a parameter that takes several: comma- or space-separated."""
    return [v for v in re.split(r"[,\s]+", value.strip()) if v]
