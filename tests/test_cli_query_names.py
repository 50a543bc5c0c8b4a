"""`benchgraph query --list`, and "did you mean" for a mistyped saved query, parameter or
prefix."""

from __future__ import annotations

import pytest

from benchgraph.cli.main import main
from benchgraph.query.saved import saved_queries
from paths import ROOT

BASE = ROOT / "shapes" / "examples" / "base"


@pytest.fixture
def data(tmp_path, copy_data, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    return copy_data(BASE)


def test_list_prints_every_saved_query_with_its_title_and_parameters(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no data folder: listing builds nothing
    assert main(["query", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    saved = saved_queries()
    heads = [line for line in out if not line.startswith(" ")]
    assert [line.split()[0] for line in heads] == list(saved)
    for line, query in zip(heads, saved.values()):
        assert line.split(None, 1)[1] == query.title
    params = [line.split()[:2] for line in out if line.startswith(" ")]
    assert params == [
        [
            "--param",
            f"{p.name}={'|'.join(p.choices) or p.type.upper()}{',...' if p.many else ''}",
        ]
        for q in saved.values()
        for p in q.params
    ]
    assert any(p for q in saved.values() for p in q.params)  # the list shows some
    low = out[[line.split()[0] for line in out].index("low-confidence") + 2]
    assert "--param status=STATUS,..." in low and "default bg:Draft, bg:Provisional" in low


def test_list_prints_a_closed_text_parameter_s_choices_not_the_generic_hint(capsys):
    """per-watt's power takes wall or board only: the list says so, not "a name as the records
    write it: llama2-70b-99, Offline", which would send a user typing a benchmark name."""
    assert main(["query", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    (power,) = [line for line in out if "--param power=" in line]
    assert power.split()[1] == "power=wall|board"
    assert power.endswith("one of wall, board") and "llama2-70b-99" not in power
    (benchmark,) = [line for line in out if "--param benchmark=" in line]
    assert "a name as the records write it" in benchmark  # an open text keeps its hint


def _error(capsys, *args: str) -> str:
    assert main(list(args)) == 2
    return capsys.readouterr().err


def test_a_mistyped_example_gets_the_closest_name(capsys):
    err = _error(capsys, "query", "--example", "no-gpu-fabrc")
    assert "no saved query 'no-gpu-fabrc' (did you mean no-gpu-fabric?)" in err, err
    assert "benchgraph query --list" in err
    err = _error(capsys, "query", "--example", "zzzzzz")
    assert "did you mean" not in err and "benchgraph query --list" in err


def test_a_mistyped_parameter_gets_the_closest_name(data, capsys):
    err = _error(capsys, "query", "--data", str(data), "--example", "low-confidence",
                 "--param", "treshold=0.5")  # fmt: skip
    assert "treshold: '0.5' is not a parameter of this query (did you mean threshold?)" in err
    err = _error(capsys, "query", "--data", str(data), "--example", "low-confidence",
                 "--param", "colour=red")  # fmt: skip
    assert "colour: 'red' is not a parameter of this query; it takes" in err, err


def test_an_undeclared_prefix_gets_the_closest_declared_one(data, capsys):
    err = _error(capsys, "query", "--data", str(data), "SELECT * WHERE { ?s a bgg:Run }")
    assert "the prefix bgg: is not declared (did you mean bg:?): add a PREFIX line" in err, err
    own = "PREFIX mine: <http://example.org/>\nSELECT * WHERE { ?s a mien:Run }"
    err = _error(capsys, "query", "--data", str(data), own)
    assert "the prefix mien: is not declared (did you mean mine:?)" in err, err
