"""One MLPerf run: the facts either reader finds (Run), and the run record written of them.

summary_results.json (mlperf_summary.py) and the LoadGen logs (mlperf_logs.py) give the same
fields; run_record() is the one writer, so a record reads the same from either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .common import clean, key, slug
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
class Where:
    """A result's place in the checkout (<division>/<submitter>/results/<system>/<benchmark>/
    <scenario>) and the system description it names."""

    system: System
    division: str
    submitter: str
    bench_dir: str
    scen_dir: str


@dataclass
class Software:
    """A run's engine, as the tables name it, and who measured it (which can hang on it)."""

    engine: Any
    version: Any
    text: str | None  # the software as described, for the record
    who: str


@dataclass
class Run:
    """What a reader found of one run, before it becomes a record."""

    at: Where
    scen: tuple
    model: tuple
    software: Software
    headline: tuple[str, Any, str]  # metric, value, unit
    accelerators: list
    count: int
    availability: Any
    inferred: bool
    settings: dict[str, Any] | None
    measurements: list
    notes: list[str]
    source: Any


def run_record(rnd: str, run: Run, status: dict[str, Any]) -> dict[str, Any]:
    """One run record, from summary_results.json or from the logs (the same fields)."""
    at, scen, model, sw = run.at, run.scen, run.model, run.software
    metric_id, value, unit = run.headline
    system = at.system
    record = {
        "id": slug(system.id, at.bench_dir, at.scen_dir),
        "title": f"MLPerf Inference {rnd} {at.division}: {at.bench_dir} {scen[0]} on "
        f"{system.record['name']} ({at.submitter})",
        "category": "inference/mlperf",
        "status": status["status"],
        "confidence": status["confidence"],
        "metric": metric_id,
        "value": value,
        "unit": unit,
        "model": model[0],
        "engine": sw.engine,
        "engine_version": sw.version,
        "accelerators": run.accelerators,
        "accelerator_count": run.count,
        "system": system.id,
        "scenario": scen[0],
        "division": at.division,
        "availability": run.availability or None,
        "submitter": at.submitter,
        "benchmark": at.bench_dir,
        "accuracy_target": model[1],
        "software": sw.text,
        "settings": run.settings or None,
        "measured_by": sw.who,
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
