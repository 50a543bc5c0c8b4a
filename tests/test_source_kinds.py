"""What each source is (`kind:`), how strong each fabric answer is, the facts that rest on a
spec aggregator alone, and the weakest facts (issue 26).

Fixtures: tests/data/catalogue/ (every file made up for these tests; see its README); the
records written below are made up too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchgraph.cli.main import main
from benchgraph.namespaces import BG
from benchgraph.pipeline.steps import build
from benchgraph.rdf.convert import record_triples
from benchgraph.records.reader import load_record
from paths import TEST_DATA

CATALOGUE = TEST_DATA / "catalogue"
ID = "https://w3id.org/benchgraph/id/"
BGS = str(BG)


def _short(value: str) -> str:
    return value.rsplit("/", 1)[1] if value.startswith(ID) else value.removeprefix(BGS)


@pytest.fixture
def built(tmp_path, copy_data, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    data = copy_data(CATALOGUE)
    return data, build(data)


def _strength(store) -> dict:
    """run -> {part: (strongest kind, stated or derived)} of each run's fabric status basis."""
    out: dict = {}
    for row in store.query(
        f"""SELECT ?run ?part ?kind ?evidence WHERE {{
            ?run <{BGS}fabricStatusBasis> ?b . ?b <{BGS}basisAccelerator> ?part .
            OPTIONAL {{ ?b <{BGS}basisSourceKind> ?kind }}
            OPTIONAL {{ ?b <{BGS}basisEvidence> ?evidence }} }}""",
        use_default_graph_as_union=True,
    ):
        out.setdefault(_short(row["run"].value), {})[_short(row["part"].value)] = (
            _short(row["kind"].value) if row["kind"] else None,
            _short(row["evidence"].value) if row["evidence"] else None,
        )
    return out


def _write(tmp_path: Path, text: str, kind: str = "accelerators") -> tuple:
    data = tmp_path / "data"
    path = data / kind / "part.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return load_record(path, data)


# --- a source says what it is ------------------------------------------------------------
def test_a_sources_kind_becomes_its_concept(tmp_path):
    record, problems = _write(
        tmp_path,
        """id: part
name: A part (fixture)
tdp_w: 70
source:
- publisher: Example Maker
  url: https://example.org/datasheet
  kind: vendor
  states: [tdp_w]
- publisher: Example Shop
  url: https://example.org/shop
  kind: reseller
""",
    )
    assert problems == []
    kinds = {o for _s, p, o in record_triples(record) if p == BG.sourceKind}
    assert kinds == {BG.VendorSource, BG.ResellerSource}


def test_an_older_secondary_reads_as_a_blog_with_an_info_message(tmp_path):
    """`secondary: true` (not the vendor's own page) reads as the weakest page, with an info
    message naming the file, line and field; beside a kind, the kind is read."""
    record, problems = _write(
        tmp_path,
        """id: part
name: A part (fixture)
source:
- publisher: Example Notes
  url: https://example.org/notes
  secondary: true
- publisher: Example Shop
  url: https://example.org/shop
  kind: reseller
  secondary: true
""",
    )
    assert [(p.line, p.field, p.severity, p.code) for p in problems] == [
        (6, "source.0.secondary", "info", "secondary"),
        (10, "source.1.secondary", "info", "secondary"),
    ]
    assert "reads as kind: blog" in problems[0].message
    assert "the kind is read" in problems[1].message
    kinds = [o for _s, p, o in record_triples(record) if p == BG.sourceKind]
    assert kinds == [BG.BlogSource, BG.ResellerSource]
    assert not [t for t in record_triples(record) if "secondary" in str(t[1])]


def test_a_kind_that_is_no_kind_of_source_is_a_violation(tmp_path, capsys):
    data = tmp_path / "data"
    (data / "accelerators").mkdir(parents=True)
    (data / "accelerators" / "part.yaml").write_text(
        "id: part\nname: A part (fixture)\nvendor: Example Maker\nsource:\n"
        "- note: a spec database\n  kind: aggregator\n",
        encoding="utf-8",
    )
    assert main(["validate", "--data", str(data)]) == 1
    out = capsys.readouterr().out
    assert "part.yaml:6: source.0.kind: aggregator must be one of vendor, oem, operator" in out
    assert "1 violation(s)" in out


# --- a fact that rests on a spec aggregator alone (the list is in the build key: see
# tests/test_build_key.py) -----------------------------------------------------------------
def test_a_fact_resting_only_on_aggregator_hosts_is_a_warning(tmp_path):
    """Its file, line, field and value, and the host; a fact another source also gives is
    not; a host below a listed one (www.) counts."""
    _record, problems = _write(
        tmp_path,
        """id: part
name: A part (fixture)
memory_gb: 24
tdp_w: 72
released: "2023"
source:
- publisher: PC Part DB
  url: https://www.pcpartdb.com/gpus/view/part
  kind: blog
  states: [memory_gb, tdp_w]
- publisher: FPSBench
  url: https://fpsbench.com/compare/gpu/part
  derives: [released]
- publisher: Example Maker
  url: https://example.org/datasheet
  kind: vendor
  states: [memory_gb]
""",
    )
    found = [(p.line, p.field, p.value, p.severity, p.code) for p in problems]
    assert found == [
        (4, "tdp_w", "72", "warning", "aggregator-only"),
        (5, "released", "2023", "warning", "aggregator-only"),
    ]
    assert "pcpartdb.com" in problems[0].message and "no source" in problems[0].message
    assert "fpsbench.com" in problems[1].message


# --- how strong each fabric answer is ----------------------------------------------------
def test_each_basis_carries_its_strongest_kind_and_whether_stated_or_derived(built):
    _data, result = built
    strength = _strength(result.open())
    # the part's fabric, stated by its maker
    assert strength["run-pcie-claim"] == {"pcie-only": ("VendorSource", "StatedFact")}
    # the system's own statement (a result set's description of it)
    assert strength["run-bridged"] == {"bridged": ("ResultSetSource", "StatedFact")}
    # a fabric its sources only derive; the strongest of them, the maker's page
    assert strength["run-derived-none"] == {"derived-none": ("VendorSource", "DerivedFact")}
    # the part stated by its maker, but the run's part is itself derived from another file
    assert strength["run-derived-part"] == {"baseboard": ("VendorSource", "DerivedFact")}
    # nothing published: nothing to be strong or weak
    assert strength["run-bridged-na"] == {"bridged": (None, None)}
    # each kind its own: the part with no peer link, and the host links the run states
    # itself, a run that cites no source (stated, but of no known kind)
    assert strength["run-mixed-none"] == {
        "pcie-only": ("VendorSource", "StatedFact"),
        "bridged": (None, "StatedFact"),
    }


def test_the_strength_follows_an_edit_of_the_parts_source(built, monkeypatch):
    """An edit of nothing but a source's kind reaches the runs on the part (the kind is
    read across records)."""
    data, _result = built
    part = data / "accelerators" / "pcie-only.yaml"
    part.write_text(
        part.read_text(encoding="utf-8").replace("kind: vendor", "kind: blog"), encoding="utf-8"
    )
    strength = _strength(build(data).open())
    assert strength["run-pcie-claim"] == {"pcie-only": ("BlogSource", "StatedFact")}


def _query(data, name: str, capsys, text: str | None = None) -> list[dict]:
    args = ["query", "--data", str(data), "--format", "json"]
    args += [text] if text is not None else ["--example", name]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    return [{k: v["value"] for k, v in b.items()} for b in out["results"]["bindings"]]


def test_the_why_query_gives_the_strength(built, capsys):
    from benchgraph.query.saved import saved_queries

    data, _result = built
    text = saved_queries()["why-fabric-status"].text.replace(
        "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user", "benchmarks/run-derived-part"
    )
    rows = _query(data, "", capsys, text)
    assert {(_short(r["rule"]), _short(r["strongest"]), _short(r["evidence"])) for r in rows} == {
        ("PartFabricBuiltIn", "VendorSource", "DerivedFact")
    }


# --- the weakest facts ---------------------------------------------------------------------
def test_weakest_facts_lists_facts_resting_only_on_a_blog_reseller_or_derivation(built, capsys):
    data, _result = built
    rows = _query(data, "weakest-facts", capsys)
    found = {
        (_short(r["accelerator"]), _short(r["fact"])): (
            set(r["restsOn"].split(", ")),
            int(r["runs"]),
        )
        for r in rows
    }
    # stated by a reseller (the press only derives it)
    assert found[("stated-and-derived", "peerFabric")] == ({"reseller", "derived"}, 0)
    # only derived, by the maker's page and an older secondary: a run rests on it
    assert found[("derived-none", "peerFabric")] == ({"derived"}, 1)
    # the maker's own datasheet: not weak
    assert not [k for k in found if k[0] in ("pcie-only", "bridged", "baseboard")]
    assert [int(r["runs"]) for r in rows] == sorted((int(r["runs"]) for r in rows), reverse=True)
