"""The state one server process shares between requests: `app.extensions["benchgraph"]`."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from ..queries import SavedQuery
from .metrics import Metrics
from .querypool import QueryPool

COUNT_GRAPHS = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g"
COUNT_UNION = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@dataclass
class Site:
    """The served dataset, the query pool and what the pages show about the build."""

    store_path: Path
    key: str
    pool: QueryPool
    examples: dict[str, SavedQuery]
    invalid_records: list[str]
    problem_counts: dict[str, int]
    dump_dir: Path
    link_limit: int = 200
    metrics: Metrics = field(default_factory=Metrics)
    _rendered: dict[tuple, bytes] = field(default_factory=dict)
    _store: ox.Store | None = None
    _counts: tuple[dict[str, int], int] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def store(self) -> ox.Store:
        """The store, read-only, for the bounded look-ups of Linked Data pages."""
        with self._lock:
            if self._store is None:
                self._store = ox.Store.read_only(str(self.store_path))
            return self._store

    def remember(self, key: tuple, make: Callable[[], bytes]) -> bytes:
        """An answer that never changes while this dataset is served, made once. Keys hold the
        Host a client named, so only the first few are kept."""
        if key in self._rendered:
            return self._rendered[key]
        value = make()
        if len(self._rendered) < 32:
            self._rendered[key] = value
        return value

    def etag(self, *parts: str) -> str:
        """A validator for a response that depends only on the dataset and `parts`."""
        h = hashlib.blake2b(digest_size=12)
        for part in parts:
            h.update(part.encode() + b"\0")
        return f"{self.key[:16]}-{h.hexdigest()}"

    def graph_counts(self) -> tuple[dict[str, int], int]:
        """Triples per named graph and in their union; counted once, in a query worker."""
        if self._counts is None:
            per_graph = {row["g"]["value"]: int(row["n"]["value"])
                         for row in self._select(COUNT_GRAPHS)}
            union = int(self._select(COUNT_UNION)[0]["n"]["value"])
            self._counts = (per_graph, union)
        return self._counts

    def _select(self, query: str) -> list[dict]:
        header, body = self.pool.run({"query": query, "accept": "application/json"})
        if header["status"] != 200:
            raise RuntimeError(f"{query}: {header.get('detail')}")
        return json.loads(body)["results"]["bindings"]

    def close(self) -> None:
        """Stop the query workers."""
        self.pool.close()
