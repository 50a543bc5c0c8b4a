"""The build key: a hash of the code, ontology and shapes a build's data comes from, so that
a change to any of them rebuilds everything and a change elsewhere rebuilds nothing."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from .._version import __version__
from ..resources import resource

# Modules whose code does not shape what a build holds: editing them rebuilds nothing.
NOT_IN_BUILD = {"cli.py", "serve.py", "serving.py", "__main__.py", "report.py",
                "shacl_report.py", "queries.py", "timing.py", "locks.py", "extra.py", "sssom.py",
                "reconcile.py", "accept.py", "sparqlclient.py"}
# The storage modules a build's store depends on (store/'s others read or push it).
BUILD_STORE = ("cache.py", "load.py")


@lru_cache(maxsize=1)
def code_key() -> str:
    """A hash of benchgraph's code, ontology and shapes: a change to any rebuilds all."""
    h = hashlib.blake2b(__version__.encode(), digest_size=16)
    package = Path(__file__).parents[1]
    for path in sorted(package.rglob("*.py")):  # the build's modules, not web/ or importers/
        if path.name not in NOT_IN_BUILD and path.parent.name not in (
                "web", "importers", "store", "cli", "serving", "links", "query"):
            h.update(path.read_bytes())
    for name in BUILD_STORE:
        h.update((package / "store" / name).read_bytes())
    for folder in ("ontology", "shapes"):
        for path in sorted(resource(folder).glob("*.ttl")):
            h.update(path.read_bytes())
    return h.hexdigest()
