"""The corpus of bad records (tests/validation/bad/) is reported exactly as EXPECTED.yaml says.

Each bad record is wrong in one way and must come out as one problem at the file, line and
field a curator edits, with the shape (or reading check) that found it; the good records in
the folder must give none. The fast path must also agree with pySHACL on the corpus and on a
synthetic sample.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import yaml

from benchgraph.pipeline.steps import build
from benchgraph.records.schema import KINDS

from .shacl_reference import fast_results, reference_results
from .validation_support import BAD, BASE, convert_folder, diff, keys, union_graph

EXPECTED = yaml.safe_load((BAD / "EXPECTED.yaml").read_text(encoding="utf-8"))


def relative(shown: str) -> str:
    """A problem's file below its data folder: data/benchmarks/x.yaml -> benchmarks/x.yaml."""
    parts = shown.split("/")
    first = next(i for i, part in enumerate(parts) if part in KINDS)
    return "/".join(parts[first:])


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> dict[str, list]:
    data = tmp_path_factory.mktemp("corpus") / "data"
    shutil.copytree(BAD, data)
    result = build(data, skip_invalid=True)
    by_file: dict[str, list] = {}
    for p in result.problems:
        by_file.setdefault(relative(p.file), []).append(p)
    return by_file


def test_the_corpus_is_big_enough():
    assert len(EXPECTED) >= 40


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_bad_record(file, reported):
    want = EXPECTED[file]
    got = [(p.line, p.field, p.code, p.severity) for p in reported.get(file, [])]
    assert got == [(want["line"], want["field"], want["code"], want.get("severity", "violation"))]


def test_good_records_give_nothing(reported):
    assert {f: ps for f, ps in reported.items() if f not in EXPECTED} == {}


def test_every_shape_a_record_can_break_is_in_the_corpus():
    """Shapes only RDF can break (a field given twice, ...) are covered by shapes/examples."""
    covered = {e["code"] for e in EXPECTED.values()}
    yaml_only = {
        "bg:" + e.shape
        for e in _examples()
        if e.verdict == "invalid" and isinstance(e.change, dict)
    }
    assert yaml_only - covered == set()


@pytest.mark.slow
def test_pyshacl_agrees_on_the_corpus():
    converted = convert_folder(BAD)
    fast = keys(fast_results(converted))
    reference = keys(reference_results(union_graph(converted)))
    assert fast == reference, diff(fast, reference)
    assert len(fast) >= 60


@pytest.mark.slow
def test_pyshacl_agrees_on_a_synthetic_sample(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        from synth import generate
    finally:
        sys.path.pop(0)
    generate(tmp_path, 150, seed=7)
    converted = convert_folder(tmp_path)
    # break a few in ways the generator does not: a wrong unit, an overwide parallelism,
    # a fabric the accelerators lack, a dangling model
    for record, _triples in converted[-40:]:
        if record.kind == "benchmarks":
            record.fields["parallelism"] = {"tensor": 64}
            record.fields["interconnect_ids"] = ["nvlink-4"]
            record.fields["unit"] = "ms" if record.fields["unit"] != "ms" else "tok/s"
            record.fields["model"] = "no-such-model"
    from benchgraph.rdf.convert import record_triples

    converted = [(r, record_triples(r)) for r, _ in converted]
    fast = keys(fast_results(converted))
    reference = keys(reference_results(union_graph(converted)))
    assert fast == reference, diff(fast, reference)
    assert len(fast) > 40


def _examples():
    from .validation_support import load_examples

    return load_examples()


@pytest.mark.slow
def test_pyshacl_agrees_on_every_pair_of_units(tmp_path):
    """The twin's table of units that convert is the SPARQL's: every (run, metric) pair."""
    from benchgraph.vocab import UNITS

    data = tmp_path / "data"
    shutil.copytree(BASE, data)
    run = yaml.safe_load(
        (BASE / "benchmarks" / "ev-sglang-dsv41-production-decode-tok-s-per-user.yaml").read_text()
    )
    for i, metric_unit in enumerate(UNITS):
        (data / "metrics" / f"m{i}.yaml").write_text(
            yaml.safe_dump(
                {
                    "id": f"m{i}",
                    "name": f"m{i}",
                    "unit": metric_unit,
                    "direction": "lower-is-better",
                }
            )
        )
        for j, unit in enumerate(UNITS):
            run.update(id=f"r{i}-{j}", metric=f"m{i}", unit=unit, measurements=None)
            (data / "benchmarks" / f"r{i}-{j}.yaml").write_text(
                yaml.safe_dump({k: v for k, v in run.items() if v is not None})
            )
    converted = convert_folder(data)
    fast = keys(fast_results(converted))
    reference = keys(reference_results(union_graph(converted)))
    assert fast == reference, diff(fast, reference)
    fits = len(UNITS) ** 2 - len(fast)
    assert fits == len(UNITS) + 4 * 3  # each unit fits itself; ns, us, ms, s fit each other
