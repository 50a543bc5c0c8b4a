"""gunicorn's threaded worker, keeping a busy kept-alive connection on its thread a moment.

gunicorn's gthread worker hands a kept-alive connection back to its main thread after every
response (a pipe write to wake it, a selector registration), and the main thread hands the
next request on that connection to a pool thread again (a second wake-up): on this 2-core
machine that cost 0.06 ms a request of the 0.25 ms gunicorn took for a trivial app, when the
Oxigraph server answers a point lookup in 0.2-0.4 ms. `LingeringWorker` waits up to LINGER for
the connection's next request on the thread that answered the last one, and serves it there;
past LINGER, or after MAX_IN_A_ROW requests, the connection goes back to the main loop as
before, so a thread is held at most LINGER by an idle client and no busy client keeps one
for good. Everything else (timeouts, keep-alive limits, graceful stop) is gunicorn's.
"""

from __future__ import annotations

import select
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

LINGER = 0.002  # seconds: a client sending its next query at once does so well within this
MAX_IN_A_ROW = 100


class LingeringWorker(ThreadWorker):
    """gthread, serving a connection's back-to-back requests on one thread."""

    def handle(self, conn: Any) -> Any:
        result = super().handle(conn)
        for _ in range(MAX_IN_A_ROW - 1):
            if result is not True or not self.alive:
                break
            if not _pending(conn) and not _readable(conn.sock):
                break
            result = super().handle(conn)
        return result


def _pending(conn: Any) -> bool:
    """Whether bytes already read past the last request wait in gunicorn's buffer (the next
    request: no wait for it). The buffer is gunicorn's own (27.x); where a later gunicorn
    keeps it elsewhere, the connection goes back to the main loop, as plain gthread does."""
    try:
        return bool(conn.parser.unreader.buf.getvalue())
    except AttributeError:
        return False


def _readable(sock: Any) -> bool:
    """Whether the socket has bytes (or its end) to read within LINGER; poll, not select,
    which cannot watch a descriptor past 1023."""
    poller = select.poll()
    try:
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(LINGER * 1000))
    except (OSError, ValueError):
        return True  # let gunicorn's read find out what is wrong with it
