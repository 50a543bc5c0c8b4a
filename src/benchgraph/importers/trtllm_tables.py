"""The tables of NVIDIA's TensorRT-LLM performance overview, read into cells (one per figure).

Three layouts, each from the file itself:

- v0.17 and before: one wide table, "Throughput (tokens / sec) | | GPU | <GPU names>", a
  "Precision" row, then rows of model, tensor-parallel size and "ISL, OSL" (an empty model
  or size cell repeats the one above);
- v1.0: a `####` section per model, tables "Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4)
  | ...", and for the RTX 6000 Pro Blackwell Server Edition, named on the line above its
  table, columns "**4 GPUs**<br/>TP2,PP2 (FP4)";
- the developer guide (docs/source/developer-guide/perf-overview.md): a `#` section per model
  ("Deepseek R1 0528", "LLaMA v3.3 70B - RTX 6000 Pro Blackwell Server Edition": the GPU of
  "**N GPUs**" columns after " - "), splits written "DEP4" or "DEP2,PP2" besides "TP1,PP1",
  and a line under each table giving its unit ("unit: `output tokens per second per GPU`").

A row or cell that cannot be read is left out and reported with file and line: a cell that
is not a number, a row that is ragged or has no lengths; the rest of the file is read on. A
results table whose header the importer does not know (a column it cannot read, no model
heading, no GPU) is an error naming file and line (UnknownHeader): the import reports it
with every other problem and writes nothing, as for an unknown GPU name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ImportReport, clean, key

_SEPARATOR = re.compile(r"^\s*:?-+:?\s*$")
_NUMBER = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
# 'B200<br/>TP1 (FP4)', 'B200<br/>DEP4 (FP4)', '**4 GPUs**<br/>DEP2,PP2 (FP4)'
_COLUMN = re.compile(
    r"^(?:\*\*(?P<n>\d+) GPUs?\*\*|(?P<gpu>[^<*][^<]*?))\s*<br\s*/?>\s*"
    r"(?P<kind>TP|DEP)(?P<size>\d+)(?:\s*,\s*PP(?P<pp>\d+))?"
    r"\s*\((?P<precision>[A-Za-z0-9]+)\)$"
)
_UNIT = re.compile(r"^unit:\s*`(?P<unit>[^`]+)`$")
_VERSION = re.compile(r"generated using version\s+v?(?P<v>\d+(?:\.\d+)+)", re.IGNORECASE)
HARDWARE_INTRO = "The following GPU variants were used for testing"
SEQUENCE_HEAD = "Sequence Length (ISL/OSL)"


class UnknownHeader(Exception):
    """A results table whose header the importer does not know: the line and why."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why


@dataclass
class Table:
    """A Markdown table: its rows as (line, cells) without the separator, where it sits."""

    line: int
    rows: list[tuple[int, list[str]]]
    section: str  # the nearest `#`/`##`/`###` heading above
    heading: str  # the nearest `####` heading above, after that section's heading
    before: str  # the last text line above the table, if no heading came after it
    intro: str  # the section's text above the table
    nearest: str = ""  # the nearest heading above, of any level
    after: tuple[int, str] | None = None  # the first text line below, before any heading


@dataclass
class Version:
    """One version of the overview: its commit, text, the file name it was read from and
    the path the file had in the repository at that commit."""

    commit: str
    text: str
    shown: str
    path: str


@dataclass
class Column:
    """What a figure column's header states."""

    text: str
    gpu: str
    kind: str  # "TP" or "DEP", as the header writes the split
    size: int
    pipeline: int | None
    count: int | None  # None: a DEP split without a stated GPU count
    stated: bool  # the header states the GPU count ("**4 GPUs**")
    precision: str

    @property
    def split(self) -> str:
        """The split as the header writes it: 'TP1', 'DEP2,PP2'."""
        return f"{self.kind}{self.size}" + (
            f",PP{self.pipeline}" if self.pipeline is not None else ""
        )


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
    tensor: int | None
    pipeline: int | None
    count: int | None
    count_stated: bool
    isl: int
    osl: int
    value: float
    raw: str
    engine_version: str | None = None
    split: str = ""  # as the header writes it, for a DEP split
    dep: int | None = None  # the DEP size of that split
    unit: tuple[int, str] | None = None  # the table's unit line: (line, unit)
    count_from: Cell | None = None  # the column whose stated count settles a DEP count


def split_cells(line: str) -> list[str]:
    """The cells of a Markdown table row, trimmed; the outer pipes are not cells."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


def tables(text: str) -> list[Table]:
    """Every table of a Markdown text, with the headings and text above and below it."""
    out: list[Table] = []
    section = heading = before = nearest = ""
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
            table = Table(start + 1, rows, section, heading, before, "\n".join(intro), nearest)
            table.after = _line_after(lines, i)
            out.append(table)
            before = ""
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if m:
            nearest = m.group(2).strip()
            if len(m.group(1)) <= 3:
                section, heading, intro = nearest, "", []
            else:
                heading = nearest
            before = ""
        elif stripped:
            before = stripped
            intro.append(stripped)
        i += 1
    return out


def _line_after(lines: list[str], i: int) -> tuple[int, str] | None:
    """The first non-empty line from index i, unless a heading, table or fence comes first."""
    for n in range(i, len(lines)):
        text = lines[n].strip()
        if text:
            return None if text.startswith(("#", "|", "```", "~~~")) else (n + 1, text)
    return None


def keep_rows(table: Table, shown: str, report: ImportReport) -> None:
    """Every row as wide as the header; a trailing empty cell beyond it is no cell (the
    Online Serving table's rows end in `||`). A ragged row is left out and reported."""
    if not table.rows:
        return
    head_line, head = table.rows[0]
    width = len(head)
    kept = []
    for line, cells in table.rows:
        while len(cells) > width and cells[-1] == "":
            cells.pop()
        if len(cells) != width:
            report.leave_out(
                f"{shown}:{line}",
                f"row left out: it has {len(cells)} cells, the table's header "
                f"(line {head_line}) has {width}: a ragged row",
            )
            continue
        kept.append((line, cells))
    table.rows = kept


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


def _number(text: str, shown: str, line: int, column: str, report: ImportReport) -> float | None:
    if not _NUMBER.match(text):
        report.leave_out(
            f"{shown}:{line}",
            f"cell left out: column {column!r}: {text!r} is not a number (tokens per "
            "second, digits with an optional decimal point and thousands commas)",
        )
        return None
    value = float(text.replace(",", ""))
    if not 0 < value < 1e15:  # 400 digits would be written as infinity; 0 is no throughput
        report.leave_out(
            f"{shown}:{line}",
            f"cell left out: column {column!r}: {text[:40]!r} is not a throughput a table "
            "gives (above 0 and under 10^15 tokens per second)",
        )
        return None
    return value


def _figure(
    text: str, version: Version, table: Table, line: int, named: str, report: ImportReport, **fields
) -> Cell | None:
    """A figure cell as a Cell; None where it is empty (no run) or not a number (left out and
    reported with its line and its column, `named`)."""
    if not text:
        return None
    value = _number(text, version.shown, line, named, report)
    if value is None:
        return None
    return Cell(version=version, table=table, line=line, value=value, raw=text, **fields)


def _lengths(
    text: str, sep: str, shown: str, line: int, report: ImportReport
) -> tuple[int, int] | None:
    parts = [p.strip() for p in text.split(sep)]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        report.leave_out(
            f"{shown}:{line}",
            f"row left out: {text!r} is not input and output lengths written 'ISL{sep}OSL'",
        )
        return None
    return int(parts[0]), int(parts[1])


def read_wide(version: Version, table: Table, report: ImportReport) -> list[Cell]:
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
            raise UnknownHeader(line, "a figure before the table's Precision row")
        if not model or not tp.isdigit():
            report.leave_out(
                f"{shown}:{line}",
                f"row left out: no model or tensor-parallel size (model {model!r}, size {tp!r})",
            )
            continue
        lengths = _lengths(cells[2], ",", shown, line, report)
        if lengths is None:
            continue
        for gpu, precision, text in zip(gpu_names, precisions, cells[3:]):
            cell = _figure(
                text,
                version,
                table,
                line,
                gpu,
                report,
                column=gpu,
                row_label=f"{model} | {tp} | {cells[2]}",
                model_raw=model,
                gpu_raw=gpu,
                precision=precision,
                tensor=int(tp),
                pipeline=None,
                count=int(tp),
                count_stated=False,
                isl=lengths[0],
                osl=lengths[1],
                engine_version=engine_version,
            )
            if cell is not None:
                out.append(cell)
    return out


def _gpu_of_heading(heading: str, gpus: dict) -> tuple[str, str]:
    """A heading 'MODEL - GPU' split into model and GPU where GPU is one the mapping knows;
    otherwise the whole heading is the model."""
    model, sep, gpu = heading.rpartition(" - ")
    if sep and key(gpu) in gpus:
        return model.strip(), gpu.strip()
    return heading, ""


def _column(text: str, table: Table, heading_gpu: str, gpus: dict, line: int) -> Column:
    m = _COLUMN.match(text)
    if m is None:
        raise UnknownHeader(
            line,
            f"column {text!r} is neither 'GPU<br/>TPn[,PPm] (PRECISION)', 'GPU<br/>DEPn[,PPm] "
            "(PRECISION)' nor '**N GPUs**<br/>TPn,PPm (PRECISION)'",
        )
    size, kind = int(m.group("size")), m.group("kind")
    pipeline = int(m.group("pp")) if m.group("pp") else None
    precision = m.group("precision")
    if m.group("gpu"):
        gpu = clean(m.group("gpu"))
        # a TP split without a stated count spans its TP x PP GPUs; a DEP split's count is
        # settled by the columns of the file that state one (see trtllm.dep_counts)
        count = size * (pipeline or 1) if kind == "TP" else None
        return Column(text, gpu, kind, size, pipeline, count, False, precision)
    gpu = table.before if key(table.before) in gpus else heading_gpu
    if not gpu:
        raise UnknownHeader(
            line,
            f"column {text!r} names no GPU, and neither the line above the table "
            f"({table.before!r}) nor the heading ({table.nearest!r}) is a GPU the mapping knows",
        )
    n = int(m.group("n"))
    if n != size * (pipeline or 1):
        raise UnknownHeader(line, f"column {text!r}: {n} GPUs is not the {kind} size x the PP size")
    return Column(text, gpu, kind, size, pipeline, n, True, precision)


def read_sections(version: Version, table: Table, gpus: dict, report: ImportReport) -> list[Cell]:
    """The v1.0 and developer-guide layouts: a model heading, a 'Sequence Length (ISL/OSL)'
    column, then one column per GPU and split."""
    shown = version.shown
    head_line, head = table.rows[0]
    model, heading_gpu = _gpu_of_heading(table.heading or table.nearest, gpus)
    if not model:
        raise UnknownHeader(head_line, "no heading above the table to name its model")
    columns = [_column(text, table, heading_gpu, gpus, head_line) for text in head[1:]]
    unit = None
    if table.after and (u := _UNIT.match(table.after[1])):
        unit = (table.after[0], clean(u.group("unit")))
    out: list[Cell] = []
    for line, cells in table.rows[1:]:
        if not any(cells[1:]):
            continue
        lengths = _lengths(cells[0], "/", shown, line, report)
        if lengths is None:
            continue
        for col, text in zip(columns, cells[1:]):
            cell = _figure(
                text,
                version,
                table,
                line,
                col.text,
                report,
                column=col.text.replace("<br/>", " "),
                row_label=cells[0],
                model_raw=model,
                gpu_raw=col.gpu,
                precision=col.precision,
                tensor=col.size if col.kind == "TP" else None,
                pipeline=col.pipeline,
                count=col.count,
                count_stated=col.stated,
                isl=lengths[0],
                osl=lengths[1],
                split=col.split if col.kind == "DEP" else "",
                dep=col.size if col.kind == "DEP" else None,
                unit=unit,
            )
            if cell is not None:
                out.append(cell)
    return out
