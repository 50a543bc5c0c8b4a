"""benchgraph push over the Graph Store Protocol into real Oxigraph and Virtuoso servers:
whole graphs, a second push sends nothing, an edit sends its graph, a removal removes it,
the manifest in the store says what was pushed, an interrupted push resumes."""

from __future__ import annotations

import shutil

import pyoxigraph as ox
import pytest

from benchgraph.cli.main import main
from benchgraph.namespaces import graph_iri
from benchgraph.pipeline.steps import build
from benchgraph.store import push as push_module
from benchgraph.store.push import local_graphs, push
from benchgraph.store.remote import MANIFEST, RemoteStore
from paths import ROOT

RECORDS = ROOT / "tests" / "web" / "data" / "records"


def store_quads(remote: RemoteStore) -> dict[str, int]:
    """Quads per graph benchgraph wrote in the store (the manifest left out)."""
    rows = remote._select(
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g", raw=True
    )
    return {
        r["g"]["value"]: int(r["n"]["value"])
        for r in rows
        if r["g"]["value"].startswith("https://w3id.org/benchgraph/")
        and r["g"]["value"] != MANIFEST
    }


@pytest.fixture
def records(tmp_path):
    target = tmp_path / "records"
    shutil.copytree(RECORDS, target)
    (target / "benchmarks" / "invalid-confidence.yaml").unlink()  # the web tests' bad one
    return target


def pushed(data, server, **kw):
    result = build(data)
    return push(result.open(), result.key, server.query, server.graph_store, **kw)


def test_push_is_whole_then_sends_only_changes(store_env, records):
    server = store_env
    first = pushed(records, server, full=True)
    local = local_graphs(build(records).open())
    remote = RemoteStore(server.query)
    held = store_quads(remote)
    assert held == {name: g.quads for name, g in local.items()}  # every graph, whole
    assert sum(held.values()) == first.local_quads
    assert set(remote.manifest()) == set(local)
    assert remote.dataset_key() == build(records).key

    again = pushed(records, server)
    assert again.plan.send == [] and again.plan.remove == []  # a second push sends nothing

    engine = records / "engines" / "markup-notes.yaml"
    engine.write_text(
        engine.read_text().replace(
            "must reach the reader as text", "must reach every reader as text"
        )
    )
    edited = pushed(records, server)
    assert [g.name for g in edited.plan.send] == [str(graph_iri("engines", "markup-notes"))]
    assert edited.plan.remove == []

    extra = records / "engines" / "extra-engine.yaml"
    extra.write_text(engine.read_text().replace("id: markup-notes", "id: extra-engine"))
    added = pushed(records, server)
    names = {g.name for g in added.plan.send}
    assert str(graph_iri("engines", "extra-engine")) in names
    assert added.plan.new == len(names)
    extra.unlink()
    removed = pushed(records, server)
    assert str(graph_iri("engines", "extra-engine")) in removed.plan.remove
    assert removed.plan.send == []
    assert store_quads(remote) == {
        n: g.quads for n, g in local_graphs(build(records).open()).items()
    }


def test_interrupted_push_leaves_whole_graphs_and_resumes(store_env, records, monkeypatch):
    server = store_env
    pushed(records, server, full=True)
    for path in (records / "metrics").glob("*.yaml"):  # change a few graphs
        path.write_text(path.read_text() + "\n# edited\nnotes: changed for the test\n")
    sent = []
    real = push_module.Pusher._send

    def failing(self, graph):
        if len(sent) >= 2:
            raise KeyboardInterrupt  # the push stopped half-way
        sent.append(graph.name)
        real(self, graph)

    monkeypatch.setattr(push_module.Pusher, "_send", failing)
    monkeypatch.setattr(push_module, "SENDERS", 1)
    with pytest.raises(KeyboardInterrupt):
        pushed(records, server)
    monkeypatch.undo()
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    local = local_graphs(build(records).open())
    held = store_quads(RemoteStore(server.query))
    for name in held:  # each graph is the old version or the new, whole
        assert held[name] > 0
    resumed = pushed(records, server)
    assert not {g.name for g in resumed.plan.send} & set(sent)  # what was sent stays sent
    assert store_quads(RemoteStore(server.query)) == {n: g.quads for n, g in local.items()}
    assert pushed(records, server).plan.send == []


def test_dry_run_sends_nothing_and_says_what_it_would(store_env, records, capsys):
    server = store_env
    pushed(records, server, full=True)
    engine = records / "engines" / "markup-notes.yaml"
    engine.write_text(engine.read_text() + "\n# touched\n")
    engine.write_text(engine.read_text().replace("Ampersands", "Ampersands (edited)"))
    code = main(
        [
            "push",
            "--data",
            str(records),
            "--store",
            server.query,
            "--graph-store",
            server.graph_store,
            "--dry-run",
        ]
    )
    said = capsys.readouterr().err
    # the edited record, and the description graph the command adds (the library's push
    # above sent none)
    assert code == 0 and "(dry run, nothing sent): 2 graph(s) to send (1 new, 1 changed" in said
    assert pushed(records, server).plan.send != []  # the dry run sent nothing


def test_credentials_stay_out_of_urls_and_messages(store_env, records, monkeypatch, capsys):
    server = store_env
    url = server.graph_store.replace("http://", "http://dba:secret-word@")
    code = main(["push", "--data", str(records), "--store", server.query, "--graph-store", url])
    err = capsys.readouterr().err
    assert code == 2 and "secret-word" not in err and "BENCHGRAPH_STORE_USER" in err
    if server.env:  # a store that asks for credentials refuses wrong ones, without echoing
        monkeypatch.setenv("BENCHGRAPH_STORE_PASSWORD", "wrong-secret")
        code = main(
            [
                "push",
                "--data",
                str(records),
                "--store",
                server.query,
                "--graph-store",
                server.graph_store,
                "--full",
            ]
        )
        err = capsys.readouterr().err
        assert code == 2 and "refused access" in err and "wrong-secret" not in err


def test_full_push_starts_over(store_env, records):
    server = store_env
    pushed(records, server, full=True)
    result = pushed(records, server, full=True)
    assert len(result.plan.send) == len(local_graphs(build(records).open()))
    assert pushed(records, server).plan.send == []


def test_remote_store_reads_as_the_build(store_env, records):
    """Named graphs, a record's quads and its derived facts, and the N-Quads dump read from
    the store are the build's (the derived facts under the one inferred graph's name)."""
    server = store_env
    pushed(records, server, full=True)
    local = build(records).open()
    remote = RemoteStore(server.query)
    assert sorted(g.value for g in remote.named_graphs()) == sorted(
        g.value for g in local.named_graphs()
    )
    from benchgraph.store.export import dumps

    for fmt in ("nq", "trig", "nt"):
        assert dumps(remote, fmt) == dumps(local, fmt)
    run = ox.NamedNode(
        "https://w3id.org/benchgraph/id/benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
    )
    inferred = ox.NamedNode("https://w3id.org/benchgraph/graph/inferred")
    assert set(remote.quads_for_pattern(run, None, None, inferred)) == set(
        local.quads_for_pattern(run, None, None, inferred)
    )
    assert set(remote.quads_for_pattern(None, None, run, None)) == set(
        local.quads_for_pattern(None, None, run, None)
    )


def test_every_removal_ends_before_any_graph_is_sent(monkeypatch):
    """A DELETE and a PUT of one graph in flight at once may land in either order: a --full
    push removed every graph while sending them again, and lost the graph whose DELETE came
    last (seen on Virtuoso). No server needed: a client that records what it is asked."""
    import io
    import threading
    import time

    from benchgraph.store.push import Graph, Plan, Progress, Pusher

    asked, lock = [], threading.Lock()

    class Answer:
        status = 204

    class Recorder:
        def request(self, method, url, body=None, headers=None, params=()):
            name = dict(params)["graph"]
            if method == "DELETE":
                time.sleep(0.02)  # a slow removal: the sends would overtake it
            with lock:
                asked.append((method, name))
            return Answer()

    graphs = [Graph(f"https://w3id.org/benchgraph/graph/x/{i}", b"", 0) for i in range(12)]
    plan = Plan(
        send=graphs, remove=[f"https://w3id.org/benchgraph/graph/old/{i}" for i in range(12)]
    )
    Pusher("http://127.0.0.1:1/store", Recorder(), {}, "key").run(plan, Progress(24, io.StringIO()))
    methods = [m for m, name in asked if not name.endswith("/manifest")]
    assert methods == ["DELETE"] * 12 + ["PUT"] * 12
