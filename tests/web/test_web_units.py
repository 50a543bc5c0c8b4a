"""The pieces alone: content negotiation and the query check (SERVICE, form, dataset)."""

from __future__ import annotations

import pytest

from benchgraph.errors import QueryRefused
from benchgraph.query.inspect import check_services, inspect_query, needs_parse
from benchgraph.web.negotiation import (
    BOOLEAN,
    CSV,
    GRAPH,
    JSON,
    NTRIPLES,
    RDFXML,
    SOLUTIONS,
    TURTLE,
    XML,
    NotAcceptable,
    choose,
)

BASE = "http://localhost/sparql"


@pytest.mark.parametrize(
    ("offered", "accept", "expected"),
    [
        (SOLUTIONS, None, JSON),
        (SOLUTIONS, "", JSON),
        (SOLUTIONS, "*/*", JSON),
        (SOLUTIONS, "application/json", JSON),
        (SOLUTIONS, "application/xml", XML),
        (SOLUTIONS, "text/csv;q=0.4, application/sparql-results+xml;q=0.5", XML),
        (SOLUTIONS, "application/*;q=0.3, text/csv;q=0.2", JSON),
        (GRAPH, "text/*", TURTLE),
        (GRAPH, "text/turtle;q=0, */*", NTRIPLES),
        (GRAPH, "application/rdf+xml, application/sparql-results+xml", RDFXML),
        (BOOLEAN, "application/rdf+xml, application/sparql-results+xml", XML),
    ],
)
def test_choose(offered, accept, expected):
    assert choose(offered, accept) is expected


def test_choose_refuses_when_nothing_fits():
    with pytest.raises(NotAcceptable):
        choose(BOOLEAN, "text/csv")
    with pytest.raises(NotAcceptable):
        choose(GRAPH, "*/*;q=0")


def test_format_parameter_overrides_accept():
    assert choose(GRAPH, "text/turtle", "rdfxml") is RDFXML
    assert choose(GRAPH, None, "application/n-triples") is NTRIPLES
    # SPARQLWrapper sends format=xml, format=rdf+xml and the media type, for every form
    assert choose(GRAPH, "application/rdf+xml", ["xml", "rdf+xml"]) is RDFXML
    assert choose(SOLUTIONS, None, ["xml"]) is XML
    # a value naming no format is ignored; one naming a format this answer lacks is refused
    assert choose(SOLUTIONS, "text/csv", ["excel"]) is CSV
    with pytest.raises(NotAcceptable):
        choose(BOOLEAN, None, "csv")


@pytest.mark.parametrize(
    ("query", "form", "has_dataset"),
    [
        ("SELECT * {}", "SELECT", False),
        ("ASK FROM <http://g> {}", "ASK", True),
        ("CONSTRUCT WHERE { ?s ?p ?o }", "CONSTRUCT", False),
        ("DESCRIBE <http://x> FROM NAMED <http://g>", "DESCRIBE", True),
    ],
)
def test_inspect_form_and_dataset(query, form, has_dataset):
    info = inspect_query(query, BASE)
    assert (info.form, info.has_dataset, info.services) == (form, has_dataset, ())


LISTENER = "http://127.0.0.1:9/sparql"


@pytest.mark.parametrize(
    ("query", "found"),
    [
        (f"SELECT * {{ SERVICE <{LISTENER}> {{ ?s ?p ?o }} }}", LISTENER),
        (f"SELECT * {{ SERVICE SILENT <{LISTENER}> {{ ?s ?p ?o }} }}", LISTENER),
        ("PREFIX x: <http://127.0.0.1:9/> SELECT * { SERVICE x:sparql { ?s ?p ?o } }", LISTENER),
        ("BASE <http://127.0.0.1:9/> SELECT * { SERVICE <sparql> { ?s ?p ?o } }", LISTENER),
        ("SELECT * { SERVICE <other> { } }", "http://localhost/other"),
        (f"SELECT * {{ {{ SELECT * {{ SERVICE <{LISTENER}> {{ ?s ?p ?o }} }} }} }}", LISTENER),
        (f"ASK {{ FILTER EXISTS {{ SERVICE <{LISTENER}> {{ ?s ?p ?o }} }} }}", LISTENER),
        (f"ASK {{ OPTIONAL {{ ?a ?b ?c MINUS {{ SERVICE <{LISTENER}> {{ }} }} }} }}", LISTENER),
        (f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <{LISTENER}> {{ ?s ?p ?o }} }}", LISTENER),
        (rf"SELECT * {{ \u0053ERVICE <{LISTENER}> {{ ?s ?p ?o }} }}", LISTENER),
        (
            "# SERVICE <http://a/> in a comment is no call\nSELECT * { SERVICE ?where { } }",
            "?where",
        ),
    ],
)
def test_service_calls_are_found_in_the_parse_tree(query, found):
    assert inspect_query(query, BASE).services == (found,)


def test_service_text_that_is_not_a_call_is_no_service():
    query = 'SELECT * { ?s ?p "SERVICE <http://127.0.0.1:9/> {}" } # SERVICE <http://x/>'
    assert inspect_query(query, BASE).services == ()


def test_check_services_refuses_all_but_the_allowed():
    info = inspect_query(f"SELECT * {{ SERVICE <{LISTENER}> {{ }} }}", BASE)
    with pytest.raises(QueryRefused) as refused:
        check_services(info, [])
    assert refused.value.status == 403 and "off on this server" in refused.value.detail
    check_services(info, [LISTENER])
    with pytest.raises(QueryRefused):
        check_services(inspect_query("SELECT * { SERVICE ?x { } }", BASE), [LISTENER])


def test_a_query_that_does_not_parse_is_refused_at_rdflibs_position_saying_so():
    """Not the engine's: asking Oxigraph where a text fails would run it (query/syntax.py)."""
    with pytest.raises(QueryRefused) as refused:
        inspect_query("SELECT * WHERE {\n  ?s ?p\n}", BASE)
    assert refused.value.status == 400
    assert refused.value.position == {"line": 2, "column": 3}
    assert "as rdflib's parser reads it" in refused.value.detail


@pytest.mark.parametrize(
    "query",
    [
        f"SELECT * {{ SERVICE <{LISTENER}> {{ }} }}",
        f"select * {{ service silent <{LISTENER}> {{ }} }}",
        f"SELECT * {{ \\u0053ERVICE <{LISTENER}> {{ }} }}",
        f"SELECT * {{ \\U00000053ERVICE <{LISTENER}> {{ }} }}",
        # a long s, which rdflib upper-cases to S
        f"SELECT * {{ \u017fERVICE <{LISTENER}> {{ }} }}",
        "ASK FROM <http://g> {}",
        "SELECT * from named <http://g> { GRAPH ?g { ?s ?p ?o } }",
        # the keyword after a comment or a string, in the code
        f"SELECT * {{ # from the listener\n SERVICE <{LISTENER}> {{ }} }}",
        f"SELECT * {{ # from the listener\r\n SERVICE <{LISTENER}> {{ }} }}",
        f'SELECT * {{ BIND("from" AS ?a) SERVICE <{LISTENER}> {{ }} }}',
        f"SELECT * {{ BIND('''a\n# b''' AS ?a) SERVICE <{LISTENER}> {{ }} }}",
        # where the engine may split the text otherwise: a backslash outside strings (a local
        # name's escape), a <...> with # or ' after the prologue (an IRI, or a less-than)
        f"PREFIX x: <{LISTENER}> SELECT * {{ ?s ?p x:a\\# }} SERVICE <{LISTENER}> {{ }} }}",
        f"SELECT * {{ ?s ?p ?o FILTER(?o<?b&&'>'=?o) SERVICE <{LISTENER}> {{ }} BIND('' AS ?c) }}",
        f"SELECT * {{ ?s ?p ?o FILTER(?o<?b#>) SERVICE <{LISTENER}> {{ }} }}",
        "SELECT * { <http://a/#b> ?p ?o }",
        "SELECT * { <http://a/\\u0062> ?p ?o }",
    ],
)
def test_text_that_may_call_out_or_name_its_dataset_is_read_by_rdflib(query):
    assert needs_parse(query)


@pytest.mark.parametrize(
    "query",
    [
        "# title: runs from the fabric\nSELECT * { ?s ?p ?o }",
        "PREFIX bg: <https://w3id.org/benchgraph/ontology#>\n# a SERVICE from afar\n"
        "SELECT * { ?s bg:x ?o } # from",
        'SELECT * { ?s ?p "service from caf\\u00E9" }',  # an escape in a string: the engine's
        "SELECT * { ?s ?p '''FROM\n#SERVICE''' }",
        "SELECT * { ?s ?p ?o FILTER(?o < 2) } # service",
    ],
)
def test_keywords_in_comments_and_strings_do_not_need_rdflib(query):
    assert not needs_parse(query)


def test_a_comment_ended_by_a_bare_cr_is_refused_before_the_keyword_check():
    """Oxigraph ends a comment at a bare CR, rdflib at LF only: `# from`, CR, SERVICE is code
    to the engine. The text is refused, not taken as one comment."""
    with pytest.raises(QueryRefused) as refused:
        needs_parse(f"SELECT * {{ # from\r SERVICE <{LISTENER}> {{ }}\n }}")
    assert refused.value.title == "ambiguous query"
    assert "carriage return" in refused.value.detail


def test_every_saved_query_goes_to_oxigraph_unparsed():
    """The saved queries skip rdflib's parse (but the few long enough to need their parts
    counted), as the endpoint's page sends them and with all
    prefixes declared (as the serving benchmark sends them): `from` and `service` in their
    comments are not code."""
    from benchgraph.namespaces import sparql_prefixes
    from benchgraph.query.gate import may_exceed
    from benchgraph.query.saved import saved_queries
    from benchgraph.query.text import lexed

    found = saved_queries()
    assert {"fabric-contradictions", "per-accelerator"} <= set(found)

    # Those whose operators could make more parts than the algebra budget are parsed to
    # count them (query/gate.py): as the page sends them, per-watt, scaling-by-fabric and
    # weakest-facts; with every prefix declared, the prologue's operators count too.
    def counted(text: str) -> bool:
        return may_exceed(lexed(text))

    assert sum(counted(saved.text) for saved in found.values()) <= 3
    for name, saved in found.items():
        for text in (saved.text, sparql_prefixes() + saved.text):
            assert needs_parse(text) == counted(text), name
