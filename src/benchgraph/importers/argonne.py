"""Import the Argonne LLM-Inference-Bench result tables (CSV) as runs.

The tables give hardware, count, framework, model, input/output length, batch size,
latency and throughput, and (the TP/PP tables) the parallelism. Units come from the
source's own benchmark scripts, cited in `mappings/argonne.yaml`; a row that does not
fit that definition is left out and reported. Identical tables and identical rows are
imported once.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import CannotRun
from ..timing import Timer
from . import argonne_power
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
    slug,
    source_entry,
    write_records,
)
from .normalise import Normaliser

FOLDER = "benchmarks/argonne"
COLUMNS = ("Hardware", "Num of Hardware", "Framework", "Model", "Input Output Length", "Batch Size")


@dataclass
class _Measurement:
    """One distinct measured row, with every place it appears."""

    values: tuple[str, ...]
    accelerator: str
    engine: str | None
    model: str
    count: int
    length: int
    batch: int
    latency: float
    throughput: float
    raw: dict[str, str]
    sources: list[tuple[str, int]] = field(default_factory=list)
    parallelism: dict[str, int] = field(default_factory=dict)
    # the mapping's `derived_hardware` entry that named the part or system, if one did
    derived: dict[str, Any] | None = None
    # the power table's figure for this row: (milliwatts, text, file, line); argonne_power.py
    power: tuple | None = None


def import_argonne(
    path: Path | str,
    out_dir: Path | str | None = None,
    *,
    commit: str | None = None,
    mapping_dir: Path | None = None,
    write: bool = True,
) -> ImportReport:
    """Import the LLM-Inference-Bench tables found under path (its `Plots/` folder)."""
    root = Path(path)
    if not (root / "Plots").is_dir():
        raise CannotRun(
            f"{root}: no Plots/ folder (expected a copy of argonne-lcf/LLM-Inference-Bench)"
        )
    report = ImportReport("Argonne LLM-Inference-Bench")
    with Timer() as timer:
        rules = load_mapping("argonne", mapping_dir)
        norm = Normaliser(report, mapping_dir)
        commit = commit or detect_commit(root)
        report.round = commit[:12] if commit else ""
        found = _read_tables(root, rules, norm, report)
        runs = _runs(found, rules, commit, report)
        check_ids(runs, report, "runs")
        out = Path(out_dir) if out_dir is not None else None
        wanted = norm.wanted()
        derived = rules.get("derived_hardware") or []
        wanted["accelerators"] |= {d["accelerator"] for d in derived if d.get("accelerator")}
        wanted["systems"] = {d["system"] for d in derived if d.get("system")}
        check_references(report, out, wanted)
        report.records.update({"runs": len(runs)})
        if write and out is not None and report.ok:
            origin = rules["repository"] + (f" at {commit}" if commit else "")
            head = header("argonne <copy of argonne-lcf/LLM-Inference-Bench>", origin)
            report.files = write_records(out, {FOLDER: runs}, head)
            report.files += write_aliases(out, mapping_dir)
            report.written = True
    report.seconds = timer.seconds
    return report


def _read_tables(
    root: Path, rules: dict[str, Any], norm: Normaliser, report: ImportReport
) -> dict[tuple[str, ...], _Measurement]:
    units = rules["units"]
    tolerance = float(units.get("tolerance", 0.005))
    derived = _derived_hardware(rules)
    seen_hashes: dict[str, str] = {}
    found: dict[tuple[str, ...], _Measurement] = {}
    for table in rules.get("tables") or []:
        rel = table["path"]
        path = root / rel
        if not path.is_file():
            report.warnings.append(f"{rel}: listed in argonne.yaml but not found")
            continue
        if not table.get("import"):
            report.leave_out(rel, table.get("why", "not imported"))
            continue
        data = path.read_bytes()
        if table.get("power_column"):
            argonne_power.attach(
                rel,
                data,
                table,
                found,
                lambda row, where: getattr(
                    _measure(row, where, None, units, tolerance, norm, report), "values", None
                ),
                report,
            )
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen_hashes:
            report.leave_out(
                rel,
                f"byte-identical to {seen_hashes[digest]}; its rows are "
                "imported once, from that file",
            )
            continue
        seen_hashes[digest] = rel
        reader = csv.reader(io.StringIO(data.decode("utf-8-sig")))
        head = [clean(h) for h in next(reader, [])]
        par_col = table.get("parallelism_column")
        wanted = list(COLUMNS) + [units["latency"]["column"], units["throughput"]["column"]]
        missing = [c for c in wanted + ([par_col] if par_col else []) if c not in head]
        if missing:
            report.fail(rel, f"columns {missing} not in the header {head}")
            continue
        for line, cells in enumerate(reader, start=2):
            if not any(c.strip() for c in cells):
                continue
            row = dict(zip(head, (c.strip() for c in cells)))
            where = f"{rel}:{line}"
            m = _measure(row, where, par_col, units, tolerance, norm, report)
            if m is None:
                continue
            m.derived = derived.get((key(row["Hardware"]), key(row["Framework"])))
            if m.derived is not None and m.derived.get("accelerator"):
                m.accelerator = m.derived["accelerator"]
            existing = found.setdefault(m.values, m)
            existing.sources.append((rel, line))
            if par_col:
                par = _parallelism(row[par_col], m.count, rules, where, report)
                if par is None:
                    continue
                for k, v in par.items():
                    if existing.parallelism.get(k, v) != v:
                        report.fail(
                            where,
                            f"parallelism {k}={v} contradicts {k}="
                            f"{existing.parallelism[k]} of an identical row",
                        )
                    existing.parallelism[k] = v
    return found


def _derived_hardware(rules: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """The mapping's `derived_hardware`, by (Hardware, Framework): the rows of one framework
    whose part (`accelerator`) or machine (`system`) the tables do not name, and other
    files of the repository, read with a vendor's or operator's pages, identify. It is
    derived, so each entry's sources become sources of its runs, saying what they derive
    (`derives: [accelerators]`, `[system]`)."""
    return {
        (key(d["hardware"]), key(d["framework"])): d for d in rules.get("derived_hardware") or []
    }


def _measure(
    row: dict[str, str],
    where: str,
    par_col: str | None,
    units: dict[str, Any],
    tolerance: float,
    norm: Normaliser,
    report: ImportReport,
) -> _Measurement | None:
    try:
        count = int(row["Num of Hardware"])
        length = int(row["Input Output Length"])
        batch = int(row["Batch Size"])
        latency = float(row[units["latency"]["column"]])
        throughput = float(row[units["throughput"]["column"]])
    except ValueError as exc:
        report.fail(where, f"a number cannot be read: {exc}")
        return None
    parts = norm.accelerators(row["Hardware"], f"{where}: Hardware")
    known, engine, _ = norm.engine(row["Framework"], f"{where}: Framework")
    model = norm.model(row["Model"], f"{where}: Model")
    if parts is None or not known or model is None:
        return None
    if len(parts) != 1:
        report.fail(where, f"Hardware {row['Hardware']!r} maps to several parts")
        return None
    expected = 2 * batch * length
    if latency <= 0 or abs(throughput * latency - expected) > tolerance * expected:
        report.leave_out(
            where,
            f"units not documented: Throughput x Latency = "
            f"{throughput * latency:.6g}, not 2 x Batch Size x Input Output "
            f"Length = {expected} as the source's scripts define them",
        )
        return None
    values = tuple(
        row[c] for c in (*COLUMNS, units["latency"]["column"], units["throughput"]["column"])
    )
    return _Measurement(
        values,
        parts[0].id,
        engine,
        model[0],
        count,
        length,
        batch,
        latency,
        throughput,
        {c: row[c] for c in COLUMNS},
    )


def _parallelism(
    raw: str, count: int, rules: dict[str, Any], where: str, report: ImportReport
) -> dict[str, int] | None:
    table = {clean(k).casefold(): v for k, v in (rules.get("parallelism") or {}).items()}
    spec = table.get(clean(raw).casefold())
    if spec is None:
        report.unknown_string("parallelism type", raw, where)
        return None
    sizes = {k: (count if v == "all" else int(v)) for k, v in spec.items()}
    report.use("parallelism type", raw, ", ".join(f"{k}={v}" for k, v in spec.items()))
    used = sizes.get("tensor", 1) * sizes.get("pipeline", 1) * sizes.get("data", 1)
    if used > count or sizes.get("expert", 1) > count:
        report.fail(where, f"parallelism {sizes} needs more than the row's {count} accelerators")
        return None
    return sizes


def _runs(
    found: dict[tuple[str, ...], _Measurement],
    rules: dict[str, Any],
    commit: str | None,
    report: ImportReport,
) -> list[dict[str, Any]]:
    by_id: dict[str, list[_Measurement]] = {}
    for m in found.values():
        tag = "-".join(
            f"{k[0]}p{m.parallelism[k]}"
            for k in ("tensor", "pipeline", "expert", "data")
            if k in m.parallelism
        )
        base = slug(
            "argonne",
            m.accelerator,
            f"x{m.count}",
            m.engine or "",
            m.model,
            f"io{m.length}",
            f"bs{m.batch}",
            tag,
        )
        by_id.setdefault(base, []).append(m)
    table_order = {t["path"]: i for i, t in enumerate(rules.get("tables") or [])}
    runs = []
    for base, items in sorted(by_id.items()):
        items.sort(key=lambda m: (table_order.get(m.sources[0][0], 99), m.sources[0][1]))
        for n, m in enumerate(items, start=1):
            runs.append(
                _record(base if n == 1 else f"{base}-{n}", m, rules, commit, repeated=len(items))
            )
    return runs


def _record(
    run_id: str, m: _Measurement, rules: dict[str, Any], commit: str | None, repeated: int
) -> dict[str, Any]:
    units = rules["units"]
    repo = rules["repository"]
    sources = [
        source_entry(
            publisher=rules["publisher"],
            title=rules["title"],
            url=(f"https://github.com/{repo}/blob/{commit}/{quote(path)}" if commit else None),
            repository=repo,
            commit=commit,
            path=path,
            row=str(line),
            licence=rules["licence"],
            kind=rules.get("kind"),
        )
        for path, line in m.sources
    ]
    sources += argonne_power.sources(
        m,
        rules,
        commit,
        lambda path: f"https://github.com/{repo}/blob/{commit}/{quote(path)}" if commit else None,
    )
    notes = []
    if m.derived is not None:
        sources += [source_entry(**src) for src in m.derived["sources"]]
        notes.append(m.derived["note"])
    if repeated > 1:
        notes.append(
            f"The tables hold {repeated} different measurements of this "
            "configuration; each is a run."
        )
    if len(m.sources) > 1:
        notes.append(f"The same row appears {len(m.sources)} times in the tables; imported once.")
    omitted = ["engine version"]
    if not m.parallelism:
        omitted.append("parallelism")
    record = {
        "id": run_id,
        "title": f"LLM-Inference-Bench: {m.raw['Model']} on {m.count}x {m.raw['Hardware']} "
        f"with {m.raw['Framework']}, {m.length} in / {m.length} out tokens, batch "
        f"{m.batch}",
        "category": "inference/research",
        "status": rules["status"],
        "confidence": rules["confidence"],
        "metric": units["throughput"]["metric"],
        "value": m.throughput,
        "unit": units["throughput"]["unit"],
        "model": m.model,
        "engine": m.engine,
        "accelerators": [m.accelerator],
        "accelerator_count": m.count,
        "system": (m.derived or {}).get("system"),
        "parallelism": dict(sorted(m.parallelism.items())) or None,
        "workload": {"input_tokens": m.length, "output_tokens": m.length, "batch_size": m.batch},
        "measured_by": rules["measured_by"],
        "methodology": units["evidence"],
        "measurements": [
            {
                "metric": units["latency"]["metric"],
                "value": m.latency,
                "unit": units["latency"]["unit"],
            },
            {
                "metric": units["per_accelerator"],
                "value": float(f"{m.throughput / m.count:.8g}"),
                "unit": units["throughput"]["unit"],
                "derived": True,
                "note": f"derived: the headline value divided by accelerator_count ({m.count}), "
                "rounded to 8 significant digits; not published by the source",
            },
            *argonne_power.measurements(m, rules),
        ],
        "omitted_by_source": omitted,
        "notes": " ".join(notes) or None,
        "source": sources,
    }
    return {k: v for k, v in record.items() if v is not None}
