"""Argonne's power table: one GPU's draw, in watts, added to the runs it repeats; no new runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from benchgraph.importers import import_argonne
from benchgraph.importers.common import MAPPINGS
from benchgraph.records.reader import load_record

POWER = "Plots/Fig_16_a_b/power_results.csv"
HEAD = (
    "Hardware,Num of Hardware,Framework,Model,Input Output Length,Batch Size,Latency,"
    "Throughput,avg_power\n"
)
# line 2 of the fixture's All_results.csv, and a line that repeats none of its rows
ROW = (
    "Nvidia A100 GPU,1,TensorRT-LLM,meta-llama/Llama-2-7b-hf,128,32,2.1091787815093994,"
    "3883.9761104260347"
)
RUN = "argonne-nvidia-a100-x1-tensorrt-llm-llama-2-7b-hf-io128-bs32-tp1"
STRANGER = "Nvidia A100 GPU,1,TensorRT-LLM,meta-llama/Llama-2-7b-hf,128,32,2.2,3723.6363636363635"


def _runs(out: Path) -> dict[str, dict]:
    runs = {}
    for path in sorted((out / "benchmarks" / "argonne").glob("*.yaml")):
        record, problems = load_record(path, out)
        assert not [p for p in problems if p.severity == "violation"], problems
        runs[record.id] = record.fields
    return runs


def _power(run: dict) -> list[dict]:
    return [m for m in run.get("measurements") or [] if m["metric"] == "power-draw"]


@pytest.mark.slow
def test_the_48_power_rows_are_watts_of_existing_runs(imported):
    out, report = imported("argonne")
    assert report.exit_code == 0, report.summary()
    runs = _runs(out)
    with_power = {rid: run for rid, run in runs.items() if _power(run)}
    assert len(with_power) == 48
    for run in with_power.values():
        (item,) = _power(run)
        assert item["unit"] == "W" and item["derived"] is True
        assert 200 < item["value"] < 700  # one A100, H100 or GH200 board, in watts
        assert run["accelerator_count"] == 1
        assert {s["path"] for s in run["source"] if "path" in s} >= {POWER}
        assert any(s.get("derives") == ["measurements"] for s in run["source"])
        (eff,) = [m for m in run["measurements"] if m["metric"] == "tokens-per-joule-board"]
        assert eff["value"] == pytest.approx(run["value"] / item["value"], rel=1e-7)
        # a board's draw never becomes system power or a system efficiency
        assert not [
            m for m in run["measurements"] if m["metric"] in ("system-power", "tokens-per-joule")
        ]


def test_the_power_table_makes_no_run_of_its_own(argonne_copy, tmp_path):
    rules = yaml.safe_load((MAPPINGS / "argonne.yaml").read_text("utf-8"))
    rules["tables"] = [t for t in rules["tables"] if t["path"] != POWER]
    mappings = tmp_path / "mappings"
    shutil.copytree(MAPPINGS, mappings)
    (mappings / "argonne.yaml").write_text(yaml.safe_dump(rules), "utf-8")
    without = import_argonne(argonne_copy, tmp_path / "a", mapping_dir=mappings, write=False)
    with_power = import_argonne(argonne_copy, tmp_path / "b", write=False)
    assert without.records["runs"] == with_power.records["runs"]


def _copy(fixtures: Path, tmp_path: Path, lines: list[str]) -> Path:
    root = tmp_path / "argonne"
    shutil.copytree(fixtures / "argonne", root)
    (root / POWER).parent.mkdir(parents=True)
    (root / POWER).write_text(HEAD + "".join(line + "\n" for line in lines), "utf-8")
    return root


def test_a_power_row_becomes_a_measurement_of_the_run_it_repeats(fixtures, tmp_path):
    out = tmp_path / "out"
    report = import_argonne(_copy(fixtures, tmp_path, ["", ROW + ",250500.5"]), out)
    assert report.exit_code == 0, report.summary()
    run = _runs(out)[RUN]
    (item,) = _power(run)
    assert item["value"] == pytest.approx(250.5005)
    assert "avg_power 250500.5" in item["note"] and "milliwatts" in item["note"]


@pytest.mark.parametrize(
    "line, words",
    [
        (ROW + ",about 250 W", [f"{POWER}:2", "avg_power: 'about 250 W' is not a number"]),
        (STRANGER + ",250500.5", [f"{POWER}:2", "repeats no imported row of the main tables"]),
        (ROW + ",250500.5,1", [f"{POWER}:2", "the row has 10 cells, the header 9"]),
    ],
)
def test_a_bad_power_row_is_an_error_and_nothing_is_written(fixtures, tmp_path, line, words):
    out = tmp_path / "out"
    report = import_argonne(_copy(fixtures, tmp_path, [line]), out)
    assert report.exit_code == 1 and not report.written
    for word in words:
        assert word in report.summary(), report.summary()
    assert not (out / "benchmarks").exists()
