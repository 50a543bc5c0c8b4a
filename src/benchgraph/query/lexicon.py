"""SPARQL text as tokens, read in one pass before any parser: what a refusal needs to know
of a query (how many tokens, a lower bound on its parts, the functions it calls, its SERVICE
endpoints, an engine pragma, its FROM clauses) without rdflib's parse, which takes seconds on
the very texts to refuse (10,000 `||` in a FILTER: 25 s).

The tokens are SPARQL 1.1's (section 19.8): IRIs, prefixed names (PN_LOCAL's `\\-` and
`%41` escapes read), strings in the four quote forms, comments, numbers, variables, blank
node labels, words (keywords and built-in names) and punctuation; `\\uXXXX` and
`\\UXXXXXXXX` escapes are decoded first, as section 19.2 says a parser does (text.check_text
has refused those that could change how a text splits).

The count of parts is a lower bound of gate.py's count on the parse tree: a token is counted
only where the tree surely counts a part for it (an OPTIONAL, MINUS, FILTER, BIND, UNION,
GRAPH or SERVICE keyword, `||`, `&&`, a path's `|` `/` `^` `!`, a function call, a member of
an IN list or of an RDF collection). So a query past the budget here is past it there too,
and is refused at once with the tree's message; one under it is parsed and counted as before.
Where a token's role depends on the grammar (a `(` opens an expression, an IN list, an RDF
collection or a VALUES row), a stack of the brackets open says which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# one token a match, by the group that matched; `other` is any character the grammar has no
# token for (the parser refuses it later)
_PN_ESCAPE = r"\\[_~.\-!$&'()*+,;=/?#@%]|%[0-9A-Fa-f]{2}"
_NAME_CHAR = r"[\w\-\u00B7]"
_LOCAL_END = rf"(?:{_NAME_CHAR}|:|{_PN_ESCAPE})"
_LOCAL = rf"{_LOCAL_END}(?:(?:{_NAME_CHAR}|[.:]|{_PN_ESCAPE})*{_LOCAL_END})?"
# white space is read with the token after it: half the matches on a long VALUES
TOKEN = re.compile(
    r"[ \t\r\n]*(?:"
    r"(?P<comment>#[^\r\n]*)"
    r'|(?P<iri><[^<>"{}|^`\\\x00-\x20]*>)'
    r'|(?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\r\n]|\\.)*"'
    r"|'(?:[^'\\\r\n]|\\.)*')"
    r"|(?P<var>[?$][\w\u00B7]+)"
    r"|(?P<blank>_:[\w\-.\u00B7]*[\w\-\u00B7])"
    rf"|(?P<pname>(?:[^\W\d_](?:[\w\-.\u00B7]*[\w\-\u00B7])?)?:(?:{_LOCAL})?)"
    r"|(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<word>[A-Za-z_]\w*)"
    r"|(?P<punct>\|\||&&|!=|<=|>=|\^\^|<<|>>|[{}()\[\].,;|/^!+\-*=<>@])"
    r"|(?P<other>.))",
    re.DOTALL,
)
CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
PN_UNESCAPE = re.compile(r"\\(.)")

# Keywords each of which is one part of the tree at least (gate.ONE_PART, and a UNION one
# branch past the first).
PART_WORDS = frozenset({"OPTIONAL", "MINUS", "FILTER", "BIND", "UNION", "GRAPH", "SERVICE"})
# Operators each one part: `||` `&&` (ConditionalOr/And), a path's `|` and `/` (or a
# division), `^` (an inverse path), `!` (a negation, or a negated property set).
PART_PUNCTS = frozenset({"||", "&&", "|", "/", "^", "!"})
TERMS = frozenset({"iri", "pname", "var", "string", "number", "blank"})
# Words before a `(` that opens an expression in a group: FILTER (...), BIND (...).
EXPRESSION_WORDS = frozenset({"FILTER", "BIND"})


@dataclass(frozen=True)
class Census:
    """What one pass over a query's tokens finds: how many tokens (outside comments and white
    space), a lower bound of its parts, each function it calls (the term as written, and the
    prefix's name or None for an IRI), each SERVICE endpoint as written, whether it starts
    with an engine pragma (DEFINE), whether it has FROM clauses, and its PREFIX and BASE
    declarations."""

    tokens: int
    parts: int
    calls: tuple[tuple[str, str | None, str], ...]  # (as written, prefix or None, IRI or local)
    services: tuple[str, ...]
    pragma: bool
    has_from: bool
    prefixes: tuple[tuple[str, str], ...]
    base: str | None


def decode(text: str) -> str:
    """The text with `\\uXXXX` and `\\UXXXXXXXX` escapes replaced by their characters."""
    if "\\u" not in text and "\\U" not in text:
        return text

    def char(found: re.Match) -> str:
        code = int(found[1] or found[2], 16)
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else found[0]

    return CODEPOINT.sub(char, text)


def local_name(written: str) -> str:
    """A prefixed name's local part with its PN_LOCAL escapes read (`\\-` is `-`)."""
    return PN_UNESCAPE.sub(r"\1", written)


@lru_cache(maxsize=256)
def census(text: str, parts_cap: int | None = None, tokens_cap: int | None = None) -> Census:
    """The query's Census, read in one pass over its tokens; the pass stops once it has
    counted more parts than `parts_cap` or more tokens than `tokens_cap` (a refusal is then
    sure: what it found so far is answered)."""
    parts_cap = float("inf") if parts_cap is None else parts_cap
    tokens_cap = float("inf") if tokens_cap is None else tokens_cap
    stack = ["top"]  # top, group, expr, in, collection, data, row
    tokens = parts = 0
    calls: list[tuple[str, str | None, str]] = []
    services: list[str] = []
    prefixes: list[tuple[str, str]] = []
    base = None
    pragma = has_from = False
    prev_kind = prev_text = ""
    before_kind = before_text = ""
    values_next = in_next = False
    service_next = prefix_next = base_next = False
    declared = ""
    for found in TOKEN.finditer(decode(text)):
        kind = found.lastgroup
        if kind == "comment":
            continue
        value = found[kind]
        tokens += 1
        if tokens > tokens_cap or parts > parts_cap:
            break
        upper = value.upper() if kind == "word" else ""
        context = stack[-1]
        if service_next and kind != "word":
            services.append(value)
            service_next = False
        if prefix_next:
            prefix_next, declared, taken = _declare(kind, value, declared, prefixes)
            if taken:
                prev_kind, prev_text = kind, value
                continue
        if base_next:
            base_next = False
            if kind == "iri":
                base = value[1:-1]
                prev_kind, prev_text = kind, value
                continue
        if kind == "word":
            if tokens == 1 and upper == "DEFINE":
                pragma = True
            if upper in PART_WORDS and context not in ("data", "row"):
                parts += 1
            if upper == "SERVICE":
                service_next = True
            elif upper == "VALUES":
                values_next = True
            elif upper == "IN":
                in_next = True
            elif upper == "FROM" and context == "top":
                has_from = True
            elif upper == "PREFIX" and context == "top":
                prefix_next = True
            elif upper == "BASE" and context == "top":
                base_next = True
            elif context == "collection" and upper in ("TRUE", "FALSE"):
                parts += 1
        elif kind == "punct":
            if value in PART_PUNCTS and context not in ("data", "row"):
                parts += 1
            elif value == "(":
                opened, counted, call = _open(
                    context, in_next, prev_kind, prev_text, before_kind, before_text
                )
                stack.append(opened)
                parts += counted
                if call is not None:
                    calls.append(call)
                in_next = False
            elif value == "[":
                if context == "collection":
                    parts += 1
                stack.append("group")
            elif value == "{":
                stack.append("data" if values_next else "group")
                values_next = False
            elif value in ")]}":
                if len(stack) > 1:
                    stack.pop()
            elif value == "," and context == "in":
                parts += 1
        elif kind in TERMS and context == "collection":
            parts += 1
        before_kind, before_text = prev_kind, prev_text
        prev_kind, prev_text = kind, value
    return Census(
        tokens,
        parts,
        tuple(calls),
        tuple(services),
        pragma,
        has_from,
        tuple(prefixes),
        base,
    )


def _declare(
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


def _open(
    context: str, in_next: bool, prev_kind: str, prev_text: str, before_kind: str, before_text: str
) -> tuple[str, int, tuple[str, str | None, str] | None]:
    """What a "(" opens, from where it stands and the two tokens before it: the context
    pushed, the parts it counts, and the function call it makes (None: none)."""
    called = prev_kind in ("iri", "pname")
    if context == "collection":
        return "collection", 1, None  # a member
    if context in ("data", "row"):
        return "row", 0, None
    if in_next:
        return "in", 1, None  # the IN, and its first member below
    if context in ("expr", "in", "top"):
        return "expr", int(called), _call(prev_kind, prev_text) if called else None
    if prev_kind == "word" and prev_text.upper() in EXPRESSION_WORDS:
        return "expr", 0, None
    if before_kind == "word" and before_text.upper() == "FILTER":  # FILTER ex:f(...)
        return "expr", int(called), _call(prev_kind, prev_text) if called else None
    return "collection", 0, None  # in a group or a [ ]: an RDF collection


def _call(kind: str, written: str) -> tuple[str, str | None, str]:
    if kind == "iri":
        return written, None, written[1:-1]
    prefix, _, local = written.partition(":")
    return written, prefix, local_name(local)
