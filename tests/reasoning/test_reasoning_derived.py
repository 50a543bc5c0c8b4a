"""The seed's conventions made explicit: interconnect union, fabric status, crossing devices,
comparisons of a run's measurements. Each case of the issue's acceptance list is a fixture run
(tests/data/reasoning/data/benchmarks/)."""

from __future__ import annotations

import pytest
from rdflib import Literal, URIRef

from benchgraph.namespaces import BG
from benchgraph.reasoning.infer import crosses_devices

from .reasoning_support import INFERRED, select

# run: (fabric status, crosses devices), None where the fact must be absent
EXPECTED = {
    "pcie-8x-tp8": ("NoScaleUpFabric", "true"),  # the seed's case
    "h100-1x-tp1": ("ScaleUpFabricPresent", "false"),  # present, not exercised
    "unpublished-1x": ("FabricNotPublished", "false"),
    "unpublished-ib": ("FabricNotPublished", None),  # InfiniBand alone says nothing
    "h100-2node-tp8-pp2": ("ScaleUpFabricPresent", "true"),  # present and exercised
    "arc-2node-tp4-dp2": ("NoScaleUpFabric", "true"),  # PCIe-only cluster over InfiniBand
    "h100-8x-dp8": ("ScaleUpFabricPresent", "false"),  # replicas do not cross
    "h100-8x-unstated": ("ScaleUpFabricPresent", None),  # unknown, not guessed
    "cpu-only": (None, None),
    # two kinds, one with a scale-up fabric (the run-level status, as derived today)
    "mixed-2node": ("ScaleUpFabricPresent", None),
    "h100-8x-acc999": ("ScaleUpFabricPresent", None),
}


def _facts(store, run: str) -> tuple:
    rows = select(
        store,
        f"""SELECT ?status ?crosses WHERE {{
        BIND(<https://w3id.org/benchgraph/id/benchmarks/{run}> AS ?run)
        OPTIONAL {{ ?run bg:fabricStatus ?status }}
        OPTIONAL {{ ?run bg:crossesDevices ?crosses }} }}""",
    )
    assert len(rows) == 1, rows  # never two statuses, never two values
    return rows[0]


@pytest.mark.parametrize("run", sorted(EXPECTED))
def test_fabric_status_and_crossing(fixture_store, run):
    assert _facts(fixture_store, run) == EXPECTED[run]


def test_every_run_is_covered(fixture_store):
    runs = select(fixture_store, "SELECT ?r WHERE { ?r a bg:BenchmarkRun }")
    assert {r.rsplit("/", 1)[1] for (r,) in runs} == set(EXPECTED)


def test_interconnect_union_adds_only_what_the_run_did_not_state(fixture_store):
    rows = select(
        fixture_store,
        f"""SELECT ?run ?i WHERE {{ ?run a bg:BenchmarkRun .
        GRAPH <{INFERRED}> {{ ?run bg:interconnect ?i }} }} ORDER BY ?run ?i""",
    )
    assert rows == [
        ("benchmarks/arc-2node-tp4-dp2", "interconnects/infiniband-ndr"),
        ("benchmarks/arc-2node-tp4-dp2", "interconnects/pcie-gen5"),
        ("benchmarks/h100-1x-tp1", "interconnects/nvlink-4"),
        ("benchmarks/h100-1x-tp1", "interconnects/nvswitch-4"),
        ("benchmarks/h100-2node-tp8-pp2", "interconnects/infiniband-ndr"),
        ("benchmarks/h100-2node-tp8-pp2", "interconnects/nvlink-4"),
        ("benchmarks/h100-2node-tp8-pp2", "interconnects/nvswitch-4"),
        ("benchmarks/h100-8x-acc999", "interconnects/nvlink-4"),
        ("benchmarks/h100-8x-acc999", "interconnects/nvswitch-4"),
        ("benchmarks/h100-8x-dp8", "interconnects/nvlink-4"),
        ("benchmarks/h100-8x-dp8", "interconnects/nvswitch-4"),
        ("benchmarks/h100-8x-unstated", "interconnects/nvlink-4"),
        ("benchmarks/h100-8x-unstated", "interconnects/nvswitch-4"),
        # both kinds' interconnects (the run's, not its accelerator-use nodes')
        ("benchmarks/mixed-2node", "interconnects/nvlink-4"),
        ("benchmarks/mixed-2node", "interconnects/nvswitch-4"),
        ("benchmarks/mixed-2node", "interconnects/pcie"),
    ]  # pcie-8x-tp8 states [pcie] itself; unpublished-ib keeps only its InfiniBand


def test_a_system_gets_its_accelerators_interconnects(fixture_store):
    rows = select(
        fixture_store,
        """SELECT ?i WHERE {
        <https://w3id.org/benchgraph/id/systems/h100-two-nodes> bg:interconnect ?i }
        ORDER BY ?i""",
    )
    assert rows == [
        ("interconnects/infiniband-ndr",),
        ("interconnects/nvlink-4",),
        ("interconnects/nvswitch-4",),
    ]


def test_derived_facts_are_marked_derived(fixture_store):
    """Every derived fact is in the inferred graph and in no record's graph."""
    rows = select(
        fixture_store,
        """SELECT DISTINCT ?g WHERE { GRAPH ?g {
        { ?s bg:fabricStatus ?o } UNION { ?s bg:crossesDevices ?o }
        UNION { ?s bg:comparison ?o } UNION { ?s bg:relativeChange ?o }
        UNION { ?s bg:outperformsBaseline ?o } } }""",
    )
    assert rows == [(INFERRED,)]


def test_the_seeds_structured_vs_prose_gain(fixture_store):
    rows = select(
        fixture_store,
        """SELECT ?label ?change ?outperforms WHERE {
        <https://w3id.org/benchgraph/id/benchmarks/pcie-8x-tp8> bg:comparison ?c .
        ?c rdfs:label ?label ; bg:relativeChange ?change ; bg:outperformsBaseline ?outperforms ;
           bg:compared/bg:value 134.1 ; bg:baseline/bg:value 93.9 }""",
    )
    assert len(rows) == 1
    label, change, outperforms = rows[0]
    assert (label, round(float(change), 3), outperforms) == (
        "prompt_class structured vs prose",
        0.428,
        "true",
    )


def test_comparisons_need_the_same_metric_and_exactly_one_differing_condition(fixture_store):
    rows = select(
        fixture_store,
        """SELECT ?c ?change ?outperforms WHERE {
        <https://w3id.org/benchgraph/id/benchmarks/h100-1x-tp1> bg:comparison ?c .
        ?c bg:relativeChange ?change ; bg:outperformsBaseline ?outperforms } ORDER BY ?c""",
    )
    assert rows == [
        ("benchmarks/h100-1x-tp1#comparison-2-vs-1", "-0.2", "false"),  # concurrency 8 vs 1
        ("benchmarks/h100-1x-tp1#comparison-3-vs-2", "0.083333", "true"),  # structured vs prose
        ("benchmarks/h100-1x-tp1#comparison-5-vs-4", "0.2", "false"),  # TTFT: lower is better
    ]  # 3 vs 1 differ in two conditions; tok/s vs ms are different metrics


def _run(**values) -> dict:
    props = {
        "count": BG.acceleratorCount,
        "tp": BG.tensorParallelSize,
        "pp": BG.pipelineParallelSize,
        "ep": BG.expertParallelSize,
        "dp": BG.dataParallelSize,
    }
    facts = {props[k]: [Literal(v)] for k, v in values.items()}
    if values.get("count"):
        facts[BG.accelerator] = [URIRef("urn:accelerator")]
    return facts


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"count": 8, "tp": 8}, True),
        ({"count": 16, "pp": 2}, True),
        ({"count": 8, "ep": 8, "tp": 1}, True),
        ({"count": 1, "tp": 1}, False),
        ({"count": 1}, False),
        ({"count": 8, "tp": 1}, False),
        ({"count": 8, "dp": 8}, False),
        ({"count": 8, "dp": 2}, None),  # each replica spans 4, but nothing says how
        ({"count": 8}, None),
        ({"count": 0}, None),
    ],
)
def test_crosses_devices(values, expected):
    assert crosses_devices(_run(**values)) is expected


def test_each_run_says_how_many_kinds_of_accelerator_it_used(fixture_store):
    """bg:acceleratorKinds: 1 where a figure per accelerator is one kind's; none when
    CPU-only."""
    kinds = dict(select(fixture_store, "SELECT ?r ?k WHERE { ?r bg:acceleratorKinds ?k }"))
    assert kinds.pop("benchmarks/mixed-2node") == "2"
    assert set(kinds.values()) == {"1"}
    assert set(kinds) == {f"benchmarks/{r}" for r in EXPECTED} - {
        "benchmarks/mixed-2node",
        "benchmarks/cpu-only",
    }
