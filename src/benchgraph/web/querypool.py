"""A pool of query worker processes with a hard time and memory limit per query, in two lanes.

Each query runs in a worker process (queryworker.py). A request thread takes a slot of the
short lane, borrows an idle worker, sends the query and waits for the answer. While it
waits it watches the worker: past the deadline, over the memory limit, or once the client
has gone, the worker is killed, which really stops the query, and a fresh one takes its
place. A query still running after `long_after` seconds (0.1) moves to the long lane, if
that has room: its short slot is freed for the next query, and a worker takes its worker's
place among the short lane's; after `nice_after` (0.5) it is also lowered in CPU priority
while another query runs or waits.
Spare idle workers wait beyond the short lane's, so a cheap query finds one at once while
replacements start; workers beyond those (started as queries move to the long lane) are
stopped once idle for `idle_retire`. The long lane is capped, so heavy queries cannot take
every worker.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from .memory import MB, default_query_memory_mb, memory_detail, private_rss
from .poolerrors import ClientGone, PoolBusy, QueryOutOfMemory, QueryTimeout, WorkerDied

log = logging.getLogger(__name__)

# A query still running after LONG_QUERY seconds gets a lower CPU priority once another query
# of this pool runs or waits, so that cheap queries arriving meanwhile are not slowed by it
# (raising it again afterwards needs a privilege, without which its worker is replaced: so not
# sooner). Alone it keeps its priority: on a machine shared with other work, a lowered one
# ran a heavy query 2-3x slower with no query of its own to make way for.
LONG_QUERY = 0.5
LONG_QUERY_NICE = 10
# A query still running after LANE_AFTER seconds moves to the long lane, freeing its short
# slot: cheap queries take milliseconds, and a heavy one would hold a slot this long at most.
LANE_AFTER = 0.1
# A worker beyond the short lane's and the spares' that stayed idle this long is stopped: the
# pool grows as queries move to the long lane (a spawn each), keeps the workers while the load
# needs them, and shrinks when it has passed.
IDLE_RETIRE = 60.0
# A worker holding more private memory than this after a query is replaced by a fresh one
# (about 20 MB, started in 0.1 s of CPU): Oxigraph's caches grow with the data read, to
# 100-130 MB a worker after a heavy query at 100k runs, and the pool keeps several idle.
# It stays on, borrowed last, until its replacement has started: on a busy machine a start
# took a second or more, and killing it first left cheap queries waiting for a worker (2 s at
# load average 11, when their wait for a slot was 0.1 s at most).
RECYCLE_MB = 64
# How often a waiting request looks at its worker's memory and its client.
TICK = 0.05


@dataclass
class PoolSettings:
    """How to start workers, how long and how much memory a query may take, and the lanes.

    `size` queries run at once in the short lane, `long_size` more in the long lane, and
    `spare` idle workers wait beyond those to take over from a killed one at once."""

    store: str
    size: int = 4
    timeout: float = 30.0
    max_bytes: int = 64 * 1024 * 1024
    allow_service: tuple[str, ...] = ()
    startup_timeout: float = 60.0
    memory_mb: int = 0  # a worker's memory limit; 0 for none
    long_size: int = 0
    spare: int = 0
    long_after: float = LANE_AFTER
    nice_after: float = LONG_QUERY
    idle_retire: float = IDLE_RETIRE
    recycle_mb: int = RECYCLE_MB  # replace a worker left holding more; 0 for never
    # the query checks' settings (benchgraph/settings.py) the server was given, passed on
    query_settings: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class _Worker:
    proc: subprocess.Popen
    send: Connection
    recv: Connection
    niced: bool = False
    over_memory: bool = False
    long: bool = False  # runs a query of the long lane
    idle_since: float = 0.0
    stale: bool = False  # to be replaced (its caches grew); stays on until its replacement is
    retire: bool = False  # its replacement has started: stopped when its query ends
    # Two threads may stop one worker at once (close() and the thread whose query it was
    # running): the lock makes the second a no-op, not a second close of a reused fd.
    killing: threading.Lock = field(default_factory=threading.Lock)
    killed: bool = False


class QueryPool:
    """Worker processes, each with the store open read-only; thread-safe."""

    def __init__(self, settings: PoolSettings):
        self.settings = settings
        self.restarts = 0
        self._short = threading.Semaphore(settings.size)
        self._long = threading.Semaphore(settings.long_size)
        # Idle workers, the most recently used last: borrowed from the end, so the ones at the
        # front are those the load no longer needs.
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._stale: list[_Worker] = []  # to be stopped as their replacements start
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        self._long_busy = 0  # workers running a long-lane query
        self._starting = 0  # workers asked for and not started yet
        self._active = 0  # queries in run(): running, or waiting for a slot or a worker
        self._closed = False
        # Workers are started from one long-lived thread: Linux kills a worker when the thread
        # that started it ends (PR_SET_PDEATHSIG), and a request thread may end any time.
        self._jobs: queue.Queue = queue.Queue()
        self._spawner = threading.Thread(target=self._spawn_loop, name="query-spawner", daemon=True)
        self._spawner.start()
        # The short lane's and the spares only: a query moving to the long lane takes its
        # worker along and a spare takes its place at once while a replacement starts, so
        # long-lane workers started beforehand would only hold memory (each holds its own
        # store's caches: 8 of them doubled the server's memory).
        with self._lock:
            ready = [self._request_spawn() for _ in range(self._target())]
        for done in ready:
            error = done.get(timeout=settings.startup_timeout)
            if error is not None:
                self.close()
                raise error
        threading.Thread(target=self._retire_loop, name="query-retirer", daemon=True).start()

    # --- running queries --------------------------------------------------------------
    def run(
        self, request: dict, timeout: float | None = None, gone: Callable[[], bool] | None = None
    ) -> tuple[dict, bytes]:
        """Answer one query request: (header, body). Raises a PoolError subclass.

        `gone` tells whether the client has left; its query is then stopped."""
        timeout = self.settings.timeout if timeout is None else timeout
        start = time.monotonic()
        deadline = start + timeout
        message = json.dumps(request).encode()
        with self._lock:
            self._active += 1
        try:
            return self._run(message, start, deadline, timeout, gone)
        finally:
            with self._lock:
                self._active -= 1

    def _run(
        self,
        message: bytes,
        start: float,
        deadline: float,
        timeout: float,
        gone: Callable[[], bool] | None,
    ) -> tuple[dict, bytes]:
        self._enter_short(deadline, timeout, gone)
        slotted = time.monotonic() - start
        lane = [self._short]  # the lane whose slot this query holds; moves to the long one
        try:
            for _attempt in range(2):  # a worker found dead while idle is replaced, retried
                worker = self._borrow(deadline, timeout, gone)
                waited = time.monotonic() - start
                try:
                    worker.send.send_bytes(message)
                except OSError:
                    self._replace(worker)
                    continue
                header, body = self._receive(worker, start, deadline, timeout, gone, lane)
                header["wait_s"] = waited  # for Server-Timing: queued, not running
                header["slot_s"] = slotted  # of which for a slot (the rest: for a worker)
                return header, body
            raise WorkerDied("query workers keep dying; see the server log")
        finally:
            lane[0].release()

    def _enter_short(
        self, deadline: float, timeout: float, gone: Callable[[], bool] | None
    ) -> None:
        while not self._short.acquire(timeout=min(TICK, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise PoolBusy(
                    f"all {self.settings.size} query workers stayed busy for "
                    f"{timeout:g} s; try again later"
                )
            if gone is not None and gone():
                raise ClientGone("the client closed the connection while its query waited")

    def _borrow(self, deadline: float, timeout: float, gone: Callable[[], bool] | None) -> _Worker:
        while True:  # a slot was free, so a worker is idle or starting
            with self._returned:
                if not self._idle:
                    self._returned.wait(min(TICK, max(0.0, deadline - time.monotonic())))
                if self._idle:
                    return self._idle.pop()
            if time.monotonic() >= deadline:
                raise PoolBusy(f"no query worker came free within {timeout:g} s; try again later")
            if gone is not None and gone():
                raise ClientGone("the client closed the connection while its query waited")

    def _give_back(self, worker: _Worker) -> None:
        with self._returned:
            if worker.long:
                worker.long = False
                self._long_busy -= 1
            worker.idle_since = time.monotonic()
            if worker.stale:
                self._idle.insert(0, worker)  # borrowed last
            else:
                self._idle.append(worker)
            self._returned.notify()

    def _recycle(self, worker: _Worker) -> None:
        """Start a fresh worker to replace this one, which serves on until it has started."""
        with self._lock:
            worker.stale = True
            self._stale.append(worker)
            if not self._closed:
                self._request_spawn()
        self._give_back(worker)

    def _retire_stale(self) -> _Worker | None:
        """A replacement has started: the oldest stale worker to stop now, if idle; a busy
        one is stopped when its query ends (under _lock)."""
        while self._stale:
            old = self._stale.pop(0)
            if old not in self._all:
                continue  # stopped meanwhile (killed with its query, or retired idle)
            self.restarts += 1
            if old in self._idle:
                self._idle.remove(old)
                self._all.discard(old)
                return old
            old.retire = True
            return None
        return None

    def _to_long_lane(self, worker: _Worker) -> None:
        """The worker now counts in the long lane; another takes its place in the short."""
        with self._lock:
            worker.long = True
            self._long_busy += 1
            self._top_up()

    def _target(self) -> int:
        """Workers to keep outside the long lane: the short lane's and the spares."""
        return self.settings.size + self.settings.spare

    def _top_up(self) -> None:
        """Ask for workers until those outside the long lane reach the target (under _lock);
        a worker starting to replace a stale one does not count, nor does the stale one."""
        while (
            not self._closed
            and len(self._all) + self._starting - self._long_busy - len(self._stale)
            < self._target()
        ):
            self._request_spawn()

    def _forget(self, worker: _Worker) -> None:
        """The worker is stopped: it is no longer in the pool (under _lock)."""
        self._all.discard(worker)
        if worker in self._stale:
            self._stale.remove(worker)

    def _retire_loop(self) -> None:
        every = max(0.05, min(10.0, self.settings.idle_retire / 4))
        while True:
            time.sleep(every)
            retired = []
            with self._lock:
                if self._closed:
                    return
                now = time.monotonic()
                extra = len(self._all) - self._long_busy - self._target()
                while (
                    extra > 0
                    and self._idle
                    and now - self._idle[0].idle_since >= self.settings.idle_retire
                ):
                    worker = self._idle.pop(0)
                    self._forget(worker)
                    retired.append(worker)
                    extra -= 1
            for worker in retired:
                _kill(worker)

    def _receive(
        self,
        worker: _Worker,
        start: float,
        deadline: float,
        timeout: float,
        gone: Callable[[], bool] | None,
        lane: list[threading.Semaphore],
    ) -> tuple[dict, bytes]:
        s = self.settings
        try:
            while not worker.recv.poll(min(TICK, max(0.0, deadline - time.monotonic()))):
                now = time.monotonic()
                if now >= deadline:
                    self._replace(worker)
                    raise QueryTimeout(
                        f"the query ran longer than this server's limit of "
                        f"{timeout:g} s and was stopped"
                    )
                if s.memory_mb and private_rss(worker.proc.pid) > s.memory_mb * MB:
                    worker.over_memory = True
                    self._replace(worker)
                    raise self._out_of_memory()
                if gone is not None and gone():
                    self._replace(worker)
                    raise ClientGone("the client closed the connection; its query was stopped")
                if now - start >= s.nice_after and not worker.niced and self._active > 1:
                    _set_nice(worker, LONG_QUERY_NICE)  # short queries go first now
                if now - start >= s.long_after and lane[0] is self._short:
                    if self._long.acquire(blocking=False):  # else it stays in the short lane
                        self._short.release()
                        lane[0] = self._long
                        self._to_long_lane(worker)
            header = json.loads(worker.recv.recv_bytes())
            body = worker.recv.recv_bytes()
        except (EOFError, OSError):
            try:  # let a worker that is ending end, so that its exit status tells why
                worker.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
            self._replace(worker)
            if s.memory_mb and _ran_out_of_memory(worker):
                raise self._out_of_memory() from None
            raise WorkerDied("the query worker ended while answering; see the server log") from None
        if worker.retire:  # stale, and its replacement has started
            self._stop_retired(worker)
        elif header.get("retire"):  # the worker's own allocator failed: it may be damaged
            self._replace(worker)
        elif s.recycle_mb and not worker.stale and private_rss(worker.proc.pid) > s.recycle_mb * MB:
            self._recycle(worker)  # its caches grew: a fresh one holds a fifth of that
        elif worker.niced and not _set_nice(worker, 0):
            self._replace(worker)  # only a privileged process may raise priority again
        else:
            self._give_back(worker)
        return header, body

    def _out_of_memory(self) -> QueryOutOfMemory:
        return QueryOutOfMemory(memory_detail(self.settings.memory_mb))

    # --- workers ----------------------------------------------------------------------
    def _replace(self, worker: _Worker) -> None:
        """Kill a worker (stopping whatever it runs) and start another in its place, unless
        the pool has enough without it (it ran in the long lane, replaced when it moved)."""
        with self._lock:
            self._forget(worker)
            self.restarts += 1
            if worker.long:
                worker.long = False
                self._long_busy -= 1
            self._top_up()
        _kill(worker)

    def _stop_retired(self, worker: _Worker) -> None:
        with self._lock:
            self._forget(worker)
            if worker.long:
                worker.long = False
                self._long_busy -= 1
        _kill(worker)

    def _request_spawn(self) -> queue.Queue:
        """Ask the spawner for a worker (under _lock, or before other threads run)."""
        done: queue.Queue = queue.Queue(maxsize=1)
        self._starting += 1
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
                    with self._lock:
                        self._starting -= 1
                    done.put(exc)
            for done, worker in launched:
                error = self._await_ready(worker)
                stale = None
                with self._lock:
                    self._starting -= 1
                    if error is None and self._closed:
                        error = RuntimeError("the pool is closed")
                    if error is None:
                        self._all.add(worker)
                        stale = self._retire_stale()
                if stale is not None:
                    _kill(stale)
                if error is None:
                    self._give_back(worker)
                else:
                    log.error("query worker not started: %s", error)
                    _kill(worker)
                done.put(error)

    def _launch(self) -> _Worker:
        s = self.settings
        settings = json.dumps(
            {
                "store": s.store,
                "max_bytes": s.max_bytes,
                "allow_service": list(s.allow_service),
                "memory_mb": s.memory_mb,
                "timeout": s.timeout,
                "settings": s.query_settings,
                **_prefixes(),
            }
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "benchgraph.web.queryworker", settings],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
            # a failed allocation aborts the worker; a backtrace would only fill the log
            env=os.environ | {"RUST_BACKTRACE": "0"},
        )
        worker = _Worker(
            proc,
            Connection(os.dup(proc.stdin.fileno()), readable=False),
            Connection(os.dup(proc.stdout.fileno()), writable=False),
        )
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
            return RuntimeError(
                f"a query worker could not open the store "
                f"{self.settings.store} (its error is in the log above)"
            )
        return RuntimeError(f"a query worker did not start within {wait:g} s")

    # --- state ------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        """Workers alive, idle now, running a long-lane query now, and replaced so far."""
        with self._lock:
            return {
                "workers": len(self._all),
                "idle": len(self._idle),
                "long": self._long_busy,
                "restarts": self.restarts,
            }

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


def _prefixes() -> dict[str, dict[str, str]]:
    """The prefixes a worker needs, sent so that it need not import rdflib for them."""
    from ..namespaces import PREFIXES
    from ..store.export import DUMP_PREFIXES

    return {"prefixes": PREFIXES, "dump_prefixes": DUMP_PREFIXES}


def _ran_out_of_memory(worker: _Worker) -> bool:
    """Whether a worker that ended did so for want of memory: the watchdog killed it, or its
    allocator failed under the worker's data limit (Rust aborts then: SIGABRT)."""
    return worker.over_memory or worker.proc.returncode == -signal.SIGABRT


def _set_nice(worker: _Worker, nice: int) -> bool:
    """Set the worker's CPU priority; False where that is not allowed."""
    try:
        os.setpriority(os.PRIO_PROCESS, worker.proc.pid, nice)
    except OSError:
        return False
    worker.niced = nice != 0
    return True


def _kill(worker: _Worker) -> None:
    with worker.killing:
        if worker.killed:
            return
        worker.killed = True
        for conn in (worker.send, worker.recv):
            conn.close()
    if worker.proc.poll() is None:
        worker.proc.kill()
    worker.proc.wait()


def long_lane(size: int) -> int:
    """The long lane's width for a short lane of `size`: twice as many. A long query needs a
    worker more than a core (it runs at low priority), and while the long lane has room no
    long query holds a short slot: with closed-loop clients, slow queries pile up, and a
    narrower lane let them fill the short one (cheap queries then queued for seconds)."""
    return 2 * size


def default_memory_mb(processes: int, size: int) -> int:
    """The default memory limit of a query worker, in MB: half the machine's memory
    (physical or cgroup, whichever is less) over every query that can run at once, the
    short and long lanes of every server process."""
    return default_query_memory_mb(processes, size + long_lane(size))


def spares(size: int) -> int:
    """Idle workers kept beyond the short lane's `size`: enough to take over from queries
    moving to the long lane at once while their replacements start."""
    return max(1, size // 2)
