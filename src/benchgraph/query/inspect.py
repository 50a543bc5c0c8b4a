"""Look at a query before it runs: its form, its dataset clauses, the SERVICE endpoints it
would call.

The check works on rdflib's parse tree, not on the text: `SERVICE` inside a subquery, a
FILTER EXISTS, behind a prefixed name or a `\\u0053ERVICE` escape is found all the same. A
query rdflib cannot parse is refused, so nothing unchecked reaches pyoxigraph, which would
fetch a SERVICE URL by itself. Before rdflib, text.py refuses what rdflib and Oxigraph
would read differently (a bare carriage return, escapes of quotes...) and text nested deeper
than the limit; a deep query is parsed in a thread of its own with room to recurse.

rdflib's parse costs milliseconds a query (its parser is pyparsing), more than Oxigraph takes
to answer a point lookup, and it is needed only to find SERVICE calls and FROM clauses. So
`needs_parse` looks at the code first, as Oxigraph splits it (lexicon.py's pass: comments and
string literals left out): a query in whose code neither word occurs, in any case, and no
backslash either, can hold neither keyword in the engine's reading, and goes to the embedded
Oxigraph store unparsed; Oxigraph's own parser then checks its syntax (and refuses an update,
which it does not parse as a query). Where the split is not sure, rdflib reads the query.
rdflib is imported only when a query needs it.

Every check here reads the one pass over the text (text.lexed, kept per text), never the text:
the endpoint's worker and a store's gate, checking the same text, read it once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from ..errors import QueryRefused
from .early import (
    check_endpoints,
    check_engine_functions,
    check_lexed,
    check_remote_text,
    check_services_early,
    pragma_refused,
)
from .gate import Shape, check_query, may_exceed, shape
from .syntax import QuerySyntaxError, parse
from .text import lexed, max_depth, max_operators, measure

if TYPE_CHECKING:
    from rdflib.plugins.sparql.parserutils import CompValue

FORMS = {
    "SelectQuery": "SELECT",
    "AskQuery": "ASK",
    "ConstructQuery": "CONSTRUCT",
    "DescribeQuery": "DESCRIBE",
}


@dataclass(frozen=True)
class QueryInfo:
    """What the server needs to know about a query before running it."""

    form: str  # SELECT, ASK, CONSTRUCT or DESCRIBE
    has_dataset: bool  # FROM or FROM NAMED in the query
    services: tuple[str, ...]  # the SERVICE endpoints; "?name" for a variable
    graphs: tuple[str, ...] = ()  # the graphs FROM and FROM NAMED name
    shape: Shape = Shape()  # its size, the functions it calls, how it reads the dataset
    default_graphs: tuple[str, ...] = ()  # the graphs FROM names, in order
    named_graphs: tuple[str, ...] = ()  # the graphs FROM NAMED names, in order


def needs_parse(text: str, prefixes: dict[str, str] | None = None) -> bool:
    """Refuse (400) what the pass over the text shows to be refused (text.py's refusals; on
    the tokens, early.py's: more parts than the budget, a function the engine does not define,
    more tokens than a text to parse may have); then whether the query needs rdflib's parse
    before Oxigraph may run it: False when its code, as Oxigraph splits it, cannot hold a
    SERVICE call or a FROM clause, nor more parts than the algebra budget (gate.may_exceed).
    `prefixes`: the ones the server declares (default: benchgraph's, read only where a call's
    prefix is not the query's own)."""
    found = lexed(text)
    parse = found.keyword or may_exceed(found)
    check_lexed(text, found, parse)
    if found.calls:
        check_engine_functions(found, _server_prefixes(found, prefixes))
    return parse


def _server_prefixes(found, prefixes: dict[str, str] | None) -> dict[str, str] | None:
    """`prefixes`, else benchgraph's where a call's prefix is not declared by the query
    (namespaces imports rdflib: only then)."""
    if prefixes is not None:
        return prefixes
    own = {p for p, _ in found.prefixes}
    if all(prefix is None or prefix in own for _, prefix, _ in found.calls):
        return None
    from ..namespaces import PREFIXES

    return dict(PREFIXES)


def refuse_service_early(text: str, allowed: Iterable[str]) -> None:
    """Refuse (403) at once a query whose tokens call a SERVICE not allowed, before rdflib
    parses it (early.check_services_early): rdflib's parser needs thousands of frames a level
    of nested SERVICE (50 levels overflow 200,000), so a nested one was a "query too deep"
    after seconds. Every spelling is a token: SERVICE SILENT, `\\u0053ERVICE`, in a
    subquery or an EXISTS."""
    check_services_early(lexed(text, parse=True), allowed)


def graph_form(text: str) -> str:
    """CONSTRUCT or DESCRIBE, for a query Oxigraph answered with triples (its form as the
    pass read it)."""
    return lexed(text).form or "CONSTRUCT"


def inspect_query(
    text: str, base_iri: str | None = None, prefixes: tuple[tuple[str, str], ...] = ()
) -> QueryInfo:
    """Parse the query; raise QueryRefused (400) with the message and position where it
    does not parse (syntax.py)."""
    return _inspect(text, base_iri, prefixes)


@lru_cache(maxsize=512)
def _inspect(text: str, base_iri: str | None, prefixes: tuple[tuple[str, str], ...]) -> QueryInfo:
    limit = max_depth()
    found = lexed(text, parse=True)
    check_lexed(text, found, parse=True)  # on the tokens: no parse of what is to be refused
    try:
        prologue, query = parse(text, found.depth, found.operators)
    except RecursionError:
        raise QueryRefused(
            "query-too-deep",
            400,
            "query too deep",
            "the query nests too deep or chains too long to check (this server's "
            f"limits: {limit} levels, {max_operators():,} operators); flatten or "
            "split it",
        ) from None
    except QuerySyntaxError:
        # rdflib's position, said to be rdflib's: asking Oxigraph where it stops would mean
        # running the text (syntax.py). `benchgraph query` reports the same.
        raise
    known = dict(prefixes)
    base = base_iri
    for decl in prologue:
        if decl.name == "PrefixDecl":
            known[_param(decl, "prefix")] = str(decl["iri"])
        elif decl.name == "Base":
            base = urljoin(base or "", str(decl["iri"]))
    services = tuple(_resolve(term, known, base) for term in _service_terms(query))
    # CompValue.get answers the key's own name where it is missing (FROM NAMED <g> read
    # as FROM <http://host/default>): membership first
    clauses = [
        ("default" if "default" in clause else "named", clause)
        for clause in (query["datasetClause"] if "datasetClause" in query else [])
    ]
    graphs = tuple(_resolve(clause[key], known, base) for key, clause in clauses)
    return QueryInfo(
        FORMS[query.name],
        "datasetClause" in query,
        services,
        graphs,
        shape(query, known, base),  # one walk for all of it (gate.py)
        tuple(g for g, (key, _) in zip(graphs, clauses) if key == "default"),
        tuple(g for g, (key, _) in zip(graphs, clauses) if key == "named"),
    )


def check_services(info: QueryInfo, allowed: Iterable[str]) -> None:
    """Refuse (403) a query that calls a SERVICE not on the allow-list."""
    check_endpoints(info.services, allowed)


def check_remote(
    text: str,
    info: QueryInfo | None,
    known: Iterable[str],
    extra: Iterable[str] = (),
    prefixes: dict[str, str] | None = None,
) -> None:
    """Refuse (403) what a remote store would do beyond reading what benchgraph pushed:
    an engine pragma (an engine's pragma before the query: Virtuoso's `define get:soft
    "replace"` fetches the graphs a query names, `define sql:...` reaches its SQL), and a
    FROM / FROM NAMED graph (or protocol graph, `extra`) it does not hold, which some stores
    fetch from the web. Without `info` (before the parse), also what the tokens show a store
    may not get (early.check_remote_text: the text's problems, parts, tokens, functions
    outside gate.ALLOWED), with `prefixes` the server declares (default: benchgraph's)."""
    found = lexed(text, parse=True)
    if found.pragma:
        raise pragma_refused()
    if info is None:
        sure = prefixes is not None
        if prefixes is None:
            from ..namespaces import PREFIXES

            prefixes = dict(PREFIXES)
        check_remote_text(text, found, prefixes, sure)
    known = set(known)
    for graph in [*(info.graphs if info else ()), *extra]:
        if graph not in known:
            raise QueryRefused(
                "graph-refused",
                403,
                "graph refused",
                f"<{graph}> is not a graph of this dataset, and the store might "
                "fetch it from the web; name one of the dataset's graphs",
            )


def check_store_query(
    text: str, base_iri: str | None = None, prefixes: dict[str, str] | None = None
) -> QueryInfo:
    """Refuse what no query sent to a store server may hold, whoever sends it (the gate a
    RemoteStore is opened with): an engine pragma, a function SPARQL 1.1 does not define
    (403), more parts than the algebra budget (400). Always parsed: a store has no fast
    path. Answers what it found, which a store needs to keep the query to the dataset."""
    check_remote(text, None, (), prefixes=prefixes or {})
    info = inspect_query(text, base_iri, tuple(sorted((prefixes or {}).items())))
    check_query(info.shape, functions=True)
    return info


def check_parts(text: str, prefixes: dict[str, str] | None = None) -> None:
    """Refuse (400) a query run on the embedded store with more parts than the algebra
    budget, parsing it only where its operators say it could have them (`benchgraph query`;
    the endpoint counts in its own parse). A query rdflib cannot read is left to Oxigraph,
    which reports it, as is text only the endpoint refuses as ambiguous."""
    depth, operators = measure(text)  # the whole text, however ambiguous
    found = lexed(text, whole=True)
    if found.ambiguity is not None or not may_exceed(found):
        return
    items = tuple(sorted((prefixes or {}).items()))
    try:
        info = inspect_query(text, None, items)
    except QueryRefused as exc:
        if exc.code == "malformed":
            return
        if exc.code not in ("too-many-parts", "query-too-long"):
            raise
        # refused on its tokens: the command line keeps its reading (one text at a time, on
        # the user's own machine): what rdflib cannot read is left to Oxigraph, as before
        try:
            _prologue, query = parse(text, depth, operators)
        except QueryRefused as unread:
            if unread.code == "malformed":
                return
            raise
        check_query(shape(query, dict(items)), functions=False)
        return
    check_query(info.shape, functions=False)


def _service_terms(tree: object) -> Iterator[object]:
    """The term of every SERVICE in the parse tree, outermost first. A walk with a stack of
    its own, not recursion: a SERVICE nested in a SERVICE as deep as the depth limit allows
    is found at once, never a RecursionError."""
    from rdflib.plugins.sparql.parserutils import CompValue

    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, CompValue):
            if node.name == "ServiceGraphPattern":
                yield node["term"]
            todo.extend(reversed(list(node.values())))
        elif isinstance(node, (list, tuple)) or hasattr(node, "as_list"):
            todo.extend(reversed(list(node)))


def _resolve(term: object, prefixes: dict[str, str], base: str | None) -> str:
    from rdflib.plugins.sparql.parserutils import CompValue
    from rdflib.term import Variable

    if isinstance(term, Variable):
        return f"?{term}"
    if isinstance(term, CompValue) and term.name == "pname":
        prefix = _param(term, "prefix")
        if prefix not in prefixes:
            raise QueryRefused(
                "malformed", 400, "malformed query", f"SERVICE {prefix}:...: unknown prefix"
            )
        return prefixes[prefix] + _param(term, "localname")
    iri = str(term)
    return urljoin(base, iri) if base else iri


def _param(node: CompValue, name: str) -> str:
    # CompValue.get answers the key's own name when it is missing, so test membership.
    return str(node[name]) if name in node else ""
