"""Running SPARQL on a store, with benchgraph's prefixes predeclared, and its answer shown
as a table, CSV, TSV or JSON."""

from __future__ import annotations

import json

import pyoxigraph as ox

from ..namespaces import PREFIXES, pasteable
from .text import check_depth


def run(store: ox.Store, text: str):
    """Run a query over the union of all graphs, with benchgraph's prefixes predeclared.

    Raises text.QueryTextError for text nested past the limit: pyoxigraph would overflow
    the stack and take the whole process down (near 5,000 levels), so the depth is checked
    first."""
    check_depth(text)
    return store.query(text, use_default_graph_as_union=True, prefixes=PREFIXES)


def short(term) -> str:
    """A term as a person reads it and a query takes it back: an IRI as a prefixed name
    (`acc:nvidia-h100-sxm`) or whole in <...> (a measurement's `...#measurement-1`, an
    outside IRI), a literal as its value."""
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return pasteable(term.value)
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def render(result, fmt: str, limit: int | None = None) -> str:
    """SELECT/ASK/CONSTRUCT results as table, csv, tsv or json text; a table of at most
    `limit` rows, saying how many there are."""
    if isinstance(result, ox.QueryBoolean):
        if fmt == "json":
            return json.dumps({"head": {}, "boolean": bool(result)})
        return "true" if result else "false"
    if isinstance(result, (ox.QueryTriples, list)):  # a remote store's: a list
        return ox.serialize(list(result), format=ox.RdfFormat.TURTLE, prefixes=PREFIXES).decode()
    variables = [v.value for v in result.variables]
    if fmt in ("csv", "tsv", "json"):
        formats = {
            "csv": ox.QueryResultsFormat.CSV,
            "tsv": ox.QueryResultsFormat.TSV,
            "json": ox.QueryResultsFormat.JSON,
        }
        return result.serialize(format=formats[fmt]).decode()
    rows, total = [], 0
    for sol in result:
        total += 1
        if limit is None or total <= limit:
            rows.append([_cell(sol[v]) for v in variables])
    widths = [max([len(v)] + [len(r[i]) for r in rows]) for i, v in enumerate(variables)]
    line = "  ".join(v.ljust(w) for v, w in zip(variables, widths)).rstrip()
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    shown = f"; the first {len(rows)} shown" if len(rows) < total else ""
    out.append(f"({total} row{'s' if total != 1 else ''}{shown})")
    return "\n".join(out)


# A literal in a table is at most this wide: a long one (a note, a title) is cut with an
# ellipsis and its line breaks shown as spaces, so columns stay readable. IRIs stay whole
# (they are what a reader copies); csv, tsv and json keep every value whole.
CELL_WIDTH = 80


def _cell(term) -> str:
    text = short(term)
    if not isinstance(term, ox.Literal):
        return text
    text = " ".join(text.split()) if any(c in text for c in "\n\r\t") else text
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "\u2026"
