"""`serve --store`: the same endpoint, pages and dumps answered from a real store server,
with the same protections, and engine pragmas and outside FROM graphs refused before the
query reaches the store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from benchgraph.pipeline.steps import build
from benchgraph.store.export import dumps
from benchgraph.store.push import push
from benchgraph.web import create_app
from stores.servers import free_port
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


SERVE_AND_END = """
import sys
from benchgraph.web import create_app
config = {"STORE_URL": sys.argv[1], "QUERY_WORKERS": 1}
if len(sys.argv) > 2:
    config["DUMP_DIR"] = sys.argv[2]
app = create_app(config)
print(app.extensions["benchgraph"].dump_dir, flush=True)
"""


def test_a_remote_stores_own_dumps_folder_goes_when_the_app_ends(tmp_path):
    """With no DUMP_DIR, a remote store's dumps are written to a folder made for them, which
    the app deletes when its process ends (each app made one in /tmp and left it there); a
    DUMP_DIR the user gave is kept. The store is down here: the app serves it all the same."""
    url = f"http://127.0.0.1:{free_port()}/query"

    def served(*args: str) -> Path:
        done = subprocess.run(
            [sys.executable, "-c", SERVE_AND_END, url, *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return Path(done.stdout.strip().splitlines()[-1])

    made = served()
    assert made.name.startswith("benchgraph-dumps-") and not made.exists()
    given = tmp_path / "dumps"
    given.mkdir()
    (given / "kept.nq").write_text("")
    assert served(str(given)) == given and (given / "kept.nq").exists()
