"""`benchgraph build`: build the dataset from the records, and write a dump; with --watch,
build again each time a record changes.

A build learns what changed by listing and stat-ing every record file and reading the cache's
index: at 100k files most of an edited run's 1.2 s. `build --watch` stays up and is told the
changed files by a watcher (serving/watch.py), as `serve --watch`'s builder is, so it reads
only those (pipeline/session.py): 0.4 s at 100k (benchmarks/reports/build-levers.md).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

from ..errors import BenchgraphError, CannotRun
from ..store.extra import joined
from .common import EXIT_OK, built, data_folder, description, told
from .options import command, data_option, with_options


def add(sub) -> None:
    """Add the command to the main parser's subcommands."""
    p = command(
        sub,
        "build",
        "Build the dataset from the records and write a dump.",
        "benchgraph build --data data --out benchgraph.trig",
    )
    data_option(p)
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="write a dump; format from the extension (.trig .nq .ttl .nt .jsonld)",
    )
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="build from the records that conform, naming each one left out",
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="stay up after the build and build again each time a record file changes, "
        "reading only the changed files, until Ctrl-C",
    )
    p.add_argument(
        "--watch-poll",
        action="store_true",
        help="with --watch, look for changes by polling, for file systems that report none",
    )
    with_options(p)  # in the --out dump; the build's own store never holds them
    p.set_defaults(run=run)


def run(args) -> int:
    if args.watch:
        return _watch(args)
    _build(args)
    return EXIT_OK


def _build(args, session=None) -> None:
    from ..store.export import dump, format_for

    started = time.perf_counter()
    result = built(
        args, skip_invalid=args.skip_invalid, summary_if_unchanged=False, session=session
    )
    if args.out:
        try:
            fmt = format_for(args.out.suffix)
        except ValueError as exc:
            raise CannotRun(f"{args.out}: {exc}") from exc
        with joined(result.store_path, args.extra, args.reason_with) as store:
            dump(
                store, fmt, args.out, extra=description(result, store, args.extra, args.reason_with)
            )
    elif args.extra:
        from ..store.extra import check

        check(args.extra)  # they join a dump or a query, not the build's store
    how = ""
    if session is not None:
        read = "the changed files read" if session.scanned == "told" else "every file scanned"
        how = f" in {time.perf_counter() - started:.2f} s, {read}"
    print(
        f"built {result.records} records ({result.rebuilt} converted){how} -> "
        f"{result.store_path}" + (f"; wrote {args.out}" if args.out else ""),
        file=sys.stderr,
        flush=True,
    )


def _watch(args) -> int:
    """Build, then again on each change of the data folder once it has settled (a save or a
    checkout is one build), until Ctrl-C. A build that fails says why, and the watch goes on:
    the next save may mend it."""
    from ..pipeline.session import Session
    from ..serving.reload import SETTLE
    from ..serving.watch import Watcher, shown

    data_folder(args)  # a folder to watch, or nothing to do
    signal.signal(signal.SIGTERM, _interrupted)  # `kill` ends it as Ctrl-C does
    session, changes = Session(), _Changes()
    watcher = Watcher(changes.add, poll=args.watch_poll)
    try:
        watcher.tree(args.data)
        while True:
            try:
                _build(args, session)
            except BenchgraphError as exc:
                told(exc, args)
            print(f"benchgraph: watching {args.data} (Ctrl-C ends)", file=sys.stderr, flush=True)
            session.remember()  # while nothing changes: the next build reads what it is told
            paths = changes.settled(SETTLE)
            print(f"benchgraph: changed: {shown(paths)}", file=sys.stderr, flush=True)
            session.told(paths)
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        watcher.stop()


def _interrupted(_signum, _frame) -> None:
    """SIGTERM: end as Ctrl-C ends it, a build under way stopped as a build stops on Ctrl-C.
    (SIGINT is Python's own. A shell that starts a command in the background without job
    control has it ignore SIGINT, as CI's and a script's `cmd &` do: there only SIGTERM
    reaches it.)"""
    raise KeyboardInterrupt


class _Changes:
    """The paths a watcher reports (from its threads), taken in settled batches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._some = threading.Event()
        self._paths: set[str] = set()
        self._last = 0.0

    def add(self, paths: set[str]) -> None:
        with self._lock:
            self._paths |= paths
            self._last = time.monotonic()
            self._some.set()

    def settled(self, settle: float) -> set[str]:
        """The paths changed, once none has changed for `settle` seconds (blocks)."""
        while True:
            self._some.wait()
            with self._lock:
                quiet = time.monotonic() - self._last
                if quiet >= settle:
                    paths, self._paths = self._paths, set()
                    self._some.clear()
                    return paths
            time.sleep(settle - quiet)
