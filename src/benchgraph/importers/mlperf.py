"""Import an `mlcommons/inference_results_vX.Y` checkout: systems and runs.

The checkout keeps MLCommons' layout: `<division>/<submitter>/systems/*.json`,
`summary_results.json` where the round has one, otherwise
`results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt`.
Every name and string goes through the mapping tables; the importer writes only runs and
systems, which point at curated accelerator, interconnect, engine, model and metric
records.

Split by job: this module reads the systems and composes the import; mlperf_summary.py
reads the runs of summary_results.json, mlperf_logs.py those of the LoadGen logs, both on
mlperf_context.py's shared lookups; mlperf_run.py writes the one run record either gives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import CannotRun
from ..timing import Timer
from .aliases import write_aliases
from .common import (
    ImportReport,
    check_ids,
    check_references,
    clean,
    detect_commit,
    header,
    parse_count,
    slug,
    write_records,
)
from .mlperf_context import SUMMARY, read_log
from .mlperf_logs import LogRuns
from .mlperf_run import System, _value
from .mlperf_summary import SummaryRuns
from .normalise import Part

__all__ = ["import_mlperf", "read_log"]


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
        read = ctx.runs_from_summary if (root / SUMMARY).is_file() else ctx.runs_from_logs
        runs = [ctx.record(run) for run in read(systems)]
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


class _Context(SummaryRuns, LogRuns):
    """One import: the systems, then the runs from the summary table or from the logs."""

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


NOT_PUBLISHED_COUNT = "not published"
