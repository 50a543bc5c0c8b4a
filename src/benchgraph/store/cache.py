"""The per-record cache: one SQLite file of what each record file became.

Keyed by a hash of the file's bytes, its path and last commit, under a folder keyed by the
code version, ontology and shapes. A rebuild after editing one record reconverts only it.

Three tables: `entry`, one narrow row per file (what a build reads of every record: digest,
id, problems, and the size and time the file had when read; its links are read only when
asked), `body`, the quads and line map, read only for the records a build needs them of,
and `link`, who links to what, so the readers of an edited record are found by an index
lookup. A build reads `entry` whole once (0.3 s at 100k files; rows holding the quads took
seconds) and writes the rows it changed.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lz4.frame

from ..errors import Problem

UNREAD = (-1, -1, "", "")  # the stat of a file not remembered as read: it is read again
# The fields of a row of Entries, as SELECTed by Cache.index.
PATH, DIGEST, KIND, ID, PROBLEMS, SIZE, MTIME, HASH, COMMIT = range(9)


def pack(text: str) -> bytes:
    """N-Quads as the cache keeps them. LZ4: a record's quads (18 KB of the shipped runs)
    packed in 8 us and unpacked in 9, to 12 % of their size; zlib at level 1 took 58 and
    38 us, to 9 %."""
    return lz4.frame.compress(text.encode())


def unpack(data: bytes) -> str:
    return lz4.frame.decompress(data).decode()


@dataclass
class Entry:
    """What one record file became: its stated and locally inferred quads and problems."""

    path: str
    digest: str
    kind: str | None
    id: str | None
    stated: str
    inferred: str
    problems: list[Problem]
    ref_data: list[tuple[str, str, str]] | str | None  # (dotted field, id, kind); str: JSON;
    # None: still in the cache
    line_map: dict[str, int] | str | None  # str: cached JSON; None: still in the cache
    packed: tuple[bytes, bytes] | None = None  # stated, inferred as stored (compressed)
    # what the across-record checks read of a fresh entry, as their table keeps it (lines of
    # node, fact and value, tab-separated), and for a run a hash of that and its links: runs
    # with the same are checked once (validation.incremental)
    facts: str | None = None
    alike: str = ""
    source: Any = field(default=None, repr=False, compare=False)  # the Cache holding lines
    stat: tuple[int, int, str, str] | None = None  # the file as read: size, mtime, hash, commit
    outward: str = ""  # convert.outward of the record: what other records read of it
    # stated + inferred as the store's load reads them (UTF-8), in place of the text, of an
    # entry a build's worker hands on (see pack)
    text: bytes | None = field(default=None, repr=False, compare=False)
    rules: str = ""  # what the cross-record rules read of it (reasoning.rules.rule_facts)

    @property
    def refs(self) -> list[tuple[str, str, str]]:
        """The links to other records, read and decoded on demand: an edit to a run reads
        few (Cache.read_refs reads many at once)."""
        if self.ref_data is None:
            self.ref_data = self.source.refs([self.path]).get(self.path, "[]")
        if isinstance(self.ref_data, str):
            self.ref_data = [tuple(r) for r in json.loads(self.ref_data)]
        return self.ref_data

    @property
    def lines(self) -> dict[str, int]:
        """Field (dotted) -> line; read and decoded on demand: builds need few of them."""
        if self.line_map is None:
            self.line_map = self.source.lines(self.path) if self.source else {}
        if isinstance(self.line_map, str):
            self.line_map = json.loads(self.line_map)
        return self.line_map

    def pack(self, loading: bool = False) -> Entry:
        """Compress the quads where the entry is made (a worker), not in the build's loop.
        `loading`: the entry goes to the store's load, which reads bytes: they replace the
        text (sent as text, a worker encoded it to pickle it, the build decoded it on
        receiving and encoded it again for the load: 7 CPU-s of a 100k build)."""
        stated, inferred = self.stated.encode(), self.inferred.encode()
        self.packed = lz4.frame.compress(stated), lz4.frame.compress(inferred)
        if loading:
            self.text, self.stated, self.inferred = stated + inferred, "", ""
        return self


class Entries(Mapping[str, Entry]):
    """path -> Entry of every record file, made into an Entry only when read: a build after
    one edit reads few of 100k, and making them all took 0.4 s. `rows` holds each as a tuple
    (PATH, DIGEST, KIND, ID, PROBLEMS as JSON, SIZE, MTIME, HASH, COMMIT) for passes over
    all."""

    def __init__(self, rows: dict[str, tuple], made: dict[str, Entry], source: Cache):
        self.rows, self._made, self._source = rows, made, source
        self._others: list[str] | None = None
        self._kinded: Entries | bool | None = None  # with_kind() (False: this index)

    def others(self) -> list[str]:
        """The paths of the records that are not runs (those runs link to: few), found once
        (a pass over 100k rows takes tens of milliseconds)."""
        if self._others is None:
            self._others = [p for p, row in self.rows.items() if row[KIND] != "benchmarks"]
        return self._others

    def __getitem__(self, path: str) -> Entry:
        e = self._made.get(path)
        if e is None:
            path, digest, kind, rid, problems, *stat = self.rows[path]
            e = self._made[path] = Entry(
                path,
                digest,
                kind,
                rid,
                "",
                "",
                [Problem(**p) for p in json.loads(problems)] if problems else [],
                None,
                None,
                source=self._source,
                stat=tuple(stat),
            )
        return e

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, path: object) -> bool:
        return path in self.rows

    def changed(self, fresh: list[Entry], gone: Iterable[str]) -> Entries:
        """This index with the fresh entries in and the gone files out."""
        rows = dict(self.rows)
        for path in gone:
            rows.pop(path, None)
        made = {p: e for p, e in self._made.items() if p in rows}
        for e in fresh:
            rows[e.path] = (e.path, e.digest, e.kind, e.id, "", *(e.stat or UNREAD))
            made[e.path] = e
        return Entries(rows, made, self._source)

    def with_kind(self, excluding: Iterable[str] = ()) -> Entries:
        """The entries of readable records (kind known), but those `excluding`. Made once
        without `excluding` (the check and the load both ask; each copy and pass over 100k
        rows took 10-20 ms), and the same index when nothing is left out."""
        kinded = self._kinded
        if kinded is None:
            unread = [p for p, r in self.rows.items() if r[KIND] is None]
            kinded = self._less(unread) if unread else self
            self._kinded = kinded if unread else False  # itself: no cycle to keep it alive
        elif kinded is False:
            kinded = self
        drop = [p for p in excluding if p in kinded.rows]
        return kinded._less(drop) if drop else kinded

    def _less(self, drop: list[str]) -> Entries:
        # a copy less the few to drop: 3x faster at 100k than a comprehension keeping the rest
        rows = dict(self.rows)
        for p in drop:
            rows.pop(p, None)
        out = Entries(rows, self._made, self._source)
        if self._others is not None:
            out._others = [p for p in self._others if p in rows]
        return out

    def problems(self) -> list[Problem]:
        """Every entry's own problems (reading only the rows that have some)."""
        out = []
        for path, row in self.rows.items():
            if path in self._made:
                out += self._made[path].problems
            elif row[PROBLEMS]:
                out += self[path].problems
        return out


class Cache:
    """SQLite-backed store of Entries, plus what the query store currently holds."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS entry (path TEXT PRIMARY KEY, digest TEXT, kind TEXT,"
            " id TEXT, problems TEXT, size INTEGER, mtime INTEGER, hash TEXT, git_commit TEXT,"
            " refs TEXT, outward TEXT)"
        )
        self.db.execute("CREATE INDEX IF NOT EXISTS entry_id ON entry (kind, id)")
        self.db.execute("CREATE TABLE IF NOT EXISTS link (path TEXT, kind TEXT, target TEXT)")
        self.db.execute("CREATE INDEX IF NOT EXISTS link_target ON link (kind, target)")
        self.db.execute("CREATE INDEX IF NOT EXISTS link_path ON link (path)")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS body (path TEXT PRIMARY KEY, stated BLOB,"
            " inferred BLOB, lines TEXT)"
        )
        # `n` grows with every graph loaded, never reused (AUTOINCREMENT): what changed since
        # a known `n` is a range of it, which serving/counts.py reads in place of comparing
        # every graph's digest (0.55 s a rebuild at 100k runs)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS loaded (n INTEGER PRIMARY KEY AUTOINCREMENT,"
            " graph TEXT UNIQUE, digest TEXT)"
        )
        # what the cross-record rules read of each record: an edit derives the records it
        # reaches from these, not from the store
        self.db.execute("CREATE TABLE IF NOT EXISTS rulefacts (path TEXT PRIMARY KEY, facts BLOB)")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self._readers: dict[tuple[str, str], list[str]] = {}  # readers(), until a put

    def get(self, paths: list[str], quads: bool = False) -> dict[str, Entry]:
        """The entries of these paths, with their quads when asked (they are the bulk)."""
        columns = "b.stated, b.inferred" if quads else "'', ''"
        select = (
            f"SELECT e.path, e.digest, e.kind, e.id, {columns}, e.problems, e.refs,"
            " b.lines FROM entry e JOIN body b ON b.path = e.path WHERE e.path IN"
            " (SELECT value FROM json_each(?))"
        )
        return {row[0]: _entry(row) for row in self.db.execute(select, (json.dumps(paths),))}

    def put(self, entries: list[Entry]) -> None:
        """Save these entries whole, each with the file's `stat` as the scan read it."""
        self.db.executemany(
            "INSERT OR REPLACE INTO entry VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [_row(e) for e in entries],
        )
        self._unlink([e.path for e in entries])
        self.db.executemany(
            "INSERT INTO link VALUES (?, ?, ?)",
            [(e.path, kind, target) for e in entries for _dotted, target, kind in e.refs],
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO body VALUES (?,?,?,?)",
            [
                (
                    e.path,
                    *(e.packed or e.pack().packed),
                    e.line_map if isinstance(e.line_map, str) else json.dumps(e.lines),
                )
                for e in entries
            ],
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO rulefacts VALUES (?, ?)",
            [(e.path, pack(e.rules)) for e in entries if e.rules],
        )
        self.db.executemany(
            "DELETE FROM rulefacts WHERE path = ?", [(e.path,) for e in entries if not e.rules]
        )

    def rule_facts(self, paths: list[str] | None = None) -> dict[str, str]:
        """path -> its record's rule facts (None: of every record)."""
        if paths is None:
            rows = self.db.execute("SELECT path, facts FROM rulefacts")
        else:
            rows = self.db.execute(
                "SELECT path, facts FROM rulefacts WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(paths),),
            )
        return {path: unpack(facts) for path, facts in rows}

    def paths_of(self, keys: Iterable[Sequence[str]]) -> dict[tuple[str, str], list[str]]:
        """The files of the records of these (kind, id), from the cache's account of the
        last build (two files may hold one id), by the index of the keys."""
        out: dict[tuple[str, str], list[str]] = {}
        for kind, rid, path in self.db.execute(
            "SELECT kind, id, path FROM entry WHERE (kind, id) IN (SELECT json_extract(value, "
            "'$[0]'), json_extract(value, '$[1]') FROM json_each(?))",
            (json.dumps([list(k) for k in keys]),),
        ):
            out.setdefault((kind, rid), []).append(path)
        return out

    def index(self) -> Entries:
        """Every entry without its quads, links and line map (each read when asked)."""
        return Entries(
            {
                row[0]: row
                for row in self.db.execute(
                    "SELECT path, digest, kind, id, problems, size, mtime, hash, git_commit"
                    " FROM entry"
                )
            },
            {},
            self,
        )

    def outward(self, paths: list[str]) -> dict[str, str]:
        """path -> what other records read of its record, as the last build saved it."""
        return dict(
            self.db.execute(
                "SELECT path, outward FROM entry WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(paths),),
            )
        )

    def refs(self, paths: list[str]) -> dict[str, str]:
        """path -> its links as JSON."""
        return dict(
            self.db.execute(
                "SELECT path, refs FROM entry WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(paths),),
            )
        )

    def read_refs(self, entries: Iterable[Entry]) -> None:
        """Read the links of many entries at once (one query, not one each)."""
        todo = {e.path: e for e in entries if e.ref_data is None}
        if len(todo) > 20_000:  # most of them: one pass over the table beats the lookups
            rows = self.db.execute("SELECT path, refs FROM entry")
        else:
            rows = self.refs(list(todo)).items()
        for path, refs in rows:
            if path in todo:
                todo[path].ref_data = refs

    def read_lines(self, entries: Iterable[Entry]) -> None:
        """Read the line maps of many entries at once (one query, not one each)."""
        todo = {e.path: e for e in entries if e.line_map is None}
        if todo:
            for path, lines in self.db.execute(
                "SELECT path, lines FROM body WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(list(todo)),),
            ):
                todo.pop(path).line_map = lines
        for e in todo.values():  # no body: as Entry.lines reads it
            e.line_map = "{}"

    def readers(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        """(kind, id) -> the files of the records linking to it, as the last put saved them.
        Kept until the next put: an edited part's check and derivation both ask for its
        16k readers (30 ms each at 100k)."""
        out: dict[tuple[str, str], list[str]] = {}
        for key in keys:
            found = self._readers.get(key)
            if found is None:
                found = self._readers[key] = [
                    p
                    for (p,) in self.db.execute(
                        "SELECT DISTINCT path FROM link WHERE kind = ? AND target = ?", key
                    )
                ]
            out[key] = found
        return out

    def has_record(self, kind: str, rid: str) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM entry WHERE kind = ? AND id = ? LIMIT 1", (kind, rid)
            ).fetchone()
            is not None
        )

    def duplicate_ids(self) -> list[tuple[str, str, list[str]]]:
        """(kind, id, files) of every id held by more than one file."""
        rows = self.db.execute(
            "SELECT kind, id, json_group_array(path) FROM entry WHERE kind IS NOT NULL"
            " GROUP BY kind, id HAVING count(*) > 1"
        )
        return [(kind, rid, sorted(json.loads(paths))) for kind, rid, paths in rows]

    def _unlink(self, paths: list[str]) -> None:
        self._readers.clear()
        self.db.executemany("DELETE FROM link WHERE path = ?", [(p,) for p in paths])

    def set_stats(self, stats: dict[str, tuple[int, int, str, str]]) -> None:
        """Files read again that still hold what their entry was made of (touched)."""
        self.db.executemany(
            "UPDATE entry SET size = ?, mtime = ?, hash = ?, git_commit = ? WHERE path = ?",
            [(*v, p) for p, v in stats.items()],
        )

    def lines(self, path: str) -> str:
        row = self.db.execute("SELECT lines FROM body WHERE path = ?", (path,)).fetchone()
        return row[0] if row else "{}"

    def forget(self, paths: list[str]) -> None:
        for table in ("entry", "body", "rulefacts"):
            self.db.executemany(f"DELETE FROM {table} WHERE path = ?", [(p,) for p in paths])
        self._unlink(paths)

    def loaded(self, graphs: list[str] | None = None) -> dict[str, str]:
        """Graph -> digest of what the store holds, of these graphs (None: all)."""
        if graphs is None:
            return dict(self.db.execute("SELECT graph, digest FROM loaded"))
        return dict(
            self.db.execute(
                "SELECT graph, digest FROM loaded WHERE graph IN (SELECT value FROM json_each(?))",
                (json.dumps(graphs),),
            )
        )

    def loaded_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM loaded").fetchone()[0]

    def set_loaded(self, added: dict[str, str], removed: list[str]) -> None:
        self.db.executemany("DELETE FROM loaded WHERE graph = ?", [(g,) for g in removed])
        self.db.executemany(
            "INSERT OR REPLACE INTO loaded (graph, digest) VALUES (?, ?)", added.items()
        )

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (None: remove) a value the next build reads."""
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def commit(self) -> None:
        # a new generation with every commit: a long-lived builder (pipeline/session.py)
        # trusts what it remembers of the index only while this is unchanged
        self.set_meta("generation", secrets.token_hex(8))
        self.db.commit()

    def generation(self) -> str | None:
        """The token of the last commit (a new one with each)."""
        return self.meta("generation")

    def close(self) -> None:
        self.db.close()


def _row(e: Entry) -> tuple:
    """An entry as its `entry` row keeps it."""
    return (
        e.path,
        e.digest,
        e.kind,
        e.id,
        json.dumps([p.as_dict() for p in e.problems]) if e.problems else "",
        *(e.stat or UNREAD),
        e.ref_data if isinstance(e.ref_data, str) else json.dumps(e.refs),
        e.outward,
    )


def _entry(row: tuple) -> Entry:
    path, digest, kind, rid, stated, inferred, problems, refs, lines = row
    return Entry(
        path,
        digest,
        kind,
        rid,
        unpack(stated) if stated else "",
        unpack(inferred) if inferred else "",
        [Problem(**p) for p in json.loads(problems)] if problems else [],
        refs,
        lines,
    )
