"""The dataset's own checks of links: ids held by several files, and links to records that
do not exist (kept from the last build while every file keeps its id)."""

from __future__ import annotations

import json

from ..errors import INFO, Problem
from ..records.schema import line_of
from ..store.cache import ID, KIND, Cache, Entries, Entry


def link_problems(
    entries: Entries, cache: Cache, fresh: list[Entry], before: Entries
) -> list[Problem]:
    """Duplicate ids, and links to records that do not exist.

    While every file holds the id it held in the last build (`before`), only the fresh
    entries' links can have changed: the others' dangling links are taken from that build."""
    same_ids = len(entries) == len(before) and all(
        (b := before.rows.get(e.path)) is not None and (b[KIND], b[ID]) == (e.kind, e.id)
        for e in fresh
    )
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
        found = [
            dangling_problem(e, dotted, target, kind)
            for dotted, target, kind in e.refs
            if not exists(kind, target)
        ]
        if found:
            dangling[e.path] = found
    cache.set_meta("links", json.dumps({"duplicate_ids": groups, "dangling": dangling}))
    return duplicate_problems(groups, entries) + [
        Problem(**d) for found in dangling.values() for d in found
    ]


def dangling_problem(e: Entry, dotted: str, target: str, kind: str) -> dict:
    """A link to a record that does not exist: a violation, but for a vendor, which may be
    a plain name (records.SOFT_REFERENCES)."""
    if kind == "vendors":
        return Problem(
            e.path,
            line_of(e.lines, dotted),
            dotted,
            f"names no vendor record ({kind}/{target}.yaml): it is kept as the vendor's name",
            value=target,
            code="vendor-name",
            severity=INFO,
        ).as_dict()
    return Problem(
        e.path,
        line_of(e.lines, dotted),
        dotted.split(".")[0],
        f"names a record that does not exist ({kind}/{target}.yaml)",
        value=target,
        code="dangling-reference",
    ).as_dict()


def duplicate_problems(groups: list[list], entries: Entries) -> list[Problem]:
    """One problem for each file of an id held by several files (same kind), naming the
    others where their id is: no file of an id is the genuine one, so none is used (a
    second file named after an accelerator took its 344 runs over, and the message blamed
    the first). The lines are read anew, as an edit may move an id line."""
    out = []
    for _kind, rid, files in groups:
        where = {f: f"{f}:{entries[f].lines.get('id', 1)}" for f in files}
        for f in files:
            others = ", ".join(where[o] for o in files if o != f)
            out.append(
                Problem(
                    f,
                    entries[f].lines.get("id", 1),
                    "id",
                    f"is also the id of {others}: an id names one record, so "
                    "none of these files is used until each has an id of its own",
                    value=rid,
                    code="duplicate-id",
                )
            )
    return out
