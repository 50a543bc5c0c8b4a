"""Running SPARQL on a store, with benchgraph's prefixes predeclared, and its answer shown
as a table, CSV, TSV or JSON."""

from __future__ import annotations

import json

import pyoxigraph as ox

from ..namespaces import PREFIXES
from .text import check_depth


def run(store: ox.Store, text: str):
    """Run a query over the union of all graphs, with benchgraph's prefixes predeclared.

    Raises text.QueryTextError for text nested past the limit: pyoxigraph would overflow
    the stack and take the whole process down (near 5,000 levels), so the depth is checked
    first."""
    check_depth(text)
    return store.query(text, use_default_graph_as_union=True, prefixes=PREFIXES)


def short(term) -> str:
    """A term as a person reads it: prefixed IRIs, plain literal values."""
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        iri = term.value
        for prefix, ns in sorted(PREFIXES.items(), key=lambda kv: -len(kv[1])):
            if iri.startswith(ns):
                return f"{prefix}:{iri[len(ns):]}"
        return iri
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def render(result, fmt: str) -> str:
    """SELECT/ASK/CONSTRUCT results as table, csv, tsv or json text."""
    if isinstance(result, ox.QueryBoolean):
        if fmt == "json":
            return json.dumps({"head": {}, "boolean": bool(result)})
        return "true" if result else "false"
    if isinstance(result, (ox.QueryTriples, list)):  # a remote store's: a list
        return ox.serialize(list(result), format=ox.RdfFormat.TURTLE,
                            prefixes=PREFIXES).decode()
    variables = [v.value for v in result.variables]
    if fmt in ("csv", "tsv", "json"):
        formats = {"csv": ox.QueryResultsFormat.CSV, "tsv": ox.QueryResultsFormat.TSV,
                   "json": ox.QueryResultsFormat.JSON}
        return result.serialize(format=formats[fmt]).decode()
    rows = [[_cell(sol[v]) for v in variables] for sol in result]
    widths = [max([len(v)] + [len(r[i]) for r in rows]) for i, v in enumerate(variables)]
    line = "  ".join(v.ljust(w) for v, w in zip(variables, widths)).rstrip()
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
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
    return text if len(text) <= CELL_WIDTH else text[:CELL_WIDTH - 1] + "\u2026"
