"""Shared fixtures: where the repo, its data and ../shared are; a private build cache."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from paths import REQUIRE_SHARED, SHARED
from slow_tests import SHIPPED_DATA, SLOW


def pytest_sessionstart(session):
    """Where ../shared is required (CI), its absence ends the run at once: the tests of real
    outside data would skip, and a run that skipped them must not pass."""
    if os.environ.get(REQUIRE_SHARED) and not SHARED.is_dir():
        pytest.exit(f"{SHARED} is not here and {REQUIRE_SHARED} is set", returncode=1)


def pytest_collection_modifyitems(items) -> None:
    """The tests slow_tests.py names (by function, every parameter) and those that build the
    shipped data are marked slow: `make test-fast` leaves them out."""
    for item in items:
        if item.nodeid.split("[")[0] in SLOW or SHIPPED_DATA & set(
            getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Each test session builds into its own cache, never the repo's .benchgraph/."""
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def shared() -> Path:
    """../shared beside the repo (CI lays it there); skip where it is absent."""
    if not SHARED.is_dir():
        # (where REQUIRE_SHARED is set, pytest_sessionstart has ended the run already)
        pytest.skip(f"{SHARED} is not here: tests of real outside data need it")
    return SHARED


@pytest.fixture
def copy_data(tmp_path):
    """Copy a data folder to a temporary place a test may edit."""

    def copy(source: Path) -> Path:
        target = tmp_path / "data"
        shutil.copytree(source, target)
        return target

    return copy
