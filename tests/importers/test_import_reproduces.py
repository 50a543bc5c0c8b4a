"""Importing the real sources reproduces the shipped records byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchgraph.importers import import_mlperf


def _tree(root: Path, folders: list[str]) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in folders
        for p in sorted((root / folder).glob("*.yaml"))
    }


def _assert_same(out: Path, shipped: Path, folders: list[str]) -> None:
    made, ship = _tree(out, folders), _tree(shipped, folders)
    assert sorted(made) == sorted(ship), (
        f"only generated: {sorted(set(made) - set(ship))[:5]}; "
        f"only shipped: {sorted(set(ship) - set(made))[:5]}"
    )
    differ = [name for name in made if made[name] != ship[name]]
    assert not differ, f"{len(differ)} file(s) differ, e.g. {differ[:3]}"


@pytest.mark.parametrize("round_", ["v5.1", "v4.1"])
def test_mlperf_import_reproduces_shipped_records(round_, imported, shipped):
    out, report = imported(round_)
    assert report.exit_code == 0, report.summary()
    assert report.written
    _assert_same(out, shipped, [f"systems/mlperf-{round_}", f"benchmarks/mlperf-{round_}"])


@pytest.mark.slow
def test_argonne_import_reproduces_shipped_records(imported, shipped):
    out, report = imported("argonne")
    assert report.exit_code == 0, report.summary()
    _assert_same(out, shipped, ["benchmarks/argonne"])


def test_trtllm_import_reproduces_shipped_records(imported, shipped):
    out, report = imported("trtllm")
    assert report.exit_code == 0, report.summary()
    _assert_same(out, shipped, ["benchmarks/trtllm-perf", "systems/trtllm-perf"])


def test_reimport_is_stable_and_removes_only_stale_generated_files(fixtures, tmp_path):
    checkout = fixtures / "mlperf" / "inference_results_v4.1"
    folders = ["systems/mlperf-v4.1", "benchmarks/mlperf-v4.1"]
    import_mlperf(checkout, tmp_path)
    first = _tree(tmp_path, folders)
    runs = tmp_path / "benchmarks" / "mlperf-v4.1"
    stale = runs / "mlperf-v4.1-closed-x-gone.yaml"
    stale.write_bytes(next(iter(first.values())))
    hand = runs / "hand-written.yaml"
    hand.write_text("id: hand-written\n", encoding="utf-8")
    import_mlperf(checkout, tmp_path)
    assert not stale.exists(), "a generated file no longer produced must go"
    assert hand.exists(), "a file without the generated header is never removed"
    hand.unlink()
    assert _tree(tmp_path, folders) == first
