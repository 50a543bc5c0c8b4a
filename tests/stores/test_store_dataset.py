"""FROM and FROM NAMED answer the same on the embedded store, an Oxigraph server (run with
--union-default-graph, which reads its default graph as the union whatever FROM says) and
Virtuoso: the query's own dataset, not the union of every graph."""

from __future__ import annotations

import pytest

from benchgraph.pipeline.steps import build
from benchgraph.serving.prepare import prepare
from benchgraph.store.push import push
from benchgraph.web import create_app
from stores.test_push import RECORDS

ONTOLOGY = "https://w3id.org/benchgraph/ontology"
JSON = {"Accept": "application/sparql-results+json"}


@pytest.fixture(scope="module")
def apps(server, tmp_path_factory):
    """The embedded app and the app served from the store, on the same build."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BENCHGRAPH_CACHE", str(tmp_path_factory.mktemp("dataset-cache")))
        for key, value in server.env.items():
            mp.setenv(key, value)
        result = build(RECORDS, skip_invalid=True)
        push(result.open(), result.key, server.query, server.graph_store, full=True)
        prepared = prepare(result, [])
        embedded = create_app(prepared.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
        remote = create_app(
            {"STORE_URL": server.query, "QUERY_WORKERS": 1, "TESTING": True, "QUERY_TIMEOUT": 10}
        )
        yield embedded, remote
        remote.extensions["benchgraph"].close()
        embedded.extensions["benchgraph"].close()
        prepared.cleanup()


def _rows(app, query: str) -> list[dict]:
    r = app.test_client().get("/sparql", query_string={"query": query}, headers=JSON)
    assert r.status_code == 200, r.get_data(as_text=True)
    return [{k: v["value"] for k, v in row.items()} for row in r.get_json()["results"]["bindings"]]


@pytest.mark.parametrize(
    "query",
    [
        f"SELECT (COUNT(*) AS ?n) FROM <{ONTOLOGY}> WHERE {{ ?s ?p ?o }}",
        # FROM NAMED alone: the default graph is empty, the named one is read
        f"SELECT (COUNT(*) AS ?n) FROM NAMED <{ONTOLOGY}> WHERE {{ ?s ?p ?o }}",
        f"SELECT ?g (COUNT(*) AS ?n) FROM NAMED <{ONTOLOGY}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"
        " GROUP BY ?g",
        f"SELECT ?g (COUNT(*) AS ?n) FROM <{ONTOLOGY}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"
        " GROUP BY ?g",
        "SELECT (COUNT(*) AS ?n) FROM <https://w3id.org/benchgraph/graph/inferred> "
        "WHERE { ?s ?p ?o }",
    ],
    ids=["from", "from-named-default", "from-named-graph", "from-graph-var", "from-inferred"],
)
def test_a_query_s_dataset_answers_the_same_on_every_store(apps, query):
    embedded, remote = apps
    want = _rows(embedded, query)
    assert _rows(remote, query) == want
    if "GROUP BY" not in query and "FROM NAMED" not in query:
        assert int(want[0]["n"]) > 0  # the graph was read, not an empty one


def test_from_named_is_not_refused_naming_a_graph_the_query_never_named(apps):
    _, remote = apps
    rows = _rows(
        remote,
        f"SELECT DISTINCT ?g FROM NAMED <{ONTOLOGY}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
    )
    assert rows == [{"g": ONTOLOGY}]


def test_from_named_inferred_is_refused_with_the_reason(apps):
    """A push keeps the derived facts one graph per record: GRAPH ?g over them would name
    those, not the dataset's one inferred graph, so the store is not asked."""
    _, remote = apps
    query = (
        "SELECT ?g FROM NAMED <https://w3id.org/benchgraph/graph/inferred> "
        "WHERE { GRAPH ?g { ?s ?p ?o } }"
    )
    r = remote.test_client().get("/sparql", query_string={"query": query}, headers=JSON)
    assert r.status_code == 403 and r.get_json()["title"] == "graph refused"
    assert "one graph per record" in r.get_json()["error"]
