"""`scaling-by-fabric`'s parameters (model, source, part, precision, reference count): each of
the first four narrows the answer to exactly the rows of the whole answer on the lines that
match it (a source as a repository, one table, or a version as people write it: 0.17,
TensorRT-LLM 0.17); the reference count makes each share one of the line's figure at that
count; a hostile value never becomes query text (refused, naming the parameter, or one term in
its own VALUES). Lines are labelled by part, split and version, never by a commit.

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
V017 = "0.17"  # the v0.17 tables (README: L40S against H100 SXM), as people write the version
RELEASE = "TensorRT-LLM 0.17"  # how the line labels and ?engineVersion name it
TABLE = "NVIDIA/TensorRT-LLM@258c7540c035"  # the same tables as the source column gives them


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The shipped data's store (its name marks the tests that use it slow: slow_tests.py)."""
    import os

    os.environ["BENCHGRAPH_CACHE"] = str(tmp_path_factory.mktemp("scaling-cache"))
    return build(DATA, skip_invalid=True).open()


@pytest.fixture(scope="module")
def every(shipped):
    return _rows(shipped, {})


def _rows(shipped, given: dict[str, list[str]]) -> list[dict]:
    result = run(shipped, with_values(SCALING.text, SCALING.params, given))
    names = [v.value for v in result.variables]
    return [{n: (None if s[n] is None else s[n].value) for n in names} for s in result]


def _label(shipped, iri: str) -> str:
    (row,) = run(
        shipped, f"SELECT ?l WHERE {{ <{iri}> <http://www.w3.org/2000/01/rdf-schema#label> ?l }}"
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
        ({"source": [TABLE]}, lambda r, lab: r["source"] == TABLE),
        ({"source": [V017]}, lambda r, lab: r["engineVersion"] == RELEASE),
        ({"source": ["v0.17"]}, lambda r, lab: r["engineVersion"] == RELEASE),
        ({"source": ["tensorrt-llm 0.17"]}, lambda r, lab: r["engineVersion"] == RELEASE),
        (
            {"source": ["NVIDIA/TensorRT-LLM"], "part": ["acc:nvidia-l40s"], "precision": ["FP8"]},
            lambda r, lab: (
                r["source"].startswith("NVIDIA/")
                and r["partLabel"] == lab["nvidia-l40s"]
                and ", FP8, " in r["line"]
            ),
        ),
    ],
    ids=[
        "model",
        "part",
        "precision",
        "repository",
        "one-table",
        "version",
        "v-version",
        "engine-and-version-any-case",
        "three",
    ],
)
def test_each_parameter_keeps_exactly_the_matching_rows_in_their_order(shipped, every, given, keep):
    labels = {
        "llama3.1-70b": _label(shipped, ID + "models/llama3.1-70b"),
        "nvidia-l40s": _label(shipped, ID + "accelerators/nvidia-l40s"),
    }
    expected = [r for r in every if keep(r, labels)]
    assert expected and len(expected) < len(every)
    assert _rows(shipped, given) == expected


def test_a_precision_given_never_joins_a_run_that_states_none(shipped, every):
    """Argonne's rows state no precision setting: given FP8, only lines saying FP8 remain."""
    assert any(not re.search(r", (FP|BF|INT)\d+,", r["line"]) for r in every)
    rows = _rows(shipped, {"precision": ["FP8"]})
    assert rows and all(", FP8, " in r["line"] for r in rows)


def test_the_reference_count_makes_the_share_one_of_that_count_s_figure(shipped, every):
    rows = _rows(shipped, {"reference": ["4"]})
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
        assert [r["run"] for r in points] == [r["run"] for r in whole[line]]
        at_four = [float(r["share"]) for r in points if r["count"] == "4"]
        assert statistics.mean(at_four) == pytest.approx(1.0, abs=1e-3)
        base = statistics.mean(float(r["perAccelerator"]) for r in points if r["count"] == "4")
        for r in points:
            # relative: both figures are rounded to 4 decimals, and Argonne's shares reach 30
            want = float(r["perAccelerator"]) / base
            assert float(r["share"]) == pytest.approx(want, rel=1e-3, abs=1e-3)
    # the README's figure, now read straight off the rows: the L40S keeps a median 0.59 of its
    # 4-GPU throughput per GPU at 8 GPUs (Llama 3.1 70B, FP8, tensor parallelism)
    l40s = [
        float(r["share"])
        for r in rows
        if r["partLabel"] == _label(shipped, ID + "accelerators/nvidia-l40s")
        and r["modelLabel"] == _label(shipped, ID + "models/llama3.1-70b")
        and r["engineVersion"] == RELEASE
        and ", FP8, " in r["line"]
        and "TP varies" in r["line"]
        and r["count"] == "8"
    ]
    assert len(l40s) == 9 and statistics.median(l40s) == pytest.approx(0.59, abs=0.005)


def test_the_v017_tables_are_the_runs_whose_version_is_0_17(shipped, every):
    """The version given is the table's: the same rows as its commit, as the README says."""
    by_table = _rows(shipped, {"source": [TABLE]})
    assert by_table and _rows(shipped, {"source": [V017]}) == by_table
    assert {r["engineVersion"] for r in by_table} == {RELEASE}


def test_a_line_is_labelled_by_part_split_and_version_never_a_commit(shipped, every):
    """A line's label starts with its part and split, then names the engine and version as the
    records give them (or says none is stated) and the repository; one label is one source."""
    sources: dict[str, set[str]] = {}
    for r in every:
        line = r["line"]
        sources.setdefault(line, set()).add(r["source"])
        assert not re.search(r"[0-9a-f]{12}", line), line
        assert line.startswith(r["partLabel"] + ", "), line
        split = line[len(r["partLabel"]) + 2 :]
        assert re.match(r"(TP varies at PP\d+|PP varies at TP\d+|split not stated), ", split)
        repo = r["source"].split("@")[0]
        assert f", {r['engineVersion']} ({repo}): {r['modelLabel']}" in line, line
    assert all(len(s) == 1 for s in sources.values())  # never two tables under one label
    versions = {r["engineVersion"] for r in every}
    assert RELEASE in versions
    assert "TensorRT-LLM, version not stated" in versions  # the later tables state none
    assert any(v.endswith(", version not stated") and "vLLM" in v for v in versions)  # Argonne
    labels = {r["line"] for r in every if r["engineVersion"] == RELEASE}
    assert labels and all(", TensorRT-LLM 0.17 (NVIDIA/TensorRT-LLM): " in k for k in labels)


def test_a_version_given_never_matches_a_run_that_states_none(shipped):
    """Argonne's runs state no engine version: no version given reaches them, nor does the
    "v" that would prefix an unstated one."""
    assert _rows(shipped, {"source": ["v"]}) == []
    rows = _rows(shipped, {"source": ["argonne-lcf/LLM-Inference-Bench"]})
    assert rows and all(r["engineVersion"].endswith(", version not stated") for r in rows)
    # the column as shown is taken too: every line it names, and only those
    shown = _rows(shipped, {"source": ["vLLM, version not stated"]})
    assert shown and {r["engineVersion"] for r in shown} == {"vLLM, version not stated"}


def test_a_source_matches_a_whole_name_never_a_part_of_one(shipped):
    """The names a source is matched against are kept apart by "|", which no value may hold:
    a part of a name, or two names joined, match nothing or are refused."""
    for part in ("0.1", "TensorRT", "NVIDIA", "17", "v0"):
        assert _rows(shipped, {"source": [part]}) == [], part
    for joined in ("0.17|v0.17", "|0.17|", "NVIDIA/TensorRT-LLM|0.17"):
        with pytest.raises(ParameterError, match=r"^source: .* is not a name \(letters"):
            with_values(SCALING.text, SCALING.params, {"source": [joined]})


def test_a_reference_count_no_line_measured_answers_no_rows(shipped):
    assert _rows(shipped, {"reference": ["3"], "source": [V017]}) == []


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
def test_a_hostile_name_that_is_one_term_matches_nothing(shipped, name):
    assert _rows(shipped, {name: ["FP8) UNION (x"]}) == []


def test_a_quote_or_brace_in_a_text_value_is_refused():
    for value in ['FP8"', "FP8}", "NVIDIA/TensorRT-LLM{"]:
        with pytest.raises(ParameterError, match=r"^precision: .* is not a name \(letters"):
            with_values(SCALING.text, SCALING.params, {"precision": [value]})
    with pytest.raises(ParameterError, match=r"^reference: 'four' is not a number$"):
        with_values(SCALING.text, SCALING.params, {"reference": ["four"]})
    with pytest.raises(ParameterError, match=r"^part: 'model:x' is not an accelerator"):
        with_values(SCALING.text, SCALING.params, {"part": ["model:x"]})


def test_no_parameter_sends_no_clause_and_the_file_s_answer(shipped, every):
    sent = with_values(SCALING.text, SCALING.params, {})
    assert "UNDEF" in SCALING.text and "UNDEF" not in sent
    raw = run(shipped, SCALING.text)
    names = [v.value for v in raw.variables]
    assert [{n: (None if s[n] is None else s[n].value) for n in names} for s in raw] == every
