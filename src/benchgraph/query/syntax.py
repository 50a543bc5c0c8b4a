"""Where a query does not parse: one line, column and message, the same from `benchgraph
query` and from the endpoint, and nothing run to learn it.

The endpoint reads a query with rdflib's parser before it runs (to find SERVICE calls and
FROM clauses), Oxigraph reads it again to run it, and their parsers stop at different places
(`FILTER(?x = )`: Oxigraph at the `)`, rdflib at the FILTER). pyoxigraph parses only as part
of running a query, so asking it where a text fails means running the text; an ASK is
evaluated at once, and a SERVICE in it is called. So Oxigraph is never asked: a text rdflib
refuses is reported at rdflib's position, saying so, and Oxigraph's own position is reported
only where Oxigraph refused a text it was running anyway (one rdflib reads, or one the
endpoint sent unparsed). The CLI and the endpoint apply the same rule (`syntax_error`), so
both report the same place: rdflib's wherever rdflib refuses the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import CannotRun, QueryRefused
from . import stack

if TYPE_CHECKING:
    from pyparsing import ParseBaseException

ENGINE_POSITION = re.compile(r"^error at (\d+):(\d+): ?")
# rdflib's parser takes about 64 Python frames a level of ( ) and recurses along flat chains
# too (10,000 triple patterns are a RecursionError on the default limit): below these it
# parses on the caller's stack, above them on stack.py's, with a recursion limit to fit.
INLINE_DEPTH = 12
INLINE_OPERATORS = 300
FRAMES_PER_LEVEL = 64
# Said with every refusal made on rdflib's reading, since Oxigraph, which runs the queries,
# reads some texts rdflib does not (SPARQL 1.2's LATERAL, ...).
RDFLIB_READING = "as rdflib's parser reads it (Oxigraph, which runs queries, may read it otherwise)"


class QuerySyntaxError(QueryRefused):
    """A query the engine cannot parse: its message, 1-based line and column (in characters)."""

    def __init__(self, message: str, line: int | None, column: int | None):
        self.message, self.line, self.column = message, line, column
        where = None if line is None else {"line": line, "column": column}
        super().__init__(
            "malformed",
            400,
            "malformed query",
            message if line is None else f"line {line}, column {column}: {message}",
            where,
        )


def from_engine(exc: SyntaxError, query: str | None = None) -> QuerySyntaxError:
    """Oxigraph's SyntaxError ("error at 3:18: expected ...") as line, column and message;
    with the `query` it refused, an undeclared prefix is named."""
    text = str(exc)
    found = ENGINE_POSITION.match(text)
    if not found:
        return QuerySyntaxError(readable(text), None, None)
    line, column = int(found[1]), int(found[2])
    message = readable(text[found.end() :])
    if message == UNDECLARED and query is not None:
        prefix = undeclared_prefix(query, line, column)
        if prefix is not None:
            message = (
                f"the prefix {prefix}: is not declared{_declared_like(prefix, query)}: add a "
                f"PREFIX line for it (PREFIX {prefix}: <...>)"
            )
    return QuerySyntaxError(message, line, column)


def _declared_like(prefix: str, query: str) -> str:
    """' (did you mean bg:?)' for a declared prefix like `prefix`: the query's own or one
    benchgraph predeclares."""
    from ..namespaces import PREFIXES
    from .suggest import did_you_mean

    own = re.findall(r"(?i:PREFIX)\s+([A-Za-z][\w.-]*)?:", query)
    return did_you_mean(prefix, {*PREFIXES, *own} - {prefix}, ":")


# Oxigraph stops just after the prefixed name whose prefix it does not know: that name is
# the last one before the position.
PREFIXED_BEFORE = re.compile(r"([A-Za-z][\w.-]*)?:[^\s:]*$")


def undeclared_prefix(query: str, line: int, column: int) -> str | None:
    """The prefix of the prefixed name that ends at (1-based) `line`, `column`."""
    lines = query.split("\n")
    if not 1 <= line <= len(lines):
        return None
    found = PREFIXED_BEFORE.search(lines[line - 1][: max(0, column - 1)])
    return found[1] or "" if found else None


def readable(message: str) -> str:
    """Oxigraph's "expected one of ..." with its character classes left out (a prefixed
    name's gave 600 characters of `'\\u{00C0}'..='\\u{00D6}'` ranges) and an undeclared
    prefix said first, in words."""
    if not message.startswith(EXPECTED):
        return message
    items = _alternatives(message[len(EXPECTED) :])
    words = [i for i in items if not i.startswith(("[", "'"))]
    if "Prefix not found" in words:
        return UNDECLARED
    if not words:
        return "unexpected character"
    rest = " or another character" if len(words) < len(items) else ""
    return EXPECTED + ", ".join(words) + rest


EXPECTED = "expected one of "
UNDECLARED = "the prefix is not declared: add a PREFIX line for it"


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


def syntax_error(text: str, engine: SyntaxError) -> QuerySyntaxError:
    """Why a text the engine refused does not parse, as the CLI and the endpoint report it:
    rdflib's reading where rdflib refuses it too, else the engine's."""
    from .text import QueryTextError, measure

    try:
        parse(text, *measure(text))
    except QuerySyntaxError as rdflib_error:
        return rdflib_error
    except (QueryTextError, CannotRun, RecursionError, ValueError):  # too big for rdflib
        pass
    return from_engine(engine, text)


def parse(text: str, depth: int, operators: int) -> tuple[object, object]:
    """rdflib's parse of the query (its prologue and query); QuerySyntaxError, at rdflib's
    line and column, where rdflib refuses the text. Nothing is evaluated."""
    from pyparsing import ParseBaseException
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        return deep(lambda: parseQuery(text), depth, operators)
    except ParseBaseException as exc:
        raise from_rdflib(exc) from None


# pyparsing names the outermost rule that failed, which says nothing to a person: the
# query forms, or an alternation of them.
WHOLE_QUERY = re.compile(r"^Expected (?:\{.*\}|(?:Select|Construct|Describe|Ask)?Query)$")


def from_rdflib(exc: ParseBaseException) -> QuerySyntaxError:
    """pyparsing's refusal as line, column (1-based, in characters) and message."""
    if WHOLE_QUERY.match(exc.msg):
        said = f"the query cannot be read from {_found(exc)} on"
    else:
        said = f"{exc.msg}, found {_found(exc)}"
    return QuerySyntaxError(f"{said}, {RDFLIB_READING}", exc.lineno, exc.col)


def deep(work: Callable[[], object], depth: int, operators: int):
    """work(), on a thread with stack and recursion limit enough for the query when it is
    deeper or longer than the caller's stack is sure to hold."""
    if depth <= INLINE_DEPTH and operators <= INLINE_OPERATORS:
        return work()
    return stack.call(work, recursion_limit=FRAMES_PER_LEVEL * (depth + operators) + 2000)


def _found(exc: ParseBaseException) -> str:
    rest = exc.pstr[exc.loc : exc.loc + 20].split("\n")[0]
    return repr(rest) if rest else "the end of the query"
