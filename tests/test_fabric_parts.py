"""Fabric answers from the parts (issue 16): bg:fabricStatus per kind of accelerator, the
contradictions it does not believe, and the basis every status links to.

Fixtures: tests/data/catalogue/ (every file made up for these tests; see its README).
"""

from __future__ import annotations

import json
import re

import pytest

from benchgraph.cli.main import main
from benchgraph.pipeline.steps import build
from paths import TEST_DATA

CATALOGUE = TEST_DATA / "catalogue"
ID = "https://w3id.org/benchgraph/id/"
BG = "https://w3id.org/benchgraph/ontology#"

# The status each fixture run must get, with the rule of each kind of accelerator in it.
EXPECTED = {
    "run-pcie-claim": ("NoScaleUpFabric", {"pcie-only": "PartHasNoPeerFabric"}),
    "run-bridged": ("ScaleUpFabricPresent", {"bridged": "StatedFabric"}),
    "run-bridged-na": ("FabricNotPublished", {"bridged": "NothingPublished"}),
    "run-bridged-pcie": ("NoScaleUpFabric", {"bridged": "StatedHostLinksOnly"}),
    "run-bridged-single": ("ScaleUpFabricPresent", {"bridged": "StatedFabric"}),
    "run-baseboard-na": ("ScaleUpFabricPresent", {"baseboard": "PartFabricBuiltIn"}),
    "run-unstated-ib": ("FabricNotPublished", {"unstated": "NothingPublished"}),
    "run-mixed-present": (
        "ScaleUpFabricPresent",
        {"pcie-only": "PartHasNoPeerFabric", "baseboard": "PartFabricBuiltIn"},
    ),
    "run-mixed-none": (
        "NoScaleUpFabric",
        {"pcie-only": "PartHasNoPeerFabric", "bridged": "StatedHostLinksOnly"},
    ),
    "run-mixed-unpublished": (
        "FabricNotPublished",
        {"pcie-only": "PartHasNoPeerFabric", "unstated": "NothingPublished"},
    ),
    "run-own-claim": ("NoScaleUpFabric", {"pcie-only": "PartHasNoPeerFabric"}),
    "run-host-interface-only": ("FabricNotPublished", {"bridged": "NothingPublished"}),
    "run-derived-part": ("ScaleUpFabricPresent", {"baseboard": "PartFabricBuiltIn"}),
    "run-derived-none": ("NoScaleUpFabric", {"derived-none": "PartHasNoPeerFabric"}),
}


def _short(value: str) -> str:
    return value.rsplit("/", 1)[1] if value.startswith(ID) else value.removeprefix(BG)


def _statuses(store) -> dict:
    out: dict = {}
    for row in store.query(
        f"""SELECT ?run ?status ?part ?rule WHERE {{
            ?run <{BG}fabricStatus> ?status ; <{BG}fabricStatusBasis> ?b .
            ?b <{BG}basisAccelerator> ?part ; <{BG}basisRule> ?rule }}""",
        use_default_graph_as_union=True,
    ):
        run, status = _short(row["run"].value), _short(row["status"].value)
        entry = out.setdefault(run, (status, {}))
        entry[1][_short(row["part"].value)] = _short(row["rule"].value)
    return out


@pytest.fixture
def built(tmp_path, copy_data, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    data = copy_data(CATALOGUE)
    return data, build(data)


def test_each_kind_is_decided_by_its_part_then_by_the_statements(built):
    _data, result = built
    assert _statuses(result.open()) == EXPECTED


def test_a_status_rests_on_the_part_or_the_statement_that_decided(built):
    _data, result = built
    rests = {
        (_short(r["run"].value), _short(r["on"].value))
        for r in result.open().query(
            f"SELECT ?run ?on WHERE {{ ?run <{BG}fabricStatusBasis>/<{BG}restsOn> ?on }}",
            use_default_graph_as_union=True,
        )
    }
    assert ("run-pcie-claim", "pcie-only") in rests  # the part, not the system's NVLink
    assert ("run-pcie-claim", "pcie-box-nvlink") not in rests
    assert ("run-bridged", "bridged-box") in rests
    assert ("run-bridged-pcie", "bridged-box-pcie") in rests


def test_contradictions_name_both_records_and_sources_and_are_not_believed(built):
    _data, result = built
    found = [p for p in result.problems if "contradiction" in p.code]
    assert sorted((p.file.rsplit("/", 1)[1], p.value) for p in found) == [
        ("pcie-box-nvlink.yaml", "nvlink-4"),
        ("run-own-claim.yaml", "nvlink-4"),
    ]
    system = next(p for p in found if p.file.endswith("pcie-box-nvlink.yaml"))
    assert "pcie-only" in system.message and "accelerators/pcie-only.yaml" in system.message
    assert "https://example.org/pcie-only-datasheet" in system.message
    assert "https://example.org/systems/pcie-box-nvlink.json" in system.message
    assert all(p.severity == "warning" for p in found)  # the records keep their statements
    assert _statuses(result.open())["run-pcie-claim"][0] == "NoScaleUpFabric"


def test_implausible_fabric_statements_are_flagged(built):
    _data, result = built
    flagged = sorted(
        (p.file.rsplit("/", 1)[1], p.code)
        for p in result.problems
        if p.code in ("bg:SystemShape-single-accelerator-fabric", "copied-fabric-text")
    )
    # the two systems sharing a text are one warning, on the first file, naming the other
    assert flagged == [
        ("bridged-box.yaml", "copied-fabric-text"),
        ("bridged-single.yaml", "bg:SystemShape-single-accelerator-fabric"),
    ]
    copied = next(p for p in result.problems if p.code == "copied-fabric-text")
    assert "systems/pcie-box-nvlink " in copied.message, copied.message


def _query(data, name: str, capsys, values: str | None = None) -> list[dict]:
    if values is None:
        args = ["query", "--data", str(data), "--format", "json", "--example", name]
    else:
        from benchgraph.query.saved import saved_queries

        text = saved_queries()[name].text
        text = re.sub(r"VALUES \?run \{[^}]*\}", values, text)
        args = ["query", "--data", str(data), "--format", "json", text]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    return [{k: v["value"] for k, v in b.items()} for b in out["results"]["bindings"]]


def test_the_saved_query_lists_every_contradiction(built, capsys):
    """A fabric on a part with no peer link, and a host link of a later PCIe generation than
    the part's own (Gen5 claimed for a Gen4 card); a slot slower than its card is none."""
    data, _result = built
    rows = _query(data, "fabric-contradictions", capsys)
    assert sorted(
        (
            _short(r["record"]),
            _short(r["claimed"]),
            _short(r["accelerator"]),
            _short(r["partFact"]),
            r.get("claimSource"),
            r.get("partSource"),
        )
        for r in rows
    ) == [
        (
            "pcie-box-gen5",
            "pcie-gen5",
            "pcie-only",
            "pcie-gen4",
            "https://example.org/systems/pcie-box-gen5.json",
            "https://example.org/pcie-only-datasheet",
        ),
        (
            "pcie-box-nvlink",
            "nvlink-4",
            "pcie-only",
            "NoPeerFabric",
            "https://example.org/systems/pcie-box-nvlink.json",
            "https://example.org/pcie-only-datasheet",
        ),
        (
            "pcie-box-nvlink",
            "pcie-gen5",
            "pcie-only",
            "pcie-gen4",
            "https://example.org/systems/pcie-box-nvlink.json",
            "https://example.org/pcie-only-datasheet",
        ),
        (
            "run-own-claim",
            "nvlink-4",
            "pcie-only",
            "NoPeerFabric",
            None,
            "https://example.org/pcie-only-datasheet",
        ),
    ]
    kinds = {(_short(r["record"]), _short(r["claimed"])): r["contradiction"] for r in rows}
    assert "later generation" in kinds["pcie-box-gen5", "pcie-gen5"]
    assert "no peer link" in kinds["pcie-box-nvlink", "nvlink-4"]


def test_the_why_query_says_why_a_run_is_none(built, capsys):
    data, _result = built
    rows = _query(
        data, "why-fabric-status", capsys, f"VALUES ?run {{ <{ID}benchmarks/run-pcie-claim> }}"
    )
    assert [
        (
            _short(r["status"]),
            _short(r["accelerator"]),
            _short(r["partFabric"]),
            _short(r["rule"]),
            _short(r["restsOn"]),
            r.get("source"),
        )
        for r in rows
    ] == [
        (
            "NoScaleUpFabric",
            "pcie-only",
            "NoPeerFabric",
            "PartHasNoPeerFabric",
            "pcie-only",
            "https://example.org/pcie-only-datasheet",
        )
    ]


def test_the_derived_facts_query_lists_facts_no_source_states(built, capsys):
    """A fact only derived (derived-none's fabric) is listed with its sources; one that a
    source also states (stated-and-derived) is not."""
    data, _result = built
    rows = _query(data, "derived-facts", capsys)
    assert [(_short(r["record"]), _short(r["field"]), r["sources"]) for r in rows] == [
        (
            "derived-none",
            "peerFabric",
            "https://example.org/arch-drops-link https://example.org/derived-none",
        ),
        ("run-derived-part", "accelerator", "https://example.org/node-readme"),
    ]


def _quads(store) -> set:
    return {
        q
        for q in store
        if not any(t.__class__.__name__ == "BlankNode" for t in (q.subject, q.object))
    }


# An edit of a part's fabric reaches every run on it (the costly incremental case):
# (file, old text, new text, a run on the part, its status and rules after the edit).
FABRIC_EDITS = {
    "none to built-in": (
        "pcie-only.yaml",
        "fabric: none",
        "fabric: built-in",
        "run-pcie-claim",
        ("ScaleUpFabricPresent", {"pcie-only": "PartFabricBuiltIn"}),
    ),
    # the system says its fabric was not published, and no record states one
    "built-in to optional": (
        "baseboard.yaml",
        "fabric: built-in",
        "fabric: optional",
        "run-baseboard-na",
        ("FabricNotPublished", {"baseboard": "NothingPublished"}),
    ),
}


@pytest.mark.parametrize("name", sorted(FABRIC_EDITS))
def test_editing_a_parts_fabric_rederives_as_a_fresh_build(built, tmp_path, monkeypatch, name):
    file, old, new, run, after = FABRIC_EDITS[name]
    data, _result = built
    path = data / "accelerators" / file
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    incremental = build(data).open()
    assert EXPECTED[run] != after
    assert _statuses(incremental)[run] == after
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "fresh"))
    assert _quads(incremental) ^ _quads(build(data).open()) == set()
