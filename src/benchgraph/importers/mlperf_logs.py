"""MLPerf runs from the LoadGen performance logs (rounds without summary_results.json)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from . import efficiency
from . import mlperf_power as power
from .common import clean
from .mlperf_context import LOG, Context, read_log
from .mlperf_run import Run, System, _mixed_note, _run_accelerators


class LogRuns(Context):
    """The runs of a round without summary_results.json, one per performance log."""

    def runs_from_logs(self, systems: dict[tuple[str, str, str], System]) -> list[Run]:
        runs = []
        for log in sorted(self.root.glob(f"*/*/results/*/*/*/performance/run_1/{LOG}")):
            run = self.log_run(log, systems)
            if run is not None:
                runs.append(run)
        return runs

    def log_run(self, log: Path, systems: dict[tuple[str, str, str], System]) -> Run | None:
        rel = log.relative_to(self.root).as_posix()
        at = self.locate(rel.split("/")[:6], rel, systems)
        if at is None:
            return None
        system, bench_dir, scen_dir = at.system, at.bench_dir, at.scen_dir
        head, values, result = read_log(log)
        scen = self.scenario(scen_dir, f"{rel}: results folder")
        if scen is None:
            return None
        said = head.get("Scenario", "")
        if said not in (scen[0], scen[1].get("log_alias")):
            self.report.fail(rel, f"the log says Scenario {said!r}, its folder {scen_dir!r}")
            return None
        if head.get("Result is") != "VALID":
            self.report.leave_out(rel, f"LoadGen's result is {head.get('Result is')!r}")
            return None
        model = self.norm.model(bench_dir, f"{rel}: results folder")
        sw = self.software(
            system.data.get("framework", ""),
            f"{system.path}: framework",
            at.submitter,
            f"{rel}: submitter folder",
        )
        fields = self.rules.get("log_fields") or {}
        for name in result:
            if name in fields:
                self.report.use(
                    "metric (log line)", name, f"{fields[name]['metric']} ({fields[name]['unit']})"
                )
            else:
                self.report.unknown_string("metric (log line)", name, rel)
        headline = self.log_headline(scen[0], bench_dir, values, rel)
        if model is None or sw is None or headline is None or any(n not in fields for n in result):
            return None
        metric_id, value, unit = headline[:3]
        if system.per_node and system.nodes is None:
            self.report.fail(rel, f"number_of_nodes of {system.path} is not a count")
            return None
        count = system.per_node * system.nodes if system.per_node and system.nodes else 0
        accelerators = _run_accelerators(system.parts, count) if count else []
        measurements = self.per_accelerator(metric_id, value, unit, count, accelerators)
        for name in result:
            spec = fields[name]
            if name == headline[3]:
                continue
            item = {"metric": spec["metric"], "value": values[name], "unit": spec["unit"]}
            if spec.get("condition"):
                item["condition"] = dict(spec["condition"])
            if spec.get("note"):
                item["note"] = spec["note"]
            measurements.append(item)
        notes = _mixed_note(accelerators)
        log_sources = self.power_from_logs(
            rel.rsplit("/performance/", 1)[0],
            scen[0],
            measurements,
            notes,
            (metric_id, value, unit),
        )
        if said != scen[0]:
            notes.append(
                f"The log names the scenario {said!r}: MLPerf's {scen[0]} scenario "
                f"runs as LoadGen's {said} scenario."
            )
        if fields[headline[3]].get("note"):
            notes.append(f"Headline: {fields[headline[3]]['note']}.")
        availability = clean(system.data.get("status", "")) or None
        return Run(
            at,
            scen,
            model,
            sw,
            headline[:3],
            accelerators,
            count,
            availability=availability,
            inferred=False,
            settings=None,
            measurements=measurements,
            notes=notes,
            source=self.source(rel) + log_sources,
        )

    def log_headline(
        self, scenario: str, bench: str, values: dict[str, float], where: str
    ) -> tuple[str, Any, str, str] | None:
        fields = self.rules.get("log_fields") or {}
        for rule in self.rules.get("log_headline") or []:
            scen = rule["scenario"]
            if scenario not in (scen if isinstance(scen, list) else [scen]):
                continue
            if "benchmark" in rule and not re.fullmatch(rule["benchmark"], bench):
                continue
            for name in rule["fields"]:
                if name in values:
                    spec = fields[name]
                    self.report.use(
                        "headline (log)",
                        f"{scenario} / {name}",
                        f"{spec['metric']} ({spec['unit']})",
                    )
                    return spec["metric"], values[name], spec["unit"], name
            self.report.fail(where, f"the log has none of {rule['fields']} for the headline")
            return None
        self.report.unknown_string("headline (log)", f"{scenario} / {bench}", where)
        return None

    def power_from_logs(
        self, location: str, scenario: str, measurements: list, notes: list[str], headline: tuple
    ) -> list[dict[str, Any]]:
        """A round without summary_results.json: the power metric from the run's logs, as a
        measurement (and the efficiency derived from it), with the files as sources."""
        logs, result = self.power_logs(location, scenario, f"{location}/performance")
        if logs is None:
            return []
        if result is None:
            if not logs.complete:
                self.report.use("power logs", "incomplete", "no power metric")
                self.report.warnings.append(
                    f"{logs.rel}: power run with incomplete logs (no "
                    f"{', '.join(logs.missing)}): no power metric recorded"
                )
                notes.append(
                    f"A power run whose logs are incomplete (no "
                    f"{', '.join('performance/' + m for m in logs.missing)}): "
                    "no power metric is recorded."
                )
            return []
        self.report.use("power logs", "complete", f"{result.metric} computed")
        item = power.log_measurement(result)
        measurements.append(item)
        measurements += efficiency.of_system(*headline, item)
        return power.sources(logs, self.log_source)
