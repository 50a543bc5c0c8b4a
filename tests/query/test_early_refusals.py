"""Over-budget texts are refused on their tokens, before rdflib parses them (a parse took
seconds on each: issue 35), with the parse tree's messages; an unknown function is a 400
naming it on the embedded store, not the engine's error as it evaluates the call."""

from __future__ import annotations

import pytest

from benchgraph.errors import QueryRefused
from benchgraph.query import inspect, lexicon, syntax
from benchgraph.query.inspect import check_remote, inspect_query, needs_parse, refuse_service_early

BIG = {
    "or": "SELECT * WHERE { ?s ?p ?o FILTER("
    + " || ".join(f"?o = {i}" for i in range(10_001))
    + ") }",
    "in": "SELECT * WHERE { ?s ?p ?o FILTER(?o IN ("
    + ", ".join(str(i) for i in range(10_000))
    + ")) }",
    "collection": "SELECT * WHERE { ?s ?p (" + " ".join(str(i) for i in range(10_000)) + ") }",
    "optional": "SELECT * WHERE { ?s ?p ?o "
    + " ".join(f"OPTIONAL {{ ?s ?p{i} ?o{i} }}" for i in range(3_000))
    + " }",
    "path": "SELECT * WHERE { ?s " + "|".join(f"<urn:p{i}>" for i in range(10_000)) + " ?o }",
}
VALUES_FROM = (
    "SELECT * FROM <https://w3id.org/benchgraph/ontology> WHERE { ?s ?p ?o } VALUES ?o { "
    + " ".join(str(i) for i in range(100_000))
    + " }"
)


@pytest.fixture(autouse=True)
def no_parse(monkeypatch):
    """rdflib's parse fails the test: a refusal must not need it."""
    lexicon.clear_cache()
    inspect._inspect.cache_clear()

    def parsed(*_args, **_kwargs):
        raise AssertionError("rdflib parsed a text that its tokens refuse")

    monkeypatch.setattr(syntax, "parse", parsed)
    monkeypatch.setattr(inspect, "parse", parsed)


def _embedded(text: str) -> None:
    if needs_parse(text):
        refuse_service_early(text, ())
        inspect_query(text, None, ())


def _remote(text: str) -> None:
    check_remote(text, None, ())
    inspect_query(text, None, ())


@pytest.mark.parametrize("check", [_embedded, _remote], ids=["embedded", "store"])
@pytest.mark.parametrize("name", sorted(BIG))
def test_over_the_parts_budget_refused_on_the_tokens(check, name):
    with pytest.raises(QueryRefused) as refused:
        check(BIG[name])
    exc = refused.value
    assert (exc.status, exc.code, exc.title) == (400, "too-many-parts", "query too large")
    assert "the query has at least " in exc.detail and "limit of 400" in exc.detail


@pytest.mark.parametrize("check", [_embedded, _remote], ids=["embedded", "store"])
def test_a_text_too_long_to_parse_is_refused_on_the_tokens(check):
    with pytest.raises(QueryRefused) as refused:
        check(VALUES_FROM)
    exc = refused.value
    assert (exc.status, exc.code) == (400, "query-too-long")
    assert "more than 5,000 tokens" in exc.detail and "BENCHGRAPH_QUERY_MAX_TOKENS" in exc.detail


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
        "SELECT * WHERE { \\u0053ERVICE <http://example.org/sparql> { ?s ?p ?o } }",
        "SELECT * WHERE { FILTER EXISTS { SERVICE SILENT ?x { ?s ?p ?o } } }",
        "SELECT * WHERE { " + "SERVICE <http://e.org/s> { " * 200 + "}" * 200 + " }",
    ],
    ids=["plain", "escaped", "in-exists", "nested-200"],
)
def test_a_service_is_refused_on_the_tokens(text):
    with pytest.raises(QueryRefused) as refused:
        _embedded(text)
    assert refused.value.status == 403 and refused.value.title == "federated query refused"


@pytest.mark.parametrize(
    "text",
    [
        'define get:soft "replace" SELECT * WHERE { ?s ?p ?o }',
        "\\u0064efine sql:log-enable 3 SELECT * WHERE { ?s ?p ?o }",
    ],
)
def test_an_engine_pragma_is_refused_on_the_tokens(text):
    with pytest.raises(QueryRefused) as refused:
        _remote(text)
    assert refused.value.status == 403 and refused.value.title == "engine pragma refused"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (
            'SELECT * WHERE { BIND(<http://www.openlinksw.com/schemas/bif#http_get>("http://x") '
            "AS ?x) }",
            "<http://www.openlinksw.com/schemas/bif#http_get>",
        ),
        (
            "PREFIX fn: <http://www.w3.org/2005/xpath-functions#> "
            'SELECT * WHERE { FILTER fn:doc("http://x") }',
            "fn:doc (<http://www.w3.org/2005/xpath-functions#doc>)",
        ),
    ],
)
def test_an_unknown_function_is_a_400_naming_it_on_the_embedded_store(text, named):
    with pytest.raises(QueryRefused) as refused:
        _embedded(text)
    exc = refused.value
    assert (exc.status, exc.code) == (400, "unknown-function") and named in exc.detail
    with pytest.raises(QueryRefused) as refused:  # a store server: 403, as before
        _remote(text)
    assert refused.value.status == 403 and named in refused.value.detail


@pytest.mark.parametrize(
    "text",
    [
        'SELECT (xsd:integer("1") AS ?x) (xsd:time("10:00:00") AS ?t) WHERE {}',
        "SELECT * WHERE { ?s <urn:p> (1 2 3) FILTER(?s IN (1, 2)) }",
        "SELECT * WHERE { ?s ?p ?o } VALUES ?o { 1 2 3 }",
        # a VALUES block's variables and a subquery's projection are no collection members
        "SELECT * WHERE { VALUES (" + " ".join(f"?v{i}" for i in range(450)) + ") { } }",
        "SELECT * WHERE { { SELECT "
        + " ".join(f"(?a AS ?b{i})" for i in range(250))
        + " WHERE { ?a ?p ?o } GROUP BY (?a) } }",
    ],
)
def test_texts_under_the_budgets_pass_the_tokens(text):
    lexicon.clear_cache()
    needs_parse(text)  # no refusal (the parse, if needed, is the tree's as before)
