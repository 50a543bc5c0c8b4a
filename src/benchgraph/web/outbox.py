"""A response's writes that never wait on the client: what the socket does not take at once is
kept, in order, for the HTTP worker's main loop to send (httpworker.py), so that a client that
does not read holds no thread.

`Outbox` stands in for the socket gunicorn writes a response to (its `sendall` and `send`); every
other use goes to the socket itself. The bytes kept are the response's own objects (a view, not
a copy): the SPARQL endpoint hands over its whole answer as one `bytes`, already in memory. A
response written piece by piece (a dump streamed from a file) would keep growing what is
kept: past `cap` bytes its thread waits for the client, and so does every write while the
process keeps over its `Backlog` budget; never past the write deadline.
"""

from __future__ import annotations

import errno
import select
import socket
import threading
import time
from collections import deque
from typing import Any

CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class WriteTimeout(OSError):
    """The client did not read the answer within the write deadline (an EPIPE to gunicorn,
    which then drops the connection quietly)."""

    def __init__(self) -> None:
        super().__init__(errno.EPIPE, "the client did not read the answer in time")


class Backlog:
    """The bytes kept by every Outbox of a server process, against one budget."""

    def __init__(self, budget: int):
        self.budget = budget
        self.total = 0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.total += n

    def over(self) -> bool:
        return self.total > self.budget


class Outbox:
    """A socket whose writes are sent as far as the client takes them, the rest kept."""

    def __init__(
        self,
        sock: socket.socket,
        cap: int,
        backlog: Backlog,
        deadline: float,
        continued: bool = False,
    ):
        self.raw = sock
        self.cap = cap
        self.backlog = backlog
        self.deadline = deadline  # time.monotonic() past which a waiting write gives up
        self.continued = continued  # a 100 Continue was sent already (by the main loop)
        self.pending: deque[memoryview] = deque()
        self.size = 0  # bytes kept
        self.sent = 0  # bytes the socket took
        self.timed_out = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)

    def send(self, data: bytes, flags: int = 0) -> int:
        if self.continued and bytes(data) == CONTINUE:
            return len(data)  # gunicorn's, for an Expect the main loop has answered already
        self.sendall(data)
        return len(data)

    def sendall(self, data: bytes, flags: int = 0) -> None:
        view = memoryview(data if isinstance(data, bytes) else bytes(data)).cast("B")
        if not view:
            return
        # One write is taken whole (the endpoint's answer is one); the next waits while this
        # response keeps over `cap`. With every response of the process keeping over the
        # backlog's budget, this one is written while the thread waits, as gunicorn would.
        if self.size > self.cap:
            self.wait_below(self.cap)
        crowded = self.backlog.over()
        self.pending.append(view)
        self.size += len(view)
        self.backlog.add(len(view))
        self.flush()
        if crowded:
            self.wait_below(0)

    def flush(self) -> bool:
        """Send what the socket takes now; True once nothing is kept. Raises OSError (the
        client gone)."""
        while self.pending:
            view = self.pending[0]
            try:
                n = self.raw.send(view, socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                self.clear()
                raise
            self.sent += n
            self.size -= n
            self.backlog.add(-n)
            if n == len(view):
                self.pending.popleft()
            else:
                self.pending[0] = view[n:]
        return True

    def wait_below(self, most: int) -> None:
        """Wait for the client to take all but `most` bytes; WriteTimeout past the deadline."""
        poller = select.poll()
        poller.register(self.raw, select.POLLOUT)
        while self.size > most:
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.timed_out = True
                self.clear()
                raise WriteTimeout()
            poller.poll(min(left, 0.5) * 1000)
            self.flush()

    def clear(self) -> None:
        """Give up what is kept (the connection is dropped)."""
        self.pending.clear()
        self.backlog.add(-self.size)
        self.size = 0
