"""MLPerf runs from summary_results.json, the round's official results table."""

from __future__ import annotations

import json
import re
from typing import Any

from . import efficiency
from . import mlperf_power as power
from .common import clean, parse_count
from .mlperf_context import LOG, SUMMARY, Context, _scaled, read_log
from .mlperf_run import Run, System, Where, _mixed_note, _run_accelerators


class SummaryRuns(Context):
    """The runs of a round that has summary_results.json, one per row."""

    def runs_from_summary(self, systems: dict[tuple[str, str, str], System]) -> list[Run]:
        rows = json.loads((self.root / SUMMARY).read_text(encoding="utf-8"))
        overrides = (self.rules.get("overrides") or {}).get(self.rnd) or {}
        unit_fix = overrides.get("unit_from_log") or {}
        fix_locations = set(unit_fix.get("locations") or [])
        seen_locations: set[str] = set()
        runs = []
        for index, row in enumerate(rows):
            where = f"{SUMMARY} row {row.get('ID', index + 1)}"
            location = row.get("Location", "")
            seen_locations.add(location)
            run = self.summary_run(row, where, systems, location in fix_locations, unit_fix)
            if run is not None:
                runs.append(run)
        for missing in sorted(fix_locations - seen_locations):
            self.report.fail(
                f"mlperf.yaml overrides {self.rnd}", f"{missing} is not a row of {SUMMARY}"
            )
        for log in sorted(self.root.glob(f"*/*/results/*/*/*/performance/run_1/{LOG}")):
            loc = log.relative_to(self.root).parent.parent.parent.as_posix()
            if loc not in seen_locations:
                self.report.leave_out(
                    log.relative_to(self.root).as_posix(),
                    f"no row of {SUMMARY}, the round's official results table, names this result",
                )
        return runs

    def summary_run(
        self,
        row: dict[str, Any],
        where: str,
        systems: dict[tuple[str, str, str], System],
        fix_unit: bool,
        unit_fix: dict[str, Any],
    ) -> Run | None:
        location = row.get("Location", "")
        at = self.summary_place(location, where, systems)
        if at is None:
            return None
        system, division, bench_dir = at.system, at.division, at.bench_dir
        scen = self.scenario(str(row.get("Scenario", "")), f"{where}: Scenario")
        model = self.norm.model(bench_dir, f"{where}: Location")
        sw = self.software(
            row.get("Software", ""), f"{where}: Software", at.submitter, f"{where}: Submitter"
        )
        metric = self.summary_metric(row, bench_dir, where)
        if scen is None or model is None or sw is None or metric is None:
            return None
        notes: list[str] = []
        metric_id, unit = metric
        value = row.get("Performance_Result")
        if fix_unit:
            fixed = self.fix_unit(location, value, unit_fix, where)
            if fixed is None:
                return None
            metric_id, unit = fixed
            notes.append(
                f"{SUMMARY} gives the unit as {row.get('Performance_Units')!r}; the "
                f"run's {LOG} gives this figure as {unit_fix['log_field']!r}, so it "
                f"is recorded in {unit}."
            )
        counted = self.summary_accelerators(row, where, system)
        if counted is None:
            return None
        accelerators, count = counted
        notes += _mixed_note(accelerators)
        inferred = bool(row.get("inferred"))
        if inferred:
            notes.append(
                "MLCommons marks this result inferred: the submission checker "
                "computed it from the run of another scenario; it was not measured "
                "in this scenario."
            )
        if scen[0] == "Interactive":
            notes += self.interactive_note(location, scen)
        used = row.get("UsedModel")
        if division == "open" and used and used != row.get("Model"):
            notes.append(
                f"Open division: submitted to the MLPerf {row.get('Model')!r} "
                f"benchmark with the model {used!r}."
            )
        measurements = self.per_accelerator(metric_id, value, unit, count, accelerators)
        log_sources = self.summary_power(
            row, where, location, scen[0], (metric_id, value, unit), measurements
        )
        if log_sources is None:
            return None
        settings = {}
        wdt = clean(row.get("weight_data_types") or "")
        if wdt and wdt.upper() != "UNSET":
            settings["weight_data_types"] = wdt
        return Run(
            at,
            scen,
            model,
            sw,
            (metric_id, value, unit),
            accelerators,
            count,
            availability=row.get("Availability"),
            inferred=inferred,
            settings=settings,
            measurements=measurements,
            notes=notes,
            source=self.source(SUMMARY, str(row.get("ID", ""))) + log_sources,
        )

    def summary_place(
        self, location: str, where: str, systems: dict[tuple[str, str, str], System]
    ) -> Where | None:
        """A row's Location, in its six parts, and the system it names."""
        parts = location.split("/")
        if len(parts) != 6:
            self.report.fail(
                where,
                f"Location {location!r} is not "
                "<division>/<submitter>/results/<system>/<benchmark>/<scenario>",
            )
            return None
        return self.locate(parts, where, systems)

    def summary_accelerators(
        self, row: dict[str, Any], where: str, system: System
    ) -> tuple[list, int] | None:
        """A row's accelerators and their count (a# x Nodes), checked against its system."""
        a_count = parse_count(row.get("a#"))
        n_nodes = parse_count(row.get("Nodes"))
        self.report.use(
            "count (a#)",
            repr(row.get("a#")),
            str(a_count) if a_count is not None else "no accelerators counted",
        )
        if system.per_node == 0:
            accelerators, count = [], 0
        else:
            if a_count is None or n_nodes is None:
                self.report.fail(
                    where,
                    f"a# {row.get('a#')!r} or Nodes {row.get('Nodes')!r} "
                    "is not a count for a system with accelerators",
                )
                return None
            count = a_count * n_nodes
            accelerators = _run_accelerators(system.parts, count)
            if a_count != system.per_node:
                self.report.warnings.append(
                    f"{where}: a# {a_count} differs from "
                    f"accelerators_per_node {system.per_node} of "
                    f"{system.path}; the row's a# is used"
                )
            totals = [p.total for p in system.parts if p.total]
            if totals and sum(totals) != count:
                self.report.warnings.append(
                    f"{where}: a# x Nodes = {count} but the accelerator name totals {sum(totals)}"
                )
        return accelerators, count

    def interactive_note(self, location: str, scen: tuple) -> list[str]:
        """An Interactive result whose log names LoadGen's scenario: the note that says so."""
        notes: list[str] = []
        log = self.root / location / "performance" / "run_1" / LOG
        if log.is_file():
            said = read_log(log)[0].get("Scenario")
            alias = scen[1].get("log_alias")
            if said and said != "Interactive":
                self.report.use(
                    "scenario (log of an Interactive result)",
                    said,
                    "Interactive" if said == alias else "UNEXPECTED",
                )
                notes.append(
                    f"The run's {LOG} names the scenario {said!r}: MLPerf's "
                    "Interactive scenario runs as LoadGen's Server scenario."
                )
        return notes

    def summary_power(
        self,
        row: dict[str, Any],
        where: str,
        location: str,
        scenario: str,
        headline: tuple,
        measurements: list,
    ) -> list[dict[str, Any]] | None:
        """A row's power figure (and the efficiency derived from it) into measurements; the
        sources its agreeing logs add; None when its power unit is unknown."""
        power_unit = row.get("Power_Units")
        log_sources: list[dict[str, Any]] = []
        if row.get("has_power") and power_unit:
            spec = (self.rules.get("power_units") or {}).get(power_unit)
            if spec is None:
                self.report.unknown_string("power unit", power_unit, f"{where}: Power_Units")
                return None
            self.report.use("power unit", power_unit, f"{spec['metric']} ({spec['unit']})")
            item = _scaled(spec, row.get("Power_Result"))
            measurements.append(item)
            log_sources = self.power_beside_summary(item, location, scenario, row, where)
            measurements += efficiency.of_system(*headline, item)
        return log_sources

    def summary_metric(self, row: dict[str, Any], bench: str, where: str) -> tuple[str, str] | None:
        units, scenario = row.get("Performance_Units", ""), row.get("Scenario", "")
        for rule in self.rules.get("summary_units") or []:
            if rule["units"] != units:
                continue
            if "scenario" in rule and rule["scenario"] != scenario:
                continue
            if "benchmark" in rule and not re.fullmatch(rule["benchmark"], bench):
                continue
            self.report.use(
                "metric (summary units)",
                f"{units} / {scenario}",
                f"{rule['metric']} ({rule['unit']})",
            )
            return rule["metric"], rule["unit"]
        self.report.unknown_string("metric (summary units)", f"{units} / {scenario}", where)
        return None

    def fix_unit(
        self, location: str, value: Any, fix: dict[str, Any], where: str
    ) -> tuple[str, str] | None:
        log = self.root / location / "performance" / "run_1" / LOG
        if not log.is_file():
            self.report.fail(where, f"the override needs {location}/performance/run_1/{LOG}")
            return None
        logged = read_log(log)[1].get(fix["log_field"])
        if logged is None or abs(float(logged) - float(value)) > 0.01 * max(1.0, abs(value)):
            self.report.fail(
                where,
                f"override does not hold: the log gives "
                f"{fix['log_field']!r} = {logged}, the summary {value}",
            )
            return None
        return fix["metric"], fix["unit"]

    def power_beside_summary(
        self, item: dict[str, Any], location: str, scenario: str, row: dict[str, Any], where: str
    ) -> list[dict[str, Any]]:
        """The published power figure checked against the run's power logs: agreeing logs
        are a second source of the same measurement (the figure stays the published one)."""
        logs, result = self.power_logs(location, scenario, where)
        if logs is None:
            return []
        published = row.get("Power_Result")
        said = [item["note"]] if item.get("note") else []
        if result is None:
            if not logs.complete:
                said.append(
                    f"the run's power logs are incomplete in the results repository "
                    f"(no {', '.join('performance/' + m for m in logs.missing)}, where "
                    "the power_begin and power_end marks would be), so this is "
                    f"{SUMMARY}'s figure alone, not checked against the logs"
                )
                self.report.use(
                    "power logs (beside the summary)", "incomplete", "the summary's figure alone"
                )
            item["note"] = "; ".join(said)
            return []
        if result.agrees_with(published):
            self.report.use(
                "power logs (beside the summary)",
                "complete",
                "agree with Power_Result to its published precision",
            )
            said.append(
                f"the run's power logs give the same figure to its published "
                f"precision ({power.method_note(result)}): a second source of this "
                "measurement"
            )
            item["note"] = "; ".join(said)
            return power.sources(logs, self.log_source)
        self.report.use("power logs (beside the summary)", "complete", "DISAGREE with Power_Result")
        self.report.warnings.append(
            f"{where}: Power_Result {published!r} {row.get('Power_Units')}"
            f" but the power logs give {result.rounded} {result.unit}"
        )
        said.append(
            f"the run's power logs give {result.rounded} {result.unit} "
            f"({power.method_note(result)}), not the published figure"
        )
        item["note"] = "; ".join(said)
        return power.sources(logs, self.log_source)
