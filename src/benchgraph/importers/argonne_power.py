"""Argonne's power table: one GPU's measured draw, added to the runs it belongs to.

`Plots/Fig_16_a_b/power_results.csv` repeats rows of the main results table (hardware,
framework, model, lengths, batch, latency, throughput) with an `avg_power` column and no
unit. Its values (222,122 to 656,159 for single A100, H100 and GH200 runs) are milliwatts:
the repository's power scripts average `nvmlDeviceGetPowerUsage` readings of one GPU, which
NVIDIA documents as "power usage for this GPU in milliwatts" (the sources are in
`mappings/argonne.yaml`). So each row becomes a `power-draw` measurement, in watts, of the run
made from the same row of the main table, with the unit marked derived; no row makes a run
of its own. A GPU's board draw is not a system's wall power: it is `power-draw`, never
`system-power`, and its efficiency is `tokens-per-joule-board`.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal, InvalidOperation
from typing import Any

from . import efficiency
from .common import ImportReport, clean, source_entry


def attach(
    rel: str,
    data: bytes,
    table: dict[str, Any],
    found: dict[tuple[str, ...], Any],
    measure: Any,
    report: ImportReport,
) -> None:
    """Read the power table and give each row's figure to the measurement it repeats.

    `measure(row, where)` reads a row as the main tables' rows are read (names, numbers, the
    units check), returning the _Measurement key or None; a row that repeats no imported row
    of the main tables is a failure naming its line (no new run is made)."""
    column = table["power_column"]
    reader = csv.reader(io.StringIO(data.decode("utf-8-sig")))
    head = [clean(h) for h in next(reader, [])]
    if column not in head:
        report.fail(rel, f"column {column!r} not in the header {head}")
        return
    for line, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        where = f"{rel}:{line}"
        if len(cells) != len(head):
            report.fail(where, f"the row has {len(cells)} cells, the header {len(head)}")
            continue
        row = dict(zip(head, (c.strip() for c in cells)))
        text = row[column]
        try:
            milliwatts = Decimal(text)
        except InvalidOperation:
            report.fail(where, f"{column}: {text!r} is not a number")
            continue
        if not milliwatts.is_finite() or milliwatts <= 0:
            report.fail(where, f"{column}: {text!r} is not a power above 0")
            continue
        values = measure(row, where)
        if values is None:
            continue  # reported by measure: an unknown name, a row left out by rule
        target = found.get(values)
        if target is None:
            report.fail(
                where,
                "repeats no imported row of the main tables (hardware, "
                "framework, model, lengths, batch, latency and throughput): a power "
                "figure is added to an existing run, never made a run of its own",
            )
            continue
        if target.power is not None:
            report.fail(
                where, f"a second power figure for the row of {target.power[2]}:{target.power[3]}"
            )
            continue
        target.power = (milliwatts, text, rel, line)
        report.use(
            "power (avg_power, read as mW)",
            "one GPU's NVML reading",
            "power-draw (W), unit derived",
        )


def measurements(m: Any, rules: dict[str, Any]) -> list[dict[str, Any]]:
    """The power-draw measurement in watts and the board efficiency derived from it."""
    if m.power is None:
        return []
    milliwatts, text, rel, line = m.power
    spec = rules["power"]
    watts = float(milliwatts / 1000)
    item = {
        "metric": spec["metric"],
        "value": watts,
        "unit": "W",
        "derived": True,
        "note": f"avg_power {text} in {rel} line {line}, read as milliwatts and recorded in "
        f"watts: {clean(spec['unit_note'])}",
    }
    return [item] + efficiency.of_board(
        rules["units"]["throughput"]["metric"],
        m.throughput,
        rules["units"]["throughput"]["unit"],
        m.count,
        item,
    )


def sources(m: Any, rules: dict[str, Any], commit: str | None, url: Any) -> list[dict]:
    """The power table's row, and the documents the unit is derived from."""
    if m.power is None:
        return []
    _, _, rel, line = m.power
    repo = rules["repository"]
    return [
        source_entry(
            publisher=rules["publisher"],
            title=rules["title"],
            url=url(rel),
            repository=repo,
            commit=commit,
            path=rel,
            row=str(line),
            licence=rules["licence"],
            note="avg_power of this row (no unit in the table)",
        )
    ] + [source_entry(**s) for s in rules["power"]["sources"]]
