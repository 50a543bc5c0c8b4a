"""Helpers of the reasoning tests: where the fixture folder is, building, selecting."""

from __future__ import annotations

import os
from pathlib import Path

import pyoxigraph as ox

from benchgraph.namespaces import PREFIXES
from benchgraph.pipeline.steps import build
from benchgraph.query.render import run
from paths import TEST_DATA

REASONING = TEST_DATA / "reasoning" / "data"
ID = "https://w3id.org/benchgraph/id/"
BG = "https://w3id.org/benchgraph/ontology#"
INFERRED = "https://w3id.org/benchgraph/graph/inferred"


def build_store(data: Path, cache: Path) -> ox.Store:
    """Build data into its own cache and open the store."""
    os.environ["BENCHGRAPH_CACHE"] = str(cache)
    return build(data).open()


def short_value(value: str) -> str:
    """An IRI as the tests compare it: record ids and bg: terms bare, others prefixed."""
    for prefix in (ID, BG):
        if value.startswith(prefix):
            return value[len(prefix) :]
    for name, namespace in PREFIXES.items():
        if value.startswith(namespace) and name not in ("bg", "bgid"):
            return f"{name}:{value[len(namespace) :]}"
    return value


def short(term) -> str | None:
    """A result term as the tests compare it (see short_value); literals as their text."""
    if term is None:
        return None
    return short_value(term.value) if isinstance(term, ox.NamedNode) else term.value


def select(store: ox.Store, query: str) -> list[tuple]:
    """Rows of a SELECT over the union graph, each a tuple of short() values."""
    return [tuple(short(term) for term in row) for row in run(store, query)]
