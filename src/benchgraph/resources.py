"""The files shipped with benchgraph: resources/ontology, shapes, queries and validation."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource(*parts: str) -> Path:
    """A file shipped with benchgraph (ontology/, shapes/, queries/, validation/)."""
    return Path(str(resources.files("benchgraph").joinpath("resources", *parts)))
