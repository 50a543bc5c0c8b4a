"""A pool of query worker processes with a hard timeout per query.

Each query runs in a worker process (queryworker.py). A request thread borrows an idle
worker, sends the query and waits for the answer until the deadline; past it, the worker is
killed, which really stops the query, and a fresh one takes its place. Queries never share a
worker, so a runaway query leaves the others to the remaining workers; and a query that runs
long is lowered in CPU priority, so it does not slow the short ones either.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

log = logging.getLogger(__name__)

# A query still running after LONG_QUERY seconds gets a lower CPU priority, so that cheap
# queries arriving meanwhile are not slowed by it.
LONG_QUERY = 0.5
LONG_QUERY_NICE = 10


class PoolError(Exception):
    """The pool gave a query no answer: it timed out, every worker was busy, or its worker
    died."""

    status = 500
    title = "query failed"


class QueryTimeout(PoolError):
    """The query ran past its time limit and was stopped."""

    status = 503
    title = "query timed out"


class PoolBusy(PoolError):
    """Every worker stayed busy until the request's deadline."""

    status = 503
    title = "server busy"


class WorkerDied(PoolError):
    """The worker process ended while answering (killed from outside, out of memory)."""

    status = 500
    title = "query worker died"


@dataclass
class PoolSettings:
    """How to start workers and how long a query may take."""

    store: str
    size: int = 4
    timeout: float = 30.0
    max_bytes: int = 64 * 1024 * 1024
    allow_service: tuple[str, ...] = ()
    startup_timeout: float = 60.0


@dataclass(eq=False)
class _Worker:
    proc: subprocess.Popen
    send: Connection
    recv: Connection
    niced: bool = False


class QueryPool:
    """Worker processes, each with the store open read-only; thread-safe."""

    def __init__(self, settings: PoolSettings):
        self.settings = settings
        self.restarts = 0
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        # Workers are started from one long-lived thread: Linux kills a worker when the thread
        # that started it ends (PR_SET_PDEATHSIG), and a request thread may end any time.
        self._jobs: queue.Queue = queue.Queue()
        self._spawner = threading.Thread(target=self._spawn_loop, name="query-spawner",
                                         daemon=True)
        self._spawner.start()
        ready = [self._request_spawn() for _ in range(settings.size)]
        for done in ready:
            error = done.get(timeout=settings.startup_timeout)
            if error is not None:
                self.close()
                raise error

    # --- running queries --------------------------------------------------------------
    def run(self, request: dict, timeout: float | None = None) -> tuple[dict, bytes]:
        """Answer one query request: (header, body). Raises a PoolError subclass."""
        timeout = self.settings.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        message = json.dumps(request).encode()
        for _attempt in range(2):  # a worker found dead while idle is replaced, then retried
            worker = self._borrow(deadline, timeout)
            try:
                worker.send.send_bytes(message)
            except OSError:
                self._replace(worker)
                continue
            return self._receive(worker, deadline, timeout)
        raise WorkerDied("query workers keep dying; see the server log")

    def _borrow(self, deadline: float, timeout: float) -> _Worker:
        try:
            return self._idle.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise PoolBusy(f"all {self.settings.size} query workers stayed busy for "
                           f"{timeout:g} s; try again later") from None

    def _receive(self, worker: _Worker, deadline: float, timeout: float) -> tuple[dict, bytes]:
        try:
            if not worker.recv.poll(min(LONG_QUERY, max(0.0, deadline - time.monotonic()))):
                _set_nice(worker, LONG_QUERY_NICE)  # short queries go first from now on
                if not worker.recv.poll(max(0.0, deadline - time.monotonic())):
                    self._replace(worker)
                    raise QueryTimeout(f"the query ran longer than this server's limit of "
                                       f"{timeout:g} s and was stopped")
            header = json.loads(worker.recv.recv_bytes())
            body = worker.recv.recv_bytes()
        except (EOFError, OSError):
            self._replace(worker)
            raise WorkerDied("the query worker ended while answering; see the server log"
                             ) from None
        if worker.niced and not _set_nice(worker, 0):
            self._replace(worker)  # only a privileged process may raise priority again
        else:
            self._idle.put(worker)
        return header, body

    # --- workers ----------------------------------------------------------------------
    def _replace(self, worker: _Worker) -> None:
        """Kill a worker (stopping whatever it runs) and start another in its place."""
        with self._lock:
            self._all.discard(worker)
            self.restarts += 1
        _kill(worker)
        if not self._closed:
            self._request_spawn()

    def _request_spawn(self) -> queue.Queue:
        done: queue.Queue = queue.Queue(maxsize=1)
        self._jobs.put(done)
        return done

    def _spawn_loop(self) -> None:
        while True:
            jobs = [self._jobs.get()]
            while not self._jobs.empty():  # start a burst of workers side by side
                jobs.append(self._jobs.get())
            if None in jobs:
                return
            launched = []
            for done in jobs:
                try:
                    launched.append((done, self._launch()))
                except OSError as exc:
                    log.error("query worker not started: %s", exc)
                    done.put(exc)
            for done, worker in launched:
                error = self._await_ready(worker)
                if error is None:
                    with self._lock:
                        if self._closed:
                            error = RuntimeError("the pool is closed")
                        else:
                            self._all.add(worker)
                if error is None:
                    self._idle.put(worker)
                else:
                    log.error("query worker not started: %s", error)
                    _kill(worker)
                done.put(error)

    def _launch(self) -> _Worker:
        s = self.settings
        settings = json.dumps({"store": s.store, "max_bytes": s.max_bytes,
                               "allow_service": list(s.allow_service)})
        proc = subprocess.Popen(
            [sys.executable, "-m", "benchgraph.web.queryworker", settings],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True,
        )
        worker = _Worker(proc, Connection(os.dup(proc.stdin.fileno()), readable=False),
                         Connection(os.dup(proc.stdout.fileno()), writable=False))
        proc.stdin.close()
        proc.stdout.close()
        return worker

    def _await_ready(self, worker: _Worker) -> Exception | None:
        wait = self.settings.startup_timeout
        try:
            if worker.recv.poll(wait):
                json.loads(worker.recv.recv_bytes())
                return None
        except (EOFError, OSError, ValueError):
            return RuntimeError(f"a query worker could not open the store "
                                f"{self.settings.store} (its error is in the log above)")
        return RuntimeError(f"a query worker did not start within {wait:g} s")

    # --- state ------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        """Workers alive, idle now, and replaced so far."""
        with self._lock:
            return {"workers": len(self._all), "idle": self._idle.qsize(),
                    "restarts": self.restarts}

    def pids(self) -> list[int]:
        """The process ids of the workers alive now."""
        with self._lock:
            return sorted(w.proc.pid for w in self._all)

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
        self._jobs.put(None)
        for worker in workers:
            _kill(worker)


def _set_nice(worker: _Worker, nice: int) -> bool:
    """Set the worker's CPU priority; False where that is not allowed."""
    try:
        os.setpriority(os.PRIO_PROCESS, worker.proc.pid, nice)
    except OSError:
        return False
    worker.niced = nice != 0
    return True


def _kill(worker: _Worker) -> None:
    for conn in (worker.send, worker.recv):
        conn.close()
    if worker.proc.poll() is None:
        worker.proc.kill()
    worker.proc.wait()
