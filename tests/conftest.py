"""Shared fixtures: where the repo, its data and ../shared are; a private build cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from paths import SHARED


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Each test session builds into its own cache, never the repo's .benchgraph/."""
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def shared() -> Path:
    """../shared beside the repo (CI lays it there); skip where it is absent."""
    if not SHARED.is_dir():
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
