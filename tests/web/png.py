"""Read the PNGs Chromium's screenshots are (8-bit RGB or RGBA, not interlaced) into rows of
pixels, so a test can look at what was drawn without an imaging library."""

from __future__ import annotations

import struct
import zlib


def read(data: bytes) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows, bytes per pixel) of a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows, channels


def count_colours(
    data: bytes,
    colours: list[str],
    box: tuple[int, int, int, int] | None = None,
    tolerance: int = 6,
) -> dict[str, int]:
    """How many pixels of each `#rrggbb` colour the PNG has (inside `box`: left, top, right,
    bottom), within `tolerance` per channel."""
    width, height, rows, channels = read(data)
    left, top, right, bottom = box or (0, 0, width, height)
    wanted = {c: tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in colours}
    counts = dict.fromkeys(colours, 0)
    for y in range(max(0, top), min(height, bottom)):
        row = rows[y]
        for x in range(max(0, left), min(width, right)):
            pixel = row[x * channels : x * channels + 3]
            for name, rgb in wanted.items():
                if all(abs(pixel[i] - rgb[i]) <= tolerance for i in range(3)):
                    counts[name] += 1
    return counts


def non_white(data: bytes) -> float:
    """The share of pixels that are not (near) white."""
    width, height, rows, channels = read(data)
    other = sum(
        1 for row in rows for x in range(width) if min(row[x * channels : x * channels + 3]) < 235
    )
    return other / (width * height)
