"""A query that does not parse is reported at the same line and column by `benchgraph query`
and by /sparql: the engine's (Oxigraph's), which decides what runs. The endpoint parsed with
rdflib first and reported rdflib's position (`FILTER(?x = )`: the FILTER, not the `)`)."""

from __future__ import annotations

import re
import socket
import threading

import pyoxigraph as ox
import pytest

from benchgraph.cli.main import main
from benchgraph.errors import QueryRefused
from benchgraph.namespaces import PREFIXES
from benchgraph.query.inspect import inspect_query
from benchgraph.query.syntax import engine_error, without_service
from web.web_support import RECORDS

BAD = [
    "SELECT * WHERE {\n  ?s ?p \n}",
    "SELECT ?x WHERE {\n  ?x ?p ?o .\n  FILTER(?x = ) }",
    "SELEC ?x {}",
    "SELECT ?x WHERE { ?x ?p ?o ",
    'ASK { "abc }',
    "SELECT (COUNT(?x) ?n) WHERE { ?x ?p ?o }",
    'SELECT * WHERE {\n  ?s ?p "é" . ) }',  # columns count characters, not bytes
    "SELECT * WHERE { ?s bg:value ?v } ORDER ?v",  # a predeclared prefix
    "ASK { SERVICE <http://127.0.0.1:9/> { ?s ?p } }",  # masked for the check: same place
]


def engine_position(text: str) -> tuple[int, int]:
    """Where Oxigraph itself stops, on an empty store."""
    with pytest.raises(SyntaxError) as error:
        ox.Store().query(text, prefixes=PREFIXES)
    found = re.match(r"error at (\d+):(\d+)", str(error.value))
    return int(found[1]), int(found[2])


@pytest.mark.parametrize("text", BAD)
def test_the_cli_and_the_endpoint_report_the_engines_position(text, client, capsys):
    line, column = engine_position(text)
    assert main(["query", "--data", str(RECORDS), text]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith(f"benchgraph: the query does not parse: line {line}, column {column}: ")
    response = client.get("/sparql", query_string={"query": text})
    assert response.status_code == 400
    body = response.get_json()
    assert body["title"] == "malformed query"
    assert body["position"] == {"line": line, "column": column}
    assert said == f"benchgraph: the query does not parse: {body['error']}"  # the same words


def test_a_query_only_rdflib_refuses_says_so_with_rdflibs_position():
    """Oxigraph reads LATERAL, rdflib does not: the endpoint cannot check it for SERVICE."""
    text = "SELECT * { ?s ?p ?o LATERAL { ?s ?p ?o } }"
    assert engine_error(text) is None
    with pytest.raises(QueryRefused) as refused:
        inspect_query(text, "http://localhost/sparql")
    assert refused.value.status == 400
    assert "Oxigraph, which runs the queries here, reads this query" in refused.value.detail
    assert refused.value.position["line"] == 1


def test_the_check_keeps_every_position_and_never_calls_a_service():
    text = 'ASK { ?s ?p "SERVICE" . SERVICE SILENT <http://x/> { ?service ex:service ?o } }'
    masked = without_service(text)
    assert len(masked) == len(text)
    assert masked == ('ASK { ?s ?p "SERVICE" . GRAPH          <http://x/> '
                      '{ ?service ex:service ?o } }')


def test_an_ask_that_only_oxigraph_reads_is_checked_without_calling_its_service():
    """An ASK is evaluated as soon as it is parsed: unmasked, Oxigraph calls the service."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        server.settimeout(2)
        port = server.getsockname()[1]
        text = (f"ASK {{ SERVICE <http://127.0.0.1:{port}/> {{ ?s ?p ?o }} "
                "LATERAL { ?s ?p ?o } }")
        assert engine_error(text) is None
        with pytest.raises(TimeoutError):
            server.accept()[0].close()
        # the control: the same text run as written does call it
        called = threading.Thread(target=lambda: _quietly(text), daemon=True)
        called.start()
        connection, _ = server.accept()
        connection.close()
        called.join(5)


def _quietly(text: str) -> None:
    try:
        ox.Store().query(text)
    except OSError:
        pass


def test_an_undeclared_prefix_is_said_in_words(client):
    """Oxigraph lists 600 characters of character ranges for it; the answer names the fault."""
    response = client.get("/sparql", query_string={
        "query": "SELECT * WHERE { ?s undeclared:p ?o }"})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert re.search(r"line 1, column \d+: the prefix is not declared", error)
    assert "\\u{" not in error and len(error) < 200
