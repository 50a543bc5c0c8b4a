"""`scaling-by-fabric`'s parameters (model, source, part, precision, reference count): each of
the first four narrows the answer to exactly the rows of the whole answer on the lines that
match it; the reference count makes each share one of the line's figure at that count; a
hostile value never becomes query text (refused, naming the parameter, or one term in its own
VALUES).

Data: the shipped data, built once for the module."""

from __future__ import annotations

import re
import statistics

import pytest

from benchgraph.pipeline.steps import build
from benchgraph.query.params import ParameterError, with_values
from benchgraph.query.render import run
from benchgraph.query.saved import saved_queries
from paths import DATA

SCALING = saved_queries()["scaling-by-fabric"]
ID = "https://w3id.org/benchgraph/id/"
V017 = "NVIDIA/TensorRT-LLM@258c7540c035"  # the v0.17 tables (README: L40S against H100 SXM)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import os

    os.environ["BENCHGRAPH_CACHE"] = str(tmp_path_factory.mktemp("scaling-cache"))
    return build(DATA, skip_invalid=True).open()


@pytest.fixture(scope="module")
def every(store):
    return _rows(store, {})


def _rows(store, given: dict[str, list[str]]) -> list[dict]:
    result = run(store, with_values(SCALING.text, SCALING.params, given))
    names = [v.value for v in result.variables]
    return [{n: (None if s[n] is None else s[n].value) for n in names} for s in result]


def _label(store, iri: str) -> str:
    (row,) = run(
        store, f"SELECT ?l WHERE {{ <{iri}> <http://www.w3.org/2000/01/rdf-schema#label> ?l }}"
    )
    return row["l"].value


def test_scaling_takes_model_source_part_precision_and_reference_count():
    assert [(p.name, p.type) for p in SCALING.params] == [
        ("model", "model"),
        ("source", "text"),
        ("part", "part"),
        ("precision", "text"),
        ("reference", "number"),
    ]
    assert all(p.default == ("UNDEF",) for p in SCALING.params)  # none given: every line


@pytest.mark.parametrize(
    "given, keep",
    [
        ({"model": ["model:llama3.1-70b"]}, lambda r, lab: r["modelLabel"] == lab["llama3.1-70b"]),
        ({"part": ["nvidia-l40s"]}, lambda r, lab: r["partLabel"] == lab["nvidia-l40s"]),
        ({"precision": ["FP8"]}, lambda r, lab: ", FP8, " in r["line"]),
        ({"source": ["NVIDIA/TensorRT-LLM"]}, lambda r, lab: r["source"].startswith("NVIDIA/")),
        ({"source": [V017]}, lambda r, lab: r["source"] == V017),
        (
            {"source": ["NVIDIA/TensorRT-LLM"], "part": ["acc:nvidia-l40s"], "precision": ["FP8"]},
            lambda r, lab: (
                r["source"].startswith("NVIDIA/")
                and r["partLabel"] == lab["nvidia-l40s"]
                and ", FP8, " in r["line"]
            ),
        ),
    ],
    ids=["model", "part", "precision", "repository", "one-table", "three"],
)
def test_each_parameter_keeps_exactly_the_matching_rows_in_their_order(store, every, given, keep):
    labels = {
        "llama3.1-70b": _label(store, ID + "models/llama3.1-70b"),
        "nvidia-l40s": _label(store, ID + "accelerators/nvidia-l40s"),
    }
    expected = [r for r in every if keep(r, labels)]
    assert expected and len(expected) < len(every)
    assert _rows(store, given) == expected


def test_a_precision_given_never_joins_a_run_that_states_none(store, every):
    """Argonne's rows state no precision setting: given FP8, only lines saying FP8 remain."""
    assert any(not re.search(r", (FP|BF|INT)\d+,", r["line"]) for r in every)
    rows = _rows(store, {"precision": ["FP8"]})
    assert rows and all(", FP8, " in r["line"] for r in rows)


def test_the_reference_count_makes_the_share_one_of_that_count_s_figure(store, every):
    rows = _rows(store, {"reference": ["4"]})
    lines: dict[str, list[dict]] = {}
    for r in rows:
        lines.setdefault(r["line"], []).append(r)
    whole: dict[str, list[dict]] = {}
    for r in every:
        whole.setdefault(r["line"], []).append(r)
    # exactly the lines that measured 4 accelerators, each with all its points; the others
    # have no base at 4 and are left out
    assert set(lines) == {k for k, v in whole.items() if any(r["count"] == "4" for r in v)}
    assert set(lines) < set(whole)
    for line, points in lines.items():
        if not line.startswith(V017):
            continue  # an Argonne label does not name the engine: two lines may share it
        assert [r["run"] for r in points] == [r["run"] for r in whole[line]]
        at_four = [float(r["share"]) for r in points if r["count"] == "4"]
        assert statistics.mean(at_four) == pytest.approx(1.0, abs=1e-3)
        base = statistics.mean(float(r["perAccelerator"]) for r in points if r["count"] == "4")
        for r in points:
            assert float(r["share"]) == pytest.approx(float(r["perAccelerator"]) / base, abs=1e-3)
    # the README's figure, now read straight off the rows: the L40S keeps a median 0.59 of its
    # 4-GPU throughput per GPU at 8 GPUs (Llama 3.1 70B, FP8, tensor parallelism)
    l40s = [
        float(r["share"])
        for r in rows
        if r["partLabel"] == _label(store, ID + "accelerators/nvidia-l40s")
        and r["modelLabel"] == _label(store, ID + "models/llama3.1-70b")
        and r["source"] == V017
        and ", FP8, " in r["line"]
        and "TP varies" in r["line"]
        and r["count"] == "8"
    ]
    assert len(l40s) == 9 and statistics.median(l40s) == pytest.approx(0.59, abs=0.005)


def test_a_reference_count_no_line_measured_answers_no_rows(store):
    assert _rows(store, {"reference": ["3"], "source": [V017]}) == []


HOSTILE = [
    'FP8" } ?s ?p ?o {',
    "FP8 } UNION { ?s ?p ?o",
    'x" || true || "',
    "FP8\n} #",
    "<http://127.0.0.1:9/x>",
    "FP8 # comment",
    "a\\u0022b",
    "x' } SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } {",
    "FP8) . ?s ?p ?o . (x",
    "FP8) UNION (x",  # a name's characters only: one string term
    "4 } ?s ?p ?o {",
    "",  # empty: the clause removed, every value
]


@pytest.mark.parametrize("name", ["source", "precision", "model", "part", "reference"])
@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_value_is_refused_or_one_term(name, value):
    try:
        text = with_values(SCALING.text, SCALING.params, {name: [value]})
    except ParameterError as exc:
        assert exc.name == name and str(exc).startswith(f"{name}: {value!r} is not ")
        return
    if not value:
        assert not re.search(rf"VALUES \?{name} \{{", text)
        return
    assert name in ("source", "precision")  # only a text takes what looks like a name
    (clause,) = re.findall(rf"VALUES \?{name} \{{ (.*?) \}}", text)
    assert re.fullmatch(r'"[^"\\]*"', clause), clause  # one plain string literal
    assert text.count("{") - text.count("}") == SCALING.text.count("{") - SCALING.text.count("}")


@pytest.mark.parametrize("name", ["source", "precision"])
def test_a_hostile_name_that_is_one_term_matches_nothing(store, name):
    assert _rows(store, {name: ["FP8) UNION (x"]}) == []


def test_a_quote_or_brace_in_a_text_value_is_refused():
    for value in ['FP8"', "FP8}", "NVIDIA/TensorRT-LLM{"]:
        with pytest.raises(ParameterError, match=r"^precision: .* is not a name \(letters"):
            with_values(SCALING.text, SCALING.params, {"precision": [value]})
    with pytest.raises(ParameterError, match=r"^reference: 'four' is not a number$"):
        with_values(SCALING.text, SCALING.params, {"reference": ["four"]})
    with pytest.raises(ParameterError, match=r"^part: 'model:x' is not an accelerator"):
        with_values(SCALING.text, SCALING.params, {"part": ["model:x"]})


def test_no_parameter_sends_no_clause_and_the_file_s_answer(store, every):
    sent = with_values(SCALING.text, SCALING.params, {})
    assert "UNDEF" in SCALING.text and "UNDEF" not in sent
    raw = run(store, SCALING.text)
    names = [v.value for v in raw.variables]
    assert [{n: (None if s[n] is None else s[n].value) for n in names} for s in raw] == every
