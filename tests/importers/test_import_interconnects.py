"""Every raw interconnect string of v4.1 and v5.1 becomes exactly the records and roles
the hand-written fixture pins; placeholders are "not published", never "none"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from benchgraph.importers.common import ImportReport
from benchgraph.importers.normalise import NOT_PUBLISHED, Normaliser
from benchgraph.records.reader import load_record

FIELDS = (
    "accelerator_interconnect",
    "accelerator_host_interconnect",
    "accelerator_interconnect_topology",
)


@pytest.fixture
def pinned(fixtures) -> dict[str, dict]:
    entries = yaml.safe_load((fixtures / "interconnect-strings.yaml").read_text("utf-8"))
    out = {e["raw"]: e for e in entries["strings"]}
    assert len(out) == len(entries["strings"]), "the fixture lists a string twice"
    return out


def _raw_strings(*checkouts: Path) -> set[str]:
    found = set()
    for checkout in checkouts:
        for path in checkout.glob("*/*/systems/*.json"):
            data = json.loads(path.read_text("utf-8"))
            found |= {data[f] for f in FIELDS if f in data}
    return found


def _roles(shipped: Path) -> dict[str, str]:
    roles = {}
    for path in sorted((shipped / "interconnects").glob("*.yaml")):
        record, problems = load_record(path, shipped)
        assert not problems, problems
        roles[record.id] = record.fields["role"]
    return roles


def test_fixture_pins_every_raw_string_of_both_rounds(pinned, v51, v41):
    found = _raw_strings(v51, v41)
    assert "18x 5th\u202fGen NVLink, 14.4\u202fTB/s aggregated bandwidth" in found
    assert sorted(found - set(pinned)) == [], "strings of the data the fixture does not pin"
    assert sorted(set(pinned) - found) == [], "pinned strings the data no longer has"


def test_each_string_becomes_exactly_the_pinned_records_and_roles(pinned, shipped):
    norm = Normaliser(ImportReport("test"))
    roles = _roles(shipped)
    for raw, entry in pinned.items():
        ids = norm.interconnects("accelerator_interconnect", raw, "fixture")
        want = entry["ids"] or {}
        assert ids is not None, f"{raw!r} is unknown to the mapping"
        assert sorted(ids) == sorted(want), f"{raw!r} became {ids}, pinned {sorted(want)}"
        for ic_id, role in want.items():
            assert roles.get(ic_id) == role, (
                f"{raw!r}: data/interconnects/{ic_id}.yaml has role {roles.get(ic_id)}, "
                f"pinned {role}"
            )


def test_placeholders_mean_not_published_and_topologies_name_nothing(pinned):
    report = ImportReport("test")
    norm = Normaliser(report)
    for raw, entry in pinned.items():
        if entry["ids"]:
            continue
        assert norm.is_placeholder(raw) == (not entry["published"]), raw
        norm.interconnects("accelerator_interconnect", raw, "fixture")
        became = report.raw["interconnect (accelerator_interconnect)"][raw][1]
        if entry["published"]:
            assert became.startswith("no interconnect"), (raw, became)
        else:
            assert became == NOT_PUBLISHED, (raw, became)


def test_an_unknown_string_is_reported_not_guessed():
    report = ImportReport("test")
    assert Normaliser(report).interconnects("accelerator_interconnect", "NVLink 9", "x") is None
    assert ("interconnect (accelerator_interconnect)", "NVLink 9") in report.unknown
    assert report.exit_code == 1


def test_tbd_on_an_sxm_system_is_not_evidence_of_no_fabric(imported, shipped):
    # closed/Dell_Broadcom/systems/vXE9680_H200-SXM-141GBx8_TRT.json says "TBD".
    out, _ = imported("v5.1")
    name = "mlperf-v5.1-closed-dell-broadcom-vxe9680-h200-sxm-141gbx8-trt.yaml"
    system, problems = load_record(out / "systems" / "mlperf-v5.1" / name, out)
    assert not problems
    assert system.fields["interconnect_raw"]["accelerator_interconnect"] == "TBD"
    assert system.fields["interconnect_ids"] == ["pcie-gen5"], "TBD adds no interconnect"
    part, _ = load_record(shipped / "accelerators" / "nvidia-h200-sxm.yaml", shipped)
    assert system.fields["accelerators"] == [{"id": "nvidia-h200-sxm", "count": 8}]
    assert "nvlink-4" in part.fields["interconnect_ids"], (
        "the part's own record carries its platform's fabric (the seed's convention)"
    )


def test_raw_strings_are_kept_verbatim_with_their_odd_spaces(imported):
    out, _ = imported("v5.1")
    odd = []
    for path in sorted((out / "systems" / "mlperf-v5.1").glob("*.yaml")):
        record, problems = load_record(path, out)
        assert not problems
        if "\u202f" in record.fields["interconnect_raw"]["accelerator_interconnect"]:
            odd.append(record)
    assert len(odd) == 2, "U+202F must survive into interconnect_raw, verbatim"
    assert all("nvlink-5" in r.fields["interconnect_ids"] for r in odd)
