"""A build made ready to serve: a private copy of its store, with `--with` files loaded and
the dataset's description added.

The copy is a RocksDB checkpoint (hard links, cheap), made in a snapshot folder (see
snapshots.py); the build's own store is never written. cli/serve.py (the command), reload.py
(rebuilds) and web/ (an app that builds for itself) all make copies here, so none of them
imports another for it.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import scratch
from ..errors import CannotRun
from ..store.extra import copy_with, graph_of
from . import description, snapshots


@dataclass
class Served:
    """A store prepared for serving: its path, its key and what the build left out."""

    store_path: Path
    key: str
    workdir: Path
    invalid_records: list[str] = field(default_factory=list)
    problem_counts: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    records: int = 0
    built_at: float = field(default_factory=time.time)
    # Dumps live beside the build, not in the serving copy (deleted on shutdown): one folder
    # per serving key (web/dumps.py), so a restart on the same data serves them at once,
    # where writing them again took 4-7 s a format at the shipped size, 90 s at 100k.
    dump_dir: Path | None = None

    @property
    def dumps(self) -> Path:
        return self.dump_dir or self.workdir / "dumps"

    def app_config(self) -> dict[str, Any]:
        """The settings create_app needs to serve this store."""
        return {
            "STORE_PATH": str(self.store_path),
            "DATASET_KEY": self.key,
            "INVALID_RECORDS": self.invalid_records,
            "LEFT_OUT": self.left_out,
            "PROBLEM_COUNTS": self.problem_counts,
            "DUMP_DIR": str(self.dumps),
        }

    def pointer(self) -> dict[str, Any]:
        """This snapshot as the pointer file names it (see snapshots.py)."""
        return {
            "id": self.workdir.name,
            "store": str(self.store_path),
            "key": self.key,
            "dump_dir": str(self.dumps),
            "built_at": self.built_at,
            "records": self.records,
            "left_out": self.left_out,
            "invalid_records": self.invalid_records,
            "problem_counts": self.problem_counts,
        }

    def cleanup(self) -> None:
        """Delete the copy (only from the process that made it: scratch.remove)."""
        scratch.remove(self.workdir)


def prepare(
    result: Any,
    extra: list[tuple[Path, str | None]],
    root: Path | None = None,
    queries: Path | None = None,
    reason: bool = False,
    optimize: bool = False,
) -> Served:
    """A serving copy of a build (benchgraph.pipeline.BuildResult) with the extra files loaded,
    in a new folder (in `root`, as a snapshot there, when given). The key covers the build,
    the extra files and the saved queries in `queries` (the query page shows them).

    `optimize` compacts the copy: the build's store is written by many bulk loads side by
    side, and its heavy queries ran 1.3-2x slower than on a store loaded at once (the saved
    queries on the shipped data); compacted they run as fast. It takes about 1.5 s at the
    shipped size and 10 s of CPU at 100k runs, so `serve` does it on start, not on reloads."""
    if root is None:
        workdir = scratch.make("serve")
    else:
        workdir = Path(tempfile.mkdtemp(prefix=snapshots.PREFIX, dir=root))
    copy = workdir / "store"
    dumps = Path(result.store_path).parent / "dumps"
    try:
        key = serving_key(result.key, extra, queries, reason)
        store = copy_with(result.store_path, copy, extra, reason)
        # served, queryable and in every dump: the description of what this copy holds,
        # keyed by the data alone (not the saved queries the page shows), as `export` keys
        # it, so that a dump is byte for byte the CLI's export of the same data
        store.extend(description.cached(store, data_key(result.key, extra, reason), dumps.parent))
        store.flush()
        del store
        if optimize:
            _optimize(copy)
        snapshots.mark(workdir)
    except BaseException:
        scratch.remove(workdir)
        raise
    return Served(
        copy,
        key,
        workdir,
        list(result.invalid_records),
        problem_counts(result.problems),
        left_out=dict(result.left_out),
        records=result.records,
        dump_dir=dumps,
    )


def _optimize(copy: Path) -> None:
    """Compact the store at `copy` in a process of its own: its new files go beside the
    build's hard links (the build is untouched), and the memory a compaction takes (70 MB at
    100k runs, kept by this process's allocator after) goes with that process."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pyoxigraph as ox\n"
            "store = ox.Store(sys.argv[1])\nstore.optimize()\nstore.flush()\n",
            str(copy),
        ],
        check=True,
    )


def data_key(build_key: str, extra: list[tuple[Path, str | None]], reason: bool = False) -> str:
    """The key of the data itself, which its description (and so every dump) states: the
    build's, or with --with files the build's and theirs; never the saved queries."""
    return serving_key(build_key, extra, None, reason) if extra else build_key


def serving_key(
    build_key: str,
    extra: list[tuple[Path, str | None]],
    queries: Path | None = None,
    reason: bool = False,
) -> str:
    """The served dataset's key: the build's, with each extra file's graph name and bytes,
    and the saved queries' names and text."""
    key = hashlib.blake2b(build_key.encode(), digest_size=16)
    if reason and extra:
        key.update(b"reason-with\0")
    for path, iri in extra:
        graph = graph_of(path, iri)
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise CannotRun(f"--with {path}: {exc.strerror or exc}") from exc
        key.update(graph.encode() + b"\0" + hashlib.blake2b(content).digest())
    if queries is not None:
        for path in sorted(Path(queries).glob("*.rq")):
            key.update(
                b"query\0"
                + path.name.encode()
                + b"\0"
                + hashlib.blake2b(path.read_bytes()).digest()
            )
    return key.hexdigest()


def problem_counts(problems: list) -> dict[str, int]:
    """Problems of a build by severity."""
    return dict(Counter(p.severity for p in problems))
