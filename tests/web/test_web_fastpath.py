"""Plain queries are answered below Flask (web/fastpath.py): each answer must be the one the
Flask view gives, header for header and byte for byte, and every other request must still
reach Flask."""

from __future__ import annotations

import gzip
import json
from urllib.parse import quote, urlencode

import pytest
from werkzeug.test import Client

from benchgraph.web.fastpath import FastSparql
from benchgraph.web.limits import RequestLimits

POINT = "SELECT ?p ?o WHERE { ?s ?p ?o } LIMIT 40"
JSON = "application/sparql-results+json"
# Values that differ between two runs of one query: its timing, and the clock.
VARYING = ("Server-Timing", "Date")
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def both(app) -> tuple[Client, Client, FastSparql]:
    """A client of the whole app, and one of the same app with the fast path taken out."""
    limits = app.wsgi_app
    assert isinstance(limits, RequestLimits) and isinstance(limits.app, FastSparql)
    fast = limits.app
    return (Client(app), Client(RequestLimits(fast.app, limits.limits)), fast)


def fixed(headers) -> list[tuple[str, str]]:
    return sorted((k, v) for k, v in headers.items() if k not in VARYING)


REQUESTS = {
    "get": ("GET", "/sparql?" + urlencode({"query": POINT}), None, {}, {"Accept": JSON}),
    "get-slash": ("GET", "/sparql/?" + urlencode({"query": POINT}, quote_via=quote), None, {}, {}),
    "get-format": ("GET", "/sparql?" + urlencode({"query": POINT, "format": "csv"}), None, {}, {}),
    "get-graphs": (
        "GET",
        "/sparql?"
        + urlencode(
            {
                "query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }",
                "default-graph-uri": "https://w3id.org/benchgraph/graph/ontology",
            }
        ),
        None,
        {},
        {},
    ),
    "form": (
        "POST",
        "/sparql",
        urlencode({"query": POINT}),
        {"Content-Type": "application/x-www-form-urlencoded"},
        {"Accept": JSON},
    ),
    "form-gzip": (
        "POST",
        "/sparql",
        urlencode({"query": POINT}),
        {"Content-Type": "application/x-www-form-urlencoded"},
        {"Accept": "text/csv", "Accept-Encoding": "gzip"},
    ),
    "form-url-and-body": (
        "POST",
        "/sparql?format=xml",
        urlencode({"query": POINT}),
        {"Content-Type": "application/x-www-form-urlencoded"},
        {},
    ),
    "direct": (
        "POST",
        "/sparql",
        POINT,
        {"Content-Type": "application/sparql-query"},
        {"Accept": "application/sparql-results+xml"},
    ),
    "direct-charset": (
        "POST",
        "/sparql",
        POINT,
        {"Content-Type": "application/sparql-query; charset=UTF-8"},
        {},
    ),
    "construct": (
        "POST",
        "/sparql",
        "CONSTRUCT WHERE { ?s ?p ?o } LIMIT 5",
        {"Content-Type": "application/sparql-query"},
        {"Accept": "text/turtle"},
    ),
    "ask": ("GET", "/sparql?" + urlencode({"query": "ASK { ?s ?p ?o }"}), None, {}, {}),
}


# Refusals: those the fast path writes itself (a query refused by its worker, or not
# acceptable), and requests it reads and hands on (endpoint.OPERATION), which Flask's view
# answers from what was read. Each as Flask's view answers it alone.
HANDED_ON = {
    "malformed": ("POST", "/sparql", urlencode({"query": "SELECT * { ?s"}), FORM, {}),
    "malformed-json": ("POST", "/sparql", urlencode({"query": "ASK {"}), FORM, {"Accept": JSON}),
    "service-refused": (
        "GET",
        "/sparql?" + urlencode({"query": "ASK { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"}),
        None,
        {},
        {"Accept-Encoding": "gzip"},
    ),
    "two-queries": ("GET", "/sparql?" + urlencode([("query", POINT)] * 2), None, {}, {}),
    "update": ("POST", "/sparql", urlencode({"update": "CLEAR ALL"}), FORM, {"Accept": JSON}),
    "no-query": ("POST", "/sparql", urlencode({"format": "csv"}), FORM, {}),
    "text-plain": ("POST", "/sparql", POINT, {"Content-Type": "text/plain"}, {}),
    "direct-and-url": (
        "POST",
        "/sparql?" + urlencode({"query": POINT}),
        POINT,
        {"Content-Type": "application/sparql-query"},
        {},
    ),
    "not-utf8": ("POST", "/sparql", b"\xff", {"Content-Type": "application/sparql-query"}, {}),
    "download": ("GET", "/sparql?" + urlencode({"query": POINT, "download": "1"}), None, {}, {}),
    "html-error": (
        "GET",
        "/sparql?" + urlencode({"query": "ASK {"}),
        None,
        {},
        {"Accept": "text/html"},
    ),
    "unacceptable": (
        "GET",
        "/sparql?" + urlencode({"query": POINT}),
        None,
        {},
        {"Accept": "image/png"},
    ),
}


@pytest.mark.parametrize("name", sorted(HANDED_ON))
def test_a_request_handed_on_is_answered_as_flask_answers_it(app, name):
    whole, flask_only, _fast = both(app)
    method, url, body, content, headers = HANDED_ON[name]
    answers = []
    for client in (whole, flask_only):
        response = client.open(url, method=method, data=body, headers=content | headers)
        answers.append((response.status_code, fixed(response.headers), response.get_data()))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_a_plain_query_is_answered_below_flask_as_flask_answers_it(app, name):
    whole, flask_only, _fast = both(app)
    method, url, body, content, headers = REQUESTS[name]
    answers = []
    for client in (whole, flask_only):
        response = client.open(url, method=method, data=body, headers=content | headers)
        answers.append((response.status_code, fixed(response.headers), response.get_data()))
    assert answers[0][0] == 200, answers[0]
    assert answers[0] == answers[1]
    if "gzip" in name:
        assert dict(answers[0][1])["Content-Encoding"] == "gzip"
        assert gzip.decompress(answers[0][2]).startswith(b"p,o")


def test_the_fast_path_answers_plain_queries_and_hands_on_everything_else(app):
    """Counted at the pool: a plain query runs once, below Flask; a refused one runs once and
    gets its error below Flask too (the one shape, with the headers Flask's hooks add); a
    request Flask must see never runs in the fast path."""
    whole, _flask_only, fast = both(app)
    calls, runs = [], []
    inner = fast.app
    pool = app.extensions["benchgraph"].current.pool
    run = pool.run

    def flask_app(environ, start_response):
        calls.append(environ["PATH_INFO"])
        return inner(environ, start_response)

    def counted(job, *args):
        runs.append(job["query"])
        return run(job, *args)

    fast.app, pool.run = flask_app, counted
    try:
        answered = whole.get("/sparql?" + urlencode({"query": POINT}))
        assert answered.status_code == 200 and calls == [] and runs == [POINT]
        malformed = whole.post(
            "/sparql", data={"query": "SELECT * WHERE { ?s"}, headers={"Accept": JSON}
        )
        assert malformed.status_code == 400 and calls == []
        assert runs == [POINT, "SELECT * WHERE { ?s"]
        assert json.loads(malformed.data)["title"] == "malformed query"
        assert malformed.headers["X-Content-Type-Options"] == "nosniff"
        assert malformed.headers["Access-Control-Allow-Origin"] == "*"
        for request in (
            lambda: whole.get(  # its refusal would be a page of the site
                "/sparql", query_string={"query": POINT}, headers={"Accept": "text/html"}
            ),
            lambda: whole.get("/sparql"),  # the service description
            lambda: whole.open("/sparql", method="HEAD", query_string={"query": POINT}),
            lambda: whole.get("/sparql", query_string={"query": POINT, "download": "1"}),
            lambda: whole.get(
                "/sparql", query_string={"query": POINT}, headers={"If-None-Match": 'W/"x"'}
            ),
            lambda: whole.post("/sparql", data={"update": "CLEAR ALL"}),
            lambda: whole.post("/sparql", data={"query": POINT, "update": "CLEAR ALL"}),
            lambda: whole.post(
                "/sparql",
                data=POINT.encode("utf-16"),
                headers={"Content-Type": "application/sparql-query; charset=utf-16"},
            ),
            lambda: whole.get("/healthz"),
        ):
            before = len(calls)
            request()
            assert len(calls) == before + 1
    finally:
        fast.app = inner
        del pool.run


def test_an_error_below_flask_is_counted_once(app):
    """A malformed query is run once and counted once on /metrics, with its reason."""
    client = app.test_client()

    def malformed() -> float:
        for line in client.get("/metrics").get_data(as_text=True).splitlines():
            if line.startswith('benchgraph_refusals_total{reason="malformed",status="400"}'):
                return float(line.split()[-1])
        return 0.0

    before = malformed()
    client.post("/sparql", data={"query": "SELECT * WHERE { ?s"})
    assert malformed() == before + 1
