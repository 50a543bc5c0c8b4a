"""Rebuilding while serving: `benchgraph serve` rebuilds on a change (--watch) or on SIGHUP,
and publishes the new snapshot for its server processes to swap in (see snapshots.py).

A rebuild that would leave out a record the served snapshot serves is refused: the served
snapshot stays whole, and the violations are published (on /healthz) and logged until they
are mended. Records left out already (a first start serves what conforms) may stay out.

Each rebuild runs in a fresh process (`python -m benchgraph.serving.reload`, a job as JSON
on stdin, its outcome as JSON on stdout): it reads the code, ontology and shapes afresh (an edited
ontology rebuilds everything, as a restart would), a crash in it cannot take the server
down, and the serving process keeps no build state. On the shipped data a rebuild after an
edit to an accelerator that 345 records link to took 0.7-1.6 s so (benchmarks/reports/
reload.md), about 0.3 s of it starting the new process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import snapshots

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


def run_job(job: Job) -> dict[str, Any]:
    """Build, judge against the served snapshot, prepare a new one if it passes: the outcome
    (result ok / refused / failed)."""
    from ..errors import VIOLATION, BenchgraphError
    from ..pipeline.steps import build
    from .prepare import prepare, serving_key

    extra = [(Path(p), iri) for p, iri in job.extra]
    queries = Path(job.queries) if job.queries else None
    try:
        result = build(Path(job.data), skip_invalid=True)
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
        self._proc: subprocess.Popen | None = None
        self._stopping = False
        self.publish()

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
        with self._lock:
            settled = self._changed and time.monotonic() - self._last_change >= self.settle
            if settled or (reason and self._changed):
                changed, self._changed = sorted(self._changed), set()
                shown = ", ".join(changed[:3]) + (
                    f" (+{len(changed) - 3})" if len(changed) > 3 else ""
                )
                reason = f"{reason + '; ' if reason else ''}changed: {shown}"
        if reason:
            self.rebuild(reason)
        self.sweep()

    def stop(self) -> None:
        """Stop a rebuild under way (the server is shutting down)."""
        self._stopping = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()

    # --- rebuilding ----------------------------------------------------------------------
    def rebuild(self, reason: str) -> dict[str, Any]:
        """One rebuild in a fresh process; publish what came of it."""
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
        command = [sys.executable, "-m", "benchgraph.serving.reload"]
        try:
            self._proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=os.environ | {"PYTHONUNBUFFERED": "1"},
            )
            out, err = self._proc.communicate(json.dumps(self.job.__dict__).encode())
        except OSError as exc:
            return {"result": "failed", "error": f"the rebuild did not start: {exc}"}
        finally:
            code = self._proc.returncode if self._proc else None
            self._proc = None
        try:
            return json.loads(out.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            tail = err.decode(errors="replace").strip().splitlines()[-20:]
            return {
                "result": "failed",
                "error": f"the rebuild process ended with exit code {code}"
                + (": " + "\n".join(tail) if tail else ""),
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
    """`python -m benchgraph.serving.reload`: one rebuild; the job on stdin, the outcome on
    stdout."""
    job = Job(**json.loads(sys.stdin.read()))
    job.extra = [(p, iri) for p, iri in job.extra]
    outcome = run_job(job)
    sys.stdout.write(json.dumps(outcome) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
