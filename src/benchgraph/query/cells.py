"""A CSV cell no spreadsheet runs: one rule for every CSV benchgraph writes (`query --format
csv`, a listing's, the endpoint's text/csv; bg-chartdata.js has its twin for the chart's).
Nothing of the package is imported here, so the query workers read it without rdflib."""

from __future__ import annotations

import csv
import io
import re

# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...) opens
# a link; DDE can start a program): OWASP's "CSV injection" advice is to write such a text with
# a leading apostrophe, which the spreadsheet shows as text. A number (-5, +1e3) is left as it
# is: it is a value, not a formula, and a plain number is what the cell should read.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """`text` as a CSV cell no spreadsheet runs: a leading ' before a formula's first char."""
    if not text.startswith(FORMULA_STARTS):
        return text
    try:
        float(text)
    except ValueError:
        return "'" + text
    return text


# where a cell may start like a formula: at the start of a line or after a comma, quoted or not
_MAYBE = re.compile(rb'(?:^|[,\n])"?[=+\-@\t\r]')


def safe_csv(body: bytes) -> bytes:
    """SPARQL CSV results (RFC 4180, CRLF) with every cell made spreadsheet-safe; the bytes
    unchanged where no cell could start like a formula (a quick look, no parse)."""
    if not _MAYBE.search(body):
        return body
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in csv.reader(io.StringIO(body.decode("utf-8"), newline="")):
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return out.getvalue().encode("utf-8")
