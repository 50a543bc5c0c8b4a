"""The store loads the build's batches in threads of its own, through named pipes: every
record lands however the batches fall into loads, and a failure on either side ends the
build with its own error instead of a hang, leaving no pipe behind."""

from __future__ import annotations

import signal
import tempfile
import threading

import pyoxigraph as ox
import pytest

import benchgraph.store.load as load_module
from benchgraph.store.cache import Cache, Entry
from benchgraph.store.load import Loader, StoreRefused, _load_size
from test_scratch import held_elsewhere

GRAPH = "https://w3id.org/benchgraph/graph/benchmarks/"


def _entry(n: int, stated: str | None = None) -> Entry:
    rid = f"run-{n}"
    text = (
        stated
        if stated is not None
        else (
            f"<https://w3id.org/benchgraph/id/benchmarks/{rid}> <https://w3id.org/benchgraph/"
            f'ontology#value> "{n}" <{GRAPH}{rid}> .\n'
        )
    )
    return Entry(
        f"data/benchmarks/{rid}.yaml", f"digest-{n}", "benchmarks", rid, text, "", [], [], {}
    )


def _batches(count: int, size: int, fail_after: int | None = None):
    for b in range(count):
        if b == fail_after:
            raise RuntimeError("the workers failed")
        yield [_entry(b * size + i) for i in range(size)]


@pytest.fixture
def loader(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cache = Cache(tmp_path / "cache.sqlite")
    yield Loader(ox.Store(), cache, ("", ""))
    cache.close()


def _add(loader: Loader, batches, expected: int | None = None) -> None:
    """Loader.add, failing the test rather than hanging it."""

    def hung(*_):
        raise TimeoutError("the load hung")

    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        loader.add(batches, expected)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def _graphs(store: ox.Store) -> set[str]:
    return {g.value for g in store.named_graphs()}


@pytest.mark.parametrize("expected", [None, 60])
def test_every_batch_lands_across_many_overlapping_loads(loader, monkeypatch, tmp_path, expected):
    """Loads of 2, 2, 4, 8, 16, ... records (or shrinking near the expected end), at most
    LOADS_AT_ONCE of them running at once: each load, once it has read its pipe, waits to end
    until LOADS_AT_ONCE have run at once, so that they overlap however the threads are run."""
    monkeypatch.setattr(load_module, "QUEUED", 1)
    running, most, changed, gave_up = [0], [0], threading.Condition(), [False]
    real = load_module._Feed._load

    def overlapped() -> bool:
        return most[0] >= load_module.LOADS_AT_ONCE or gave_up[0]

    def load(feed, pipe):
        with changed:
            running[0] += 1
            most[0] = max(most[0], running[0])
            changed.notify_all()
        try:
            real(feed, pipe)
            with changed:  # a deadline, once, rather than a hang where fewer can run at once
                if not changed.wait_for(overlapped, timeout=60):
                    gave_up[0] = True
        finally:
            with changed:
                running[0] -= 1

    monkeypatch.setattr(load_module._Feed, "_load", load)
    _add(loader, _batches(30, 2), expected)
    assert _graphs(loader.store) == {f"{GRAPH}run-{n}" for n in range(60)}
    assert loader.cache.loaded_count() == 60
    assert most[0] == load_module.LOADS_AT_ONCE
    assert not list((tmp_path / "tmp").iterdir()), "a pipe was left behind"


def test_text_the_store_cannot_read_is_raised_not_waited_on(loader, tmp_path):
    bad = [[_entry(0)], [_entry(1, stated="<not a quad\n")], [_entry(2)], [_entry(3)]]
    with pytest.raises(StoreRefused, match="Unexpected end of file"):  # the store's own words
        _add(loader, iter(bad))
    assert not list((tmp_path / "tmp").iterdir())


def test_a_failure_of_the_workers_ends_the_loads(loader, tmp_path):
    with pytest.raises(RuntimeError, match="the workers failed"):
        _add(loader, _batches(20, 3, fail_after=7))
    assert not list((tmp_path / "tmp").iterdir())
    assert not [t for t in threading.enumerate() if "_guard" in t.name and t.is_alive()]


def test_pipes_a_killed_build_left_are_removed_by_the_next(loader, tmp_path):
    """kill -9 of a build leaves its pipes' folder in the temporary folder: the next build
    removes it, and not the folder of a build still running (benchgraph.scratch)."""
    killed, running = (held_elsewhere(tmp_path / "tmp", "load") for _ in range(2))
    killed[0].send_signal(signal.SIGKILL)
    killed[0].wait()
    try:
        _add(loader, _batches(3, 2))
        assert loader.cache.loaded_count() == 6
        assert list((tmp_path / "tmp").iterdir()) == [running[1]]
    finally:
        running[0].kill()
        running[0].wait()


def test_loads_grow_and_the_last_one_is_small():
    """Few loads (each one's text is merged again by those after it), and the last ones
    small: nothing overlaps the end of the last load."""
    loaded, sizes = 0, []
    while loaded < 100_000:
        sizes.append(_load_size(loaded, 100_000))
        loaded += sizes[-1]
    assert sizes[:5] == [1, 1, 2, 4, 8]
    assert sizes[-1] == 1 and sizes[-2] <= 2
    assert len(sizes) < 40
    assert _load_size(50_000, None) == 50_000  # the end not known: as many as before
