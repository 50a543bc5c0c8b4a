"""Running SPARQL on a store, with benchgraph's prefixes predeclared, and its answer shown
as a table, CSV, TSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import re

import pyoxigraph as ox

from ..namespaces import PREFIXES, pasteable
from .cells import spreadsheet_safe
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


def _csv_value(term) -> str:
    """A term as SPARQL's CSV results write it (IRI, literal's text, _:blank), made safe."""
    if term is None:
        return ""
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return spreadsheet_safe(term.value)


def render(result, fmt: str, limit: int | None = None, short_names: bool = False) -> str:
    """SELECT/ASK/CONSTRUCT results as table, csv, tsv or json text; a table of at most
    `limit` rows, saying how many there are; with `short_names`, csv, tsv and json write
    each IRI as the table does (short())."""
    if isinstance(result, ox.QueryBoolean):
        if fmt == "json":
            return json.dumps({"head": {}, "boolean": bool(result)})
        return "true" if result else "false"
    if isinstance(result, (ox.QueryTriples, list)):  # a remote store's: a list
        return ox.serialize(list(result), format=ox.RdfFormat.TURTLE, prefixes=PREFIXES).decode()
    variables = [v.value for v in result.variables]
    if fmt in ("csv", "tsv", "json") and short_names:
        return _short_text(result, variables, fmt)
    if fmt == "csv":  # written here, not by pyoxigraph, so no cell reads as a formula
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(variables)
        writer.writerows([_csv_value(sol[v]) for v in variables] for sol in result)
        return out.getvalue()
    if fmt in ("tsv", "json"):  # TSV writes a text quoted ("=..."): no spreadsheet runs it
        formats = {
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


XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
# literals SPARQL reads without quotes, by datatype: what TSV results write bare
BARE = {
    "integer": re.compile(r"[+-]?\d+"),
    "decimal": re.compile(r"[+-]?\d*\.\d+"),
    "boolean": re.compile(r"true|false"),
}


def _short_text(result, variables: list[str], fmt: str) -> str:
    """A SELECT's rows as SPARQL's CSV, TSV or JSON results would write them, but for each
    IRI, written as the table writes it (a prefixed name where one reads back)."""
    rows = [[sol[v] for v in variables] for sol in result]
    if fmt == "json":
        return json.dumps(
            {
                "head": {"vars": variables},
                "results": {
                    "bindings": [
                        {v: _json_term(t) for v, t in zip(variables, row) if t is not None}
                        for row in rows
                    ]
                },
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
    if fmt == "tsv":
        lines = ["\t".join(f"?{v}" for v in variables)]
        lines += ["\t".join("" if t is None else _tsv_term(t) for t in row) for row in rows]
        return "".join(line + "\n" for line in lines)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(variables)
    writer.writerows([spreadsheet_safe(short(t)) for t in row] for row in rows)
    return out.getvalue()


def _json_term(term) -> dict:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": short(term)}
    if isinstance(term, ox.Literal):
        out = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != XSD_STRING:
            out["datatype"] = term.datatype.value
        return out
    return {"type": "bnode", "value": getattr(term, "value", str(term))}


def _tsv_term(term) -> str:
    """A term in SPARQL's syntax, as TSV results write it: an IRI as short() does, a typed
    literal's datatype as a prefixed name too."""
    if isinstance(term, ox.Literal) and not term.language and term.datatype.value != XSD_STRING:
        bare = BARE.get(term.datatype.value.rpartition("#")[2])
        if term.datatype.value.startswith(XSD) and bare and bare.fullmatch(term.value):
            return term.value  # 4, 0.5, true: as SPARQL reads them
        return f"{ox.Literal(term.value)}^^{pasteable(term.datatype.value)}"
    if isinstance(term, ox.NamedNode):
        return short(term)
    return str(term)
