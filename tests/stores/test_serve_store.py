"""`serve --store`: the same endpoint, pages and dumps answered from a real store server,
with the same protections, and engine pragmas and outside FROM graphs refused before the
query reaches the store."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from benchgraph.pipeline.steps import build
from benchgraph.store.export import dumps
from benchgraph.store.push import push
from benchgraph.web import create_app
from stores.test_push import RECORDS

RUN = "ev-sglang-dsv41-production-decode-tok-s-per-user"


@pytest.fixture(scope="module")
def remote_app(server):
    with pytest.MonkeyPatch.context() as mp:
        for key, value in server.env.items():
            mp.setenv(key, value)
        result = build(RECORDS, skip_invalid=True)
        push(result.open(), result.key, server.query, server.graph_store, full=True)
        app = create_app(
            {"STORE_URL": server.query, "QUERY_WORKERS": 1, "TESTING": True, "QUERY_TIMEOUT": 10}
        )
        yield app, result
        app.extensions["benchgraph"].close()


def test_endpoint_answers_from_the_store(remote_app):
    app, result = remote_app
    client = app.test_client()
    query = "SELECT ?run WHERE { ?run a bg:BenchmarkRun } ORDER BY ?run"
    r = client.get(
        "/sparql",
        query_string={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert r.status_code == 200 and r.mimetype == "application/sparql-results+json"
    got = [b["run"]["value"] for b in r.get_json()["results"]["bindings"]]
    want = [
        s["run"].value
        for s in result.open().query(
            "PREFIX bg: <https://w3id.org/benchgraph/ontology#> SELECT ?run WHERE "
            "{ ?run a bg:BenchmarkRun } ORDER BY ?run",
            use_default_graph_as_union=True,
        )
    ]
    assert got == want and got
    r = client.get(
        "/sparql",
        query_string={"query": "CONSTRUCT { ?s a ?c } WHERE { ?s a bg:Accelerator ; a ?c }"},
        headers={"Accept": "application/n-triples"},
    )
    assert r.status_code == 200 and r.mimetype == "application/n-triples"
    assert list(ox.parse(r.data, ox.RdfFormat.N_TRIPLES))


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ('define get:soft "replace" SELECT * WHERE { ?s ?p ?o }', "engine pragma refused"),
        (
            "# a comment first\nDEFINE sql:log-enable 3 SELECT * WHERE { ?s ?p ?o }",
            "engine pragma refused",
        ),
        ("SELECT * FROM <http://example.org/elsewhere> WHERE { ?s ?p ?o }", "graph refused"),
        (
            "SELECT * FROM NAMED <http://example.org/x> WHERE { GRAPH ?g { ?s ?p ?o } }",
            "graph refused",
        ),
        (
            "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
            "federated query refused",
        ),
    ],
)
def test_refused_before_the_store_sees_it(remote_app, query, title):
    app, _ = remote_app
    r = app.test_client().get("/sparql", query_string={"query": query})
    assert r.status_code == 403 and r.get_json()["title"] == title


def test_a_graph_of_the_dataset_may_be_named(remote_app):
    app, _ = remote_app
    graph = f"https://w3id.org/benchgraph/graph/benchmarks/{RUN}"
    r = app.test_client().get(
        "/sparql",
        query_string={"query": f"SELECT (COUNT(*) AS ?n) FROM <{graph}> WHERE {{ ?s ?p ?o }}"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert r.status_code == 200
    assert int(r.get_json()["results"]["bindings"][0]["n"]["value"]) > 10


def test_updates_stay_refused(remote_app):
    app, _ = remote_app
    r = app.test_client().post("/sparql", data={"update": "CLEAR ALL"})
    assert r.status_code == 403


def test_record_page_and_dump_from_the_store(remote_app):
    app, result = remote_app
    client = app.test_client()
    r = client.get(f"/id/benchmarks/{RUN}", headers={"Accept": "text/html"})
    assert r.status_code == 200 and b"derived" in r.data
    r = client.get(f"/id/benchmarks/{RUN}", headers={"Accept": "application/n-triples"})
    assert r.status_code == 200
    r = client.get("/dumps/benchgraph.nq", headers={"Accept-Encoding": "identity"})
    assert r.status_code == 200 and r.data == dumps(result.open(), "nq")


def test_time_limit_stops_a_query_on_the_store(server, remote_app):
    """A query past the time limit is a 503 whichever stops it: Virtuoso at its own
    `timeout` (which would answer a part: refused), else the worker killed at the limit."""
    app, _ = remote_app
    app.config["QUERY_TIMEOUT"] = 1.0
    try:
        heavy = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
        r = app.test_client().get("/sparql", query_string={"query": heavy})
        assert r.status_code == 503 and r.get_json()["title"] == "query timed out"
    finally:
        app.config["QUERY_TIMEOUT"] = 10
    # the pool and the store still answer, within the usual limit: a loaded machine may take
    # more than the 1 s above to start the worker that replaces the one stopped
    r = app.test_client().get("/sparql", query_string={"query": "ASK { ?s ?p ?o }"})
    assert r.status_code == 200


def test_result_over_the_cap_is_refused(server, tmp_path):
    with pytest.MonkeyPatch.context() as mp:
        for key, value in server.env.items():
            mp.setenv(key, value)
        app = create_app(
            {
                "STORE_URL": server.query,
                "QUERY_WORKERS": 1,
                "TESTING": True,
                "MAX_RESULT_BYTES": 2000,
            }
        )
        try:
            r = app.test_client().get(
                "/sparql", query_string={"query": "SELECT * WHERE { ?s ?p ?o }"}
            )
            assert r.status_code == 422 and r.get_json()["title"] == "result too large"
        finally:
            app.extensions["benchgraph"].close()
