"""Which record files changed since the last build: each file's digest, read again only when
its size or modification time changed, or when it was written too recently to tell."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from ..records.files import RecordFileError, max_record_bytes, read_record_bytes, scan_record_files
from ..records.provenance import last_commits
from ..store.cache import COMMIT, DIGEST, HASH, MTIME, PROBLEMS, SIZE, Entries

RACY_NS = 2_000_000_000  # a file written this recently may change again unseen (see file_digests)


def file_digests(
    files: list[tuple[str, str, int, int]],
    commits: dict[str, str],
    before: Entries,
    now: int,
    limit: int,
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
    records.files.read_record_bytes) has the digest of why; one over the limit, or refused by an
    earlier limit, is looked at again, as the limit may have changed."""
    stats: dict[str, tuple[int, int, str, str]] = {}
    out = {}
    stale = []
    rows = before.rows
    for path, name, size, mtime in files:
        commit = commits.get(name) or ""
        row = rows.get(name)
        if (
            row is not None
            and row[SIZE] == size
            and row[MTIME] == mtime
            and not (size > limit or (row[PROBLEMS] and '"file-too-large"' in row[PROBLEMS]))
        ):
            if row[COMMIT] == commit:
                out[name] = row[DIGEST]
                continue
            content = row[HASH]
        else:
            try:
                content = hashlib.blake2b(
                    read_record_bytes(path, limit), digest_size=16
                ).hexdigest()
            except RecordFileError as exc:  # process() reports it as the file's problem
                content = hashlib.blake2b(
                    f"{exc.code} {exc.message}".encode(), digest_size=16
                ).hexdigest()
        stats[name] = (size, mtime if now - mtime > RACY_NS else -1, content, commit)
        out[name] = hashlib.blake2b(
            f"{content} {name} {commit}".encode(), digest_size=16
        ).hexdigest()
        if row is None or row[DIGEST] != out[name]:
            stale.append((path, name))
    return out, stats, stale


@dataclass
class Found:
    """What a scan found of a data folder's record files against the cache's index: the
    files (as scan_record_files lists them), their last commits, and file_digests' digests,
    stats and stale files."""

    files: list[tuple[str, str, int, int]]
    commits: dict[str, str]
    digests: dict[str, str]
    stats: dict[str, tuple]
    stale: list[tuple[str, str]]


def scan(data_dir: Path, prefix: str, before: Entries) -> Found:
    """List, stat and digest every record file of data_dir (display paths under `prefix`)."""
    commits = last_commits(data_dir)
    now = time.time_ns()  # before any file is read (see file_digests)
    files = scan_record_files(data_dir, f"{prefix}/")
    return Found(files, commits, *file_digests(files, commits, before, now, max_record_bytes()))
