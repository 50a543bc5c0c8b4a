"""benchgraph: AI-inference benchmark results as a validated, inferred knowledge graph."""

from __future__ import annotations

from ._version import __version__

__all__ = ["__version__", "BuildResult", "BenchgraphError", "Problem"]


def __getattr__(name: str):  # lazy, so `import benchgraph` stays cheap for the CLI
    if name == "BuildResult":
        from .pipeline import steps as _build

        return getattr(_build, name)
    if name in ("BenchgraphError", "Problem"):
        from . import errors

        return getattr(errors, name)
    raise AttributeError(name)
