"""The competency questions (queries/*.rq): each one's exact answer on the fixture folder
(tests/data/reasoning/data, which shows every case), run as a user runs it
(`benchgraph query --example NAME`), and properties of its answer on the shipped data."""

from __future__ import annotations

import json

import pytest

from benchgraph.cli import main
from benchgraph.queries import saved_queries

from .reasoning_support import REASONING, select, short_value

SEED = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
CONCATENATED = {"links", "settings", "omittedBySource"}  # GROUP_CONCAT: order is not promised

# name: (variables, rows in the query's order)
EXPECTED = {
    # The fixture holds no MLPerf runs; the shipped-data test below checks real answers.
    "mlperf-llama2-no-fabric": (("run", "accelerator", "count", "perAccelerator", "scenario"), []),
    "accelerator-profile": (
        ("subject", "property", "value"),
        [
            ("accelerators/nvidia-h100-sxm", "dct:modified", "2026-09-01"),
            ("accelerators/nvidia-h100-sxm", "dct:source", "accelerators/nvidia-h100-sxm#source-1"),
            ("accelerators/nvidia-h100-sxm", "rdf:type", "schema:ProductModel"),
            ("accelerators/nvidia-h100-sxm", "rdf:type", "Accelerator"),
            ("accelerators/nvidia-h100-sxm", "rdfs:label", "H100 SXM"),
            (
                "accelerators/nvidia-h100-sxm",
                "skos:exactMatch",
                "https://example.org/external/nvidia-h100-sxm",
            ),
            (
                "accelerators/nvidia-h100-sxm",
                "skos:note",
                "The accelerator the profile query is asked about.",
            ),
            (
                "accelerators/nvidia-h100-sxm",
                "schema:sameAs",
                "https://example.org/external/nvidia-h100-sxm",
            ),
            ("accelerators/nvidia-h100-sxm", "formFactor", "SxmModule"),
            ("accelerators/nvidia-h100-sxm", "interconnect", "interconnects/nvlink-4"),
            ("accelerators/nvidia-h100-sxm", "interconnect", "interconnects/nvswitch-4"),
            ("accelerators/nvidia-h100-sxm", "memoryGB", "80"),
            ("accelerators/nvidia-h100-sxm", "recordId", "nvidia-h100-sxm"),
            ("accelerators/nvidia-h100-sxm", "revision", "accelerators/nvidia-h100-sxm#revision-1"),
            ("accelerators/nvidia-h100-sxm", "vendor", "NVIDIA"),
            ("benchmarks/h100-1x-tp1", "accelerator", "accelerators/nvidia-h100-sxm"),
            ("benchmarks/h100-2node-tp8-pp2", "accelerator", "accelerators/nvidia-h100-sxm"),
            ("benchmarks/h100-8x-dp8", "accelerator", "accelerators/nvidia-h100-sxm"),
            ("benchmarks/h100-8x-unstated", "accelerator", "accelerators/nvidia-h100-sxm"),
            ("interconnects/nvlink-4", "role", "ScaleUpFabricRole"),
            ("interconnects/nvswitch-4", "role", "ScaleUpFabricRole"),
            ("systems/h100-two-nodes", "accelerator", "accelerators/nvidia-h100-sxm"),
            (
                "systems/h100-two-nodes#accelerators-1",
                "accelerator",
                "accelerators/nvidia-h100-sxm",
            ),
        ],
    ),
    "best-per-model": (
        ("model", "metric", "best", "unit", "run", "engine", "accelerator"),
        [
            (
                "models/model-a",
                "metrics/tok-s-per-user",
                "150",
                "tok/s",
                "benchmarks/h100-1x-tp1",
                "engines/engine-y",
                "accelerators/nvidia-h100-sxm",
            ),
            (
                "models/model-a",
                "metrics/ttft",
                "60000000",
                "ns",
                "benchmarks/h100-8x-dp8",
                "engines/engine-y",
                "accelerators/nvidia-h100-sxm",
            ),
            (
                "models/model-b",
                "metrics/tok-s",
                "5000",
                "tok/s",
                "benchmarks/h100-2node-tp8-pp2",
                "engines/engine-y",
                "accelerators/nvidia-h100-sxm",
            ),
            (
                "models/model-b",
                "metrics/tok-s",
                "5000",
                "tok/s",
                "benchmarks/h100-8x-unstated",
                "engines/engine-x",
                "accelerators/nvidia-h100-sxm",
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
            ("benchmarks/h100-8x-dp8", "H100 SXM", "8", "ScaleUpFabricPresent", "no"),
            ("benchmarks/h100-8x-unstated", "H100 SXM", "8", "ScaleUpFabricPresent", "no"),
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
                value = ", ".join(sorted(value.replace("; ", ", ").split(", ")))
            row.append(value)
        rows.append(tuple(row))
    return variables, rows


def _normal(rows: list[tuple], variables: tuple) -> list[tuple]:
    return [
        tuple(
            ", ".join(sorted(c.replace("; ", ", ").split(", ")))
            if c is not None and v in CONCATENATED
            else c
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
    from benchgraph.queries import run

    result = run(shipped_store, saved_queries()[name].text)
    variables = [v.value for v in result.variables]
    return [{v: _value(row[v]) for v in variables} for row in result]


def _value(term):
    if term is None:
        return None
    return short_value(term.value) if type(term).__name__ == "NamedNode" else term.value


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
    assert "accelerators/apple-m1-pro" in accelerators
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
    rows = {
        (r["subject"], r["property"], r["value"])
        for r in _shipped(shipped_store, "accelerator-profile")
    }
    assert ("interconnects/nvlink-4", "role", "ScaleUpFabricRole") in rows
    assert ("interconnects/nvswitch-4", "role", "ScaleUpFabricRole") in rows


# The units the shipped runs give values of one quantity in, in the SI unit (the test's own
# table: the query reads QUDT's multipliers from the ontology).
IN_SI = {"ns": 1e-9, "ms": 1e-3, "s": 1.0, "tok/s": 1.0, "samples/s": 1.0, "queries/s": 1.0}


def test_shipped_best_per_model_has_nothing_better(shipped_store):
    rows = _shipped(shipped_store, "best-per-model")
    assert rows
    worse = select(
        shipped_store,
        """SELECT ?model ?metric ?v ?unit WHERE {
        ?r a bg:BenchmarkRun ; bg:model ?model ; bg:metric ?metric ; bg:value ?v ;
           bg:unitCode ?unit }""",
    )
    values: dict[tuple, list[float]] = {}
    for model, metric, v, unit in worse:
        values.setdefault((model, metric), []).append(float(v) * IN_SI[unit])
    directions = dict(select(shipped_store, "SELECT ?m ?d WHERE { ?m bg:direction ?d }"))
    for r in rows:
        pick = max if directions[r["metric"]] == "HigherIsBetter" else min
        assert float(r["best"]) * IN_SI[r["unit"]] == pytest.approx(
            pick(values[(r["model"], r["metric"])]), rel=1e-12)
    # MLPerf v4.1 gives latencies in ns, v5.1 in ms: the bare numbers would rank any ms value
    # first. A v4.1 resnet50 run's 118,879 ns beats every v5.1 one (the best 0.305005 ms).
    best = {(r["model"], r["metric"]): (r["best"], r["unit"]) for r in rows}
    assert best[("models/resnet50", "metrics/latency-p90")] == ("118879", "ns")


def test_shipped_mlperf_llama2_without_fabric_ranked_per_accelerator(shipped_store):
    rows = _shipped(shipped_store, "mlperf-llama2-no-fabric")
    assert len(rows) >= 4
    values = [float(r["perAccelerator"]) for r in rows]
    assert values == sorted(values, reverse=True)
    status = {r[0]: r[1] for r in select(shipped_store, """SELECT ?r ?s WHERE {
        ?r bg:fabricStatus ?s }""")}
    for row in rows:
        assert row["run"].startswith("benchmarks/mlperf-v5.1-closed-")
        assert "llama2-70b" in row["run"]
        assert status[row["run"]] == "NoScaleUpFabric"
        headline = select(shipped_store, f"""SELECT ?v WHERE {{
            <https://w3id.org/benchgraph/id/{row['run']}> bg:value ?v }}""")[0][0]
        assert abs(float(headline) / int(row["count"]) - float(row["perAccelerator"])) < 0.01
