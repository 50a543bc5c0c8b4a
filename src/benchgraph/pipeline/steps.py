"""Compose the steps: record files -> records -> RDF -> checked -> inferred -> query store.

The only module that knows their order. Work is cached per record file (store/cache.py) and the
on-disk pyoxigraph store is updated graph by graph, so an edit to one record rebuilds one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from .. import settings
from ..errors import VIOLATION, CannotRun, Problem, RecordsInvalid
from ..locks import held, posix_lock_holder
from ..reasoning.ontology import ontology_closure, ontology_nquads, reasoner
from ..records.provenance import display_base, display_path
from ..store.cache import DIGEST, KIND, Cache, Entries, Entry
from ..store.load import COMPACT_FROM, Loader, forget_store
from ..timing import Timer
from ..validation.incremental import check_dataset
from ..validation.links import link_problems
from .changes import scan
from .derive import Derivation
from .derive import derive as derive  # the cross-record rules, into the inferred graph
from .key import code_key
from .session import Session
from .workers import converted

# Present while a build may have written the store without committing the cache's account
# of it (see _settle): a build killed or interrupted there leaves it behind.
UNSETTLED = "store.unsettled"


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


def cache_dir_for(data_dir: Path) -> Path:
    """Where the build of data_dir is cached: $BENCHGRAPH_CACHE or .benchgraph/ beside it."""
    env = settings.raw("CACHE")
    root = Path(env) if env else data_dir.resolve().parent / ".benchgraph"
    name = hashlib.blake2b(str(data_dir.resolve()).encode(), digest_size=6).hexdigest()
    return root / f"{data_dir.resolve().name}-{name}" / code_key()[:16]


def build(
    data_dir: Path,
    *,
    skip_invalid: bool = False,
    jobs: int | None = None,
    session: Session | None = None,
) -> BuildResult:
    """Build (or bring up to date) the query store of data_dir.

    Raises RecordsInvalid when a record has a violation, unless skip_invalid, which leaves
    out the invalid records and those linking to them and reports each. A long-lived
    builder passes its `session` (pipeline/session.py): what it remembers of the last build
    and the paths its watcher told it, in place of a full scan.
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
            return _Build(data_dir, work, cache, skip_invalid, jobs, session).run()
        finally:
            cache.close()


class _Build:
    """One build over one cache: run() is the order of its steps, each a method below."""

    def __init__(
        self,
        data_dir: Path,
        work: Path,
        cache: Cache,
        skip_invalid: bool,
        jobs: int | None,
        session: Session | None,
    ) -> None:
        self.data_dir, self.work, self.cache = data_dir, work, cache
        self.skip_invalid, self.jobs, self.session = skip_invalid, jobs, session
        self.timer = Timer()

    def run(self) -> BuildResult:
        """scan, then reuse the last build when nothing changed; otherwise plan, open the
        store, convert, check, load, derive, compact (each timed under its name) and
        finish."""
        self.scan()
        self.timer.lap("scan")
        if self.up_to_date():
            return self.reused()
        self.plan()
        self.open_store()
        try:
            for step in (self.convert, self.check, self.load, self.derive, self.compact):
                step()
                self.timer.lap(step.__name__)
        finally:
            self.close_store()
        return self.finish()

    def scan(self) -> None:
        """What each record file is now, against what the last build made of it."""
        self.prefix = display_path(self.data_dir, display_base(self.data_dir))
        if self.session is not None:
            found, self.before = self.session.scan(
                self.data_dir, self.prefix, self.cache, self.work
            )
        else:
            self.before = self.cache.index()  # each file's last build, without its quads
            found = scan(self.data_dir, self.prefix, self.before)
        self.commits, self.digests, self.stats = found.commits, found.digests, found.stats
        self.stale = list(found.stale)  # plan() sorts it
        rows = self.before.rows
        same = rows.keys() == self.digests.keys()  # as a set, in C: mostly so
        self.gone = [] if same else [p for p in rows if p not in self.digests]

    def up_to_date(self) -> bool:
        """Whether the last build stands as it is (no record changed or went)."""
        cache, before = self.cache, self.before
        reconvert = {name for _, name in self.stale}
        cache.set_stats({n: v for n, v in self.stats.items() if n in before and n not in reconvert})
        _settle(self.work, cache)
        self.last = _last_result(cache, self.work / "store")
        return self.last is not None and not self.stale and not self.gone

    def reused(self) -> BuildResult:
        last = self.last
        self.cache.commit()  # the file sizes and times read
        if not self.skip_invalid and not last.conforms:
            raise RecordsInvalid(last.problems)
        self.timer.lap("finish")
        last.timings = self.timer.laps
        return last

    def is_run(self, name: str) -> bool:
        return name[len(self.prefix) + 1 :].split("/", 1)[0] == "benchmarks"

    def plan(self) -> None:
        """What to convert, in which order, and what the last build saw of it."""
        cache, before, stale = self.cache, self.before, self.stale
        cache.set_meta("result", None)  # until this build ends: a refused one is not up to date
        # the ontology comes with the kept closure; before any conversion and before workers fork
        reasoner(self.work / "reasoner.pickle")
        # the records others link to before the runs: a first build derives each batch of runs
        # as it loads, once those are in (pipeline.derive)
        stale.sort(key=lambda item: self.is_run(item[1]))
        self.args = [
            (path, str(self.data_dir), name, self.commits.get(name), self.digests[name])
            for path, name in stale
        ]
        # what the last build saw of the records others link to, to tell a quiet edit (below)
        self.was = cache.outward(
            [
                name
                for _, name in stale
                if name in before and before.rows[name][KIND] not in (None, "benchmarks")
            ]
        )

    def open_store(self) -> None:
        cache = self.cache
        self.store = _open_store(self.work / "store")
        # from here until the cache's account of the store is committed
        (self.work / UNSETTLED).touch()
        self.derivation = Derivation(
            cache,
            stream=not self.before.rows and cache.loaded_count() == 0,
            first=[name for _, name in self.stale if not self.is_run(name)],
        )
        self.loader = Loader(
            self.store,
            cache,
            (ontology_nquads(), ontology_closure()),
            self.derivation,
        )
        self.derivation.loader = self.loader

    def convert(self) -> None:
        """Convert the changed files in workers, loading the store as they come."""
        cache, stats = self.cache, self.stats
        cache.forget(self.gone)
        fresh: list[Entry] = []

        def saved() -> Iterator[list[Entry]]:
            for batch in converted(self.args, self.jobs):
                for e in batch:
                    e.stat = stats.get(e.path)
                cache.put(batch)
                fresh.extend(batch)
                yield batch

        self.loader.add(saved(), len(self.args))  # the store loads as the workers convert
        self.fresh = fresh
        self.entries = self.before.changed(fresh, self.gone)
        # records edited without changing what others read of them (a note, a source):
        # the records linking to them are neither checked nor derived again
        self.quiet = {(e.kind, e.id) for e in fresh if self.was.get(e.path, "") == e.outward != ""}

    def check(self) -> None:
        """Every record's problems; refuse the build, or leave out the invalid records."""
        cache, entries, fresh = self.cache, self.entries, self.fresh
        problems = entries.problems()
        problems += check_dataset(
            entries,
            cache,
            [e.path for e in fresh],
            self.gone,
            link_problems(entries, cache, fresh, self.before),
            self.quiet,
        )
        self.problems = problems
        self.left_out = _left_out(entries, problems, cache) if self.skip_invalid else {}
        if not self.skip_invalid and any(p.severity == VIOLATION for p in problems):
            self.loader.refused()
            cache.commit()  # the store holds what the cache says it holds
            (self.work / UNSETTLED).unlink()
            raise RecordsInvalid(problems)
        self.included = entries.with_kind(excluding=self.left_out)

    def load(self) -> None:
        """Bring the store to hold the included records."""
        before, fresh, last = self.before, self.fresh, self.last
        # what the store may hold differently from `included`: the changed records, old and
        # new, and those the last build or this one leaves out (an unchanged run linking to a
        # part gone invalid; Loader.finish compares all if the store then holds other than
        # `included`); None: compare every record (serve --watch's rebuilds, which leave out,
        # compared all 100k graphs after an edit)
        touched = (
            None
            if last is None
            else (
                fresh
                + [before[p] for p in self.gone]
                + [
                    before[p]
                    for p in {*(e.path for e in fresh), *last.left_out, *self.left_out}
                    if p in before
                ]
            )
        )
        self.runs, self.judged = self.loader.finish(self.included, touched, self.quiet)

    def derive(self) -> None:
        """The cross-record rules, into the inferred graph (pipeline.derive)."""
        self.derivation.included = self.included
        derive(self.derivation, self.runs, self.judged)

    def compact(self) -> None:
        """After a large bulk load, merge the store's files now, not in the next build's
        flush (store.load.COMPACT_FROM); also faster queries of the built store."""
        if self.loader.bulk_loaded >= COMPACT_FROM:
            self.store.optimize()

    def close_store(self) -> None:
        self.store.flush()
        # closes the store, also when a refusal's traceback is kept
        self.derivation.loader = self.loader.deriver = None  # they point at each other
        self.store = self.loader = self.derivation = None

    def finish(self) -> BuildResult:
        """The result, kept in the cache for the next build to reuse."""
        included, problems, left_out = self.included, self.problems, self.left_out
        if self.session is None:
            ordered = sorted(row[DIGEST] for row in included.rows.values())
        else:  # from the session's last build where it is the cache's last (see digests)
            last = self.last
            touched = [e.path for e in self.fresh] + self.gone + [*left_out]
            if last is not None:
                touched += last.left_out
            ordered = self.session.digests(
                included.rows, None if last is None else last.key, touched
            )
        key = hashlib.blake2b(
            "".join(ordered).encode() + code_key().encode(), digest_size=16
        ).hexdigest()
        if self.session is not None:
            self.session.keep(key, included.rows, ordered)
        invalid = sorted({p.file for p in problems if p.severity == VIOLATION})
        result = BuildResult(
            self.work / "store",
            key,
            sorted(problems),
            invalid,
            left_out,
            len(included),
            len(self.fresh),
        )
        self.cache.set_meta(
            "result",
            json.dumps(
                {
                    "key": key,
                    "problems": [p.as_dict() for p in result.problems],
                    "invalid": invalid,
                    "left_out": left_out,
                    "records": result.records,
                }
            ),
        )
        self.cache.commit()
        (self.work / UNSETTLED).unlink()
        self.timer.lap("finish")
        result.timings = self.timer.laps
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
        raise CannotRun(
            f"{path}: the build store is in use{posix_lock_holder(path / 'LOCK')} or broken: {exc}"
        ) from exc


def _last_result(cache: Cache, store_path: Path) -> BuildResult | None:
    """The last build's result, when it ended and its store is there. A refused build
    keeps none: the next one checks again."""
    saved = cache.meta("result")
    if saved is None or not store_path.is_dir():
        return None
    last = json.loads(saved)
    problems = [Problem(**p) for p in last["problems"]]
    return BuildResult(
        store_path,
        last["key"],
        problems,
        last["invalid"],
        last["left_out"],
        last["records"],
        0,
        changed=False,
    )


def _left_out(entries: Entries, problems: list[Problem], cache: Cache) -> dict[str, str]:
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
