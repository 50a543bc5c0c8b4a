"""LLM-Inference-Bench: units from the source's scripts, identical tables and rows once."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchgraph.importers import import_argonne
from benchgraph.records.reader import load_record


def _runs(out: Path) -> dict[str, dict]:
    runs = {}
    for path in sorted((out / "benchmarks" / "argonne").glob("*.yaml")):
        record, problems = load_record(path, out)
        assert not problems, problems
        runs[record.id] = record.fields
    return runs


@pytest.fixture
def small(fixtures, tmp_path):
    out = tmp_path / "data"
    report = import_argonne(fixtures / "argonne", out)
    return report, _runs(out)


def test_byte_identical_tables_are_read_once(small):
    report, _ = small
    reason = (
        "byte-identical to Plots/Fig_5_a/TP_PP_Results.csv; its rows are imported once, "
        "from that file"
    )
    assert ("Plots/Fig_5_b/TP_EP_PP_results.csv", reason) in report.left_out


def test_a_row_repeated_in_the_tp_table_is_one_run_with_its_parallelism(small):
    _, runs = small
    run = runs["argonne-nvidia-a100-x1-tensorrt-llm-llama-2-7b-hf-io128-bs32-tp1"]
    assert run["parallelism"] == {"tensor": 1}
    assert [(s["path"], s["row"]) for s in run["source"]] == [
        ("Plots/All_results.csv", "2"),
        ("Plots/Fig_5_a/TP_PP_Results.csv", "2"),
    ]
    assert run["value"] == 3883.9761104260347 and run["unit"] == "tok/s"
    latency = run["measurements"][0]
    assert (latency["metric"], latency["value"], latency["unit"]) == (
        "latency-batch-e2e",
        2.1091787815093994,
        "s",
    )


def test_different_measurements_of_one_configuration_are_separate_runs(small):
    _, runs = small
    base = "argonne-nvidia-a100-sxm-40gb-x4-vllm-mistral-7b-v0.1-io512-bs16"
    assert runs[base]["value"] == 3556.9222906876985
    assert runs[base + "-2"]["value"] == 3589.2890570107816
    assert "parallelism" in runs[base]["omitted_by_source"]


def test_hybrid_parallelism_is_stated(small):
    _, runs = small
    run = runs["argonne-nvidia-a100-x4-tensorrt-llm-mixtral-8x7b-v0.1-io128-bs1-tp2-ep2"]
    assert run["parallelism"] == {"expert": 2, "tensor": 2}


def test_rows_that_do_not_fit_the_documented_units_are_left_out(small):
    report, runs = small
    assert any(
        where == "Plots/All_results.csv:7" and reason.startswith("units not documented")
        for where, reason in report.left_out
    )
    assert not any(r["engine"] == "llama-cpp" for r in runs.values())


def test_family_hardware_maps_to_a_family_record_without_interconnects(small, shipped):
    """A row naming the family only stays on the family record; a family row whose part
    other files identify for its framework (the H100 vLLM rows) goes to that part, derived."""
    _, runs = small
    run = runs["argonne-nvidia-a100-x1-tensorrt-llm-llama-2-7b-hf-io128-bs32-tp1"]
    assert run["accelerators"] == ["nvidia-a100"] and run["accelerator_count"] == 1
    record, problems = load_record(shipped / "accelerators" / "nvidia-a100.yaml", shipped)
    assert not problems and "interconnect_ids" not in record.fields
    assert run["measured_by"] == "third_party" and run["status"] == "provisional"
    assert run["workload"] == {"input_tokens": 128, "output_tokens": 128, "batch_size": 32}
    h100 = runs["argonne-nvidia-h100-sxm-x1-vllm-llama-2-7b-hf-io128-bs1"]
    assert h100["accelerators"] == ["nvidia-h100-sxm"]
    assert h100["notes"].startswith("The part is derived")
    per = run["measurements"][1]
    assert per["derived"] is True and per["metric"] == "throughput-total-tok-s-per-accelerator"


def test_tables_without_documented_units_are_left_out_with_the_reason(imported):
    _, report = imported("argonne")
    reasons = dict(report.left_out)
    for table in ("Plots/Fig_21/all_results_TTFT.csv", "Plots/Fig_22/all_results_TTFT_ITL.csv"):
        assert reasons[table].startswith("no published script defines")
    assert report.records["runs"] > 3000


def test_a_part_derived_for_each_framework_cites_what_it_rests_on(imported):
    """The mapping's derived_hardware names the H100 SXM for the llama.cpp rows (the node
    whose nvidia-smi the repository shows) and for the vLLM and TensorRT-LLM rows (the same
    queue and /vast/.../h100/ tree); the runs say the part is derived and cite every source
    of the derivation with `derives` and its kind, the tables as a result set."""
    out, report = imported("argonne")
    assert report.ok
    runs = _runs(out)
    by_engine: dict[tuple[str, str], int] = {}
    for run in runs.values():
        if run["title"].split(" on ", 1)[1].split(" with ")[0].endswith("Nvidia H100 GPU"):
            pair = (run["engine"], run["accelerators"][0])
            by_engine[pair] = by_engine.get(pair, 0) + 1
    assert {e for e, a in by_engine if a == "nvidia-h100-sxm"} == {
        "llama-cpp",
        "vllm",
        "tensorrt-llm",
    }
    assert {a for _e, a in by_engine} == {"nvidia-h100-sxm"}
    for engine in ("llama-cpp", "vllm"):
        run = next(
            r
            for r in runs.values()
            if r["accelerators"] == ["nvidia-h100-sxm"] and r["engine"] == engine
        )
        derived = [s for s in run["source"] if "derives" in s]
        assert {tuple(s["derives"]) for s in derived} == {("accelerators",)}
        assert any(s.get("path") == "llama.cpp/H100/README.MD" for s in derived)
        assert {s["kind"] for s in derived} == {"operator", "reseller"} | (
            {"vendor"} if engine == "llama-cpp" else set()
        )
        assert run["notes"].startswith("The part is derived")
        # the table rows themselves are still cited as the run's source, not as deriving
        assert run["source"][0]["path"] == "Plots/All_results.csv"
        assert "derives" not in run["source"][0] and run["source"][0]["kind"] == "result-set"


def test_a_system_derived_for_one_framework_is_linked_and_cited(imported):
    """derived_hardware names ALCF Polaris for the vLLM A100 rows only (their job scripts
    target a Polaris queue) and, from ALCF's table of Polaris's GPUs ("A100 HGX"), its part,
    the A100 SXM 40 GB; the other frameworks' A100 rows name no machine in any file read, so
    they stay on the family, with no system, and say which files were read."""
    out, _ = imported("argonne")
    runs = list(_runs(out).values())
    polaris = [r for r in runs if r.get("system") == "alcf-polaris"]
    assert polaris and {r["engine"] for r in polaris} == {"vllm"}
    assert {tuple(r["accelerators"]) for r in polaris} == {("nvidia-a100-sxm-40gb",)}
    run = polaris[0]
    assert {tuple(s["derives"]) for s in run["source"] if "derives" in s} == {
        ("system",),
        ("accelerators",),
    }
    assert any(
        s.get("path") == "docs/polaris/hardware-overview/machine-overview.md"
        and "A100 HGX (Polaris)" in s["note"]
        for s in run["source"]
        if s.get("derives") == ["accelerators"]
    )
    assert run["notes"].startswith("The system is derived")
    family = [r for r in runs if r["accelerators"] == ["nvidia-a100"]]
    assert {r["engine"] for r in family} == {"llama-cpp", "tensorrt-llm", "deepspeed-mii"}
    assert all("system" not in r for r in family)
    for r in family:
        assert "The part stays the family" in r["notes"] and "A100-PCIE-40GB" in r["notes"]
        assert not [s for s in r["source"] if "derives" in s and "accelerators" in s["derives"]]
    by_engine = {r["engine"]: r["notes"] for r in family}
    assert "llama.cpp/A100/README.MD" in by_engine["llama-cpp"]
    assert "Deepspeed-MII/A100/README.md" in by_engine["deepspeed-mii"]


def test_the_gh200_rows_are_on_the_96_gb_member_derived_from_jlse_s_node(imported):
    """Every framework's GH200 README places its runs on JLSE, and a result file of JLSE's
    GH200 node shows 95 GB of GPU memory: the runs are on the 96 GB member, derived, citing
    both (none stays on the family)."""
    out, _ = imported("argonne")
    gh200 = [r for r in _runs(out).values() if "Nvidia GH200 GPU" in r["title"]]
    assert len(gh200) == 280
    assert {tuple(r["accelerators"]) for r in gh200} == {("nvidia-gh200-96gb",)}
    assert {r["engine"] for r in gh200} == {"llama-cpp", "vllm", "tensorrt-llm"}
    for r in gh200:
        derived = [s for s in r["source"] if s.get("derives") == ["accelerators"]]
        paths = {s["path"] for s in derived}
        assert "results/jlse_gpu_gh200.md" in paths, r["id"]
        assert any(p.endswith("/GH200/README.MD") for p in paths), r["id"]
        assert r["notes"].startswith("The part is derived") and "95.0 GB" in r["notes"]
