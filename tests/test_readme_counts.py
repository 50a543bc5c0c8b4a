"""The README's counts of the shipped data are what the shipped data gives: each sentence is
read from the README and its numbers compared with the saved queries' answers, so an edit of
the data that changes them fails here until the README says so too."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from benchgraph.pipeline.steps import build
from benchgraph.query.render import run
from benchgraph.query.saved import saved_queries
from paths import DATA, ROOT

README = ROOT / "README.md"


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    # the cache every test of the session builds into (conftest's _private_cache), so the
    # CLI run below finds this build done
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BENCHGRAPH_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
        return build(DATA, skip_invalid=False).open()


@pytest.fixture(scope="module")
def readme() -> str:
    return " ".join(README.read_text(encoding="utf-8").split())  # lines joined as read


def number(text: str) -> int:
    return int(text.replace(",", ""))


def said(readme: str, pattern: str) -> tuple[int, ...]:
    found = re.search(pattern.replace(" ", r"\s+"), readme)
    assert found, f"the README no longer has a sentence matching {pattern!r}"
    return tuple(number(g) for g in found.groups())


def rows(store, name: str) -> list:
    return list(run(store, saved_queries()[name].text))


N = r"([\d,]+)"


def test_runs_and_runs_on_accelerators(shipped, readme):
    runs, on_accelerators = said(readme, rf"tables: {N} runs, {N} of them on accelerators\)")
    counted = run(
        shipped,
        """SELECT (COUNT(?r) AS ?runs) (COUNT(?s) AS ?with) WHERE {
        ?r a bg:BenchmarkRun OPTIONAL { ?r bg:fabricStatus ?s } }""",
    )
    row = next(iter(counted))
    assert (runs, on_accelerators) == (int(row[0].value), int(row[1].value))


def test_headline_answer(shipped, readme):
    (answered,) = said(readme, rf"it answers {N} runs, the seed among them")
    assert answered == len(rows(shipped, "no-gpu-fabric"))


def test_fabric_status_counts(shipped, readme):
    present, none, unpublished = said(
        readme, rf"\(today {N} present, {N} none, {N} not published[;)]"
    )
    counts = Counter(row[3].value.rpartition("#")[2] for row in rows(shipped, "fabric-status"))
    assert (present, none, unpublished) == (
        counts["ScaleUpFabricPresent"],
        counts["NoScaleUpFabric"],
        counts["FabricNotPublished"],
    )


def test_runs_not_run_and_kind_pairs(shipped, readme):
    runs, pairs = said(readme, rf"count runs \({N}\), not run-and-kind pairs \({N}\)")
    counted = run(
        shipped,
        """SELECT (COUNT(DISTINCT ?r) AS ?runs) (COUNT(*) AS ?pairs) WHERE {
        ?r a bg:BenchmarkRun ; bg:fabricStatus ?s ; bg:accelerator ?a }""",
    )
    row = next(iter(counted))
    assert (runs, pairs) == (int(row[0].value), int(row[1].value))


def test_the_with_example_returns_rows(shipped, capsys, tmp_path):
    """The README's `--with` example, run as written on the shipped data with the test
    fixture as its outside graph (tests/data/external-hardware: made-up items whose
    manufacturers are Wikidata's NVIDIA and Intel), answers runs, not nothing."""
    from benchgraph.cli.main import main
    from paths import TEST_DATA

    text = README.read_text(encoding="utf-8")
    found = re.search(r"```sh\nbenchgraph query --with gpus\.ttl=(\S+) '(.*?)'\n```", text, re.S)
    assert found, "the README's --with example is not where this test looks"
    graph, query = found.groups()
    assert (
        main(
            [
                "query",
                "--data",
                str(DATA),
                "--format",
                "csv",
                "--with",
                f"{TEST_DATA / 'external-hardware' / 'gpus.ttl'}={graph}",
                query,
            ]
        )
        == 0
    )
    rows = capsys.readouterr().out.splitlines()[1:]
    assert rows, "the README's --with example answers nothing on the shipped data"
    assert all("http://www.wikidata.org/entity/Q" in row for row in rows)


def _scaling_lines(shipped) -> dict[str, list]:
    lines: dict[str, list] = {}
    for row in rows(shipped, "scaling-by-fabric"):
        lines.setdefault(row["line"].value, []).append(row)
    return lines


def test_scaling_lines_and_the_developer_guide_on_none(shipped, readme):
    """The README's count of scaling-by-fabric's lines, and its word that the developer
    guide's per-GPU figures are on no line (their totals are derived, and the query that read
    them was refused by Virtuoso's planner)."""
    (count,) = said(readme, rf"sources \({N} lines on the shipped data;")
    lines = _scaling_lines(shipped)
    assert count == len(lines)
    on = {r["source"].value for points in lines.values() for r in points}
    assert "NVIDIA/TensorRT-LLM@258c7540c035" in on
    assert "NVIDIA/TensorRT-LLM@03e27c7d5ff0" not in on
    assert "the developer guide's per-GPU figures are on none" in " ".join(readme.split())


def test_no_scaling_line_mixes_precisions_and_the_a100_fp16_lines_are_apart(shipped, readme):
    """Precision is part of a line's conditions and label, so an FP16 line is never beside FP8
    points on one line; the README keeps the v0.17 A100 (FP16) out of its FP8 comparison."""
    assert "so its lines (0.92 and 0.93) are not set beside the FP8 ones" in readme
    for label in _scaling_lines(shipped):
        precisions = {p for p in ("FP16", "FP8", "FP4", "BF16") if f", {p}," in f"{label},"}
        assert len(precisions) <= 1, label
    a100 = [k for k in _scaling_lines(shipped) if "A100 SXM 80 GB" in k and "-LLM 0.17 (" in k]
    assert a100 and all(", FP16," in f"{k}," for k in a100)
