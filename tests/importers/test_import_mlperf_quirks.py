"""The known quirks of the MLPerf files, each handled on purpose, each from a real file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchgraph.importers import import_mlperf
from benchgraph.importers.mlperf import read_log
from benchgraph.records.reader import load_record

AMD_INTERACTIVE = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"
LOG = "performance/run_1/mlperf_log_summary.txt"


def _record(out: Path, kind: str, round_: str, record_id: str) -> dict:
    record, problems = load_record(out / kind / f"mlperf-{round_}" / f"{record_id}.yaml", out)
    assert not problems, problems
    return record.fields


def _summary_row(checkout: Path, location: str) -> dict:
    rows = json.loads((checkout / "summary_results.json").read_text("utf-8"))
    return next(r for r in rows if r["Location"] == location)


def _mini_checkout(
    tmp_path: Path, checkout: Path, round_: str, files: list[str], rows: list[dict] | None = None
) -> Path:
    """A small checkout of real files (and summary rows) in the real layout."""
    root = tmp_path / f"inference_results_{round_}"
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(checkout / rel, root / rel)
    if rows is not None:
        (root / "summary_results.json").write_text(json.dumps(rows), "utf-8")
    return root


# --- counts: ints in some files, strings in others --------------------------------------
@pytest.mark.parametrize("round_", ["v4.1", "v5.1"])
def test_counts_given_as_strings_become_numbers(round_, request, imported):
    checkout = request.getfixturevalue({"v5.1": "v51", "v4.1": "v41"}[round_])
    out, report = imported(round_)
    seen_strings = 0
    for path in sorted(checkout.glob("*/*/systems/*.json")):
        data = json.loads(path.read_text("utf-8"))
        per_node, nodes = data["accelerators_per_node"], data["number_of_nodes"]
        if not isinstance(per_node, str) and not isinstance(nodes, str):
            continue
        seen_strings += 1
        division, submitter = path.parts[-4], path.parts[-3]
        sid = f"mlperf-{round_}-{division}-{submitter}-{path.stem}".lower().replace("_", "-")
        system = _record(out, "systems", round_, sid)
        assert system["nodes"] == int(nodes)
        if str(per_node).strip().isdigit() and int(per_node) > 0:
            assert [a["count"] for a in system["accelerators"]] == [int(per_node)]
        else:
            assert system["accelerators"] == [], f"{path}: {per_node!r} counts no accelerators"
    assert seen_strings > 0
    counted = report.raw["count (accelerators_per_node)"]
    assert any("a string in the file" in became for _, became in counted.values())


def test_na_count_on_a_system_naming_no_accelerator_is_cpu_only(imported):
    # v4.1 closed/Quanta_Cloud_Technology/systems/1-node-2S-EMR-PyTorch.json: "N/A", "N/A".
    out, _ = imported("v4.1")
    sid = "mlperf-v4.1-closed-quanta-cloud-technology-1-node-2s-emr-pytorch"
    assert _record(out, "systems", "v4.1", sid)["accelerators"] == []
    run = _record(out, "benchmarks", "v4.1", f"{sid}-resnet50-offline")
    assert run["accelerators"] == [] and run["accelerator_count"] == 0
    assert "measurements" not in run, "no per-accelerator value for a CPU-only run"


# --- CPU-only systems --------------------------------------------------------------------
def test_cpu_only_systems_give_runs_with_no_accelerators(imported):
    out, _ = imported("v5.1")
    sid = "mlperf-v5.1-open-amitashnanda-macbook-m1pro"
    system = _record(out, "systems", "v5.1", sid)
    assert system["accelerators"] == [] and system["host_cpu"] == "Apple M1 Pro"
    runs = sorted((out / "benchmarks" / "mlperf-v5.1").glob(f"{sid}-*.yaml"))
    assert runs
    for path in runs:
        run = _record(out, "benchmarks", "v5.1", path.stem)
        assert run["accelerators"] == [] and run["accelerator_count"] == 0


def test_integrated_gpu_counted_zero_stays_cpu_only_with_a_note(imported):
    # v5.1 open/Lenovo/systems/se100_ultra7_255h.json names "Intel(R) Arc(TM) 140T GPU", "0".
    out, _ = imported("v5.1")
    system = _record(out, "systems", "v5.1", "mlperf-v5.1-open-lenovo-se100-ultra7-255h")
    assert system["accelerators"] == []
    assert "Intel(R) Arc(TM) 140T GPU" in system["notes"]


# --- Interactive results whose logs say Server ---------------------------------------------
def test_interactive_result_keeps_its_scenario_though_the_log_says_server(v51, imported):
    assert read_log(v51 / AMD_INTERACTIVE / LOG)[0]["Scenario"] == "Server"
    out, _ = imported("v5.1")
    run = _record(
        out,
        "benchmarks",
        "v5.1",
        "mlperf-v5.1-closed-amd-8xmi300x-2xepyc-9575f-llama2-70b-99-interactive",
    )
    assert run["scenario"] == "Interactive"
    assert "'Server'" in run["notes"]


def test_log_reader_accepts_server_for_an_interactive_folder(v51, tmp_path):
    root = _mini_checkout(
        tmp_path,
        v51,
        "v5.1",
        ["closed/AMD/systems/8xMI300X_2xEPYC_9575F.json", f"{AMD_INTERACTIVE}/{LOG}"],
    )
    report = import_mlperf(root, tmp_path / "out")
    assert report.exit_code == 0, report.format()
    run = _record(
        tmp_path / "out",
        "benchmarks",
        "v5.1",
        "mlperf-v5.1-closed-amd-8xmi300x-2xepyc-9575f-llama2-70b-99-interactive",
    )
    assert run["scenario"] == "Interactive"
    assert run["metric"] == "throughput-tok-s" and run["value"] == 8840.42
    assert run["value"] == _summary_row(v51, AMD_INTERACTIVE)["Performance_Result"]


# --- metric names that drift between rounds ---------------------------------------------
def test_latency_line_names_drift_but_map_to_one_metric(v41, v51, imported, tmp_path):
    ss41 = next(v41.glob(f"*/*/results/*/*/SingleStream/{LOG}"))
    ss51 = next(v51.glob(f"closed/*/results/*/*/SingleStream/{LOG}"))
    assert "90th percentile latency (ns)" in read_log(ss41)[1]
    assert "90.0th percentile latency (ns)" in read_log(ss51)[1]
    out, _ = imported("v4.1")
    rel = ss41.relative_to(v41).as_posix().split("/")
    run_id = f"mlperf-v4.1-{rel[0]}-{rel[1]}-{rel[3]}-{rel[4]}-{rel[5]}".lower().replace("_", "-")
    run = _record(out, "benchmarks", "v4.1", run_id)
    # each named for what it is: the headline is the early-stopping estimate MLPerf publishes,
    # the measurement at latency-p90 the percentile the log observed
    assert (run["metric"], run["unit"]) == ("latency-p90-early-stopping", "ns")
    early = read_log(ss41)[1]["Early stopping 90th percentile estimate"]
    assert run["value"] == early, "the headline is the early-stopping estimate MLPerf publishes"
    observed = [m for m in run["measurements"] if m.get("condition") == {"estimate": "observed"}]
    assert [m["metric"] for m in observed] == ["latency-p90"]
    assert observed[0]["value"] == read_log(ss41)[1]["90th percentile latency (ns)"]
    assert not [m for m in run.get("measurements") or [] if m["metric"] == run["metric"]]
    # the v5.1 spelling, read through the log path
    parts = ss51.relative_to(v51).as_posix().split("/")
    root = _mini_checkout(
        tmp_path,
        v51,
        "v5.1",
        [f"{parts[0]}/{parts[1]}/systems/{parts[3]}.json", ss51.relative_to(v51).as_posix()],
    )
    report = import_mlperf(root, tmp_path / "out")
    assert report.exit_code == 0, report.format()
    assert (
        report.raw["headline (log)"]["SingleStream / Early stopping 90.0th percentile estimate"][1]
        == "latency-p90-early-stopping (ns)"
    )


def test_gptj_headline_is_the_token_rate_loadgen_labels_inferred(imported):
    # v4.1 logs of gptj name it "Tokens per second (inferred)"; the v4.1 checker reports it.
    out, report = imported("v4.1")
    assert report.raw["headline (log)"]["Offline / Tokens per second (inferred)"][0] > 0
    path = next((out / "benchmarks" / "mlperf-v4.1").glob("*-gptj-99-offline.yaml"))
    run = _record(out, "benchmarks", "v4.1", path.stem)
    assert run["metric"] == "throughput-tok-s" and run["unit"] == "tok/s"
    assert "inferred" in run["notes"]
    assert any(m["metric"] == "throughput-samples-s" for m in run["measurements"])


def test_summary_queries_per_second_corrected_to_tokens_from_the_log(v51, imported, tmp_path):
    location = "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama3.1-8b/Interactive"
    row = _summary_row(v51, location)
    assert row["Performance_Units"] == "Queries/s"
    assert read_log(v51 / location / LOG)[1]["Completed tokens per second"] == pytest.approx(
        row["Performance_Result"], rel=1e-4
    )
    out, _ = imported("v5.1")
    run = _record(
        out,
        "benchmarks",
        "v5.1",
        "mlperf-v5.1-closed-nvidia-b200-sxm-180gbx8-trt-llama3.1-8b-interactive",
    )
    assert (run["metric"], run["unit"]) == ("throughput-tok-s", "tok/s")
    assert "Queries/s" in run["notes"]
    # the correction is checked on every import: a log that disagrees fails it
    root = _mini_checkout(
        tmp_path,
        v51,
        "v5.1",
        ["closed/NVIDIA/systems/B200-SXM-180GBx8_TRT.json", f"{location}/{LOG}"],
        rows=[row],
    )
    log = root / location / LOG
    log.write_text(
        log.read_text("utf-8").replace(
            "Completed tokens per second", "Completed tokens per second x"
        ),
        "utf-8",
    )
    report = import_mlperf(root, tmp_path / "out")
    assert report.exit_code == 1 and not report.written
    assert any("override" in reason for _, reason in report.failed)


# --- counts per node and multi-node systems -------------------------------------------------
def test_accelerator_count_is_a_per_node_times_nodes(v51, imported):
    rows = json.loads((v51 / "summary_results.json").read_text("utf-8"))
    nvl72 = next(r for r in rows if r["Nodes"] == 18 and r["a#"] == 4)
    out, _ = imported("v5.1")
    parts = nvl72["Location"].split("/")
    run_id = f"mlperf-v5.1-{parts[0]}-{parts[1]}-{parts[3]}-{parts[4]}-{parts[5]}".lower().replace(
        "_", "-"
    )
    run = _record(out, "benchmarks", "v5.1", run_id)
    assert run["accelerator_count"] == 72
    per = next(m for m in run["measurements"] if m["metric"].endswith("-per-accelerator"))
    assert per["derived"] is True and "not published" in per["note"]
    assert per["value"] == pytest.approx(run["value"] / 72, rel=1e-7)


def test_mixed_system_lists_each_part_and_counts_all_of_them(imported):
    out, _ = imported("v5.1")
    sid = "mlperf-v5.1-closed-mangoboost-32xmi300x-2xepyc-9534-16xmi325x-2xepyc-9655"
    system = _record(out, "systems", "v5.1", sid)
    assert system["accelerators"] == [
        {"id": "amd-instinct-mi300x", "count": 8},
        {"id": "amd-instinct-mi325x", "count": 8},
    ]
    assert system["nodes"] == 6 and "32 x amd-instinct-mi300x" in system["notes"]
    run = _record(out, "benchmarks", "v5.1", f"{sid}-llama2-70b-99-offline")
    assert run["accelerator_count"] == 48
    # the run's total of each kind (the source's own totals), not the system's per node
    assert run["accelerators"] == [
        {"id": "amd-instinct-mi300x", "count": 32},
        {"id": "amd-instinct-mi325x", "count": 16},
    ]


@pytest.mark.parametrize(
    "sid",
    [
        "mlperf-v5.1-closed-mangoboost-32xmi300x-2xepyc-9534-16xmi325x-2xepyc-9655",
        "mlperf-v5.1-closed-supermicro-mangoboost-16xmi325x-8xmi300x-2xepyc-9575f",
    ],
)
def test_a_run_on_several_kinds_has_no_figure_per_accelerator(sid, imported):
    """Its total over 48 accelerators of two kinds is no MI300X figure nor an MI325X one."""
    out, _ = imported("v5.1")
    runs = sorted((out / "benchmarks" / "mlperf-v5.1").glob(f"{sid}-*.yaml"))
    assert len(runs) == 4
    for path in runs:
        run = _record(out, "benchmarks", "v5.1", path.stem)
        assert len(run["accelerators"]) == 2
        assert not any(
            m["metric"].endswith("-per-accelerator") for m in run.get("measurements", [])
        ), path.name
        assert "no figure per accelerator" in run["notes"]
    single = _record(
        out,
        "benchmarks",
        "v5.1",
        "mlperf-v5.1-closed-mangoboost-8xmi325x-2xepyc-9655-llama2-70b-99-server",
    )
    assert single["accelerators"] == ["amd-instinct-mi325x"]
    assert any(m["metric"] == "throughput-tok-s-per-accelerator" for m in single["measurements"])


# --- status, provenance, who measured ----------------------------------------------------------
def test_inferred_results_are_provisional_and_say_why(v51, imported):
    rows = json.loads((v51 / "summary_results.json").read_text("utf-8"))
    row = next(r for r in rows if r["inferred"] and r["Category"] == "closed")
    out, _ = imported("v5.1")
    parts = row["Location"].split("/")
    run_id = f"mlperf-v5.1-{parts[0]}-{parts[1]}-{parts[3]}-{parts[4]}-{parts[5]}".lower().replace(
        "_", "-"
    )
    run = _record(out, "benchmarks", "v5.1", run_id)
    assert run["status"] == "provisional" and "inferred" in run["notes"]


def test_runs_carry_provenance_and_say_nothing_of_parallelism(imported):
    out, _ = imported("v5.1")
    run = _record(
        out,
        "benchmarks",
        "v5.1",
        "mlperf-v5.1-closed-amd-8xmi300x-2xepyc-9575f-llama2-70b-99-offline",
    )
    source = run["source"][0]
    assert source["publisher"] == "MLCommons" and source["round"] == "v5.1"
    assert source["commit"] == "965182b03376a00fcae415c54e560e1c83937932"
    assert source["path"] == "summary_results.json" and source["row"].startswith("5.1-")
    assert source["licence"].endswith("LICENSE-2.0")
    assert "parallelism" not in run and run["omitted_by_source"] == ["parallelism"]
    nvl = _record(
        out,
        "benchmarks",
        "v5.1",
        "mlperf-v5.1-closed-asustek-esc8000-h200-nvlx8-trt-llama2-70b-99-offline",
    )
    assert nvl["omitted_by_source"] == ["parallelism", "accelerator interconnect"], (
        "its description gives accelerator_interconnect 'N/A': not published, never none"
    )
    assert run["model"] == "llama2-70b" and run["accuracy_target"] == 99
    assert run["status"] == "verified" and run["reproducible"] is True


def test_one_model_at_two_accuracy_targets(imported):
    out, _ = imported("v5.1")
    base = "mlperf-v5.1-closed-amd-8xmi300x-2xepyc-9575f-llama2-70b-"
    strict = _record(out, "benchmarks", "v5.1", base + "99.9-offline")
    loose = _record(out, "benchmarks", "v5.1", base + "99-offline")
    assert strict["model"] == loose["model"] == "llama2-70b"
    assert (strict["accuracy_target"], strict["benchmark"]) == (99.9, "llama2-70b-99.9")
    assert (loose["accuracy_target"], loose["benchmark"]) == (99, "llama2-70b-99")


def test_measured_by_follows_who_sells_what(imported):
    out41, _ = imported("v4.1")
    out51, _ = imported("v5.1")
    kilt = next((out41 / "benchmarks" / "mlperf-v4.1").glob("mlperf-v4.1-open-krai-*.yaml"))
    assert _record(out41, "benchmarks", "v4.1", kilt.stem)["measured_by"] == "vendor"
    vllm = next((out51 / "benchmarks" / "mlperf-v5.1").glob("mlperf-v5.1-open-krai-*.yaml"))
    assert _record(out51, "benchmarks", "v5.1", vllm.stem)["measured_by"] == "third_party"
    nvidia = next((out51 / "benchmarks" / "mlperf-v5.1").glob("mlperf-v5.1-closed-nvidia-*"))
    assert _record(out51, "benchmarks", "v5.1", nvidia.stem)["measured_by"] == "vendor"


def test_a_result_missing_from_the_summary_is_reported_left_out(imported):
    _, report = imported("v5.1")
    log = (
        "open/GATEOverflow/results/GATEOverflow_Intel_SPR_i9-reference-gpu-pytorch_v2.2.2-cu126"
        "/pointpainting/offline/performance/run_1/mlperf_log_summary.txt"
    )
    assert [where for where, _ in report.left_out] == [log]
