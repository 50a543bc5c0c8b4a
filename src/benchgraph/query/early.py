"""Refusals decided on a query's tokens (lexicon.py's one pass), before rdflib parses it: its
parts past the algebra budget, a text too long to parse, a function a store or the engine would
run as its own, a SERVICE to an endpoint not allowed, an engine pragma. Each with the message
the check on the parse tree gives (gate.py, inspect.py), so that a text is refused the same way
whether the tokens or the tree found it; what the tokens cannot decide is left to the tree.

Imports no rdflib: the embedded store's query workers run these on every query.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urljoin

from ..errors import QueryRefused
from .census import local_name
from .gate import ALLOWED, XSD, Shape, check_query
from .lexicon import Lexed
from .text import MAX_TOKENS_ENV, max_tokens, text_error

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


def check_lexed(text: str, found: Lexed, parse: bool) -> None:
    """Refuse (400) what the pass over the text found: a problem of the text (text.py's
    refusals: too deep, too long, ambiguous), more parts than the algebra budget, and, where
    it is to be parsed (`parse`), more tokens than max_tokens()."""
    error = text_error(text, found)
    if error is not None:
        raise error
    if found.over_parts:
        check_query(Shape(size=found.parts), functions=False, at_least=True)
    if parse and found.over_tokens:
        limit = max_tokens()
        raise QueryRefused(
            "query-too-long",
            400,
            "query too long",
            f"the query has more than {limit:,} tokens (names, terms, operators, outside "
            "comments), this server's limit for a query it reads before running it (one with "
            "FROM or SERVICE, a large one, any query sent to a store server); split it or "
            f"make it shorter (the limit is set by {MAX_TOKENS_ENV})",
        )


def check_remote_text(
    text: str, found: Lexed, prefixes: dict[str, str] | None, sure: bool = True
) -> None:
    """What a query sent to a store server may not hold, on its tokens: an engine pragma
    (403), a problem of its text, too many parts or tokens (400), a function outside
    gate.ALLOWED (403). `sure`: `prefixes` are all the server declares, so a call with
    another prefix is refused as undeclared (else it is left to the parse tree's check)."""
    if found.pragma:
        raise pragma_refused()
    check_lexed(text, found, parse=True)
    refused = [
        name for name, full in _calls(found, prefixes) if full not in ALLOWED and (full or sure)
    ]
    if refused:
        check_query(Shape(functions=tuple(sorted(set(refused)))), functions=True)


def check_engine_functions(found: Lexed, prefixes: dict[str, str] | None) -> None:
    """Refuse (400) a call of a function the embedded engine does not define, naming it, where
    the engine would fail as it evaluates the call (a 500 before). A prefixed name whose
    prefix neither the query nor `prefixes` declares is left to the engine's syntax error."""
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


def check_services_early(found: Lexed, allowed: Iterable[str]) -> None:
    """Refuse (403) a SERVICE the tokens show to an endpoint not allowed, with
    inspect.check_services' messages; one whose prefix is undeclared is left to the parse."""
    allowed = set(allowed)
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


def _calls(found: Lexed, prefixes: dict[str, str] | None) -> list[tuple[str, str]]:
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
