"""The comparisons of a run's measurements: each against one baseline for each condition it
varies, so that a sweep of n measurements gives about n comparisons a condition, not n^2
(issue 15, point 10: a record of 21k measurements took 99 s to build)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from rdflib import URIRef
from rdflib.namespace import RDF, RDFS

from benchgraph.namespaces import BG
from benchgraph.rdf.convert import record_triples
from benchgraph.reasoning.infer import derive_local
from benchgraph.records.reader import load_record

RUN = "https://w3id.org/benchgraph/id/benchmarks/sweep"


def _derived(tmp_path: Path, measurements: list[dict]) -> set[tuple]:
    """What derive_local gives for a run record with these measurements, read from a file."""
    folder = tmp_path / "data" / "benchmarks"
    folder.mkdir(parents=True)
    record = {
        "id": "sweep",
        "title": "A sweep",
        "status": "provisional",
        "confidence": 0.6,
        "updated": "2026-07-15",
        "metric": "tok-s-per-user",
        "value": 150,
        "unit": "tok/s",
        "model": "model-a",
        "engine": "engine-y",
        "accelerators": ["nvidia-h100-sxm"],
        "accelerator_count": 1,
        "measured_by": "vendor",
        "measurements": measurements,
        "source": {"note": "written for this test"},
    }
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
    loaded, problems = load_record(path, tmp_path / "data")
    assert loaded is not None, problems
    triples = set(record_triples(loaded))
    return set(derive_local(triples, URIRef(RUN)))


def _pairs(derived: set[tuple]) -> dict[str, tuple[str, str, str]]:
    """comparison -> (compared, baseline, label), by measurement number."""
    about: dict = {}
    for s, p, o in derived:
        about.setdefault(s, {})[p] = o

    def number(m: object) -> str:
        return str(m).rpartition("-")[2]

    return {
        str(c).rpartition("#")[2]: (
            number(f[BG.compared]),
            number(f[BG.baseline]),
            str(f[RDFS.label]),
        )
        for c, f in about.items()
        if f.get(RDF.type) == BG.Comparison
    }


def _sweep(classes: int, levels: int) -> list[dict]:
    return [
        {
            "metric": "tok-s-per-user",
            "value": 100 + i,
            "unit": "tok/s",
            "condition": {"prompt_class": f"class-{c}", "concurrency": level},
        }
        for i, (c, level) in enumerate((c, j + 1) for c in range(classes) for j in range(levels))
    ]


def test_a_sweep_gives_one_comparison_a_measurement_and_varied_condition(tmp_path):
    """3 prompt classes x 200 concurrencies: the prompt_class groups are 200 of 3 (400
    comparisons), the concurrency groups 3 of 200 (597); every pair differing in one
    condition would be 200 * 3 + 3 * 19,900 = 60,300."""
    derived = _derived(tmp_path, _sweep(3, 200))
    pairs = _pairs(derived)
    assert len(pairs) == (600 - 200) + (600 - 3)
    varied = Counter(label.split()[0] for _, _, label in pairs.values())
    assert varied == {"prompt_class": 400, "concurrency": 597}
    # each group's baseline is its first-listed measurement: class-0 for a prompt class,
    # the lowest concurrency (listed first) for a concurrency
    assert {b for a, b, label in pairs.values() if label.startswith("concurrency")} == {
        "1",
        "201",
        "401",
    }
    assert pairs["comparison-402-vs-2"] == ("402", "2", "prompt_class class-2 vs class-0")


@pytest.mark.slow
def test_the_count_stays_linear_at_many_measurements(tmp_path):
    """n measurements in k groups of the one condition they vary give n - k comparisons."""
    n = 20_000
    measurements = [
        {
            "metric": "tok-s-per-user",
            "value": 1 + i % 97,
            "unit": "tok/s",
            "condition": {"concurrency": i % 500, "input_tokens": i // 500},
        }
        for i in range(n)
    ]
    pairs = _pairs(_derived(tmp_path, measurements))
    concurrency_groups, input_groups = n // 500, 500
    assert len(pairs) == (n - concurrency_groups) + (n - input_groups)


def test_equal_conditions_zero_baselines_and_other_names_are_not_compared(tmp_path):
    measurements = [
        {
            "metric": "tok-s-per-user",
            "value": 0,
            "unit": "tok/s",
            "condition": {"prompt_class": "prose"},
        },  # 1: 0 is no baseline
        {
            "metric": "tok-s-per-user",
            "value": 90,
            "unit": "tok/s",
            "condition": {"prompt_class": "prose"},
        },  # 2: the baseline
        {
            "metric": "tok-s-per-user",
            "value": 95,
            "unit": "tok/s",
            "condition": {"prompt_class": "prose"},
        },  # 3: the same condition again
        {
            "metric": "tok-s-per-user",
            "value": 135,
            "unit": "tok/s",
            "condition": {"prompt_class": "structured"},
        },  # 4
        {
            "metric": "tok-s-per-user",
            "value": 120,
            "unit": "tok/s",
            "condition": {"prompt_class": "json"},
        },  # 5
        {
            "metric": "tok-s-per-user",
            "value": 100,
            "unit": "tok/s",
            "condition": {"prompt_class": "code", "concurrency": 8},
        },  # 6: other names
        {
            "metric": "ttft",
            "value": 50,
            "unit": "ms",
            "condition": {"prompt_class": "code"},
        },  # 7: another metric
    ]
    derived = _derived(tmp_path, measurements)
    assert _pairs(derived) == {
        "comparison-4-vs-2": ("4", "2", "prompt_class structured vs prose"),
        "comparison-5-vs-2": ("5", "2", "prompt_class json vs prose"),
    }
    changes = {str(s).rpartition("#")[2]: o for s, p, o in derived if p == BG.relativeChange}
    assert changes["comparison-4-vs-2"].toPython() == Decimal("0.5")
