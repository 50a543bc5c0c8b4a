"""What a command prints before its answer: one line that counts the build's warnings (and
names `benchgraph validate` to list them), a copied fabric text told once for all the
systems sharing it, and a missing data folder named with where it was looked for."""

from __future__ import annotations

import shutil

import pytest

from benchgraph.cli.main import main
from benchgraph.pipeline.steps import build
from paths import TEST_DATA

CATALOGUE = TEST_DATA / "catalogue"  # made-up records with fabric warnings (its README)


@pytest.fixture
def data(tmp_path, copy_data, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    return copy_data(CATALOGUE)


def _stderr(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("command", [["query", "ASK {}"], ["build"], ["export", "--format", "nt"]])
def test_warnings_are_one_line_that_says_how_to_list_them(data, capsys, command):
    warnings = [p for p in build(data).problems if p.severity == "warning"]
    assert len(warnings) > 2  # the fixture has several
    capsys.readouterr()
    (data / "models" / "touched.yaml").write_text("id: touched\nname: touched\n")  # changed
    for _ in range(2):  # the records changed, then unchanged
        assert main([command[0], "--data", str(data), *command[1:]]) == 0
        err = _stderr(capsys)
        assert not any("(warning)" in line for line in err), err
        told = [line for line in err if "warning(s)" in line]
        assert len(told) == 1, err
        assert f"benchgraph validate --data {data} lists them" in told[0]
    assert main(["validate", "--data", str(data)]) == 0  # validate lists them all
    listed = capsys.readouterr().out
    assert all(str(w) in listed for w in warnings)


def test_a_text_shared_by_several_systems_is_one_warning(data):
    """Three systems of one submitter share a fabric text and their parts differ: one
    warning on the first file, naming the two others (it was one for each pair and each
    side: four lines for these three)."""
    shutil.copy(
        data / "systems" / "pcie-box-nvlink.yaml", data / "systems" / "pcie-box-nvlink2.yaml"
    )
    copy = data / "systems" / "pcie-box-nvlink2.yaml"
    copy.write_text(copy.read_text().replace("id: pcie-box-nvlink\n", "id: pcie-box-nvlink2\n"))
    copied = [p for p in build(data).problems if p.code == "copied-fabric-text"]
    assert len(copied) == 1, [str(p) for p in copied]
    (one,) = copied
    assert one.file.endswith("systems/bridged-box.yaml")
    assert "systems/pcie-box-nvlink and systems/pcie-box-nvlink2 " in one.message
    assert one.value == "18x 4th Gen NVLink, 900GB/s"


def test_a_missing_data_folder_is_named_with_where_it_was_looked_for(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # ./data is not here
    for command in (["query", "ASK {}"], ["validate"], ["build"], ["export", "--format", "nt"]):
        assert main(command) == 2
        (err,) = _stderr(capsys)
        assert "no such data folder: data" in err and str(tmp_path / "data") in err, err
        assert "--data DIR" in err
