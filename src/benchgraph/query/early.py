"""Refusals decided on a query's tokens (lexicon.census), before rdflib parses it: its parts
past the algebra budget, a text too long to parse, a function a store or the engine would run
as its own, a SERVICE to an endpoint not allowed, an engine pragma. Each with the message the
check on the parse tree gives (gate.py, inspect.py), so that a text is refused the same way
whether the tokens or the tree found it; what the tokens cannot decide is left to the tree.

Imports no rdflib: the embedded store's query workers run these on every query.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urljoin

from .. import settings
from ..errors import QueryRefused
from .gate import ALLOWED, XSD, Shape, check_query
from .lexicon import Census, census
from .text import _limit, max_parts

# rdflib's parse costs about 0.3 ms a token (a 100,000-row VALUES: 30 s), so a text rdflib
# must read (one with FROM or SERVICE, one that may pass the parts budget, any query sent to a
# store server) may have this many tokens at most: some 1.5 s of parse. The largest saved
# query (scaling-by-fabric) has 1,453.
DEFAULT_MAX_TOKENS = settings.SETTINGS["QUERY_MAX_TOKENS"].default  # 5,000
MAX_TOKENS_ENV = "BENCHGRAPH_QUERY_MAX_TOKENS"
# The function IRIs the embedded Oxigraph (pyoxigraph 0.5) evaluates: SPARQL's casts and the
# other XSD constructors it implements. Any other IRI it refuses only when the call is
# evaluated, as a RuntimeError ("The custom function ... is not supported").
ENGINE_FUNCTIONS = ALLOWED | frozenset(
    XSD + name
    for name in (
        "time",
        "duration",
        "yearMonthDuration",
        "dayTimeDuration",
        "gYear",
        "gYearMonth",
        "gMonth",
        "gMonthDay",
        "gDay",
    )
)


def max_tokens() -> int:
    """The token limit of a text rdflib reads: BENCHGRAPH_QUERY_MAX_TOKENS, else 5,000."""
    return _limit(MAX_TOKENS_ENV, DEFAULT_MAX_TOKENS, "tokens")


def check_size(text: str, parse: bool) -> Census:
    """Refuse (400) a query whose tokens show more parts than the algebra budget, and, where
    it is to be parsed (`parse`), more tokens than max_tokens(). Answers the census."""
    limit = max_tokens()
    found = census(text, max_parts(), limit if parse else None)
    check_query(Shape(size=found.parts), functions=False, at_least=True)
    if parse and found.tokens > limit:
        raise QueryRefused(
            "query-too-long",
            400,
            "query too long",
            f"the query has more than {limit:,} tokens (names, terms, operators, outside "
            "comments), this server's limit for a query it reads before running it (one with "
            "FROM or SERVICE, a large one, any query sent to a store server); split it or "
            f"make it shorter (the limit is set by {MAX_TOKENS_ENV})",
        )
    return found


def check_remote_text(text: str, prefixes: dict[str, str] | None, sure: bool = True) -> None:
    """What a query sent to a store server may not hold, on its tokens: an engine pragma
    (403), too many parts or tokens (400), a function outside gate.ALLOWED (403). `sure`:
    `prefixes` are all the server declares, so a call with another prefix is refused as
    undeclared (else it is left to the parse tree's check)."""
    found = check_size(text, parse=True)
    if found.pragma:
        raise pragma_refused()
    refused = [
        name for name, full in _calls(found, prefixes) if full not in ALLOWED and (full or sure)
    ]
    if refused:
        check_query(Shape(functions=tuple(sorted(set(refused)))), functions=True)


def check_engine_functions(
    text: str, prefixes: dict[str, str] | None, found: Census | None = None
) -> None:
    """Refuse (400) a call of a function the embedded engine does not define, naming it, where
    the engine would fail as it evaluates the call (a 500 before). A prefixed name whose
    prefix neither the query nor `prefixes` declares is left to the engine's syntax error."""
    if found is None:
        found = census(text, max_parts(), None)
    if not found.calls:
        return
    refused = sorted(
        {
            name
            for name, full in _calls(found, prefixes)
            if full not in ENGINE_FUNCTIONS and not name.endswith("(an undeclared prefix)")
        }
    )
    if refused:
        more = f" and {len(refused) - 5} more" if len(refused) > 5 else ""
        names = ", ".join(refused[:5]) + more
        raise QueryRefused(
            "unknown-function",
            400,
            "unknown function",
            f"the query calls {names}, which this store does not define: SPARQL's own "
            "functions, the XSD casts and constructors (xsd:integer(...), xsd:date(...), "
            "...) are there",
        )


def check_services_early(text: str, allowed: Iterable[str]) -> None:
    """Refuse (403) a SERVICE the tokens show to an endpoint not allowed, with
    inspect.check_services' messages; one whose prefix is undeclared is left to the parse."""
    allowed = set(allowed)
    found = census(text, max_parts(), max_tokens())
    if not found.services:
        return
    if not allowed:
        raise QueryRefused(
            "service",
            403,
            "federated query refused",
            "SERVICE: federated queries (SERVICE) are off on this server",
        )
    known = dict(found.prefixes)
    for written in found.services:
        if written.startswith(("?", "$")):
            endpoint = "?" + written[1:]
        elif written.startswith("<"):
            endpoint = urljoin(found.base, written[1:-1]) if found.base else written[1:-1]
        else:
            prefix, _, local = written.partition(":")
            if prefix not in known:
                continue
            from .lexicon import local_name

            endpoint = known[prefix] + local_name(local)
        check_endpoints((endpoint,), allowed)


def check_endpoints(endpoints: Iterable[str], allowed: Iterable[str]) -> None:
    """Refuse (403) a SERVICE endpoint not on the allow-list ("?name": chosen at run time).
    Here, below inspect.py, so that the token pass and the parsed query share it."""
    allowed = set(allowed)
    for endpoint in endpoints:
        if endpoint.startswith("?"):
            raise QueryRefused(
                "service",
                403,
                "federated query refused",
                f"SERVICE {endpoint}: an endpoint chosen at run time cannot be "
                "checked, so this server does not call it",
            )
        if endpoint not in allowed:
            hint = (
                "federated queries (SERVICE) are off on this server"
                if not allowed
                else "allowed: " + ", ".join(sorted(allowed))
            )
            raise QueryRefused(
                "service",
                403,
                "federated query refused",
                f"SERVICE <{endpoint}> is not an allowed endpoint; {hint}",
            )


def pragma_refused() -> QueryRefused:
    return QueryRefused(
        "engine-pragma-refused",
        403,
        "engine pragma refused",
        "a query may not start with an engine pragma (define ...): the store "
        "would obey it, and pragmas fetch graphs and reach the engine's SQL",
    )


def _calls(found: Census, prefixes: dict[str, str] | None) -> list[tuple[str, str]]:
    """Each call as gate.py names it, with the IRI it stands for ("" where the prefix is
    not declared)."""
    known = {**(prefixes or {}), **dict(found.prefixes)}
    out = []
    for written, prefix, rest in found.calls:
        if prefix is None:
            out.append((f"<{rest}>", rest))
        elif prefix not in known:
            out.append((f"{written} (an undeclared prefix)", ""))
        else:
            full = known[prefix] + rest
            out.append((f"{prefix}:{rest} (<{full}>)", full))
    return out
