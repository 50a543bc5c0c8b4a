"""The results explorer at /explore: every run in one table, narrowed by facets (source and
round, division, model, benchmark, scenario, accuracy target, workload, precision, metric,
accelerator, vendor, count, fabric status, engine, record status), with the columns a user
picks, sorted by a figure only within one metric and unit, charted one comparable group at a
time, and downloaded as CSV or JSON exactly as shown. Every state is the page's URL. The rows
are results.py's, made once per served snapshot; a request only filters them. The run listing
(/id/benchmarks/) leads here with its filters (listing_href).
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for

from ..query.cells import spreadsheet_safe
from .errors import shorten
from .figures import figure
from .hooks import finish, int_arg, not_modified, page_format
from .results import FACETS, Figure, Result, Results, build_results
from .site import Site, Snapshot

log = logging.getLogger(__name__)

bp = Blueprint("explore", __name__)

PAGE, MAX_PAGE = 100, 1000  # rows a page shows; the most ?per= may ask
CHART_POINTS = 400  # the most bars or points a chart draws (it says when it draws fewer)
FACET_SHOWN = 10


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    figure: str | None = None  # a figure's attribute of Result: sorted within its groups
    facet: str | None = None  # else the facet it shows


COLUMNS = (
    Column("value", "value", figure="value"),
    Column("metric", "metric", facet="metric"),
    Column("perAccelerator", "per accelerator", figure="per_accelerator"),
    Column("power", "measured power", figure="power"),
    Column("efficiency", "efficiency", figure="efficiency"),
    Column("accelerator", "accelerator", facet="accelerator"),
    Column("vendor", "vendor", facet="vendor"),
    Column("count", "count", facet="count"),
    Column("fabric", "fabric status", facet="fabric"),
    Column("source", "source and round", facet="source"),
    Column("division", "division", facet="division"),
    Column("model", "model", facet="model"),
    Column("benchmark", "benchmark", facet="benchmark"),
    Column("scenario", "scenario", facet="scenario"),
    Column("target", "accuracy target", facet="target"),
    Column("workload", "workload", facet="workload"),
    Column("precision", "precision", facet="precision"),
    Column("engine", "engine", facet="engine"),
    Column("status", "record status", facet="status"),
)
BY_KEY = {c.key: c for c in COLUMNS}
DEFAULT_COLUMNS = ("value", "perAccelerator", "power", "efficiency", "accelerator", "count")
DEFAULT_COLUMNS += ("fabric", "source", "model", "scenario")
CHARTS = ("bar", "scatter", "none")


def results() -> Results:
    """The served snapshot's explorer rows (made once: ahead, or on first use)."""
    s: Site = current_app.extensions["benchgraph"]
    snapshot = s.snapshot()
    return snapshot.made("results", lambda: build_results(snapshot.store()))


def make_ahead(snapshot: Snapshot) -> None:
    """Make a snapshot's explorer rows as it is opened (a Site's on_open hook): at 100k runs
    they take tens of seconds, which no first visitor should wait for."""
    if snapshot.closed:
        return
    try:
        snapshot.made("results", lambda: build_results(snapshot.store()))
    except Exception:  # a store that is down: made on first use instead
        if snapshot.closed:  # served no more (swapped out, shut): its folder may be gone
            log.debug("snapshot %s closed before its explorer rows were made", snapshot.id)
            return
        log.exception("snapshot %s: explorer rows not made ahead", snapshot.id)


@bp.route("/explore")
def explore() -> Response:
    """The explorer: filtered, sorted, charted; as HTML, JSON or CSV (?format=)."""
    fmt = page_format()
    s: Site = current_app.extensions["benchgraph"]
    etag = s.etag("explore", fmt, request.query_string.decode("latin-1"))
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    table = results()
    state = _state(table)
    shown_cols = [BY_KEY[k] for k in state["cols"]]
    sort = BY_KEY[state["sort"]]
    kept = _sorted(table.select(table.keep(state["filters"])), sort, state["order"], table)
    if fmt == "json":
        return finish(_json([table.rows[i] for i in kept], shown_cols, state), etag)
    if fmt == "csv":
        return finish(_csv([table.rows[i] for i in kept], shown_cols), etag)
    per, page = state["per"], state["page"]
    pages = max(1, -(-len(kept) // per))
    page = min(page, pages)
    first = (page - 1) * per
    mixed = _mixed(kept, sort if sort.figure else BY_KEY["value"], table)
    body = render_template(
        "explore.html",
        total=len(kept),
        all=len(table.rows),
        rows=[table.rows[i] for i in kept[first : first + per]],
        first=(page - 1) * per + 1,
        page=page,
        pages=pages,
        columns=COLUMNS,
        shown=shown_cols,
        state=state,
        facets=_facet_views(table, state),
        facet_shown=FACET_SHOWN,
        mixed=mixed,
        sorted_by_figure=bool(sort.figure),
        groups=_headings(kept, first, per, sort, table) if sort.figure and mixed else {},
        chart=_chart(kept, state, table),
        href=lambda **change: _href(state, **change),
        cell=_cell,
        record_href=_record_href,
        figure=figure,
    )
    return finish(Response(body, mimetype="text/html"), etag)


# --- the run listing, in the explorer's shape -------------------------------------------------
# The run listing's (/id/benchmarks/, browse.py) filters and sorts that the explorer names
# alike; its `round` and `unit` become the explorer's source and metric values that hold them.
SAME_FACETS = ("accelerator", "vendor", "fabric", "model", "engine", "division", "scenario")
SAME_FACETS += ("status",)


def listing_href(args) -> str:
    """The explorer's URL for a run listing's query string `args`: its filters, sort, order
    and page, as the explorer spells them."""
    table = results()
    filters: dict[str, list[str]] = {}
    for facet in SAME_FACETS:
        if args.getlist(facet):
            names = table.names.get(facet, {})
            filters[facet] = [_listed_key(v, names) for v in args.getlist(facet)]
    rounds = args.getlist("round")
    if rounds:
        sources = table.names.get("source", {})
        kept = [k for k in sources if any(k == r or k.endswith(" " + r) for r in rounds)]
        filters["source"] = kept or rounds  # none holds it: no rows, as the listing had
    metrics, units = args.getlist("metric"), args.getlist("unit")
    if metrics or units:
        kept = [
            key
            for key in table.names.get("metric", {})
            if (not metrics or key.partition("|")[0] in metrics)
            and (not units or key.partition("|")[2] in units)
        ]
        filters["metric"] = kept or [f"{m}|{u}" for m in metrics or [""] for u in units or [""]]
    state = {"filters": filters, "chosen_cols": False}
    sort = {"round": "source"}.get(args.get("sort", ""), args.get("sort", ""))
    if sort in BY_KEY:
        state["sort"] = sort
        if args.get("order") in ("asc", "desc"):
            state["order"] = args["order"]
    for key in ("per", "page"):
        if (args.get(key) or "").isdigit():
            state[key] = int(args[key])
    return _href(state)


def _listed_key(value: str, names: dict[str, str]) -> str:
    """A listing's value as the explorer keys it: the same where it knows it, else a vendor
    named by text (`vendor=Acme Corp`) as the explorer keys a name: acme-corp."""
    return value if value in names else value.casefold().replace(" ", "-")


# --- the state in the URL -----------------------------------------------------------------
def _state(table: Results) -> dict:
    """What the URL asks: filters, columns, sort, page, chart. A bad value is a 400 saying
    which parameter and what it takes."""
    args = request.args
    filters = {f.key: args.getlist(f.key) for f in FACETS if args.getlist(f.key)}
    cols = [c for value in args.getlist("col") for c in value.split(",") if c]
    for c in cols:
        if c not in BY_KEY:
            abort(400, f"col: {shorten(c)!r} is not a column; columns: " + ", ".join(BY_KEY))
    sort = args.get("sort", "value")
    if sort not in BY_KEY:
        abort(400, f"sort: {shorten(sort)!r} is not a column; columns: " + ", ".join(BY_KEY))
    order = args.get("order", "desc" if BY_KEY[sort].figure else "asc")
    if order not in ("asc", "desc"):
        abort(400, f"order: {shorten(order)!r} is neither asc nor desc")
    chart = args.get("chart", "bar")
    if chart not in CHARTS:
        abort(400, f"chart: {shorten(chart)!r} is not one of " + ", ".join(CHARTS))
    y = args.get("y", "value")
    if y not in BY_KEY or not BY_KEY[y].figure:
        figures = ", ".join(c.key for c in COLUMNS if c.figure)
        abort(400, f"y: {shorten(y)!r} is not a figure column; figures: {figures}")
    return {
        "filters": filters,
        "cols": list(dict.fromkeys(cols)) or list(DEFAULT_COLUMNS),
        "chosen_cols": bool(cols),
        "sort": sort,
        "order": order,
        "chart": chart,
        "y": y,
        "group": args.get("group") or None,
        "per": int_arg("per", PAGE, 1, MAX_PAGE),
        "page": int_arg("page", 1, 1, 10**9),
    }


def _href(state: dict, **change) -> str:
    """This page's URL with `change` made to its state (None takes a parameter away)."""
    s = {"sort": "value", **state, **change}
    args = [(k, v) for k, values in s["filters"].items() for v in values]
    if s.get("chosen_cols") or "cols" in change:
        args += [("col", ",".join(s["cols"]))]
    defaults = {"sort": "value", "chart": "bar", "y": "value", "per": PAGE, "page": 1}
    for key in ("sort", "order", "chart", "y", "group", "per", "page", "format"):
        value = s.get(key)
        if value is None or defaults.get(key) == value:
            continue
        if key == "order" and value == ("desc" if BY_KEY[s["sort"]].figure else "asc"):
            continue
        args.append((key, str(value)))
    return url_for("explore.explore") + ("?" + urlencode(args) if args else "")


def _toggle(filters: dict[str, list[str]], facet: str, key: str | None) -> dict:
    out = {k: list(v) for k, v in filters.items()}
    if key is None:
        out.pop(facet, None)
    elif key in out.get(facet, []):
        out[facet].remove(key)
        if not out[facet]:
            del out[facet]
    else:
        out.setdefault(facet, []).append(key)
    return out


def _facet_views(table: Results, state: dict) -> list[dict]:
    chosen = state["filters"]
    views = []
    for f in FACETS:
        counts = table.counts(chosen, f.key)
        views.append(
            {
                "key": f.key,
                "label": f.label,
                "values": [
                    {
                        "key": key,
                        "label": label,
                        "count": n,
                        "chosen": key in chosen.get(f.key, []),
                        "href": _href(state, filters=_toggle(chosen, f.key, key), page=1),
                    }
                    for key, label, n in counts
                ],
                "clear": _href(state, filters=_toggle(chosen, f.key, None), page=1)
                if f.key in chosen
                else None,
            }
        )
    return views


# --- sorting: a figure only within its group --------------------------------------------------
def _figure(row: Result, column: Column) -> Figure | None:
    return getattr(row, column.figure) if column.figure else None


def _sorted(kept: list[int], column: Column, order: str, table: Results) -> list[int]:
    """The rows kept, sorted by `column` (results.Order: a figure within each group of one
    metric and unit, the groups one after another, rows without it last)."""
    ranks = table.orders[column.figure or column.facet]
    kept.sort(key=(ranks.desc if order == "desc" else ranks.asc).__getitem__)
    return kept


def _headings(kept: list[int], first: int, per: int, column: Column, table: Results):
    """Where on this page each group of the sorted figure starts: position -> its label."""
    group = table.orders[column.figure].group
    out = {}
    for at in range(first, min(first + per, len(kept))):
        g = group[kept[at]]
        if at == 0 or g != group[kept[at - 1]]:
            out[at] = _group_label(g, table) if g else f"no {column.label}"
    return out


def _sizes(kept: list[int], column: Column, table: Results) -> Counter:
    sizes = Counter(map(table.orders[column.figure].group.__getitem__, kept))
    sizes.pop(None, None)
    return sizes


def _mixed(kept: list[int], column: Column, table: Results) -> list[tuple[str, int]]:
    """The groups (metric and unit) the rows' figures of `column` fall in, with their sizes,
    when there are several: figures of different groups are never ranked against each other."""
    sizes = _sizes(kept, column, table)
    if len(sizes) < 2:
        return []
    return [(_group_label(g, table), n) for g, n in sizes.most_common()]


def _group_label(group: str, table: Results) -> str:
    if group in table.groups:
        return table.groups[group]
    what, _, unit = group.partition("|")
    names = {
        "per-accelerator": "per accelerator",
        "power-wall": "system power at the wall",
        "power-board": "one accelerator's board power",
    }
    return f"{names.get(what, what.replace('-', ' '))} ({unit})" if unit else what


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


# --- the chart: one comparable group --------------------------------------------------------
def _chart(kept: list[int], state: dict, table: Results) -> dict | None:
    """The chart's data: the filtered rows of one group (metric and unit) of the figure
    charted, in the table's order; the other groups offered as links."""
    if state["chart"] == "none":
        return None
    column = BY_KEY[state["y"]]
    sizes = _sizes(kept, column, table)
    if not sizes:
        return None
    group = state["group"] if state["group"] in sizes else None
    group = group or max(sizes, key=lambda g: (sizes[g], g))
    of = table.orders[column.figure].group
    charted = [table.rows[i] for i in islice((i for i in kept if of[i] == group), CHART_POINTS)]
    # runs held to different accuracy targets (MLPerf's 99 and 99.9) are told apart
    targets = len({r.labels("target") for r in charted}) > 1
    points = []
    for r in charted:
        f = _figure(r, column)
        points.append(
            {
                "label": _short(r) + (f" ({r.labels('target')})" if targets else ""),
                "title": r.label,
                "x": _number(r.labels("count")) if state["chart"] == "scatter" else None,
                "y": f.value,
                "shown": figure(f.value, f.unit),
                "series": r.labels("fabric") or "fabric status not stated",
                "href": _record_href(r),
            }
        )
    return {
        "type": state["chart"],
        "y": column.label,
        "group": _group_label(group, table),
        "caption": _caption(column.label, _group_label(group, table)),
        "unit": _figure(charted[0], column).unit,
        "total": sizes[group],
        "points": points,
        "others": [
            {"label": _group_label(g, table), "count": n, "href": _href(state, group=g)}
            for g, n in sizes.most_common()
            if g != group
        ],
    }


def _caption(charted: str, group: str) -> str:
    """What the chart draws: "Value, Throughput, tokens (tok/s)"; the group alone where it
    names the figure already ("Per accelerator (tok/s)", not "Per accelerator, per ...")."""
    if group.casefold().startswith(charted.casefold()):
        return group[:1].upper() + group[1:]
    return f"{charted.capitalize()}, {group}"


def _short(r: Result) -> str:
    """A bar's label: count, part, and what tells runs of one part apart (submitter's system
    is in the tooltip)."""
    count = r.labels("count")
    part = r.labels("accelerator") or r.label
    return f"{count}\u00d7 {part}" if count else part


# --- cells and downloads ----------------------------------------------------------------------
def _text(row: Result, column: Column) -> str:
    """A facet column's cell as the page, the CSV and the JSON all give it: its values' labels,
    the engine with its version as the source names it (TensorRT-LLM 0.17)."""
    text = row.labels(column.facet)
    if column.key == "engine" and row.version and text:
        text = f"{text} {row.version}"
    return text


def _cell(row: Result, column: Column) -> str:
    if column.figure:
        f = _figure(row, column)
        return figure(f.value, f.unit) if f else ""
    return _text(row, column)


def _record_href(row: Result) -> str:
    from .ld import _local_href  # the record pages' rule: this server's pages for its IRIs

    return _local_href(row.iri) or row.iri


def _json(rows: list[Result], columns: list[Column], state: dict) -> Response:
    """The rows as the page shows them, every figure whole (its literal and its unit)."""

    def value(r: Result, c: Column):
        if c.figure:
            f = _figure(r, c)
            return {"value": f.value, "unit": f.unit, "literal": f.text} if f else None
        return _text(r, c)

    body = {
        "total": len(rows),
        "filters": state["filters"],
        "columns": [c.key for c in columns],
        "sort": state["sort"],
        "order": state["order"],
        "rows": [
            {"id": r.id, "iri": r.iri, "label": r.label, **{c.key: value(r, c) for c in columns}}
            for r in rows
        ],
    }
    text = json.dumps(body, indent=1, ensure_ascii=False)
    return Response(text, mimetype="application/json")


def _csv(rows: list[Result], columns: list[Column]) -> Response:
    """The rows as the page shows them, a figure whole (its literal) with its unit beside it."""
    header = ["id", "label"]
    for c in columns:
        header += [c.key, f"{c.key} unit"] if c.figure else [c.key]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    for r in rows:
        line = [r.id, r.label]
        for c in columns:
            if c.figure:
                f = _figure(r, c)
                line += [f.text, f.unit] if f else ["", ""]
            else:
                line.append(_text(r, c))
        writer.writerow([spreadsheet_safe(x) for x in line])
    response = Response(buffer.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'inline; filename="explore.csv"'
    return response
