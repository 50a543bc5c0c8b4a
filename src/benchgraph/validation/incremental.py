"""The across-record pass of a build, incremental over the build cache: each record's facts
and problems are kept in its table `validate_across`, and only the records a change can
reach are checked again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Container
from typing import TYPE_CHECKING

from ..errors import WARNING, Problem
from ..namespaces import record_iri
from ..records.schema import line_of
from ..store.cache import DIGEST, KIND
from ..store.cache import ID as ROW_ID
from .across import across_problems
from .fabric import copied_fabric, fabric_texts
from .facts import Dataset, RecordFacts, facts_from_nquads

if TYPE_CHECKING:
    from ..store.cache import Cache, Entries, Entry


def copied_fabric_problems(entries: Entries, cache: Cache) -> list[Problem]:
    """Systems whose fabric text is a sibling's (copied_fabric): one warning for each group
    of systems sharing a text, on its first file, naming the others. Not a
    shape: it compares records that do not link to each other, so it runs over every
    system's facts (kept by the across-record pass) on each build that changed something."""
    rows = cache.db.execute(
        "SELECT path, kind, facts FROM validate_across WHERE kind IN "
        "('systems', 'accelerators', 'interconnects')"
    ).fetchall()
    recs = []
    for path, kind, text in rows:
        if path not in entries:
            continue
        e = entries[path]
        facts = [tuple(f.split("\t")) for f in text.split("\n")] if text else []
        recs.append(RecordFacts(path, kind, e.id, [], {}, facts))
    cache.read_refs([entries[r.path] for r in recs])
    for r in recs:
        r.refs = entries[r.path].refs
    data = Dataset(recs)
    # Systems sharing a text, joined pair by pair: each group is told once, on its first
    # file (one line for each pair made 20 of the shipped data's 25 warnings).
    group: dict[tuple[str, str], str] = {}  # (field, path) -> the group's representative

    def top(key: tuple[str, str]) -> tuple[str, str]:
        while group.get(key, key[1]) != key[1]:
            key = (key[0], group[key])
        return key

    for rec in recs:
        for field, sibling in copied_fabric(data, rec):
            other = data.records[("systems", sibling)].path
            a, b = top((field, rec.path)), top((field, other))
            group.setdefault(a, a[1])
            group.setdefault(b, b[1])
            if a != b:
                group[max(a, b)] = min(a, b)[1]
    members: dict[tuple[str, str], list[str]] = {}
    for key in group:
        members.setdefault(top(key), []).append(key[1])
    by_path = {r.path: r for r in recs}
    out = []
    for (field, first), paths in members.items():
        rec, e = by_path[first], entries[first]
        others = [f"systems/{by_path[p].id}" for p in sorted(paths) if p != first]
        names = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else others[0]
        out.append(
            Problem(
                first,
                line_of(e.lines, f"interconnect_raw.{field}"),
                f"interconnect_raw.{field}",
                f"is byte for byte the text of {names} (same submitter), and their parts "
                "do not all have one fabric: check which system it was copied from",
                value=fabric_texts(data, rec).get(field, ""),
                code="copied-fabric-text",
                severity=WARNING,
            )
        )
    return sorted(out)


def _copied_fabric_kept(entries: Entries, cache: Cache) -> list[Problem]:
    """copied_fabric_problems, kept in the cache until a record it reads changes (an edit
    to runs reads it back)."""
    digests = cache.db.execute(
        "SELECT group_concat(path || ' ' || digest, ' ') FROM (SELECT path, digest FROM "
        "validate_across WHERE kind IN ('systems', 'accelerators', 'interconnects') "
        "ORDER BY path)"
    ).fetchone()[0]
    key = hashlib.blake2b((digests or "").encode(), digest_size=16).hexdigest()
    kept = cache.meta("copied-fabric")
    if kept is not None:
        was, problems = json.loads(kept)
        if was == key:
            return [Problem(**d) for d in problems]
    found = copied_fabric_problems(entries, cache)
    cache.set_meta("copied-fabric", json.dumps([key, [p.as_dict() for p in found]]))
    return found


def check_dataset(
    entries: Entries,
    cache: Cache,
    fresh: list[str],
    gone: list[str],
    link_problems: list[Problem],
    quiet: Container[tuple[str, str]] = (),
) -> list[Problem]:
    """The across-record problems of a build, plus link_problems (those about a link the
    shapes report too, e.g. a dangling one, are left out: one line per problem).

    Incremental: each record's facts and problems are kept in the build cache with its
    content's digest. Only records that changed, and those whose checks read a changed or
    removed record, are checked again; nothing links to a run, so an edit to runs re-checks
    those runs alone. `fresh` and `gone`: the files converted and removed since the last
    build, which the cache's table of facts is compared with (all of it if it has not the
    same records). `quiet`: (kind, id) of fresh records whose edit kept what others read of
    them (convert.outward); their readers keep their problems."""
    found = _Across(entries, cache).problems(fresh, gone, quiet)
    found += _copied_fabric_kept(entries, cache)
    taken = {(p.file, p.line, p.field.split(".")[0]) for p in found}
    kept = [
        p
        for p in link_problems
        if p.code != "dangling-reference" or (p.file, p.line, p.field.split(".")[0]) not in taken
    ]
    return kept + found


class _Across:
    """The across-record pass of one build, over the cache of the previous one."""

    # `alike`: for a run, a hash of its links and facts: runs with the same are checked once
    TABLE = (
        "CREATE TABLE IF NOT EXISTS validate_across (path TEXT PRIMARY KEY, digest TEXT,"
        " kind TEXT, facts TEXT, problems TEXT, alike TEXT)"
    )

    def __init__(self, entries: Entries, cache: Cache):
        self.entries = entries.with_kind()
        self.cache = cache
        self.db = cache.db
        self.db.execute(self.TABLE)
        # without these, the passes below read the whole table (its facts are the bulk):
        # 25-35 ms each at 100k records, most of an edited run's check
        self.db.execute(
            "CREATE INDEX IF NOT EXISTS validate_kind ON validate_across (kind, path, digest)"
        )
        self.db.execute(
            "CREATE INDEX IF NOT EXISTS validate_problems ON validate_across (problems)"
            " WHERE problems != ''"
        )

    def problems(
        self, fresh: list[str], gone: list[str], quiet: Container[tuple[str, str]]
    ) -> list[Problem]:
        gone = gone + [p for p in fresh if p not in self.entries]  # now unreadable
        changed = [p for p in fresh if p in self.entries]
        known = {
            p
            for (p,) in self.db.execute(
                "SELECT path FROM validate_across WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(changed + gone),),
            )
        }
        ((count,),) = self.db.execute("SELECT count(*) FROM validate_across")
        expected = (
            len(self.entries)
            - len([p for p in changed if p not in known])
            + len([p for p in gone if p in known])
        )
        if count != expected:  # not the last build's records: compare them all
            stored = dict(self.db.execute("SELECT path, digest FROM validate_across"))
            changed = [p for p, row in self.entries.rows.items() if stored.get(p) != row[DIGEST]]
            gone = [p for p in stored if p not in self.entries]
            quiet = ()  # told against the last build, which this table may not be
        if changed or gone:
            self._update(changed, gone, quiet)
        out = []
        for (text,) in self.db.execute("SELECT problems FROM validate_across WHERE problems != ''"):
            out.extend(Problem(**d) for d in json.loads(text))
        return out

    def _update(
        self, changed: list[str], gone: list[str], quiet: Container[tuple[str, str]]
    ) -> None:
        gone_keys = {
            (k, p.rsplit("/", 1)[1].rsplit(".", 1)[0])
            for p, k in self.db.execute(
                "SELECT path, kind FROM validate_across WHERE path IN (SELECT value FROM "
                "json_each(?))",
                (json.dumps(gone),),
            )
        }
        changed_keys = {(self.entries[p].kind, self.entries[p].id) for p in changed}
        moved = gone_keys | {k for k in changed_keys if k[0] != "benchmarks" and k not in quiet}
        affected = set(changed)
        rows = self.entries.rows
        if len(changed) > len(self.entries) // 2:
            affected = set(self.entries)  # cheaper than finding who reads what
        elif moved:  # a record others link to changed: find who reads it, two links deep
            first = {
                p
                for found in self.cache.readers(moved).values()
                for p in found
                if p in self.entries
            }
            second = {
                p
                for found in self.cache.readers(
                    {
                        (rows[q][KIND], rows[q][ROW_ID])
                        for q in first
                        if rows[q][KIND] == "accelerators"
                    }
                ).values()
                for p in found
                if p in self.entries
            }
            affected |= first | second
        texts, kept = self._facts(affected)
        # nothing links to a run: the other runs are not needed to check these records, and
        # runs with the same links and facts (all but their IRI and file) have the same
        # results on their own nodes: one of each kind is checked (an edited part reaches
        # thousands of runs, of a few dozen kinds)
        runs = [p for p in affected if rows[p][KIND] == "benchmarks"]
        fresh = [self.entries[p] for p in runs if p in texts]  # their facts changed
        self.cache.read_refs(fresh)
        alike_of = {p: kept[p][2] for p in runs if p not in texts}
        alike_of.update((e.path, e.alike or alike_key(e.refs, texts[e.path])) for e in fresh)
        kinds: dict[str, list[str]] = {}
        for p in runs:
            kinds.setdefault(alike_of[p], []).append(p)
        first = [members[0] for members in kinds.values()]
        texts.update(self._texts([p for p in first if p not in texts]))
        read = [self.entries[p] for p in self.entries.others()]
        read += [self.entries[p] for p in first]
        self.cache.read_refs(read)
        records = [self._record(e, texts) for e in read]
        mine = [r for r in records if r.path in affected]
        made: dict[str, list[RecordFacts]] = {}

        def alike(path: str) -> list[RecordFacts]:
            if path not in made:  # for the kinds with results only
                others = [self.entries[p] for p in kinds.get(alike_of.get(path), [path])[1:]]
                self.cache.read_refs(others)
                made[path] = [self._record(e, texts, facts=[]) for e in others]
            return made[path]

        # only the line maps of checked records with a problem are read (in one query: an
        # edited accelerator has thousands of runs checked again, one query each took 0.3 s
        # in 1k)
        def lines(found: list[RecordFacts]) -> None:
            self.cache.read_lines([self.entries[r.path] for r in found])
            for r in found:
                r.lines = self.entries[r.path].lines

        found = across_problems(records, mine, lines, alike)
        written, problems_only = [], []
        for path in sorted(affected):
            row = rows[path]  # not self.entries[path]: making 16k Entry objects took 0.1 s
            problems = json.dumps([p.as_dict() for p in found[path]]) if path in found else ""
            was = kept.get(path)
            if was is None or was[0] != row[DIGEST]:
                row = (path, row[DIGEST], row[KIND], texts[path], problems, alike_of.get(path))
                written.append(row)
            elif was[1] != problems:  # only the rows that changed: most keep their problems
                problems_only.append((problems, path))
        self.db.executemany(
            "INSERT OR REPLACE INTO validate_across VALUES (?, ?, ?, ?, ?, ?)", written
        )
        self.db.executemany("UPDATE validate_across SET problems = ? WHERE path = ?", problems_only)
        self.db.executemany("DELETE FROM validate_across WHERE path = ?", [(p,) for p in gone])

    def _texts(self, paths: list[str]) -> dict[str, str]:
        """The facts the table keeps of these records."""
        return dict(
            self.db.execute(
                "SELECT path, facts FROM validate_across WHERE path IN (SELECT value FROM "
                "json_each(?))",
                (json.dumps(paths),),
            )
        )

    def _record(self, e: Entry, texts: dict[str, str], facts: list | None = None) -> RecordFacts:
        """The record as the checks read it; `facts` in place of its own (a run alike)."""
        if facts is None:
            text = texts.get(e.path, "")
            facts = [tuple(f.split("\t")) for f in text.split("\n")] if text else []
        return RecordFacts(e.path, e.kind, e.id, e.refs, {}, facts)

    def _facts(
        self, affected: set[str]
    ) -> tuple[dict[str, str], dict[str, tuple[str, str, str | None]]]:
        """The facts, as the table keeps them (text), of the records that are not runs (what
        runs link to; few) and of the affected records that changed (from their N-Quads);
        and the (digest, problems, alike) the table keeps of both and of the affected runs."""
        texts: dict[str, str] = {}
        kept = {}
        # kind < or > 'benchmarks': two ranges of validate_kind, where != read every row
        rows = self.db.execute(
            "SELECT path, digest, problems, alike, CASE WHEN kind != 'benchmarks' THEN facts END"
            " FROM validate_across WHERE kind < 'benchmarks' OR kind > 'benchmarks'"
            " OR path IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(affected)),),
        )
        for path, digest, problems, alike, text in rows:
            kept[path] = (digest, problems, alike)
            if text is not None:
                texts[path] = text
        digest = self.entries.rows
        wanted = [p for p in affected if p in digest and kept.get(p, ("",))[0] != digest[p][DIGEST]]
        wanted += [
            p
            for p in self.entries.others()
            if p not in affected and kept.get(p, ("",))[0] != digest[p][DIGEST]
        ]
        missing = [
            p for p in wanted if self.entries[p].facts is None and not self.entries[p].stated
        ]
        quads = self.cache.get(missing, quads=True) if missing else {}
        for path in wanted:
            e = quads.get(path) or self.entries[path]
            texts[path] = (
                e.facts
                if e.facts is not None
                else facts_text(facts_from_nquads(e.kind, e.stated, str(record_iri(e.kind, e.id))))
            )
        return texts, kept


def facts_text(facts: list[tuple[str, str, str]]) -> str:
    """A record's facts as the table keeps them."""
    return "\n".join("\t".join(f) for f in facts)


def alike_key(refs: list[tuple[str, str, str]], facts: str) -> str:
    """What a run's checks read of it but its IRI and file, its links and facts (as the table
    keeps them), hashed: runs with the same key are checked once."""
    text = json.dumps(refs) + "\0" + facts
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
