"""Saved queries' header lines: `# view:` (how the query page first shows the result) is read,
and a wrong one is reported with its file, line and value, every one at once."""

from __future__ import annotations

import pytest

from benchgraph.query.saved import SavedQueryError, parse_view, saved_queries


def test_a_view_line_is_read_into_its_parts():
    view, wrong = parse_view(
        "bar x=?accelerator y=?value color=?status unit=tok/s log",
        "SELECT ?accelerator ?value ?status WHERE {}",
    )
    assert wrong == []
    assert view == {
        "type": "bar",
        "x": "accelerator",
        "y": "value",
        "color": "status",
        "unitText": "tok/s",
        "log": True,
    }
    assert parse_view("scatter y=?v unit=?u", "SELECT ?v ?u {}")[0] == {
        "type": "scatter",
        "y": "v",
        "unit": "u",
    }


def test_a_line_view_names_its_series_column():
    view, wrong = parse_view(
        "line x=?count y=?share color=?status series=?line",
        "SELECT ?line ?count ?share ?status WHERE {}",
    )
    assert wrong == []
    assert view == {"type": "line", "x": "count", "y": "share", "color": "status", "series": "line"}
    assert parse_view("line y=?v series=?gone", "SELECT ?v {}")[1] == [
        ("series=?gone", "the query has no variable ?gone")
    ]


def test_wrong_view_lines_are_reported_with_file_and_line(tmp_path):
    (tmp_path / "a.rq").write_text("# title: A\n# view: pie x=?n\nSELECT ?n WHERE {}\n")
    (tmp_path / "b.rq").write_text(
        "# title: B\n# description: d\n# view: bar x=?gone y=v\nSELECT ?n WHERE {}\n"
    )
    (tmp_path / "c.rq").write_text("# title: C\n# view: line x=?n\nSELECT ?n WHERE {}\n")
    with pytest.raises(SavedQueryError) as caught:
        saved_queries(tmp_path)
    lines = str(caught.value).splitlines()
    assert lines == [
        f"{tmp_path / 'a.rq'}:2: view: pie is not a view; one of table, bar, line, scatter",
        f"{tmp_path / 'b.rq'}:3: view: y=v is not understood; give x=?var, y=?var, "
        "color=?var, series=?var, unit=?var or unit=TEXT, log",
        f"{tmp_path / 'b.rq'}:3: view: x=?gone the query has no variable ?gone",
    ]


def test_a_variable_named_only_in_a_comment_line_does_not_count(tmp_path):
    (tmp_path / "a.rq").write_text("# title: A ?ghost\n# view: bar y=?ghost\nSELECT ?n {}\n")
    with pytest.raises(SavedQueryError, match=r"a\.rq:2: view: y=\?ghost"):
        saved_queries(tmp_path)


def test_the_shipped_queries_that_are_charts_open_as_charts():
    saved = saved_queries()
    assert saved["mlperf-llama2-no-fabric"].view["type"] == "bar"
    assert saved["unpublished-interconnects"].view == {"type": "bar", "x": "name", "y": "runs"}
    assert saved["no-gpu-fabric"].view == {}
    assert saved["per-watt"].view == {
        "type": "bar",
        "x": "system",
        "y": "efficiency",
        "color": "status",
        "unit": "unit",
    }
    assert saved["scaling-by-fabric"].view == {
        "type": "line",
        "x": "count",
        "y": "share",
        "color": "status",
        "series": "line",
    }


def test_param_lines_are_read_with_their_defaults():
    queries = saved_queries()
    (run,) = queries["why-fabric-status"].params
    assert (run.name, run.type, run.many) == ("run", "run", False)
    assert run.default == (
        "<https://w3id.org/benchgraph/id/benchmarks/"
        "ev-sglang-dsv41-production-decode-tok-s-per-user>",
    )
    threshold, status = queries["low-confidence"].params
    assert (threshold.type, threshold.default) == ("number", ("0.8",))
    assert (status.type, status.many, status.default) == (
        "status",
        True,
        ("bg:Draft", "bg:Provisional"),
    )
    assert [p.type for p in queries["changed-after"].params] == ["date"]
    (part,) = queries["accelerator-profile"].params
    assert (part.type, part.default) == ("part", ("UNDEF",))  # none given: every accelerator


def test_wrong_param_lines_are_reported_with_file_and_line(tmp_path):
    (tmp_path / "a.rq").write_text(
        "# title: A\n# param: run type=colour\nSELECT ?run WHERE { VALUES ?run { 1 } }\n"
    )
    (tmp_path / "b.rq").write_text("# title: B\n# param: run type=run\nSELECT ?run WHERE {}\n")
    (tmp_path / "c.rq").write_text(
        "# title: C\n# description: d\n# param: n type=number\n"
        'SELECT ?n WHERE { VALUES ?n { "many" } }\n'
    )
    (tmp_path / "d.rq").write_text(
        "# title: D\n# param: s type=status\n"
        "SELECT ?s WHERE { VALUES ?s { bg:Draft bg:Verified } }\n"
    )
    with pytest.raises(SavedQueryError) as caught:
        saved_queries(tmp_path)
    lines = str(caught.value).splitlines()
    assert lines == [
        f"{tmp_path / 'a.rq'}:2: param: colour is not a type; one of run, part, system, model, "
        "text, date, number, status",
        f"{tmp_path / 'b.rq'}:2: param: run the query needs one `VALUES ?run {{ ... }}` for it,"
        " holding its default; it has 0",
        f'{tmp_path / "c.rq"}:3: param: "many" is no default for n: is not a number',
        f"{tmp_path / 'd.rq'}:2: param: s has several defaults but takes one value; add `many`",
    ]


def test_a_parameter_s_values_become_terms_of_its_type():
    from benchgraph.query.params import ParameterError, with_values

    query = saved_queries()["low-confidence"]
    text = with_values(
        query.text, query.params, {"threshold": ["0.9"], "status": ["draft", "bg:Provisional"]}
    )
    assert "VALUES ?threshold { 0.9 }" in text
    assert "VALUES ?status { bg:Draft bg:Provisional }" in text
    assert "VALUES ?status" not in with_values(query.text, query.params, {"status": []})
    with pytest.raises(ParameterError, match=r"^threshold: '0\.9 } #' is not a number$"):
        with_values(query.text, query.params, {"threshold": ["0.9 } #"]})
    with pytest.raises(ParameterError, match=r"^threshold: '1, 2' takes one value$"):
        with_values(query.text, query.params, {"threshold": ["1", "2"]})
