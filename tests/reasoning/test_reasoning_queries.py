"""The competency questions (queries/*.rq): each one's exact answer on the fixture folder
(tests/data/reasoning/data, which shows every case), run as a user runs it
(`benchgraph query --example NAME`), and properties of its answer on the shipped data."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from benchgraph.cli.main import main
from benchgraph.query.saved import saved_queries

from .reasoning_support import REASONING, select, short_value

SEED = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
# GROUP_CONCAT: order is not promised (a run's accelerators are joined with " + ")
CONCATENATED = {"links", "settings", "omittedBySource", "accelerator"}


def _joined(value: str) -> str:
    return ", ".join(sorted(re.split(r", |; | \+ ", value)))


# name: (variables, rows in the query's order)
EXPECTED = {
    # The fixture holds no MLPerf runs; the shipped-data test below checks real answers.
    "mlperf-llama2-no-fabric": (
        ("accuracyTarget", "run", "accelerator", "count", "perAccelerator", "scenario"),
        [],
    ),
    # mixed-2node's figure per accelerator averages over two kinds: left out
    "per-accelerator": (
        (
            "accelerator",
            "perAccelerator",
            "unit",
            "metric",
            "benchmark",
            "accuracyTarget",
            "scenario",
            "count",
            "status",
            "run",
        ),
        [
            (
                "H100 SXM",
                "1000",
                "tok/s",
                "metrics/tok-s-per-accelerator",
                None,
                "99.9",
                None,
                "8",
                "ScaleUpFabricPresent",
                "benchmarks/h100-8x-acc999",
            )
        ],
    ),
    # No part of the fixture states its own fabric, and the saved why-query asks about the
    # seed run, which it does not hold: tests/test_fabric_parts.py checks both on parts that do.
    "fabric-contradictions": (
        (
            "record",
            "contradiction",
            "claimed",
            "claimSource",
            "accelerator",
            "partFact",
            "partSource",
        ),
        [],
    ),
    "why-fabric-status": (
        (
            "run",
            "status",
            "accelerator",
            "partFabric",
            "rule",
            "kindStatus",
            "restsOn",
            "strongest",
            "evidence",
            "source",
        ),
        [],
    ),
    # No run of the fixture has a measured power, and none is on one part at several counts
    # of one source: tests/test_power_queries.py pins both answers on a fixture that has them.
    "per-watt": (
        (
            "powerKind",
            "model",
            "benchmark",
            "scenario",
            "accuracyTarget",
            "workload",
            "efficiency",
            "unit",
            "watts",
            "system",
            "accelerator",
            "count",
            "status",
            "run",
        ),
        [],
    ),
    "scaling-by-fabric": (
        (
            "line",
            "count",
            "share",
            "perAccelerator",
            "measuredIn",
            "status",
            "partLabel",
            "modelLabel",
            "split",
            "engineVersion",
            "source",
            "run",
        ),
        [],
    ),
    # the fixture's sources say nothing of what they are: every stated fact is listed, with
    # the runs on its part (tests/test_source_kinds.py checks blogs, resellers, derivations)
    "weakest-facts": (
        ("accelerator", "fact", "value", "restsOn", "runs", "sources"),
        [
            ("accelerators/nvidia-h100-sxm", "formFactor", "SxmModule", "kind not given", "6", ""),
            ("accelerators/nvidia-h100-sxm", "memoryGB", "80", "kind not given", "6", ""),
        ],
    ),
    # No source of the fixture derives a fact: tests/test_fabric_parts.py checks one that does.
    "derived-facts": (("record", "field", "sources"), []),
    # a profile: one row per part, the facts its record states (the fixture's H100 SXM states
    # its memory and form factor, its interconnects only as ids: no fabric field), its runs by
    # fabric status (mixed-2node, on the RTX PRO 6000 and the H100 SXM, is a run with a fabric)
    "accelerator-profile": (
        (
            "accelerator",
            "name",
            "vendor",
            "architecture",
            "memoryGB",
            "memoryType",
            "formFactor",
            "hostLink",
            "hostLanes",
            "fabric",
            "fabricLink",
            "fabricGBps",
            "tdpW",
            "runs",
            "runsWithFabric",
            "runsWithoutFabric",
            "runsFabricNotPublished",
        ),
        [
            ("accelerators/arc-pro-b70", "Arc Pro B70", "Intel")
            + (None,) * 10
            + ("1", "0", "1", "0"),
            ("accelerators/nvidia-h100-sxm", "H100 SXM", "NVIDIA", None, "80", None)
            + ("SXM module",)
            + (None,) * 6
            + ("6", "6", "0", "0"),
            ("accelerators/unpublished-npu", "NPU with no published interconnect", "Example")
            + (None,) * 10
            + ("2", "0", "0", "2"),
            ("accelerators/rtx-pro-6000", "RTX PRO 6000 (PCIe only)", "NVIDIA")
            + (None,) * 10
            + ("2", "1", "1", "0"),
        ],
    ),
    # mixed-2node (99) and h100-8x-acc999 (99.9): one model and metric, two accuracy targets,
    # each its own best
    "best-per-model": (
        ("model", "accuracyTarget", "metric", "best", "unit", "run", "engine", "accelerator"),
        [
            (
                "models/model-a",
                "99",
                "metrics/tok-s",
                "9000",
                "tok/s",
                "benchmarks/mixed-2node",
                "engines/engine-x",
                "8 x H100 SXM + 8 x RTX PRO 6000 (PCIe only)",
            ),
            (
                "models/model-a",
                "99.9",
                "metrics/tok-s",
                "8000",
                "tok/s",
                "benchmarks/h100-8x-acc999",
                "engines/engine-y",
                "H100 SXM",
            ),
            (
                "models/model-a",
                "none stated",
                "metrics/tok-s-per-user",
                "150",
                "tok/s",
                "benchmarks/h100-1x-tp1",
                "engines/engine-y",
                "H100 SXM",
            ),
            (
                "models/model-a",
                "none stated",
                "metrics/ttft",
                "60000000",
                "ns",
                "benchmarks/h100-8x-dp8",
                "engines/engine-y",
                "H100 SXM",
            ),
            (
                "models/model-b",
                "none stated",
                "metrics/tok-s",
                "5000",
                "tok/s",
                "benchmarks/h100-2node-tp8-pp2",
                "engines/engine-y",
                "H100 SXM",
            ),
            (
                "models/model-b",
                "none stated",
                "metrics/tok-s",
                "5000",
                "tok/s",
                "benchmarks/h100-8x-unstated",
                "engines/engine-x",
                "H100 SXM",
            ),
        ],
    ),
    "changed-after": (
        ("record", "date", "change"),
        [
            (
                "benchmarks/pcie-8x-tp8",
                "2026-10-04",
                "interconnect_ids filled from the accelerator record",
            ),
            ("accelerators/nvidia-h100-sxm", "2026-09-01", "added the external link"),
            ("benchmarks/unpublished-1x", "2026-08-01", None),
            ("benchmarks/h100-1x-tp1", "2026-07-15", "headline value corrected"),
        ],
    ),
    "condition-beats": (
        ("run", "metric", "condition", "better", "worse", "betterValue", "worseValue", "change"),
        [
            (
                "benchmarks/h100-1x-tp1",
                "metrics/tok-s-per-user",
                "concurrency",
                "1",
                "8",
                "150",
                "120",
                "0.25",
            ),
            (
                "benchmarks/h100-1x-tp1",
                "metrics/tok-s-per-user",
                "prompt_class",
                "structured",
                "prose",
                "130",
                "120",
                "0.083",
            ),
            (
                "benchmarks/h100-1x-tp1",
                "metrics/ttft",
                "prompt_class",
                "prose",
                "structured",
                "50",
                "60",
                "-0.167",
            ),
            (
                "benchmarks/pcie-8x-tp8",
                "metrics/tok-s-per-user",
                "prompt_class",
                "structured",
                "prose",
                "134.1",
                "93.9",
                "0.428",
            ),
        ],
    ),
    "fabric-exercised": (
        ("run", "accelerator", "count", "modelParallelSize"),
        [
            ("benchmarks/h100-2node-tp8-pp2", "H100 SXM", "16", "8"),
        ],
    ),
    "fabric-not-exercised": (
        ("run", "accelerator", "count", "tensor", "pipeline", "expert", "data"),
        [
            ("benchmarks/h100-1x-tp1", "H100 SXM", "1", "1", None, None, None),
            ("benchmarks/h100-8x-dp8", "H100 SXM", "8", None, None, None, "8"),
        ],
    ),
    "fabric-status": (
        ("run", "accelerator", "count", "status", "noFabric"),
        [
            ("benchmarks/h100-1x-tp1", "H100 SXM", "1", "ScaleUpFabricPresent", "no"),
            ("benchmarks/h100-2node-tp8-pp2", "H100 SXM", "16", "ScaleUpFabricPresent", "no"),
            ("benchmarks/h100-8x-acc999", "H100 SXM", "8", "ScaleUpFabricPresent", "no"),
            ("benchmarks/h100-8x-dp8", "H100 SXM", "8", "ScaleUpFabricPresent", "no"),
            ("benchmarks/h100-8x-unstated", "H100 SXM", "8", "ScaleUpFabricPresent", "no"),
            # one row, its two kinds in one column
            (
                "benchmarks/mixed-2node",
                "8 x H100 SXM + 8 x RTX PRO 6000 (PCIe only)",
                "16",
                "ScaleUpFabricPresent",
                "no",
            ),
            (
                "benchmarks/unpublished-1x",
                "NPU with no published interconnect",
                "1",
                "FabricNotPublished",
                "unknown",
            ),
            (
                "benchmarks/unpublished-ib",
                "NPU with no published interconnect",
                "2",
                "FabricNotPublished",
                "unknown",
            ),
            ("benchmarks/arc-2node-tp4-dp2", "Arc Pro B70", "8", "NoScaleUpFabric", "yes"),
            ("benchmarks/pcie-8x-tp8", "RTX PRO 6000 (PCIe only)", "8", "NoScaleUpFabric", "yes"),
        ],
    ),
    "host-links-only": (
        ("run", "accelerator", "count", "crossesDevices", "links"),
        [
            (
                "benchmarks/arc-2node-tp4-dp2",
                "Arc Pro B70",
                "8",
                "true",
                "PCI Express 5.0, InfiniBand NDR",
            ),
            (
                "benchmarks/pcie-8x-tp8",
                "RTX PRO 6000 (PCIe only)",
                "8",
                "true",
                "PCI Express (generation not stated)",
            ),
        ],
    ),
    "low-confidence": (
        ("run", "status", "confidence", "omittedBySource"),
        [
            ("benchmarks/h100-1x-tp1", "Provisional", "0.6", None),
            ("benchmarks/pcie-8x-tp8", "Draft", "0.75", "driver version; engine version"),
        ],
    ),
    "no-gpu-fabric": (
        ("run", "accelerator", "count", "status"),
        [
            ("benchmarks/arc-2node-tp4-dp2", "Arc Pro B70", "8", "NoScaleUpFabric"),
            ("benchmarks/pcie-8x-tp8", "RTX PRO 6000 (PCIe only)", "8", "NoScaleUpFabric"),
        ],
    ),
    "speculative-decoding": (
        ("run", "settings"),
        [
            ("benchmarks/h100-2node-tp8-pp2", "num_speculative_tokens = 4"),
            ("benchmarks/pcie-8x-tp8", "dspark_block_size = 6, speculative_algorithm = DSPARK"),
        ],
    ),
    "unpublished-interconnects": (
        ("accelerator", "name", "runs"),
        [
            ("accelerators/unpublished-npu", "NPU with no published interconnect", "2"),
        ],
    ),
}


def example(name: str, data=REASONING, capsys=None) -> tuple[tuple, list[tuple]]:
    """Run a saved query as a user does; (variables, rows of short values)."""
    assert main(["query", "--data", str(data), "--format", "json", "--example", name]) == 0
    result = json.loads(capsys.readouterr().out)
    variables = tuple(result["head"]["vars"])
    rows = []
    for binding in result["results"]["bindings"]:
        row = []
        for v in variables:
            value = binding.get(v, {}).get("value")
            if value is not None and binding[v]["type"] == "uri":
                value = short_value(value)
            if value is not None and v in CONCATENATED:
                value = _joined(value)
            row.append(value)
        rows.append(tuple(row))
    return variables, rows


def _normal(rows: list[tuple], variables: tuple) -> list[tuple]:
    return [
        tuple(
            _joined(c) if c is not None and v in CONCATENATED else c
            for v, c in zip(variables, row, strict=True)
        )
        for row in rows
    ]


def test_every_saved_query_is_tested_and_described():
    saved = saved_queries()
    assert set(saved) == set(EXPECTED)
    for query in saved.values():
        assert query.title and query.title != query.name, query.name
        assert query.description, query.name


def test_no_saved_query_uses_filter_not_exists():
    """FILTER NOT EXISTS is quadratic in Oxigraph (oxigraph#885): MINUS instead."""
    for query in saved_queries().values():
        assert "NOT EXISTS" not in query.text.upper(), query.name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_exact_answer_on_the_fixture(name, capsys):
    variables, rows = example(name, capsys=capsys)
    expected_variables, expected_rows = EXPECTED[name]
    assert variables == expected_variables
    assert rows == _normal(expected_rows, variables)


# --- properties of the answers on the shipped data (which grows) ----------------------
def _shipped(shipped_store, name: str) -> list[dict]:
    from benchgraph.query.render import run

    result = run(shipped_store, saved_queries()[name].text)
    variables = [v.value for v in result.variables]
    return [{v: _value(row[v]) for v in variables} for row in result]


def _value(term):
    if term is None:
        return None
    return short_value(term.value) if type(term).__name__ == "NamedNode" else term.value


@pytest.mark.slow
def test_shipped_fabric_status_is_one_per_run_and_the_seed_has_no_fabric(shipped_store):
    rows = _shipped(shipped_store, "fabric-status")
    status: dict[str, set] = {}
    for row in rows:
        status.setdefault(row["run"], set()).add(row["status"])
    assert all(len(s) == 1 for s in status.values())
    assert status[SEED] == {"NoScaleUpFabric"}
    with_accelerators = select(
        shipped_store,
        """SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {
        ?r a bg:BenchmarkRun ; bg:accelerator ?a }""",
    )
    assert len(status) == int(with_accelerators[0][0])


def test_shipped_headline_answers(shipped_store):
    assert SEED in {r["run"] for r in _shipped(shipped_store, "no-gpu-fabric")}
    hosts = _shipped(shipped_store, "host-links-only")
    assert SEED in {r["run"] for r in hosts}
    assert all(int(r["count"]) > 1 for r in hosts)


def test_shipped_fabric_exercised_or_not(shipped_store):
    exercised = _shipped(shipped_store, "fabric-exercised")
    assert all(int(r["modelParallelSize"]) > 1 for r in exercised)
    idle = _shipped(shipped_store, "fabric-not-exercised")
    assert SEED not in {r["run"] for r in idle}
    assert not {r["run"] for r in idle} & {r["run"] for r in exercised}
    for r in idle:
        assert all(r[k] in (None, "1") for k in ("tensor", "pipeline", "expert"))


def test_shipped_seed_structured_beats_prose(shipped_store):
    rows = [r for r in _shipped(shipped_store, "condition-beats") if r["run"] == SEED]
    assert [(r["condition"], r["better"], r["worse"], r["change"]) for r in rows] == [
        ("prompt_class", "structured", "prose", "0.428")
    ]


def test_shipped_low_confidence_has_the_seed_and_its_omissions(shipped_store):
    rows = _shipped(shipped_store, "low-confidence")
    assert all(
        float(r["confidence"]) < 0.8 and r["status"] in ("Draft", "Provisional") for r in rows
    )
    seed = next(r for r in rows if r["run"] == SEED)
    assert "driver version" in seed["omittedBySource"]


def test_shipped_unpublished_interconnects(shipped_store):
    accelerators = {r["accelerator"] for r in _shipped(shipped_store, "unpublished-interconnects")}
    assert "accelerators/sambanova-sn40l" in accelerators  # states neither
    assert "accelerators/apple-m1-pro" not in accelerators  # on-chip host, fabric none
    assert "accelerators/nvidia-h100-sxm" not in accelerators


def test_shipped_changes_after_a_date(shipped_store):
    rows = _shipped(shipped_store, "changed-after")
    assert (SEED, "2026-10-04") in {(r["record"], r["date"]) for r in rows}
    assert all(r["date"] > "2026-06-01" for r in rows)


def test_shipped_speculative_decoding(shipped_store):
    rows = {r["run"]: r["settings"] for r in _shipped(shipped_store, "speculative-decoding")}
    assert "speculative_algorithm = DSPARK" in rows[SEED]
    assert "dspark_block_size = 6" in rows[SEED]
    assert "kv_cache_dtype" not in rows[SEED]


def test_shipped_accelerator_profile(shipped_store):
    """A profile, not triples: one row per accelerator with its facts as columns, and its runs
    counted by fabric status; the parameter picks one part's row."""
    from benchgraph.query.params import with_values
    from benchgraph.query.render import run

    rows = _shipped(shipped_store, "accelerator-profile")
    parts = [a for (a,) in select(shipped_store, "SELECT ?a WHERE { ?a a bg:Accelerator }")]
    assert sorted(r["accelerator"] for r in rows) == sorted(parts)
    by_part = {r["accelerator"]: r for r in rows}
    h100 = by_part["accelerators/nvidia-h100-sxm"]
    assert (h100["formFactor"], h100["fabric"], h100["memoryGB"], h100["tdpW"]) == (
        "SXM module",
        "built-in peer fabric",
        "80",
        "700",
    )
    # NVSwitch belongs to a baseboard, not to the module: the part's link is NVLink alone
    assert (h100["fabricLink"], h100["fabricGBps"]) == ("NVLink 4", "900")
    assert (h100["hostLink"], h100["hostLanes"]) == ("PCI Express 5.0", "16")
    l40s = by_part["accelerators/nvidia-l40s"]
    assert l40s["fabric"] == "no peer fabric" and l40s["fabricLink"] is None  # none stated
    assert int(l40s["runsWithoutFabric"]) > 0 and l40s["runsWithFabric"] == "0"
    (on_h100,) = select(
        shipped_store,
        "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r a bg:BenchmarkRun ; "
        "bg:accelerator <https://w3id.org/benchgraph/id/accelerators/nvidia-h100-sxm> }",
    )
    assert h100["runs"] == on_h100[0] and int(h100["runs"]) > 0
    for r in rows:  # every run on a part has a fabric status: the three counts are its runs
        counts = (r["runsWithFabric"], r["runsWithoutFabric"], r["runsFabricNotPublished"])
        assert int(r["runs"]) == sum(map(int, counts)), r
    query = saved_queries()["accelerator-profile"]
    picked = run(
        shipped_store, with_values(query.text, query.params, {"accelerator": ["nvidia-l40s"]})
    )
    names = [v.value for v in picked.variables]
    (one,) = [{n: _value(s[n]) for n in names} for s in picked]
    assert one == l40s


# The units the shipped runs give values of one quantity in, in the SI unit (the test's own
# table: the query reads QUDT's multipliers from the ontology).
IN_SI = {"ns": 1e-9, "ms": 1e-3, "s": 1.0, "tok/s": 1.0, "samples/s": 1.0, "queries/s": 1.0}


def test_shipped_best_per_model_has_nothing_better(shipped_store):
    rows = _shipped(shipped_store, "best-per-model")
    assert rows
    worse = select(
        shipped_store,
        """SELECT ?model ?target ?metric ?v ?unit WHERE {
        ?r a bg:BenchmarkRun ; bg:model ?model ; bg:metric ?metric ; bg:value ?v ;
           bg:unitCode ?unit .
        OPTIONAL { ?r bg:accuracyTarget ?t } BIND(COALESCE(STR(?t), "none stated") AS ?target) }""",
    )
    values: dict[tuple, list[float]] = {}
    for model, target, metric, v, unit in worse:
        values.setdefault((model, target, metric), []).append(float(v) * IN_SI[unit])
    directions = dict(select(shipped_store, "SELECT ?m ?d WHERE { ?m bg:direction ?d }"))
    for r in rows:
        pick = max if directions[r["metric"]] == "HigherIsBetter" else min
        assert float(r["best"]) * IN_SI[r["unit"]] == pytest.approx(
            pick(values[(r["model"], r["accuracyTarget"], r["metric"])]), rel=1e-12
        )
    assert {(r["model"], r["accuracyTarget"], r["metric"]) for r in rows} == set(values)
    # MLPerf v4.1 gives latencies in ns, v5.1 in ms: the bare numbers would rank any ms value
    # first. A v4.1 resnet50 run's 118,879 ns beats every v5.1 one (the best 0.305005 ms).
    best = {(r["model"], r["accuracyTarget"], r["metric"]): (r["best"], r["unit"]) for r in rows}
    assert best[("models/resnet50", "none stated", "metrics/latency-p90-early-stopping")] == (
        "118879",
        "ns",
    )
    # llama2-70b-99 and -99.9 are distinct results: each target has its own best
    assert {
        ("models/llama2-70b", t, "metrics/throughput-tok-s") in best for t in ("99", "99.9")
    } == {True}


def test_shipped_mlperf_llama2_without_fabric_ranked_per_accelerator(shipped_store):
    rows = _shipped(shipped_store, "mlperf-llama2-no-fabric")
    assert len(rows) >= 4
    # ranked within each accuracy target, the 99 and the 99.9 results apart
    targets = [r["accuracyTarget"] for r in rows]
    assert targets == sorted(targets) and set(targets) == {"99", "99.9"}
    for target in set(targets):
        values = [float(r["perAccelerator"]) for r in rows if r["accuracyTarget"] == target]
        assert values == sorted(values, reverse=True)
    status = {
        r[0]: r[1]
        for r in select(
            shipped_store,
            """SELECT ?r ?s WHERE {
        ?r bg:fabricStatus ?s }""",
        )
    }
    for row in rows:
        assert row["run"].startswith("benchmarks/mlperf-v5.1-closed-")
        assert "llama2-70b" in row["run"]
        assert status[row["run"]] == "NoScaleUpFabric"
        headline = select(
            shipped_store,
            f"""SELECT ?v WHERE {{
            <https://w3id.org/benchgraph/id/{row["run"]}> bg:value ?v }}""",
        )[0][0]
        assert abs(float(headline) / int(row["count"]) - float(row["perAccelerator"])) < 0.01


# --- one row per run ----------------------------------------------------------------------
RUN_PREFIX = "https://w3id.org/benchgraph/id/benchmarks/"
# A title that promises other rows says so: "(one row per comparison)", "(one row per figure)"
OTHER_ROWS = re.compile(r"\(one row per (?!run\))[^)]+\)")


def _runs_seen_twice(store, name: str) -> dict[str, int]:
    from benchgraph.query.render import run

    result = run(store, saved_queries()[name].text)
    variables = list(result.variables)
    seen: Counter = Counter()
    for row in result:
        seen.update(
            {
                row[v].value
                for v in variables
                if row[v] is not None
                and type(row[v]).__name__ == "NamedNode"
                and row[v].value.startswith(RUN_PREFIX)
                and "#" not in row[v].value
            }
        )
    return {run: n for run, n in seen.items() if n > 1}


@pytest.mark.parametrize(
    "name", sorted(n for n, q in saved_queries().items() if not OTHER_ROWS.search(q.title))
)
def test_a_saved_query_answers_one_row_per_run_unless_its_title_says_otherwise(
    name, shipped_store, fixture_store
):
    """On the shipped data (8 runs on two kinds of accelerator) and the fixture (mixed-2node),
    a run is one row: fabric-status gave 5,108 rows for 5,100 runs, one per kind."""
    for store in (fixture_store, shipped_store):
        assert _runs_seen_twice(store, name) == {}, name


def test_a_title_promising_other_rows_is_honest(fixture_store):
    """condition-beats and changed-after do list a run more than once: their titles say so."""
    said = {n for n, q in saved_queries().items() if OTHER_ROWS.search(q.title)}
    assert said == {
        "accelerator-profile",
        "condition-beats",
        "changed-after",
        "per-accelerator",
        "why-fabric-status",
        "scaling-by-fabric",
        "derived-facts",
        "weakest-facts",
    }
    assert _runs_seen_twice(fixture_store, "condition-beats")


def test_queries_that_rank_or_count_results_keep_accuracy_targets_apart_and_say_so():
    for name in ("best-per-model", "condition-beats", "mlperf-llama2-no-fabric", "per-accelerator"):
        text = saved_queries()[name].description
        assert "99 and 99.9" in text, name


def test_shipped_mixed_runs_are_one_row_each_with_each_kinds_total(shipped_store):
    rows = [
        r
        for r in _shipped(shipped_store, "fabric-status")
        if "-16xmi325x-2xepyc-9655-" in r["run"] or "-16xmi325x-8xmi300x-" in r["run"]
    ]
    assert len(rows) == 8
    for r in rows:
        assert sorted(r["accelerator"].split(" + ")) in (
            ["16 x AMD Instinct MI325X 256 GB", "32 x AMD Instinct MI300X 192 GB"],
            ["16 x AMD Instinct MI325X 256 GB", "8 x AMD Instinct MI300X 192 GB"],
        ), r
        assert r["count"] in ("48", "24")


def test_shipped_per_accelerator_figures_are_of_one_kind_only(shipped_store):
    rows = _shipped(shipped_store, "per-accelerator")
    assert rows
    kinds = dict(select(shipped_store, "SELECT ?r ?k WHERE { ?r bg:acceleratorKinds ?k }"))
    assert {kinds[r["run"]] for r in rows} == {"1"}
    assert not any("16xmi325x" in r["run"] and "mi300x" in r["run"] for r in rows)


def test_the_readmes_queries_answer_on_the_shipped_data(shipped_store):
    """The README's SPARQL examples (the headline, the honest per-accelerator comparison)
    run as written and answer something."""
    from paths import ROOT

    blocks = [
        b
        for b in re.findall(r"```sparql\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
        if "SELECT" in b
    ]  # not the header lines shown on their own
    assert len(blocks) >= 2
    for text in blocks:
        assert select(shipped_store, text), text
    per_kind = next(b for b in blocks if "bg:acceleratorKinds 1" in b)
    labels = {row[0] for row in select(shipped_store, per_kind)}
    assert "AMD Instinct MI300X 192 GB" in labels and not any(" + " in x for x in labels)


# --- issue 26: what each source is, and how strong each answer is (shipped data) ----------
PART = "https://w3id.org/benchgraph/id/accelerators/"


def _shipped_strength(shipped_store, part: str) -> Counter:
    """(status, rule, strongest kind, stated or derived) of each run on the part, counted."""
    return Counter(
        row[1:]
        for row in select(
            shipped_store,
            f"""
        SELECT ?run ?status ?rule ?kind ?evidence WHERE {{
        ?run bg:fabricStatus ?status ; bg:fabricStatusBasis ?b .
        ?b bg:basisAccelerator <{PART}{part}> ; bg:basisRule ?rule .
        OPTIONAL {{ ?b bg:basisSourceKind ?kind }} OPTIONAL {{ ?b bg:basisEvidence ?evidence }}
        }}""",
        )
    )


@pytest.mark.parametrize(
    "part",
    [
        "untetherai-speedai240-slim",
        "untetherai-speedai240-preview",
        "maxsun-intel-arc-pro-b60-dual-48g",
    ],
)
def test_shipped_vendors_own_descriptions_give_no_peer_link_as_derived(shipped_store, part):
    """One rule for MLPerf system descriptions: the part's vendor's own description of a
    multi-card system, with the host link stated and "N/A" as its only interconnect, gives
    "no peer link" by reading a placeholder (for MAXSUN's card, the chip vendor Intel's): the
    answer is kept, its evidence derived, not stated."""
    found = _shipped_strength(shipped_store, part)
    assert set(found) == {("NoScaleUpFabric", "PartHasNoPeerFabric", "VendorSource", "DerivedFact")}


def test_shipped_vendors_templated_host_link_is_derived_not_stated(shipped_store):
    """Google's v4.1 file gives "PCIe Gen3 x16" for its TPU v5e, and the same for the H100
    SXM (a PCIe Gen5 part, by NVIDIA's own file): a templated field, so the host link is the
    vendor source's derived fact, and no source states it."""
    query = f"""SELECT ?host ?kind WHERE {{
        <{PART}google-tpu-v5e> bg:hostInterface ?host ; dct:source ?s .
        ?s bg:%s bg:hostInterface ; bg:sourceKind ?kind }}"""
    assert select(shipped_store, query % "derives") == [("interconnects/pcie-gen3", "VendorSource")]
    assert select(shipped_store, query % "states") == []


def test_shipped_derived_parts_are_derived_answers(shipped_store):
    """Argonne's H100 runs that the repository's other files place on the SXM part answer
    "present" from the part's vendor, derived; those its own nvidia-smi shows are derived
    too (the run's part is derived either way)."""
    rows = Counter(
        row[1:]
        for row in select(
            shipped_store,
            f"""
        SELECT ?run ?engine ?kind ?evidence WHERE {{
        ?run bg:accelerator <{PART}nvidia-h100-sxm> ; bg:engine ?engine ;
             bg:fabricStatusBasis ?b .
        ?b bg:basisSourceKind ?kind ; bg:basisEvidence ?evidence .
        FILTER(STRSTARTS(STR(?run), "https://w3id.org/benchgraph/id/benchmarks/argonne-")) }}""",
        )
    )
    assert {engine for engine, _, _ in rows} == {
        "engines/vllm",
        "engines/tensorrt-llm",
        "engines/llama-cpp",
    }
    assert {(k, e) for _, k, e in rows} == {("VendorSource", "DerivedFact")}


def test_shipped_weakest_facts_rest_only_on_blogs_resellers_or_derivations(shipped_store):
    rows = _shipped(shipped_store, "weakest-facts")
    assert rows, "the shipped catalogue has weak facts to list"
    runs = [int(r["runs"]) for r in rows]
    assert runs == sorted(runs, reverse=True) and runs[0] > 0
    for r in rows:
        assert set(r["restsOn"].split(", ")) <= {"blog", "reseller", "derived"}, r
    stated_strongly = set(
        select(
            shipped_store,
            """SELECT ?a ?fact WHERE {
        ?a a bg:Accelerator ; dct:source ?s . ?s bg:states ?fact ; bg:sourceKind ?k .
        FILTER(?k NOT IN (bg:BlogSource, bg:ResellerSource)) }""",
        )
    )
    assert not {(r["accelerator"], r["fact"]) for r in rows} & stated_strongly


def test_shipped_contradictions_include_a_host_link_the_part_cannot_run(shipped_store):
    rows = _shipped(shipped_store, "fabric-contradictions")
    cisco = {
        (r["claimed"], r["partFact"])
        for r in rows
        if r["record"] == "systems/mlperf-v5.1-closed-cisco-c845a-l40sx8-trt"
    }
    assert cisco == {
        ("interconnects/nvlink-4", "NoPeerFabric"),
        ("interconnects/pcie-gen5", "interconnects/pcie-gen4"),
    }


def test_shipped_part_facts_rest_on_no_aggregator_alone():
    """No fact of a shipped accelerator or interconnect record rests only on a spec
    aggregator or content site, and no source is of no kind."""
    from benchgraph.records.reader import load_record
    from paths import DATA

    found = []
    for folder in ("accelerators", "interconnects"):
        for path in sorted((DATA / folder).glob("*.yaml")):
            record, problems = load_record(path, DATA)
            found += [str(p) for p in problems if p.code in ("aggregator-only", "secondary")]
            found += [
                f"{path}: source {i} has no kind"
                for i, src in enumerate(record.fields.get("source") or [])
                if isinstance(src, dict) and not src.get("kind")
            ]
    assert found == []
