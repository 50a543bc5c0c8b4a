"""For operators: /healthz (is it up, which snapshot it serves, what the build left out, how
the last rebuild went) and /metrics."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from ..serving.snapshots import left_out_summary
from .site import Site

bp = Blueprint("ops", __name__)


@bp.route("/healthz")
def healthz() -> Response:
    """200 while query workers are alive; the dataset, left-out records and counters."""
    s: Site = current_app.extensions["benchgraph"]
    workers = s.pool.stats()
    healthy = workers["workers"] > 0
    refused = s.refused_rebuild()
    body = {
        # "degraded" (still 200: it answers) while what it serves is not what is on disk
        "ok": healthy and refused is None,
        "status": "no query workers" if not healthy else "degraded" if refused else "ok",
        "dataset": s.key,
        "snapshot": _snapshot(s),
        "rebuilds": s.reload.get("rebuilds", 0),
        "last_rebuild": _rebuild(s.reload.get("last_rebuild")),
        "watching": s.reload.get("watching"),
        "left_out": left_out_summary(s.left_out),
        "invalid_records": len(s.invalid_records),
        "invalid": s.invalid_records,
        "problems": s.problem_counts,
        "query_workers": workers,
        "query_timeout_s": current_app.config["QUERY_TIMEOUT"],
        "queries": s.metrics.snapshot(),
    }
    if refused is not None:
        body["degraded"] = {
            "reason": "the last rebuild was refused: the records on disk "
            "would leave out records this server serves",
            "files": refused["files"],
            "since": _when(refused["at"]),
        }
    if s.open_error:  # a newer snapshot this process could not open
        body["snapshot_not_opened"] = s.open_error | {"at": _when(s.open_error["at"])}
    response = jsonify(body)
    response.status_code = 200 if healthy else 503
    response.headers["Cache-Control"] = "no-store"
    return response


def _snapshot(s: Site) -> dict[str, Any]:
    """The served snapshot: its key, when it was built, how old it is."""
    snap = s.snapshot()
    built = snap.built_at if snap.built_at is not None else s.started
    return {
        "key": snap.key,
        "id": snap.id or None,
        "built_at": _when(built),
        "age_s": round(time.time() - built, 1),
        "records": snap.records,
    }


def _rebuild(last: dict[str, Any] | None) -> dict[str, Any] | None:
    """The last rebuild's account, with its time readable."""
    if not last:
        return None
    return last | {"at": _when(last["at"])}


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


@bp.app_context_processor
def banner() -> dict[str, Any]:
    """Every page's banner while a rebuild is refused: which files, since when."""
    s: Site = current_app.extensions["benchgraph"]
    refused = s.refused_rebuild()
    if refused is None:
        return {"refused": None}
    return {
        "refused": refused
        | {"since": datetime.fromtimestamp(refused["at"], UTC).strftime("%Y-%m-%d %H:%M:%S UTC")}
    }


@bp.route("/metrics")
def metrics() -> Response:
    """Counters in the Prometheus text format."""
    s: Site = current_app.extensions["benchgraph"]
    workers = s.pool.stats()
    text = s.metrics.prometheus(
        {
            "query_workers": workers["workers"],
            "query_workers_idle": workers["idle"],
            "query_worker_restarts": workers["restarts"],
            "invalid_records": len(s.invalid_records),
            "left_out_records": len(s.left_out),
            "snapshot_age_seconds": round(time.time() - (s.snapshot().built_at or s.started), 1),
            "rebuilds": s.reload.get("rebuilds", 0),
        }
    )
    response = Response(text, mimetype="text/plain")
    response.headers["Cache-Control"] = "no-store"
    return response
