"""One MLPerf run: the facts either reader finds (Run), and the run record written of them.

summary_results.json (mlperf_summary.py) and the LoadGen logs (mlperf_logs.py) give the same
fields; run_record() is the one writer, so a record reads the same from either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .common import (
    clean,
    key,
    slug,
)
from .normalise import Part


@dataclass
class System:
    """One system description, read and normalised."""

    id: str
    division: str
    submitter: str
    stem: str
    path: str
    data: dict[str, Any]
    parts: list[Part]
    per_node: int | None
    nodes: int | None
    record: dict[str, Any]
    fabric_unpublished: bool = False

    def omitted(self, count: int) -> list[str]:
        """What a run on this system leaves unsaid: parallelism always (MLPerf does not
        publish it), the accelerator interconnect where the description gives a placeholder."""
        return ["parallelism"] + (
            ["accelerator interconnect"] if count and self.fabric_unpublished else []
        )


@dataclass
class Run:
    """What a reader found of one run, before it becomes a record."""

    system: System
    bench_dir: str
    scen_dir: str
    scen: tuple
    division: str
    submitter: str
    model: tuple
    status: dict[str, Any]
    metric_id: str
    value: Any
    unit: str
    engine: Any
    version: Any
    accelerators: list
    count: int
    availability: Any
    software: Any
    settings: dict[str, Any] | None
    who: str
    measurements: list
    notes: list[str]
    source: Any


def run_record(rnd: str, run: Run) -> dict[str, Any]:
    """One run record, from summary_results.json or from the logs (the same fields)."""
    system, scen, model, status = run.system, run.scen, run.model, run.status
    record = {
        "id": slug(system.id, run.bench_dir, run.scen_dir),
        "title": f"MLPerf Inference {rnd} {run.division}: {run.bench_dir} {scen[0]} on "
        f"{system.record['name']} ({run.submitter})",
        "category": "inference/mlperf",
        "status": status["status"],
        "confidence": status["confidence"],
        "metric": run.metric_id,
        "value": run.value,
        "unit": run.unit,
        "model": model[0],
        "engine": run.engine,
        "engine_version": run.version,
        "accelerators": run.accelerators,
        "accelerator_count": run.count,
        "system": system.id,
        "scenario": scen[0],
        "division": run.division,
        "availability": run.availability or None,
        "submitter": run.submitter,
        "benchmark": run.bench_dir,
        "accuracy_target": model[1],
        "software": run.software,
        "settings": run.settings or None,
        "measured_by": run.who,
        "reproducible": status.get("reproducible"),
        "measurements": run.measurements or None,
        "omitted_by_source": system.omitted(run.count),
        "notes": " ".join(run.notes) or None,
        "source": run.source,
    }
    return {k: v for k, v in record.items() if v is not None}


def _run_accelerators(parts: list[Part], count: int) -> list:
    """A run's accelerators: the plain id of its one kind (with accelerator_count), or on a
    mixed system {id, count} for each kind, the run's total of it, from the source's own
    totals where they add up to the run's count; otherwise the plain ids (the record then
    warns that the kinds' counts are not known)."""
    if len(parts) > 1 and all(p.total for p in parts) and sum(p.total for p in parts) == count:
        return [{"id": p.id, "count": p.total} for p in parts]
    return [p.id for p in parts]


def _mixed_note(accelerators: list) -> list[str]:
    if len(accelerators) < 2:
        return []
    kinds = " and ".join(
        f"{a['count']} {a['id']}" if isinstance(a, dict) else a for a in accelerators
    )
    return [
        f"Run on several kinds of accelerator ({kinds}): no figure per accelerator is "
        "derived, as it would average over the kinds."
    ]


def _value(raw: Any) -> str | None:
    """A descriptive string as given (spaces normalised), or None for a placeholder."""
    if raw is None:
        return None
    text = clean(raw)
    return None if key(text) in ("", "n/a", "na", "none", "-", "tbd", "todo") else text
