"""One MLPerf import's shared part: the checkout, its tables and report, the lookups both
run readers use (scenario, submitter, status, sources, power logs), and the LoadGen log reader.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import CannotRun
from . import mlperf_power as power
from .common import ImportReport, key, load_mapping, source_entry
from .mlperf_run import Run, Software, System, Where, _value, run_record
from .normalise import Normaliser

SUMMARY = "summary_results.json"
LOG = "mlperf_log_summary.txt"
_LOG_LINE = re.compile(r"^\s*(?:\*\s*)?(?P<name>[^:]+?)\s*:\s*(?P<value>-?[0-9][0-9.eE+-]*)\s*$")


def read_log(path: Path) -> tuple[dict[str, Any], dict[str, float], list[str]]:
    """A LoadGen summary log: its header fields, every numeric line, and the result lines.

    The result lines are the numbers between `Mode` and `Result is`, in order.
    """
    head: dict[str, Any] = {}
    values: dict[str, float] = {}
    result: list[str] = []
    in_result = False
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stripped = line.strip()
        for name in ("Scenario", "Mode", "Result is", "SUT name"):
            if stripped.startswith(name) and ":" in stripped:
                head[name] = stripped.split(":", 1)[1].strip()
        if stripped.startswith("Mode"):
            in_result = True
            continue
        if stripped.startswith("Result is"):
            in_result = False
            continue
        m = _LOG_LINE.match(line)
        if m and m.group("name") not in values:
            try:
                values[m.group("name")] = _num(m.group("value"))
            except ValueError:
                continue
            if in_result:
                result.append(m.group("name"))
    return head, values, result


def _num(text: str) -> float | int:
    value = float(text)
    return (
        int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
    )


class Context:
    """One import: the checkout, its round and commit, the tables and the report."""

    def __init__(
        self,
        root: Path,
        rnd: str,
        commit: str | None,
        report: ImportReport,
        mapping_dir: Path | None,
    ):
        self.root, self.rnd, self.commit, self.report = root, rnd, commit, report
        self.norm = Normaliser(report, mapping_dir)
        self.rules = load_mapping("mlperf", mapping_dir)
        self.repo = f"mlcommons/inference_results_{rnd}"
        self.scenarios = {
            key(name): (name, spec or {})
            for name, spec in (self.rules.get("scenarios") or {}).items()
        }
        self.submitters = self.rules.get("submitters") or {}

    def source(self, rel: str, row: str | None = None) -> list[dict[str, Any]]:
        url = (
            f"https://github.com/{self.repo}/blob/{self.commit}/{quote(rel)}"
            if self.commit
            else None
        )
        return [
            source_entry(
                publisher=self.rules.get("publisher"),
                title=f"MLPerf Inference {self.rnd} results",
                url=url,
                repository=self.repo,
                commit=self.commit,
                path=rel,
                row=row,
                round=self.rnd,
                licence=self.rules.get("licence"),
                kind=self.rules.get("kind"),
            )
        ]

    def scenario(self, raw: str, where: str) -> tuple[str, dict[str, Any]] | None:
        hit = self.scenarios.get(key(raw))
        if hit is None:
            self.report.unknown_string("scenario", raw, where)
            return None
        self.report.use("scenario", raw, hit[0])
        return hit

    def measured_by(self, submitter: str, engine: str | None, where: str) -> str | None:
        spec = self.submitters.get(submitter)
        if spec is None:
            self.report.unknown_string("submitter", submitter, where)
            return None
        who = spec["measured_by"]
        if engine and engine in (spec.get("vendor_when_engine") or []):
            who = "vendor"
        shown = submitter
        if spec.get("vendor_when_engine"):
            shown = f"{submitter} (engine {engine or 'not named'})"
        self.report.use("submitter", shown, f"measured_by {who}")
        return who

    def status(self, **facts: Any) -> dict[str, Any]:
        for rule in self.rules.get("status") or []:
            if all(facts.get(k) == v for k, v in (rule.get("when") or {}).items()):
                out = {"status": rule["status"], "confidence": rule["confidence"]}
                if "reproducible" in rule:
                    out["reproducible"] = rule["reproducible"]
                return out
        raise CannotRun(f"mlperf.yaml: no status rule matches {facts}")

    def record(self, run: Run) -> dict[str, Any]:
        """The record of a run either reader found, with the status its facts earn."""
        status = self.status(
            division=run.at.division, availability=run.availability, inferred=run.inferred
        )
        return run_record(self.rnd, run, status)

    def locate(
        self, parts: list[str], where: str, systems: dict[tuple[str, str, str], System]
    ) -> Where | None:
        """A result's place from the six parts of its folder, and the system it names."""
        division, submitter, _, stem, bench_dir, scen_dir = parts
        system = systems.get((division, submitter, stem))
        if system is None:
            self.report.fail(
                where, f"no system description {division}/{submitter}/systems/{stem}.json"
            )
            return None
        return Where(system, division, submitter, bench_dir, scen_dir)

    def software(
        self, raw: Any, where: str, submitter: str, where_submitter: str
    ) -> Software | None:
        """The engine the software names and who measured; None when either is unknown."""
        known, engine, version = self.norm.engine(raw, where)
        who = self.measured_by(submitter, engine, where_submitter)
        if not known or who is None:
            return None
        return Software(engine, version, _value(raw), who)

    # --- power (mlperf_power.py computes the metric as MLCommons' checker does) ----------
    def power_logs(
        self, location: str, scenario: str, where: str
    ) -> tuple[power.PowerLogs | None, power.PowerResult | None]:
        """A result's power logs and, where they are complete, the metric they give; a log
        that cannot give it is a failure naming its file and line."""
        logs = power.find_power_logs(self.root / location, location)
        if logs is None or not logs.complete:
            return logs, None
        try:
            return logs, power.compute(logs, scenario)
        except power.PowerLogError as exc:
            self.report.fail(where, str(exc))
            return logs, None

    def log_source(self, rel: str, note: str) -> dict[str, Any]:
        return {**self.source(rel)[0], "note": note}

    def per_accelerator(
        self, metric: str, value: Any, unit: str, count: int, accelerators: list
    ) -> list[dict]:
        """The headline divided by the accelerator count, for a run on one kind only: on a
        run of several kinds (MangoBoost's 32 MI300X and 16 MI325X) it would be an average
        over both, which a query per accelerator kind would read as either's figure."""
        derived = (self.rules.get("per_accelerator") or {}).get(metric)
        if not derived or not count or not isinstance(value, (int, float)):
            return []
        if len(accelerators) != 1:
            return []
        return [
            {
                "metric": derived,
                "value": float(f"{value / count:.8g}"),
                "unit": unit,
                "derived": True,
                "note": f"derived: the headline value divided by accelerator_count ({count}), "
                "rounded to 8 significant digits; not published by MLCommons",
            }
        ]


def _scaled(spec: dict[str, Any], value: Any) -> dict[str, Any]:
    """A measurement in the table's unit; an exact decimal scaling keeps the published figure
    in the note."""
    item: dict[str, Any] = {"metric": spec["metric"], "value": value, "unit": spec["unit"]}
    if spec.get("scale") and isinstance(value, (int, float)):
        item["value"] = float(Decimal(repr(value)) * Decimal(str(spec["scale"])))
        item["note"] = f"published as {value!r} {spec.get('published_unit', '')}".rstrip()
    return item
