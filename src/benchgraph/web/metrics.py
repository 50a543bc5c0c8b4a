"""Basic metrics: queries answered by status, errors, timeouts, latency, and every error
answered by its reason (Prometheus text)."""

from __future__ import annotations

import threading
from collections import Counter

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """Counters of this server process; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_status: Counter[int] = Counter()
        self.by_form: Counter[str] = Counter()
        self.timeouts = 0
        self.latency_sum = 0.0
        self.latency_buckets = [0] * len(BUCKETS)
        self.refusals: Counter[tuple[str, int]] = Counter()
        self.drops: Counter[str] = Counter()

    def observe(
        self,
        status: int,
        seconds: float,
        form: str = "",
        timed_out: bool = False,
    ) -> None:
        """Count one answered query."""
        with self._lock:
            self.by_status[status] += 1
            if form:
                self.by_form[form] += 1
            self.timeouts += timed_out
            self.latency_sum += seconds
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    self.latency_buckets[i] += 1

    def refused(self, reason: str, status: int) -> None:
        """Count one error answered (errors.written calls this for every error)."""
        with self._lock:
            self.refusals[reason, status] += 1

    def dropped(self, reason: str) -> None:
        """Count one connection dropped without an answer (a client that did not read its
        answer in time: httpworker.py)."""
        with self._lock:
            self.drops[reason] += 1

    def snapshot(self) -> dict:
        """The counters as plain data (for /healthz)."""
        with self._lock:
            total = sum(self.by_status.values())
            errors = sum(n for s, n in self.by_status.items() if s >= 400)
            return {
                "queries": total,
                "errors": errors,
                "timeouts": self.timeouts,
                "mean_latency_s": round(self.latency_sum / total, 6) if total else None,
            }

    def prometheus(self, extra: dict[str, float]) -> str:
        """The counters in the Prometheus text format, plus `extra` gauges."""
        with self._lock:
            lines = [
                "# HELP benchgraph_queries_total SPARQL queries answered, by HTTP status.",
                "# TYPE benchgraph_queries_total counter",
            ]
            lines += [
                f'benchgraph_queries_total{{status="{s}"}} {n}'
                for s, n in sorted(self.by_status.items())
            ]
            lines += [
                "# HELP benchgraph_queries_by_form_total Queries run, by query form.",
                "# TYPE benchgraph_queries_by_form_total counter",
            ]
            lines += [
                f'benchgraph_queries_by_form_total{{form="{f}"}} {n}'
                for f, n in sorted(self.by_form.items())
            ]
            lines += [
                "# HELP benchgraph_query_timeouts_total Queries stopped at the time limit.",
                "# TYPE benchgraph_query_timeouts_total counter",
                f"benchgraph_query_timeouts_total {self.timeouts}",
                "# HELP benchgraph_query_seconds Time to answer a query.",
                "# TYPE benchgraph_query_seconds histogram",
            ]
            for bound, n in zip(BUCKETS, self.latency_buckets):
                lines.append(f'benchgraph_query_seconds_bucket{{le="{bound}"}} {n}')
            total = sum(self.by_status.values())
            lines += [
                f'benchgraph_query_seconds_bucket{{le="+Inf"}} {total}',
                f"benchgraph_query_seconds_sum {self.latency_sum:.6f}",
                f"benchgraph_query_seconds_count {total}",
            ]
            lines += [
                "# HELP benchgraph_refusals_total Errors answered, by reason and status.",
                "# TYPE benchgraph_refusals_total counter",
            ]
            lines += [
                f'benchgraph_refusals_total{{reason="{r}",status="{s}"}} {n}'
                for (r, s), n in sorted(self.refusals.items())
            ]
            lines += [
                "# HELP benchgraph_connections_dropped_total Connections dropped unanswered, "
                "by reason.",
                "# TYPE benchgraph_connections_dropped_total counter",
            ]
            lines += [
                f'benchgraph_connections_dropped_total{{reason="{r}"}} {n}'
                for r, n in sorted(self.drops.items())
            ]
        for name, value in sorted(extra.items()):
            lines += [f"# TYPE benchgraph_{name} gauge", f"benchgraph_{name} {value}"]
        return "\n".join(lines) + "\n"
