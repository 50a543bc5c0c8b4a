"""The per-record cache: one SQLite file of what each record file became.

Keyed by a hash of the file's bytes, its path and last commit, under a folder keyed by the
code version, ontology and shapes. A rebuild after editing one record reconverts only it.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path

from .errors import Problem


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
    refs: list[tuple[str, str, str]]  # (dotted field, id, kind)
    lines: dict[str, int]


class Cache:
    """SQLite-backed store of Entries, plus what the query store currently holds."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS entry (path TEXT PRIMARY KEY, digest TEXT, kind TEXT,"
            " id TEXT, stated BLOB, inferred BLOB, problems TEXT, refs TEXT, lines TEXT)"
        )
        self.db.execute("CREATE TABLE IF NOT EXISTS loaded (graph TEXT PRIMARY KEY, digest TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")

    def digests(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT path, digest FROM entry"))

    def get(self, paths: list[str], quads: bool = False) -> dict[str, Entry]:
        """The entries of these paths; their quads only when asked (they are the bulk)."""
        columns = "stated, inferred" if quads else "'', ''"
        out = {}
        for i in range(0, len(paths), 500):
            chunk = paths[i:i + 500]
            rows = self.db.execute(
                f"SELECT path, digest, kind, id, {columns}, problems, refs, lines FROM entry"
                f" WHERE path IN ({','.join('?' * len(chunk))})", chunk
            )
            for row in rows:
                out[row[0]] = _entry(row)
        return out

    def put(self, entries: list[Entry]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO entry VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (e.path, e.digest, e.kind, e.id, zlib.compress(e.stated.encode()),
                 zlib.compress(e.inferred.encode()),
                 json.dumps([p.as_dict() for p in e.problems]), json.dumps(e.refs),
                 json.dumps(e.lines))
                for e in entries
            ],
        )

    def forget(self, paths: list[str]) -> None:
        self.db.executemany("DELETE FROM entry WHERE path = ?", [(p,) for p in paths])

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


def _entry(row: tuple) -> Entry:
    path, digest, kind, rid, stated, inferred, problems, refs, lines = row
    return Entry(
        path, digest, kind, rid, zlib.decompress(stated).decode() if stated else "",
        zlib.decompress(inferred).decode() if inferred else "", [Problem(**p) for p in json.loads(problems)],
        [tuple(r) for r in json.loads(refs)], json.loads(lines),
    )
