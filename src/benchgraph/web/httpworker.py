"""gunicorn's threaded worker, reading request heads without a thread and keeping a busy
kept-alive connection on its thread a moment.

Slow clients. gunicorn's gthread worker (27.x) waits up to 5 s for a connection's first byte,
then reads the request head on a pool thread with blocking reads and no deadline: a client
sending one header byte a second held a thread for as long as it liked, and 20 of them held
all 16, so an `ASK {}` waited 10-20 s behind them. gunicorn has no setting for a head
deadline or for connections per address (its advice is a buffering proxy in front), and its
gevent worker would put the query pool's threads and processes under monkey-patching; so
`LingeringWorker` reads every request head (a new connection's first, and each kept-alive
one's next) in the worker's main loop, non-blocking, beside gunicorn's own keep-alive
waiting, and hands the connection to a pool thread only once the whole head is there. A head
not whole HEADER_TIMEOUT seconds after the connection opened (or after its first byte, on a
kept-alive connection) is answered 408 and closed: one deadline for the whole head, which a
client sending a byte now and then cannot stretch. An address holding more than
MAX_CONNECTIONS_PER_CLIENT connections has the next one answered 429 at once and closed, so
one address cannot fill the worker's `worker_connections`. Both are in the one error shape
(errors.py) and counted on /metrics. A body is still read on the thread, as gunicorn reads it.

Lingering. gthread hands a kept-alive connection back to its main thread after every response
(a pipe write to wake it, a selector registration), and the main thread hands the next
request to a pool thread again (a second wake-up): on this 2-core machine that cost 0.06 ms a
request of the 0.25 ms gunicorn took for a trivial app, when the Oxigraph server answers a
point lookup in 0.2-0.4 ms. The worker waits up to LINGER for the connection's next request
on the thread that answered the last one, and serves it there if its head is whole by then;
past LINGER, or after MAX_IN_A_ROW requests, the connection goes back to the main loop, so a
thread is held at most LINGER by an idle or slow client and no busy client keeps one for good.
Everything else (timeouts, keep-alive limits, graceful stop) is gunicorn's.
"""

from __future__ import annotations

import errno
import json
import selectors
import socket
import time
from collections import Counter
from functools import partial
from http import HTTPStatus
from typing import Any

from gunicorn.workers.gthread import TConn, ThreadWorker

LINGER = 0.002  # seconds: a client sending its next query at once does so well within this
MAX_IN_A_ROW = 100
READ_SIZE = 64 * 1024
CLOSING_LINGER = 1.0  # seconds a refused connection is read and dropped before it is closed
# Used where the app has no setting (a plain WSGI app); the app's defaults are in web.DEFAULTS.
HEADER_TIMEOUT = 10.0
MAX_CONNECTIONS_PER_CLIENT = 32


class HeadConn(TConn):
    """A connection, with the request head read so far by the main loop."""

    def __init__(self, worker: LingeringWorker, *args: Any) -> None:
        super().__init__(*args)
        self.worker = worker
        self.head = bytearray()  # read by the main loop, not yet given to the parser
        self.searched = 0  # where the search for the head's end resumes
        self.deadline = 0.0
        self.whole = False  # the head is whole: the next enqueue goes to a thread
        self.address: str | None = None  # counted against the address's connections

    def init(self) -> None:
        super().init()
        self.give_head()

    def give_head(self) -> None:
        """Put the bytes the main loop read in front of the parser's."""
        if self.head and self.parser is not None:
            self.parser.unreader.unread(bytes(self.head))
            self.head.clear()
            self.searched = 0

    def close(self, graceful: bool = False) -> None:
        self.worker.release(self)
        super().close(graceful)


class LingeringWorker(ThreadWorker):
    """gthread, reading request heads in the main loop and serving a connection's
    back-to-back requests on one thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heads: dict[HeadConn, None] = {}  # mid-head, oldest deadline first
        self.closing: dict[socket.socket, float] = {}  # refused: drained until EOF or then
        self.per_address: Counter[str] = Counter()
        self.header_timeout = HEADER_TIMEOUT
        self.max_per_client = MAX_CONNECTIONS_PER_CLIENT
        # A TLS connection's head is read after its handshake, on a thread, as gunicorn does.
        self.read_heads = not self.cfg.is_ssl
        self.max_head = (
            self.cfg.limit_request_line
            + 2
            + self.cfg.limit_request_fields * (self.cfg.limit_request_field_size + 2)
            + 4
        )

    def load_wsgi(self) -> None:
        super().load_wsgi()
        config = getattr(self.wsgi, "config", {})
        self.header_timeout = float(config.get("HEADER_TIMEOUT", HEADER_TIMEOUT))
        self.max_per_client = int(
            config.get("MAX_CONNECTIONS_PER_CLIENT", MAX_CONNECTIONS_PER_CLIENT)
        )

    # --- connections per address ------------------------------------------------------
    def accept(self, listener: Any) -> None:
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        address = client_addr[0] if isinstance(client_addr, tuple) and client_addr else None
        if address is not None and self.max_per_client > 0:
            if self.per_address[address] >= self.max_per_client:
                self.refuse_connection(client_sock, address)
                return
            self.per_address[address] += 1
        self.nr_conns += 1
        client_sock.setblocking(True)
        conn = HeadConn(self, self.cfg, client_sock, client_addr, listener.getsockname())
        conn.address = address if self.max_per_client > 0 else None
        self.enqueue_req(conn)

    def release(self, conn: HeadConn) -> None:
        """A connection closes: its address holds one fewer."""
        if conn.address is not None:
            self.per_address[conn.address] -= 1
            if self.per_address[conn.address] <= 0:
                del self.per_address[conn.address]
            conn.address = None

    def refuse_connection(self, sock: socket.socket, address: str) -> None:
        """Answer 429 before reading anything, then read and drop what the client sends for
        a moment, so that it reads the answer rather than a reset, and close."""
        self.answer_raw(
            sock,
            429,
            "too many connections",
            f"{address} has {self.per_address[address]} connections open to this "
            f"server, its limit (MAX_CONNECTIONS_PER_CLIENT, serve "
            "--max-connections-per-client); close one, or reuse it",
        )
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.setblocking(False)
            self.poller.register(sock, selectors.EVENT_READ, partial(self.drain_closing, sock))
        except (OSError, ValueError, KeyError):
            sock.close()
            return
        self.closing[sock] = time.monotonic() + CLOSING_LINGER

    def drain_closing(self, sock: socket.socket, _fileobj: Any = None) -> None:
        try:
            if sock.recv(READ_SIZE):
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        self.close_closing(sock)

    def close_closing(self, sock: socket.socket) -> None:
        self.closing.pop(sock, None)
        try:
            self.poller.unregister(sock)
        except (OSError, KeyError, ValueError):
            pass
        sock.close()

    # --- request heads, read in the main loop ----------------------------------------
    def enqueue_req(self, conn: Any) -> None:
        """Give the connection to a pool thread once its request head is whole; until then
        the main loop reads it (`read_head`)."""
        if not self.read_heads or not isinstance(conn, HeadConn) or conn.whole:
            if isinstance(conn, HeadConn):
                conn.whole = False
            super().enqueue_req(conn)
            return
        if conn.parser is not None:  # a kept-alive connection: what was read ahead comes first
            conn.head[:0] = conn.parser.unreader.take_buffered()
        conn.deadline = time.monotonic() + self.header_timeout
        conn.sock.setblocking(False)
        if self.read_head(conn):
            return
        self.heads[conn] = None
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_head_readable, conn))

    def on_head_readable(self, conn: HeadConn, _fileobj: Any = None) -> None:
        if self.read_head(conn):
            self.heads.pop(conn, None)
            try:
                self.poller.unregister(conn.sock)
            except (OSError, KeyError, ValueError):
                pass

    def read_head(self, conn: HeadConn) -> bool:
        """Read what the socket holds, without waiting. True once the connection has left
        the main loop's hands: its head whole (off to a thread), refused, or closed."""
        while True:
            if self.head_complete(conn):
                conn.whole = True
                conn.data_ready = True  # gunicorn would otherwise wait for more on the thread
                self.enqueue_req(conn)
                return True
            if len(conn.head) > self.max_head:
                self.end_head(
                    conn,
                    431,
                    "request header fields too large",
                    f"the request head is over {self.max_head:,} bytes, this server's limit",
                )
                return True
            try:
                data = conn.sock.recv(READ_SIZE)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                data = b""
            if not data:  # the client left
                self.nr_conns -= 1
                conn.close()
                return True
            conn.head += data

    def head_complete(self, conn: HeadConn) -> bool:
        """Whether the head has ended (a blank line), or gunicorn's parser would refuse it
        from the bytes at hand: a bare LF, or a request line over its limit."""
        head = conn.head
        start = max(0, conn.searched - 3)
        conn.searched = len(head)
        if head.find(b"\r\n\r\n", start) >= 0 or head.find(b"\n\n", start) >= 0:
            return True
        line_end = head.find(b"\n")
        return line_end < 0 and len(head) - 2 > self.cfg.limit_request_line > 0

    def murder_pending(self) -> None:
        """gunicorn's, and the heads past their deadline (all of them once stopping), and
        refused connections past their moment."""
        super().murder_pending()
        now = time.monotonic()
        for conn in list(self.heads):
            if conn.deadline > now and self.alive:
                break
            del self.heads[conn]
            try:
                self.poller.unregister(conn.sock)
            except (OSError, KeyError, ValueError):
                pass
            if self.alive:
                self.end_head(
                    conn,
                    408,
                    "request timeout",
                    f"the request head was not all sent within "
                    f"{self.header_timeout:g} s (HEADER_TIMEOUT, serve "
                    "--header-timeout)",
                )
            else:
                self.nr_conns -= 1
                conn.close()
        for sock, until in list(self.closing.items()):
            if until <= now or not self.alive:
                self.close_closing(sock)

    def end_head(self, conn: HeadConn, status: int, title: str, detail: str) -> None:
        self.answer_raw(conn.sock, status, title, detail)
        self.nr_conns -= 1
        conn.close()

    def answer_raw(self, sock: socket.socket, status: int, title: str, detail: str) -> None:
        """An error answered without the app (no request to give it), in its one shape and
        counted as the app counts its errors; best effort, never waiting on the client."""
        body, headers = b"{}", []
        try:
            from .errors import error_body, reason
            from .hooks import browser_headers

            body = json.dumps(error_body(status, title, detail)).encode()
            site = getattr(self.wsgi, "extensions", {}).get("benchgraph")
            if site is not None:
                site.metrics.refused(reason(status, title), status)
            headers = browser_headers(self.wsgi.config)
        except Exception:  # a plain WSGI app without benchgraph's config: the bare answer
            pass
        head = [
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
            "Content-Type: application/json",
            f"Content-Length: {len(body)}",
            "Connection: close",
            "Access-Control-Allow-Origin: *",
            *(f"{name}: {value}" for name, value in headers),
        ]
        try:
            sock.setblocking(False)
            sock.send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        except OSError:
            pass

    # --- lingering --------------------------------------------------------------------
    def handle(self, conn: Any) -> Any:
        if isinstance(conn, HeadConn):
            conn.give_head()  # a kept-alive connection's next head (a new one's: in init)
        result = super().handle(conn)
        for _ in range(MAX_IN_A_ROW - 1):
            if result is not True or not self.alive:
                break
            if not self._next_head_here(conn):
                break
            result = super().handle(conn)
        return result

    def _next_head_here(self, conn: Any) -> bool:
        """Whether the connection's next request head is whole within LINGER; if not, the
        main loop reads it (a head not whole, or longer than READ_SIZE)."""
        if not self.read_heads:
            return _pending(conn) or _readable(conn.sock)
        pending = _buffered(conn)
        if pending is None:
            return False
        if not (pending or _readable(conn.sock)):
            return False
        try:
            peeked = conn.sock.recv(READ_SIZE, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            peeked = b""
        except OSError:
            return True  # let gunicorn's read find out what is wrong with it
        data = pending + peeked
        if not peeked and not pending:
            return True  # the end of the connection: gunicorn's read sees it at once
        return b"\r\n\r\n" in data or b"\n\n" in data


def _buffered(conn: Any) -> bytes | None:
    """The bytes already read past the last request, in gunicorn's buffer (27.x); None where
    a later gunicorn keeps them elsewhere (the connection then goes back to the main loop)."""
    try:
        return conn.parser.unreader.buf.getvalue()
    except AttributeError:
        return None


def _pending(conn: Any) -> bool:
    """Whether bytes already read past the last request wait in gunicorn's buffer."""
    return bool(_buffered(conn))


def _readable(sock: Any) -> bool:
    """Whether the socket has bytes (or its end) to read within LINGER; poll, not select,
    which cannot watch a descriptor past 1023."""
    import select

    poller = select.poll()
    try:
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(LINGER * 1000))
    except (OSError, ValueError):
        return True  # let gunicorn's read find out what is wrong with it
