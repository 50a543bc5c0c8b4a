"""gunicorn reads a request line only up to the server's limit, and in linear time.

gunicorn takes `limit_request_line` values of 1..8190 only (a larger one becomes 8190, too short
for a GET that carries a 64 KB query) or 0 for none at all; and with none its line reader
copies and searches the whole buffer again at every read, so a 16 MB path took 20 s before
the app saw it. `install()` makes gunicorn's pure-Python parser (cli/serve.py selects it) keep the
configured limit whatever its size and read the line once: a longer line is a 414 from
gunicorn as soon as the limit is passed, with nothing echoed.
"""

from __future__ import annotations

from typing import Any

# The longest method gunicorn takes (20 characters), two spaces, "?" and "HTTP/1.1".
REQUEST_LINE_OVERHEAD = 20 + 2 + 1 + 8


def request_line_limit(max_path: int, max_query_string: int) -> int:
    """The longest request line a server must read to hand the app a request within the app's
    limits (benchgraph.web.limits); anything longer the app would refuse anyway."""
    return max_path + max_query_string + REQUEST_LINE_OVERHEAD


def install() -> None:
    """Make gunicorn's HTTP/1 parser read request lines with `BoundedRequest`."""
    from gunicorn.http import parser

    parser.RequestParser.mesg_class = bounded_request_class()


def bounded_request_class() -> type:
    """gunicorn's Request with a line reader that keeps the limit as configured."""
    from gunicorn.http.errors import InvalidRequestLine, LimitRequestLine
    from gunicorn.http.message import Request

    class BoundedRequest(Request):
        """A request whose line may be as long as `limit_request_line`, read in one pass."""

        def read_line(
            self, unreader: Any, buf: bytearray, limit: int = 0
        ) -> tuple[bytes, bytearray]:
            # gunicorn passes its own copy of the limit, capped at 8190; the configured one
            # is the one the app's limits were set against.
            limit = self.cfg.limit_request_line
            start = 0  # where the search for the line's end resumes
            while True:
                idx = buf.find(b"\r\n", start)
                end = idx if idx >= 0 else len(buf)
                # RFC 9112 2.2: a bare LF is refused, as gunicorn does.
                if buf.find(b"\n", start, end) >= 0:
                    raise InvalidRequestLine("bare LF as line terminator")
                if idx >= 0:
                    if idx > limit > 0:
                        raise LimitRequestLine(idx, limit)
                    break
                if len(buf) - 2 > limit > 0:
                    raise LimitRequestLine(len(buf), limit)
                start = max(0, len(buf) - 1)  # a CRLF may be split between two reads
                self.read_into(unreader, buf)
            return bytes(buf[:idx]), bytearray(buf[idx + 2 :])

    return BoundedRequest
