"""The told-edits benchmark, run at its smallest so that it does not rot: a few dozen
synthetic runs, two edits of each kind. No time is asserted; what is checked is that each
edit was built from the told file alone, as `serve --watch`'s builder builds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from paths import ROOT

BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

from synth import generate  # noqa: E402


@pytest.mark.slow
def test_the_told_edits_benchmark_times_each_edit_built_from_the_told_file(tmp_path):
    data = tmp_path / "data"
    generate(data, 40)
    done = subprocess.run(
        [sys.executable, str(BENCH / "told_edits.py"), str(data), "--runs", "2", "--parts", "2"],
        capture_output=True,
        text=True,
        timeout=1200,
        env=os.environ | {"BENCHGRAPH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["reached"] > 0
    for kind in ("run", "part"):
        assert len(found[kind]) == 2
        assert all(e["scan"] == "told" and e["seconds"] > 0 for e in found[kind])
        assert all("derive" in e["phases"] for e in found[kind])
