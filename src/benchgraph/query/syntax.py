"""Where a query does not parse, as the engine that runs it says: Oxigraph's line, column and
message, the same from `benchgraph query` and from the endpoint.

The two used to differ: the CLI reported Oxigraph's position and the endpoint rdflib's (it
parses every query with rdflib first, to find the SERVICE calls it must refuse), and their
parsers stop at different places (`FILTER(?x = )`: Oxigraph at the `)`, rdflib at the
FILTER). The engine's reading is the one that decides what runs, so it is the one reported.

pyoxigraph parses only as part of running a query, so the endpoint asks it on an empty
in-memory store, after rdflib refused the text: nothing is read, and the SERVICE keyword is
first masked as GRAPH (the same grammar but SILENT, at the same length, so positions stay),
since an ASK is evaluated at once and would call the service. Oxigraph reads no escapes
outside strings and IRIs (querytext.py refuses the escapes that would matter), so a SERVICE
it could call is spelt out in the text.
"""

from __future__ import annotations

import re

import pyoxigraph as ox

from ..errors import QueryRefused
from . import stack as bigstack

ENGINE_POSITION = re.compile(r"^error at (\d+):(\d+): ?")
# The keyword as a whole word outside strings, IRIs and comments (found by _code_spans), with
# the SILENT that may follow it; a variable or prefixed name (?service, ex:service) is no
# keyword: the characters around it say so. After a `.` it is masked even where it would be
# part of a name (ex:a.service): a parse error there is a price, a call would not be.
SERVICE = re.compile(r"(?<![\w?$:\-])SERVICE(?:\s+SILENT)?(?![\w:\-])", re.IGNORECASE)


class QuerySyntaxError(QueryRefused):
    """A query the engine cannot parse: its message, 1-based line and column (in characters)."""

    def __init__(self, message: str, line: int | None, column: int | None):
        self.message, self.line, self.column = message, line, column
        where = None if line is None else {"line": line, "column": column}
        super().__init__("malformed", 400, "malformed query",
                         message if line is None else f"line {line}, column {column}: {message}",
                         where)


def from_engine(exc: SyntaxError) -> QuerySyntaxError:
    """Oxigraph's SyntaxError ("error at 3:18: expected ...") as line, column and message."""
    text = str(exc)
    found = ENGINE_POSITION.match(text)
    if not found:
        return QuerySyntaxError(readable(text), None, None)
    return QuerySyntaxError(readable(text[found.end():]), int(found[1]), int(found[2]))


def readable(message: str) -> str:
    """Oxigraph's "expected one of ..." with its character classes left out (a prefixed
    name's gave 600 characters of `'\\u{00C0}'..='\\u{00D6}'` ranges) and an undeclared
    prefix said first, in words."""
    if not message.startswith(EXPECTED):
        return message
    items = _alternatives(message[len(EXPECTED):])
    words = [i for i in items if not i.startswith(("[", "'"))]
    if "Prefix not found" in words:
        return "the prefix is not declared: add a PREFIX line for it"
    if not words:
        return "unexpected character"
    rest = " or another character" if len(words) < len(items) else ""
    return EXPECTED + ", ".join(words) + rest


EXPECTED = "expected one of "


def _alternatives(text: str) -> list[str]:
    """The comma-separated items of Oxigraph's list, commas inside [...] and quotes kept."""
    items, depth, quoted, start = [], 0, False, 0
    for i, c in enumerate(text):
        if c == "'" and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and c == "[":
            depth += 1
        elif not quoted and c == "]":
            depth -= 1
        elif not quoted and depth == 0 and c == ",":
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [i for i in items if i]


def engine_error(text: str, base_iri: str | None = None,
                 prefixes: dict[str, str] | None = None) -> QuerySyntaxError | None:
    """What Oxigraph says of the query's syntax, without running it on any data or calling
    any service; None if it parses."""
    masked = without_service(text)

    def parse() -> None:
        result = ox.Store().query(masked, base_iri=base_iri, prefixes=prefixes)
        del result  # a SELECT, CONSTRUCT or DESCRIBE is lazy: nothing is evaluated

    try:
        bigstack.call(parse)  # Oxigraph's parser recurses: a deep stack, as for the run
    except SyntaxError as exc:
        return from_engine(exc)
    except (OSError, ValueError, TypeError):  # parsed; the empty store's evaluation failed
        return None
    return None


def without_service(text: str) -> str:
    """The text with each SERVICE keyword (and its SILENT) as GRAPH and spaces, outside
    strings, IRIs and comments; every other character where it was."""
    if "service" not in text.lower():
        return text
    out = list(text)
    for start, end in _code_spans(text):
        for found in SERVICE.finditer(text, start, end):
            a, b = found.span()
            out[a:b] = "GRAPH" + " " * (b - a - 5)
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The stretches of the query outside strings, <IRIs> and # comments (a `<` that starts
    no IRI, a less-than, stays code)."""
    from .text import IRIREF, line_end, string_end

    spans, start, i, n = [], 0, 0, len(text)
    while i < n:
        c = text[i]
        end = None
        if c == "#":
            end = line_end(text, i)
        elif c in "\"'":
            end = string_end(text, i)
        elif c == "<":
            iri = IRIREF.match(text, i)
            end = iri.end() if iri else None
        if end is None:
            i += 1
            continue
        spans.append((start, i))
        start = i = end
    spans.append((start, n))
    return spans
