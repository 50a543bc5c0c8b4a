"""Browsing and search without SPARQL: `/id/` (the kinds, counted), `/id/<kind>/` (a kind's
records with their main facts, in pages, sortable, with facets and counts per value) and
`/search?q=` (labels, ids and aliases, ranked). Each list also as JSON and CSV. The runs'
page is the explorer's (explore.py): /id/benchmarks/ leads there with its filters.

All of it reads the snapshot's catalogue (catalogue.py), made once per served dataset.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from ..namespaces import pasteable
from ..query.cells import spreadsheet_safe
from .catalogue import KINDS, RUNS_COLUMN, Catalogue, Column, Kind, Row, Value
from .errors import shorten
from .hooks import finish, int_arg, not_modified, page_format
from .site import Site

bp = Blueprint("browse", __name__)

PAGE = 50  # rows per page
MAX_PAGE = 1000  # the most a page may be asked to hold (?per=)
FACET_SHOWN = 12  # values of a facet listed before "all N values"
# The columns of each kind's table on the page (the JSON and CSV give every column).
SHOWN = {
    "benchmarks": ("value", "accelerator", "fabric", "status", "round", "model", "engine"),
    "accelerators": (
        "vendor",
        "architecture",
        "memory",
        "formFactor",
        "fabric",
        "hostInterface",
        "runs",
    ),
    "systems": (
        "submitter",
        "accelerator",
        "nodes",
        "fabricPublished",
        "interconnect",
        "round",
        "runs",
    ),
}


def site() -> Site:
    return current_app.extensions["benchgraph"]


@bp.route("/id/")
def kinds() -> Response:
    """The kinds of record, each with how many the dataset holds."""
    fmt = page_format()
    etag = site().etag("kinds", fmt)
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    cat = site().catalogue()
    listed = [
        {
            "kind": k.name,
            "noun": k.noun,
            "count": cat.count(k.name),
            "href": url_for("browse.listing", kind=k.name),
        }
        for k in KINDS.values()
    ]
    if fmt == "json":
        return finish(
            Response(json.dumps({"kinds": listed}, indent=1), mimetype="application/json"), etag
        )
    if fmt == "csv":
        return finish(
            _csv(["kind", "count"], [[k["kind"], k["count"]] for k in listed], "kinds"), etag
        )
    return finish(Response(render_template("kinds.html", kinds=listed), mimetype="text/html"), etag)


@bp.route("/id/<kind>/")
def listing(kind: str) -> Response:
    """A kind's records: filtered by facet values, sorted, one page at a time."""
    if kind not in KINDS:
        abort(
            404,
            f"there is no kind of record called {shorten(kind)!r}; kinds: "
            + ", ".join(sorted(KINDS)),
        )
    spec = KINDS[kind]
    fmt = page_format()
    if kind == "benchmarks" and fmt == "html":
        # a person's list of runs is the explorer; JSON and CSV stay this list's, for scripts
        from .explore import listing_href

        return redirect(listing_href(request.args), 302)
    etag = site().etag("list", kind, fmt, request.query_string.decode("latin-1"))
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    cat = site().catalogue()
    columns = _columns(spec)
    facets = [c for c in columns if c.facet]
    chosen = {c.key: request.args.getlist(c.key) for c in facets if request.args.getlist(c.key)}
    rows = cat.rows.get(kind, [])
    matching = [r for r in rows if _keeps(r, chosen)]
    sort = request.args.get("sort", "label")
    if sort not in {"label", "id", *(c.key for c in columns)}:
        abort(
            400,
            f"sort: {shorten(sort)!r} is not a column of {kind}; columns: label, id, "
            + ", ".join(c.key for c in columns),
        )
    order = request.args.get("order", "desc" if _is_numeric(columns, sort) else "asc")
    if order not in ("asc", "desc"):
        abort(400, f"order: {shorten(order)!r} is neither asc nor desc")
    matching = _sorted(matching, sort, order == "desc", columns)
    if fmt == "json":
        return finish(_listing_json(kind, rows, matching, chosen, sort, order, columns), etag)
    if fmt == "csv":
        return finish(_listing_csv(kind, matching, columns), etag)
    return finish(_listing_html(kind, rows, matching, chosen, sort, order, columns), etag)


def _listing_json(kind, rows, matching, chosen, sort, order, columns) -> Response:
    """The listing as JSON: every matching row, values whole, and the facets' counts."""
    body = {
        "kind": kind,
        "total": len(matching),
        "filters": chosen,
        "sort": sort,
        "order": order,
        "rows": [_json_row(r, columns) for r in matching],
        "facets": {
            c.key: [
                {"key": v.key, "label": v.label, "count": n} for v, n in _facet(rows, chosen, c)
            ]
            for c in columns
            if c.facet
        },
    }
    return Response(json.dumps(body, indent=1, ensure_ascii=False), mimetype="application/json")


def _listing_csv(kind, matching, columns) -> Response:
    """The listing as CSV: every matching row, a number whole (its literal), not rounded."""
    header = ["id", "iri", "label", *(c.key for c in columns)]
    table = [
        [
            r.id,
            r.iri,
            r.label,
            *(
                " | ".join(v.key if c.numeric else v.label for v in r.values.get(c.key, []))
                for c in columns
            ),
        ]
        for r in matching
    ]
    return _csv(header, table, kind)


def _facet_views(kind, rows, chosen, sort, order, columns) -> list[dict]:
    """Each facet as the page shows it: its values counted among what the other filters
    keep, each a link that chooses or clears it."""
    views = []
    for c in columns:
        if not c.facet:
            continue
        counts = _facet(rows, chosen, c)
        views.append(
            {
                "key": c.key,
                "label": c.label,
                "count": len(counts),
                "values": [
                    {
                        "key": v.key,
                        "label": v.label,
                        "count": n,
                        "chosen": v.key in chosen.get(c.key, []),
                        "href": _href(kind, _toggle(chosen, c.key, v.key), sort, order),
                    }
                    for v, n in counts
                ],
                "clear": _href(kind, _toggle(chosen, c.key, None), sort, order)
                if c.key in chosen
                else None,
            }
        )
    return views


def _listing_html(kind, rows, matching, chosen, sort, order, columns) -> Response:
    """The listing's page: one page of the matching rows, the facets, sort and page links."""
    per = int_arg("per", PAGE, 1, MAX_PAGE)
    pages = max(1, -(-len(matching) // per))
    page = int_arg("page", 1, 1, pages)
    shown = [c for c in columns if c.key in SHOWN.get(kind, [c.key for c in columns])]

    def sort_href(key: str) -> str:
        if key == sort:
            return _href(kind, chosen, key, "desc" if order == "asc" else "asc")
        return _href(kind, chosen, key, "desc" if _is_numeric(columns, key) else "asc")

    return Response(
        render_template(
            "listing.html",
            kind=KINDS[kind],
            rows=matching[(page - 1) * per : page * per],
            total=len(matching),
            all=len(rows),
            page=page,
            pages=pages,
            per=per,
            first=(page - 1) * per + 1,
            columns=shown,
            facets=_facet_views(kind, rows, chosen, sort, order, columns),
            facet_shown=FACET_SHOWN,
            sort=sort,
            order=order,
            sort_href=sort_href,
            page_href=lambda n: _href(kind, chosen, sort, order, page=n, per=per),
            format_href=lambda f: _href(kind, chosen, sort, order, format=f),
            clear_all=_href(kind, {}, sort, order) if chosen else None,
            value_href=_value_href,
            record_href=_record_href,
            pasteable=pasteable,
        ),
        mimetype="text/html",
    )


@bp.route("/search")
def search() -> Response:
    """Records whose label, id or aliases hold every word of `q`, best first."""
    fmt = page_format()
    q = request.args.get("q", "")
    etag = site().etag("search", fmt, request.query_string.decode("latin-1"))
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    cat = site().catalogue()
    limit = int_arg("limit", PAGE, 1, MAX_PAGE)
    found = cat.index.search(q, limit=None) if q.strip() else []
    hits = [
        {
            "kind": _kind_of(row),
            "id": row.id,
            "iri": row.iri,
            "label": row.label,
            "href": _record_href(row),
            "matched": why,
            "score": round(score, 2),
            "aliases": row.aliases,
            "facts": _facts(row, cat),
        }
        for score, row, why in found[:limit]
    ]
    if fmt == "json":
        return finish(
            Response(
                json.dumps(
                    {"q": q, "total": len(found), "results": hits}, indent=1, ensure_ascii=False
                ),
                mimetype="application/json",
            ),
            etag,
        )
    if fmt == "csv":
        return finish(
            _csv(
                ["kind", "id", "iri", "label", "matched"],
                [[h["kind"], h["id"], h["iri"], h["label"], h["matched"]] for h in hits],
                "search",
            ),
            etag,
        )
    return finish(
        Response(
            render_template(
                "search.html",
                q=q,
                hits=hits,
                total=len(found),
                limit=limit,
                more=url_for("browse.search", q=q, limit=min(MAX_PAGE, limit * 4))
                if len(found) > limit
                else None,
                format_href=lambda f: url_for("browse.search", q=q, format=f),
            ),
            mimetype="text/html",
        ),
        etag,
    )


# --- helpers -----------------------------------------------------------------------------
def _columns(spec: Kind) -> list[Column]:
    return [*spec.columns, RUNS_COLUMN] if spec.uses else list(spec.columns)


def _keeps(row: Row, chosen: dict[str, list[str]]) -> bool:
    """Whether a row has, for every facet filtered on, one of the values chosen."""
    return all(any(v.key in keys for v in row.values.get(key, [])) for key, keys in chosen.items())


def _facet(
    rows: list[Row], chosen: dict[str, list[str]], column: Column
) -> list[tuple[Value, int]]:
    """Each value of a facet with how many rows have it, among the rows the other facets'
    filters keep (so a facet's own values stay choosable), most first."""
    others = {k: v for k, v in chosen.items() if k != column.key}
    counts: Counter[str] = Counter()
    seen: dict[str, Value] = {}
    for row in rows:
        if not _keeps(row, others):
            continue
        for v in row.values.get(column.key, []):
            counts[v.key] += 1
            seen.setdefault(v.key, v)
    return [
        (seen[k], n)
        for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], seen[kv[0]].label.casefold()))
    ]


def _sorted(rows: list[Row], key: str, reverse: bool, columns: list[Column]) -> list[Row]:
    if key in ("label", "id"):
        return sorted(rows, key=lambda r: getattr(r, key).casefold(), reverse=reverse)
    numeric = _is_numeric(columns, key)

    def value(row: Row):
        values = row.values.get(key)
        if not values:
            return (1, 0.0, "")  # rows without the fact last, either way
        first = values[0]
        if numeric:
            return (0, first.number if first.number is not None else 0.0, "")
        return (0, 0.0, first.label.casefold())

    having = [r for r in rows if r.values.get(key)]
    lacking = [r for r in rows if not r.values.get(key)]
    return sorted(having, key=lambda r: (value(r), r.label.casefold()), reverse=reverse) + lacking


def _is_numeric(columns: list[Column], key: str) -> bool:
    return any(c.key == key and c.numeric for c in columns)


def _toggle(chosen: dict[str, list[str]], key: str, value: str | None) -> dict[str, list[str]]:
    """The filters with `value` of facet `key` added or taken away (None: the facet off)."""
    out = {k: list(v) for k, v in chosen.items()}
    if value is None:
        out.pop(key, None)
    elif value in out.get(key, []):
        out[key].remove(value)
        if not out[key]:
            del out[key]
    else:
        out.setdefault(key, []).append(value)
    return out


def _href(kind: str, chosen: dict[str, list[str]], sort: str, order: str, **more) -> str:
    args = [(k, v) for k, values in sorted(chosen.items()) for v in values]
    if sort != "label" or order != "asc":
        args += [("sort", sort), ("order", order)]
    args += [(k, str(v)) for k, v in more.items() if v not in (None, "")]
    base = url_for("browse.listing", kind=kind)
    return base + ("?" + urlencode(args) if args else "")


def _value_href(value: Value) -> str | None:
    """A value's own page, where it is a record or a term of this server."""
    from .ld import _local_href  # the record pages' rule: this server's pages for its IRIs

    return _local_href(value.iri) if value.iri else None


def _record_href(row: Row) -> str:
    from .ld import _local_href

    return _local_href(row.iri) or row.iri


def _kind_of(row: Row) -> str:
    from .ld import _kind_of

    return _kind_of(row.iri)


def _facts(row: Row, cat: Catalogue) -> list[str]:
    """A few of a row's facts, as words, for a search result."""
    kind = _kind_of(row)
    keys = SHOWN.get(kind, [c.key for c in _columns(KINDS[kind])] if kind in KINDS else [])
    labels = {c.key: c.label for c in _columns(KINDS[kind])} if kind in KINDS else {}
    numeric = {c.key for c in _columns(KINDS[kind]) if c.numeric} if kind in KINDS else set()
    out = []
    for key in list(keys)[:4]:
        values = row.values.get(key)
        if not values:
            continue
        if key == "value" and row.values.get("unit"):
            out.append(f"{values[0].label} {row.values['unit'][0].label}")
        elif key in numeric:  # a bare number says nothing: "memory (GB) 141"
            out.append(f"{labels[key]} {values[0].label}")
        else:
            out.append(", ".join(v.label for v in values[:3]))
    return out


def _json_row(row: Row, columns: list[Column]) -> dict:
    out: dict = {"id": row.id, "iri": row.iri, "label": row.label}
    for c in columns:
        values = row.values.get(c.key, [])
        if c.numeric:
            out[c.key] = values[0].number if values else None
        else:
            out[c.key] = [({"label": v.label, "iri": v.iri} if v.iri else v.label) for v in values]
    if row.aliases:
        out["aliases"] = row.aliases
    return out


def _csv(header: list[str], rows: list[list], name: str) -> Response:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([spreadsheet_safe(c) if isinstance(c, str) else c for c in r] for r in rows)
    response = Response(buffer.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'inline; filename="{name}.csv"'
    return response
