"""What rdflib's parser and Oxigraph's read apart in a query's characters, before any token:
line breaks of one grammar only, and `\\uXXXX` / `\\UXXXXXXXX` escapes, which rdflib reads
everywhere before parsing and Oxigraph only inside strings and IRIs. lexicon.py's pass reads the
escapes first (rdflib's way) and refuses those that could change how the text splits.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Line ends to some readers but to neither SPARQL grammar (which both refuse outside
# comments and strings): refused outside strings, so no comment can end early in one reader.
AMBIGUOUS_BREAKS = {
    "\f": "a form feed",
    "\v": "a vertical tab",
    "\x85": "a next-line (U+0085)",
    "\u2028": "a line separator (U+2028)",
    "\u2029": "a paragraph separator (U+2029)",
}
BREAKS = re.compile("[" + "".join(AMBIGUOUS_BREAKS) + "]")
BARE_CR = re.compile(r"\r(?!\n)")
# rdflib expands these everywhere before parsing, case-insensitively, greedily taking 8 hex
# digits after either letter; Oxigraph expands `\u` + 4 and `\U` + 8, inside strings and IRIs
# only. Both readings of every escape are checked.
ESCAPE = re.compile(r"\\[uU]([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})?")


def unsafe_escape(code: int) -> str:
    """Why an escaped code point could change how a parser splits the query; "" if it
    cannot."""
    if code > 0x10FFFF:
        return f"no character (U+{code:X} is past U+10FFFF)"
    if 0xD800 <= code <= 0xDFFF:
        return f"no character (U+{code:04X} is a surrogate)"
    char = chr(code)
    if code < 0x80 and not char.isalnum():
        return f"{char!r}, which has a role in the grammar"
    if char in AMBIGUOUS_BREAKS or 0x80 <= code < 0xA0:
        return f"{char!r}, a control or line-break character"
    return ""


class Decoded(NamedTuple):
    """The text with its escapes read (rdflib's reading), where each escape read stands
    (`at`: in the decoded text; `raw`, `size`: in the text as written) and the first one
    refused: its index in the text as written and in the decoded text, the escape and why it
    is refused."""

    text: str
    at: list[int]
    raw: list[int]
    size: list[int]
    refused: tuple[int, int, str, str] | None


def decode(text: str, whole: bool) -> Decoded:
    """Read the escapes, up to the first refused (past it: all but the refused, `whole`)."""
    if "\\" not in text:
        return Decoded(text, [], [], [], None)
    pieces, at, raw, size = [], [], [], []
    refused = None
    last = shift = 0
    for found in ESCAPE.finditer(text):
        # rdflib's reading first (8 digits when there are 8), then Oxigraph's (\u: 4)
        readings = [int(found[1] + (found[2] or ""), 16)]
        if found[2] and found[0][1] == "u":
            readings.append(int(found[1], 16))
        why = next((w for w in map(unsafe_escape, readings) if w), "")
        start = found.start()
        if why:
            if refused is None:
                refused = (start, start - shift, found[0], why)
            if not whole:
                break
            continue
        pieces += [text[last:start], chr(readings[0])]
        at.append(start - shift)
        raw.append(start)
        size.append(len(found[0]))
        shift += len(found[0]) - 1
        last = found.end()
    pieces.append(text[last:])
    return Decoded("".join(pieces), at, raw, size, refused)
