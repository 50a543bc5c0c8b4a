"""benchgraph: AI-inference benchmark results as a validated, inferred knowledge graph.

    import benchgraph

    result = benchgraph.build("data")  # the query store of data/, its problems, what it left out
    for problem in result.problems:
        print(problem)  # data/systems/x.yaml:12: interconnect_ids: nvlink ... [bg:...]
    store = result.open()  # pyoxigraph, read-only

The names below are the public API; each is imported when first used, so that
`import benchgraph` (and every `benchgraph` command) stays cheap.
"""

from __future__ import annotations

from ._version import __version__

# name -> the module it comes from
_API = {
    "build": "pipeline",
    "BuildResult": "pipeline",
    "BenchgraphError": "errors",
    "CannotRun": "errors",
    "Problem": "errors",
    "QueryRefused": "errors",
    "RecordsInvalid": "errors",
    "Record": "records.schema",
    "load_record": "records.reader",
    "SavedQuery": "query.saved",
    "saved_queries": "query.saved",
    "dump": "store.export",
    "format_for": "store.export",
    "create_app": "web",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'benchgraph' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_API[name]}", __name__), name)
    globals()[name] = value  # once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
