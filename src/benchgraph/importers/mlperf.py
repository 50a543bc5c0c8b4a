"""Import an `mlcommons/inference_results_vX.Y` checkout: systems and runs.

The checkout keeps MLCommons' layout: `<division>/<submitter>/systems/*.json`,
`summary_results.json` where the round has one, otherwise
`results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt`.
Every name and string goes through the mapping tables; the importer writes only runs and
systems, which point at curated accelerator, interconnect, engine, model and metric
records.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import CannotRun
from ..timing import Timer
from . import efficiency
from . import mlperf_power as power
from .aliases import write_aliases
from .common import (
    ImportReport,
    check_ids,
    check_references,
    clean,
    detect_commit,
    header,
    key,
    load_mapping,
    parse_count,
    slug,
    source_entry,
    write_records,
)
from .normalise import Normaliser, Part

SUMMARY = "summary_results.json"
LOG = "mlperf_log_summary.txt"
_LOG_LINE = re.compile(r"^\s*(?:\*\s*)?(?P<name>[^:]+?)\s*:\s*(?P<value>-?[0-9][0-9.eE+-]*)\s*$")


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


def import_mlperf(
    path: Path | str,
    out_dir: Path | str | None = None,
    *,
    round: str | None = None,
    commit: str | None = None,
    mapping_dir: Path | None = None,
    write: bool = True,
) -> ImportReport:
    """Import one MLPerf Inference round from a results checkout into out_dir.

    Nothing is written when a string is unknown or a record could not be imported:
    the report lists each one and its `exit_code` is 1.
    """
    root = Path(path)
    if not root.is_dir():
        raise CannotRun(
            f"{root}: no such folder (expected a checkout of mlcommons/inference_results_vX.Y)"
        )
    report = ImportReport("MLPerf Inference")
    with Timer() as timer:
        rnd = round or _detect_round(root)
        report.round = rnd
        ctx = _Context(root, rnd, commit or detect_commit(root, rnd), report, mapping_dir)
        systems = ctx.read_systems()
        if (root / SUMMARY).is_file():
            runs = ctx.runs_from_summary(systems)
        else:
            runs = ctx.runs_from_logs(systems)
        system_records = [s.record for s in systems.values()]
        check_ids(system_records, report, "systems")
        check_ids(runs, report, "runs")
        out = Path(out_dir) if out_dir is not None else None
        check_references(report, out, ctx.norm.wanted())
        report.records.update({"systems": len(system_records), "runs": len(runs)})
        if write and out is not None and report.ok:
            folder = f"mlperf-{rnd}"
            head = header(
                f"mlperf <checkout of mlcommons/inference_results_{rnd}>",
                f"mlcommons/inference_results_{rnd}" + (f" at {ctx.commit}" if ctx.commit else ""),
            )
            report.files = write_records(
                out, {f"systems/{folder}": system_records, f"benchmarks/{folder}": runs}, head
            )
            report.files += write_aliases(out, mapping_dir)
            report.written = True
    report.seconds = timer.seconds
    return report


def _detect_round(root: Path) -> str:
    m = re.search(r"inference_results_(v\d+\.\d+)", root.resolve().name)
    if m:
        return m.group(1)
    summary = root / SUMMARY
    if summary.is_file():
        rows = json.loads(summary.read_text(encoding="utf-8"))
        if rows and rows[0].get("version"):
            return str(rows[0]["version"])
    raise CannotRun(
        f"{root}: cannot tell the round; name the folder inference_results_vX.Y or pass --round"
    )


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


class _Context:
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

    # --- shared ------------------------------------------------------------------------
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

    # --- systems -----------------------------------------------------------------------
    def read_systems(self) -> dict[tuple[str, str, str], System]:
        systems: dict[tuple[str, str, str], System] = {}
        for path in sorted(self.root.glob("*/*/systems/*.json")):
            rel = path.relative_to(self.root).as_posix()
            division, submitter = path.parts[-4], path.parts[-3]
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                self.report.fail(rel, f"cannot read the system description: {exc}")
                continue
            system = self.system(rel, division, submitter, path.stem, data)
            if system is not None:
                systems[(division, submitter, path.stem)] = system
        return systems

    def system(
        self, rel: str, division: str, submitter: str, stem: str, data: dict[str, Any]
    ) -> System | None:
        per_node = parse_count(data.get("accelerators_per_node"))
        nodes = parse_count(data.get("number_of_nodes"))
        for name, raw, parsed in (
            ("accelerators_per_node", data.get("accelerators_per_node"), per_node),
            ("number_of_nodes", data.get("number_of_nodes"), nodes),
        ):
            became = (f"{parsed}" if parsed is not None else NOT_PUBLISHED_COUNT) + (
                " (a string in the file)" if isinstance(raw, str) else ""
            )
            self.report.use(f"count ({name})", repr(raw), became)
        acc_name = data.get("accelerator_model_name", "")
        parts: list[Part] = []
        notes: list[str] = []
        if per_node == 0 or (per_node is None and self.norm.accelerator_placeholder(acc_name)):
            per_node = 0
            self.report.use(
                "accelerator", acc_name, "not used: the system counts no accelerators (CPU-only)"
            )
            if not self.norm.accelerator_placeholder(acc_name):
                notes.append(
                    f"The description names accelerator {acc_name!r} but counts "
                    f"{data.get('accelerators_per_node')!r} per node; imported as "
                    "CPU-only, as counted."
                )
        else:
            # An unknown name is reported; the import goes on to list every other one.
            parts = self.norm.accelerators(acc_name, f"{rel}: accelerator_model_name") or []
            if per_node is None:
                self.report.fail(
                    rel,
                    "accelerators_per_node is "
                    f"{data.get('accelerators_per_node')!r} for a system naming "
                    f"accelerator {acc_name!r}",
                )
                return None
        ic_ids: set[str] = set()
        raw_ic: dict[str, str] = {}
        for field in self.norm.interconnect_fields:
            if field not in data:
                continue
            raw = data[field]
            raw_ic[field] = "" if raw is None else str(raw)
            ic_ids.update(self.norm.interconnects(field, raw, f"{rel}: {field}") or [])
        sys_id = slug("mlperf", self.rnd, division, submitter, stem)
        accelerators = [{"id": p.id, "count": per_node} for p in parts]
        if any(p.total for p in parts):
            detail = ", ".join(f"{p.total} x {p.id}" for p in parts)
            notes.append(
                f"Mixed system: {detail} in total across {nodes} nodes of "
                f"{per_node} accelerators each (the source's own totals); each "
                "node holds one kind."
            )
        record: dict[str, Any] = {
            "id": sys_id,
            "name": clean(data.get("system_name") or stem),
            "submitter": submitter,
            "system_type": clean(data.get("system_type", "")) or None,
            "availability": clean(data.get("status", "")) or None,
            "accelerators": accelerators,
            "nodes": nodes,
            "host_cpu": _value(data.get("host_processor_model_name")),
            "interconnect_ids": sorted(ic_ids) or None,
            "interconnect_raw": raw_ic or None,
            "software": _value(data.get("framework")),
            "notes": " ".join(notes) or None,
            "source": self.source(rel),
        }
        unpublished = self.norm.is_placeholder(data.get("accelerator_interconnect"))
        if unpublished and per_node:
            # The fabric field is a placeholder: a host link alone must not read as "none".
            record["fabric_published"] = False
        return System(
            sys_id,
            division,
            submitter,
            stem,
            rel,
            data,
            parts,
            per_node,
            nodes,
            {k: v for k, v in record.items() if v is not None},
            unpublished,
        )

    # --- runs from summary_results.json ---------------------------------------------------
    def runs_from_summary(self, systems: dict[tuple[str, str, str], System]) -> list[dict]:
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
    ) -> dict[str, Any] | None:
        location = row.get("Location", "")
        parts = location.split("/")
        if len(parts) != 6:
            self.report.fail(
                where,
                f"Location {location!r} is not "
                "<division>/<submitter>/results/<system>/<benchmark>/<scenario>",
            )
            return None
        division, submitter, _, stem, bench_dir, scen_dir = parts
        system = systems.get((division, submitter, stem))
        if system is None:
            self.report.fail(
                where, f"no system description {division}/{submitter}/systems/{stem}.json"
            )
            return None
        scen = self.scenario(str(row.get("Scenario", "")), f"{where}: Scenario")
        model = self.norm.model(bench_dir, f"{where}: Location")
        known, engine, version = self.norm.engine(row.get("Software", ""), f"{where}: Software")
        who = self.measured_by(submitter, engine, f"{where}: Submitter")
        metric = self.summary_metric(row, bench_dir, where)
        if scen is None or model is None or not known or who is None or metric is None:
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
        notes += _mixed_note(accelerators)
        inferred = bool(row.get("inferred"))
        if inferred:
            notes.append(
                "MLCommons marks this result inferred: the submission checker "
                "computed it from the run of another scenario; it was not measured "
                "in this scenario."
            )
        if scen[0] == "Interactive":
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
        used = row.get("UsedModel")
        if division == "open" and used and used != row.get("Model"):
            notes.append(
                f"Open division: submitted to the MLPerf {row.get('Model')!r} "
                f"benchmark with the model {used!r}."
            )
        status = self.status(
            division=division, availability=row.get("Availability"), inferred=inferred
        )
        measurements = self.per_accelerator(metric_id, value, unit, count, accelerators)
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
            log_sources = self.power_beside_summary(item, location, scen[0], row, where)
            measurements += efficiency.of_system(metric_id, value, unit, item)
        settings = {}
        wdt = clean(row.get("weight_data_types") or "")
        if wdt and wdt.upper() != "UNSET":
            settings["weight_data_types"] = wdt
        return self.run_record(
            system,
            bench_dir,
            scen_dir,
            scen,
            division,
            submitter,
            model,
            status,
            metric_id=metric_id,
            value=value,
            unit=unit,
            engine=engine,
            version=version,
            accelerators=accelerators,
            count=count,
            availability=row.get("Availability"),
            software=_value(row.get("Software")),
            settings=settings,
            who=who,
            measurements=measurements,
            notes=notes,
            source=self.source(SUMMARY, str(row.get("ID", ""))) + log_sources,
        )

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

    # --- runs from the performance logs (rounds without summary_results.json) ------------
    def runs_from_logs(self, systems: dict[tuple[str, str, str], System]) -> list[dict]:
        runs = []
        for log in sorted(self.root.glob(f"*/*/results/*/*/*/performance/run_1/{LOG}")):
            run = self.log_run(log, systems)
            if run is not None:
                runs.append(run)
        return runs

    def log_run(self, log: Path, systems: dict[tuple[str, str, str], System]) -> dict | None:
        rel = log.relative_to(self.root).as_posix()
        division, submitter, _, stem, bench_dir, scen_dir = rel.split("/")[:6]
        system = systems.get((division, submitter, stem))
        if system is None:
            self.report.fail(
                rel, f"no system description {division}/{submitter}/systems/{stem}.json"
            )
            return None
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
        known, engine, version = self.norm.engine(
            system.data.get("framework", ""), f"{system.path}: framework"
        )
        who = self.measured_by(submitter, engine, f"{rel}: submitter folder")
        fields = self.rules.get("log_fields") or {}
        for name in result:
            if name in fields:
                self.report.use(
                    "metric (log line)", name, f"{fields[name]['metric']} ({fields[name]['unit']})"
                )
            else:
                self.report.unknown_string("metric (log line)", name, rel)
        headline = self.log_headline(scen[0], bench_dir, values, rel)
        if (
            model is None
            or not known
            or who is None
            or headline is None
            or any(n not in fields for n in result)
        ):
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
        status = self.status(division=division, availability=availability, inferred=False)
        return self.run_record(
            system,
            bench_dir,
            scen_dir,
            scen,
            division,
            submitter,
            model,
            status,
            metric_id=metric_id,
            value=value,
            unit=unit,
            engine=engine,
            version=version,
            accelerators=accelerators,
            count=count,
            availability=availability,
            software=_value(system.data.get("framework")),
            settings=None,
            who=who,
            measurements=measurements,
            notes=notes,
            source=self.source(rel) + log_sources,
        )

    def run_record(
        self,
        system: Any,
        bench_dir: str,
        scen_dir: str,
        scen: tuple,
        division: str,
        submitter: str,
        model: tuple,
        status: dict[str, Any],
        *,
        metric_id: str,
        value: Any,
        unit: str,
        engine: Any,
        version: Any,
        accelerators: list,
        count: int,
        availability: Any,
        software: Any,
        settings: dict[str, Any] | None,
        who: str,
        measurements: list,
        notes: list[str],
        source: Any,
    ) -> dict[str, Any]:
        """One run record, from summary_results.json or from the logs (the same fields)."""
        record = {
            "id": slug(system.id, bench_dir, scen_dir),
            "title": f"MLPerf Inference {self.rnd} {division}: {bench_dir} {scen[0]} on "
            f"{system.record['name']} ({submitter})",
            "category": "inference/mlperf",
            "status": status["status"],
            "confidence": status["confidence"],
            "metric": metric_id,
            "value": value,
            "unit": unit,
            "model": model[0],
            "engine": engine,
            "engine_version": version,
            "accelerators": accelerators,
            "accelerator_count": count,
            "system": system.id,
            "scenario": scen[0],
            "division": division,
            "availability": availability or None,
            "submitter": submitter,
            "benchmark": bench_dir,
            "accuracy_target": model[1],
            "software": software,
            "settings": settings or None,
            "measured_by": who,
            "reproducible": status.get("reproducible"),
            "measurements": measurements or None,
            "omitted_by_source": system.omitted(count),
            "notes": " ".join(notes) or None,
            "source": source,
        }
        return {k: v for k, v in record.items() if v is not None}

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


NOT_PUBLISHED_COUNT = "not published"


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


def _scaled(spec: dict[str, Any], value: Any) -> dict[str, Any]:
    """A measurement in the table's unit; an exact decimal scaling keeps the published figure
    in the note."""
    item: dict[str, Any] = {"metric": spec["metric"], "value": value, "unit": spec["unit"]}
    if spec.get("scale") and isinstance(value, (int, float)):
        item["value"] = float(Decimal(repr(value)) * Decimal(str(spec["scale"])))
        item["note"] = f"published as {value!r} {spec.get('published_unit', '')}".rstrip()
    return item


def _value(raw: Any) -> str | None:
    """A descriptive string as given (spaces normalised), or None for a placeholder."""
    if raw is None:
        return None
    text = clean(raw)
    return None if key(text) in ("", "n/a", "na", "none", "-", "tbd", "todo") else text
