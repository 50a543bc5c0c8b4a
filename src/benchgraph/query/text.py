"""A linear look at SPARQL text before any parser reads it: how deep it nests, and the
characters and escapes that rdflib's parser and Oxigraph's would read differently.

Both checks are plain scans, no parser: a query nested thousands of levels deep overflows
rdflib's recursion and crashes pyoxigraph (a stack overflow kills the process), so depth is
measured before either sees the text. The endpoint decides what is safe to run on rdflib's
reading of a query while Oxigraph runs it; where the two grammars differ (a comment ended
by a bare carriage return, a `\\u` escape of a quote), a query could mean one thing to the
check and another to the engine, so such text is refused.
"""

from __future__ import annotations

import re

from .. import settings
from ..errors import CannotRun, QueryRefused

DEFAULT_MAX_DEPTH = settings.SETTINGS["QUERY_MAX_DEPTH"].default  # 256
MAX_DEPTH_ENV = "BENCHGRAPH_QUERY_MAX_DEPTH"
# Oxigraph recurses along flat chains too (triple patterns, UNION, FILTER, `+`, `!`): on the
# 256 MiB stack stack.py gives it, 50,000 of each run and 200,000 may crash the process.
# So the operators and separators of a query are counted, outside strings, IRIs, comments.
DEFAULT_MAX_OPERATORS = settings.SETTINGS["QUERY_MAX_OPERATORS"].default  # 50,000
MAX_OPERATORS_ENV = "BENCHGRAPH_QUERY_MAX_OPERATORS"
# The parts of a query's algebra (query/gate.py counts them on rdflib's parse tree): each
# pattern, group, OPTIONAL, UNION branch, MINUS, GRAPH, FILTER, BIND, VALUES, subquery, path
# step, operator and function call. Store servers recurse along them with far less stack than
# the embedded store's 256 MiB. Measured (benchmarks/store_algebra_bench.py, its report in
# benchmarks/reports/store-algebra.md; Oxigraph server 0.5.13, Debian's Virtuoso 7.2.5): the
# Oxigraph server aborts, a stack overflow, at as few as 700 GRAPHs, 740 OPTIONALs, 750
# MINUSes or 800 BINDs in a row, or 800 triple patterns of one subject (1 server in 10; the
# point varies between runs), about 800 parts at the lowest; Virtuoso crashes at 4,650 `&&`
# and 6,500 `+`. At 400 parts no server died (each kind 10 times on fresh Oxigraph servers, 3
# on Virtuosos): half the lowest. The largest saved query (scaling-by-fabric) has 349.
DEFAULT_MAX_PARTS = settings.SETTINGS["QUERY_MAX_PARTS"].default  # 400
MAX_PARTS_ENV = "BENCHGRAPH_QUERY_MAX_PARTS"
OPERATORS = frozenset("{}()[].;,|/^!+-*&=<>")

OPENERS, CLOSERS = "{([", "})]"
# An IRIREF as both grammars define it (with Oxigraph's \\u escapes); a `<` that starts none
# is an operator.
IRIREF = re.compile(r'<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>')
BRACKETS = re.compile(r"[()\[\]]")
BARE_CR = re.compile(r"\r(?!\n)")
# Line ends to some readers but to neither SPARQL grammar (which both refuse outside
# comments and strings): refused outside strings, so no comment can end early in one reader.
AMBIGUOUS_BREAKS = {
    "\f": "a form feed",
    "\v": "a vertical tab",
    "\x85": "a next-line (U+0085)",
    "\u2028": "a line separator (U+2028)",
    "\u2029": "a paragraph separator (U+2029)",
}
BREAKS = re.compile("[" + "".join(AMBIGUOUS_BREAKS) + "]")
# rdflib expands these everywhere before parsing, case-insensitively, greedily taking 8 hex
# digits after either letter; Oxigraph expands `\u` + 4 and `\U` + 8, inside strings and IRIs
# only. Both readings of every escape are checked.
ESCAPE = re.compile(r"\\[uU]([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})?")
# A run of characters the scan has nothing to do with (not an operator, bracket, comment or
# string start, nor a break refused above): skipped in one step, since most of a query is
# names and spaces.
PLAIN = re.compile(
    "[^" + re.escape("".join(sorted(OPERATORS)) + "#\"'" + "".join(AMBIGUOUS_BREAKS)) + "]+"
)


# What a query begins with, where a `<` can only open an IRI: white space (SPARQL's), comments
# and BASE and PREFIX declarations. Possessive: read once, however long.
_IRI = IRIREF.pattern
PROLOGUE = re.compile(
    rf"(?:[ \t\r\n]++|#[^\r\n]*+|(?i:BASE)[ \t\r\n]*+{_IRI}"
    rf"|(?i:PREFIX)[ \t\r\n]*+(?:[A-Za-z][\w.-]*+)?:[ \t\r\n]*+{_IRI})*+"
)
# Where code may stop being code: a comment, a string, an IRI, an escape.
CODE_BREAKS = re.compile(r"[#\"'<\\]")


class QueryTextError(QueryRefused):
    """Query text refused before any parser reads it, with where (1-based line and column)."""

    # the reason -> (code, title)
    KINDS = {
        "too deep": ("query-too-deep", "query too deep"),
        "too long": ("query-too-long", "query too long"),
        "ambiguous": ("ambiguous-query", "ambiguous query"),
    }

    def __init__(self, message: str, line: int, column: int, reason: str):
        self.message, self.line, self.column = message, line, column
        self.reason = reason  # "too deep", "too long" or "ambiguous"
        code, title = self.KINDS[reason]
        super().__init__(
            code,
            400,
            title,
            f"line {line}, column {column}: {message}",
            {"line": line, "column": column},
        )


def max_depth() -> int:
    """The nesting limit: BENCHGRAPH_QUERY_MAX_DEPTH, else DEFAULT_MAX_DEPTH."""
    return _limit(MAX_DEPTH_ENV, DEFAULT_MAX_DEPTH, "levels")


def max_operators() -> int:
    """The operator limit: BENCHGRAPH_QUERY_MAX_OPERATORS, else DEFAULT_MAX_OPERATORS."""
    return _limit(MAX_OPERATORS_ENV, DEFAULT_MAX_OPERATORS, "operators")


def max_parts() -> int:
    """The algebra budget: BENCHGRAPH_QUERY_MAX_PARTS, else DEFAULT_MAX_PARTS."""
    return _limit(MAX_PARTS_ENV, DEFAULT_MAX_PARTS, "parts")


def _limit(env: str, default: int, what: str) -> int:
    given = (settings.raw_env(env) or "").strip()
    if not given:
        return default
    try:
        limit = int(given)
    except ValueError:
        limit = 0
    if limit < 1:
        raise CannotRun(
            f"{env}={given!r}: give a whole number of {what}, at least 1 (default {default})"
        )
    return limit


def check_depth(text: str, limit: int | None = None) -> int:
    """The deepest nesting of `{ ( [` and `<< >>` outside strings and comments; raise
    QueryTextError if it passes `limit` (default: max_depth()), or if the query has more
    operators and separators than max_operators()."""
    return _scan(text, max_depth() if limit is None else limit, ambiguity=False)[0]


def measure(text: str) -> tuple[int, int]:
    """The nesting depth and the count of operators and separators, as check_text counts
    them; QueryTextError past the limits."""
    return _scan(text, max_depth(), ambiguity=False)


def check_text(text: str, limit: int | None = None) -> tuple[int, int]:
    """check_depth, and refuse what rdflib and Oxigraph may read differently: a carriage
    return not followed by a line feed, anywhere; outside strings a form feed, vertical tab,
    U+0085, U+2028 or U+2029; a `\\u`/`\\U` escape of ASCII other than a letter or digit,
    of a control or line-break character, of a surrogate, or of no character. Answers the
    nesting depth and the count of operators and separators."""
    bare = BARE_CR.search(text)
    if bare:
        raise _bare_cr(text, bare.start())
    _check_escapes(text)
    return _scan(text, max_depth() if limit is None else limit, ambiguity=True)


def _scan(text: str, limit: int, ambiguity: bool) -> tuple[int, int]:
    """One pass, as Oxigraph splits the text: comments end at CR or LF, strings honour
    backslash escapes. A `<` that may start an IRI or be an operator is read both ways for
    the depth: the brackets inside count as opened, never as closed."""
    depth = deepest = 0
    i, n = 0, len(text)
    operators, most = 0, max_operators()

    def deeper(by: int, at: int) -> None:
        nonlocal depth, deepest
        depth += by
        if depth > deepest:
            deepest = depth
            if depth > limit:
                raise _error(
                    text,
                    at,
                    "too deep",
                    f"the query nests deeper than the limit of {limit} levels of "
                    "{ }, ( ), [ ] and << >>; flatten it (the limit is set by "
                    f"{MAX_DEPTH_ENV})",
                )

    plain = PLAIN.match
    while i < n:
        run = plain(text, i)
        if run:
            i = run.end()
            continue
        c = text[i]
        if c in OPERATORS:
            operators += 1
            if operators > most:
                raise _error(
                    text,
                    i,
                    "too long",
                    f"the query has more than {most:,} operators and separators "
                    "({ } ( ) . ; , | / ! + - * and the like, outside strings); the "
                    "engine could not hold so long a chain: split it (the limit is "
                    f"set by {MAX_OPERATORS_ENV})",
                )
        if c in OPENERS:
            deeper(1, i)
        elif c in CLOSERS:
            depth = max(depth - 1, 0)
        elif c == "#":
            end = line_end(text, i)
            if ambiguity:
                _check_breaks(text, i, end)
            i = end
            continue
        elif c in "\"'":
            i = string_end(text, i)
            continue
        elif c == "<":
            if text.startswith("<", i + 1) and not IRIREF.match(text, i + 1):
                deeper(1, i)  # a triple term, not a less-than before an IRI
                i += 2
                continue
            iri = IRIREF.match(text, i)
            if iri and BRACKETS.search(text, i + 1, iri.end() - 1) is None:
                i = iri.end()  # nothing in it to count: the common case
                continue
            if iri:
                inside = held = 0
                for j in range(i + 1, iri.end() - 1):
                    if text[j] in "([":
                        inside += 1
                        held = max(held, inside)
                    elif text[j] in ")]":
                        inside -= 1
                if held:
                    peak = depth
                    deeper(held, i)
                    depth = peak + max(inside, 0)
                i = iri.end()
                continue
        elif c == ">" and text.startswith(">", i + 1):
            depth = max(depth - 1, 0)
            i += 2
            continue
        elif ambiguity and c in AMBIGUOUS_BREAKS:
            raise _ambiguous_break(text, i)
        i += 1
    return deepest, operators


def code_outside(text: str) -> str | None:
    """The query's code as Oxigraph reads it: its text after the prologue (see PROLOGUE),
    each comment and string literal made a space. None where the split may not be
    Oxigraph's: a backslash outside strings (a local name's `\\#` or `\\'`, an escape), or,
    after the prologue, a `<...>` holding `#`, `'` or a backslash, which Oxigraph may read
    as an IRI or as a less-than (`FILTER(?a<?b&&'>'=?c)`), so that a comment or string
    would start in one reading only. Refuse with check_text first: a bare CR ends a
    comment here as it does in Oxigraph."""
    i = PROLOGUE.match(text).end()
    parts: list[str] = []
    n = len(text)
    while i < n:
        found = CODE_BREAKS.search(text, i)
        if found is None:
            parts.append(text[i:])
            break
        j = found.start()
        parts.append(text[i:j])
        c = text[j]
        if c == "\\":
            return None
        if c == "<":
            iri = IRIREF.match(text, j)
            if iri is None:  # a less-than, or the first of <<
                parts.append(c)
                i = j + 1
                continue
            inside = iri[0]
            if "#" in inside or "'" in inside or "\\" in inside:
                return None
            parts.append(inside)
            i = iri.end()
            continue
        parts.append(" ")
        i = line_end(text, j) if c == "#" else string_end(text, j)
    return "".join(parts)


def line_end(text: str, start: int) -> int:
    """Where a comment starting at `start` ends: the first CR or LF (Oxigraph's rule; rdflib
    ends it at LF only, which is why a bare CR is refused)."""
    ends = [p for p in (text.find("\n", start), text.find("\r", start)) if p >= 0]
    return min(ends) if ends else len(text)


def string_end(text: str, start: int) -> int:
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


def _check_breaks(text: str, start: int, end: int) -> None:
    found = BREAKS.search(text, start, end)  # a regex: comments are long, Python loops slow
    if found:
        raise _ambiguous_break(text, found.start())


def _check_escapes(text: str) -> None:
    if "\\" not in text:
        return
    for found in ESCAPE.finditer(text):
        # rdflib's reading first (8 digits when there are 8), then Oxigraph's (\u: 4)
        readings = [int(found[1] + (found[2] or ""), 16)]
        if found[2] and found[0][1] == "u":
            readings.append(int(found[1], 16))
        for code in readings:
            why = _unsafe_escape(code)
            if why:
                raise _error(
                    text,
                    found.start(),
                    "ambiguous",
                    f"the escape {found[0]!r} stands for {why}; rdflib reads escapes "
                    "before parsing, Oxigraph only inside strings and IRIs, so they "
                    "would read different queries: write the character itself (in a "
                    "string, \\\" \\' \\\\ \\n \\r \\t serve for those)",
                )


def _unsafe_escape(code: int) -> str:
    """Why an escaped code point could change how a parser splits the query; "" if it
    cannot."""
    if code > 0x10FFFF:
        return f"no character (U+{code:X} is past U+10FFFF)"
    if 0xD800 <= code <= 0xDFFF:
        return f"no character (U+{code:04X} is a surrogate)"
    char = chr(code)
    if code < 0x80 and not char.isalnum():
        return f"{char!r}, which has a role in the grammar"
    if char in AMBIGUOUS_BREAKS or 0x80 <= code < 0xA0:
        return f"{char!r}, a control or line-break character"
    return ""


def _bare_cr(text: str, i: int) -> QueryTextError:
    return _error(
        text,
        i,
        "ambiguous",
        "a carriage return not followed by a line feed: Oxigraph ends a # comment "
        "there and rdflib does not, so they would read different queries; end lines "
        "with LF or CR LF (in a string, write \\r)",
    )


def _ambiguous_break(text: str, i: int) -> QueryTextError:
    return _error(
        text,
        i,
        "ambiguous",
        f"{AMBIGUOUS_BREAKS[text[i]]} outside a string: a line end to some readers "
        "and not to others; use a space or a line feed",
    )


def _error(text: str, i: int, reason: str, message: str) -> QueryTextError:
    line = text.count("\n", 0, i) + 1
    column = i - (text.rfind("\n", 0, i) + 1) + 1
    return QueryTextError(message, line, column, reason)
