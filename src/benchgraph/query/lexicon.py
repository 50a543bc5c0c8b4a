"""SPARQL text read once, before any parser: one pass over its tokens gives every check made on
a query's text, and nothing else reads the text again (text.py words the refusals, early.py,
gate.py and inspect.py decide on what the pass found, store/remote.py takes the form from it).

The pass reads two grammars at once. As Oxigraph splits the text (comments end at CR or LF,
strings honour backslash escapes, a `<` that may open an IRI or be a less-than read both ways
for the depth): the nesting depth and the count of operators and separators, which both
parsers recurse along; what rdflib's parser and Oxigraph's would read differently (a carriage
return not followed by a line feed, a line break of one grammar only outside strings, a
`\\u` escape that changes how the text splits), refused; whether its code, as Oxigraph reads
it, may hold a SERVICE call or a FROM clause, or is split in a way that is not sure (a
backslash outside strings, an IRI holding `#`, `'` or a backslash after the prologue); its
form (SELECT, ASK, CONSTRUCT, DESCRIBE); an engine pragma before it (DEFINE); its `GRAPH ?var`
patterns. As rdflib reads it, `\\uXXXX` and `\\UXXXXXXXX` escapes read first (section 19.2,
rdflib's way: eight digits after either letter where there are eight): the census, what a
refusal needs to know without rdflib's parse, which takes seconds on the very texts to refuse
(10,000 `||` in a FILTER: 25 s): how many tokens, a lower bound on its parts, the functions it
calls, its SERVICE endpoints, its FROM clauses, its PREFIX and BASE declarations, and whether
it may hold an RDF collection (whose members are parts that no operator pays for).

Escapes that pass decode to letters, digits or characters past U+009F that break no line, so
the two readings split the text alike: one walk of the decoded text serves both, and each
place is said in the text as written. Two refusals come before the walk, as they always came
first, each a search for a character most texts lack: a bare carriage return anywhere, and an
escape refused. Where readings could still part (a local name's `\\#`, `\\'` or `\\"`,
which a scan of characters took for a comment or a string; a quote that opens no string), the
stricter is kept: such code is not sure (rdflib parses it), and a line break of one grammar
past such an escape is refused wherever it stands.

The tokens are SPARQL 1.1's (section 19.8): IRIs, prefixed names (PN_LOCAL's `\\-` and `%41`
escapes read), strings in the four quote forms, comments, numbers, variables, blank node
labels, words (keywords and built-in names) and punctuation. The count of parts is a lower
bound of gate.py's count on the parse tree: a token is counted only where the tree surely
counts a part for it (an OPTIONAL, MINUS, FILTER, BIND, UNION, GRAPH or SERVICE keyword,
`||`, `&&`, a path's `|` `/` `^` `!`, a function call, a member of an IN list or of an RDF
collection). Where a token's role depends on the grammar (a `(` opens an expression, an IN
list, an RDF collection, a VALUES row or its variables), a stack of the brackets open says
which.

The pass stops at the first thing that refuses the text (so an over-budget text costs the
reading of its first few hundred parts, not of its whole), unless asked to read it whole
(`whole`: the command line's depth check, which refuses nothing else). Its result is kept per
text and limits: the endpoint's later checks, and a store's gate, find it there.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from typing import NamedTuple

from .census import PART_PUNCTS, PART_WORDS, PROJECTION_WORDS, Call, declare, opened
from .escapes import AMBIGUOUS_BREAKS, BARE_CR, BREAKS, Decoded, decode

OPERATORS = frozenset("{}()[].;,|/^!+-*&=<>")
OPENERS, CLOSERS = "{([", "})]"
FORMS = frozenset({"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"})
# A PREFIX declaration's name as Oxigraph's prologue has it (what follows is an IRI).
PREFIX_NAME = re.compile(r"(?:[A-Za-z][\w.-]*)?:")
# An engine pragma at the start of the text as written (a store reads it so, escapes and all).
RAW_PRAGMA = re.compile(r"(?:\s|#[^\r\n]*+)*+define(?!\w)", re.IGNORECASE)
# A query with fewer operators than this share of the budget cannot pass it (gate.may_exceed).
PARTS_PER_OPERATOR = 3

# one token a match, by the group that matched; `other` is any character the grammar has no
# token for (the parser refuses it later)
_IRI = r'<[^<>"{}|^`\\\x00-\x20]*>'
_PN_ESCAPE = r"\\[_~.\-!$&'()*+,;=/?#@%]|%[0-9A-Fa-f]{2}"
_NAME_CHAR = r"[\w\-\u00B7]"
_LOCAL_END = rf"(?:{_NAME_CHAR}|:|{_PN_ESCAPE})"
_LOCAL = rf"{_LOCAL_END}(?:(?:{_NAME_CHAR}|[.:]|{_PN_ESCAPE})*{_LOCAL_END})?"
# white space is read with the token after it: half the matches on a long VALUES
TOKEN = re.compile(
    r"[ \t\r\n]*+(?:"
    r"(?P<comment>#[^\r\n]*+)"
    rf"|(?P<iri>{_IRI})"
    r'|(?P<string>"""(?:[^"\\]|\\.|"(?!""))*+"""'
    r"|'''(?:[^'\\]|\\.|'(?!''))*+'''"
    r'|"(?:[^"\\\r\n]|\\.)*+"'
    r"|'(?:[^'\\\r\n]|\\.)*+')"
    r"|(?P<var>[?$][\w\u00B7]+)"
    r"|(?P<blank>_:[\w\-.\u00B7]*[\w\-\u00B7])"
    rf"|(?P<pname>(?:[^\W\d_](?:[\w\-.\u00B7]*[\w\-\u00B7])?)?:(?:{_LOCAL})?)"
    r"|(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<word>[^\W\d]\w*)"
    rf"|(?P<punct>\|\||&&|!=|<=|>=|\^\^|<(?!{_IRI})<|>>|[{{}}()\[\].,;|/^!+\-*=<>@])"
    r"|(?P<other>.))",
    re.DOTALL,
)
# Tokens whose text may spell SERVICE or FROM (letters run on within them, not across).
SPELLING = frozenset({"iri", "var", "pname", "blank", "word"})


class Limits(NamedTuple):
    """The limits a pass reads against (text.py's, from the settings)."""

    depth: int
    operators: int
    parts: int
    tokens: int


@dataclass(frozen=True)
class Problem:
    """Why the text is refused before any parser: its kind (bare-cr, break, escape: the two
    parsers would read it apart; deep, operators: past a limit), where (an index in the text
    as written) and what (the break, the escape and why, or the limit passed)."""

    kind: str
    at: int
    what: str = ""
    why: str = ""


@dataclass(frozen=True)
class Lexed:
    """What one pass over a query's text finds (see the module's text). `stopped` says why the
    pass ended before the text did: "" (it read it all), "problem", "parts" (past the parts
    budget), "tokens" (past the token limit of a text to parse)."""

    depth: int
    operators: int
    tokens: int
    parts: int
    calls: tuple[Call, ...]  # each function called (census.Call)
    services: tuple[str, ...]  # each SERVICE endpoint as written
    pragma: bool  # starts with an engine pragma (DEFINE)
    has_from: bool
    prefixes: tuple[tuple[str, str], ...]
    base: str | None
    keyword: bool  # the code may hold SERVICE or FROM, or is split in a way not sure
    collection: bool  # an RDF collection with two or more terms may be in it
    form: str  # SELECT, ASK, CONSTRUCT, DESCRIBE; "" if none was read
    graph_variables: tuple[tuple[int, str], ...]  # where each `GRAPH ?var` starts, its variable
    graph_word: bool  # a GRAPH keyword anywhere in the code
    ambiguity: Problem | None  # the first place the two parsers would read apart
    limit: Problem | None  # past the depth or operator limit
    stopped: str
    needs_parse: bool  # keyword or collection, or operators enough to pass the parts budget
    over_parts: bool
    over_tokens: bool
    past_cap: bool  # read on past the token limit (where no parse was needed yet)
    parse: bool  # read as a text rdflib parses whatever it holds (a store server's)
    whole: bool  # read to its end whatever it met but a limit

    def covers(self, parse: bool, whole: bool) -> bool:
        """Whether a pass asked with `parse` and `whole` would find the same."""
        if self.whole:
            return whole or not (
                self.ambiguity
                or self.limit
                or self.over_parts
                or (self.over_tokens and (parse or self.needs_parse))
            )
        if whole:
            return not self.stopped
        if parse == self.parse:
            return True
        if parse:  # this pass went on past the token limit, which that one would not
            return not self.past_cap
        return not (self.stopped == "tokens" and not self.needs_parse)


# --- the pass, kept per text --------------------------------------------------------------
CACHED = 256  # texts whose pass is kept
_cache: OrderedDict[tuple[str, Limits], Lexed] = OrderedDict()
_lock = threading.Lock()


def read(text: str, limits: Limits, parse: bool = False, whole: bool = False) -> Lexed:
    """The pass over `text` against `limits`: kept, so that every check of a request reads
    the one pass. `parse`: the text is parsed whatever it holds (so its token limit refuses
    it whatever it holds); `whole`: read on past all but the depth and operator limits."""
    key = (text, limits)
    with _lock:
        found = _cache.get(key)
        if found is not None and found.covers(parse, whole):
            _cache.move_to_end(key)
            return found
    found = _Pass(text, limits, parse, whole).run()
    with _lock:
        _cache[key] = found
        _cache.move_to_end(key)
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    return found


def clear_cache() -> None:
    """Forget every pass kept (benchmarks time a pass on a fresh cache)."""
    with _lock:
        _cache.clear()


def _operator_chars(value: str) -> int:
    return sum(1 for c in value if c in OPERATORS)


class _Pass:
    """One reading of a text, token by token (see the module's text)."""

    def __init__(self, text: str, limits: Limits, parse: bool, whole: bool):
        self.text, self.limits, self.parse, self.whole = text, limits, parse, whole
        self.decoded: Decoded = decode(text, whole)
        self.escape_at = self.decoded.at + [len(self.decoded.text) + 1]  # a sentinel
        self.next_escape = 0
        self.has_backslash = "\\" in self.decoded.text
        self.depth = self.deepest = self.operators = self.tokens = self.parts = 0
        self.keyword = self.collection = self.past_cap = self.significant = False
        self.breaks_read = False  # every break past a local name's \# \' \" refused
        self.pragma = self.has_from = self.graph_word = False
        self.ambiguity: Problem | None = None
        self.limit: Problem | None = None
        self.stopped = ""
        self.form = ""
        self.prologue = 0  # 0: between declarations, 1: after BASE, 2: PREFIX, 3: its name
        self.pending: list[tuple[str, str]] = []  # a declaration begun
        self.graph_at = -1  # where a GRAPH keyword stands, waiting for its variable
        self.graph_variables: list[tuple[int, str]] = []
        self.watch = True  # a token is awaited: the first, a GRAPH's variable, a declaration's
        # the census: rdflib's reading
        self.stack = ["top"]  # top, group, expr, in, collection, data, row, vars
        self.calls: list[Call] = []
        self.services: list[str] = []
        self.prefixes: list[tuple[str, str]] = []
        self.base: str | None = None
        self.values_next = self.in_next = self.projection = False
        self.service_next = self.prefix_next = self.base_next = False
        self.declared = ""
        self.members = 0  # terms in the collection opened last

    def run(self) -> Lexed:
        # a bare carriage return anywhere, then the first escape refused, before the rest (as
        # the refusals were always ordered): each a search for a character most texts lack
        text, refused = self.text, self.decoded.refused
        bare = BARE_CR.search(text) if "\r" in text else None
        if bare:
            self.ambiguity = Problem("bare-cr", bare.start())
        elif refused:
            self.ambiguity = Problem("escape", refused[0], refused[2], refused[3])
        if self.ambiguity and not self.whole:
            self.stopped = "problem"
            self._pragma(refused[1] if refused else len(self.decoded.text))
        else:
            self._walk(len(self.decoded.text))
        if not self.pragma and self.decoded.text is not text:  # a store reads no escape
            self.pragma = RAW_PRAGMA.match(text) is not None
        needs = self._needs()
        over_parts = self.parts > self.limits.parts
        over_tokens = self.tokens > self.limits.tokens
        if not self.stopped and not self.whole:
            if over_parts:
                self.stopped = "parts"
            elif over_tokens and (self.parse or needs):
                self.stopped = "tokens"
        return Lexed(
            self.deepest,
            self.operators,
            self.tokens,
            self.parts,
            tuple(self.calls),
            tuple(self.services),
            self.pragma,
            self.has_from,
            tuple(self.prefixes),
            self.base,
            self.keyword,
            self.collection,
            self.form,
            tuple(self.graph_variables),
            self.graph_word,
            self.ambiguity,
            self.limit,
            self.stopped,
            needs,
            over_parts,
            over_tokens,
            self.past_cap,
            self.parse,
            self.whole,
        )

    def _needs(self) -> bool:
        return (
            self.keyword
            or self.collection
            or PARTS_PER_OPERATOR * self.operators + 1 > self.limits.parts
        )

    def _walk(self, end: int) -> None:
        """Read the decoded text up to `end`. Brackets, operators, variables and strings
        (most tokens) are read here, the counts in locals; words and the rarer tokens by the
        methods below, on the pass's attributes (the counts handed over and back)."""
        stack, (dcap, ocap, pcap, tcap) = self.stack, self.limits
        escapes, escape = len(self.escape_at) > 1, self.escape_at[0]
        tokens = ops = depth = deepest = 0
        prev = before = ("", "")
        for found in TOKEN.finditer(self.decoded.text, 0, end):
            kind = found.lastgroup
            value = found[kind]
            if escapes and escape < found.end():
                escape = self._escapes(kind, found.end())
            if kind == "comment":
                self._comment(found, value)
                if self.stopped:
                    break
                continue
            tokens += 1
            if tokens > tcap or self.parts > pcap:
                self.tokens, self.operators = tokens, ops
                if self._capped():
                    break
            taken = self.watch and self._watched(kind, value)
            context = stack[-1]
            if kind == "punct":
                counted = ops
                if value in OPENERS or value == "<<":
                    ops += 1
                    depth += 1
                    if depth > deepest:
                        deepest = depth
                    if value == "(":
                        stack.append(self._paren(context, prev, before))
                    elif value != "<<":
                        self._bracket(value, context)
                elif value in CLOSERS or value == ">>":
                    ops += 1
                    depth = depth - 1 if depth else 0
                    if value != ">>":
                        self._bracket(value, context)
                elif value != "@":
                    ops += len(value)
                    if value in PART_PUNCTS:
                        if context != "data" and context != "row":
                            self.parts += 1
                    elif value == "," and context == "in":
                        self.parts += 1
                if ops > ocap or deepest > dcap:
                    self._too_many(found.start("punct"), value, counted, ops > ocap)
                if self.prologue >= 0:
                    self._code_begins()
            elif kind == "var" or kind == "string" or kind == "number":
                if self.prologue >= 0:
                    self._code_begins()
                if kind == "var":
                    if not self.keyword:
                        upper = value.upper()
                        self.keyword = "SERVICE" in upper or "FROM" in upper
                elif kind == "number" and ("." in value or "-" in value or "+" in value):
                    counted = ops
                    ops += value.count(".") + value.count("-") + value.count("+")
                    if ops > ocap:
                        self._too_many(found.start("number"), value, counted, True)
                if context == "collection":
                    self._member()
            elif kind == "word":
                self._word(found, value, context)
            else:
                self.operators, self.depth, self.deepest = ops, depth, deepest
                self._rare(found, kind, value, context, taken)
                ops, depth, deepest = self.operators, self.depth, self.deepest
            if self.stopped:
                break
            if taken:
                prev = (kind, value)
            else:
                before, prev = prev, (kind, value)
        self.tokens, self.operators, self.depth, self.deepest = tokens, ops, depth, deepest

    def _pragma(self, end: int) -> None:
        """Only whether the text starts with an engine pragma (of a text refused before its
        walk: a store's refusal of the pragma comes first)."""
        for found in TOKEN.finditer(self.decoded.text, 0, end):
            if found.lastgroup != "comment":
                self._first(found.lastgroup, found[found.lastgroup])
                if self.significant:
                    return

    def _capped(self) -> bool:
        """Whether the pass stops here, past the parts budget or the token limit."""
        if self.whole:
            return False
        if self.parts > self.limits.parts:
            self.stopped = "parts"
        elif self.parse or self._needs():
            self.stopped = "tokens"
        else:
            self.past_cap = True
        return bool(self.stopped)

    def _watched(self, kind: str, value: str) -> bool:
        """A token some earlier one waits for: the first (an engine pragma?), a GRAPH's
        variable, a SERVICE's endpoint, a PREFIX's name and IRI, a BASE's IRI. Answers
        whether a declaration took it (the census reads no more of it)."""
        if not self.significant:
            self._first(kind, value)
        if self.graph_at >= 0:
            if kind == "var":
                self.graph_variables.append((self.graph_at, value))
            self.graph_at = -1
        if self.service_next and kind != "word":
            self.services.append(value)
            self.service_next = False
        taken = False
        if self.prefix_next:
            self.prefix_next, self.declared, taken = declare(
                kind, value, self.declared, self.prefixes
            )
        if self.base_next and not taken:
            self.base_next = False
            if kind == "iri":
                self.base = value[1:-1]
                taken = True
        self.watch = not self.significant or self.service_next or self.prefix_next
        return taken

    def _first(self, kind: str, value: str) -> None:
        """The first token but white space: whether it is an engine pragma (as rdflib reads
        it, and as a store would, after any white space Python's `\\s` knows)."""
        if kind == "other" and value.isspace():
            return
        self.significant = True
        self.pragma = kind == "word" and value.upper() == "DEFINE"

    def _escapes(self, kind: str, end: int) -> int:
        """Escapes read in this token: outside a string or comment, the split of the code may
        not be Oxigraph's (which reads escapes only in strings and IRIs). Answers where the
        next escape stands."""
        while self.escape_at[self.next_escape] < end:
            self.next_escape += 1
            if kind not in ("string", "comment"):
                self.keyword = True
        return self.escape_at[self.next_escape]

    # --- problems -------------------------------------------------------------------------
    def _raw(self, at: int) -> int:
        """Where a place of the decoded text is in the text as written."""
        d = self.decoded
        i = bisect_right(d.at, at) - 1
        if i < 0:
            return at
        if at == d.at[i]:
            return d.raw[i]
        return d.raw[i] + d.size[i] + at - d.at[i] - 1

    def _ambiguous(self, kind: str, at: int, what: str = "") -> None:
        if self.ambiguity is None:
            self.ambiguity = Problem(kind, self._raw(at), what)
        if not self.whole:
            self.stopped = "problem"

    def _too_many(self, at: int, value: str, counted: int, operators: bool) -> None:
        """Past the operator limit (at the token's operator that passed it, `counted` before
        it) or, else, the depth limit."""
        if operators:
            places = [i for i, c in enumerate(value) if c in OPERATORS]
            k = self.limits.operators - counted  # which of them, from 0
            at += places[k] if len(value) > 1 and k < len(places) and value != "<<" else 0
            self.limit = Problem("operators", self._raw(at), str(self.limits.operators))
        else:
            self.limit = Problem("deep", self._raw(at), str(self.limits.depth))
        self.stopped = "problem"

    def _deeper(self, by: int, at: int) -> None:
        self.depth += by
        if self.depth > self.deepest:
            self.deepest = self.depth
            if self.depth > self.limits.depth and not self.limit:
                self._too_many(at, "", 0, False)

    def _count(self, n: int, value: str, at: int) -> None:
        counted = self.operators
        self.operators += n
        if self.operators > self.limits.operators and not self.limit:
            self._too_many(at, value, counted, True)

    # --- the rarer tokens -------------------------------------------------------------------
    def _rare(self, found: re.Match, kind: str, value: str, context: str, taken: bool) -> None:
        """An IRI, a prefixed name, a blank node label, a number or another character."""
        at = found.start(kind)
        if kind == "iri":
            self._iri(value, at)
        elif kind == "other":
            self._other(value, at)
            return
        elif "." in value or "-" in value or "+" in value or "\\" in value:
            self._count(_operator_chars(value), value, at)
            if "\\" in value:
                self._escaped(value, at)
        if self.prologue < 0 or not self._declares(kind, value):
            self._code(kind, value)
        if not taken and context == "collection":
            self._member()

    def _comment(self, found: re.Match, value: str) -> None:
        if self.prologue > 0:  # no comment within a declaration in Oxigraph's prologue
            self._code_begins()
        bad = BREAKS.search(value)
        if bad:
            self._ambiguous("break", found.start("comment") + bad.start(), bad[0])

    def _iri(self, value: str, at: int) -> None:
        self._count(1, value, at)
        if "(" in value or "[" in value:  # read both ways: opened, never closed
            inside = held = 0
            for c in value[1:-1]:
                if c in "([":
                    inside += 1
                    held = max(held, inside)
                elif c in ")]":
                    inside -= 1
            if held:
                peak = self.depth
                self._deeper(held, at)
                self.depth = peak + max(inside, 0)

    def _escaped(self, value: str, start: int) -> None:
        """A local name's escapes: its \\( and \\) are brackets to a scan of characters,
        which reads its \\# as a comment and its \\' and \\" as a string beginning there
        (both parsers read a name). So past such an escape, where the two readings may
        disagree on what is in a string, a break anywhere is refused."""
        for i, c in enumerate(value):
            if c == "(":
                self._deeper(1, start + i)
            elif c == ")":
                self.depth = max(self.depth - 1, 0)
            elif c in "#'\"" and i and value[i - 1] == "\\" and not self.breaks_read:
                self.breaks_read = True
                bad = BREAKS.search(self.decoded.text, start + i)
                if bad:
                    self._ambiguous("break", bad.start(), bad[0])

    def _other(self, value: str, at: int) -> None:
        if value in AMBIGUOUS_BREAKS:
            self._ambiguous("break", at, value)
        elif value in OPERATORS:
            self._count(1, value, at)
        if self.prologue >= 0:
            self._code_begins()
        if value in "\\'\"":  # a backslash, or a quote that opens no string: the split of
            self.keyword = True  # the code is not sure (a parser refuses such text)

    # --- words --------------------------------------------------------------------------
    def _word(self, found: re.Match, value: str, context: str) -> None:
        """A keyword or a built-in's name: the code's, the form, a GRAPH, and the census's."""
        upper = value.upper()
        if self.prologue < 0 or not self._declares("word", value, upper):
            if "SERVICE" in upper or "FROM" in upper:
                self.keyword = True
        if not self.form and upper in FORMS:
            self.form = upper
        elif upper == "GRAPH":
            self.graph_word = self.watch = True
            self.graph_at = self._raw(found.start("word"))
        if upper in PART_WORDS and context not in ("data", "row"):
            self.parts += 1
        if upper == "SERVICE":
            self.service_next = self.watch = True
        elif upper == "VALUES":
            self.values_next = True
        elif upper == "IN":
            self.in_next = True
        elif upper == "WHERE":
            self.projection = False
        elif upper in PROJECTION_WORDS and context != "top":
            self.projection = True
        elif context == "top" and upper in ("FROM", "PREFIX", "BASE"):
            self.has_from = self.has_from or upper == "FROM"
            self.prefix_next = self.prefix_next or upper == "PREFIX"
            self.base_next = self.base_next or upper == "BASE"
            self.watch = True
        elif context == "collection" and upper in ("TRUE", "FALSE"):
            self._member()

    # --- the code, as Oxigraph splits it ------------------------------------------------------
    def _declares(self, kind: str, value: str, upper: str = "") -> bool:
        """Whether the token goes on the prologue (BASE <iri>, PREFIX name: <iri>); when it
        does not, the prologue is over, and a declaration it began is code."""
        state = self.prologue
        if state == 0 and upper in ("BASE", "PREFIX"):
            self.prologue = 1 if upper == "BASE" else 2
        elif state == 2 and kind == "pname" and PREFIX_NAME.fullmatch(value):
            self.prologue = 3
        elif state in (1, 3) and kind == "iri":
            self.prologue = 0
            self.pending = []
            return True
        else:
            self._code_begins()
            return False
        self.pending.append((kind, value))
        return True

    def _code_begins(self) -> None:
        self.prologue = -1
        for kind, value in self.pending:
            self._code(kind, value)
        self.pending = []

    def _code(self, kind: str, value: str) -> None:
        """A token of the code: may it spell SERVICE or FROM, or make the split unsure?"""
        if self.keyword:
            return
        if kind == "iri" and ("#" in value or "'" in value or "\\" in value):
            self.keyword = True  # Oxigraph may read a less-than: a comment or string may begin
        elif kind in SPELLING:
            upper = value.upper()
            if "SERVICE" in upper or "FROM" in upper or (self.has_backslash and "\\" in value):
                self.keyword = True

    # --- the census, as rdflib reads it -----------------------------------------------------
    def _member(self) -> None:
        self.parts += 1
        self.members += 1
        if self.members > 1:
            self.collection = True

    def _paren(self, context: str, prev: tuple[str, str], before: tuple[str, str]) -> str:
        """What a `(` opens (census.opened), its parts and call counted."""
        inside, counted, call = opened(
            context, self.in_next, self.values_next, self.projection, prev, before
        )
        self.parts += counted
        self.members = 0
        if call is not None:
            self.calls.append(call)
        self.in_next = False
        return inside

    def _bracket(self, value: str, context: str) -> None:
        """A `[`, `{`, `}`, `)` or `]`, on the census's stack."""
        if value == "[":
            if context == "collection":
                self.parts += 1
            self.stack.append("group")
        elif value == "{":
            self.stack.append("data" if self.values_next else "group")
            self.values_next = self.projection = False
        else:
            if value == "}":
                self.projection = False
            if len(self.stack) > 1:
                self.stack.pop()
