"""A rebuild after edits reports exactly what a build from scratch reports.

The across-record checks keep each record's problems in the build cache and re-check only
what an edit can change; these edits reach other records one and two links away."""

from __future__ import annotations

import shutil

import pytest
import yaml

from benchgraph.pipeline.steps import build

from .validation_support import BAD

RUN = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user.yaml"


def edit(data, rel: str, **fields) -> None:
    path = data / rel
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    record.update(fields)
    path.write_text(
        yaml.safe_dump({k: v for k, v in record.items() if v is not None}, sort_keys=False),
        encoding="utf-8",
    )


EDITS = [
    # a metric's unit: every run and measurement of it is checked again
    ("metric unit", lambda d: edit(d, "metrics/ttft.yaml", unit="tok/s")),
    # an interconnect's role: runs two links away (via their accelerators) change
    ("interconnect role", lambda d: edit(d, "interconnects/pcie.yaml", role="scale-up-fabric")),
    # a record others name disappears, then comes back
    ("removed accelerator", lambda d: (d / "accelerators" / "nvidia-h100-sxm.yaml").unlink()),
    (
        "restored accelerator",
        lambda d: shutil.copy(BAD / "accelerators" / "nvidia-h100-sxm.yaml", d / "accelerators"),
    ),
    # an accelerator's interconnects: a run's fabric claim is now carried
    (
        "accelerator interconnects",
        lambda d: edit(
            d, "accelerators/nvidia-rtx-pro-6000-blackwell.yaml", interconnect_ids=["nvlink-4"]
        ),
    ),
    # what no other record reads (a note, a description): only the record is checked again
    (
        "accelerator note",
        lambda d: edit(d, "accelerators/nvidia-rtx-pro-6000-blackwell.yaml", notes="edited"),
    ),
    ("metric description", lambda d: edit(d, "metrics/ttft.yaml", description="edited")),
    # then what others read of the same record: its readers are checked again
    ("metric unit back", lambda d: edit(d, "metrics/ttft.yaml", unit="ms")),
    # runs only
    ("run fixed", lambda d: edit(d, "benchmarks/bad-run-confidence.yaml", confidence=0.5)),
    ("run broken", lambda d: edit(d, RUN, unit="ms")),
    ("run removed", lambda d: (d / "benchmarks" / "bad-run-unit.yaml").unlink()),
    # a run's link dangles, then is mended, while every file keeps its id
    ("run link dangles", lambda d: edit(d, RUN, model="no-such-model")),
    (
        "another run link dangles",
        lambda d: edit(d, "benchmarks/bad-run-confidence.yaml", engine="no-such-engine"),
    ),
    ("run link mended", lambda d: edit(d, RUN, model="deepseek-v4.1-flash")),
    # the file repeating another's id is edited: its id moves to another line
    (
        "duplicate id moves",
        lambda d: (
            edit(d, "benchmarks/mirror/" + RUN.split("/")[1], title="First field now", id=None)
            or _append(d / "benchmarks/mirror" / RUN.split("/")[1], f"id: {RUN[11:-5]}\n")
        ),
    ),
]


def _append(path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def problems(data, cache, monkeypatch) -> list[str]:
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(cache))
    return [str(p) for p in build(data, skip_invalid=True).problems]


@pytest.mark.slow
def test_rebuilds_report_what_a_fresh_build_reports(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(BAD, data)
    first = problems(data, tmp_path / "kept", monkeypatch)
    for n, (what, change) in enumerate(EDITS):
        change(data)
        rebuilt = problems(data, tmp_path / "kept", monkeypatch)
        fresh = problems(data, tmp_path / f"fresh-{n}", monkeypatch)
        assert rebuilt == fresh, what
    assert rebuilt != first
