"""`per-watt`'s parameters (model, benchmark, scenario, power: wall or board): each narrows
the ranking to exactly the rows of the whole answer that match it, and a hostile value never
becomes query text (refused, naming the parameter, or one string term in its own VALUES).

Data: tests/data/power (hand-written, its README), with a second model and a run on it."""

from __future__ import annotations

import re
import shutil

import pytest

from benchgraph.pipeline.steps import build
from benchgraph.query.params import ParameterError, with_values
from benchgraph.query.render import run
from benchgraph.query.saved import saved_queries
from paths import TEST_DATA

PER_WATT = saved_queries()["per-watt"]
MODEL = "https://w3id.org/benchgraph/id/models/"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import os

    tmp = tmp_path_factory.mktemp("per-watt")
    os.environ["BENCHGRAPH_CACHE"] = str(tmp / "cache")
    data = tmp / "data"
    shutil.copytree(TEST_DATA / "power", data)
    model = (data / "models" / "model-a.yaml").read_text()
    (data / "models" / "model-b.yaml").write_text(model.replace("model-a", "model-b"))
    sys_a = (data / "benchmarks" / "sys-a.yaml").read_text()
    (data / "benchmarks" / "sys-a-on-b.yaml").write_text(
        sys_a.replace("id: sys-a", "id: sys-a-on-b").replace("model: model-a", "model: model-b")
    )
    return build(data).open()


def _rows(store, given: dict[str, list[str]]) -> list[dict]:
    result = run(store, with_values(PER_WATT.text, PER_WATT.params, given))
    names = [v.value for v in result.variables]
    return [{n: (None if s[n] is None else s[n].value) for n in names} for s in result]


def test_per_watt_takes_model_benchmark_scenario_and_power():
    assert [(p.name, p.type, p.choices) for p in PER_WATT.params] == [
        ("model", "model", ()),
        ("benchmark", "text", ()),
        ("scenario", "text", ()),
        ("power", "text", ("wall", "board")),
    ]
    assert all(p.default == ("UNDEF",) for p in PER_WATT.params)  # none given: every group


@pytest.mark.parametrize(
    "given, keep",
    [
        ({"power": ["board"]}, lambda r: r["powerKind"] == "board (one GPU)"),
        ({"power": ["Wall"]}, lambda r: r["powerKind"] == "system (wall)"),  # case folded
        ({"scenario": ["Offline"]}, lambda r: r["scenario"] == "Offline"),
        ({"benchmark": ["bench-99"]}, lambda r: r["benchmark"] == "bench-99"),
        ({"model": ["model:model-b"]}, lambda r: r["model"] == MODEL + "model-b"),
        ({"model": ["model-a"]}, lambda r: r["model"] == MODEL + "model-a"),
        (
            {"power": ["wall"], "scenario": ["Offline"], "model": ["model-a"]},
            lambda r: (
                r["powerKind"] == "system (wall)"
                and r["scenario"] == "Offline"
                and r["model"] == MODEL + "model-a"
            ),
        ),
    ],
    ids=["board", "wall", "scenario", "benchmark", "model-prefixed", "model-id", "three"],
)
def test_each_parameter_keeps_exactly_the_matching_rows_in_their_order(store, given, keep):
    every = _rows(store, {})
    assert {r["powerKind"] for r in every} == {"system (wall)", "board (one GPU)"}
    expected = [r for r in every if keep(r)]
    assert expected and len(expected) < len(every)
    assert _rows(store, given) == expected


def test_a_run_without_a_scenario_is_not_taken_for_one_given(store):
    """Board runs state no scenario: given Offline, they are left out, not labelled so."""
    every = _rows(store, {})
    assert any(r["scenario"] is None and r["powerKind"] == "board (one GPU)" for r in every)
    assert all(r["run"].endswith("board-same-group") or r["powerKind"] == "system (wall)"
               for r in _rows(store, {"scenario": ["Offline"]}))  # fmt: skip


HOSTILE = [
    'Offline" } ?s ?p ?o {',
    "Offline } UNION { ?s ?p ?o",
    'x" || true || "',
    "Offline\n} #",
    "<http://127.0.0.1:9/x>",
    "bench-99 # comment",
    "a\\u0022b",
    "x' } SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } {",
    "Offline) . ?s ?p ?o . (x",  # a name's characters only: one string term
    "",  # empty: the clause removed, every value
]


@pytest.mark.parametrize("name", ["benchmark", "scenario", "power", "model"])
@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_value_is_refused_or_one_string_term(store, name, value):
    try:
        text = with_values(PER_WATT.text, PER_WATT.params, {name: [value]})
    except ParameterError as exc:
        assert exc.name == name and str(exc).startswith(f"{name}: {value!r} is not ")
        return
    if not value:
        assert not re.search(rf"VALUES \?{name} \{{", text)
        return
    assert name in ("benchmark", "scenario")  # only a text takes what looks like a name
    (clause,) = re.findall(rf"VALUES \?{name} \{{ (.*?) \}}", text)
    assert re.fullmatch(r'"[^"\\]*"', clause), clause  # one plain string literal
    assert text.count("{") - text.count("}") == PER_WATT.text.count("{") - PER_WATT.text.count("}")
    assert _rows(store, {name: [value]}) == []  # no run has that name


def test_a_value_that_is_no_name_says_what_a_name_is():
    with pytest.raises(ParameterError, match=r"^scenario: 'a\"b' is not a name \(letters"):
        with_values(PER_WATT.text, PER_WATT.params, {"scenario": ['a"b']})
    with pytest.raises(ParameterError, match=r"^power: 'socket' is not one of wall, board$"):
        with_values(PER_WATT.text, PER_WATT.params, {"power": ["socket"]})
    with pytest.raises(ParameterError, match=r"^model: 'acc:x' is not a model"):
        with_values(PER_WATT.text, PER_WATT.params, {"model": ["acc:x"]})


def test_every_value_is_sent_as_no_clause_with_the_file_s_answer(store):
    """A parameter not given whose default is UNDEF (every value) is sent without its
    clause, which Virtuoso's planner refuses; the answer is the file's as it stands."""
    sent = with_values(PER_WATT.text, PER_WATT.params, {})
    assert "UNDEF" in PER_WATT.text and "UNDEF" not in sent
    raw = run(store, PER_WATT.text)
    names = [v.value for v in raw.variables]
    assert [[s[n] for n in names] for s in raw] == [[s[n] for n in names] for s in run(store, sent)]
