"""`benchgraph import trtllm-perf`: NVIDIA's TensorRT-LLM performance overview tables as runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchgraph.cli.imports import main as import_main
from benchgraph.importers import import_trtllm
from benchgraph.records.reader import load_record
from paths import SHARED

COPIES = SHARED / "data" / "other" / "tensorrt-llm-perf-overview"
V017 = "258c7540c03517def55d9a5aadfa9288af474e1b"
V10 = "00f37686aa854010d68bcbd0f4ab000221541ca6"
OLD = "1111111111111111111111111111111111111111"
NEW = "2222222222222222222222222222222222222222"


@pytest.fixture
def copies() -> Path:
    if not COPIES.is_dir():
        pytest.skip(f"{COPIES.resolve()} is not here: this test reads the real outside data")
    return COPIES


def _runs(out: Path) -> dict[str, dict]:
    runs = {}
    for path in sorted((out / "benchmarks" / "trtllm-perf").glob("*.yaml")):
        record, problems = load_record(path, out)
        assert not [p for p in problems if p.severity == "violation"], problems
        runs[record.id] = record.fields
    return runs


def _figures_in(text: str, old_layout: bool) -> int:
    """The non-empty figure cells of a version's throughput tables, counted apart from the
    importer: rows of the wide table between its header and '*TP stands', or rows that start
    with 'ISL/OSL'."""
    n = 0
    lines = text.splitlines()
    if old_layout:
        start = next(i for i, line in enumerate(lines) if line.startswith("| Throughput"))
        for line in lines[start + 4 :]:
            if not line.startswith("|"):
                break
            n += sum(1 for c in line.split("|")[4:-1] if c.strip())
        return n
    for line in lines:
        cells = line.split("|")
        if len(cells) > 2 and "/" in cells[1] and cells[1].strip()[0].isdigit():
            n += sum(1 for c in cells[2:-1] if c.strip())
    return n


# --- the shared copies ------------------------------------------------------------------
def test_every_non_empty_cell_of_both_versions_is_one_run(copies, tmp_path):
    report = import_trtllm(copies, tmp_path)
    assert report.exit_code == 0, report.summary()
    runs = _runs(tmp_path)
    by_commit = {
        c: [r for r in runs.values() if r["source"][0]["commit"] == c] for c in (V017, V10)
    }
    assert len(by_commit[V017]) == _figures_in((copies / f"{V017}.md").read_text(), True) == 373
    assert len(by_commit[V10]) == _figures_in((copies / f"{V10}.md").read_text(), False) == 328
    assert len(runs) == 701
    # the Online Serving table is reported as skipped, not imported
    assert any("Online Serving Measurements" in why for _, why in report.left_out)


def test_a_v017_cell_becomes_a_run_with_what_the_table_states(copies, tmp_path):
    import_trtllm(copies, tmp_path)
    runs = _runs(tmp_path)
    run = runs[f"trtllm-{V017[:12]}-llama3.1-70b-nvidia-h100-sxm-tp2-fp8-128-128"]
    assert (run["value"], run["unit"], run["metric"]) == (6645.12, "tok/s", "throughput-tok-s")
    assert run["accelerators"] == ["nvidia-h100-sxm"] and run["accelerator_count"] == 2
    assert run["parallelism"] == {"tensor": 2}
    assert run["workload"] == {"input_tokens": 128, "output_tokens": 128}
    assert run["settings"] == {"precision": "FP8"} and run["engine_version"] == "0.17"
    assert run["measured_by"] == "vendor" and run["engine"] == "tensorrt-llm"
    assert "should not be considered as the peak performance" in run["notes"]
    # "H100 80GB HBM3" is the SXM part, derived: the source that derives it says so
    assert "derived" in run["notes"]
    assert any(s.get("derives") == ["accelerators"] for s in run["source"][1:])
    main = run["source"][0]
    assert (main["repository"], main["commit"], main["row"]) == ("NVIDIA/TensorRT-LLM", V017, "71")
    assert "Throughput Measurements" in main["note"] and "H100 80GB HBM3" in main["note"]
    # LLaMA v3.1 70B on one H100 at 2048, 2048: an empty cell, no run
    assert f"trtllm-{V017[:12]}-llama3.1-70b-nvidia-h100-sxm-tp1-fp8-2048-2048" not in runs


def test_later_tables_give_pipeline_splits_and_the_dgx_systems(copies, tmp_path):
    import_trtllm(copies, tmp_path)
    runs = _runs(tmp_path)
    rtx = "nvidia-rtx-pro-6000-blackwell-server-edition"
    run = runs[f"trtllm-{V10[:12]}-llama3.3-70b-{rtx}-tp1-pp4-fp4-128-128"]
    assert run["value"] == 9641.0 and run["accelerator_count"] == 4
    assert run["parallelism"] == {"tensor": 1, "pipeline": 4}
    assert "system" not in run
    h100 = runs[f"trtllm-{V10[:12]}-llama3.3-70b-nvidia-h100-sxm-tp2-fp8-128-128"]
    assert h100["system"] == "trtllm-perf-nvidia-dgx-h100" and "derived" not in h100["notes"]
    assert "should *not* be considered as the peak performance" in h100["notes"]
    systems = sorted(p.stem for p in (tmp_path / "systems" / "trtllm-perf").glob("*.yaml"))
    assert systems == [
        "trtllm-perf-nvidia-dgx-b200",
        "trtllm-perf-nvidia-dgx-h100",
        "trtllm-perf-nvidia-gb200-nvl72",
    ]
    # no source read gives the DGX H200's GPU count: its runs name no system, and say so
    h200 = runs[f"trtllm-{V10[:12]}-llama3.3-70b-nvidia-h200-sxm-tp1-fp8-128-128"]
    assert "system" not in h200 and "DGX H200" in h200["notes"]
    # Llama 4 Scout's RTX table has no 8-GPU figure at 5000/500: no run
    assert not [
        r
        for r in runs
        if "llama4-scout" in r and rtx in r and r.endswith("-5000-500") and "tp4-pp2" in r
    ]


# --- small hand-made fixtures --------------------------------------------------------------
def _folder(fixtures: Path, tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "copies"
    folder.mkdir()
    for name in names:
        shutil.copyfile(fixtures / "trtllm" / f"{name}.md", folder / f"{name}.md")
    return folder


def test_small_copies_import_and_a_trailing_empty_cell_is_not_ragged(fixtures, tmp_path):
    folder = _folder(fixtures, tmp_path, OLD, NEW)
    out = tmp_path / "out"
    report = import_trtllm(folder, out)
    assert report.exit_code == 0, report.summary()
    runs = _runs(out)
    # old: 4 H100 + 2 L40S figures; new: 2 H100 + 5 RTX (one empty cell)
    assert len(runs) == 13
    l40s = runs[f"trtllm-{OLD[:12]}-llama3.1-70b-nvidia-l40s-tp8-fp8-128-128"]
    assert l40s["value"] == 1464.03
    assert f"trtllm-{OLD[:12]}-llama3.1-70b-nvidia-l40s-tp1-fp8-128-128" not in runs


def _write(tmp_path: Path, text: str, name: str = OLD) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.md").write_text(text, "utf-8")
    return folder


def _old_with(fixtures: Path, old: str, new: str) -> str:
    text = (fixtures / "trtllm" / f"{OLD}.md").read_text("utf-8")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "old, new, line, words",
    [
        (
            "| 2                          | 128, 128                     | 6645.12          "
            "|         |",
            "| 2                          | 128, 128                     | 6645.12          |",
            16,
            ["the row has 4 cells", "header (line 11) has 5", "ragged"],
        ),
        ("6645.12", "6645.12*", 16, ["cell 'H100 80GB HBM3'", "'6645.12*' is not a number"]),
        ("| L40S    |", "| L41S    |", 11, ["unknown GPU: 'L41S'", "column 'L41S'"]),
    ],
)
def test_bad_input_is_reported_with_file_line_and_cell_and_nothing_is_written(
    fixtures, tmp_path, old, new, line, words
):
    folder = _write(tmp_path, _old_with(fixtures, old, new))
    shutil.copyfile(fixtures / "trtllm" / f"{NEW}.md", folder / f"{NEW}.md")
    out = tmp_path / "out"
    report = import_trtllm(folder, out)
    summary = report.summary()
    assert report.exit_code == 1 and not report.written
    assert f"{folder / (OLD + '.md')}:{line}" in summary, summary
    for word in words:
        assert word in summary, summary
    assert not (out / "benchmarks").exists()  # nothing, not even the good file's runs


def test_a_mapping_resting_on_a_hardware_line_the_file_lacks_is_an_error(fixtures, tmp_path):
    text = (fixtures / "trtllm" / f"{NEW}.md").read_text("utf-8")
    folder = _write(tmp_path, text.replace("- H100 SXM 80GB (DGX H100)\n", ""), NEW)
    report = import_trtllm(folder, tmp_path / "out")
    assert report.exit_code == 1
    assert (
        "'H100 SXM 80GB (DGX H100)', which this version of the file does not have"
        in report.summary()
    )


def test_the_cli_writes_the_runs_and_exits_1_on_bad_input(fixtures, tmp_path, capsys):
    folder = _folder(fixtures, tmp_path, OLD, NEW)
    out = tmp_path / "out"
    assert import_main(["import", "trtllm-perf", str(folder), "--out", str(out)]) == 0
    assert len(_runs(out)) == 13
    bad = _write(tmp_path, _old_with(fixtures, "6645.12", "n/a"))
    assert import_main(["import", "trtllm-perf", str(bad), "--out", str(tmp_path / "o2")]) == 1
    assert "'n/a' is not a number" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_checkout_is_read_through_the_files_history(fixtures, tmp_path):
    repo = tmp_path / "TensorRT-LLM"
    target = repo / "docs" / "source" / "performance" / "perf-overview.md"
    target.parent.mkdir(parents=True)

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
        ).stdout.strip()

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    commits = []
    for name in (OLD, NEW, OLD):  # the third commit restores the first version
        shutil.copyfile(fixtures / "trtllm" / f"{name}.md", target)
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", name[:4])
        commits.append(git("rev-parse", "HEAD"))
    out = tmp_path / "out"
    report = import_trtllm(repo, out)
    assert report.exit_code == 0, report.summary()
    seen = {r["source"][0]["commit"] for r in _runs(out).values()}
    assert seen == {commits[0], commits[1]}  # each version once, from its first commit


def test_a_code_block_holds_no_heading_and_no_table():
    from benchgraph.importers.trtllm import tables

    found = tables(
        "## Throughput Measurements\n```shell\n# a shell comment, no heading\n"
        "| not | a table |\n```\n#### Model X\n\n"
        "| Sequence Length (ISL/OSL) | H100<br/>TP1 (FP8) |\n|---|---|\n"
        "| 128/128 | 5 |\n"
    )
    assert [(t.section, t.heading, t.line, [c for _, c in t.rows]) for t in found] == [
        (
            "Throughput Measurements",
            "Model X",
            8,
            [["Sequence Length (ISL/OSL)", "H100<br/>TP1 (FP8)"], ["128/128", "5"]],
        )
    ]
