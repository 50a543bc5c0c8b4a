"""Fixtures of the store tests: real store servers on 127.0.0.1, each on free ports with its
files in a temporary folder, started here and stopped at the end of the session.

A server whose binary is absent skips its tests, saying why; where
BENCHGRAPH_REQUIRE_STORES is set (CI sets it) it fails them instead, so CI cannot pass
without both stores.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from stores import servers

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items) -> None:
    """Every test here talks to a real store server: slow (make test-fast leaves them out;
    make test, which CI runs, keeps them)."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.slow)


def _available(name: str) -> None:
    binary = {"oxigraph": servers.oxigraph_binary, "virtuoso": servers.virtuoso_binary}[name]()
    if binary is None:
        reason = {
            "oxigraph": "the oxigraph server binary (pip install oxigraph) is not here",
            "virtuoso": "virtuoso-t is not here (apt-get install virtuoso-opensource)",
        }[name]
        if os.environ.get("BENCHGRAPH_REQUIRE_STORES"):
            pytest.fail(reason + " and BENCHGRAPH_REQUIRE_STORES is set")
        pytest.skip(reason)


def start(name: str, folder) -> servers.Server:
    _available(name)
    return {"oxigraph": servers.start_oxigraph, "virtuoso": servers.start_virtuoso}[name](folder)


@pytest.fixture(scope="session", params=["oxigraph", "virtuoso"])
def server(request, tmp_path_factory) -> Iterator[servers.Server]:
    """One running store server of each kind, shared by the session's tests."""
    s = start(request.param, tmp_path_factory.mktemp(request.param))
    yield s
    s.stop()


@pytest.fixture
def store_env(server, monkeypatch) -> servers.Server:
    """The server, with its credentials in the environment (as push reads them)."""
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    return server
