"""The query store brought to hold exactly the records a build includes, graph by graph.

A record is its named graph plus its share of the graphs all records share: what its local
reasoning put in the inferred graph and its links in the link graph (about its own nodes
only, so no other record shares those quads; pipeline.workers.process hands both as the entry's
`inferred` text, and they are removed quad by quad). `Loader.add` loads records as the
build's workers return them, bulk loads in threads of their own reading batch after batch,
so the store fills while the workers convert and no build holds every record's quads at
once; `Loader.finish` then removes what the build left out, adds what was not loaded yet,
and names the runs and systems the cross-record rules must derive again.

What those rules derive about a record (its subjects' quads in the inferred graph) is kept
per record graph in the cache's `derived` table, as the store holds it: a record removed
takes its derived quads with it, and `Loader.derived` writes only the difference between
what the rules derive now and what the store holds (pipeline.derive).
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import pyoxigraph as ox

from .. import scratch
from ..errors import VIOLATION, CannotRun, Problem
from ..namespaces import GRAPH, ID, INFERRED_GRAPH, ONTOLOGY_IRI, RUN, record_iri, renamed
from ..records.files import size_text
from ..records.schema import REFERENCES, Record
from .cache import ID as ROW_ID
from .cache import KIND, Cache, Entries, Entry, pack, unpack

ONTOLOGY = str(ONTOLOGY_IRI)
LINKED_KINDS = {kind for fields in REFERENCES.values() for kind in fields.values()}
GRAPHS, IDS = str(GRAPH), str(ID)
# The text is benchgraph's own N-Quads, from records whose IRIs the shapes checked; the
# parser's IRI validation cost 20-30% of a load.
_LENIENT = True
PENDING = "underived"  # the cache's meta key of graphs refused builds loaded, not derived
READ = 2000  # records read from the cache at once to be loaded again
QUEUED = 6  # batches the build may hand on before the loads take them (about 40 MB each)
# Loads running at once: each holds what it read until it ends (at 100k shipped runs,
# unbounded: 3.1-3.3 GB at the peak, two: 2.7-2.9 GB).
LOADS_AT_ONCE = 2
WAIT = 0.5  # seconds between looks at whether the loads failed, while waiting for them


# Oxigraph's N-Quads reader, which bulk loads from a file or pipe use, refuses any one term
# (a literal, an IRI) of more than 16 MiB as written, escapes included ("Reached the buffer
# maximal size of 16777216"); below it the store took everything benchgraph writes of a
# record that conforms (IRIs the shapes checked; literals rdflib escaped).
STORE_TERM_BYTES = 16 * 1024 * 1024
_SAFE_LINE = STORE_TERM_BYTES - 1024  # a line under this holds no term over the limit


class StoreRefused(CannotRun):
    """The store's bulk load refused the build's N-Quads."""


@dataclass
class Derived:
    """What the cross-record rules derived (pipeline.derive): `lines`, graph -> its N-Quads
    lines; `kinds`, for runs alike but for their IRI, the lines of each with namespaces.RUN
    for its IRI -> the (graph, IRI) of the runs that have them. The cache keeps a run's
    kind, not its lines (at 100k runs, a few hundred kinds): an edit that reaches thousands
    of runs compares kinds, and the lines of two kinds once."""

    lines: dict[str, list[str]] = field(default_factory=dict)
    kinds: dict[tuple[str, ...], list[tuple[str, str]]] = field(default_factory=dict)

    def graphs(self) -> set[str]:
        return set(self.lines) | {g for members in self.kinds.values() for g, _ in members}


def _kind_id(lines: Iterable[str]) -> str:
    return hashlib.blake2b("".join(lines).encode(), digest_size=12).hexdigest()


def _as_run(template: str, iri: str) -> str:
    """A kind's lines (joined) as those of the run `iri`."""
    return template.replace(f"<{RUN}>", f"<{iri}>").replace(f"<{RUN}#", f"<{iri}#")


class Deriver(Protocol):
    """What derives the cross-record quads of records as they are loaded (pipeline.derive):
    those of the entries handed (their graphs are loaded with them), and at the end of the
    loads what is left."""

    def take(self, entries: list[Entry]) -> Derived: ...

    def rest(self) -> Derived: ...

    def again(self, graphs: Iterable[str]) -> None: ...


def too_long_for_store(text: str) -> int:
    """The bytes of the longest line of these N-Quads if one may hold a term the store
    refuses (the line is the measure: a term is at most its line), else 0. One record's
    N-Quads are checked where it is converted, so that it is the record's problem and the
    rest load; checking costs a length unless the text is megabytes long."""
    if len(text) * 4 < _SAFE_LINE:  # a character is at most 4 bytes in UTF-8
        return 0
    longest = 0
    for line in text.splitlines():
        if len(line) * 4 >= _SAFE_LINE:
            size = len(line.encode())
            if size >= _SAFE_LINE:
                longest = max(longest, size)
    return longest


def store_problem(record: Record, text: str) -> Problem | None:
    """The record's problem if the store would refuse its N-Quads `text` (too_long_for_store),
    at the field holding the longest text (escaping at most doubles it)."""
    size = too_long_for_store(text)
    if not size:
        return None
    fields = sorted(
        (
            (len(str(v).encode()), dotted)
            for dotted, v in _scalars(record.fields)
            if isinstance(v, str)
        ),
        reverse=True,
    )
    field = fields[0][1] if fields and fields[0][0] * 2 >= _SAFE_LINE else ""
    return Problem(
        record.path,
        record.line(field) if field else 1,
        field,
        f"is {size_text(size)} as the store reads it (escapes included), over the "
        f"{size_text(STORE_TERM_BYTES)} the store takes in one value: shorten it",
        code="store-refuses",
    )


def _scalars(value: object, prefix: str = "") -> Iterator[tuple[str, object]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _scalars(v, f"{prefix}{k}.")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _scalars(v, f"{prefix}{i}.")
    else:
        yield prefix.rstrip("."), value


def _key(graph: str) -> tuple[str, str]:
    """(kind, id) of a record graph's name."""
    kind, rid = graph.rsplit("/", 2)[1:]
    return kind, rid


def graph_name(e: Entry) -> str:
    """namespaces.graph_iri as a plain string (a build asks for every record's)."""
    return f"{GRAPHS}{e.kind}/{e.id}"


def _loadable(
    digest: str, stated: str, inferred: str, packed: bytes | None = None, text: bytes | None = None
) -> tuple[str, bytes, bytes]:
    """What _replace loads and remembers of one graph: (digest, its N-Quads as the store
    reads them, the inferred part compressed, to be removed again when the record changes).
    `text`: stated + inferred already encoded (Entry.pack)."""
    return digest, text or (stated + inferred).encode(), packed or pack(inferred)


class Loader:
    """Writes record graphs into the store and keeps the cache's account of what it holds."""

    def __init__(
        self,
        store: ox.Store,
        cache: Cache,
        ontology: tuple[str, str],
        deriver: Deriver | None = None,
    ):
        """`ontology`: its own N-Quads and what owlrl's closure of it adds; `deriver`: what
        derives the cross-record quads of the records the workers' batches load."""
        self.store, self.cache = store, cache
        self.deriver = deriver
        self.ontology = ontology
        self.ontology_digest = hashlib.blake2b(ontology[0].encode()).hexdigest()
        self.loaded: dict[str, str] = {}  # graph -> digest the store holds, of graphs asked
        self.asked: set[str] | None = set()  # the graphs self.loaded answers for (None: all)
        # graphs added, replaced or removed by this build, and by refused builds before it
        # (they load what they convert but derive nothing: see refused)
        self.pending = set(json.loads(cache.meta(PENDING) or "[]"))
        self.changed: set[str] = set(self.pending)
        self.converted: set[str] = set()  # graphs of the records this build converted
        self.bulk_loaded = 0  # bytes of N-Quads this build bulk loaded (see COMPACT_FROM)
        cache.db.execute("CREATE TABLE IF NOT EXISTS inferred (graph TEXT PRIMARY KEY, nq BLOB)")
        # a record's derived lines (nq), or for a run its kind's (Derived)
        cache.db.execute(
            "CREATE TABLE IF NOT EXISTS derived (graph TEXT PRIMARY KEY, nq BLOB, kind TEXT)"
        )
        cache.db.execute("CREATE TABLE IF NOT EXISTS derived_kind (kind TEXT PRIMARY KEY, nq BLOB)")
        # the runs of each kind: a kind no run has any more is dropped (derived) by looking
        # its runs up here, where a pass over every run's row took 60 ms of an edit at 100k
        cache.db.execute(
            "CREATE INDEX IF NOT EXISTS derived_of_kind ON derived (kind) WHERE kind IS NOT NULL"
        )

    def add(self, batches: Iterable[list[Entry]], expected: int | None = None) -> None:
        """Load the entries of every batch that may go in (no violation of their own) and are
        not in yet, then drop their quads from memory (the cache keeps them).

        The store loads in threads of its own (_Feed) while this one takes the workers'
        results: a load's last writes take seconds, which stalled the workers while the
        loads ran in this thread. `expected`: how many records the batches hold, if known.
        Each bulk load reads as many records as all loads before it, as the store merges
        what each load wrote again as loads pile up (at 100k records one load took it 79 s
        of CPU, loads of 2,000 records 103 s), and fewer near the end (_load_size)."""
        batches = iter(batches)
        # the first batch before the pipes: the build's worker processes are forked when it
        # is asked for, and a process forked holding a pipe's open end keeps the load
        # reading that pipe from ever seeing its end
        first = next(batches, None)
        if first is None:
            return
        feed = _Feed(self.store, expected)
        try:
            for batch in itertools.chain([first], batches):
                text = self._take(batch, feed)
                if text:
                    feed.put(text, len(batch))
                    self.bulk_loaded += len(text)
            if self.deriver is not None:
                text = self._derived(self.deriver.rest())
                if text:
                    feed.put(text, 0)
                    self.bulk_loaded += len(text)
            feed.close()
        except BaseException:
            feed.stop()
            raise
        # a graph met again after it was handed to the load (two files with one id): its
        # last version replaces the first once the load is done
        self._replace(feed.again, [])

    def _take(self, entries: list[Entry], feed: _Feed) -> bytes:
        """The N-Quads of these entries for the feed, the store and the cache's account
        readied for them."""
        graphs = [graph_name(e) for e in entries if e.kind is not None]
        self.converted.update(graphs)
        self._ask(graphs)
        batch = {}
        for e in entries:
            if e.kind is None or any(p.severity == VIOLATION for p in e.problems):
                continue
            graph = graph_name(e)
            if self.loaded.get(graph) != e.digest:
                batch[graph] = _loadable(
                    e.digest, e.stated, e.inferred, e.packed[1] if e.packed else None, e.text
                )
        for e in entries:
            e.stated = e.inferred = ""
            e.packed = e.text = None
        again = {g: v for g, v in batch.items() if g in feed.handed}
        feed.again.update(again)
        batch = {g: v for g, v in batch.items() if g not in feed.handed}
        feed.handed.update(batch)
        text = self._prepare(batch, [])
        if self.deriver is not None:
            if again:
                self.deriver.again(again)
            handed = [e for e in entries if e.kind is not None and graph_name(e) in batch]
            text += self._derived(self.deriver.take(handed))
        return text

    def _derived(self, found: Derived) -> bytes:
        """Derived quads of graphs loaded in this build, kept in the cache as the store
        will hold them once loaded: what to load."""
        rows = [(g, pack("".join(lines)), None) for g, lines in found.lines.items() if lines]
        text = ["".join(line for lines in found.lines.values() for line in lines)]
        kinds = []
        for template, members in found.kinds.items():
            if not template:
                continue
            kind, joined = _kind_id(template), "".join(template)
            kinds.append((kind, pack(joined)))
            rows += [(g, None, kind) for g, _ in members]
            text += [_as_run(joined, iri) for _, iri in members]
        self.cache.db.executemany("INSERT OR REPLACE INTO derived VALUES (?, ?, ?)", rows)
        self.cache.db.executemany("INSERT OR IGNORE INTO derived_kind VALUES (?, ?)", kinds)
        return "".join(text).encode()

    def derived(self, found: Derived) -> None:
        """Make the store hold these graphs' derived quads in place of what it holds of them:
        only the difference is written (for runs of a kind the store holds already, none;
        between two kinds, worked out once)."""
        old: dict[str, tuple[bytes | None, str | None]] = {}
        graphs = sorted(found.graphs())
        for i in range(0, len(graphs), 20_000):
            for g, nq, kind in self.cache.db.execute(
                "SELECT graph, nq, kind FROM derived WHERE graph IN (SELECT value FROM "
                "json_each(?))",
                (json.dumps(graphs[i : i + 20_000]),),
            ):
                old[g] = (nq, kind)
        diff = _Diff(self.cache)
        for g, lines in found.lines.items():
            diff.lines(g, old.get(g), lines)
        for template, members in found.kinds.items():
            kind = _kind_id(template) if template else None
            for g, iri in members:
                was = old.get(g)
                if was is None or was[1] != kind:
                    diff.run(g, iri, was, kind, template)
        gone = "".join(diff.gone).encode()
        for quad in ox.parse(gone, ox.RdfFormat.N_QUADS) if gone else ():
            self.store.remove(quad)
        if diff.new:
            _write(self.store, "".join(diff.new).encode())
        db = self.cache.db
        db.executemany("INSERT OR REPLACE INTO derived VALUES (?, ?, ?)", diff.rows)
        db.executemany("UPDATE derived SET nq = NULL, kind = ? WHERE graph = ?", diff.kinded)
        db.executemany("DELETE FROM derived WHERE graph = ?", diff.emptied)
        if diff.kinds:
            db.executemany("INSERT OR IGNORE INTO derived_kind VALUES (?, ?)", diff.kinds)
            db.execute(
                "DELETE FROM derived_kind WHERE NOT EXISTS (SELECT 1 FROM derived"
                " WHERE derived.kind = derived_kind.kind AND derived.kind IS NOT NULL)"
            )

    def finish(
        self, included: Entries, touched: list[Entry] | None, quiet: Container[tuple[str, str]] = ()
    ) -> tuple[dict[str, str | None] | None, list[str] | None]:
        """Make the store hold exactly `included` and the ontology; return the runs and
        systems whose cross-record facts must be derived again (IRI -> its file, where
        known), and the runs whose comparisons must be judged again (None, None: all of
        them; see reaching).

        `touched`: the only records whose graphs may differ from what the store holds (the
        changed ones, old and new versions); None: compare every record's. `quiet`: (kind,
        id) of records edited without changing what others read of them (convert.outward):
        derived again themselves, not the records linking to them."""
        if touched is None:
            self.loaded, self.asked = self.cache.loaded(), None
            wanted = {graph_name(e): e for e in included.values()}
            graphs = sorted(set(self.loaded) | set(wanted))
        else:
            wanted = {
                graph_name(e): e
                for p in sorted({e.path for e in touched})
                if (e := included.get(p)) is not None
            }
            graphs = sorted({graph_name(e) for e in touched if e.kind is not None} | set(wanted))
            self._ask([*graphs, ONTOLOGY])
        remove = [g for g in graphs if g in self.loaded and g not in wanted and g != ONTOLOGY]
        add = [e for g, e in wanted.items() if self.loaded.get(g) != e.digest]
        self._replace({}, remove)
        self.add(self._with_quads(add), len(add))
        if self.loaded.get(ONTOLOGY) != self.ontology_digest:
            self._replace({ONTOLOGY: _loadable(self.ontology_digest, *self.ontology)}, [])
        if touched is not None and self.cache.loaded_count() != len(included) + 1:
            return self.finish(included, None)  # not what the last build left: check all
        self.cache.set_meta(PENDING, None)  # the caller derives what is returned
        if len(self.changed) > len(included) // 2 or ONTOLOGY in self.changed:
            return None, None
        return reaching(
            {_key(g) for g in self.changed},
            included,
            self.cache,
            set(quiet) - {_key(g) for g in self.pending},
        )

    def _with_quads(self, entries: list[Entry]) -> Iterator[list[Entry]]:
        """The entries in batches, each read with its quads from the cache when the store's
        load reaches it (a store filled afresh from the cache read 100k records' at once:
        8.4 GB)."""
        for i in range(0, len(entries), READ):
            part = entries[i : i + READ]
            quads = self.cache.get([e.path for e in part if not e.stated], quads=True)
            yield [quads.get(e.path, e) for e in part]

    def refused(self) -> None:
        """The build stops before deriving: the next one derives what reaches the graphs
        this one changed or converted (a record with a violation of its own keeps its older
        version in the store, which may differ from its entry in what others read)."""
        self.cache.set_meta(PENDING, json.dumps(sorted(self.changed | self.converted)))

    def _ask(self, graphs: list[str]) -> None:
        """Learn what the store holds of these graphs (the cache's account)."""
        if self.asked is None:
            return
        new = [g for g in graphs if g not in self.asked]
        self.loaded.update(self.cache.loaded(new))
        self.asked.update(new)

    def _replace(self, batch: dict[str, tuple[str, bytes, bytes]], remove: list[str]) -> None:
        """Remove the graphs `remove` and the old versions of those in `batch`, then load
        `batch` (graph -> _loadable: digest, N-Quads, inferred compressed)."""
        text = self._prepare(batch, remove)
        if text:
            _write(self.store, text)

    def _prepare(self, batch: dict[str, tuple[str, bytes, bytes]], remove: list[str]) -> bytes:
        """_replace up to the load: remove, keep the account, return what to load."""
        self._remove([g for g in batch if g in self.loaded] + remove)
        self.cache.set_loaded({g: v[0] for g, v in batch.items()}, remove)
        self.cache.db.executemany(
            "INSERT OR REPLACE INTO inferred VALUES (?, ?)", [(g, v[2]) for g, v in batch.items()]
        )
        for g in remove:
            self.loaded.pop(g, None)
        self.loaded.update({g: v[0] for g, v in batch.items()})
        self.changed |= set(batch) | set(remove)
        return b"".join(v[1] for v in batch.values())

    def _remove(self, graphs: list[str]) -> None:
        """Remove these records' graphs, what their local reasoning added, and what the
        cross-record rules derived about the nodes below them (`<run>#comparison-2-vs-1`):
        a new version derives those again, and nothing else refers to them."""
        inferred = ox.NamedNode(str(INFERRED_GRAPH))
        for g in graphs:
            graph = ox.NamedNode(g)
            mine = IDS + g[len(GRAPHS) :] + "#"
            below = {
                q.subject
                for q in self.store.quads_for_pattern(None, None, None, graph)
                if q.subject.value.startswith(mine)
            }
            self.store.remove_graph(graph)
            row = self.cache.db.execute("SELECT nq FROM inferred WHERE graph = ?", (g,)).fetchone()
            if row and row[0]:
                for quad in ox.parse(unpack(row[0]), ox.RdfFormat.N_QUADS):
                    self.store.remove(quad)
                    if quad.subject.value.startswith(mine):
                        below.add(quad.subject)
            for node in below:
                for quad in list(self.store.quads_for_pattern(node, None, None, inferred)):
                    self.store.remove(quad)
            self.cache.db.execute("DELETE FROM inferred WHERE graph = ?", (g,))
            # what the cross-record rules derived about it: derived again if it stays
            held = _held(self.cache, g)
            for quad in ox.parse(held.encode(), ox.RdfFormat.N_QUADS) if held else ():
                self.store.remove(quad)
            self.cache.db.execute("DELETE FROM derived WHERE graph = ?", (g,))


def _held(cache: Cache, graph: str, row: tuple | None = None) -> str:
    """The derived lines the store holds of a graph (joined), from its row of the cache's
    `derived` table (nq, kind), read if not given."""
    if row is None:
        row = cache.db.execute("SELECT nq, kind FROM derived WHERE graph = ?", (graph,)).fetchone()
    if row is None:
        return ""
    nq, kind = row
    if nq is not None:
        return unpack(nq)
    return _as_run(_kind_lines(cache, kind), IDS + graph[len(GRAPHS) :])


def _kind_lines(cache: Cache, kind: str) -> str:
    found = cache.db.execute("SELECT nq FROM derived_kind WHERE kind = ?", (kind,)).fetchone()
    return unpack(found[0]) if found else ""


class _Diff:
    """What an edit's derivation changes in the store (gone and new lines) and in the
    cache's `derived` table (rows, emptied graphs, new kinds)."""

    def __init__(self, cache: Cache):
        self.cache = cache
        self.gone: list[str] = []
        self.new: list[str] = []
        self.rows: list[tuple] = []
        # (kind, graph) of runs the table has a row of: updated in place, where replacing
        # 16k rows (a part's fabric edited at 100k) took 0.31-0.42 s against 0.13-0.18
        self.kinded: list[tuple[str, str]] = []
        self.emptied: list[tuple[str]] = []
        self.kinds: list[tuple[str, bytes]] = []
        self._pairs: dict[tuple[str | None, str | None], tuple[str, str]] = {}
        self._made: set[str] = set()

    def lines(self, graph: str, was_row: tuple | None, lines: list[str]) -> None:
        """A record derived alone: the difference of its lines."""
        was = set(_held(self.cache, graph, was_row).splitlines(keepends=True)) if was_row else set()
        now = set(lines)
        if was == now:
            return
        self.gone += was - now
        self.new += now - was
        if lines:
            self.rows.append((graph, pack("".join(lines)), None))
        else:
            self.emptied.append((graph,))

    def run(
        self,
        graph: str,
        iri: str,
        was_row: tuple | None,
        kind: str | None,
        template: tuple[str, ...],
    ) -> None:
        """A run now of `kind` (None: no lines), which the store holds as `was_row`."""
        if was_row is not None and was_row[0] is not None:  # lines of its own, not a kind's
            was = set(unpack(was_row[0]).splitlines(keepends=True))
            now = set(renamed(template, RUN, iri))
            self.gone += was - now
            self.new += now - was
        else:
            gone, new = self._pair(None if was_row is None else was_row[1], kind, template)
            if gone:
                self.gone.append(_as_run(gone, iri))
            if new:
                self.new.append(_as_run(new, iri))
        if kind is None:
            self.emptied.append((graph,))
            return
        if was_row is None:
            self.rows.append((graph, None, kind))
        else:
            self.kinded.append((kind, graph))
        if kind not in self._made:
            self._made.add(kind)
            self.kinds.append((kind, pack("".join(template))))

    def _pair(
        self, before: str | None, kind: str | None, template: tuple[str, ...]
    ) -> tuple[str, str]:
        """The lines (joined, RUN for the run's IRI) a run leaving kind `before` for `kind`
        loses and gains: worked out once for each pair."""
        found = self._pairs.get((before, kind))
        if found is None:
            was = set(_kind_lines(self.cache, before).splitlines(keepends=True) if before else ())
            now = set(template)
            found = self._pairs[(before, kind)] = (
                "".join(sorted(was - now)),
                "".join(sorted(now - was)),
            )
        return found


# Below this, N-Quads go in by one transaction (Store.load): the bulk loader always writes
# new files, which a store of 100k runs then compacts, and an edit's flush waited for that
# (7-15 s in `finish` after a fabric edit at 100k).
SMALL_WRITE = 16 * 1024 * 1024
# From this many bytes of N-Quads bulk loaded in one build, the build compacts the store
# before it ends (pipeline.steps). Each bulk load writes files of its own, which RocksDB
# merges in the background; a build ends before that is done, and the next one to open the
# store for writing took it up again, its flush waiting for it: 7-18 s in `finish` of an
# accelerator's edit at 100k runs (2.7 GB of N-Quads, "Stalling writes because we have 20
# level-0 files" in the store's LOG), none seen at 30k (0.8 GB). Compacting took 20-23 s at
# 100k, whose cold build then took 0.94-1.05x its time without it (the same CPU: the merge
# is done once either way), and no edit after it waited (benchmarks/reports/build-compact.md).
COMPACT_FROM = 1024 * 1024 * 1024


def _write(store: ox.Store, text: bytes) -> None:
    """Add these N-Quads to the store: in one transaction when few, else bulk loaded."""
    if len(text) < SMALL_WRITE:
        store.load(text, ox.RdfFormat.N_QUADS, lenient=_LENIENT)
    else:
        store.bulk_load(text, ox.RdfFormat.N_QUADS, lenient=_LENIENT)


def forget_store(cache: Cache) -> None:
    """Forget what the cache says the store holds (the store is gone): the next Loader loads
    every record and has all derived."""
    cache.db.execute("DELETE FROM loaded")
    cache.db.execute("DROP TABLE IF EXISTS inferred")
    cache.db.execute("DROP TABLE IF EXISTS derived")
    cache.db.execute("DROP TABLE IF EXISTS derived_kind")
    cache.set_meta(PENDING, None)


class _Feed:
    """The build's N-Quads handed to the store's bulk loads, each load in a thread of its own
    reading its text from a named pipe, natively: read through a Python object, the store
    asked for 2 KB a call (a million calls at 100k records), each waiting for the
    interpreter lock while the build's thread works. A writer thread fills the pipes from a
    queue, so the build goes on taking the workers' results while a load ends.

    A load's end takes seconds (at 100k records 5-11 s after its input ended, in one
    thread): the next load starts as its input ends, and the loads grow (fewer loads, less
    merging; see _load_size) until the end is near, when they shrink, as nothing overlaps
    the last one's end."""

    def __init__(self, store: ox.Store, expected: int | None):
        self.store, self.expected = store, expected
        self.handed: set[str] = set()  # graphs handed to the load
        self.again: dict[str, tuple] = {}  # graphs met again after (see Loader.add)
        self.queue: queue.Queue[tuple[bytes, int] | None] = queue.Queue(QUEUED)
        self.folder = scratch.make("load")  # the pipes' (kill -9 of a build leaves it)
        self.done = False  # no more text: set by the writer at the end, or by stop
        self.errors: list[BaseException] = []
        self.loads: list[threading.Thread] = []
        self.writer = threading.Thread(target=self._guard, args=(self._write,), daemon=True)
        self.writer.start()

    def put(self, text: bytes | None, records: int = 0) -> None:
        """Queue the text of this many records (waits while QUEUED batches wait); None: the
        end."""
        while True:
            self._raise()
            try:
                return self.queue.put(None if text is None else (text, records), timeout=WAIT)
            except queue.Full:
                if not self.writer.is_alive():  # ended without an error: never expected
                    self._raise()
                    raise RuntimeError("the store's loads ended before their text did") from None

    def close(self) -> None:
        """Wait for the loads to take all that was put, and end."""
        self.put(None)
        self._join()
        self._raise()

    def stop(self) -> None:
        """End the loads without what is still queued (the build stopped: see
        pipeline.steps._settle)."""
        self.done = True
        while True:
            try:
                self.queue.get_nowait()
            except queue.Empty:
                break
        self.queue.put(None)
        self._join()

    def _join(self) -> None:
        self.writer.join()  # it starts the loads: after it, self.loads is whole
        for t in self.loads:
            t.join()
        scratch.remove(self.folder)

    def _guard(self, work: Callable[..., None], *args: object) -> None:
        try:
            work(*args)
        except BaseException as exc:  # handed to the build's thread (_raise)
            self.errors.append(exc)
            self.done = True

    def _raise(self) -> None:
        if not self.errors:
            return
        if all(isinstance(e, BrokenPipeError) for e in self.errors):
            # a load that failed closed its pipe: the writer's error hides why, the load's
            # own (being recorded as its thread ends) says it
            for t in self.loads:
                t.join(timeout=10)
        said = [e for e in self.errors if not isinstance(e, BrokenPipeError)]
        raise (said or self.errors)[0]

    def _load(self, pipe: str) -> None:
        try:
            self.store.bulk_load(path=pipe, format=ox.RdfFormat.N_QUADS, lenient=_LENIENT)
        except (SyntaxError, ValueError, MemoryError) as exc:  # pyoxigraph's for bad input
            raise StoreRefused(
                f"the store refused the records' quads: {exc}. No record's own check found "
                "this (each record's N-Quads are checked as it is converted): please report it"
            ) from exc

    def _write(self) -> None:
        n = written = 0
        while not self.done:
            if len(self.loads) >= LOADS_AT_ONCE:  # each holds what it read until it ends
                self.loads[-LOADS_AT_ONCE].join()
            pipe = os.path.join(self.folder, f"{n}.nq")
            os.mkfifo(pipe)
            load = threading.Thread(target=self._guard, args=(self._load, pipe), daemon=True)
            self.loads.append(load)
            load.start()
            fd = self._open(pipe, load)
            if fd is None:
                return
            try:
                os.unlink(pipe)  # both ends are open: the name is no longer needed
                until = written + _load_size(written, self.expected)
                while written < until:
                    item = None if self.done else self.queue.get()
                    if item is None:
                        self.done = True
                        break
                    view = memoryview(item[0])
                    while view:
                        view = view[os.write(fd, view) :]
                    written += item[1]
            finally:
                os.close(fd)
            n += 1

    def _open(self, pipe: str, load: threading.Thread) -> int | None:
        """The pipe opened for writing once its load has opened it for reading (a blocking
        open would wait forever for a load that failed); None once the feed is done (a
        load failed, or the build stopped) and the load waiting on the pipe has ended."""
        while True:
            try:
                fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    raise
                if not load.is_alive():
                    return None
                time.sleep(0.005)
                continue
            if self.done:  # the load waiting on the pipe ends with nothing
                os.close(fd)
                continue
            os.set_blocking(fd, True)
            return fd


def _load_size(loaded: int, expected: int | None) -> int:
    """Records the next load takes, `loaded` taken of `expected` (None: not known): as many
    as all loads before it, and no more than half of what is left."""
    size = max(loaded, 1)
    if expected is not None:
        size = min(size, max((expected - loaded) // 2, 1))
    return size


def reaching(
    changed: set[tuple[str, str]],
    included: Entries,
    cache: Cache,
    quiet: Container[tuple[str, str]] = (),
) -> tuple[dict[str, str | None], list[str]]:
    """The runs and systems whose cross-record facts may change with the changed records
    (kind, id): those records themselves and every record linking to one, transitively
    (a run -> its system -> an accelerator -> an interconnect), but not through the `quiet`
    ones (whose edit others cannot see), each IRI with the file its link was found in (None
    for the changed records); and the runs among them whose comparisons must be judged
    again: those changed and those reading a changed metric."""
    reached: dict[tuple[str, str], str | None] = dict.fromkeys(changed)
    judged = {k for k in changed if k[0] == "benchmarks"}
    todo = [k for k in changed if k[0] in LINKED_KINDS and k not in quiet]
    while todo:  # nothing links to runs: a run's edit reaches only itself
        found, todo = cache.readers(todo), []
        for (kind, _), paths in found.items():
            for path in paths:
                row = included.rows.get(path)
                if row is None:
                    continue
                key = (row[KIND], row[ROW_ID])
                if kind == "metrics":
                    judged.add(key)
                if key not in reached:
                    reached[key] = path
                    if key[0] in LINKED_KINDS:
                        todo.append(key)
    runs = {
        str(record_iri(kind, rid)): path
        for (kind, rid), path in reached.items()
        if kind in ("benchmarks", "systems")
    }
    return (
        dict(sorted(runs.items())),
        sorted(str(record_iri(kind, rid)) for kind, rid in judged if kind == "benchmarks"),
    )
