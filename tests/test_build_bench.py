"""The build benchmark, run at its smallest so that it does not rot: a few dozen synthetic runs,
and the same against another commit's code (here the checkout's own HEAD, in an environment
made as for any commit). No time is asserted (CI machines are noisy); what is checked is that
the report has the rows and figures it promises."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paths import ROOT

BENCH = ROOT / "benchmarks" / "build_bench.py"


def run(*argv: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, str(BENCH), *argv], capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def table(text: str, header: str) -> list[list[str]]:
    """The body rows of the Markdown table whose header row starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    out = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        out.append([c.strip() for c in line.strip("|").split("|")])
    return out


@pytest.mark.slow
def test_the_build_benchmark_reports_every_step(tmp_path):
    out = tmp_path / "build.md"
    run("--sizes", "40", "--report", str(out))
    (row,) = table(out.read_text(encoding="utf-8"), "| runs |")
    assert row[0] == "40"
    # every figure is there: records, quads, the build, the edits, the peers
    assert all(cell and cell != "-" for cell in row), row
    # and the edits as serve --watch's builder and as `build --watch` make them
    text = out.read_text(encoding="utf-8")
    told, cli = text.split("The same four edits with `benchgraph build --watch`")
    for part in (told, cli):
        (edits,) = table(part.split("The same four edits")[-1], "| runs | edit one run s")
        assert edits[0] == "40" and all(float(c) > 0 for c in edits[1:]), edits


@pytest.mark.slow
def test_the_build_benchmark_compares_with_another_commit_on_every_shape(tmp_path):
    out = tmp_path / "baseline.md"
    run(
        "--baseline",
        "HEAD",
        "--baseline-dir",
        str(tmp_path / "envs"),
        "--sizes",
        "40",
        "--repeat",
        "1",
        "--report",
        str(out),
    )
    text = out.read_text(encoding="utf-8")
    rows = table(text, "| records | size |")
    assert [r[0] for r in rows] == ["synthetic", "shipped", "huge"]
    for r in rows:  # both codes built them, and the ratio is given
        assert r[3] not in ("", "-", "refused") and r[4] not in ("", "-", "refused"), r
        assert float(r[5]) > 0, r
    builds = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    for r in builds:
        (base,), (today,) = r["builds"]["baseline"], r["builds"]["today"]
        # the baseline ran the commit's code from its own environment, today's this checkout's
        assert str(tmp_path / "envs") in base["benchgraph"]
        assert str(ROOT / "src") in today["benchgraph"]
        assert base["quads"] > 0 and today["quads"] > 0
        assert {"noop", "edit_run", "edit_links"} <= today.keys()
