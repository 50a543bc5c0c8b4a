"""gunicorn's threaded worker, reading whole requests and finishing answers without a thread,
and keeping a busy kept-alive connection on its thread a moment.

Slow clients. gunicorn's gthread worker (27.x) waits up to 5 s for a connection's first byte,
then reads the request head on a pool thread with blocking reads and no deadline: a client
sending one header byte a second held a thread for as long as it liked, and 20 of them held
all 16, so an `ASK {}` waited 10-20 s behind them. gunicorn has no setting for a head
deadline or for connections per address (its advice is a buffering proxy in front), and its
gevent worker would put the query pool's threads and processes under monkey-patching; so
`LingeringWorker` reads every whole request (a new connection's first, and each kept-alive
one's next) in the worker's main loop, non-blocking, beside gunicorn's own keep-alive
waiting, and hands the connection to a pool thread only once the request is all in memory:
the head, then its body by Content-Length or in chunks (framing.py). gunicorn's parser then
reads those bytes from memory (they are put back in front of its buffer), never the socket.
A head not whole HEADER_TIMEOUT seconds after the connection opened (or after its first byte,
on a kept-alive connection) is answered 408 and closed: one deadline for the whole head,
which a client sending a byte now and then cannot stretch. A body has one deadline too,
BODY_TIMEOUT seconds after its head plus its length at MIN_RATE bytes a second (a chunked
body's deadline moves on only as its bytes come at that rate); past it, a 408 and the
connection closed. A Content-Length over the app's MAX_CONTENT_LENGTH is a 413 at once, and
so is a chunked body as soon as it passes it (RequestLimits, limits.py, refuses the same on
its side). A request line over gunicorn's limit is a 414 as soon as it passes it. An address
holding more than MAX_CONNECTIONS_PER_CLIENT connections has the next one answered 429 at once
and closed, so one address cannot fill the worker's `worker_connections`; the address is the
socket's peer, never a header such as X-Forwarded-For, which a client writes itself. Every
refusal is in the one error shape (errors.py, gunicorn's own HTML pages included) and
counted on /metrics.

Answers nobody reads. gunicorn writes a response with blocking `sendall` on the thread: a
client that asked for a large answer and never read it held the thread until the timeout,
and 20 of them every thread. A response here is written through an `Outbox` (outbox.py):
what the socket takes at once is sent, the rest kept, and the thread goes back to the pool;
the main loop sends what is kept as the client reads it, then carries on as gunicorn would
(keep-alive or close). A client that has not taken it all WRITE_TIMEOUT seconds after the
thread finished, plus its size at MIN_RATE, is dropped (counted on /metrics) and what it held
freed. A query worker is never held by a writing client: the pool hands over a whole answer
(querypool.py) before it is written.

Lingering. gthread hands a kept-alive connection back to its main thread after every response
(a pipe write to wake it, a selector registration), and the main thread hands the next
request to a pool thread again (a second wake-up): on this 2-core machine that cost 0.06 ms a
request of the 0.25 ms gunicorn took for a trivial app, when the Oxigraph server answers a
point lookup in 0.2-0.4 ms. The worker waits up to LINGER for the connection's next request
on the thread that answered the last one, and serves it there if it is whole (head and body)
by then;
past LINGER, or after MAX_IN_A_ROW requests, the connection goes back to the main loop, so a
thread is held at most LINGER by an idle or slow client and no busy client keeps one for good.
Everything else (timeouts, keep-alive limits, graceful stop) is gunicorn's. The settings are
read from the app's config (rows of benchgraph/settings.py, set by `BENCHGRAPH_<NAME>` or a
`serve` flag); a plain WSGI app gets the defaults below.
"""

from __future__ import annotations

import errno
import selectors
import socket
import time
from collections import Counter
from concurrent.futures import Future
from functools import partial
from http import HTTPStatus
from typing import Any

from gunicorn.workers.gthread import TConn, ThreadWorker

from ..settings import SETTINGS
from .framing import BadFraming, Body, Chunks, head_end, parser_status, whole
from .outbox import CONTINUE, Backlog, Outbox

LINGER = 0.002  # seconds: a client sending its next query at once does so well within this
MAX_IN_A_ROW = 100
READ_SIZE = 64 * 1024
CLOSING_LINGER = 1.0  # seconds a refused connection is read and dropped before it is closed
# Used where the app has no setting (a plain WSGI app): the settings table's defaults
# (benchgraph/settings.py, which says what each one means).
HEADER_TIMEOUT = SETTINGS["HEADER_TIMEOUT"].default
MAX_CONNECTIONS_PER_CLIENT = SETTINGS["MAX_CONNECTIONS_PER_CLIENT"].default
BODY_TIMEOUT = SETTINGS["BODY_TIMEOUT"].default  # seconds for a body, plus its length at MIN_RATE
WRITE_TIMEOUT = SETTINGS["WRITE_TIMEOUT"].default  # to take an answer, plus its size at MIN_RATE
MIN_RATE = SETTINGS["MIN_RATE"].default  # bytes a second a body or an answer must move at
OUTBOX_CAP = 1024 * 1024  # bytes of one response kept before its next write waits
WRITE_BACKLOG = SETTINGS["WRITE_BACKLOG"].default  # bytes kept by all of a process's responses,
# before a next write waits: a bound on what unread answers hold, at worst the thread's deadline


class HeadConn(TConn):
    """A connection, with the request head read so far by the main loop."""

    def __init__(self, worker: LingeringWorker, *args: Any) -> None:
        super().__init__(*args)
        self.worker = worker
        self.head = bytearray()  # read by the main loop, not yet given to the parser
        self.searched = 0  # where the search for the head's end resumes
        self.deadline = 0.0
        self.whole = False  # the request is whole: the next enqueue goes to a thread
        self.address: str | None = None  # counted against the address's connections
        self.body: Body | None = None  # the body's framing, once the head is whole
        self.head_len = 0
        self.chunks: Chunks | None = None
        self.body_start = 0.0
        self.continued = False  # a 100 Continue was sent for this request
        self.outbox: Outbox | None = None  # a response's bytes the thread left to send

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
        if graceful:  # on the main loop (gunicorn's finish_request): drained there, not here
            self.worker.linger(self.sock)
        else:
            super().close()


class LingeringWorker(ThreadWorker):
    """gthread, reading request heads in the main loop and serving a connection's
    back-to-back requests on one thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heads: dict[HeadConn, None] = {}  # mid-head, oldest deadline first
        self.bodies: dict[HeadConn, None] = {}  # head whole, mid-body
        self.writing: dict[HeadConn, tuple[Outbox, Any]] = {}  # answers the thread left
        self.closing: dict[socket.socket, float] = {}  # refused: drained until EOF or then
        self.per_address: Counter[str] = Counter()
        self.header_timeout = HEADER_TIMEOUT
        self.max_per_client = MAX_CONNECTIONS_PER_CLIENT
        self.body_timeout = BODY_TIMEOUT
        self.write_timeout = WRITE_TIMEOUT
        self.min_rate = float(MIN_RATE)
        self.max_body: int | None = None
        self.backlog = Backlog(WRITE_BACKLOG)
        # A TLS connection is read and written on a thread after its handshake, as gunicorn
        # does.
        self.read_heads = not self.cfg.is_ssl
        # sendfile writes a file with blocking calls on the thread, past any Outbox; a file
        # is read and written in pieces instead.
        self.cfg.set("sendfile", False)
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
        self.body_timeout = float(config.get("BODY_TIMEOUT", BODY_TIMEOUT))
        self.write_timeout = float(config.get("WRITE_TIMEOUT", WRITE_TIMEOUT))
        self.min_rate = max(1.0, float(config.get("MIN_RATE", MIN_RATE)))
        body = config.get("MAX_CONTENT_LENGTH")
        self.max_body = None if body is None else int(body)
        self.backlog = Backlog(int(config.get("WRITE_BACKLOG", WRITE_BACKLOG)))

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
        self.linger(sock)

    def linger(self, sock: socket.socket) -> None:
        """Close after the answer: end the writing side, then read and drop what the client
        still sends until it closes or CLOSING_LINGER has passed, so that it reads the answer
        rather than a reset; on the main loop, never waiting."""
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

    # --- whole requests, read in the main loop ----------------------------------------
    def enqueue_req(self, conn: Any) -> None:
        """Give the connection to a pool thread once its request is whole; until then the
        main loop reads it (`read_request`)."""
        if not self.read_heads or not isinstance(conn, HeadConn) or conn.whole:
            if isinstance(conn, HeadConn):
                conn.whole = False
            super().enqueue_req(conn)
            return
        if conn.parser is not None:  # a kept-alive connection: what was read ahead comes first
            conn.head[:0] = conn.parser.unreader.take_buffered()
        conn.body, conn.chunks, conn.continued, conn.searched = None, None, False, 0
        conn.deadline = time.monotonic() + self.header_timeout
        conn.sock.setblocking(False)
        if self.read_request(conn):
            return
        (self.heads if conn.body is None else self.bodies)[conn] = None
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_readable, conn))

    def on_readable(self, conn: HeadConn, _fileobj: Any = None) -> None:
        self.read_request(conn)

    def forget(self, conn: HeadConn) -> None:
        """The main loop no longer reads the connection."""
        self.heads.pop(conn, None)
        self.bodies.pop(conn, None)
        try:
            self.poller.unregister(conn.sock)
        except (OSError, KeyError, ValueError):
            pass

    def read_request(self, conn: HeadConn) -> bool:
        """Read what the socket holds, without waiting. True once the connection has left
        the main loop's hands: its request whole (off to a thread), refused, or closed."""
        while True:
            if self.framed(conn):
                return True
            try:
                data = conn.sock.recv(READ_SIZE)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                data = b""
            if not data:  # the client left
                self.forget(conn)
                self.nr_conns -= 1
                conn.close()
                return True
            conn.head += data

    def framed(self, conn: HeadConn) -> bool:
        """Act on the bytes read so far: True once the request is whole and handed to a
        thread, or refused."""
        if conn.body is None:
            end = head_end(conn.head, conn.searched)
            conn.searched = len(conn.head)
            if self.line_too_long(conn.head if end is None else conn.head[:end]):
                self.end_request(conn, *self.uri_too_long())
                return True
            if end is None:
                if len(conn.head) > self.max_head:
                    self.end_request(
                        conn,
                        431,
                        "request header fields too large",
                        f"the request head is over {self.max_head:,} bytes, this server's limit",
                    )
                    return True
                return False
            conn.head_len = end
            conn.body = Body.of(bytes(conn.head[:end]))
            if not conn.body.empty and self.start_body(conn):
                return True
        body = conn.body
        if body.chunked and conn.chunks is not None:
            try:
                body_end = conn.chunks.advance(conn.head)
            except BadFraming as exc:
                self.end_request(conn, 400, "bad request", f"the chunked body is malformed: {exc}")
                return True
            if self.max_body is not None and conn.chunks.size > self.max_body:
                self.end_request(conn, *self.too_large("longer than that (sent in chunks)"))
                return True
            if body_end is None:
                conn.deadline = (
                    conn.body_start + self.body_timeout + conn.chunks.size / self.min_rate
                )
                return False
        elif len(conn.head) < conn.head_len + body.length:
            return False
        self.forget(conn)
        conn.whole = True
        conn.data_ready = True  # gunicorn would otherwise wait for more on the thread
        self.enqueue_req(conn)
        return True

    def start_body(self, conn: HeadConn) -> bool:
        """The head is whole and a body follows: refuse it at once if its length is over the
        limit, else give it its deadline (and the 100 Continue it asks for). True if
        refused."""
        body = conn.body
        assert body is not None
        if self.max_body is not None and not body.chunked and body.length > self.max_body:
            self.end_request(conn, *self.too_large(f"{body.length:,} bytes"))
            return True
        if conn in self.heads:
            del self.heads[conn]
            self.bodies[conn] = None
        conn.body_start = time.monotonic()
        conn.deadline = conn.body_start + self.body_timeout + body.length / self.min_rate
        if body.chunked:
            conn.chunks = Chunks(conn.head_len)
        if body.expects_continue and len(conn.head) == conn.head_len:
            try:
                conn.sock.send(CONTINUE)
                conn.continued = True
            except OSError:
                pass
        return False

    def line_too_long(self, head: bytes | bytearray) -> bool:
        """Whether the request line is over gunicorn's limit (ended or not)."""
        limit = self.cfg.limit_request_line
        if limit <= 0:
            return False
        line_end = head.find(b"\n")
        if line_end < 0:
            return len(head) - 2 > limit
        return line_end - (head[line_end - 1 : line_end] == b"\r") > limit

    def uri_too_long(self) -> tuple[int, str, str]:
        return (
            414,
            "uri too long",
            f"the request line is over {self.cfg.limit_request_line:,} bytes, the longest "
            "this server reads (its path and query string within MAX_PATH_BYTES and "
            "MAX_QUERY_STRING_BYTES, serve --max-path-kb and --max-query-string-kb); "
            "send a long query by POST",
        )

    def too_large(self, size: str) -> tuple[int, str, str]:
        from .limits import too_large

        refusal = too_large(self.max_body or 0, size)
        return refusal.status, refusal.title, refusal.detail

    def murder_pending(self) -> None:
        """gunicorn's, and the heads and bodies past their deadline (all of them once
        stopping), answers not taken in time, and refused connections past their moment."""
        super().murder_pending()
        now = time.monotonic()
        for conn in list(self.heads):
            if conn.deadline > now and self.alive:
                break
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
                self.forget(conn)
                self.nr_conns -= 1
                conn.close()
        for conn in list(self.bodies):
            if conn.deadline > now and self.alive:
                continue
            body = conn.body
            size = "in chunks" if body is None or body.chunked else f"of {body.length:,} bytes"
            self.end_request(
                conn,
                408,
                "request timeout",
                f"the request body ({size}) was not all sent in time: this server waits "
                f"{self.body_timeout:g} s (BODY_TIMEOUT) and a second more for every "
                f"{self.min_rate:,.0f} bytes (MIN_RATE)",
                code="body-timeout",
            )
        for conn, (box, _) in list(self.writing.items()):
            if box.deadline <= now:
                self.drop_writer(conn, "write-timeout")
        for sock, until in list(self.closing.items()):
            if until <= now or not self.alive:
                self.close_closing(sock)

    def end_head(self, conn: HeadConn, status: int, title: str, detail: str) -> None:
        self.forget(conn)
        self.answer_raw(conn.sock, status, title, detail)
        self.nr_conns -= 1
        conn.close()

    def end_request(
        self, conn: HeadConn, status: int, title: str, detail: str, code: str | None = None
    ) -> None:
        """Refuse a request whose client may still be sending: answer, then linger."""
        self.forget(conn)
        self.answer_raw(conn.sock, status, title, detail, code)
        self.nr_conns -= 1
        self.release(conn)
        self.linger(conn.sock)

    # --- answers, written as the client takes them ------------------------------------
    def handle_request(self, req: Any, conn: Any) -> Any:
        """gunicorn's, writing through an Outbox; what it keeps is left on the connection
        for the main loop."""
        if not self.read_heads or not isinstance(conn, HeadConn):
            return super().handle_request(req, conn)
        raw = conn.sock
        box = Outbox(
            raw,
            OUTBOX_CAP,
            self.backlog,
            time.monotonic() + self.write_timeout,
            conn.continued,
        )
        conn.continued = False
        conn.sock = box
        try:
            return super().handle_request(req, conn)
        finally:
            conn.sock = raw
            if box.size:
                conn.outbox = box
            elif box.timed_out:
                self.count_drop("write-timeout")

    def finish_request(self, conn: Any, fs: Any) -> None:
        """gunicorn's, once what the thread left to send is sent."""
        box = getattr(conn, "outbox", None)
        if box is None:
            super().finish_request(conn, fs)
            return
        conn.outbox = None
        if fs.cancelled() or fs.exception() is not None:
            box.clear()
            super().finish_request(conn, fs)
            return
        box.deadline = time.monotonic() + self.write_timeout + box.size / self.min_rate
        self.writing[conn] = (box, fs.result())
        try:
            conn.sock.setblocking(False)
            self.poller.register(conn.sock, selectors.EVENT_WRITE, partial(self.on_writable, conn))
        except (OSError, ValueError, KeyError):
            self.drop_writer(conn, None)
            return
        self.on_writable(conn)

    def on_writable(self, conn: HeadConn, _fileobj: Any = None) -> None:
        box, result = self.writing[conn]
        try:
            if not box.flush():
                return
        except OSError:
            self.drop_writer(conn, None)
            return
        del self.writing[conn]
        try:
            self.poller.unregister(conn.sock)
        except (OSError, KeyError, ValueError):
            pass
        done: Future = Future()
        done.set_result(result)
        super().finish_request(conn, done)

    def drop_writer(self, conn: HeadConn, reason: str | None) -> None:
        """Drop a connection whose answer is not taken (`reason`: counted) or cannot be
        sent, and free what it kept."""
        box, _ = self.writing.pop(conn, (None, None))
        if box is not None:
            box.clear()
        try:
            self.poller.unregister(conn.sock)
        except (OSError, KeyError, ValueError):
            pass
        if reason:
            self.count_drop(reason)
        self.nr_conns -= 1
        conn.close()

    def count_drop(self, reason: str) -> None:
        site = getattr(self.wsgi, "extensions", {}).get("benchgraph")
        if site is not None:
            site.metrics.dropped(reason)

    # --- gunicorn's refusals, in the one error shape -----------------------------------
    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """A request gunicorn's parser refuses, answered in the one error shape (gunicorn
        writes an HTML page); anything else as gunicorn does."""
        status = parser_status(exc)
        if status is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        if status == 414:
            self.answer_raw(client, *self.uri_too_long())
            return
        title = {
            417: "expectation failed",
            431: "request header fields too large",
            501: "not implemented",
        }
        self.answer_raw(
            client, status, title.get(status, "bad request"), f"{type(exc).__name__}: {exc}"
        )

    def answer_raw(
        self,
        sock: socket.socket,
        status: int,
        title: str,
        detail: str,
        code: str | None = None,
    ) -> None:
        """An error answered without the app (no request to give it), in its one shape and
        counted as the app counts its errors; best effort, never waiting on the client."""
        body, headers = b"{}", [("Content-Type", "application/json")]
        try:
            from .errors import written
            from .hooks import browser_headers

            site = getattr(self.wsgi, "extensions", {}).get("benchgraph")
            _status, headers, body = written(
                status, title, detail, code=code, metrics=site and site.metrics
            )
            headers += browser_headers(self.wsgi.config)
        except Exception:  # a plain WSGI app without benchgraph's config: the bare answer
            pass
        head = [
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
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
            if result is not True or not self.alive or getattr(conn, "outbox", None):
                break
            if not self._next_head_here(conn):
                break
            result = super().handle(conn)
        return result

    def _next_head_here(self, conn: Any) -> bool:
        """Whether the connection's next request (head and body) is whole within LINGER; if
        not, the main loop reads it (a request not whole, or longer than READ_SIZE)."""
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
        return whole(data)


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
