"""What a query calls and how big it is, read in one walk of rdflib's parse tree: the functions
a store may run, and the size of the algebra a store builds of it.

Functions. A store runs a function IRI as it defines it: Virtuoso reads `bif:` and `sql:` as
its SQL (`bif:http_get` fetches a URL, `bif:file_to_string` reads a file, `sql:TTLP` writes),
and maps any other IRI it does not know to a SQL procedure of that name. So a query sent to a
store may call only what SPARQL 1.1 defines: its built-in functions and aggregates (rdflib
parses them as Builtin_* and Aggregate_* nodes, never as an IRI), the XSD constructor
functions of its section 17.5, and the few extensions in SAFE_EXTENSIONS. Anything else is
refused (403) and named, however it is spelt: a prefixed name (declared or not: Virtuoso
predefines bif:, sql: and more), an IRI, a custom aggregate (an IRI called with DISTINCT).
The check is an allow-list of whole IRIs, so a spelling read differently by a store (a case,
an escape, a relative IRI) can only be refused, never let through: a function IRI that is
not absolute as written is refused too.

Size. Oxigraph's server evaluates a query on a thread with a few MB of stack and recurses
once per OPTIONAL, MINUS, BIND, GRAPH, subquery, UNION branch, triple pattern, FILTER,
operator...: about 800 OPTIONALs abort the whole server (see query/text.py's DEFAULT_MAX_PARTS). So
the parts of a query are counted, and past the budget (text.max_parts) it is refused
(400), on every store. The count is a bound on the engine's recursion, not its cost: what
each part counts for is in `_parts`.

Imports: rdflib (the parse tree's classes), query/text.py (the budget) and errors only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import QueryRefused
from .lexicon import PARTS_PER_OPERATOR, Lexed
from .text import MAX_PARTS_ENV, max_parts

if TYPE_CHECKING:
    from rdflib.plugins.sparql.parserutils import CompValue

XSD = "http://www.w3.org/2001/XMLSchema#"
# SPARQL 1.1 section 17.5, "XPath Constructor Functions": the casts it defines, no others.
CASTS = frozenset(
    XSD + name
    for name in ("boolean", "double", "float", "decimal", "integer", "dateTime", "string")
)
# Extensions known to be safe, each a pure function of its arguments in Oxigraph and Virtuoso
# alike (reads no data, no file, no URL, writes nothing). Kept tiny: each needs a reason.
SAFE_EXTENSIONS = {
    # the records' dates are xsd:date (bg:publishedOn...); comparing one with a date written
    # in the query needs this cast, which both stores have (XPath's cast, as the six above)
    XSD + "date": "the cast to xsd:date",
}
# Whole absolute IRIs: a relative one (`<integer>` under a BASE) never matches.
ALLOWED = CASTS | frozenset(SAFE_EXTENSIONS)
# Parse-tree nodes that count one part each (see _parts for the others).
ONE_PART = frozenset(
    {
        "GroupGraphPatternSub",
        "OptionalGraphPattern",
        "MinusGraphPattern",
        "GraphGraphPattern",
        "ServiceGraphPattern",
        "Filter",
        "Bind",
        "InlineData",
        "SubSelect",
        "UnaryNot",
        "UnaryMinus",
        "UnaryPlus",
        "Function",
        "PathEltOrInverse",
        "PathNegatedPropertySet",
        "InversePath",
    }
)
# EXISTS and NOT EXISTS count by their group (their FILTER counts itself).
NOT_COUNTED = frozenset({"Builtin_EXISTS", "Builtin_NOTEXISTS"})


@dataclass(frozen=True)
class Shape:
    """What the walk finds: the parts of the query's algebra, each function it calls that
    SPARQL 1.1 does not define (as written, with the IRI it stands for), and how it reads
    the dataset, which a store must be kept to (store/remote.py): the term of each GRAPH
    pattern in the order written ("?g" for a variable, else the IRI, or the prefixed name
    as written where its prefix is not declared), whether any pattern reads the default
    graph, whether FROM or FROM NAMED clauses name the graphs."""

    size: int = 0
    functions: tuple[str, ...] = ()
    graph_terms: tuple[str, ...] = ()
    reads_default: bool = False
    from_default: bool = False
    from_named: bool = False


def shape(query: CompValue, prefixes: dict[str, str], base: str | None = None) -> Shape:
    """The query's Shape; `prefixes`: the query's own declarations over the ones the server
    declares for it. One walk, on an explicit stack (the tree is as deep as the query
    nests, some seven nodes a level), each node with whether it lies inside a GRAPH."""
    from rdflib.plugins.sparql.parserutils import CompValue
    from rdflib.term import Variable

    size = 0
    called: set[str] = set()
    graphs: list[str] = []
    reads_default = query.name == "DescribeQuery"  # it describes from the default graph
    clauses = set()
    stack: list[tuple[object, bool]] = [(query, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, CompValue):
            name = node.name
            size += _parts(node)
            if name == "Function":
                refused = _refused_function(node["iri"], prefixes)
                if refused:
                    called.add(refused)
            elif name == "GraphGraphPattern":
                term = node["term"]
                graphs.append(
                    f"?{term}" if isinstance(term, Variable) else _iri(term, prefixes, base)
                )
                stack.append((node["graph"], True))
                continue
            elif name == "TriplesBlock" and not inside:
                reads_default = True
            elif name == "DatasetClause":
                clauses.update(key for key in ("default", "named") if key in node)
            # the children in reverse, so that GRAPH patterns are met in the order written
            stack.extend((value, inside) for value in reversed(list(node.values())))
        elif isinstance(node, (list, tuple)) or hasattr(node, "as_list"):  # ParseResults
            stack.extend((value, inside) for value in reversed(list(node)))
    return Shape(
        size,
        tuple(sorted(called)),
        tuple(graphs),
        reads_default,
        "default" in clauses,
        "named" in clauses,
    )


def check_query(
    found: Shape, *, functions: bool, budget: int | None = None, at_least: bool = False
) -> None:
    """Refuse the query: 403 if `functions` and it calls a function outside ALLOWED (a
    store's own), 400 if it has more parts than `budget` (default: max_parts()); `at_least`:
    the size is a lower bound (counted on the tokens, lexicon.py)."""
    if functions and found.functions:
        names = ", ".join(found.functions[:5]) + (
            f" and {len(found.functions) - 5} more" if len(found.functions) > 5 else ""
        )
        raise QueryRefused(
            "function",
            403,
            "function refused",
            f"the query calls {names}, which SPARQL 1.1 does not define: a store "
            "runs such a function as it defines it (Virtuoso's bif: and sql: reach "
            "its SQL, files and the web), so benchgraph sends none to a store; "
            "SPARQL's own functions, the XSD casts (xsd:integer(...), ...) and "
            "xsd:date are fine",
        )
    limit = max_parts() if budget is None else budget
    if found.size > limit:
        raise QueryRefused(
            "too-many-parts",
            400,
            "query too large",
            f"the query has {'at least ' if at_least else ''}{found.size:,} parts (patterns, "
            "groups, OPTIONALs, UNION branches, FILTERs, BINDs, path steps, operators, "
            "function calls), more "
            f"than this server's limit of {limit:,}: the store would run out of stack "
            "on it; split it or make it simpler (the limit is set by "
            f"{MAX_PARTS_ENV})",
        )


def may_exceed(found: Lexed, budget: int | None = None) -> bool:
    """Whether a query the pass `found` read could have more parts than the budget. Each part
    needs an operator of its own, or shares a pair of braces or brackets with one or two
    others (`{ t OPTIONAL { } t }`: three parts, two braces), so parts < PARTS_PER_OPERATOR x
    operators + 1; but for an RDF collection `(1 2 3)`, whose members are patterns without an
    operator each, which the pass finds (lexicon.Lexed.collection)."""
    limit = max_parts() if budget is None else budget
    return PARTS_PER_OPERATOR * found.operators + 1 > limit or found.collection


def _parts(node: CompValue) -> int:
    """The parts one parse-tree node adds: one per group, pattern, FILTER, BIND, VALUES,
    subquery, function call and unary operator; one per triple pattern, per UNION past the
    first branch, per binary operator, per member of an IN list, per path step past the
    first and per path modifier."""
    name = node.name
    if name in ONE_PART or (
        name.startswith(("Builtin_", "Aggregate_")) and name not in NOT_COUNTED
    ):
        return 1
    if name == "TriplesBlock":
        return sum(len(triples) // 3 for triples in node["triples"])
    if name == "ConstructQuery" and "template" in node:
        return sum(len(triples) // 3 for triples in node["template"])
    if name == "GroupOrUnionGraphPattern":
        return len(node["graph"]) - 1
    if name in ("ConditionalOrExpression", "ConditionalAndExpression"):
        return _count(node, "other")
    if name == "RelationalExpression" and "op" in node:
        if str(node["op"]) in ("IN", "NOT IN"):
            return 1 + _count(node, "other")
        return 1
    if name in ("AdditiveExpression", "MultiplicativeExpression"):
        return _count(node, "op")
    if name in ("PathAlternative", "PathSequence"):
        return _count(node, "part") - 1
    if name == "PathElt":
        return 1 if "mod" in node else 0
    return 0


def _count(node: CompValue, key: str) -> int:
    if key not in node:
        return 0
    value = node[key]
    return len(value) if isinstance(value, Iterable) and not isinstance(value, str) else 1


def _iri(term: object, prefixes: dict[str, str], base: str | None) -> str:
    """A GRAPH pattern's IRI as the store reads it (a prefixed name with an undeclared
    prefix, as written: no graph of the dataset has that name)."""
    from urllib.parse import urljoin

    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(term, CompValue) and term.name == "pname":
        prefix = str(term["prefix"]) if "prefix" in term else ""
        local = str(term["localname"]) if "localname" in term else ""
        if prefix not in prefixes:
            return f"{prefix}:{local}"
        return prefixes[prefix] + local
    return urljoin(base, str(term)) if base else str(term)


def _refused_function(iri: object, prefixes: dict[str, str]) -> str | None:
    """How the query names a function outside ALLOWED (None for one inside)."""
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(iri, CompValue) and iri.name == "pname":
        prefix = str(iri["prefix"]) if "prefix" in iri else ""
        local = str(iri["localname"]) if "localname" in iri else ""
        written = f"{prefix}:{local}"
        if prefix not in prefixes:
            return f"{written} (an undeclared prefix)"
        full = prefixes[prefix] + local
        return None if full in ALLOWED else f"{written} (<{full}>)"
    full = str(iri)
    return None if full in ALLOWED else f"<{full}>"
