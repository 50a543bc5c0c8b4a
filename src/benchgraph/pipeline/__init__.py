"""The build: record files -> records -> RDF -> checked -> inferred -> query store.

    steps.py    build(): the order of the steps, and nothing else of theirs
    workers.py  one record file into a cache entry; many in forked worker processes
    changes.py  which record files changed since the last build (racy-mtime digests)
    session.py  what a long-lived builder (serve --watch) remembers between builds, so a
                build told the changed files reads only those
    key.py      the build key: a hash of the code and resources the data is made from
    derive.py   the cross-record rules' part of a build: batch by batch as a first build
                loads, then for the runs and systems an edit reaches

May import: validation, reasoning, store, rdf, records and the base floor. Nothing that
serves, prints or links: those sit above, and are not in the build key.
"""

from __future__ import annotations

from .steps import BuildResult, build

__all__ = ["BuildResult", "build"]
