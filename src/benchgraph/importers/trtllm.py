"""Import NVIDIA's TensorRT-LLM performance overview tables: one run per table cell.

The overview (`docs/source/performance/perf-overview.md` of NVIDIA/TensorRT-LLM) gives
output-token throughput per model, GPU, precision, tensor- and pipeline-parallel size and
input/output length, in two layouts:

- v0.17 and before: one wide table, "Throughput (tokens / sec) | | GPU | <GPU names>", a
  "Precision" row, then rows of model, tensor-parallel size and "ISL, OSL" (an empty model
  or size cell repeats the one above);
- later: a `####` section per model, tables "Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4)
  | ...", and for the RTX 6000 Pro Blackwell Server Edition, named on the line above its
  table, columns "**4 GPUs**<br/>TP2,PP2 (FP4)".

An empty cell is not a run. A table row with more or fewer cells than its header is an
error, but one extra empty cell at the end is not (the Online Serving table's rows end in
`||`). A cell that is not a number, a GPU or model name the mapping does not know, a ragged
row: each is reported with file, line and cell, and then nothing is written. Names go
through `mappings/trtllm.yaml`.

The source is a folder of `<commit>.md` copies of the file (as `../shared` keeps them), or
a checkout of the repository, whose history of the file is read with git: each distinct
version once, from the first commit that has it.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
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

RUNS = "benchmarks/trtllm-perf"
SYSTEMS = "systems/trtllm-perf"
COMMIT_FILE = re.compile(r"^[0-9a-f]{40}\.md$")
_SEPARATOR = re.compile(r"^\s*:?-+:?\s*$")
_NUMBER = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
_WIDE_HEAD = re.compile(
    r"^(?P<gpu>[^<]+?)\s*<br\s*/?>\s*TP(?P<tp>\d+)(?:\s*,\s*PP(?P<pp>\d+))?"
    r"\s*\((?P<precision>[A-Za-z0-9]+)\)$"
)
_GPUS_HEAD = re.compile(
    r"^\*\*(?P<n>\d+) GPUs?\*\*\s*<br\s*/?>\s*TP(?P<tp>\d+)\s*,\s*PP(?P<pp>\d+)"
    r"\s*\((?P<precision>[A-Za-z0-9]+)\)$"
)
_VERSION = re.compile(r"generated using version\s+v?(?P<v>\d+(?:\.\d+)+)", re.IGNORECASE)
HARDWARE_INTRO = "The following GPU variants were used for testing"


@dataclass
class Table:
    """A Markdown table: its rows as (line, cells) without the separator, where it sits."""

    line: int
    rows: list[tuple[int, list[str]]]
    section: str  # the nearest `##`/`###` heading above
    heading: str  # the nearest `####` heading above (the later layout's model)
    before: str  # the last text line above the table, if no heading came after it
    intro: str  # the section's text above the table


@dataclass
class Version:
    """One version of the overview: its commit, text and the file name it was read from."""

    commit: str
    text: str
    shown: str


@dataclass
class Cell:
    """One figure of a table: what the run is made of."""

    version: Version
    table: Table
    line: int
    column: str
    row_label: str
    model_raw: str
    gpu_raw: str
    precision: str
    tensor: int
    pipeline: int | None
    count: int
    count_stated: bool
    isl: int
    osl: int
    value: float
    raw: str
    engine_version: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


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
        versions = _versions(root, rules, commit)
        report.round = f"{len(versions)} version(s)"
        gpus = keyed(rules.get("gpus") or {}, "trtllm.yaml gpus")
        models = keyed(rules.get("models") or {}, "trtllm.yaml models")
        cells: list[Cell] = []
        for version in versions:
            cells += _read_version(version, rules, gpus, report)
        runs = [r for r in (_run(c, rules, gpus, models, report) for c in cells) if r]
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
                "metrics": {rules["metric"], rules["per_accelerator"]},
            },
        )
        report.records.update({"runs": len(runs), "systems": len(systems)})
        if write and out is not None and report.ok:
            head = header(
                "trtllm-perf <folder of <commit>.md copies, or a checkout of NVIDIA/TensorRT-LLM>",
                f"{rules['repository']} {rules['path']} at "
                + ", ".join(v.commit[:12] for v in versions),
            )
            report.files = write_records(out, {RUNS: runs, SYSTEMS: systems}, head)
            report.files += write_aliases(out, mapping_dir)
            report.written = True
    report.seconds = timer.seconds
    return report


# --- finding the versions ------------------------------------------------------------------
def _versions(root: Path, rules: dict[str, Any], commit: str | None) -> list[Version]:
    if root.is_file():
        name = commit or root.stem
        return [Version(name, root.read_text(encoding="utf-8"), root.as_posix())]
    if not root.is_dir():
        raise CannotRun(
            f"{root}: no such folder (expected a folder of <commit>.md copies of "
            f"{rules['path']}, or a checkout of {rules['repository']})"
        )
    copies = sorted(p for p in root.iterdir() if COMMIT_FILE.match(p.name))
    if copies:
        return [Version(p.stem, p.read_text(encoding="utf-8"), p.as_posix()) for p in copies]
    if (root / ".git").exists():
        return _history(root, rules["path"])
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


def _history(root: Path, rel: str) -> list[Version]:
    """Each distinct version of the file in the checkout's history, oldest first, from the
    first commit that has it (a version restored later is the same table)."""
    commits = _git(root, "log", "--reverse", "--format=%H", "--", rel).split()
    if not commits:
        raise CannotRun(f"{root}: the history has no {rel}")
    seen: set[str] = set()
    versions = []
    for sha in commits:
        try:
            blob = _git(root, "rev-parse", f"{sha}:{rel}").strip()
        except CannotRun:  # the commit deleted the file
            continue
        if blob in seen:
            continue
        seen.add(blob)
        versions.append(Version(sha, _git(root, "show", f"{sha}:{rel}"), f"{rel}@{sha[:12]}"))
    return versions


# --- reading one version's tables ------------------------------------------------------------
def split_cells(line: str) -> list[str]:
    """The cells of a Markdown table row, trimmed; the outer pipes are not cells."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


def tables(text: str) -> list[Table]:
    """Every table of a Markdown text, with the headings and text above it."""
    out: list[Table] = []
    section = heading = before = ""
    intro: list[str] = []
    lines = text.splitlines()
    i = 0
    fenced = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced  # a code block: its `#` lines and pipes are no Markdown
            i += 1
            continue
        if fenced:
            i += 1
            continue
        if stripped.startswith("|"):
            start = i
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append((i + 1, split_cells(lines[i])))
                i += 1
            rows = [(n, c) for n, c in block if not (c and all(_SEPARATOR.match(x) for x in c))]
            out.append(Table(start + 1, rows, section, heading, before, "\n".join(intro)))
            before = ""
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if m:
            if len(m.group(1)) <= 3:
                section, heading, intro = m.group(2).strip(), "", []
            else:
                heading = m.group(2).strip()
            before = ""
        elif stripped:
            before = stripped
            intro.append(stripped)
        i += 1
    return out


def check_shape(table: Table, shown: str, report: ImportReport) -> bool:
    """Every row as wide as the header; a trailing empty cell beyond it is no cell."""
    if not table.rows:
        return True
    head_line, head = table.rows[0]
    width = len(head)
    ok = True
    for n, (line, cells) in enumerate(table.rows):
        while len(cells) > width and cells[-1] == "":
            cells.pop()
        if len(cells) != width:
            report.fail(
                f"{shown}:{line}",
                f"the row has {len(cells)} cells, the table's header "
                f"(line {head_line}) has {width}: a ragged row",
            )
            ok = False
        table.rows[n] = (line, cells)
    return ok


def hardware_lines(text: str) -> set[str]:
    """The items of the file's "The following GPU variants were used for testing" list."""
    lines = text.splitlines()
    out: set[str] = set()
    for i, line in enumerate(lines):
        if HARDWARE_INTRO in line:
            for item in lines[i + 1 :]:
                if item.strip().startswith(("-", "*")):
                    out.add(clean(item.strip()[1:]))
                elif out and item.strip():
                    break
    return out


def _read_version(
    version: Version, rules: dict[str, Any], gpus: dict[str, Any], report: ImportReport
) -> list[Cell]:
    skip = {key(k): v for k, v in (rules.get("skip_sections") or {}).items()}
    cells: list[Cell] = []
    listed = {key(x) for x in hardware_lines(version.text)}
    for table in tables(version.text):
        where = f"{version.shown}:{table.line}"
        if not table.rows:
            continue
        first = table.rows[0][1]
        if key(table.section) in skip:
            check_shape(table, version.shown, report)
            report.leave_out(
                where, f"table under {table.section!r}: {clean(skip[key(table.section)])}"
            )
            continue
        if len(first) > 3 and key(first[2]) == "gpu":
            if check_shape(table, version.shown, report):
                cells += _read_wide(version, table, report)
        elif first and key(first[0]) == key("Sequence Length (ISL/OSL)"):
            if check_shape(table, version.shown, report):
                cells += _read_sections(version, table, gpus, report)
        else:
            report.leave_out(where, "not a results table (no GPU or sequence-length header)")
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


def _number(text: str, shown: str, line: int, column: str, report: ImportReport) -> float | None:
    if not _NUMBER.match(text):
        report.fail(
            f"{shown}:{line}",
            f"cell {column!r}: {text!r} is not a number (tokens per "
            "second, digits with an optional decimal point and thousands commas)",
        )
        return None
    return float(text.replace(",", ""))


def _lengths(
    text: str, sep: str, shown: str, line: int, report: ImportReport
) -> tuple[int, int] | None:
    parts = [p.strip() for p in text.split(sep)]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        report.fail(
            f"{shown}:{line}",
            f"cell {text!r} is not input and output lengths written 'ISL{sep}OSL'",
        )
        return None
    return int(parts[0]), int(parts[1])


def _read_wide(version: Version, table: Table, report: ImportReport) -> list[Cell]:
    """The v0.17 layout: GPUs across, a Precision row, then model, TP and 'ISL, OSL'."""
    shown = version.shown
    head = table.rows[0][1]
    gpu_names = head[3:]
    precisions: list[str] | None = None
    m = _VERSION.search(table.intro)
    engine_version = m.group("v") if m else None
    model = tp = ""
    out: list[Cell] = []
    for line, cells in table.rows[1:]:
        if key(cells[1]) == "precision":
            precisions = cells[3:]
            continue
        if key(cells[0]) == "model":
            continue
        model = cells[0] or model
        tp = cells[1] or tp
        if precisions is None:
            report.fail(f"{shown}:{line}", "a figure before the table's Precision row")
            return out
        if not model or not tp.isdigit():
            report.fail(
                f"{shown}:{line}",
                f"no model or tensor-parallel size (model {model!r}, size {tp!r}) for this row",
            )
            continue
        lengths = _lengths(cells[2], ",", shown, line, report)
        for gpu, precision, text in zip(gpu_names, precisions, cells[3:]):
            if not text:
                continue  # an empty cell is not a run
            value = _number(text, shown, line, gpu, report)
            if value is None or lengths is None:
                continue
            out.append(
                Cell(
                    version,
                    table,
                    line,
                    gpu,
                    f"{model} | {tp} | {cells[2]}",
                    model,
                    gpu,
                    precision,
                    int(tp),
                    None,
                    int(tp),
                    False,
                    lengths[0],
                    lengths[1],
                    value,
                    text,
                    engine_version,
                )
            )
    return out


def _read_sections(
    version: Version, table: Table, gpus: dict[str, Any], report: ImportReport
) -> list[Cell]:
    """The later layout: a `####` model section; columns 'GPU<br/>TPn (PREC)', or for the GPU
    named on the line above the table, '**N GPUs**<br/>TPn,PPm (PREC)'."""
    shown = version.shown
    head_line, head = table.rows[0]
    columns = []
    for text in head[1:]:
        many = _GPUS_HEAD.match(text)
        wide = None if many else _WIDE_HEAD.match(text)
        if wide:
            pp = wide.group("pp")
            tp = int(wide.group("tp"))
            columns.append(
                (
                    clean(wide.group("gpu")),
                    tp,
                    int(pp) if pp else None,
                    tp * (int(pp) if pp else 1),
                    False,
                    wide.group("precision"),
                )
            )
        elif many:
            gpu = table.before
            if not gpu or key(gpu) not in gpus:
                report.fail(
                    f"{shown}:{head_line}",
                    f"column {text!r} names no GPU, and the line "
                    f"above the table ({gpu!r}) is not a GPU the mapping knows",
                )
                return []
            n, tp, pp = int(many.group("n")), int(many.group("tp")), int(many.group("pp"))
            if n != tp * pp:
                report.fail(f"{shown}:{head_line}", f"column {text!r}: {n} GPUs is not TP x PP")
                return []
            columns.append((gpu, tp, pp, n, True, many.group("precision")))
        else:
            report.fail(
                f"{shown}:{head_line}",
                f"column {text!r} is neither 'GPU<br/>TPn "
                "(PRECISION)' nor '**N GPUs**<br/>TPn,PPm (PRECISION)'",
            )
            return []
    if not table.heading:
        report.fail(f"{shown}:{head_line}", "no '####' model heading above the table")
        return []
    out: list[Cell] = []
    for line, cells in table.rows[1:]:
        lengths = _lengths(cells[0], "/", shown, line, report)
        for (gpu, tp, pp, count, stated, precision), column, text in zip(
            columns, head[1:], cells[1:]
        ):
            if not text:
                continue  # an empty cell is not a run
            value = _number(text, shown, line, column, report)
            if value is None or lengths is None:
                continue
            out.append(
                Cell(
                    version,
                    table,
                    line,
                    column.replace("<br/>", " "),
                    f"{cells[0]}",
                    table.heading,
                    gpu,
                    precision,
                    tp,
                    pp,
                    count,
                    stated,
                    lengths[0],
                    lengths[1],
                    value,
                    text,
                )
            )
    return out


# --- records -----------------------------------------------------------------------------------
def _source(rules: dict[str, Any], commit: str, **extra: Any) -> dict[str, Any]:
    return source_entry(
        publisher=rules["publisher"],
        title=rules["title"],
        url=f"https://github.com/{rules['repository']}/blob/{commit}/{rules['path']}",
        repository=rules["repository"],
        commit=commit,
        path=rules["path"],
        licence=rules["licence"],
        **extra,
    )


def _run(
    c: Cell,
    rules: dict[str, Any],
    gpus: dict[str, Any],
    models: dict[str, Any],
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
    report.use(
        "GPU", c.gpu_raw, spec["accelerator"] + (" (derived)" if spec.get("derived") else "")
    )
    report.use("model", c.model_raw, model)
    table_name = c.table.heading or c.table.section
    sources = [
        _source(
            rules,
            c.version.commit,
            row=str(c.line),
            note=(
                f"table {table_name!r} (header at line {c.table.line}), row {c.row_label!r} (line "
                f"{c.line}), column {c.column!r}: {c.raw}"
            ),
        )
    ]
    notes = [caveat(c.version.text)]
    omitted = []
    if spec.get("derived"):
        sources += [source_entry(**s) for s in spec["derived"]["sources"]]
        notes.append(clean(spec["derived"]["note"]))
    if spec.get("system"):
        notes.append(f"The file's Hardware list names the system: {spec['hardware_line']!r}.")
    elif spec.get("unrecorded_system"):
        notes.append(
            f"The file's Hardware list names the system ({spec['hardware_line']!r}); "
            f"no source read states the {spec['unrecorded_system']}'s GPU count, so "
            "the run names no system record."
        )
    if c.pipeline is None:
        omitted.append("pipeline parallel size")
    if not c.count_stated:
        notes.append(
            f"The table gives the tensor-parallel size ({c.tensor}) and no GPU count; "
            "the count is taken as that size (no pipeline size is given)."
        )
    if c.engine_version is None:
        omitted.append("engine version")
    omitted += ["expert parallel size", "batch size", "dataset"]
    parallelism = {"tensor": c.tensor}
    if c.pipeline is not None:
        parallelism["pipeline"] = c.pipeline
    split = f"tp{c.tensor}" + (f"-pp{c.pipeline}" if c.pipeline is not None else "")
    run_id = slug(
        "trtllm",
        c.version.commit[:12],
        model,
        spec["accelerator"],
        split,
        c.precision.lower(),
        f"{c.isl}-{c.osl}",
    )
    measurements = [
        {
            "metric": rules["per_accelerator"],
            "value": float(f"{c.value / c.count:.8g}"),
            "unit": rules["unit"],
            "derived": True,
            "note": f"derived: the headline value divided by accelerator_count ({c.count}), "
            "rounded to 8 significant digits; not published by the source",
        }
    ]
    record = {
        "id": run_id,
        "title": f"TensorRT-LLM performance overview: {c.model_raw} on {c.count}x {c.gpu_raw} "
        f"({split.upper().replace('-', ' x ')}, {c.precision}), {c.isl} in / {c.osl} "
        "out tokens",
        "category": "inference/vendor",
        "status": rules["status"],
        "confidence": rules["confidence"],
        "metric": rules["metric"],
        "value": c.value,
        "unit": rules["unit"],
        "model": model,
        "engine": rules["engine"],
        "engine_version": c.engine_version,
        "accelerators": [spec["accelerator"]],
        "accelerator_count": c.count,
        "system": spec.get("system"),
        "parallelism": parallelism,
        "workload": {"input_tokens": c.isl, "output_tokens": c.osl},
        "settings": {"precision": c.precision},
        "measured_by": rules["measured_by"],
        "measurements": measurements,
        "omitted_by_source": omitted,
        "notes": " ".join(n for n in notes if n),
        "source": sources,
    }
    return {k: v for k, v in record.items() if v is not None}


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
                        v.commit,
                        states=["name", "accelerators"],
                        note=(f'"{HARDWARE_INTRO}:" ... "{spec["hardware_line"]}"'),
                    )
                    for v in stating
                ]
                + [source_entry(**spec["count_source"])],
            }
        )
    return out
