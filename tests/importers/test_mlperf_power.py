"""MLPerf's power metric from the power logs, as MLCommons' submission checker computes it.

Against v5.1's published Power_Result (every row whose logs are complete), v4.1's 31 power
runs, and hand-made logs for the edges: a sample on the window's edge, a missing mark, a
clock in another format, a run with no power.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from benchgraph.importers import import_mlperf
from benchgraph.importers.mlperf_power import (
    PowerLogError,
    compute,
    find_power_logs,
)
from benchgraph.records.reader import load_record

RGAT = "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/rgat/Offline"
RGAT_RUN = "mlperf-v5.1-closed-lenovo-sr780a-v3-b200sxmx8-trt-rgat-offline"


def _runs(out: Path, round_: str) -> dict[str, dict]:
    runs = {}
    for path in sorted((out / "benchmarks" / f"mlperf-{round_}").glob("*.yaml")):
        record, problems = load_record(path, out)
        assert not [p for p in problems if p.severity == "violation"], problems
        runs[record.id] = record.fields
    return runs


def _power_items(run: dict) -> list[dict]:
    return [
        m
        for m in run.get("measurements") or []
        if m["metric"] in ("system-power", "energy-per-query")
    ]


# --- the shared copies ----------------------------------------------------------------
def test_v51_power_logs_agree_with_every_published_figure(v51):
    rows = [
        r
        for r in json.loads((v51 / "summary_results.json").read_text("utf-8"))
        if r.get("has_power")
    ]
    assert len(rows) == 24
    agree, incomplete = [], []
    for row in rows:
        logs = find_power_logs(v51 / row["Location"], row["Location"])
        assert logs is not None, row["Location"]
        if not logs.complete:
            incomplete.append((row["Location"], logs.missing))
            continue
        result = compute(logs, row["Scenario"])
        assert result.unit == {"Watts": "W", "millijoules": "mJ"}[row["Power_Units"]]
        assert result.agrees_with(row["Power_Result"]), (
            row["Location"],
            row["Power_Result"],
            result.value,
        )
        agree.append(row["Location"])
    assert len(agree) == 23
    assert incomplete == [(RGAT, ["run_1/mlperf_log_detail.txt"])]


def test_v51_runs_keep_the_published_figure_and_cite_agreeing_logs(imported, v51):
    out, report = imported("v5.1")
    assert report.exit_code == 0, report.summary()
    runs = _runs(out, "v5.1")
    with_power = {rid: run for rid, run in runs.items() if _power_items(run)}
    assert len(with_power) == 24
    # the row's ID names the system; its Location and Scenario name the result
    rows = {
        (r["ID"], r["Location"].split("/")[4], r["Scenario"]): r
        for r in json.loads((v51 / "summary_results.json").read_text("utf-8"))
    }
    for rid, run in with_power.items():
        (item,) = _power_items(run)
        row = rows[(run["source"][0]["row"], run["benchmark"], run["scenario"])]
        scale = Decimal("0.001") if row["Power_Units"] == "millijoules" else Decimal(1)
        assert Decimal(repr(item["value"])) == Decimal(repr(row["Power_Result"])) * scale
        paths = [s["path"] for s in run["source"][1:]]
        if rid == RGAT_RUN:
            assert paths == []
            assert "incomplete" in item["note"] and "mlperf_log_detail.txt" in item["note"]
            assert "summary_results.json's figure alone" in item["note"]
        else:
            assert [p.rsplit("/", 1)[1] for p in paths] == ["spl.txt", "mlperf_log_detail.txt"]
            assert "a second source of this measurement" in item["note"]


def test_v41_power_runs_carry_the_metric_computed_from_their_logs(imported, v41):
    out, report = imported("v4.1")
    assert report.exit_code == 0, report.summary()
    runs = _runs(out, "v4.1")
    with_power = {rid: _power_items(run) for rid, run in runs.items() if _power_items(run)}
    assert len(with_power) == 31
    scenarios = {runs[rid]["scenario"]: items[0]["metric"] for rid, items in with_power.items()}
    assert scenarios == {
        "Offline": "system-power",
        "Server": "system-power",
        "SingleStream": "energy-per-query",
        "MultiStream": "energy-per-query",
    }
    maxq = runs["mlperf-v4.1-closed-nvidia-h200-sxm-141gbx8-trt-maxq-llama2-70b-99-offline"]
    (power,) = _power_items(maxq)
    assert power["unit"] == "W" and 1000 < power["value"] < 10000  # an 8-GPU system, at the wall
    eff = [m for m in maxq["measurements"] if m["metric"] == "tokens-per-joule"]
    assert len(eff) == 1 and eff[0]["derived"] is True
    assert eff[0]["value"] == pytest.approx(maxq["value"] / power["value"], rel=1e-7)


# --- hand-made logs ---------------------------------------------------------------------
def _mllog(key: str, value) -> str:
    return ":::MLLOG " + json.dumps(
        {
            "key": key,
            "value": value,
            "time_ms": 1.0,
            "namespace": "mlperf::logging",
            "event_type": "POINT_IN_TIME",
            "metadata": {},
        }
    )


def _sample(clock: str, watts: str) -> str:
    return f"Time,{clock},Watts,{watts},Volts,230.0,Amps,1.0,PF,0.99,Mark,run"


def _power_run(
    root: Path, *, marks: dict | None = None, samples: list[str] | None = None, detail: bool = True
) -> Path:
    """A result folder with hand-made power logs: power/, ranging/, run_1/."""
    perf = root / "performance"
    for name in ("power/client.json", "power/server.json"):
        (perf / name).parent.mkdir(parents=True, exist_ok=True)
        (perf / name).write_text('{"version": "1.0", "timezone": 0}', "utf-8")
    marks = (
        {
            "power_begin": "01-02-2025 10:00:00.000",
            "power_end": "01-02-2025 10:00:10.000",
            "result_query_count": 500,
            "effective_scenario": "SingleStream",
        }
        if marks is None
        else marks
    )
    samples = (
        samples
        if samples is not None
        else [
            _sample("01-02-2025 09:59:59.000", "999"),  # before the window
            _sample("01-02-2025 10:00:00.000", "5000"),  # on power_begin: not inside
            _sample("01-02-2025 10:00:01.000", "100.5"),
            _sample("01-02-2025 10:00:02.000", "0"),  # not above 0: not counted
            _sample("01-02-2025 10:00:05.000", "99.5"),
            _sample("01-02-2025 10:00:10.000", "7000"),  # on power_end: not inside
        ]
    )
    for folder in ("ranging", "run_1"):
        (perf / folder).mkdir(parents=True, exist_ok=True)
        (perf / folder / "spl.txt").write_text("\n".join(samples) + "\n", "utf-8")
        if detail:
            lines = [_mllog("loadgen_version", "5.1")] + [_mllog(k, v) for k, v in marks.items()]
            (perf / folder / "mlperf_log_detail.txt").write_text("\n".join(lines) + "\n", "utf-8")
    return root


def test_samples_on_the_window_edge_or_at_zero_are_not_counted(tmp_path):
    logs = find_power_logs(_power_run(tmp_path / "r"), "r")
    result = compute(logs, "Offline")
    assert result.metric == "system-power" and result.unit == "W"
    assert result.samples == 2
    assert result.value == Decimal("100")  # (100.5 + 99.5) / 2: not 5000, 0 or 7000


def test_energy_per_query_is_mean_watts_times_window_over_queries(tmp_path):
    logs = find_power_logs(_power_run(tmp_path / "r"), "r")
    single = compute(logs, "SingleStream")
    assert (single.metric, single.unit) == ("energy-per-query", "mJ")
    assert single.value == Decimal("100") * 10 * 1000 / 500  # 2000 mJ per query
    multi = compute(logs, "MultiStream")  # its log says SingleStream ran: 8 samples a query
    assert multi.value == single.value * 8
    assert multi.multistream_from_singlestream


def test_a_missing_mark_is_an_error_naming_the_file_and_mark(tmp_path):
    root = _power_run(tmp_path / "r", marks={"power_begin": "01-02-2025 10:00:00.000"})
    with pytest.raises(PowerLogError) as err:
        compute(find_power_logs(root, "r"), "Offline")
    assert "r/performance/run_1/mlperf_log_detail.txt" in str(err.value)
    assert "power_end" in str(err.value)


def test_a_clock_in_another_format_is_an_error_naming_file_line_and_value(tmp_path):
    samples = [_sample("01-02-2025 10:00:01.000", "100"), _sample("2025-01-02T10:00:02", "100")]
    root = _power_run(tmp_path / "r", samples=samples)
    with pytest.raises(PowerLogError) as err:
        compute(find_power_logs(root, "r"), "Offline")
    message = str(err.value)
    assert "r/performance/run_1/spl.txt:2" in message and "2025-01-02T10:00:02" in message
    assert "%m-%d-%Y %H:%M:%S.%f" in message
    marks = {"power_begin": "2025/01/02 10:00:00", "power_end": "01-02-2025 10:00:10.000"}
    root = _power_run(tmp_path / "m", marks=marks)
    with pytest.raises(PowerLogError, match=r"mlperf_log_detail.txt:2: power_begin"):
        compute(find_power_logs(root, "m"), "Offline")


def test_no_sample_inside_the_window_is_an_error(tmp_path):
    root = _power_run(tmp_path / "r", samples=[_sample("01-02-2025 11:00:00.000", "100")])
    with pytest.raises(PowerLogError, match="none has a time strictly between"):
        compute(find_power_logs(root, "r"), "Server")


def test_a_run_without_a_power_folder_measured_no_power(tmp_path):
    (tmp_path / "r" / "performance" / "run_1").mkdir(parents=True)
    assert find_power_logs(tmp_path / "r", "r") is None


def test_published_precision_is_the_figures_own(tmp_path):
    result = compute(find_power_logs(_power_run(tmp_path / "r"), "r"), "SingleStream")
    assert result.agrees_with(2000.0) and result.agrees_with("2000.0000000000")
    assert not result.agrees_with(2000.1) and not result.agrees_with("n/a")


# --- the importer, on a small checkout with hand-made power logs -------------------------
DGX = "closed/NVIDIA/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99/Offline"
DGX_RUN = "mlperf-v4.1-closed-nvidia-dgx-h100-h100-sxm-80gbx8-trt-llama2-70b-99-offline"


def _checkout(fixtures: Path, tmp_path: Path) -> Path:
    root = tmp_path / "mlperf" / "inference_results_v4.1"
    shutil.copytree(fixtures / "mlperf" / "inference_results_v4.1", root)
    shutil.copyfile(fixtures / "mlperf" / "SOURCES", root.parent / "SOURCES")
    return root


def test_import_records_the_power_metric_its_efficiency_and_the_files(fixtures, tmp_path):
    root = _checkout(fixtures, tmp_path)
    _power_run(root / DGX)
    out = tmp_path / "out"
    report = import_mlperf(root, out)
    assert report.exit_code == 0, report.summary()
    run = _runs(out, "v4.1")[DGX_RUN]
    (power,) = _power_items(run)
    assert (power["metric"], power["value"], power["unit"]) == ("system-power", 100.0, "W")
    (eff,) = [m for m in run["measurements"] if m["metric"] == "tokens-per-joule"]
    assert eff["value"] == pytest.approx(run["value"] / 100.0, rel=1e-7)
    assert [s["path"] for s in run["source"][1:]] == [
        f"{DGX}/performance/run_1/spl.txt",
        f"{DGX}/performance/run_1/mlperf_log_detail.txt",
    ]


def test_import_of_a_broken_power_log_writes_nothing_and_names_the_line(fixtures, tmp_path):
    root = _checkout(fixtures, tmp_path)
    _power_run(root / DGX, samples=[_sample("01/02/2025 10:00:01", "100")])
    out = tmp_path / "out"
    report = import_mlperf(root, out)
    assert report.exit_code == 1 and not report.written
    assert not (out / "benchmarks").exists()
    assert f"{DGX}/performance/run_1/spl.txt:1: Time: '01/02/2025 10:00:01'" in report.summary()


def test_import_of_a_power_run_without_its_detail_log_records_no_figure(fixtures, tmp_path):
    root = _checkout(fixtures, tmp_path)
    _power_run(root / DGX, detail=False)
    out = tmp_path / "out"
    report = import_mlperf(root, out)
    assert report.exit_code == 0, report.summary()
    run = _runs(out, "v4.1")[DGX_RUN]
    assert _power_items(run) == []
    assert "incomplete" in run["notes"] and any(
        "mlperf_log_detail.txt" in w for w in report.warnings
    )


# --- hostile logs: every one an error naming the file, line, field and value, never a
# traceback or a figure no instrument gave ------------------------------------------------
@pytest.mark.parametrize("watts", ["NaN", "nan", "sNaN", "Infinity", "-Infinity", "inf"])
def test_a_reading_that_is_no_finite_number_is_an_error_naming_its_line(tmp_path, watts):
    samples = [_sample("01-02-2025 10:00:01.000", "100"), _sample("01-02-2025 10:00:02.000", watts)]
    root = _power_run(tmp_path / "r", samples=samples)
    with pytest.raises(PowerLogError) as err:
        compute(find_power_logs(root, "r"), "Offline")
    message = str(err.value)
    assert "r/performance/run_1/spl.txt:2: Watts:" in message and repr(watts) in message
    assert "not a finite number" in message


def test_a_reading_too_large_for_a_double_is_refused_not_written_as_infinity(tmp_path):
    samples = [_sample("01-02-2025 10:00:01.000", "1e400")]
    root = _power_run(tmp_path / "r", samples=samples)
    with pytest.raises(PowerLogError, match=r"spl.txt:1: Watts: '1e400'"):
        compute(find_power_logs(root, "r"), "Offline")


def test_an_energy_too_large_for_a_double_is_refused(tmp_path):
    """1e308 W is a finite reading, but its energy per query over 10 s is not a double."""
    samples = [_sample("01-02-2025 10:00:01.000", "1e308")]
    root = _power_run(tmp_path / "r", samples=samples)
    assert compute(find_power_logs(root, "r"), "Offline").value == Decimal("1e308")
    with pytest.raises(PowerLogError, match="energy-per-query.*too large"):
        compute(find_power_logs(root, "r"), "SingleStream")


def test_a_window_that_ends_before_it_begins_is_an_error(tmp_path):
    marks = {
        "power_begin": "01-02-2025 10:00:10.000",
        "power_end": "01-02-2025 10:00:00.000",
        "result_query_count": 500,
    }
    root = _power_run(tmp_path / "r", marks=marks)
    with pytest.raises(PowerLogError, match=r"mlperf_log_detail.txt:3: power_end.*before"):
        compute(find_power_logs(root, "r"), "Offline")


def test_samples_going_backwards_count_by_their_own_time(tmp_path):
    """The checker keeps a sample by its own clock, in any order: so is it here."""
    samples = [
        _sample("01-02-2025 10:00:05.000", "100"),
        _sample("01-02-2025 10:00:01.000", "300"),
        _sample("01-02-2025 09:00:00.000", "900"),  # before the window, out of order
    ]
    root = _power_run(tmp_path / "r", samples=samples)
    result = compute(find_power_logs(root, "r"), "Offline")
    assert (result.value, result.samples) == (Decimal(200), 2)


def test_a_huge_sample_file_is_read_a_line_at_a_time(tmp_path):
    """300,000 samples (a 22 MB spl.txt): read as it streams, the mean exact."""
    clock = "01-02-2025 10:00:0{}.000"
    lines = [_sample(clock.format(1 + i % 8), "100" if i % 2 else "200") for i in range(300_000)]
    root = _power_run(tmp_path / "r", samples=lines)
    result = compute(find_power_logs(root, "r"), "Offline")
    assert (result.value, result.samples) == (Decimal(150), 300_000)
