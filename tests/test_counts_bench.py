"""The counts benchmark, run at its smallest so that it does not rot: a few dozen synthetic
runs, two rounds. No time is asserted (machines are noisy); what is checked is that it ran
its edits, found the kept counts the store's after each (it stops otherwise), and reported a
figure for every round."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from paths import ROOT

BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

from synth import generate  # noqa: E402


@pytest.mark.slow
def test_the_counts_benchmark_reports_each_edit_both_ways(tmp_path):
    data, report = tmp_path / "data", tmp_path / "counts.md"
    generate(data, 40)
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "counts_bench.py"),
            "--data",
            str(data),
            "--rounds",
            "2",
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        env=os.environ | {"BENCHGRAPH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = report.read_text(encoding="utf-8")
    assert "The first full count" in text
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("| a run") or line.startswith("| the part")
    }
    assert set(rows) == {"a run", "the part"}
    for cells in rows.values():
        assert len(cells[1].split(", ")) == 2 and len(cells[2].split(", ")) == 2
        assert cells[3].endswith("x")
