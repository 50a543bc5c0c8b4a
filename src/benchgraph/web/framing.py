"""Where an HTTP/1 request ends, from the bytes read so far: its head, then its body by
Content-Length or in chunks. The HTTP worker (httpworker.py) reads a whole request in its
main loop with this, so that a pool thread only ever parses bytes already in memory.

It reads only what framing needs (Content-Length, Transfer-Encoding, Expect) and leaves every
other judgement to gunicorn's parser, which sees the same bytes: a head gunicorn refuses (two
lengths, a length and chunks, a coding other than chunked last, a bare LF...) is framed here
as having no body, so that it reaches the parser at once and is refused there, from memory.
`whole` says whether bytes hold a whole request; `parser_status` is the status of a request
gunicorn's parser refused (answered in the one error shape).
"""

from __future__ import annotations

from dataclasses import dataclass

from gunicorn.http import errors as http_errors

CHUNK_LINE_MAX = 4096  # bytes of a chunk-size line (with extensions) or of a trailer line
HEX = frozenset(b"0123456789abcdefABCDEF")


class BadFraming(ValueError):
    """A chunked body that cannot be framed; the message says how."""


def head_end(buf: bytes | bytearray, start: int = 0) -> int | None:
    """The index just past the head's blank line, searching from `start`; None if not yet."""
    start = max(0, start - 3)
    ends = [i for i in (buf.find(b"\r\n\r\n", start), buf.find(b"\n\n", start)) if i >= 0]
    if not ends:
        return None
    i = min(ends)
    return i + (4 if buf.startswith(b"\r\n\r\n", i) else 2)


@dataclass
class Body:
    """How a request's body is framed: `length` bytes, or chunks (`chunked`), or none."""

    length: int = 0
    chunked: bool = False
    expects_continue: bool = False

    @classmethod
    def of(cls, head: bytes) -> Body:
        """The framing the head declares; no body where gunicorn would refuse the head."""
        lines = head.split(b"\r\n")
        version = lines[0].rsplit(b" ", 1)[-1]
        lengths: list[bytes] = []
        codings: list[bytes] = []
        expect = False
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon:
                continue
            name, value = name.lower(), value.strip()
            if name == b"content-length":
                lengths.append(value)
            elif name == b"transfer-encoding":
                codings += [c.strip().lower() for c in value.split(b",")]
            elif name == b"expect":
                expect = value.lower() == b"100-continue"
        expects = expect and version == b"HTTP/1.1"
        if codings:
            if lengths or codings[-1] != b"chunked" or version != b"HTTP/1.1":
                return cls()
            return cls(chunked=True, expects_continue=expects)
        if len(lengths) != 1 or not lengths[0].isdigit():
            return cls()
        return cls(length=int(lengths[0]), expects_continue=expects)

    @property
    def empty(self) -> bool:
        return not self.chunked and self.length == 0


class Chunks:
    """A chunked body's framing, followed as its bytes come: where it ends, and how many
    bytes of data it has carried."""

    def __init__(self, start: int):
        self.pos = start  # the next byte to frame
        self.left = 0  # bytes of data (then its CRLF) of the current chunk still to come
        self.trailers = False  # the last chunk has come: trailer lines, then a blank one
        self.size = 0  # bytes of data so far
        self.end: int | None = None  # where the body ends, once it has

    def advance(self, buf: bytes | bytearray) -> int | None:
        """Frame what `buf` holds past the last call; the end of the body once it has come.
        Raises BadFraming."""
        while self.end is None:
            if self.left:
                if len(buf) < self.pos + self.left + 2:
                    return None
                if buf[self.pos + self.left : self.pos + self.left + 2] != b"\r\n":
                    raise BadFraming("a chunk's data is not followed by CRLF")
                self.pos += self.left + 2
                self.left = 0
                continue
            i = buf.find(b"\r\n", self.pos, self.pos + CHUNK_LINE_MAX + 2)
            if i < 0:
                if len(buf) - self.pos > CHUNK_LINE_MAX:
                    raise BadFraming(f"a chunk line is over {CHUNK_LINE_MAX:,} bytes")
                return None
            line = bytes(buf[self.pos : i])
            self.pos = i + 2
            if self.trailers:
                if not line:
                    self.end = self.pos
                continue
            digits = line.split(b";", 1)[0].strip()
            if not digits or len(digits) > 16 or not set(digits) <= HEX:
                raise BadFraming(f"bad chunk size {digits[:20]!r}")
            size = int(digits, 16)
            if size == 0:
                self.trailers = True
            self.size += size
            self.left = size
        return self.end


def whole(data: bytes) -> bool:
    """Whether `data` starts with a whole request, its body too."""
    end = head_end(data)
    if end is None:
        return False
    body = Body.of(data[:end])
    if body.chunked:
        try:
            return Chunks(end).advance(data) is not None
        except BadFraming:
            return True  # gunicorn's parser refuses it from these bytes
    return len(data) >= end + body.length


def parser_status(exc: BaseException) -> int | None:
    """The status of a request gunicorn's parser refuses; None for another error."""
    e = http_errors
    if isinstance(exc, (e.InvalidResponseHeader, e.InvalidResponseHeaderName)):
        return None  # the app's header: gunicorn's 500
    if isinstance(exc, e.LimitRequestLine):
        return 414
    if isinstance(exc, e.LimitRequestHeaders):
        return 431
    if isinstance(exc, e.UnsupportedTransferCoding):
        return 501
    if isinstance(exc, e.ExpectationFailed):
        return 417
    refused = (
        e.InvalidRequestLine,
        e.InvalidRequestMethod,
        e.InvalidHTTPVersion,
        e.InvalidHeader,
        e.InvalidHeaderName,
        e.InvalidProxyLine,
        e.InvalidSchemeHeaders,
        e.ObsoleteFolding,
        e.InvalidChunkSize,
        e.ChunkMissingTerminator,
        e.InvalidChunkExtension,
    )
    return 400 if isinstance(exc, refused) else None
