"""The build key: a hash of what a build's data is made from, so that a change to any of it
rebuilds everything, and a change to anything else (what serves, prints, links, imports or
checks a query) discards no build.

What is hashed is named by an allow-list, not found by leaving things out: the packages that
read, convert, check and infer records (and this one, which orders them), the two storage
modules whose code decides what the build's store and cache hold, the base modules they
import, the ontology and shapes, and the lists that shape validation (validation/: the hosts
of spec aggregators, on which no fact may rest alone). The build reads no other file of
benchgraph's (no mapping table: the record format and the units are code, in records/ and
vocab.py).
tests/test_build_key.py holds the list to every module the build imports.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from .._version import __version__

BUILD_PACKAGES = ("records", "rdf", "validation", "reasoning", "pipeline")
BUILD_MODULES = (
    "_version.py",
    "errors.py",
    # the settings table: the build reads its rows (the record size limit, the cache), so an
    # edit of it rebuilds, a serving row's edit included (one table is worth that)
    "settings.py",
    "namespaces.py",
    "vocab.py",
    "resources.py",
    "locks.py",
    "scratch.py",
    "timing.py",
    "store/cache.py",
    "store/load.py",
)
# below resources/: the ontology's and shapes' *.ttl, validation's lists
BUILD_RESOURCES = (("ontology", "*.ttl"), ("shapes", "*.ttl"), ("validation", "*.txt"))


def build_files(package: Path) -> list[Path]:
    """The files of the benchgraph package at `package` (its folder) that the key hashes."""
    files = [p for name in BUILD_PACKAGES for p in sorted((package / name).rglob("*.py"))]
    files += [package / name for name in BUILD_MODULES]
    files += [
        p
        for folder, pattern in BUILD_RESOURCES
        for p in sorted((package / "resources" / folder).glob(pattern))
    ]
    return files


def key_of(package: Path) -> str:
    """The build key of the benchgraph package at `package`: each file's place and bytes."""
    h = hashlib.blake2b(__version__.encode(), digest_size=16)
    for path in build_files(package):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_key() -> str:
    """The build key of this benchgraph: a change to any file it hashes rebuilds all."""
    return key_of(Path(__file__).resolve().parents[1])
