"""`--with FILE[=GRAPH]` on every command that reads the dataset: an outside graph joins the
records as a named graph of its own, is neither validated nor reasoned over unless asked."""

from __future__ import annotations

import json

import pytest

from benchgraph.cli.main import main
from paths import TEST_DATA

GPUS = TEST_DATA / "external-hardware" / "gpus.ttl"
GRAPH = "https://example.org/graph/gpus"
# runs whose accelerator's manufacturer, per the outside graph, is NVIDIA (Wikidata Q182477)
NVIDIA_RUNS = """SELECT DISTINCT ?run WHERE {
  ?run bg:accelerator ?part . ?part skos:exactMatch ?item .
  GRAPH <https://example.org/graph/gpus> {
    ?item <http://www.wikidata.org/prop/direct/P176> <http://www.wikidata.org/entity/Q182477> }
} ORDER BY ?run"""


@pytest.fixture
def linked(copy_data):
    """The fabric fixture, its SXM and PCIe parts linked to the outside graph's items."""
    data = copy_data(TEST_DATA / "fabric")
    for part, item in (("sxm-part", "sxm-gpu"), ("pcie-card", "pcie-gpu")):
        with open(data / "accelerators" / f"{part}.yaml", "a") as f:
            f.write(f"same_as: ['https://example.org/hardware/{item}']\n")
    return data


def _query(capsys, data, text, *more) -> list[str]:
    capsys.readouterr()
    assert main(["query", "--data", str(data), "--format", "json", text, *more]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]["bindings"]
    return [next(iter(r.values()))["value"].rsplit("/", 1)[1] for r in rows]


def test_query_joins_an_outside_hardware_graph(linked, capsys):
    assert _query(capsys, linked, NVIDIA_RUNS) == []  # no outside graph, no answer
    runs = _query(capsys, linked, NVIDIA_RUNS, "--with", f"{GPUS}={GRAPH}")
    assert runs == ["nvlink-run"]


def test_export_and_build_dumps_hold_the_outside_graph_as_its_own(linked, tmp_path, capsys):
    out = tmp_path / "with.nq"
    assert (
        main(
            [
                "export",
                "--data",
                str(linked),
                "--format",
                "nq",
                "--out",
                str(out),
                "--with",
                f"{GPUS}={GRAPH}",
            ]
        )
        == 0
    )
    lines = out.read_text().splitlines()
    assert any(line.endswith(f"<{GRAPH}> .") and "P176" in line for line in lines)
    built = tmp_path / "built.nq"
    assert main(["build", "--data", str(linked), "--out", str(built), "--with", str(GPUS)]) == 0
    assert f"<{GPUS.resolve().as_uri()}> ." in built.read_text()  # named by the file's URI
    # the build's own store never holds it
    plain = tmp_path / "plain.nq"
    assert main(["export", "--data", str(linked), "--format", "nq", "--out", str(plain)]) == 0
    assert "example.org/hardware/sxm-gpu> <http://www.wikidata" not in plain.read_text()


def test_an_outside_graph_is_not_reasoned_over_unless_asked(linked, capsys):
    accelerators = "SELECT ?a WHERE { ?a a bg:Accelerator } ORDER BY ?a"
    assert "some-board" not in _query(capsys, linked, accelerators, "--with", str(GPUS))
    assert "some-board" in _query(
        capsys, linked, accelerators, "--with", str(GPUS), "--reason-with"
    )


def test_validate_reads_an_outside_graph_and_does_not_validate_it(linked, tmp_path, capsys):
    odd = tmp_path / "odd.ttl"  # a run that would break every shape, were it a record
    odd.write_text(
        "<https://example.org/r> a <https://w3id.org/benchgraph/ontology#"
        "BenchmarkRun> ; <https://w3id.org/benchgraph/ontology#confidence> 7 .\n"
    )
    assert main(["validate", "--data", str(linked), "--with", str(odd)]) == 0
    broken = tmp_path / "broken.ttl"
    broken.write_text("<https://example.org/r> a .\n")
    capsys.readouterr()
    assert main(["validate", "--data", str(linked), "--with", str(broken)]) == 2
    assert f"--with {broken}" in capsys.readouterr().err
