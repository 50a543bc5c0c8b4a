"""The query store brought to hold exactly the records a build includes, graph by graph.

A record is its named graph plus what its local reasoning put in the inferred graph (about
its own nodes only, so no other record shares those quads). `Loader.add` loads records as the
build's workers return them, bulk loads reading batch after batch, so the store fills
while the workers convert and no build holds every record's quads at once; `Loader.finish`
then removes what the build left out, adds what was not loaded yet, and names the runs and
systems the cross-record rules must derive again.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Container, Iterable, Iterator

import pyoxigraph as ox

from .cache import ID as ROW_ID
from .cache import KIND, Cache, Entries, Entry
from .errors import VIOLATION
from .namespaces import GRAPH, ID, INFERRED_GRAPH, ONTOLOGY_IRI, record_iri
from .records import REFERENCES

ONTOLOGY = str(ONTOLOGY_IRI)
LINKED_KINDS = {kind for fields in REFERENCES.values() for kind in fields.values()}
GRAPHS, IDS = str(GRAPH), str(ID)
# The text is benchgraph's own N-Quads, from records whose IRIs the shapes checked; the
# parser's IRI validation cost 20-30% of a load.
_LENIENT = True
PENDING = "underived"  # the cache's meta key of graphs refused builds loaded, not derived
READ = 2000  # records read from the cache at once to be loaded again


def _key(graph: str) -> tuple[str, str]:
    """(kind, id) of a record graph's name."""
    kind, rid = graph.rsplit("/", 2)[1:]
    return kind, rid


def graph_name(e: Entry) -> str:
    """namespaces.graph_iri as a plain string (a build asks for every record's)."""
    return f"{GRAPHS}{e.kind}/{e.id}"


def _loadable(digest: str, stated: str, inferred: str, packed: bytes | None = None) -> tuple:
    """What _replace loads and remembers of one graph: the inferred part also compressed,
    to be removed again when the record changes."""
    return digest, stated, inferred, packed or zlib.compress(inferred.encode())


class Loader:
    """Writes record graphs into the store and keeps the cache's account of what it holds."""

    def __init__(self, store: ox.Store, cache: Cache, ontology: tuple[str, str]):
        """`ontology`: its own N-Quads and what owlrl's closure of it adds."""
        self.store, self.cache = store, cache
        self.ontology = ontology
        self.ontology_digest = hashlib.blake2b(ontology[0].encode()).hexdigest()
        self.loaded: dict[str, str] = {}  # graph -> digest the store holds, of graphs asked
        self.asked: set[str] | None = set()  # the graphs self.loaded answers for (None: all)
        # graphs added, replaced or removed by this build, and by refused builds before it
        # (they load what they convert but derive nothing: see refused)
        self.pending = set(json.loads(cache.meta(PENDING) or "[]"))
        self.changed: set[str] = set(self.pending)
        self.converted: set[str] = set()  # graphs of the records this build converted
        cache.db.execute("CREATE TABLE IF NOT EXISTS inferred (graph TEXT PRIMARY KEY,"
                         " nq BLOB)")

    def add(self, batches: Iterable[list[Entry]]) -> None:
        """Load the entries of every batch that may go in (no violation of their own) and are
        not in yet, then drop their quads from memory (the cache keeps them).

        Each bulk load reads batches as the workers return them (_Stream), as many as all
        loads before it: the store merges what each load wrote again as loads pile up (at
        100k records one load took it 79 s of CPU, loads of 2,000 records 103 s), while
        what a load holds when its input ends is written after the workers are done."""
        stream = _Stream(self, batches)
        while not stream.done:
            stream.until = 2 * stream.taken or 1
            self.store.bulk_load(stream, ox.RdfFormat.N_QUADS, lenient=_LENIENT)
        # a graph met again after it was handed to the load (two files with one id): its
        # last version replaces the first once the load is done
        self._replace(stream.again, [])

    def _take(self, entries: list[Entry], stream: _Stream) -> bytes:
        """The N-Quads of these entries for the stream, the store and the cache's account
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
                batch[graph] = _loadable(e.digest, e.stated, e.inferred,
                                         e.packed[1] if e.packed else None)
        for e in entries:
            e.stated = e.inferred = ""
            e.packed = None
        stream.again.update({g: v for g, v in batch.items() if g in stream.handed})
        batch = {g: v for g, v in batch.items() if g not in stream.handed}
        stream.handed.update(batch)
        return self._prepare(batch, [])

    def finish(self, included: Entries, touched: list[Entry] | None,
               quiet: Container[tuple[str, str]] = ()
               ) -> tuple[list[str] | None, list[str] | None]:
        """Make the store hold exactly `included` and the ontology; return the runs and
        systems whose cross-record facts must be derived again, and the runs whose
        comparisons must be judged again (None, None: all of them; see reaching).

        `touched`: the only records whose graphs may differ from what the store holds (the
        changed ones, old and new versions); None: compare every record's. `quiet`: (kind,
        id) of records edited without changing what others read of them (convert.outward):
        derived again themselves, not the records linking to them."""
        if touched is None:
            self.loaded, self.asked = self.cache.loaded(), None
            wanted = {graph_name(e): e for e in included.values()}
            graphs = sorted(set(self.loaded) | set(wanted))
        else:
            wanted = {graph_name(e): e for p in sorted({e.path for e in touched})
                      if (e := included.get(p)) is not None}
            graphs = sorted({graph_name(e) for e in touched if e.kind is not None} | set(wanted))
            self._ask([*graphs, ONTOLOGY])
        remove = [g for g in graphs if g in self.loaded and g not in wanted and g != ONTOLOGY]
        add = [e for g, e in wanted.items() if self.loaded.get(g) != e.digest]
        self._replace({}, remove)
        self.add(self._with_quads(add))
        if self.loaded.get(ONTOLOGY) != self.ontology_digest:
            self._replace({ONTOLOGY: _loadable(self.ontology_digest, *self.ontology)}, [])
        if touched is not None and self.cache.loaded_count() != len(included) + 1:
            return self.finish(included, None)  # not what the last build left: check all
        self.cache.set_meta(PENDING, None)  # the caller derives what is returned
        if len(self.changed) > len(included) // 2 or ONTOLOGY in self.changed:
            return None, None
        return reaching({_key(g) for g in self.changed}, included, self.cache,
                        set(quiet) - {_key(g) for g in self.pending})

    def _with_quads(self, entries: list[Entry]) -> Iterator[list[Entry]]:
        """The entries in batches, each read with its quads from the cache when the store's
        load reaches it (a store filled afresh from the cache read 100k records' at once:
        8.4 GB)."""
        for i in range(0, len(entries), READ):
            part = entries[i:i + READ]
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

    def _replace(self, batch: dict[str, tuple[str, str, str, bytes]],
                 remove: list[str]) -> None:
        """Remove the graphs `remove` and the old versions of those in `batch`, then load
        `batch` (graph -> digest, stated, inferred N-Quads, inferred compressed)."""
        text = self._prepare(batch, remove)
        if text:
            self.store.bulk_load(text, ox.RdfFormat.N_QUADS, lenient=_LENIENT)

    def _prepare(self, batch: dict[str, tuple[str, str, str, bytes]],
                 remove: list[str]) -> bytes:
        """_replace up to the load: remove, keep the account, return what to load."""
        self._remove([g for g in batch if g in self.loaded] + remove)
        self.cache.set_loaded({g: v[0] for g, v in batch.items()}, remove)
        self.cache.db.executemany("INSERT OR REPLACE INTO inferred VALUES (?, ?)",
                                  [(g, v[3]) for g, v in batch.items()])
        for g in remove:
            self.loaded.pop(g, None)
        self.loaded.update({g: v[0] for g, v in batch.items()})
        self.changed |= set(batch) | set(remove)
        return "".join(s + i for _, s, i, _ in batch.values()).encode()

    def _remove(self, graphs: list[str]) -> None:
        """Remove these records' graphs, what their local reasoning added, and what the
        cross-record rules derived about the nodes below them (`<run>#comparison-2-vs-1`):
        a new version derives those again, and nothing else refers to them."""
        inferred = ox.NamedNode(str(INFERRED_GRAPH))
        for g in graphs:
            graph = ox.NamedNode(g)
            mine = IDS + g[len(GRAPHS):] + "#"
            below = {q.subject for q in self.store.quads_for_pattern(None, None, None, graph)
                     if q.subject.value.startswith(mine)}
            self.store.remove_graph(graph)
            row = self.cache.db.execute("SELECT nq FROM inferred WHERE graph = ?",
                                        (g,)).fetchone()
            if row and row[0]:
                for quad in ox.parse(zlib.decompress(row[0]), ox.RdfFormat.N_QUADS):
                    self.store.remove(quad)
                    if quad.subject.value.startswith(mine):
                        below.add(quad.subject)
            for node in below:
                for quad in list(self.store.quads_for_pattern(node, None, None, inferred)):
                    self.store.remove(quad)
            self.cache.db.execute("DELETE FROM inferred WHERE graph = ?", (g,))


def forget_store(cache: Cache) -> None:
    """Forget what the cache says the store holds (the store is gone): the next Loader loads
    every record and has all derived."""
    cache.db.execute("DELETE FROM loaded")
    cache.db.execute("DROP TABLE IF EXISTS inferred")
    cache.set_meta(PENDING, None)


class _Stream:
    """The N-Quads of the build's batches as a file the store's bulk load reads: a batch is
    taken (the store and the account readied) only when the load has read the one before.
    The load runs without the interpreter lock between reads, so the workers' results keep
    arriving meanwhile."""

    def __init__(self, loader: Loader, batches: Iterable[list[Entry]]):
        self.loader, self.batches = loader, iter(batches)
        self.text, self.at = b"", 0
        self.taken, self.until, self.done = 0, 1, False  # batches read; end a load at until
        self.handed: set[str] = set()  # graphs handed to the load
        self.again: dict[str, tuple] = {}  # graphs met again after (see Loader.add)

    def read(self, size: int = -1) -> bytes:
        while self.at >= len(self.text):
            if self.taken >= self.until:
                return b""  # the end of this load's input
            batch = next(self.batches, None)  # what it raises, the load raises
            if batch is None:
                self.done = True
                return b""
            self.taken += 1
            self.text, self.at = self.loader._take(batch, self), 0
        end = len(self.text) if size is None or size < 0 else self.at + size
        out, self.at = self.text[self.at:end], end
        return out


def reaching(changed: set[tuple[str, str]], included: Entries, cache: Cache,
             quiet: Container[tuple[str, str]] = ()) -> tuple[list[str], list[str]]:
    """The runs and systems whose cross-record facts may change with the changed records
    (kind, id): those records themselves and every record linking to one, transitively
    (a run -> its system -> an accelerator -> an interconnect), but not through the `quiet`
    ones (whose edit others cannot see); and the runs among them whose comparisons must be
    judged again: those changed and those reading a changed metric."""
    reached = set(changed)
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
                    reached.add(key)
                    if key[0] in LINKED_KINDS:
                        todo.append(key)
    return (sorted(str(record_iri(kind, rid)) for kind, rid in reached
                   if kind in ("benchmarks", "systems")),
            sorted(str(record_iri(kind, rid)) for kind, rid in judged if kind == "benchmarks"))
