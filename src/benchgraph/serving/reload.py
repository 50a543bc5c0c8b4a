"""Rebuilding while serving: `benchgraph serve` rebuilds on a change (--watch) or on SIGHUP,
and publishes the new snapshot for its server processes to swap in (see snapshots.py).

A rebuild that would leave out a record the served snapshot serves is refused: the served
snapshot stays whole, and the violations are published (on /healthz) and logged until they
are mended. Records left out already (a first start serves what conforms) may stay out.

Rebuilds run in a builder process of their own (`python -m benchgraph.serving.reload`, one
job as a JSON line on stdin, its outcome as a JSON line on stdout), so a crash in one cannot
take the server down and the serving process keeps no build state. The builder lives from
one rebuild to the next: between them it remembers a full scan of the data folder
(pipeline/session.py), and a rebuild re-reads only the files the watcher told of. At 100k
records that took an edited run's rebuild from 1.2 s to 0.4 s (benchmarks/reports/
build-levers.md). A builder that finds benchgraph's code or resources edited (an ontology,
a shape) says so and ends, and the next one starts on them, as a restart would; one that
crashed is started again for the next rebuild. SIGHUP rebuilds from a full scan.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import settings
from ..pipeline.session import Session
from . import snapshots
from .watch import shown

SETTLE = 0.5  # seconds without a change before a rebuild starts


@dataclass
class Job:
    """What one rebuild is given."""

    data: str
    root: str
    extra: list[tuple[str, str | None]] = field(default_factory=list)
    queries: str | None = None
    reason: bool = False  # --reason-with
    serving_key: str = ""
    serving_left_out: list[str] = field(default_factory=list)
    # the paths the watcher told of since the last rebuild; None: scan the data folder whole
    changed: list[str] | None = None


def run_job(job: Job, session: Session | None = None) -> dict[str, Any]:
    """Build, judge against the served snapshot, prepare a new one if it passes: the outcome
    (result ok / refused / failed)."""
    from ..errors import VIOLATION, BenchgraphError
    from ..pipeline.steps import build
    from .prepare import prepare, serving_key

    extra = [(Path(p), iri) for p, iri in job.extra]
    queries = Path(job.queries) if job.queries else None
    if session is not None and job.changed is not None:
        session.told(job.changed)
    elif session is not None:
        session.forget()
    try:
        result = build(Path(job.data), skip_invalid=True, session=session)
        key = serving_key(result.key, extra, queries, job.reason)
    except BenchgraphError as exc:
        return {"result": "failed", "error": str(exc)}
    warnings = sum(p.severity != VIOLATION for p in result.problems)
    if key == job.serving_key:
        return {
            "result": "ok",
            "swapped": False,
            "key": key,
            "records": result.records,
            "warnings": warnings,
        }
    kept_out = set(job.serving_left_out)
    dropped = {p: why for p, why in result.left_out.items() if p not in kept_out}
    if dropped:
        return {
            "result": "refused",
            "key": key,
            "violations": [
                str(p) for p in result.problems if p.severity == VIOLATION and p.file in dropped
            ],
            "would_leave_out": snapshots.left_out_summary(dropped),
        }
    try:
        served = prepare(result, extra, Path(job.root), queries, job.reason)
    except BenchgraphError as exc:
        return {"result": "failed", "error": str(exc)}
    return {
        "result": "ok",
        "swapped": True,
        "key": key,
        "records": result.records,
        "warnings": warnings,
        "snapshot": served.pointer(),
    }


class Reloader:
    """Runs rebuilds for `benchgraph serve` and publishes each outcome in the pointer file.

    Changes (from a watcher's threads) and SIGHUP only mark a rebuild as wanted; `tick`, on
    the main thread, runs it once the changes have settled, so a burst of writes (a git
    checkout, an editor's save) makes one rebuild."""

    def __init__(
        self,
        root: Path,
        job: Job,
        served: dict[str, Any],
        settle: float = SETTLE,
        watching: list[str] | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root
        self.job = job
        self.serving = served
        self.settle = settle
        self.watching = watching
        self.rebuilds = 0
        self.last: dict[str, Any] | None = None
        self.log = log or (lambda text: print(f"benchgraph: {text}", file=sys.stderr, flush=True))
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self._last_change = 0.0
        self._hangup = False
        self._proc: subprocess.Popen | None = None  # the builder
        self._stderr: deque[str] = deque(maxlen=20)  # its last lines
        self._stopping = False
        self.publish()

    def start(self) -> None:
        """Start the builder now, to scan while nothing is asked of it (serve --watch), so
        that the first edit's rebuild reads only what changed."""
        try:
            self._builder({"warm": True} | self.job.__dict__)
        except OSError:  # it did not start, or ended at once: the first rebuild says why
            self._proc = None

    # --- what asks for a rebuild -------------------------------------------------------
    def changed(self, paths: set[str]) -> None:
        """Files changed (called from the watcher's threads)."""
        with self._lock:
            self._changed |= paths
            self._last_change = time.monotonic()

    def hangup(self) -> None:
        """SIGHUP: rebuild now. Only sets a flag: a signal handler may not take locks."""
        self._hangup = True

    def tick(self) -> None:
        """Rebuild if asked to and the changes have settled (main thread)."""
        if self._stopping:
            return
        reason = None
        if self._hangup:
            self._hangup = False
            reason = "SIGHUP"
            self.job.changed = None  # the builder scans the folder whole
        with self._lock:
            settled = self._changed and time.monotonic() - self._last_change >= self.settle
            if settled or (reason and self._changed):
                changed, self._changed = sorted(self._changed), set()
                if not reason:  # the builder reads these files again, no others
                    self.job.changed = changed
                reason = f"{reason + '; ' if reason else ''}changed: {shown(changed)}"
        if reason:
            self.rebuild(reason)
        self.sweep()

    def stop(self) -> None:
        """Stop the builder, and a rebuild under way (the server is shutting down)."""
        self._stopping = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()

    # --- rebuilding ----------------------------------------------------------------------
    def rebuild(self, reason: str) -> dict[str, Any]:
        """One rebuild by the builder; publish what came of it."""
        started = time.time()
        self.job.serving_key = self.serving["key"]
        self.job.serving_left_out = sorted(self.serving["left_out"])
        outcome = self._run()
        if self._stopping:  # stopped on the way out: nothing to tell
            return outcome
        outcome |= {"at": started, "seconds": round(time.time() - started, 2), "reason": reason}
        self.rebuilds += 1
        self.last = outcome
        if outcome.get("snapshot"):
            self.serving = outcome.pop("snapshot")
            outcome["snapshot"] = self.serving["id"]
        self.publish()
        self._report(outcome)
        return outcome

    def _run(self) -> dict[str, Any]:
        """The job's outcome from the builder; a builder whose code changed is replaced and
        asked again."""
        for _ in range(2):
            outcome = self._ask(self.job.__dict__)
            if outcome.pop("ends", False) or outcome.get("result") == "restart":
                self._proc.wait()  # it ends after saying so
                self._proc = None
            if outcome.get("result") != "restart":
                return outcome
        return {"result": "failed", "error": "the builder's code kept changing"}

    def _builder(self, first: dict[str, Any] | None = None) -> subprocess.Popen:
        """The running builder, started if there is none (a first one, or one that ended)."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            return proc
        self._stderr.clear()
        proc = self._proc = subprocess.Popen(
            [sys.executable, "-m", "benchgraph.serving.reload"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
            text=True,
        )
        # read what it says on stderr as it says it: a full pipe would stop it
        self._stderr_reader = threading.Thread(
            target=lambda: self._stderr.extend(proc.stderr), name="builder-stderr", daemon=True
        )
        self._stderr_reader.start()
        if first is not None:
            proc.stdin.write(json.dumps(first) + "\n")
            proc.stdin.flush()
        return proc

    def _ask(self, job: dict[str, Any]) -> dict[str, Any]:
        """The builder's answer to one job; when it has none (it crashed, was killed, or
        did not start), what it last said on stderr."""
        try:
            proc = self._builder()
        except OSError as exc:
            return {"result": "failed", "error": f"the rebuild did not start: {exc}"}
        self._stderr.clear()  # what it says about this job
        try:
            proc.stdin.write(json.dumps(job) + "\n")
            proc.stdin.flush()
            return json.loads(proc.stdout.readline())
        except (OSError, ValueError):  # it ended before or while building
            pass
        proc.kill()
        code = proc.wait()
        self._stderr_reader.join(timeout=5)  # to its end: the last lines say why
        self._proc = None
        tail = "".join(self._stderr).strip()
        return {
            "result": "failed",
            "error": f"the rebuild process ended with exit code {code}"
            + (f": {tail}" if tail else ""),
        }

    def _report(self, outcome: dict[str, Any]) -> None:
        took = f"in {outcome['seconds']:g} s ({outcome['reason']})"
        serving = (
            f"snapshot {self.serving['key'][:12]} of "
            f"{time.strftime('%H:%M:%S', time.localtime(self.serving['built_at']))}, "
            f"{self.serving['records']} records"
        )
        if outcome["result"] == "ok":
            if outcome.get("swapped"):
                self.log(f"rebuilt {took}: now serving {serving}")
            else:
                self.log(f"rebuilt {took}: nothing changed; serving {serving}")
        elif outcome["result"] == "refused":
            lines = "\n  ".join(outcome["violations"])
            self.log(
                f"rebuild refused {took}: {len(outcome['violations'])} violation(s); "
                f"still serving {serving} whole:\n  {lines}\n  the rebuild would have "
                f"{outcome['would_leave_out']['text']}"
            )
        else:
            self.log(f"rebuild failed {took}: {outcome['error']}; still serving {serving}")

    def publish(self) -> None:
        snapshots.publish(
            self.root,
            {
                "snapshot": self.serving,
                "rebuilds": self.rebuilds,
                "last_rebuild": self.last,
                "watching": self.watching,
            },
        )

    def sweep(self) -> None:
        """Delete the snapshots no server process uses any more."""
        snapshots.sweep(self.root, self.serving["id"])


def main() -> int:
    """`python -m benchgraph.serving.reload`: the builder. One job a line on stdin, its
    outcome a line on stdout, until stdin ends; between jobs it remembers a scan of the data
    folder. A job marked "warm" (the first, as the server starts) is built and remembered
    without an answer. It ends, answering "restart", on a job that finds benchgraph's code or
    resources edited since it started."""
    # the server stops it (stdin ends, or SIGTERM); Ctrl-C, sent to the whole terminal's
    # process group, is the server's to handle
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    session = Session()
    code = _code_stamp()
    for line in sys.stdin:
        request = json.loads(line)
        warm = request.pop("warm", False)
        if _code_stamp() != code:
            if not warm:
                sys.stdout.write(json.dumps({"result": "restart"}) + "\n")
            return 0
        job = Job(**request)
        job.extra = [(p, iri) for p, iri in job.extra]
        session.scanned = ""
        if warm:
            _warm(job, session)
        else:
            outcome = run_job(job, session)
            # which builder, and whether it read only the told files or scanned them all
            outcome |= {"builder": os.getpid(), "scan": session.scanned or None}
            ends = _peak_bytes() > _end_above()
            sys.stdout.write(json.dumps(outcome | {"ends": ends}) + "\n")
            sys.stdout.flush()
            if ends:
                return 0
        session.remember()
    return 0


def _end_above() -> int:
    """Bytes of peak resident memory past which a builder ends after its answer, to give
    back what a large rebuild took (a cold build of 100k records peaks near 3 GB, and Python
    keeps what it freed); the next one starts afresh and scans in full once. An edit's
    rebuild at 100k stays far under the default, so the builder lives on."""
    raw = settings.raw("BUILDER_MAX_MB")
    return int(raw if raw else settings.SETTINGS["BUILDER_MAX_MB"].default) * 1024 * 1024


def _peak_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux counts in KiB


def _warm(job: Job, session: Session) -> None:
    """The served build, brought up to date (it is, unless something changed since the
    server built it) so that the session knows where its cache is; and its description's
    counts, kept per graph (serving/counts.py): each rebuild's description then counts
    only the graphs it changed (0.16-0.51 s at 100k runs, against 24-30 s from the store:
    benchmarks/reports/counts.md)."""
    from ..errors import BenchgraphError
    from ..pipeline.steps import build
    from .counts import totals

    try:
        result = build(Path(job.data), skip_invalid=True, session=session)
    except BenchgraphError:
        return  # the next rebuild meets it and says so
    if not job.extra:  # with outside graphs the description reads the store
        totals(result.store_path.parent, result.key, result.open(), start=True)


def _code_stamp() -> list[tuple[str, int, int]]:
    """Each file of benchgraph's code and resources, with its size and time: what a builder
    runs on, so it ends when one is edited."""
    package = Path(__file__).resolve().parent.parent
    stamp = []
    # resources/ holds symlinks to the repo's ontology/, shapes/ and others: followed; the
    # saved queries are read afresh by each rebuild (prepare), not run as code
    for folder, names, files in os.walk(package, followlinks=True):
        names[:] = sorted(n for n in names if n not in ("__pycache__", "queries"))
        for name in sorted(files):
            st = os.stat(os.path.join(folder, name))
            stamp.append((os.path.join(folder, name), st.st_size, st.st_mtime_ns))
    return stamp


if __name__ == "__main__":
    raise SystemExit(main())
