"""`benchgraph import ...`: exit codes, the report, nothing written on unknown strings."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from benchgraph.cli.imports import add_import_commands, main
from benchgraph.importers.common import GENERATED_MARK

NVIDIA = "closed/NVIDIA/systems/DGX-H100_H100-SXM-80GBx8_TRT.json"


@pytest.fixture
def checkout(fixtures, tmp_path) -> Path:
    """A copy of the small v4.1 fixture, in the real layout, that a test may edit."""
    root = tmp_path / "mlperf"
    shutil.copytree(fixtures / "mlperf", root)
    return root / "inference_results_v4.1"


def test_import_writes_generated_records_and_exits_0(checkout, tmp_path, capsys):
    out = tmp_path / "data"
    assert main(["import", "mlperf", str(checkout), "--out", str(out)]) == 0
    runs = sorted((out / "benchmarks" / "mlperf-v4.1").glob("*.yaml"))
    systems = sorted((out / "systems" / "mlperf-v4.1").glob("*.yaml"))
    assert [p.stem for p in runs] == [
        "mlperf-v4.1-closed-nvidia-dgx-h100-h100-sxm-80gbx8-trt-gptj-99-server",
        "mlperf-v4.1-closed-nvidia-dgx-h100-h100-sxm-80gbx8-trt-llama2-70b-99-offline",
        "mlperf-v4.1-closed-quanta-cloud-technology-1-node-2s-emr-pytorch-resnet50-offline",
    ]
    assert len(systems) == 2
    for path in runs + systems:
        text = path.read_text("utf-8")
        assert text.startswith(GENERATED_MARK) and "# Regenerate: benchgraph import mlperf" in text
        assert "198fc46799b3328b36ee4bcbdebfa2db5a8e6183" in text.splitlines()[0]
    assert "3 runs, 2 systems" in capsys.readouterr().out


def test_unknown_string_exits_1_lists_it_and_writes_nothing(checkout, tmp_path, capsys):
    path = checkout / NVIDIA
    data = json.loads(path.read_text("utf-8"))
    data["accelerator_interconnect"] = "QuantumLink 9, 42 TB/s"
    data["framework"] = "MysteryRT 1.0"
    path.write_text(json.dumps(data), "utf-8")
    out = tmp_path / "data"
    assert main(["import", "mlperf", str(checkout), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "unknown interconnect (accelerator_interconnect): 'QuantumLink 9, 42 TB/s'" in printed
    assert "unknown engine: 'MysteryRT 1.0'" in printed
    assert not out.exists(), "nothing is written while a string is unknown"


def test_report_lists_every_raw_string_with_count_and_result(checkout, tmp_path, capsys):
    assert (
        main(
            [
                "import",
                "mlperf",
                str(checkout),
                "--out",
                str(tmp_path / "d"),
                "--report",
                "--dry-run",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "'18x 4th Gen NVLink, 900GB/s' -> nvlink-4 (scale-up-fabric)" in printed
    assert "'PCIe Gen5 x16' -> pcie-gen5 (host-link)" in printed
    assert "'N/A' -> not published" in printed
    assert "'TensorRT 10.2.0, CUDA 12.4' -> tensorrt 10.2.0" in printed
    assert "== interconnect (accelerator_interconnect)" in printed
    assert not (tmp_path / "d").exists(), "--dry-run writes nothing"


def test_missing_folder_exits_2(tmp_path, capsys):
    assert main(["import", "mlperf", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["import", "argonne", str(tmp_path)]) == 2


def test_each_command_help_ends_with_an_example():
    top = argparse.ArgumentParser(prog="benchgraph")
    sub = top.add_subparsers(dest="command")
    imp = add_import_commands(sub)
    actions = next(a for a in imp._actions if isinstance(a, argparse._SubParsersAction))
    for parser in [imp, *actions.choices.values()]:
        text = parser.format_help().rstrip()
        last = text.split("\n\n")[-1]
        assert last.startswith("Example:") and "benchgraph import" in last, parser.prog
