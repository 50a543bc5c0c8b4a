"""The census's rules: what a token of a query is to rdflib's parse tree, read by lexicon.py's
pass without the tree. A token counts as a part only where the tree surely counts one for it,
so that the count is a lower bound of gate.py's on the tree; where a `(` stands says what it
opens (an expression, an IN list, an RDF collection, a VALUES row or its variables).
"""

from __future__ import annotations

import re

# Keywords each of which is one part of the tree at least (gate.ONE_PART, and a UNION one
# branch past the first).
PART_WORDS = frozenset({"OPTIONAL", "MINUS", "FILTER", "BIND", "UNION", "GRAPH", "SERVICE"})
# Operators each one part: `||` `&&` (ConditionalOr/And), a path's `|` and `/` (or a
# division), `^` (an inverse path), `!` (a negation, or a negated property set).
PART_PUNCTS = frozenset({"||", "&&", "|", "/", "^", "!"})
TERMS = frozenset({"iri", "pname", "var", "string", "number", "blank"})
# Words before a `(` that opens an expression in a group: FILTER (...), BIND (...).
EXPRESSION_WORDS = frozenset({"FILTER", "BIND"})
# Words after which a `(` in a group is an expression up to the next brace: a subquery's
# projection (SELECT (...)) and its solution modifiers (GROUP BY (...), ORDER BY, HAVING).
PROJECTION_WORDS = frozenset({"SELECT", "GROUP", "ORDER", "HAVING"})
PN_UNESCAPE = re.compile(r"\\(.)")

Call = tuple[str, str | None, str]  # (as written, prefix or None, IRI or local name)


def local_name(written: str) -> str:
    """A prefixed name's local part with its PN_LOCAL escapes read (`\\-` is `-`)."""
    return PN_UNESCAPE.sub(r"\1", written)


def declare(
    kind: str, value: str, declared: str, prefixes: list[tuple[str, str]]
) -> tuple[bool, str, bool]:
    """One token after PREFIX: its name, then its IRI (added to `prefixes`). Answers whether
    a PREFIX is still being read, the name read so far, and whether the token was taken."""
    if kind == "pname" and not declared:
        return True, value, True
    if kind == "iri" and declared:
        prefixes.append((declared[:-1], value[1:-1]))
        return False, "", True
    return False, "", False


def opened(
    context: str,
    in_next: bool,
    values_next: bool,
    projection: bool,
    prev: tuple[str, str],
    before: tuple[str, str],
) -> tuple[str, int, Call | None]:
    """What a "(" opens, from where it stands and the two tokens before it: the context
    pushed, the parts it counts, and the function call it makes (None: none)."""
    (prev_kind, prev_text), (before_kind, before_text) = prev, before
    called = prev_kind in ("iri", "pname")
    call = _call(prev_kind, prev_text) if called else None
    if context == "collection":
        return "collection", 1, None  # a member
    if context in ("data", "row"):
        return "row", 0, None
    if values_next:
        return "vars", 0, None  # VALUES (?a ?b)
    if in_next:
        return "in", 1, None  # the IN, and its first member below
    if context in ("expr", "in", "top", "vars") or projection:
        return "expr", int(called), call
    if prev_kind == "word" and prev_text.upper() in EXPRESSION_WORDS:
        return "expr", 0, None
    if before_kind == "word" and before_text.upper() == "FILTER":  # FILTER ex:f(...)
        return "expr", int(called), call
    return "collection", 0, None  # in a group or a [ ]: an RDF collection


def _call(kind: str, written: str) -> Call:
    if kind == "iri":
        return written, None, written[1:-1]
    prefix, _, local = written.partition(":")
    return written, prefix, local_name(local)
