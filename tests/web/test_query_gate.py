"""The gate every query to a store passes (web/querycheck.py), and the algebra budget every
query passes: a store's own functions refused in every spelling, SPARQL's own and the XSD
casts let through, the saved queries all passing, the parts counted, and the embedded fast
path, which does not parse, unable to let a query past the budget."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchgraph.errors import CannotRun
from benchgraph.errors import QueryRefused as Refused
from benchgraph.namespaces import PREFIXES
from benchgraph.query.gate import PARTS_PER_OPERATOR, may_exceed
from benchgraph.query.inspect import check_parts, check_store_query, inspect_query
from benchgraph.query.saved import saved_queries
from benchgraph.query.text import DEFAULT_MAX_PARTS, MAX_PARTS_ENV, check_text, lexed
from benchgraph.web.errors import reason

PREFIX_ITEMS = tuple(sorted(PREFIXES.items()))


def refusal(query: str) -> Refused:
    with pytest.raises(Refused) as refused:
        check_store_query(query, None, PREFIXES)
    return refused.value


@pytest.mark.parametrize("name", sorted(saved_queries()))
def test_every_saved_query_passes_the_store_check(name):
    """Within the budget (400, half the lowest crash point measured): the largest,
    scaling-by-fabric, has 395 parts; the others at most 92."""
    text = saved_queries()[name].text
    info = check_store_query(text, None, PREFIXES)
    assert not info.shape.functions
    assert info.shape.size < DEFAULT_MAX_PARTS, info.shape.size


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ('SELECT (bif:http_get("http://127.0.0.1:1/") AS ?x) {}', "bif:http_get"),
        ("SELECT * { ?s ?p ?o FILTER(sql:TTLP(?o, '', 'urn:g')) }", "sql:TTLP"),
        ('SELECT (<bif:file_to_string>("virtuoso.log") AS ?x) {}', "<bif:file_to_string>"),
        ('SELECT (<BIF:http_get>("x") AS ?x) {}', "<BIF:http_get>"),
        (
            'PREFIX b: <bif:> SELECT ?x { BIND(b:http_get("x") AS ?x) }',
            "b:http_get (<bif:http_get>)",
        ),
        ('PREFIX s: <sql:> SELECT ?x { BIND(s:TTLP("x") AS ?x) }', "s:TTLP (<sql:TTLP>)"),
        (
            'PREFIX xsd: <bif:> SELECT ?x { BIND(xsd:integer("1") AS ?x) }',
            "xsd:integer (<bif:integer>)",
        ),
        (
            'SELECT ?x { BIND(<http://www.openlinksw.com/schemas/bif#http_get>("x") AS ?x) }',
            "<http://www.openlinksw.com/schemas/bif#http_get>",
        ),
        ("SELECT ?x { BIND(virtrdf:x(1) AS ?x) }", "virtrdf:x (an undeclared prefix)"),
        ("SELECT (<urn:agg>(DISTINCT ?o) AS ?n) { ?s ?p ?o }", "<urn:agg>"),
        ("SELECT ?s { ?s ?p ?o } GROUP BY ?s HAVING (<urn:f>(?s))", "<urn:f>"),
        ("SELECT ?s { ?s ?p ?o } ORDER BY bif:rand()", "bif:rand"),
        ("SELECT ?k { ?s ?p ?o } GROUP BY (bif:lower(?s) AS ?k)", "bif:lower"),
        ("ASK { FILTER NOT EXISTS { { SELECT * { BIND(bif:sleep(9) AS ?x) } } } }", "bif:sleep"),
        # a relative IRI is resolved by each store as it likes: never on the allow-list
        (
            'BASE <http://www.w3.org/2001/XMLSchema#> SELECT (<#integer>("1") AS ?x) {}',
            "<#integer>",
        ),
        # an allowed name written otherwise is refused, not normalised
        ('SELECT (<http://www.w3.org/2001/XMLSchema#Integer>("1") AS ?x) {}', "#Integer>"),
    ],
)
def test_a_stores_own_function_is_refused_and_named(query, named):
    refused = refusal(query)
    assert refused.status == 403 and refused.title == "function refused"
    assert named in refused.detail, refused.detail


def test_every_function_refused_is_named_at_once():
    refused = refusal("SELECT (bif:a(1) AS ?x) (sql:b(2) AS ?y) (<urn:c>(3) AS ?z) {}")
    assert all(n in refused.detail for n in ("bif:a", "sql:b", "<urn:c>"))


def test_sparql_functions_and_the_xsd_casts_pass():
    casts = " ".join(
        f'(xsd:{t}("1") AS ?{t})'
        for t in ("string", "integer", "decimal", "double", "float", "boolean")
    )
    query = (
        f'SELECT {casts} (xsd:dateTime("2025-01-01T00:00:00Z") AS ?t) '
        '(xsd:date("2025-01-01") AS ?d) '
        '(<http://www.w3.org/2001/XMLSchema#integer>("2") AS ?i2) '
        "(COUNT(DISTINCT ?s) AS ?n) (SAMPLE(?o) AS ?one) "
        "(GROUP_CONCAT(?o; separator=',') AS ?all) "
        "WHERE { ?s ?p ?o FILTER(REGEX(STR(?o), '^a', 'i') && STRLEN(LCASE(?o)) > 0 "
        "&& isIRI(?s) && BOUND(?o) && COALESCE(?o, 1) != SHA256('x') "
        "&& IF(LANGMATCHES(LANG(?o), 'en'), true, false) && YEAR(NOW()) > 2000 "
        "&& ABS(ROUND(RAND())) >= 0 && STRSTARTS(ENCODE_FOR_URI(STR(?s)), 'h') "
        "&& sameTerm(?s, IRI(STR(?s))) && STRUUID() != MD5('') && isNumeric(1)) "
        "BIND(STRDT('1', xsd:integer) AS ?typed) BIND(BNODE() AS ?b) "
        "FILTER EXISTS { ?s ?p ?o } FILTER NOT EXISTS { ?s a ?c } }"
    )
    info = check_store_query(query, None, PREFIXES)
    assert info.shape.functions == ()


def parts(query: str) -> int:
    return inspect_query(query, None, PREFIX_ITEMS).shape.size


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ASK {}", 1),  # the group
        ("ASK { ?s ?p ?o }", 2),  # and one triple pattern
        ("ASK { ?s ?p ?o ; ?q ?r , ?t }", 4),
        ("ASK { OPTIONAL { ?s ?p ?o } }", 4),  # the OPTIONAL, its group, its pattern
        ("ASK { {} UNION {} UNION {} }", 6),  # three groups and two UNIONs
        ("ASK { MINUS {} GRAPH ?g {} }", 5),
        ("ASK { FILTER(?a && ?b || !?c) }", 5),  # FILTER, &&, ||, !
        ("ASK { BIND(1 + 2 * 3 AS ?x) }", 4),
        ("ASK { FILTER(?x IN (1, 2, 3)) }", 6),  # FILTER, IN, three members
        ("ASK { ?s <a>/<b>|^<c>* ?o }", 6),  # the triple, /, |, ^, *
        ("ASK { ?s <p> (1 2) }", 6),  # five triples: the collection's four and its link
        ("ASK { VALUES ?x { 1 2 3 4 5 6 7 8 9 } }", 2),  # a VALUES block is one part
        ("ASK { FILTER(STR(?x) = 'a') }", 4),  # FILTER, =, the call
        ("ASK { { SELECT * { } } }", 3),  # the outer group, the subquery, its group
    ],
)
def test_parts_are_counted(query, expected):
    assert parts(query) == expected


def test_the_budget_is_a_400_past_it_and_set_by_the_environment(monkeypatch):
    def filters(n: int) -> str:  # one group and n FILTERs
        return "ASK { " + "FILTER(true) " * n + "}"

    check_store_query(filters(DEFAULT_MAX_PARTS - 1), None, PREFIXES)
    refused = refusal(filters(DEFAULT_MAX_PARTS))
    assert refused.status == 400 and refused.title == "query too large"
    assert f"has {DEFAULT_MAX_PARTS + 1:,} parts" in refused.detail
    assert f"limit of {DEFAULT_MAX_PARTS:,}" in refused.detail and MAX_PARTS_ENV in refused.detail
    monkeypatch.setenv(MAX_PARTS_ENV, "10")
    assert refusal(filters(10)).title == "query too large"
    check_store_query(filters(9), None, PREFIXES)
    check_parts(filters(10_000).replace("ASK {", "ASK { LATERAL"))  # rdflib cannot read it
    monkeypatch.setenv(MAX_PARTS_ENV, "none")
    with pytest.raises(CannotRun, match=MAX_PARTS_ENV):
        check_store_query(filters(1), None, PREFIXES)


@pytest.mark.slow
def test_refusals_are_counted_under_their_own_reasons():
    with pytest.raises(Refused) as function:
        check_store_query("SELECT (<bif:http_get>('http://127.0.0.1:9/') AS ?x) {}", None, PREFIXES)
    with pytest.raises(Refused) as parts:
        check_store_query("ASK { " + "FILTER(true) " * 10_000 + "}", None, PREFIXES)
    assert reason(function.value.status, function.value.title, function.value.code) == "function"
    assert reason(parts.value.status, parts.value.title, parts.value.code) == "too-many-parts"


def test_the_embedded_endpoint_refuses_past_the_budget_unparsed_or_not(client):
    """Before, a query with no SERVICE or FROM went to Oxigraph unparsed, whatever its size."""
    for query in (
        "ASK { FILTER(" + " && ".join(["true"] * 500) + ") }",
        "ASK { ?s <urn:p> (" + " ".join(["1"] * 300) + ") }",
        "ASK { ?s <urn:p> (" + " ".join(['"a"'] * 300) + ") }",
    ):
        r = client.get("/sparql", query_string={"query": query})
        assert r.status_code == 400 and r.get_json()["title"] == "query too large", query
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'reason="too-many-parts"' in metrics
    r = client.get("/sparql", query_string={"query": "ASK { ?s ?p ?o }"})
    assert r.status_code == 200


# What a query's group may hold, spelt every way the count must bound: each a function of a
# fresh number (so that variables and collections do not repeat).
SNIPPETS = [
    lambda i: f"?s{i} ?p ?o .",
    lambda i: f"?s{i} ?p ?o ; ?q ?r , ?t .",
    lambda i: f"?s{i} <a>/<b>|^<c>* ?o .",
    lambda i: f"?s{i} ?p [ ?q ?r ; ?t ?u ] .",
    lambda i: f'?s{i} ?p ( {i} ?x "a" <b> ) .',
    lambda i: f"?s{i} ?p (({i})(2)) .",
    lambda i: f"?s{i} ?p ([] []) .",
    lambda i: "OPTIONAL { }",
    lambda i: f"OPTIONAL {{ ?s{i} ?p ?o }}",
    lambda i: "{ } UNION { }",
    lambda i: "MINUS { }",
    lambda i: f"GRAPH ?g{i} {{ }}",
    lambda i: "FILTER(true)",
    lambda i: "FILTER(?a && ?b || !?c)",
    lambda i: f"BIND({i} AS ?b{i})",
    lambda i: "FILTER(?x IN (1, 2, 3))",
    lambda i: "FILTER EXISTS { }",
    lambda i: "FILTER NOT EXISTS { ?a ?b ?c }",
    lambda i: "VALUES ?v { 1 2 3 }",
    lambda i: "VALUES (?v ?w) { (1 2) (3 4) }",
    lambda i: "{ SELECT * { } }",
    lambda i: f"BIND(STR(<x{i}>) AS ?c{i})",
    lambda i: "FILTER(-?a < +?b * ?c / ?d - ?e)",
    lambda i: f"?s{i} ?p ?o . # a comment (1 2)\n",
    lambda i: 'FILTER regex(?o, "(1 2")',
    lambda i: f'?s{i} ?p """a long\n# string""" .',
    lambda i: "?s ?p '#' .",
    lambda i: f"?s{i} ?p ( [] {i} 2 ) .",
    lambda i: f'?s{i} ?p ( "a"@en "b"@en-GB {i} ) .',
    lambda i: f"?s{i} ?p ( 1 -2 {i} true ) .",
    lambda i: f"{{ SELECT ?p (COUNT(?x) AS ?n{i}) WHERE {{ ?x ?p ?o }} GROUP BY (?p) }}",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, len(SNIPPETS) - 1), min_size=0, max_size=40), st.integers(0, 3))
def test_the_fast_path_cannot_let_a_query_past_the_budget(picks, nesting):
    """may_exceed is false only where the parts are fewer than PARTS_PER_OPERATOR times the
    operators, plus one, or the pass found a collection: so a query the embedded store runs
    unparsed cannot hold more parts than the budget."""
    body = " ".join(SNIPPETS[k](i) for i, k in enumerate(picks))
    query = "ASK { " + "{ " * nesting + body + " }" * nesting + " }"
    _depth, operators = check_text(query)
    found = lexed(query)
    assert found.operators == operators
    size = parts(query)
    if not found.collection:
        assert size <= PARTS_PER_OPERATOR * operators + 1, (query, size, operators)
    if not may_exceed(found, budget=size - 1):
        pytest.fail(f"{query!r}: {size} parts, passed as fewer")
