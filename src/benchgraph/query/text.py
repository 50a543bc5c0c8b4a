"""The limits a query's text is read against, and the refusals of what the reading finds: too
deep, too long, or read apart by rdflib's parser and Oxigraph's.

The reading itself is lexicon.py's one pass, no parser: a query nested thousands of levels deep
overflows rdflib's recursion and crashes pyoxigraph (a stack overflow kills the process), so
depth is measured before either sees the text. The endpoint decides what is safe to run on
rdflib's reading of a query while Oxigraph runs it; where the two grammars differ (a comment
ended by a bare carriage return, a `\\u` escape of a quote), a query could mean one thing to
the check and another to the engine, so such text is refused.
"""

from __future__ import annotations

from .. import settings
from ..errors import CannotRun, QueryRefused
from .escapes import AMBIGUOUS_BREAKS
from .lexicon import Lexed, Limits, Problem, read

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
# on Virtuosos): half the lowest. The largest saved query (scaling-by-fabric) has 395.
DEFAULT_MAX_PARTS = settings.SETTINGS["QUERY_MAX_PARTS"].default  # 400
MAX_PARTS_ENV = "BENCHGRAPH_QUERY_MAX_PARTS"
# rdflib's parse costs about 0.3 ms a token (a 100,000-row VALUES: 30 s), so a text rdflib
# must read (one with FROM or SERVICE, one that may pass the parts budget, any query sent to a
# store server) may have this many tokens at most: some 1.5 s of parse. The largest saved
# query (scaling-by-fabric) has 1,674.
DEFAULT_MAX_TOKENS = settings.SETTINGS["QUERY_MAX_TOKENS"].default  # 5,000
MAX_TOKENS_ENV = "BENCHGRAPH_QUERY_MAX_TOKENS"


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


def max_tokens() -> int:
    """The token limit of a text rdflib reads: BENCHGRAPH_QUERY_MAX_TOKENS, else 5,000."""
    return _limit(MAX_TOKENS_ENV, DEFAULT_MAX_TOKENS, "tokens")


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


def lexed(text: str, parse: bool = False, whole: bool = False, depth: int | None = None) -> Lexed:
    """The one pass over the text (lexicon.read), against this server's limits (`depth`: a
    nesting limit of its own). `parse`: the text is parsed whatever it holds (a store
    server's); `whole`: read on past all but the depth and operator limits."""
    limits = Limits(
        max_depth() if depth is None else depth, max_operators(), max_parts(), max_tokens()
    )
    return read(text, limits, parse, whole)


def text_error(text: str, found: Lexed) -> QueryTextError | None:
    """The refusal of the first problem the pass met: a bare carriage return or an escape
    refused first, wherever they are, then the first met on the way."""
    problems = [p for p in (found.ambiguity, found.limit) if p is not None]
    if not problems:
        return None
    return _refusal(text, min(problems, key=lambda p: (p.kind not in ("bare-cr", "escape"), p.at)))


def check_depth(text: str, limit: int | None = None) -> int:
    """The deepest nesting of `{ ( [` and `<< >>` outside strings and comments; raise
    QueryTextError if it passes `limit` (default: max_depth()), or if the query has more
    operators and separators than max_operators()."""
    return measure(text, limit)[0]


def measure(text: str, limit: int | None = None) -> tuple[int, int]:
    """The nesting depth and the count of operators and separators of the whole text, as
    check_text counts them; QueryTextError past the limits."""
    found = lexed(text, whole=True, depth=limit)
    if found.limit is not None:
        raise _refusal(text, found.limit)
    return found.depth, found.operators


def check_text(text: str, limit: int | None = None) -> tuple[int, int]:
    """check_depth, and refuse what rdflib and Oxigraph may read differently: a carriage
    return not followed by a line feed, anywhere; outside strings a form feed, vertical tab,
    U+0085, U+2028 or U+2029; a `\\u`/`\\U` escape of ASCII other than a letter or digit,
    of a control or line-break character, of a surrogate, or of no character. Answers the
    nesting depth and the count of operators and separators."""
    found = lexed(text, whole=True, depth=limit)
    error = text_error(text, found)
    if error is not None:
        raise error
    return found.depth, found.operators


def _refusal(text: str, problem: Problem) -> QueryTextError:
    """The problem in words, at its line and column."""
    kind = problem.kind
    if kind == "deep":
        limit = int(problem.what)
        return _error(
            text,
            problem.at,
            "too deep",
            f"the query nests deeper than the limit of {limit} levels of "
            "{ }, ( ), [ ] and << >>; flatten it (the limit is set by "
            f"{MAX_DEPTH_ENV})",
        )
    if kind == "operators":
        return _error(
            text,
            problem.at,
            "too long",
            f"the query has more than {int(problem.what):,} operators and separators "
            "({ } ( ) . ; , | / ! + - * and the like, outside strings); the "
            "engine could not hold so long a chain: split it (the limit is "
            f"set by {MAX_OPERATORS_ENV})",
        )
    if kind == "bare-cr":
        message = (
            "a carriage return not followed by a line feed: Oxigraph ends a # comment "
            "there and rdflib does not, so they would read different queries; end lines "
            "with LF or CR LF (in a string, write \\r)"
        )
    elif kind == "break":
        message = (
            f"{AMBIGUOUS_BREAKS[problem.what]} outside a string: a line end to some readers "
            "and not to others; use a space or a line feed"
        )
    else:
        message = (
            f"the escape {problem.what!r} stands for {problem.why}; rdflib reads escapes "
            "before parsing, Oxigraph only inside strings and IRIs, so they "
            "would read different queries: write the character itself (in a "
            "string, \\\" \\' \\\\ \\n \\r \\t serve for those)"
        )
    return _error(text, problem.at, "ambiguous", message)


def _error(text: str, i: int, reason: str, message: str) -> QueryTextError:
    line = text.count("\n", 0, i) + 1
    column = i - (text.rfind("\n", 0, i) + 1) + 1
    return QueryTextError(message, line, column, reason)
