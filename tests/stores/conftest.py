"""Fixtures of the store tests: real store servers on 127.0.0.1, each on free ports with its
files in a temporary folder, started here and stopped at the end of the session.

A server whose binary is absent skips its tests, saying why; where
BENCHGRAPH_REQUIRE_STORES is set (CI sets it) it fails them instead, so CI cannot pass
without both stores.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from benchgraph.store.http import StoreUnavailable
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


def start_pushed(name: str, mktemp: Callable[[], Path], fill: Callable[[servers.Server], None]):
    """A server of its own with `fill(server)` done (a push), its credentials in the
    environment meanwhile, answering. Debian's Virtuoso 7.2.5 has died under a push's
    concurrent PUTs ("double free or corruption" in its output, CI under load, in either
    module that pushes a store of its own): a failure of the server itself (it ended, or
    answers not even ASK {} after the push), not an answer of benchgraph's, is tried once
    more on a fresh server, with a warning that quotes its output. Returns the server and
    its folder."""
    for attempt in range(2):
        server = start(name, folder := mktemp())
        try:
            failure = _filled(server, fill)
        except BaseException:
            server.stop()
            raise
        if failure is None:
            return server, folder
        server.stop()
        if attempt:
            raise failure
        warnings.warn(
            f"{server.name} failed during or after the push ({failure}); exit code "
            f"{server.proc.returncode}; its output: {_tail(server.log)}",
            stacklevel=2,
        )
    raise AssertionError("unreachable")


def _filled(server: servers.Server, fill: Callable[[servers.Server], None]) -> Exception | None:
    """None once `fill` is done and the server answers; the server's own failure, else;
    benchgraph's errors, and a store that could not be reached while it ran, are raised."""
    try:
        with pytest.MonkeyPatch.context() as mp:
            for key, value in server.env.items():
                mp.setenv(key, value)
            fill(server)
    except StoreUnavailable as exc:
        if server.proc.poll() is None:
            raise
        return exc
    try:
        servers.answering(server)
    except RuntimeError as exc:  # it ended, or answers nothing
        return exc
    return None


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-300:]
    except OSError:
        return "(none)"


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
