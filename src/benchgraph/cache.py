"""The per-record cache: one SQLite file of what each record file became.

Keyed by a hash of the file's bytes, its path and last commit, under a folder keyed by the
code version, ontology and shapes. A rebuild after editing one record reconverts only it.
"""

from __future__ import annotations

import json
import marshal
import sqlite3
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import Problem

# zlib level 1: a tenth of the N-Quads' size, at half the CPU of the default level (the
# workers compress; measured 0.06 ms against 0.12 ms a record).
LEVEL = 1


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
    ref_data: list[tuple[str, str, str]] | str  # (dotted field, id, kind); str: cached JSON
    line_map: dict[str, int] | str | None  # str: cached JSON; None: still in the cache
    packed: tuple[bytes, bytes] | None = None  # stated, inferred as stored (compressed)
    facts: list[tuple[str, str, str]] | None = None  # what cross-record checks read (fresh)
    source: Any = field(default=None, repr=False, compare=False)  # the Cache holding lines

    @property
    def refs(self) -> list[tuple[str, str, str]]:
        """The links to other records, decoded on demand: an edit to a run reads few."""
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

    def pack(self) -> Entry:
        """Compress the quads where the entry is made (a worker), not in the build's loop."""
        self.packed = (zlib.compress(self.stated.encode(), LEVEL),
                       zlib.compress(self.inferred.encode(), LEVEL))
        return self


class Cache:
    """SQLite-backed store of Entries, plus what the query store currently holds."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self._index: dict[str, tuple] | None = None  # the saved index, as last read
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS entry (path TEXT PRIMARY KEY, digest TEXT, kind TEXT,"
            " id TEXT, stated BLOB, inferred BLOB, problems TEXT, refs TEXT, lines TEXT)"
        )
        self.db.execute("CREATE TABLE IF NOT EXISTS loaded (graph TEXT PRIMARY KEY, digest TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        # A file whose size and modification time are unchanged is not read again.
        self.db.execute("CREATE TABLE IF NOT EXISTS file (path TEXT PRIMARY KEY, size INTEGER,"
                        " mtime INTEGER, hash TEXT)")

    def get(self, paths: list[str] | None, quads: bool = False) -> dict[str, Entry]:
        """The entries of these paths (None: all); their quads only when asked (they are
        the bulk)."""
        columns = "stated, inferred" if quads else "'', ''"
        select = f"SELECT path, digest, kind, id, {columns}, problems, refs, lines FROM entry"
        if paths is None:
            return {row[0]: _entry(row) for row in self.db.execute(select)}
        out = {}
        for i in range(0, len(paths), 500):
            chunk = paths[i:i + 500]
            rows = self.db.execute(f"{select} WHERE path IN ({','.join('?' * len(chunk))})",
                                   chunk)
            for row in rows:
                out[row[0]] = _entry(row)
        return out

    def put(self, entries: list[Entry]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO entry VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (e.path, e.digest, e.kind, e.id, *(e.packed or e.pack().packed),
                 json.dumps([p.as_dict() for p in e.problems]) if e.problems else "",
                 _refs_json(e), json.dumps(e.lines))
                for e in entries
            ],
        )

    def index(self) -> dict[str, Entry]:
        """Every entry without its quads and line map, as the last build saved it in one
        blob (reading 100k rows one by one took seconds); from the rows if there is none."""
        saved = self.meta_blob("index")
        if saved is None:
            return self.get(None)
        self._index = marshal.loads(saved)
        return {path: Entry(path, digest, kind, rid, "", "",
                            [Problem(**p) for p in json.loads(problems)] if problems else [],
                            refs, None, source=self)
                for path, (digest, kind, rid, problems, refs) in self._index.items()}

    def save_index(self, entries: dict[str, Entry], fresh: list[Entry]) -> None:
        """Save the index of `entries`, of which only `fresh` changed since index()."""
        index = self._index
        if index is None:
            index = {path: _indexed(e) for path, e in entries.items()}
        else:
            for path in [p for p in index if p not in entries]:
                del index[path]
            index.update((e.path, _indexed(e)) for e in fresh)
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('index', ?)",
                        (marshal.dumps(index),))

    def meta_blob(self, key: str) -> bytes | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row and isinstance(row[0], bytes) else None

    def lines(self, path: str) -> str:
        row = self.db.execute("SELECT lines FROM entry WHERE path = ?", (path,)).fetchone()
        return row[0] if row else "{}"

    def forget(self, paths: list[str]) -> None:
        self.db.executemany("DELETE FROM entry WHERE path = ?", [(p,) for p in paths])

    def file_hashes(self) -> dict[str, tuple[int, int, str]]:
        """path -> (size, mtime in ns, hash of the bytes) as last read."""
        return {p: (s, m, h) for p, s, m, h in self.db.execute("SELECT * FROM file")}

    def set_file_hashes(self, changed: dict[str, tuple[int, int, str]],
                        gone: list[str]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO file VALUES (?, ?, ?, ?)",
                            [(p, *v) for p, v in changed.items()])
        self.db.executemany("DELETE FROM file WHERE path = ?", [(p,) for p in gone])

    def loaded(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT graph, digest FROM loaded"))

    def set_loaded(self, added: dict[str, str], removed: list[str]) -> None:
        self.db.executemany("DELETE FROM loaded WHERE graph = ?", [(g,) for g in removed])
        self.db.executemany("INSERT OR REPLACE INTO loaded VALUES (?, ?)", added.items())

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def commit(self) -> None:
        self.db.commit()

    def close(self) -> None:
        self.db.close()


def _indexed(e: Entry) -> tuple:
    """An entry as the index keeps it (marshal: plain tuples, lists and strings)."""
    return (e.digest, e.kind, e.id,
            json.dumps([p.as_dict() for p in e.problems]) if e.problems else "",
            _refs_json(e))


def _refs_json(e: Entry) -> str:
    return e.ref_data if isinstance(e.ref_data, str) else json.dumps(e.ref_data)


def _entry(row: tuple) -> Entry:
    path, digest, kind, rid, stated, inferred, problems, refs, lines = row
    return Entry(
        path, digest, kind, rid, zlib.decompress(stated).decode() if stated else "",
        zlib.decompress(inferred).decode() if inferred else "",
        [Problem(**p) for p in json.loads(problems)] if problems else [],
        refs, lines,
    )
