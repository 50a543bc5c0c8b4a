"""The state one server process shares between requests: `app.extensions["benchgraph"]`.

A Site serves one Snapshot at a time: a build's store, its key, its query pool and what the
build left out. Each request is pinned to the snapshot that was current when it began, so it
sees one dataset whole. A new snapshot (published by `benchgraph serve`, see serving/snapshots.py)
is opened beside the old one, query workers started and all, then swapped in by replacing
one reference; the old one is closed once its last request has ended.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox
from flask import g, has_request_context

from .. import scratch
from ..query.saved import SavedQuery, SavedQueryError
from ..serving import snapshots
from ..store import open as open_store
from .catalogue import Catalogue, build_catalogue
from .metrics import Metrics
from .negotiation import formats_for
from .querypool import QueryPool

log = logging.getLogger(__name__)

COUNT_GRAPHS = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g"
COUNT_UNION = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
PIN = "benchgraph_snapshot"
FOLLOW_EVERY = 0.1  # seconds between looks at the pointer file: a stat, nothing more
# The longest a request may hold an old snapshot open after a swap: a dump may take
# dumps.DUMP_TIMEOUT (600 s); past this the old snapshot is closed all the same.
DRAIN_TIMEOUT = 660.0


@dataclass(eq=False)
class Snapshot:
    """One served build: its store, its key, its query pool, what the build left out."""

    store_path: Path
    key: str
    pool: QueryPool
    dump_dir: Path
    invalid_records: list[str] = field(default_factory=list)
    problem_counts: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    id: str = ""
    built_at: float | None = None
    records: int | None = None
    held: IO[bytes] | None = None  # the shared lock that keeps its folder on disk
    url: str | None = None  # a remote store's query URL, served in place of store_path
    # a folder made for it alone (a remote store's dumps where no DUMP_DIR was given),
    # deleted on close (by the process that made it: scratch.remove)
    own_folder: Path | None = None
    _rendered: dict[tuple, bytes] = field(default_factory=dict)
    _made: dict[str, Any] = field(default_factory=dict)
    _making: threading.Lock = field(default_factory=threading.Lock)
    _store: ox.Store | None = None
    _counts: tuple[dict[str, int], int] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _users: int = 0
    _idle: threading.Condition = field(default_factory=threading.Condition)
    _closed: threading.Event = field(default_factory=threading.Event)

    @property
    def closed(self) -> bool:
        """Whether it is served no more (swapped out, or the app shut): its folder may go."""
        return self._closed.is_set()

    def store(self) -> ox.Store:
        """The store, read-only, for the bounded look-ups of Linked Data pages."""
        with self._lock:
            if self._store is None:
                self._store = open_store(self.url or self.store_path)
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

    def made(self, name: str, make: Callable[[], Any]) -> Any:
        """A thing drawn from this dataset (the browse pages' catalogue), made once: the
        first to ask makes it, the others wait for it."""
        if name in self._made:
            return self._made[name]
        with self._making:
            if name not in self._made:
                self._made[name] = make()
            return self._made[name]

    def etag(self, *parts: str) -> str:
        """A validator for a response that depends only on the dataset and `parts`."""
        h = hashlib.blake2b(digest_size=12)
        for part in parts:
            h.update(part.encode() + b"\0")
        return f"{self.key[:16]}-{h.hexdigest()}"

    def graph_counts(self) -> tuple[dict[str, int], int]:
        """Triples per named graph and in their union; counted once, in a query worker."""
        if self._counts is None:
            per_graph = {
                row["g"]["value"]: int(row["n"]["value"]) for row in self._select(COUNT_GRAPHS)
            }
            union = int(self._select(COUNT_UNION)[0]["n"]["value"])
            self._counts = (per_graph, union)
        return self._counts

    def _select(self, query: str) -> list[dict]:
        header, body = self.pool.run({"query": query, "formats": formats_for("application/json")})
        if header["status"] != 200:
            raise RuntimeError(f"{query}: {header['refusal']['detail']}")
        return json.loads(body)["results"]["bindings"]

    def enter(self) -> None:
        with self._idle:
            self._users += 1

    def leave(self) -> None:
        with self._idle:
            self._users -= 1
            if self._users <= 0:
                self._idle.notify_all()

    def close(self, wait: float = 0.0) -> None:
        """Stop the query workers (after the requests using this snapshot have ended, for
        up to `wait` seconds) and let go of the store and its folder."""
        self._closed.set()
        deadline = time.monotonic() + wait
        with self._idle:
            while self._users > 0 and time.monotonic() < deadline:
                self._idle.wait(deadline - time.monotonic())
            if self._users > 0:
                log.warning(
                    "snapshot %s closed with %d request(s) still on it", self.id, self._users
                )
        self.pool.close()
        with self._lock:
            self._store = None
        if self.held is not None:
            self.held.close()
            self.held = None
        if self.own_folder is not None:
            scratch.remove(self.own_folder)


class Site:
    """The served dataset (one Snapshot at a time), its pages' settings and counters."""

    def __init__(
        self,
        snapshot: Snapshot,
        examples: dict[str, SavedQuery],
        link_limit: int = 200,
        load_examples: Callable[[], dict[str, SavedQuery]] | None = None,
        on_open: list[Callable[[Snapshot], None]] | None = None,
    ) -> None:
        self.examples = examples
        # made for each snapshot as it is opened, in the background (web/dumps.write_ahead)
        self.on_open: list[Callable[[Snapshot], None]] = list(on_open or [])
        self.link_limit = link_limit
        self.metrics = Metrics()
        self.reload: dict[str, Any] = {}  # the pointer's account of rebuilds, when following
        self.open_error: dict[str, Any] | None = None  # a snapshot this process could not open
        self.started = time.time()
        self._current = snapshot
        self._load_examples = load_examples
        self._swap = threading.Lock()
        self._stop = threading.Event()
        self._follower: threading.Thread | None = None
        self._retiring: list[threading.Thread] = []
        self.prepare(snapshot)

    # --- the snapshot a request sees ------------------------------------------------------
    @property
    def current(self) -> Snapshot:
        """The snapshot new requests get."""
        return self._current

    def snapshot(self) -> Snapshot:
        """The snapshot of this request (pinned when it began), else the current one."""
        if has_request_context():
            pinned = g.get(PIN)
            if pinned is not None:
                return pinned
        return self._current

    def enter_current(self) -> Snapshot:
        """The current snapshot, held open until its `leave()`."""
        with self._swap:
            snapshot = self._current
            snapshot.enter()
        return snapshot

    def pin(self) -> None:
        """Before each request: hold the current snapshot until the request ends."""
        setattr(g, PIN, self.enter_current())

    def unpin(self, _exc: BaseException | None = None) -> None:
        """After each request (also a failed one): let go of its snapshot."""
        snapshot = g.pop(PIN, None)
        if snapshot is not None:
            snapshot.leave()

    # The pinned snapshot's parts, under the names the blueprints use.
    @property
    def store_path(self) -> Path:
        return self.snapshot().store_path

    @property
    def key(self) -> str:
        return self.snapshot().key

    @property
    def pool(self) -> QueryPool:
        return self.snapshot().pool

    @property
    def dump_dir(self) -> Path:
        return self.snapshot().dump_dir

    @property
    def invalid_records(self) -> list[str]:
        return self.snapshot().invalid_records

    @property
    def problem_counts(self) -> dict[str, int]:
        return self.snapshot().problem_counts

    @property
    def left_out(self) -> dict[str, str]:
        return self.snapshot().left_out

    def store(self) -> ox.Store:
        return self.snapshot().store()

    def remember(self, key: tuple, make: Callable[[], bytes]) -> bytes:
        return self.snapshot().remember(key, make)

    def etag(self, *parts: str) -> str:
        refused = self.refused_rebuild()  # a page shows the banner: not the cached one
        return self.snapshot().etag(*parts, *(("refused", str(refused["at"])) if refused else ()))

    def refused_rebuild(self) -> dict[str, Any] | None:
        """While the last rebuild was refused: the files it would have left out (each
        with why) and when; else None."""
        last = self.reload.get("last_rebuild") or {}
        if last.get("result") != "refused":
            return None
        leave = last.get("would_leave_out") or {}
        files = [item["file"] for item in leave.get("invalid", [])]
        files += [item["file"] for item in leave.get("linking", [])]
        return {
            "files": files,
            "violations": list(last.get("violations", [])),
            "at": last.get("at", 0.0),
        }

    def catalogue(self) -> Catalogue:
        """The served dataset's records by kind and its search index (catalogue.py)."""
        snapshot = self.snapshot()
        return snapshot.made("catalogue", lambda: build_catalogue(snapshot.store()))

    def prepare(self, snapshot: Snapshot) -> threading.Thread:
        """Make in the background what a snapshot's first visitors would otherwise wait
        for: the catalogue of the browse and search pages, then what `on_open` holds (the
        dumps, which create_app adds)."""

        def make() -> None:
            try:
                snapshot.made("catalogue", lambda: build_catalogue(snapshot.store()))
            except Exception:  # a store that is down: made on first use instead
                if snapshot.closed:  # served no more: its folder may be gone, and no one asks
                    log.debug("snapshot %s closed before its catalogue was made", snapshot.id)
                    return
                log.exception("snapshot %s: catalogue not made ahead", snapshot.id)
            for hook in list(self.on_open):
                hook(snapshot)

        thread = threading.Thread(
            target=make, daemon=True, name=f"prepare-{snapshot.id or snapshot.key[:8]}"
        )
        thread.start()
        return thread

    def graph_counts(self) -> tuple[dict[str, int], int]:
        return self.snapshot().graph_counts()

    # --- swapping ------------------------------------------------------------------------
    def swap(self, new: Snapshot, drain: float = DRAIN_TIMEOUT) -> Snapshot:
        """Serve `new` from the next request on; close the old one once its requests end."""
        if self._load_examples is not None:
            try:
                self.examples = self._load_examples()
            except (OSError, UnicodeDecodeError, SavedQueryError) as exc:
                log.error("saved queries not read again: %s", exc)
        self.prepare(new)
        with self._swap:
            old, self._current = self._current, new
        retire = threading.Thread(
            target=old.close, args=(drain,), daemon=True, name=f"retire-{old.id or old.key[:8]}"
        )
        retire.start()
        self._retiring = [t for t in self._retiring if t.is_alive()] + [retire]
        log.info("serving snapshot %s (%s) in place of %s", new.id, new.key[:12], old.id)
        return old

    def follow(
        self,
        pointer: Path,
        open_snapshot: Callable[[dict[str, Any]], Snapshot],
        every: float = FOLLOW_EVERY,
    ) -> None:
        """Watch the pointer file: take in its account of rebuilds, and swap in each new
        snapshot it names."""
        seen = snapshots.stamp(pointer)  # before reading: a change meanwhile is seen again
        if not self._read_pointer(pointer, open_snapshot):
            seen = None
        self._follower = threading.Thread(
            target=self._follow,
            name="snapshot-follower",
            args=(pointer, open_snapshot, every, seen),
            daemon=True,
        )
        self._follower.start()

    def _follow(
        self,
        pointer: Path,
        open_snapshot: Callable[[dict[str, Any]], Snapshot],
        every: float,
        seen: tuple | None,
    ) -> None:
        # Polling one stat() ten times a second costs nothing and needs no signal between
        # processes (gunicorn's workers take SIGHUP and the like for themselves).
        while not self._stop.wait(every):
            now = snapshots.stamp(pointer)
            if now is None or now == seen:
                continue
            if self._read_pointer(pointer, open_snapshot):
                seen = now

    def _read_pointer(
        self, pointer: Path, open_snapshot: Callable[[dict[str, Any]], Snapshot]
    ) -> bool:
        """Act on the pointer; False to look again (its snapshot was gone already)."""
        try:
            state = snapshots.read(pointer)
        except (OSError, ValueError) as exc:
            log.error("%s: not read: %s", pointer, exc)
            return True
        self.reload = {k: v for k, v in state.items() if k != "snapshot"}
        info = state["snapshot"]
        if info["id"] == self._current.id or self._stop.is_set():
            return True
        try:
            new = open_snapshot(info)
        except snapshots.SnapshotGone:
            return False  # a newer pointer is there or on its way
        except Exception as exc:  # any failure to start it: keep serving the one we have
            log.exception("snapshot %s not opened; still serving %s", info["id"], self._current.id)
            self.open_error = {
                "snapshot": info["id"],
                "key": info["key"],
                "error": str(exc),
                "at": time.time(),
            }
            return True
        self.open_error = None
        self.swap(new)
        return True

    def close(self) -> None:
        """Stop following and stop the query workers."""
        self._stop.set()
        if self._follower is not None:
            self._follower.join(timeout=5)
        self._current.close()
