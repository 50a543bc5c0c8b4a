"""Import NVIDIA's TensorRT-LLM performance overview tables: one run per table cell.

The overview (`docs/source/performance/perf-overview.md` of NVIDIA/TensorRT-LLM, moved to
`docs/source/developer-guide/perf-overview.md`) gives output-token throughput per model, GPU,
precision, parallel split and input/output length. Its layouts are read by
`trtllm_tables.py`; this module finds the versions, maps names and writes the records.

An empty cell is not a run. A cell or row that cannot be read (a cell that is not a number,
a ragged row) is left out and listed in the report with its file and line, and the rest is
imported. A results table whose header the importer does not know, and a GPU, model or unit
name the mapping does not know, is an error: it is reported with file, line and cell, every
file is still read (so that every problem is listed at once), and then nothing is written
(the mapping and the reader are the project's to complete). Names go through
`mappings/trtllm.yaml`. A file larger than MAX_BYTES, or one whose tables hold more than
MAX_CELLS cells, is an error before its tables are read: the import's memory stays bounded.

A DEP split ('DEP4', 'DEP2,PP2') is recorded as attention data parallelism and expert
parallelism of its size (`parallelism.attention_data`, `parallelism.expert`), marked derived:
the file writes the split and never spells it out, and the runs cite what the reading rests on
(the mapping's `dep_split`).

The figure's metric is what the table says: a total output throughput where the file gives
no unit line (the v0.17 and v1.0 tables, "Total Output Throughput (tokens/sec)"), or the
metric the mapping's `units` gives for the unit line under the table (the developer guide's
"unit: `output tokens per second per GPU`": per accelerator, as published, the headline; its
total, the figure times the GPU count, is a measurement marked derived, so that a question of
totals, such as scaling-by-fabric's, reads these runs as it reads the others).

The source is a folder of `<commit>.md` copies of the file (as `../shared` keeps them), or
a checkout of the repository, whose history of the file (at either path) is read with git:
each distinct version once, from the first commit that has it.
"""

from __future__ import annotations

import re
import subprocess
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
    header,
    key,
    keyed,
    load_mapping,
    slug,
    source_entry,
    write_records,
)
from .trtllm_tables import (
    HARDWARE_INTRO,
    SEQUENCE_HEAD,
    Cell,
    UnknownHeader,
    Version,
    hardware_lines,
    keep_rows,
    read_sections,
    read_wide,
    split_cells,
    tables,
)

__all__ = ["import_trtllm", "split_cells", "tables"]

RUNS = "benchmarks/trtllm-perf"
SYSTEMS = "systems/trtllm-perf"
COMMIT_FILE = re.compile(r"^[0-9a-f]{40}\.md$")
# Bounds on one version of the file, checked before it is read: the largest published version
# is 35 KB with 1,790 table cells. Past them the file is refused (an error naming it),
# so a 200 MB line or a table of a million rows is never held in memory.
MAX_BYTES = 1 << 20
MAX_CELLS = 20_000


def import_trtllm(
    path: Path | str,
    out_dir: Path | str | None = None,
    *,
    commit: str | None = None,
    mapping_dir: Path | None = None,
    write: bool = True,
) -> ImportReport:
    """Import every version of the overview found at path into out_dir."""
    root = Path(path)
    report = ImportReport("TensorRT-LLM performance overview")
    with Timer() as timer:
        rules = load_mapping("trtllm", mapping_dir)
        versions = _versions(root, rules, commit, report)
        report.round = f"{len(versions)} version(s)"
        gpus = keyed(rules.get("gpus") or {}, "trtllm.yaml gpus")
        models = keyed(rules.get("models") or {}, "trtllm.yaml models")
        units = keyed(rules.get("units") or {}, "trtllm.yaml units")
        cells: list[Cell] = []
        for version in versions:
            cells += _read_version(version, rules, gpus, report)
        runs = [r for r in (_run(c, rules, gpus, models, units, report) for c in cells) if r]
        systems = _systems(versions, cells, rules, gpus)
        check_ids(runs, report, "runs")
        check_ids(systems, report, "systems")
        out = Path(out_dir) if out_dir is not None else None
        check_references(
            report,
            out,
            {
                "accelerators": {g["accelerator"] for g in gpus.values()},
                "models": set(models.values()),
                "engines": {rules["engine"]},
                "metrics": {rules["metric"], rules["per_accelerator"]}
                | {u["metric"] for u in units.values()},
            },
        )
        report.records.update({"runs": len(runs), "systems": len(systems)})
        if write and out is not None and report.ok:
            paths = sorted({v.path for v in versions})
            head = header(
                "trtllm-perf <folder of <commit>.md copies, or a checkout of NVIDIA/TensorRT-LLM>",
                f"{rules['repository']} {', '.join(paths)} at "
                + ", ".join(v.commit[:12] for v in versions),
            )
            report.files = write_records(out, {RUNS: runs, SYSTEMS: systems}, head)
            report.files += write_aliases(out, mapping_dir)
            report.written = True
    report.seconds = timer.seconds
    return report


# --- finding the versions ------------------------------------------------------------------
def _paths(rules: dict[str, Any]) -> list[str]:
    """The paths the file has had in the repository, as the mapping lists them."""
    return [rules["path"], *(rules.get("moved_to") or [])]


def _path_of_copy(rules: dict[str, Any], commit: str) -> str:
    """A copy's path at its commit: the mapping's `copies` table (from the copies' SOURCE),
    else the file's first path."""
    return (rules.get("copies") or {}).get(commit, rules["path"])


def _too_large(size: int, where: str, report: ImportReport) -> bool:
    """Whether a version is over MAX_BYTES (then an error naming it: it is not read)."""
    if size <= MAX_BYTES:
        return False
    report.fail(
        where,
        f"{size:,} bytes, over the {MAX_BYTES:,} a version of the performance overview is read "
        "to (the largest published is 35 KB): not read",
    )
    return True


def _copy(path: Path, name: str, rules: dict[str, Any], report: ImportReport) -> list[Version]:
    """A `<commit>.md` copy as a version, or none where it is too large to read."""
    if _too_large(path.stat().st_size, path.as_posix(), report):
        return []
    text = path.read_text(encoding="utf-8")
    return [Version(name, text, path.as_posix(), _path_of_copy(rules, name))]


def _versions(
    root: Path, rules: dict[str, Any], commit: str | None, report: ImportReport
) -> list[Version]:
    if root.is_file():
        return _copy(root, commit or root.stem, rules, report)
    if not root.is_dir():
        raise CannotRun(
            f"{root}: no such folder (expected a folder of <commit>.md copies of "
            f"{rules['path']}, or a checkout of {rules['repository']})"
        )
    copies = sorted(p for p in root.iterdir() if COMMIT_FILE.match(p.name))
    if copies:
        return [v for p in copies for v in _copy(p, p.stem, rules, report)]
    if (root / ".git").exists():
        return _history(root, _paths(rules), report)
    raise CannotRun(f"{root}: holds no <commit>.md file and is no git checkout")


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise CannotRun(f"{root}: git {' '.join(args)} failed: {detail.strip()}") from exc
    return done.stdout


def _history(root: Path, paths: list[str], report: ImportReport) -> list[Version]:
    """Each distinct version of the file in the checkout's history (at any of its paths),
    oldest first, from the first commit that has it (a version restored later is the same
    table)."""
    commits = _git(root, "log", "--reverse", "--format=%H", "--", *paths).split()
    if not commits:
        raise CannotRun(f"{root}: the history has none of {', '.join(paths)}")
    seen: set[str] = set()
    versions = []
    for sha in commits:
        for rel in paths:
            try:
                blob = _git(root, "rev-parse", f"{sha}:{rel}").strip()
            except CannotRun:  # not at this path at this commit
                continue
            if blob not in seen:
                seen.add(blob)
                size = int(_git(root, "cat-file", "-s", blob))
                if not _too_large(size, f"{rel}@{sha[:12]}", report):
                    text = _git(root, "show", f"{sha}:{rel}")
                    versions.append(Version(sha, text, f"{rel}@{sha[:12]}", rel))
            break
    return versions


# --- reading one version's tables ------------------------------------------------------------
def _read_version(
    version: Version, rules: dict[str, Any], gpus: dict[str, Any], report: ImportReport
) -> list[Cell]:
    skip = {key(k): v for k, v in (rules.get("skip_sections") or {}).items()}
    cells: list[Cell] = []
    listed = {key(x) for x in hardware_lines(version.text)}
    found = tables(version.text)
    if _too_many_cells(found, version, report):
        return []
    for table in found:
        where = f"{version.shown}:{table.line}"
        if not table.rows:
            continue
        first = table.rows[0][1]
        keep_rows(table, version.shown, report)
        if key(table.section) in skip:
            report.leave_out(
                where, f"table under {table.section!r}: {clean(skip[key(table.section)])}"
            )
            continue
        try:
            if len(first) > 3 and key(first[2]) == "gpu":
                cells += read_wide(version, table, report)
            elif first and key(first[0]) == key(SEQUENCE_HEAD):
                cells += read_sections(version, table, gpus, report)
            else:
                report.leave_out(where, "not a results table (no GPU or sequence-length header)")
        except UnknownHeader as exc:
            report.fail(
                f"{version.shown}:{exc.line}",
                f"a results table whose header the importer does not know: {exc.why}",
            )
    cells = dep_counts(cells, version, report)
    for cell in cells:
        spec = gpus.get(key(cell.gpu_raw))
        line = (spec or {}).get("hardware_line")
        if line and key(line) not in listed:
            report.fail(
                f"{version.shown}:{cell.table.line}",
                f"GPU {cell.gpu_raw!r} maps by the Hardware list's line {line!r}, which "
                "this version of the file does not have",
            )
            break
    return cells


def _too_many_cells(found: list, version: Version, report: ImportReport) -> bool:
    """Whether the version's tables hold more than MAX_CELLS cells (then an error at the
    line of the table where they pass it, and the version is not read further)."""
    total = 0
    for table in found:
        total += sum(len(cells) for _, cells in table.rows)
        if total > MAX_CELLS:
            report.fail(
                f"{version.shown}:{table.line}",
                f"the tables hold more than {MAX_CELLS:,} cells by this one (the published "
                "versions hold under 2,000): not read",
            )
            return True
    return False


def dep_counts(cells: list[Cell], version: Version, report: ImportReport) -> list[Cell]:
    """A DEP split's GPU count where its column states none ('B200<br/>DEP4 (FP4)'): the
    file does not spell DEP out, but every column of it that states a count with a DEP
    split ('**4 GPUs**<br/>DEP2,PP2 (FP4)') has the DEP size x the PP size GPUs (checked as
    each column is read). With no such column in the version, such a figure is left out."""
    evidence = next((c for c in cells if c.split and c.count_stated), None)
    out = []
    for c in cells:
        if c.count is None:
            if evidence is None:
                report.leave_out(
                    f"{version.shown}:{c.line}",
                    f"cell left out: column {c.column!r} states no GPU count, and no column "
                    "of this version states one for a DEP split",
                )
                continue
            c.count = (c.dep or 0) * (c.pipeline or 1)
            c.count_from = evidence
        out.append(c)
    return out


_CAVEAT = re.compile(
    r"The data in the following tables is provided as a reference point.*?"
    r"delivered by TensorRT-LLM\.",
    re.DOTALL,
)


def caveat(text: str) -> str:
    """The vendor's caveat as this version of the file words it (its emphasis marks kept),
    for every run's note; nothing where a version has none."""
    m = _CAVEAT.search(text)
    if m is None:
        return ""
    return f'NVIDIA\'s caveat on these tables: "{clean(m.group(0))}"'


# --- records -----------------------------------------------------------------------------------
def _source(rules: dict[str, Any], version: Version, **extra: Any) -> dict[str, Any]:
    return source_entry(
        publisher=rules["publisher"],
        title=f"{rules['title']} ({version.path})",
        url=f"https://github.com/{rules['repository']}/blob/{version.commit}/{version.path}",
        repository=rules["repository"],
        commit=version.commit,
        path=version.path,
        licence=rules["licence"],
        **extra,
    )


def _quoted(pattern: str, text: str) -> str:
    """The first line of text matching pattern, cleaned; empty where the version has none."""
    m = re.search(pattern, text, re.MULTILINE)
    return clean(m.group(0)) if m else ""


def _dep_note(c: Cell, rules: dict[str, Any]) -> str:
    """What the file says of a DEP split, in its own words (it writes 'DEP4' and never spells
    it out), and what the run reads from it: attention data and expert parallel sizes,
    derived as the mapping's `dep_split` says."""
    text = c.version.text
    said = [
        f'the command "{q}"' if (q := _quoted(r"^trtllm-bench .*--ep \$ep_size.*$", text)) else "",
        f'its Variables table: "`$ep_size`" is "{m.group(1)}"'
        if (m := re.search(r"^\|\s*`\$ep_size`\s*\|\s*([^|]+?)\s*\|", text, re.MULTILINE))
        else "",
        '"enable_attention_dp: true" in the llm_options it gives for them'
        if "enable_attention_dp: true" in text
        else "",
    ]
    words = "; ".join(w for w in said if w) or "nothing"
    stated = f", pipeline parallel {c.pipeline} as the column states it" if c.pipeline else ""
    note = (
        f"The column writes the split {c.split!r}, which the file does not spell out; what it "
        f"says of the parallelism of its MoE models: {words}. The run records attention data "
        f"parallel {c.dep} and expert parallel {c.dep}, read from {c.split.split(',')[0]!r} "
        f"(derived: {clean(rules['dep_split']['note'])}){stated}; it gives no tensor-parallel "
        "size (the file states none for these splits) and keeps the split as written "
        "(settings.parallel_split)."
    )
    ev = c.count_from
    if ev is not None and not c.count_stated:
        note += (
            f" The column states no GPU count; the count is taken as the DEP size"
            f"{' x the PP size' if c.pipeline else ''} ({c.count}), as the file's columns "
            f"that state both have it, such as {ev.column!r} (line {ev.table.line})."
        )
    return note


def _unit_note(c: Cell, unit: str) -> str:
    line = c.unit[0] if c.unit else 0
    said = [
        _quoted(r"All performance values are measured in .*$", c.version.text),
        _quoted(r"Data in these tables is taken from .*$", c.version.text),
    ]
    note = (
        "The figure is per GPU, as published: the line under the table "
        f'(line {line}) reads "unit: `{unit}`".'
    )
    if any(said):
        note += " The file's Units section: " + " ".join(f'"{q}"' for q in said if q)
    return note


def _run(
    c: Cell,
    rules: dict[str, Any],
    gpus: dict[str, Any],
    models: dict[str, Any],
    units: dict[str, Any],
    report: ImportReport,
) -> dict[str, Any] | None:
    shown = c.version.shown
    spec = gpus.get(key(c.gpu_raw))
    if spec is None:
        report.unknown_string("GPU", c.gpu_raw, f"{shown}:{c.table.line}: column {c.column!r}")
        return None
    model = models.get(key(c.model_raw))
    if model is None:
        report.unknown_string("model", c.model_raw, f"{shown}:{c.line}")
        return None
    unit = units.get(key(c.unit[1])) if c.unit else None
    if c.unit and unit is None:
        report.unknown_string("unit", c.unit[1], f"{shown}:{c.unit[0]}")
        return None
    report.use(
        "GPU", c.gpu_raw, spec["accelerator"] + (" (derived)" if spec.get("derived") else "")
    )
    report.use("model", c.model_raw, model)
    table_name = c.table.heading or c.table.section
    sources = [
        _source(
            rules,
            c.version,
            row=str(c.line),
            note=(
                f"table {table_name!r} (header at line {c.table.line}), row {c.row_label!r} (line "
                f"{c.line}), column {c.column!r}: {c.raw}"
            ),
        )
    ]
    if spec.get("derived"):
        sources += [source_entry(**s) for s in spec["derived"]["sources"]]
    if c.split:
        sources += [source_entry(**s) for s in rules["dep_split"]["sources"]]
    notes = _notes(c, spec, unit, rules)
    omitted = _omitted(c)
    parallelism = {"tensor": c.tensor} if c.tensor is not None else {}
    if c.dep is not None:  # as the split gives them: DEPn, attention data and expert n
        parallelism.update(attention_data=c.dep, expert=c.dep)
    if c.pipeline is not None:
        parallelism["pipeline"] = c.pipeline
    split = (f"dep{c.dep}" if c.split else f"tp{c.tensor}") + (
        f"-pp{c.pipeline}" if c.pipeline is not None else ""
    )
    run_id = slug(
        "trtllm",
        c.version.commit[:12],
        model,
        spec["accelerator"],
        split,
        c.precision.lower(),
        f"{c.isl}-{c.osl}",
    )
    settings = {"precision": c.precision}
    if c.split:
        settings["parallel_split"] = c.split
    metric, value, unit_text, measurements = _headline(c, rules, unit)
    record = {
        "id": run_id,
        "title": f"TensorRT-LLM performance overview: {c.model_raw} on {c.count}x {c.gpu_raw} "
        f"({split.upper().replace('-', ' x ')}, {c.precision}), {c.isl} in / {c.osl} "
        "out tokens",
        "category": "inference/vendor",
        "status": rules["status"],
        "confidence": rules["confidence"],
        "metric": metric,
        "value": value,
        "unit": unit_text,
        "model": model,
        "engine": rules["engine"],
        "engine_version": c.engine_version,
        "accelerators": [spec["accelerator"]],
        "accelerator_count": c.count,
        "system": spec.get("system"),
        "parallelism": parallelism or None,
        "workload": {"input_tokens": c.isl, "output_tokens": c.osl},
        "settings": settings,
        "measured_by": rules["measured_by"],
        "measurements": measurements,
        "omitted_by_source": omitted,
        "notes": " ".join(n for n in notes if n),
        "source": sources,
    }
    return {k: v for k, v in record.items() if v is not None}


def _notes(
    c: Cell, spec: dict[str, Any], unit: dict[str, Any] | None, rules: dict[str, Any]
) -> list[str]:
    """A run's notes: the file's caveat, then what the GPU's table row, the unit and the
    parallel split add."""
    notes = [caveat(c.version.text)]
    if spec.get("derived"):
        notes.append(clean(spec["derived"]["note"]))
    if spec.get("system"):
        notes.append(f"The file's Hardware list names the system: {spec['hardware_line']!r}.")
    elif spec.get("unrecorded_system"):
        notes.append(
            f"The file's Hardware list names the system ({spec['hardware_line']!r}); "
            f"no source read states the {spec['unrecorded_system']}'s GPU count, so "
            "the run names no system record."
        )
    if unit is not None:
        notes.append(_unit_note(c, c.unit[1]))  # type: ignore[index]
    if c.split:
        notes.append(_dep_note(c, rules))
    if not c.count_stated and not c.split:
        notes.append(
            f"The table gives the tensor-parallel size ({c.tensor}) and no GPU count; "
            + (
                "the count is taken as that size (no pipeline size is given)."
                if c.pipeline is None
                else f"the count is taken as TP x PP ({c.count})."
            )
        )
    return notes


def _omitted(c: Cell) -> list[str]:
    """What the table leaves unsaid of a run."""
    omitted = []
    if c.split:
        omitted.append("tensor parallel size")
    if c.pipeline is None:
        omitted.append("pipeline parallel size")
    if c.engine_version is None:
        omitted.append("engine version")
    if not c.split:
        omitted.append("expert parallel size")
    return [*omitted, "batch size", "dataset"]


def _headline(
    c: Cell, rules: dict[str, Any], unit: dict[str, Any] | None
) -> tuple[str, Any, str, list[dict[str, Any]]]:
    """The headline (metric, value, unit) as published, and the other figure derived from it:
    the figure per accelerator from a total, or the total from a figure per GPU."""
    if unit is None:  # a total: the figure per accelerator is derived
        metric, unit_text, other = rules["metric"], rules["unit"], rules["per_accelerator"]
        figure = c.value / c.count  # type: ignore[operator]
        how = (
            f"the headline value divided by accelerator_count ({c.count}), rounded to 8 "
            "significant digits; not published by the source"
        )
    else:  # as published, per GPU: the headline; the total is derived from it
        metric, unit_text, other = unit["metric"], unit["unit"], rules["metric"]
        figure = c.value * c.count  # type: ignore[operator]
        how = (
            f"the headline figure per GPU times accelerator_count ({c.count}), rounded to 8 "
            "significant digits; the source publishes the figure per GPU only"
        )
    derived = {
        "metric": other,
        "value": float(f"{figure:.8g}"),
        "unit": rules["unit"],
        "derived": True,
        "note": f"derived: {how}",
    }
    return metric, c.value, unit_text, [derived]


def _systems(
    versions: list[Version], cells: list[Cell], rules: dict[str, Any], gpus: dict[str, Any]
) -> list[dict[str, Any]]:
    """A record for each system the runs name, cited to every version whose Hardware list
    names it."""
    used = {gpus[key(c.gpu_raw)].get("system") for c in cells if key(c.gpu_raw) in gpus}
    out = []
    for sys_id, spec in sorted((rules.get("systems") or {}).items()):
        if sys_id not in used:
            continue
        stating = [
            v
            for v in versions
            if key(spec["hardware_line"]) in {key(x) for x in hardware_lines(v.text)}
        ]
        out.append(
            {
                "id": sys_id,
                "name": spec["name"],
                "vendor": "nvidia",
                "accelerators": [{"id": spec["accelerator"], "count": spec["count"]}],
                "nodes": spec["nodes"],
                "notes": f"The system NVIDIA names for its TensorRT-LLM performance overview: "
                f"{spec['hardware_line']!r}. That list names the GPU, not how many the "
                "system holds: the count comes from NVIDIA's own MLPerf Inference system "
                "description of the system. Each run gives the GPUs it used of it.",
                "source": [
                    _source(
                        rules,
                        v,
                        states=["name", "accelerators"],
                        note=(f'"{HARDWARE_INTRO}:" ... "{spec["hardware_line"]}"'),
                    )
                    for v in stating
                ]
                + [source_entry(**spec["count_source"])],
            }
        )
    return out
