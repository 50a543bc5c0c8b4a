"""The files shipped with benchgraph: resources/ontology, shapes and queries."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource(*parts: str) -> Path:
    """A file shipped with benchgraph (ontology/, shapes/, queries/)."""
    return Path(str(resources.files("benchgraph").joinpath("resources", *parts)))
