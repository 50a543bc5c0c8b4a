"""Fixtures of the reasoning tests: the fixture folder and the shipped data, built once."""

from __future__ import annotations

import os

import pyoxigraph as ox
import pytest

from benchgraph.pipeline.steps import build
from paths import DATA

from .reasoning_support import REASONING, build_store


@pytest.fixture(scope="session")
def fixture_store(tmp_path_factory) -> ox.Store:
    """tests/data/reasoning/data, built."""
    return build_store(REASONING, tmp_path_factory.mktemp("reasoning-cache"))


@pytest.fixture(scope="session")
def shipped_store(tmp_path_factory) -> ox.Store:
    """The shipped data/, built (records others are still writing may be left out)."""
    os.environ["BENCHGRAPH_CACHE"] = str(tmp_path_factory.mktemp("shipped-reasoning-cache"))
    return build(DATA, skip_invalid=True).open()
