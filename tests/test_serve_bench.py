"""The serving benchmark, run small so that it does not rot: on the web tests' records, one
request per query, a fraction of a second of throughput. No time is asserted (CI machines are
noisy); what is checked is that the report has a row for every query it promises."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paths import ROOT

BENCH = ROOT / "benchmarks" / "serve_bench.py"
RECORDS = ROOT / "tests" / "web" / "data" / "records"


@pytest.mark.slow
def test_the_serving_benchmark_reports_every_query_on_every_server(tmp_path):
    out = tmp_path / "serve.md"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--sizes",
            str(RECORDS),
            "--repeat",
            "1",
            "--duration",
            "0.3",
            "--settle",
            "0",
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    queries = ["point lookup", *sorted(p.stem for p in (ROOT / "queries").glob("*.rq"))]
    rows = [
        line.split("|")
        for line in out.read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and line.count("|") == 10
    ]
    named = {cells[2].strip(): cells for cells in rows if cells[2].strip() != "query"}
    assert sorted(named) == sorted(queries)
    for name, cells in named.items():  # benchgraph's and Oxigraph's times are there
        assert cells[4].strip() != "-" and cells[5].strip() != "-", (name, cells)
    result = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    (size,) = result["sizes"]
    assert {run["kind"] for run in size["load"]["benchgraph"]} == {"cheap", "heavy"}
    assert size["memory"]["after"]["benchgraph"]["pss_mb"] > 0


@pytest.mark.slow
def test_the_serving_benchmark_compares_with_another_commit(tmp_path):
    out = tmp_path / "serve.md"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--sizes",
            str(RECORDS),
            "--repeat",
            "1",
            "--duration",
            "0.3",
            "--settle",
            "0",
            "--skip",
            "rdflib-endpoint",
            "--baseline",
            "HEAD",
            "--baseline-dir",
            str(tmp_path / "envs"),
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    section = text[text.index("## Today's benchgraph serve against HEAD") :]
    queries = ["point lookup", *sorted(p.stem for p in (ROOT / "queries").glob("*.rq"))]
    rows = {
        cells[2].strip(): cells
        for cells in (line.split("|") for line in section.splitlines() if line.count("|") == 7)
        if cells[2].strip() not in ("query", "---")
    }
    assert sorted(rows) == sorted(queries)
    for name, cells in rows.items():  # both servers answered it, and the ratio is given
        assert "-" not in (cells[4].strip(), cells[5].strip(), cells[6].strip()), (name, cells)
    result = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    (size,) = result["sizes"]
    # each throughput run was made for both, twice each
    for server in ("benchgraph", "baseline"):
        assert len([r for r in size["load"][server] if r.get("clients") == 1]) == 4
    assert size["memory"]["after"]["baseline"]["pss_mb"] > 0
