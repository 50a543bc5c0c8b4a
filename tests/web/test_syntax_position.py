"""A query that does not parse is reported at the same line and column by `benchgraph query`
and by /sparql, and nothing is run to learn where: rdflib's position wherever rdflib refuses
the text (the endpoint's check reads every query it parses with rdflib), the engine's only
where Oxigraph refused a text it was running anyway. The endpoint used to ask Oxigraph for
its position by running the text on an empty store, with SERVICE masked: the mask missed
`SERVICESILENT<...>`, and the run called the service."""

from __future__ import annotations

import re

import pytest
from pyparsing import ParseBaseException
from rdflib.plugins.sparql.parser import parseQuery

from benchgraph.cli.main import main
from benchgraph.errors import QueryRefused
from benchgraph.query.inspect import inspect_query
from web.web_support import RECORDS, Listener

BAD = [
    "SELECT * WHERE {\n  ?s ?p \n}",
    "SELECT ?x WHERE {\n  ?x ?p ?o .\n  FILTER(?x = ) }",
    "SELEC ?x {}",
    "SELECT ?x WHERE { ?x ?p ?o ",
    'ASK { "abc }',
    "SELECT (COUNT(?x) ?n) WHERE { ?x ?p ?o }",
    'SELECT * WHERE {\n  ?s ?p "é" . ) }',  # columns count characters, not bytes
    "SELECT * WHERE { ?s bg:value ?v } ORDER ?v",  # a predeclared prefix
]


def rdflib_position(text: str) -> tuple[int, int]:
    """Where rdflib's parser stops: every text of BAD is refused by rdflib too."""
    with pytest.raises(ParseBaseException) as error:
        parseQuery(text)
    return error.value.lineno, error.value.col


@pytest.mark.parametrize("text", BAD)
def test_the_cli_and_the_endpoint_report_the_same_position(text, client, capsys):
    line, column = rdflib_position(text)
    assert main(["query", "--data", str(RECORDS), text]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith(f"benchgraph: the query does not parse: line {line}, column {column}: ")
    assert "as rdflib's parser reads it" in said
    response = client.get("/sparql", query_string={"query": text})
    assert response.status_code == 400
    body = response.get_json()
    assert body["title"] == "malformed query"
    assert body["position"] == {"line": line, "column": column}
    assert said == f"benchgraph: the query does not parse: {body['error']}"  # the same words


def test_a_query_only_rdflib_refuses_says_so_with_rdflibs_position(client, capsys):
    """Oxigraph reads LATERAL, rdflib does not: the endpoint, which checks every such query
    with rdflib, refuses it at rdflib's position and says whose reading it is; the CLI runs
    it."""
    text = "SELECT * { ?s ?p ?o LATERAL { ?s ?p ?o } }"
    with pytest.raises(QueryRefused) as refused:
        inspect_query(text, "http://localhost/sparql")
    assert refused.value.status == 400
    assert "as rdflib's parser reads it" in refused.value.detail
    assert refused.value.position == {"line": 1, "column": rdflib_position(text)[1]}
    assert main(["query", "--data", str(RECORDS), "--format", "csv", text]) == 0


# Texts rdflib refuses and Oxigraph runs, each calling a SERVICE in Oxigraph's reading: the
# spellings the old mask missed (no space before SILENT; a SERVICE after a local name's
# escape), an ASK (evaluated as soon as it is parsed) and a SELECT.
CALLS_OUT = [
    "SELECT * WHERE {{ SERVICESILENT<{url}>{{}} }}",
    "ASK {{ SERVICESILENT<{url}>{{}} }}",
    "PREFIX ex: <http://e/> ASK {{ ?s ex:a\\#b ?o . SERVICE <{url}> {{}} LATERAL {{}} }}",
    "PREFIX ex: <http://e/> SELECT * {{ ?s ex:a\\'b ?o . SERVICE <{url}> {{}} LATERAL {{}} }}",
    'PREFIX ex: <http://e/> ASK {{ ?s ex:a\\"b ?o . SERVICE <{url}> {{}} LATERAL {{}} }}',
    "ASK {{ SERVICE <{url}> {{ ?s ?p ?o }} LATERAL {{ ?s ?p ?o }} }}",
]


@pytest.fixture
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.mark.parametrize("form", CALLS_OUT, ids=range(len(CALLS_OUT)))
def test_a_text_rdflib_refuses_is_refused_without_calling_out(client, capsys, listener, form):
    text = form.format(url=listener.url)
    with pytest.raises(ParseBaseException):
        parseQuery(text)
    for response in (
        client.get("/sparql", query_string={"query": text}),
        client.post("/sparql", data={"query": text}),
        client.post("/sparql", data=text.encode(), content_type="application/sparql-query"),
    ):
        assert response.status_code in (400, 403), response.get_data(as_text=True)
    # A call would have been answered before the 400 was (Oxigraph waits for the service's
    # answer, and the listener records the connection before it answers): no wait is needed.
    assert listener.connections == [] and listener.requests == []


def test_an_undeclared_prefix_is_said_in_words(client):
    """Oxigraph lists 600 characters of character ranges for it; the answer names the fault."""
    response = client.get(
        "/sparql", query_string={"query": "SELECT * WHERE { ?s undeclared:p ?o }"}
    )
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert re.search(r"line 1, column \d+: the prefix undeclared: is not declared", error)
    assert "\\u{" not in error and len(error) < 200
    # on a line of its own, after others, and the CLI says the same
    text = "SELECT * WHERE {\n  ?s bg:memoryGB ?m ;\n     mlperf:scenario ?o }"
    error = client.get("/sparql", query_string={"query": text}).get_json()["error"]
    assert error.startswith("line 3, column 21: the prefix mlperf: is not declared"), error
