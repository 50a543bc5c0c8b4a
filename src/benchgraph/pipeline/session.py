"""What a long-lived builder remembers between builds of one data folder, so that a build
told which files changed stats and reads only those.

A build learns what changed by listing and stat-ing every record file and reading the
cache's index of them: 0.5 s and 0.23 s at 100k files, most of an edited run's build
(benchmarks/reports/build-levers.md). `benchgraph serve --watch`'s builder process
(serving/reload.py) and `benchgraph build --watch` (cli/build.py) are told the changed paths
by a watcher, and remember, after each build while they wait for the next, what a full scan
finds then: the files, their digests against the index, their git commits, and the cache's
generation. The next build re-reads only the told files.

It scans in full, as `benchgraph build` always does, when it remembers nothing of this folder;
when another build has committed the cache since (its generation); when git's HEAD moved (the
commits); and when a told path is not a record file it remembers (a new file, a folder, a
rename: the walk's order and its symlinks are the full scan's). A change the watcher did not
tell is found by the full scan of the next remembering, so it is built by the next build.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from bisect import bisect_left, insort
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..records.files import max_record_bytes
from ..records.provenance import git_head, last_commits
from ..store.cache import DIGEST, Cache, Entries
from .changes import Found, file_digests, scan
from .workers import warm


@dataclass
class _Memory:
    root: str  # the data folder, resolved: where the watcher's paths are
    prefix: str
    work: Path
    generation: str | None
    head: str | None
    rows: dict[str, tuple]  # the cache's index
    found: Found
    at: dict[str, int] = field(default_factory=dict)  # display path -> place in found.files


@dataclass
class _Digests:
    key: str  # the build's
    rows: dict[str, tuple]  # the index of the records it included
    ordered: list[str]  # their digests, sorted


class Session:
    """A builder's memory of its last build: build(..., session=) reads it, remember() fills
    it, told() adds the paths its watcher reported."""

    def __init__(self) -> None:
        self._digests: _Digests | None = None
        self._memory: _Memory | None = None
        self._told: set[str] = set()
        self._last: tuple[Path, str, Path] | None = None  # the last build's folder, prefix, cache
        self.scanned = ""  # how the last build scanned: "told" or "full" (for the report)

    def told(self, paths: Iterable[str]) -> None:
        """Paths changed since the last build began (absolute, as the watcher gives them)."""
        self._told.update(paths)

    def digests(
        self, rows: dict[str, tuple], last: str | None, touched: Iterable[str]
    ) -> list[str]:
        """The digests of the records a build includes (`rows`), sorted, as its key hashes
        them: the list of the build whose key is `last` (the cache's last result), kept by
        keep(), with the `touched` files' changes since (converted, gone, left out then or
        now), else sorted afresh. Sorting 100k took 64 ms of an edited run's 0.4 s build."""
        kept, self._digests = self._digests, None
        if kept is None or last is None or kept.key != last:
            return _sorted_digests(rows)
        ordered = list(kept.ordered)
        for path in set(touched):
            was, now = kept.rows.get(path), rows.get(path)
            if was is not None:
                i = bisect_left(ordered, was[DIGEST])
                if i == len(ordered) or ordered[i] != was[DIGEST]:
                    return _sorted_digests(rows)
                del ordered[i]
            if now is not None:
                insort(ordered, now[DIGEST])
        if len(ordered) != len(rows):  # a change not among `touched`: never, but not trusted
            return _sorted_digests(rows)
        return ordered

    def keep(self, key: str, rows: dict[str, tuple], ordered: list[str]) -> None:
        """A build's key, included records and their digests sorted, for the next (digests)."""
        self._digests = _Digests(key, rows, ordered)

    def forget(self) -> None:
        """Scan in full at the next build (SIGHUP: a change the watcher may not have told)."""
        self._memory, self._told = None, set()

    def scan(self, data_dir: Path, prefix: str, cache: Cache, work: Path) -> tuple[Found, Entries]:
        """What changed since the last build: from memory and the told paths when it can be,
        else a full scan. Called under the build's lock."""
        memory, told = self._memory, self._told
        self._memory, self._told = None, set()
        self._last = (data_dir, prefix, work)
        if (
            memory is not None
            and memory.root == os.path.realpath(data_dir)
            and memory.prefix == prefix
            and memory.work == work
            and memory.generation == cache.generation()
            and memory.head == git_head(data_dir)
        ):
            found = _told_scan(data_dir, memory, told)
            if found is not None:
                self.scanned = "told"
                return found, Entries(memory.rows, {}, cache)
        self.scanned = "full"
        before = cache.index()
        return scan(data_dir, prefix, before), before

    def remember(self) -> None:
        """After a build, while no other is asked for: a full scan against the cache as that
        build committed it. Kept only if no build committed the cache during it."""
        self._memory = None
        warm()
        if self._last is None:
            return
        data_dir, prefix, work = self._last
        if not (work / "cache.sqlite").is_file():
            return
        cache = Cache(work / "cache.sqlite")
        try:
            generation = cache.generation()
            head = git_head(data_dir)
            before = cache.index()
            found = scan(data_dir, prefix, before)
            if cache.generation() != generation:
                return
        except sqlite3.Error:  # locked by another build for long: the next build scans
            return
        finally:
            cache.close()
        self._memory = _Memory(
            os.path.realpath(data_dir),
            prefix,
            work,
            generation,
            head,
            before.rows,
            found,
            {f[1]: i for i, f in enumerate(found.files)},
        )


def _sorted_digests(rows: dict[str, tuple]) -> list[str]:
    return sorted(row[DIGEST] for row in rows.values())


def _told_scan(data_dir: Path, memory: _Memory, told: set[str]) -> Found | None:
    """The remembered scan with the told record files stat-ed and digested again; None when
    a told path is not one of the record files remembered."""
    names: set[str] = set()
    for path in told:
        rel = os.path.relpath(path, memory.root)
        if rel == ".." or rel.startswith(".." + os.sep):
            continue  # not in the data folder (a --with file, a saved query)
        name = f"{memory.prefix}/{Path(rel).as_posix()}"
        if name not in memory.at:
            return None
        names.add(name)
    was = memory.found
    if not names:
        return was
    files = list(was.files)
    now = time.time_ns()
    again, gone = [], set()
    for name in names:
        i = memory.at[name]
        path = files[i][0]
        try:
            try:
                st = os.stat(path)
            except OSError:  # a dangling symlink, or one that loops (as scan_record_files)
                st = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            gone.add(name)
            files[i] = None
            continue
        except OSError:  # a folder above it unreadable now: the full scan says what it holds
            return None
        if stat.S_ISDIR(st.st_mode):
            return None  # a folder now: the full scan walks it
        files[i] = (path, name, st.st_size, st.st_mtime_ns)
        again.append(files[i])
    commits = {n: c for n, c in was.commits.items() if n not in names}
    if memory.head is not None:
        commits |= last_commits(data_dir, sorted(names))
    digests, stats, stale = file_digests(
        again, commits, Entries(memory.rows, {}, None), now, max_record_bytes()
    )
    stale += [s for s in was.stale if s[1] not in names]
    stale.sort(key=lambda s: memory.at[s[1]])  # the full scan's order
    return Found(
        [f for f in files if f is not None] if gone else files,
        commits,
        _less(was.digests, gone) | digests,
        {n: v for n, v in was.stats.items() if n not in names} | stats,
        stale,
    )


def _less(kept: dict[str, str], gone: set[str]) -> dict[str, str]:
    """A copy of kept without these keys (a copy is C's: 100k keys in a few ms)."""
    out = dict(kept)
    for name in gone:
        del out[name]
    return out
