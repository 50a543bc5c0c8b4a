"""Storage: the embedded store a build fills, and SPARQL store servers it is pushed to.

The rest of benchgraph talks to one small interface, `Store` (the part of pyoxigraph's
Store that query, export and serve read), got from `open(location)`: a built store folder
opens as the embedded pyoxigraph store, read-only; an http(s) URL as a RemoteStore, a
SPARQL 1.1 query endpoint holding what `benchgraph push` wrote there.

    cache.py   what each record file became (SQLite), read by builds
    load.py    fills the embedded store graph by graph as a build converts
    export.py  dumps of any Store, byte-stable
    jsonld.py  the JSON-LD dump, with an @context of the prefixes
    http.py    the client of remote stores: authentication, retries
    remote.py  a remote store read as the dataset
    push.py    the Graph Store Protocol push of a build into a remote store
    extra.py   outside graphs (--with) in a private copy of a built store

May import: records (what a record links to, for the cache's index) and the base floor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Protocol

import pyoxigraph as ox

__all__ = ["Store", "is_remote", "open"]


class Store(Protocol):
    """What benchgraph reads of a store (pyoxigraph's names and arguments)."""

    def query(
        self,
        query: str,
        *,
        base_iri: str | None = None,
        prefixes: dict[str, str] | None = None,
        use_default_graph_as_union: bool = False,
        default_graph: object = None,
        named_graphs: object = None,
    ) -> object: ...

    def quads_for_pattern(
        self,
        subject: object = None,
        predicate: object = None,
        object: object = None,  # noqa: A002 - pyoxigraph's name
        graph_name: object = None,
    ) -> Iterator[ox.Quad]: ...

    def named_graphs(self) -> Iterator[ox.NamedNode]: ...

    def dump(
        self,
        output: IO[bytes] | str | Path | None = None,
        format: ox.RdfFormat = ...,  # noqa: A002
        *,
        from_graph: object = None,
    ) -> bytes | None: ...


def is_remote(location: str | Path | None) -> bool:
    """Whether `location` names a store server (an http or https URL)."""
    return isinstance(location, str) and location.startswith(("http://", "https://"))


def open(
    location: str | Path,
    timeout: float | None = None,  # noqa: A001
    max_bytes: int | None = None,
    gate: Callable[[str, str | None, dict[str, str] | None], None] | None = None,
) -> Store:
    """The store at `location`, read-only: a URL is a remote SPARQL store, anything else a
    built store folder. For a remote store: `timeout`, its per-query limit in seconds,
    `max_bytes`, the most read of one answer, and `gate`, called with every query before it
    is sent (text, base IRI, prefixes), to refuse it by raising (the query floor's check:
    this floor cannot import it). A remote store reads with the serving account
    (http.SERVE_ACCOUNT), never push's."""
    if is_remote(location):
        from .remote import RemoteStore

        return RemoteStore(str(location), timeout, max_bytes=max_bytes, gate=gate)
    return ox.Store.read_only(str(location))
