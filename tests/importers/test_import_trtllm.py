"""`benchgraph import trtllm-perf`: NVIDIA's TensorRT-LLM performance overview tables as runs."""

from __future__ import annotations

import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from benchgraph.cli.imports import main as import_main
from benchgraph.importers import import_trtllm
from benchgraph.records.reader import load_record
from paths import SHARED

COPIES = SHARED / "data" / "other" / "tensorrt-llm-perf-overview"
V017 = "258c7540c03517def55d9a5aadfa9288af474e1b"
V10 = "00f37686aa854010d68bcbd0f4ab000221541ca6"
GUIDE = "03e27c7d5ff0c6e89f8328838c0a8e64f1b34f9d"  # docs/source/developer-guide/perf-overview.md
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
def test_every_non_empty_cell_of_every_version_is_one_run(copies, tmp_path):
    report = import_trtllm(copies, tmp_path)
    assert report.exit_code == 0, report.summary()
    runs = _runs(tmp_path)
    by_commit = {
        c: [r for r in runs.values() if r["source"][0]["commit"] == c] for c in (V017, V10, GUIDE)
    }
    assert len(by_commit[V017]) == _figures_in((copies / f"{V017}.md").read_text(), True) == 373
    assert len(by_commit[V10]) == _figures_in((copies / f"{V10}.md").read_text(), False) == 328
    assert len(by_commit[GUIDE]) == _figures_in((copies / f"{GUIDE}.md").read_text(), False) == 150
    assert len(runs) == 851
    # the Online Serving table is reported as skipped, not imported
    assert any("Online Serving Measurements" in why for _, why in report.left_out)
    # every results table was read: only the command, variable and request-count tables
    # (and the skipped serving table) are left out
    assert not [w for w, why in report.left_out if "cannot be read" in why or "left out:" in why]


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


def test_a_developer_guide_cell_becomes_a_run_with_what_the_table_states(copies, tmp_path):
    import_trtllm(copies, tmp_path)
    runs = _runs(tmp_path)
    rtx = "nvidia-rtx-pro-6000-blackwell-server-edition"
    # '# Deepseek R1 0528', column 'B200<br/>DEP4 (FP4)', row '1000/1000': 6,463 per GPU
    dep = runs[f"trtllm-{GUIDE[:12]}-deepseek-r1-0528-nvidia-b200-sxm-dep4-fp4-1000-1000"]
    assert (dep["value"], dep["unit"]) == (6463.0, "tok/s")
    # per GPU as published: the per-accelerator metric; the total (x 4 GPUs) is derived
    assert dep["metric"] == "throughput-tok-s-per-accelerator"
    [total] = dep["measurements"]
    assert (total["metric"], total["unit"], total["derived"]) == ("throughput-tok-s", "tok/s", True)
    assert (
        total["value"] == pytest.approx(6463 * 4) and "times accelerator_count (4)" in total["note"]
    )
    assert dep["model"] == "deepseek-r1-0528" and dep["accelerators"] == ["nvidia-b200-sxm"]
    assert dep["accelerator_count"] == 4 and dep["system"] == "trtllm-perf-nvidia-dgx-b200"
    # DEP4, which the file does not spell out: attention data and expert parallel 4, derived
    # (the run cites what the reading rests on), no tensor size, the split kept as written
    assert dep["parallelism"] == {"attention_data": 4, "expert": 4}
    [reading] = [s for s in dep["source"] if s.get("derives") == ["parallelism"]]
    assert reading["path"] == "docs/source/features/parallel-strategy.md"
    assert "enable_attention_dp: true" in reading["note"]
    assert dep["settings"] == {"precision": "FP4", "parallel_split": "DEP4"}
    assert "tensor parallel size" in dep["omitted_by_source"]
    assert "expert parallel size" not in dep["omitted_by_source"]
    assert dep["workload"] == {"input_tokens": 1000, "output_tokens": 1000}
    for words in (
        "unit: `output tokens per second per GPU`",
        "does not spell out",
        "enable_attention_dp: true",
        "Expert parallel mapping degree",
        "'**4 GPUs** DEP2,PP2 (FP4)' (line 222)",
        "attention data parallel 4 and expert parallel 4, read from 'DEP4' (derived",
    ):
        assert words in dep["notes"], words
    main = dep["source"][0]
    assert (main["commit"], main["row"], main["path"]) == (
        GUIDE,
        "105",
        "docs/source/developer-guide/perf-overview.md",
    )
    assert main["url"].endswith(f"/blob/{GUIDE}/docs/source/developer-guide/perf-overview.md")
    # '**4 GPUs**<br/>DEP2,PP2 (FP4)' of the RTX table under its '# Qwen3 235B A22B - RTX ...'
    rtx_dep = runs[f"trtllm-{GUIDE[:12]}-qwen3-235b-a22b-{rtx}-dep2-pp2-fp4-1000-1000"]
    assert (rtx_dep["value"], rtx_dep["accelerator_count"]) == (1731.0, 4)
    assert rtx_dep["parallelism"] == {"attention_data": 2, "expert": 2, "pipeline": 2}
    assert "pipeline parallel 2 as the column states it" in rtx_dep["notes"]
    # '**1 GPUs**<br/>TP1,PP1 (FP4)': the GPU named by the heading, the model before ' - '
    tp = runs[f"trtllm-{GUIDE[:12]}-qwen3-30b-a3b-{rtx}-tp1-pp1-fp4-1000-1000"]
    assert (tp["value"], tp["accelerator_count"], tp["model"]) == (9938.0, 1, "qwen3-30b-a3b")
    assert tp["parallelism"] == {"tensor": 1, "pipeline": 1}
    assert tp["settings"] == {"precision": "FP4"} and tp["accelerators"] == [rtx]
    # H200 TP2 of '# LLaMA v3.3 70B'
    h200 = runs[f"trtllm-{GUIDE[:12]}-llama3.3-70b-nvidia-h200-sxm-tp2-fp8-1000-1000"]
    assert (h200["value"], h200["accelerator_count"]) == (2587.0, 2)
    assert h200["parallelism"] == {"tensor": 2}
    assert len(h200["source"]) == 1  # a TP split is stated: nothing derived
    # the example: 1,627 tok/s per GPU on DEP8 is a run on 8 GPUs, 13,016 tok/s in all
    h200_dep = runs[f"trtllm-{GUIDE[:12]}-deepseek-r1-0528-nvidia-h200-sxm-dep8-fp8-1000-1000"]
    assert (h200_dep["value"], h200_dep["accelerator_count"]) == (1627.0, 8)
    assert h200_dep["measurements"][0]["value"] == pytest.approx(13016)
    assert h200_dep["measurements"][0]["derived"] is True
    # Deepseek's H200 cell at 8192/1024 is empty: no run
    assert f"trtllm-{GUIDE[:12]}-deepseek-r1-0528-nvidia-h200-sxm-dep8-fp8-8192-1024" not in runs


def test_a_header_the_importer_does_not_know_is_an_error_naming_file_and_line(copies, tmp_path):
    text = (copies / f"{GUIDE}.md").read_text("utf-8")
    head = "| Sequence Length (ISL/OSL) | B200<br/>DEP2 (FP4) |"  # GPT-OSS 120B, line 119
    assert head in text and "| 1024/1024 | 53,491 |" in text
    text = text.replace(head, "| Sequence Length (ISL/OSL) | B200<br/>XP2 (FP4) |", 1)
    text = text.replace("| 1024/1024 | 53,491 |", "| 1024/1024 | 53,491* |", 1)  # line 139
    folder = _write(tmp_path, text, GUIDE)
    shutil.copyfile(copies / f"{V10}.md", folder / f"{V10}.md")  # another file, all known
    out = tmp_path / "out"
    report = import_trtllm(folder, out)
    shown = folder / f"{GUIDE}.md"
    summary = report.summary()
    # an error, with the file, the line and the column it does not know: exit 1, nothing
    # written (not even the other file's runs), as for an unknown GPU
    assert report.exit_code == 1 and not report.written, summary
    assert f"could not import {shown}:119" in summary, summary
    assert "'B200<br/>XP2 (FP4)'" in summary and "header the importer does not know" in summary
    assert not (out / "benchmarks").exists()
    # every other problem is still reported, and every table it can read is read: the other
    # file's 328 figures and this one's but GPT-OSS 120B's 22 and the bad cell
    assert "'53,491*' is not a number" in dict(report.left_out)[f"{shown}:139"]
    assert report.records["runs"] == 328 + 150 - 22 - 1


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
            ["row left out", "it has 4 cells", "header (line 11) has 5", "ragged"],
        ),
        ("6645.12", "6645.12*", 16, ["cell left out", "column 'H100 80GB HBM3'", "not a number"]),
        # hostile figures: none becomes a run, each is named with its line
        ("6645.12", "nan", 16, ["cell left out", "'nan' is not a number"]),
        ("6645.12", "-6645.12", 16, ["cell left out", "'-6645.12' is not a number"]),
        ("6645.12", "1e308", 16, ["cell left out", "'1e308' is not a number"]),
        ("6645.12", "9" * 400, 16, ["cell left out", "not a throughput a table gives"]),
        ("6645.12", "0", 16, ["cell left out", "'0' is not a throughput a table gives"]),
    ],
)
def test_a_row_or_cell_that_cannot_be_read_is_left_out_with_its_line(
    fixtures, tmp_path, old, new, line, words
):
    folder = _write(tmp_path, _old_with(fixtures, old, new))
    shutil.copyfile(fixtures / "trtllm" / f"{NEW}.md", folder / f"{NEW}.md")
    out = tmp_path / "out"
    report = import_trtllm(folder, out)
    assert report.exit_code == 0 and report.written, report.summary()
    why = dict(report.left_out)[f"{folder / (OLD + '.md')}:{line}"]
    for word in words:
        assert word in why, why
    runs = _runs(out)
    assert len(runs) == 12  # the 13 of the good copies but the one figure of that row
    assert f"trtllm-{OLD[:12]}-llama3.1-70b-nvidia-h100-sxm-tp2-fp8-128-128" not in runs


def _huge(path: Path, shape: str) -> None:
    """A file no performance overview is: a 200 MB line (sparse: its length without writing
    it) or a table of a million rows (16 MB, written)."""
    head = b"#### Llama 3.1 8B\n| Sequence Length (ISL/OSL) | H100<br/>TP1 (FP8) |\n|---|---|\n"
    with path.open("wb") as f:
        f.write(head)
        if shape == "line":
            f.seek(200 * 2**20)
            f.write(b"|\n")
        else:
            f.write(b"| 128/128 | 5 |\n" * 1_000_000)


@pytest.mark.parametrize("shape", ["line", "rows"])
def test_a_huge_file_is_an_error_naming_it_and_is_never_read(fixtures, tmp_path, shape):
    folder = _folder(fixtures, tmp_path, NEW)  # a good copy beside it
    huge = folder / f"{OLD}.md"
    _huge(huge, shape)
    tracemalloc.start()
    try:
        report = import_trtllm(folder, tmp_path / "out")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    summary = report.summary()
    assert report.exit_code == 1 and not report.written, summary
    size = huge.stat().st_size
    assert f"could not import {huge.as_posix()}: {size:,} bytes, over the 1,048,576" in summary
    assert peak < size / 2  # refused before it is read: memory stays far below its size
    assert report.records["runs"] == 7  # the good copy is read all the same


def test_tables_of_more_cells_than_an_overview_holds_are_an_error_at_that_table(fixtures, tmp_path):
    folder = _folder(fixtures, tmp_path, NEW)
    many = folder / f"{OLD}.md"  # 60,000 rows, 480 KB: under the size bound
    many.write_text(
        "#### Llama 3.1 8B\n\n| Sequence Length (ISL/OSL) | H100<br/>TP1 (FP8) |\n|---|---|\n"
        + "|1/1|5|\n" * 60_000,
        "utf-8",
    )
    report = import_trtllm(folder, tmp_path / "out")
    summary = report.summary()
    assert report.exit_code == 1 and not report.written, summary
    assert f"could not import {many.as_posix()}:3: the tables hold more than 20,000 cells" in (
        summary
    )
    assert report.records["runs"] == 7


def test_an_unknown_gpu_is_reported_with_file_line_and_cell_and_nothing_is_written(
    fixtures, tmp_path
):
    folder = _write(tmp_path, _old_with(fixtures, "| L40S    |", "| L41S    |"))
    shutil.copyfile(fixtures / "trtllm" / f"{NEW}.md", folder / f"{NEW}.md")
    out = tmp_path / "out"
    report = import_trtllm(folder, out)
    summary = report.summary()
    assert report.exit_code == 1 and not report.written
    assert f"{folder / (OLD + '.md')}:11" in summary, summary
    assert "unknown GPU: 'L41S'" in summary and "column 'L41S'" in summary, summary
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
    bad = _write(tmp_path, _old_with(fixtures, "| L40S    |", "| L41S    |"))
    assert import_main(["import", "trtllm-perf", str(bad), "--out", str(tmp_path / "o2")]) == 1
    assert "unknown GPU: 'L41S'" in capsys.readouterr().out


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


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_checkout_is_read_across_the_files_move_to_the_developer_guide(fixtures, tmp_path):
    repo = tmp_path / "TensorRT-LLM"
    old = repo / "docs" / "source" / "performance" / "perf-overview.md"
    new = repo / "docs" / "source" / "developer-guide" / "perf-overview.md"
    old.parent.mkdir(parents=True)

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
        ).stdout.strip()

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    shutil.copyfile(fixtures / "trtllm" / f"{OLD}.md", old)
    git("add", "-A")
    git("commit", "-q", "-m", "old")
    first = git("rev-parse", "HEAD")
    new.parent.mkdir(parents=True)
    git("mv", str(old), str(new))
    shutil.copyfile(fixtures / "trtllm" / f"{NEW}.md", new)
    git("add", "-A")
    git("commit", "-q", "-m", "moved")
    moved = git("rev-parse", "HEAD")
    out = tmp_path / "out"
    report = import_trtllm(repo, out)
    assert report.exit_code == 0, report.summary()
    paths = {(r["source"][0]["commit"], r["source"][0]["path"]) for r in _runs(out).values()}
    assert paths == {
        (first, "docs/source/performance/perf-overview.md"),
        (moved, "docs/source/developer-guide/perf-overview.md"),
    }
