"""For operators: /healthz (is it up, what was left out of the build) and /metrics."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from .site import Site

bp = Blueprint("ops", __name__)


@bp.route("/healthz")
def healthz() -> Response:
    """200 while query workers are alive; the dataset, left-out records and counters."""
    s: Site = current_app.extensions["benchgraph"]
    workers = s.pool.stats()
    healthy = workers["workers"] > 0
    response = jsonify({
        "ok": healthy,
        "status": "ok" if healthy else "no query workers",
        "dataset": s.key,
        "invalid_records": len(s.invalid_records),
        "invalid": s.invalid_records,
        "problems": s.problem_counts,
        "query_workers": workers,
        "query_timeout_s": current_app.config["QUERY_TIMEOUT"],
        "queries": s.metrics.snapshot(),
    })
    response.status_code = 200 if healthy else 503
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/metrics")
def metrics() -> Response:
    """Counters in the Prometheus text format."""
    s: Site = current_app.extensions["benchgraph"]
    workers = s.pool.stats()
    text = s.metrics.prometheus({
        "query_workers": workers["workers"], "query_workers_idle": workers["idle"],
        "query_worker_restarts": workers["restarts"],
        "invalid_records": len(s.invalid_records),
    })
    response = Response(text, mimetype="text/plain")
    response.headers["Cache-Control"] = "no-store"
    return response
