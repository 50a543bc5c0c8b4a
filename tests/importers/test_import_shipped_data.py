"""The shipped imported and curated records load cleanly and keep their promises."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from benchgraph.importers.common import GENERATED_MARK, ImportReport
from benchgraph.importers.normalise import Normaliser
from benchgraph.records.files import find_record_files
from benchgraph.records.reader import load_record

GENERATED = (
    "benchmarks/mlperf-v5.1",
    "benchmarks/mlperf-v4.1",
    "benchmarks/argonne",
    "benchmarks/trtllm-perf",
    "systems/mlperf-v5.1",
    "systems/mlperf-v4.1",
    "systems/trtllm-perf",
)


SHIPPED = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def records():
    shipped = SHIPPED
    loaded, problems = {}, []
    for path in find_record_files(shipped):
        record, found = load_record(path, shipped)
        problems += found
        if record is not None:
            loaded[(record.kind, record.id)] = (path, record)
    return shipped, loaded, problems


def test_every_record_loads_without_problems(records):
    _, loaded, problems = records
    assert not problems, "\n".join(str(p) for p in problems[:20])
    kinds = collections.Counter(kind for kind, _ in loaded)
    # 237 MLPerf system descriptions, one curated system (ALCF Polaris's compute node) and
    # the three DGX/NVL72 systems NVIDIA's TensorRT-LLM tables name
    assert kinds["benchmarks"] > 6000 and kinds["systems"] == 241


def test_every_reference_resolves(records):
    _, loaded, _ = records
    dangling = [
        (r.path, field, ref)
        for _, r in loaded.values()
        for field, ref, kind in r.references()
        if (kind, ref) not in loaded
    ]
    assert not dangling, dangling[:10]


def test_generated_files_say_so_and_carry_provenance(records):
    shipped, loaded, _ = records
    for path, record in loaded.values():
        rel = path.relative_to(shipped).parent.as_posix()
        if rel not in GENERATED:
            continue
        assert path.read_text("utf-8").startswith(GENERATED_MARK), path
        source = record.fields["source"][0]
        assert source["publisher"] and source["repository"] and source["commit"], path
        assert source["licence"].startswith("https://"), path


def test_the_mapping_points_only_at_existing_curated_records(records):
    _, loaded, _ = records
    wanted = Normaliser(ImportReport("test")).wanted()
    for kind, ids in wanted.items():
        missing = sorted(i for i in ids if (kind, i) not in loaded)
        assert not missing, f"{kind}: {missing}"


def test_a_part_record_carries_a_fabric_only_where_its_systems_agree(records):
    """The seed's convention puts a platform's fabric on the part; no system may contradict."""
    _, loaded, _ = records
    roles = {r.id: r.fields["role"] for k, (_, r) in loaded.items() if k[0] == "interconnects"}
    fabrics = collections.defaultdict(set)
    for (kind, _), (_, record) in loaded.items():
        if kind != "systems":
            continue
        stated = {
            i for i in record.fields.get("interconnect_ids", []) if roles[i] == "scale-up-fabric"
        }
        for part in record.fields.get("accelerators", []):
            fabrics[part["id"]].add(frozenset(stated))
    for (kind, part_id), (path, record) in loaded.items():
        carried = {
            i
            for i in record.fields.get("interconnect_ids") or []
            if roles.get(i) == "scale-up-fabric"
        }
        if kind != "accelerators" or not carried:
            continue
        for stated in fabrics.get(part_id, ()):
            if stated:  # a system that states no fabric has not published one
                assert {_family(i) for i in stated} & {_family(i) for i in carried}, (
                    f"{path}: carries {sorted(carried)}, a system of it states {sorted(stated)}"
                )


def _family(ic_id: str) -> str:
    """nvlink-4 and nvlink (generation not stated) are one technology."""
    return ic_id.split("-")[0] if ic_id.startswith(("nvlink", "nvswitch")) else ic_id
