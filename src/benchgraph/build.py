"""Compose the steps: record files -> records -> RDF -> checked -> inferred -> query store.

The only module that knows their order. Work is cached per record file (store/cache.py) and the
on-disk pyoxigraph store is updated graph by graph, so an edit to one record rebuilds one.
"""

from __future__ import annotations

import gc
import hashlib
import json
import multiprocessing
import os
import pickle
import shutil
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from itertools import islice
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph, URIRef
from rdflib.compare import to_canonical_graph
from rdflib.namespace import SKOS

from . import __version__
from .convert import outward, provenance_triples, record_triples
from .errors import INFO, VIOLATION, CannotRun, Problem, RecordsInvalid
from .infer import Reasoner
from .locks import held, posix_lock_holder, worker_started
from .namespaces import INFERRED_GRAPH, LINK_GRAPH, ONTOLOGY_IRI, SCHEMA, graph_iri, record_iri
from .provenance import display_base, display_path, last_commits
from .rdfio import nquads
from .records import (
    RecordFileError,
    line_of,
    load_record,
    max_record_bytes,
    read_record_bytes,
    scan_record_files,
)
from .rules import run_rules as derive  # the cross-record rules, into the inferred graph
from .store.cache import (
    COMMIT,
    DIGEST,
    HASH,
    ID,
    KIND,
    MTIME,
    PROBLEMS,
    SIZE,
    Cache,
    Entries,
    Entry,
)
from .store.load import Loader, forget_store, store_problem
from .timing import Timer
from .validate import check_dataset, check_record, local_shapes, triple_facts

# Modules whose code does not shape what a build holds: editing them rebuilds nothing.
NOT_IN_BUILD = {"cli.py", "serve.py", "serving.py", "__main__.py", "report.py",
                "shacl_report.py", "queries.py", "timing.py", "locks.py", "extra.py", "sssom.py",
                "reconcile.py", "accept.py", "sparqlclient.py"}
# The storage modules a build's store depends on (store/'s others read or push it).
BUILD_STORE = ("cache.py", "load.py")
RACY_NS = 2_000_000_000  # a file written this recently may change again unseen (see _digests)
PARALLEL_FROM = 400  # below this many changed files, worker start-up costs more than it saves
BATCH = 2000  # records the workers hand on at once (load.Loader.add reads batch by batch)
CHUNK = 64  # records a worker converts per task
AHEAD = 2 * BATCH // CHUNK  # tasks in flight
FEWER_COLLECTIONS = (50_000, 20, 20)  # gc thresholds while converting (700, 10, 10)
# Present while a build may have written the store without committing the cache's account
# of it (see _settle): a build killed or interrupted there leaves it behind.
UNSETTLED = "store.unsettled"
# A record's links to outside entities (its `same_as`) go to the link graph, one graph for
# every record's links, so that it can be described and taken whole as a void:Linkset; the
# mapping's own facts (justification, confidence, curator, date: a bg:Mapping node) stay in
# the record's graph with the rest of what its file states, and the SSSOM export (sssom.py)
# joins the two. Like the inferred graph, the record's share of it is loaded and removed
# with the record (load.Loader), so an edit replaces exactly its own links.
LINK_PREDICATES = frozenset((SKOS.exactMatch, SKOS.closeMatch, SCHEMA.sameAs))


@dataclass
class BuildResult:
    """A built dataset: where its store is, what was wrong, what was left out."""

    store_path: Path
    key: str
    problems: list[Problem] = field(default_factory=list)
    invalid_records: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    records: int = 0
    rebuilt: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    changed: bool = True  # False when no record changed since the last build (reused whole)

    @property
    def conforms(self) -> bool:
        return not any(p.severity == VIOLATION for p in self.problems)

    def open(self) -> ox.Store:
        """The built store, read-only (several readers may share it)."""
        return ox.Store.read_only(str(self.store_path))


def resource(*parts: str) -> Path:
    """A file shipped with benchgraph (ontology/, shapes/, queries/)."""
    return Path(str(resources.files("benchgraph").joinpath("resources", *parts)))


@lru_cache(maxsize=1)
def code_key() -> str:
    """A hash of benchgraph's code, ontology, shapes and validation lists: a change to any
    rebuilds all."""
    h = hashlib.blake2b(__version__.encode(), digest_size=16)
    package = Path(__file__).parent
    for path in sorted(package.glob("*.py")):  # the build's modules, not web/ or importers/
        if path.name not in NOT_IN_BUILD:
            h.update(path.read_bytes())
    for name in BUILD_STORE:
        h.update((package / "store" / name).read_bytes())
    for folder in ("ontology", "shapes"):
        for path in sorted(resource(folder).glob("*.ttl")):
            h.update(path.read_bytes())
    # the lists that shape validation: the aggregator hosts no fact may rest on alone
    for path in sorted(resource("validation").glob("*.txt")):
        h.update(path.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def ontology_graph() -> Graph:
    """benchgraph's own ontology (and unit declarations), parsed."""
    g = Graph()
    for path in sorted(resource("ontology").glob("*.ttl")):
        try:
            g.parse(path, format="turtle")
        except Exception as exc:  # any parse failure means the install itself is broken
            raise CannotRun(f"{path}: the ontology does not parse: {exc}") from exc
    # The store renames blank nodes at random on loading; skolem IRIs from the canonical
    # labelling keep the property-chain lists stable, so dumps stay byte-identical.
    return to_canonical_graph(g).skolemize(authority="https://w3id.org",
                                           basepath="/benchgraph/genid/")


_REASONER: list[Reasoner] = []


def reasoner(saved: Path | None = None) -> Reasoner:
    """The ontology closed by owlrl (about 1.4 s), made once per process, and kept in
    `saved` (a pickle in the build folder, keyed by the code version) across processes."""
    if not _REASONER:
        try:
            with open(saved, "rb") as f:  # type: ignore[arg-type]
                _REASONER.append(pickle.load(f))
        except (OSError, TypeError, pickle.UnpicklingError, EOFError, AttributeError):
            _REASONER.append(Reasoner(ontology_graph()))
            if saved is not None:
                tmp = saved.with_suffix(".tmp")
                tmp.write_bytes(pickle.dumps(_REASONER[0]))
                tmp.replace(saved)
    return _REASONER[0]


@lru_cache(maxsize=1)
def ontology_closure() -> str:
    """The useful part of the ontology's owlrl closure, as N-Quads of the inferred graph."""
    return nquads(reasoner().closure, INFERRED_GRAPH)


def cache_dir_for(data_dir: Path) -> Path:
    """Where the build of data_dir is cached: $BENCHGRAPH_CACHE or .benchgraph/ beside it."""
    env = os.environ.get("BENCHGRAPH_CACHE")
    root = Path(env) if env else data_dir.resolve().parent / ".benchgraph"
    name = hashlib.blake2b(str(data_dir.resolve()).encode(), digest_size=6).hexdigest()
    return root / f"{data_dir.resolve().name}-{name}" / code_key()[:16]


def process(path: str, data_dir: str, shown: str, commit: str | None, digest: str) -> Entry:
    """One record file -> its cache entry (runs in worker processes)."""
    record, problems = load_record(Path(path), Path(data_dir), shown)
    if record is None:
        return Entry(shown, digest, None, None, "", "", problems, [], {}).pack()
    triples = record_triples(record)
    problems += check_record(record, triples, problems)
    triples += provenance_triples(record, shown, commit)
    own = str(record_iri(record.kind, record.id))
    inferred = reasoner().local(triples, own)
    links, kept = split_links(triples, own)
    stated = nquads(kept, graph_iri(record.kind, record.id))
    # the quads a record adds to graphs it shares with others: removed one by one (load.py)
    inferred_nq = nquads(inferred, INFERRED_GRAPH) + nquads(links, LINK_GRAPH)
    refused = store_problem(record, stated + inferred_nq)  # its problem, not the load's
    if refused is not None:
        problems.append(refused)
    entry = Entry(shown, digest, record.kind, record.id, stated,
                  inferred_nq, problems, list(record.references()),
                  # as the cache keeps it: made here, not in the build's thread, and a text
                  # is sent for less than a mapping
                  json.dumps(record.lines), facts=triple_facts(record.kind, kept, own),
                  # nothing links to a run: what others read of it is never asked
                  outward=outward(stated, own) if record.kind != "benchmarks" else "")
    return entry.pack(loading=True)


def split_links(triples: list, own: str) -> tuple[list, list]:
    """(the record's links to outside entities, the rest of its triples)."""
    subject = URIRef(own)
    links, kept = [], []
    for t in triples:
        (links if t[0] == subject and t[1] in LINK_PREDICATES else kept).append(t)
    return links, kept


def build(data_dir: Path, *, skip_invalid: bool = False, jobs: int | None = None) -> BuildResult:
    """Build (or bring up to date) the query store of data_dir.

    Raises RecordsInvalid when a record has a violation, unless skip_invalid, which leaves
    out the invalid records and those linking to them and reports each.
    """
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise CannotRun(f"{data_dir}: no such data folder")
    work = cache_dir_for(data_dir)
    work.mkdir(parents=True, exist_ok=True)
    # One build of a folder at a time: a second process waits, then finds it up to date.
    with held(work / "build.lock", f"one build of {data_dir} at a time"):
        _drop_stale_builds(work)
        cache = Cache(work / "cache.sqlite")
        try:
            return _build(data_dir, work, cache, skip_invalid, jobs)
        finally:
            cache.close()


def _build(data_dir: Path, work: Path, cache: Cache, skip_invalid: bool,
           jobs: int | None) -> BuildResult:
    timer = Timer()
    commits = last_commits(data_dir)
    prefix = display_path(data_dir, display_base(data_dir))
    now = time.time_ns()  # before any file is read (see _digests)
    files = scan_record_files(data_dir, f"{prefix}/")
    before = cache.index()  # what each file became in the last build, without its quads
    digests, stats, stale = _digests(files, commits, before, now, max_record_bytes())
    gone = [p for p in before if p not in digests]
    timer.lap("scan")
    reconvert = {name for _, name in stale}
    cache.set_stats({n: v for n, v in stats.items() if n in before and n not in reconvert})
    _settle(work, cache)
    last = _last_result(cache, work / "store")
    if last is not None and not stale and not gone:
        cache.commit()  # the file sizes and times read
        if not skip_invalid and not last.conforms:
            raise RecordsInvalid(last.problems)
        timer.lap("finish")
        last.timings = timer.laps
        return last
    cache.set_meta("result", None)  # until this build ends: a refused one is not up to date
    # the ontology comes with the kept closure; before any conversion and before workers fork
    ontology = reasoner(work / "reasoner.pickle").ontology
    args = [(path, str(data_dir), name, commits.get(name), digests[name])
            for path, name in stale]
    # what the last build saw of the records others link to, to tell a quiet edit (below)
    was = cache.outward([name for _, name in stale if name in before
                         and before.rows[name][KIND] not in (None, "benchmarks")])
    store = _open_store(work / "store")
    (work / UNSETTLED).touch()  # from here until the cache's account of the store is committed
    loader = Loader(store, cache, (nquads(ontology, ONTOLOGY_IRI), ontology_closure()))
    try:
        cache.forget(gone)
        fresh: list[Entry] = []

        def saved() -> Iterator[list[Entry]]:
            for batch in _converted(args, jobs):
                for e in batch:
                    e.stat = stats.get(e.path)
                cache.put(batch)
                fresh.extend(batch)
                yield batch

        loader.add(saved(), len(args))  # the store loads as the workers convert
        entries = before.changed(fresh, gone)
        # records edited without changing what others read of them (a note, a source):
        # the records linking to them are neither checked nor derived again
        quiet = {(e.kind, e.id) for e in fresh if was.get(e.path, "") == e.outward != ""}
        timer.lap("convert")
        problems = entries.problems()
        problems += check_dataset(entries, cache, [e.path for e in fresh], gone,
                                  _link_problems(entries, cache, fresh, before), quiet)
        left_out = _left_out(entries, problems, cache) if skip_invalid else {}
        if not skip_invalid and any(p.severity == VIOLATION for p in problems):
            loader.refused()
            cache.commit()  # the store holds what the cache says it holds
            (work / UNSETTLED).unlink()
            raise RecordsInvalid(problems)

        included = entries.with_kind(excluding=left_out)
        timer.lap("check")
        # what the store may hold differently from `included`: the changed records, old and
        # new, and those the last build left out (None: compare every record)
        touched = None if skip_invalid or last is None else (
            fresh + [before[p] for p in gone]
            + [before[p] for p in [e.path for e in fresh] + list(last.left_out) if p in before])
        runs, judged = loader.finish(included, touched, quiet)
        timer.lap("load")
        derive(store, runs, judged)
        timer.lap("derive")
    finally:
        store.flush()
        store = loader = None  # closes the store, also when a refusal's traceback is kept

    key = hashlib.blake2b(
        "".join(sorted(row[DIGEST] for row in included.rows.values())).encode()
        + code_key().encode(),
        digest_size=16,
    ).hexdigest()
    invalid = sorted({p.file for p in problems if p.severity == VIOLATION})
    result = BuildResult(work / "store", key, sorted(problems), invalid, left_out, len(included),
                         len(fresh))
    cache.set_meta("result", json.dumps({
        "key": key, "problems": [p.as_dict() for p in result.problems], "invalid": invalid,
        "left_out": left_out, "records": result.records}))
    cache.commit()
    (work / UNSETTLED).unlink()
    timer.lap("finish")
    result.timings = timer.laps
    return result


def _settle(work: Path, cache: Cache) -> None:
    """After a build that stopped between writing the store and committing the cache (killed,
    or interrupted with Ctrl-C during a long first build), the store may hold graphs, or
    versions of them, that the cache does not know of: a later build would add to them
    rather than replace them. The store is then started afresh and filled from the cache
    (whose entries that build did not commit are converted again)."""
    if (work / UNSETTLED).exists():
        shutil.rmtree(work / "store", ignore_errors=True)
        forget_store(cache)
        cache.set_meta("result", None)  # no last build to reuse: compare every record
        cache.commit()


def _open_store(path: Path) -> ox.Store:
    try:
        return ox.Store(str(path))
    except OSError as exc:
        # RocksDB refuses at once rather than waiting: name who has the store open
        raise CannotRun(f"{path}: the build store is in use"
                        f"{posix_lock_holder(path / 'LOCK')} or broken: {exc}") from exc


def _converted(args: list[tuple], jobs: int | None) -> Iterator[list[Entry]]:
    """The record files converted, in batches of BATCH, in worker processes when many.

    Meanwhile Python's cycle collector runs less often (the workers forked here inherit
    that): each of its full passes reads every live object, and a run of 100k measurements
    holds millions (triples, which make no cycles); they took a quarter of its conversion."""
    before = gc.get_threshold()
    gc.set_threshold(*FEWER_COLLECTIONS)
    try:
        yield from _convert(args, jobs)
    finally:
        gc.set_threshold(*before)


def _convert(args: list[tuple], jobs: int | None) -> Iterator[list[Entry]]:
    if len(args) >= PARALLEL_FROM and (jobs or os.cpu_count() or 1) > 1:
        reasoner(), local_shapes()  # made once here; the forked workers inherit them
        chunks = (args[i:i + CHUNK] for i in range(0, len(args), CHUNK))
        # Forked (the workers inherit what was made above) from this thread, which keeps
        # the pool: the workers end with it (locks.worker_started), and not holding the
        # build's lock, which workers left behind by `kill -9` of a build held for ever.
        with ProcessPoolExecutor(max_workers=jobs or os.cpu_count(),
                                 mp_context=multiprocessing.get_context("fork"),
                                 initializer=worker_started, initargs=(os.getpid(),)) as pool:
            # Two batches in flight at most: Executor.map takes every file at once, and at
            # 100k records the results waiting for the store's load held 2.7 GB.
            flight = deque(pool.submit(_process_chunk, c) for c in islice(chunks, AHEAD))
            batch: list[Entry] = []
            while flight:
                batch += flight.popleft().result()
                flight.extend(pool.submit(_process_chunk, c) for c in islice(chunks, 1))
                if len(batch) >= BATCH or not flight:
                    yield batch
                    batch = []
    else:
        for i in range(0, len(args), BATCH):
            yield [process(*a) for a in args[i:i + BATCH]]


def _process_chunk(args: list[tuple]) -> list[Entry]:
    return [process(*a) for a in args]


def _digests(files: list[tuple[str, str, int, int]], commits: dict[str, str],
             before: Entries, now: int, limit: int
             ) -> tuple[dict[str, str], dict[str, tuple], list[tuple]]:
    """Each record file's digest (a hash of its bytes, display path and last commit), the
    (size, mtime, hash of the bytes, commit) of the files read, and the (path, display path)
    of those whose digest is not their entry's; from `files` as scanned: (path, display
    path, size, mtime).

    A file whose size and modification time match its entry's is not read again (git's
    index does the same). One modified in the last RACY_NS before it was read is not
    remembered, as a second write within the clock's tick could leave both unchanged
    (`now`: the time the scan began).

    A file that is not read (not a regular file, over the size `limit`: see
    records.read_record_bytes) has the digest of why; one over the limit, or refused by an
    earlier limit, is looked at again, as the limit may have changed."""
    stats: dict[str, tuple[int, int, str, str]] = {}
    out = {}
    stale = []
    rows = before.rows
    for path, name, size, mtime in files:
        commit = commits.get(name) or ""
        row = rows.get(name)
        if row is not None and row[SIZE] == size and row[MTIME] == mtime and not (
            size > limit or (row[PROBLEMS] and '"file-too-large"' in row[PROBLEMS])
        ):
            if row[COMMIT] == commit:
                out[name] = row[DIGEST]
                continue
            content = row[HASH]
        else:
            try:
                content = hashlib.blake2b(read_record_bytes(path, limit),
                                          digest_size=16).hexdigest()
            except RecordFileError as exc:  # process() reports it as the file's problem
                content = hashlib.blake2b(f"{exc.code} {exc.message}".encode(),
                                          digest_size=16).hexdigest()
        stats[name] = (size, mtime if now - mtime > RACY_NS else -1, content, commit)
        out[name] = hashlib.blake2b(f"{content} {name} {commit}".encode(),
                                    digest_size=16).hexdigest()
        if row is None or row[DIGEST] != out[name]:
            stale.append((path, name))
    return out, stats, stale


def _last_result(cache: Cache, store_path: Path) -> BuildResult | None:
    """The last build's result, when it ended and its store is there. A refused build
    keeps none: the next one checks again."""
    saved = cache.meta("result")
    if saved is None or not store_path.is_dir():
        return None
    last = json.loads(saved)
    problems = [Problem(**p) for p in last["problems"]]
    return BuildResult(store_path, last["key"], problems, last["invalid"], last["left_out"],
                       last["records"], 0, changed=False)


def _link_problems(entries: Entries, cache: Cache, fresh: list[Entry],
                   before: Entries) -> list[Problem]:
    """Duplicate ids, and links to records that do not exist.

    While every file holds the id it held in the last build (`before`), only the fresh
    entries' links can have changed: the others' dangling links are taken from that build."""
    same_ids = len(entries) == len(before) and all(
        (b := before.rows.get(e.path)) is not None and (b[KIND], b[ID]) == (e.kind, e.id)
        for e in fresh)
    last = json.loads(cache.meta("links") or "null")
    if same_ids and last is not None and "duplicate_ids" in last:
        groups = last["duplicate_ids"]  # the same ids in the same files: the same duplicates
        paths = {e.path for e in fresh}
        dangling = {p: found for p, found in last["dangling"].items() if p not in paths}
        check, exists = fresh, cache.has_record
    else:
        groups = [[kind, rid, files] for kind, rid, files in cache.duplicate_ids()]
        dangling, check = {}, list(entries.values())
        cache.read_refs(check)
        owners = {(e.kind, e.id) for e in check if e.kind is not None}

        def exists(kind: str, rid: str) -> bool:
            return (kind, rid) in owners
    for e in check:
        found = [_dangling(e, dotted, target, kind)
                 for dotted, target, kind in e.refs if not exists(kind, target)]
        if found:
            dangling[e.path] = found
    cache.set_meta("links", json.dumps({"duplicate_ids": groups, "dangling": dangling}))
    return _duplicate_problems(groups, entries) + [
        Problem(**d) for found in dangling.values() for d in found]


def _dangling(e: Entry, dotted: str, target: str, kind: str) -> dict:
    """A link to a record that does not exist: a violation, but for a vendor, which may be
    a plain name (records.SOFT_REFERENCES)."""
    if kind == "vendors":
        return Problem(e.path, line_of(e.lines, dotted), dotted, "names no vendor record "
                       f"({kind}/{target}.yaml): it is kept as the vendor's name", value=target,
                       code="vendor-name", severity=INFO).as_dict()
    return Problem(e.path, line_of(e.lines, dotted), dotted.split(".")[0],
                   f"names a record that does not exist ({kind}/{target}.yaml)",
                   value=target, code="dangling-reference").as_dict()


def _duplicate_problems(groups: list[list], entries: Entries) -> list[Problem]:
    """One problem for each file of an id held by several files (same kind), naming the
    others where their id is: no file of an id is the genuine one, so none is used (a
    second file named after an accelerator took its 344 runs over, and the message blamed
    the first). The lines are read anew, as an edit may move an id line."""
    out = []
    for _kind, rid, files in groups:
        where = {f: f"{f}:{entries[f].lines.get('id', 1)}" for f in files}
        for f in files:
            others = ", ".join(where[o] for o in files if o != f)
            out.append(Problem(f, entries[f].lines.get("id", 1), "id",
                               f"is also the id of {others}: an id names one record, so "
                               "none of these files is used until each has an id of its own",
                               value=rid, code="duplicate-id"))
    return out


def _left_out(entries: Entries, problems: list[Problem],
              cache: Cache) -> dict[str, str]:
    """Records to leave out: the invalid ones, then those linking to a left-out record."""
    out = {}
    for p in problems:
        if p.severity == VIOLATION and p.file not in out:
            out[p.file] = f"{p}"
    if not out:
        return out
    by_key = {(e.kind, e.id): path for path, e in entries.items() if e.kind}
    cache.read_refs(entries.values())
    changed = True
    while changed:
        changed = False
        for path, e in entries.items():
            if path in out:
                continue
            for dotted, target, kind in e.refs:
                if kind == "vendors":  # a vendor left out is still the vendor's name
                    continue
                other = by_key.get((kind, target))
                if other in out:
                    out[path] = f"links to {other}, which is left out ({dotted})"
                    changed = True
                    break
    return out


def _drop_stale_builds(work: Path) -> None:
    """Keep only the current code version's build of this data folder."""
    parent = work.parent
    if parent.is_dir():
        for other in parent.iterdir():
            if other != work and other.is_dir():
                shutil.rmtree(other, ignore_errors=True)
