"""Every refusal answers in the one error shape (web/errors.py: error_body), whichever layer
refuses: gunicorn's request reader and the size middleware, the Host check, the fast path,
Flask's views and the query worker. A client reads `status`, `title` and `error` from any of
them the same way (datasette's habit: one error body, checked everywhere)."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import pytest

JSON = {"Accept": "application/json"}
SPARQL_JSON = {"Accept": "application/sparql-results+json"}


def get(query: str) -> tuple[str, str, bytes | None, dict[str, str]]:
    return "GET", "/sparql?" + urlencode({"query": query}, quote_via=quote), None, SPARQL_JSON


REFUSALS = {
    "malformed": (400, get("SELEC * WHERE { ?s ?p ?o }")),
    "undeclared-prefix": (400, get("SELECT * WHERE { ?s nowhere:p ?o }")),
    "ambiguous": (400, get("SELECT * WHERE { #\r ?s ?p ?o }")),
    "too-deep": (400, get("SELECT * WHERE " + "{" * 400 + "}" * 400)),
    "service": (403, get("SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }")),
    "update": (
        403,
        (
            "POST",
            "/sparql",
            b"INSERT DATA { <urn:a> <urn:b> <urn:c> }",
            {"Content-Type": "application/sparql-update"},
        ),
    ),
    "bad-graph": (
        400,
        (
            "GET",
            "/sparql?" + urlencode({"query": "ASK {}", "default-graph-uri": "not an iri"}),
            None,
            SPARQL_JSON,
        ),
    ),
    "not-acceptable": (406, ("GET", "/sparql?query=ASK%20%7B%7D", None, {"Accept": "image/png"})),
    "wrong-type": (415, ("POST", "/sparql", b"ASK {}", {"Content-Type": "text/plain"})),
    "method": (405, ("PUT", "/sparql?query=ASK%20%7B%7D", None, JSON)),
    "no-page": (404, ("GET", "/no/such/page", None, JSON)),
    "no-record": (404, ("GET", "/id/benchmarks/no-such-run", None, JSON)),
    "no-dump": (404, ("GET", "/dumps/benchgraph.exe", None, JSON)),
    "body-too-large": (
        413,
        (
            "POST",
            "/sparql",
            b"#" * (5 * 1024 * 1024),
            {"Content-Type": "application/sparql-query"} | JSON,
        ),
    ),
    "path-too-long": (414, ("GET", "/id/" + "x" * 9000, None, JSON)),
    "host-not-allowed": (
        400,
        ("GET", "/sparql?query=ASK%20%7B%7D", None, {"Host": "elsewhere.example"} | SPARQL_JSON),
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_every_refusal_answers_the_one_error_shape(live_server, name):
    status, (method, path, body, headers) = REFUSALS[name]
    got, answered, data = live_server.request(method, path, body, headers)
    assert got == status, data[:300]
    assert answered["content-type"].startswith("application/json"), answered
    error = json.loads(data)
    assert error["ok"] is False and error["status"] == status
    assert isinstance(error["title"], str) and error["title"]
    assert isinstance(error["error"], str) and error["error"]
    assert set(error) <= {"ok", "status", "title", "error", "position", "limit"}, error
