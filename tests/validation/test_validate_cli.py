"""`benchgraph validate` and `build` as a curator meets them: every problem at once, one line
each, in text, JSON or a SHACL report; exit codes as pySHACL's; builds refuse or skip."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from rdflib import Graph, Literal
from rdflib.namespace import RDF, SH

from benchgraph.cli.main import main

from .validation_support import BAD, BASE

TEN = [
    "accelerators/bad-acc-no-vendor.yaml",
    "benchmarks/bad-run-confidence.yaml",
    "benchmarks/bad-run-date-does-not-exist.yaml",
    "benchmarks/bad-run-engine-missing.yaml",
    "benchmarks/bad-run-min-above-max.yaml",
    "benchmarks/bad-run-status.yaml",
    "benchmarks/bad-run-unknown-key.yaml",
    "benchmarks/bad-run-verified-not-reproducible.yaml",
    "benchmarks/bad-run-yaml-syntax.yaml",
    "models/bad-model-more-active-than-total.yaml",
]
EXPECTED = yaml.safe_load((BAD / "EXPECTED.yaml").read_text(encoding="utf-8"))


def folder(tmp_path: Path, bad: list[str]) -> Path:
    """The base records plus the given bad records of the corpus."""
    data = tmp_path / "data"
    shutil.copytree(BASE, data)
    for rel in bad:
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BAD / rel, data / rel)
    return data


def expected_line(rel: str) -> str:
    """The start of the line a problem of this bad record must print."""
    e = EXPECTED[rel]
    field = f" {e['field']}:" if e["field"] else ""
    return f"data/{rel}:{e['line']}:{field}"


def test_ten_bad_records_are_all_reported_in_one_run(tmp_path, capsys):
    data = folder(tmp_path, TEN)
    assert main(["validate", "--data", str(data)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "10 violation(s), 0 warning(s), 0 info"
    for rel in TEN:
        mine = [line for line in lines if line.startswith(expected_line(rel))]
        assert len(mine) == 1, (rel, lines)
        assert mine[0].endswith(f"[{EXPECTED[rel]['code']}]")
    assert len(lines) == 11


def test_the_shipped_shape_examples_base_conforms(tmp_path, capsys):
    data = folder(tmp_path, [])
    assert main(["validate", "--data", str(data)]) == 0
    assert capsys.readouterr().out == "0 violation(s), 0 warning(s), 0 info\n"


def test_json_gives_the_same_entries(tmp_path, capsys):
    data = folder(tmp_path, ["benchmarks/bad-run-confidence.yaml"])
    assert main(["validate", "--data", str(data), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["conforms"] is False
    assert report["problems"] == [
        {
            "file": "data/benchmarks/bad-run-confidence.yaml",
            "line": 6,
            "field": "confidence",
            "message": "must be a number from 0 to 1",
            "value": "1.4",
            "code": "bg:BenchmarkRunShape-confidence",
            "severity": "violation",
        }
    ]


def test_turtle_gives_a_shacl_report(tmp_path, capsys):
    data = folder(
        tmp_path, ["benchmarks/bad-run-confidence.yaml", "benchmarks/bad-run-yaml-syntax.yaml"]
    )
    assert main(["validate", "--data", str(data), "--format", "turtle"]) == 1
    g = Graph().parse(data=capsys.readouterr().out, format="turtle")
    report = next(g.subjects(RDF.type, SH.ValidationReport))
    assert g.value(report, SH.conforms) == Literal(False)
    results = list(g.objects(report, SH.result))
    assert len(results) == 2
    shapes = {str(g.value(r, SH.sourceShape)).rsplit("#", 1)[1] for r in results}
    assert shapes == {"BenchmarkRunShape-confidence", "yaml-syntax"}
    confidence = next(r for r in results if str(g.value(r, SH.sourceShape)).endswith("confidence"))
    assert str(g.value(confidence, SH.focusNode)).endswith("/benchmarks/bad-run-confidence")
    assert str(g.value(confidence, SH.resultPath)).endswith("#confidence")
    assert g.value(confidence, SH.value) == Literal("1.4")


def test_warnings_exit_0_unless_strict(tmp_path, capsys):
    data = folder(tmp_path, ["benchmarks/bad-run-pcie-card-on-nvlink.yaml"])
    assert main(["validate", "--data", str(data)]) == 0
    out = capsys.readouterr().out
    # the base's RTX PRO 6000 states it has no peer link: NVLink on it is a contradiction
    assert "[bg:BenchmarkRunShape-fabric-contradiction] (warning)" in out
    assert main(["validate", "--data", str(data), "--strict"]) == 1


def test_info_is_advice(tmp_path, capsys):
    data = folder(tmp_path, ["benchmarks/bad-run-no-source.yaml"])
    assert main(["validate", "--data", str(data), "--strict"]) == 0
    assert "(info)" in capsys.readouterr().out


def test_no_such_folder_cannot_run(tmp_path, capsys):
    assert main(["validate", "--data", str(tmp_path / "nowhere")]) == 2


def test_build_refuses_with_the_same_report(tmp_path, capsys):
    data = folder(tmp_path, TEN)
    assert main(["validate", "--data", str(data)]) == 1
    report = [line for line in capsys.readouterr().out.splitlines() if line.startswith("data/")]
    assert main(["build", "--data", str(data)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if line.startswith("data/")] == report
    assert "nothing was built" in err[-1]


def test_skip_invalid_builds_the_rest_and_names_what_it_left_out(tmp_path, capsys):
    data = folder(tmp_path, TEN)
    run = yaml.safe_load(
        (BASE / "benchmarks" / "ev-sglang-dsv41-production-decode-tok-s-per-user.yaml").read_text()
    )
    run.update(
        id="run-on-a-bad-accelerator", accelerators=["bad-acc-no-vendor"], interconnect_ids=[]
    )
    (data / "benchmarks" / "run-on-a-bad-accelerator.yaml").write_text(yaml.safe_dump(run))
    out = tmp_path / "dump.nq"
    assert main(["build", "--data", str(data), "--skip-invalid", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    for rel in TEN:
        assert expected_line(rel) in err
    assert (
        "data/benchmarks/run-on-a-bad-accelerator.yaml: left out: links to "
        "data/accelerators/bad-acc-no-vendor.yaml"
    ) in err
    assert "11 record(s) left out of the build" in err
    dumped = out.read_text()
    assert "/benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user>" in dumped
    assert "bad-run-confidence" not in dumped and "run-on-a-bad-accelerator" not in dumped


@pytest.mark.parametrize("fmt", ["text", "json", "turtle"])
def test_every_format_reports_the_corpus(tmp_path, capsys, fmt):
    data = tmp_path / "data"
    shutil.copytree(BAD, data)
    assert main(["validate", "--data", str(data), "--format", fmt]) == 1
    out = capsys.readouterr().out
    count = {
        "text": lambda: len(out.splitlines()) - 1,
        "json": lambda: len(json.loads(out)["problems"]),
        "turtle": lambda: len(
            list(Graph().parse(data=out, format="turtle").objects(None, SH.result))
        ),
    }[fmt]()
    assert count == len(EXPECTED)
