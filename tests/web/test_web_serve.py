"""`benchgraph serve`'s preparation: --with files become named graphs in a private copy, and
the cached build is never written."""

from __future__ import annotations

import argparse

import pyoxigraph as ox
import pytest

from benchgraph.cli.options import parse_with
from benchgraph.pipeline.steps import build
from benchgraph.serving.prepare import prepare
from web.web_support import RECORDS


@pytest.fixture
def built(web_cache):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BENCHGRAPH_CACHE", str(web_cache))
        return build(RECORDS, skip_invalid=True)


def snapshot(folder):
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_with_files_become_named_graphs_in_a_copy(built, tmp_path):
    named = tmp_path / "gpus.ttl"
    named.write_text("<https://example.org/h100> <https://example.org/p> 1 .\n")
    unnamed = tmp_path / "extra.nt"
    unnamed.write_text(
        "<https://example.org/a> <https://example.org/p> <https://example.org/b> .\n"
    )
    before = snapshot(built.store_path)
    served = prepare(built, [(named, "https://example.org/gpus"), (unnamed, None)])
    try:
        store = ox.Store.read_only(str(served.store_path))
        graphs = {g.value for g in store.named_graphs()}
        assert {"https://example.org/gpus", unnamed.resolve().as_uri()} <= graphs
        described = len(
            list(
                store.quads_for_pattern(
                    None, None, None, ox.NamedNode("https://w3id.org/benchgraph/graph/description")
                )
            )
        )
        assert described > 0  # what the copy holds, described (description.py)
        assert len(store) == len(ox.Store.read_only(str(built.store_path))) + 2 + described
        assert served.key != built.key and len(served.key) == 32
        del store
    finally:
        served.cleanup()
    assert not served.workdir.exists()
    assert snapshot(built.store_path) == before  # the cached build was not written


def test_the_key_follows_the_with_files(built, tmp_path):
    extra = tmp_path / "x.nt"
    extra.write_text('<https://example.org/a> <https://example.org/p> "1" .\n')
    keys = []
    for iri in ("https://example.org/one", "https://example.org/two"):
        served = prepare(built, [(extra, iri)])
        keys.append(served.key)
        served.cleanup()
    assert keys[0] != keys[1]


def test_parse_with(tmp_path):
    path = tmp_path / "a.ttl"
    path.write_text("")
    assert parse_with(str(path)) == (path, None)
    assert parse_with(f"{path}=https://example.org/g?x=1") == (path, "https://example.org/g?x=1")
    with pytest.raises(argparse.ArgumentTypeError):
        parse_with(str(tmp_path / "missing.ttl"))


def test_a_dump_written_before_a_restart_is_served_at_once_after_it(built):
    """Dumps live beside the build: the next serving copy of the same data finds them."""
    from benchgraph.web import create_app

    first = prepare(built, [])
    app = create_app(first.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    try:
        got = app.test_client().get("/dumps/benchgraph.nq")
        assert got.status_code == 200
        body = got.get_data()
    finally:
        app.extensions["benchgraph"].close()
        first.cleanup()  # the server's shutdown: its store copy goes
    written = first.dumps / first.key / "benchgraph.nq"
    assert written.is_file(), "the dump went with the serving copy"
    stamp = written.stat().st_mtime_ns

    second = prepare(built, [])
    app = create_app(second.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    try:
        pool = app.extensions["benchgraph"].pool
        asked = []
        pool_run = pool.run
        pool.run = lambda request, **kw: asked.append(request) or pool_run(request, **kw)
        again = app.test_client().get("/dumps/benchgraph.nq")
        assert again.status_code == 200 and again.get_data() == body
        assert not [r for r in asked if r.get("op") == "dump"], "the dump was written again"
        assert written.stat().st_mtime_ns == stamp
    finally:
        app.extensions["benchgraph"].close()
        second.cleanup()
