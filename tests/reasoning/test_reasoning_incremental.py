"""Editing records re-derives what depends on them: build, edit YAML in a copy of the fixture
folder, rebuild, query; and the incrementally updated store equals a fresh build."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from benchgraph.errors import RecordsInvalid
from benchgraph.pipeline.steps import UNSETTLED

from .reasoning_support import REASONING, build_store, select

RUNS = "https://w3id.org/benchgraph/id/benchmarks/"


def _status(store: ox.Store) -> dict[str, tuple]:
    rows = select(
        store,
        """SELECT ?run ?status ?crosses WHERE { ?run a bg:BenchmarkRun .
        OPTIONAL { ?run bg:fabricStatus ?status } OPTIONAL { ?run bg:crossesDevices ?crosses } }""",
    )
    return {run.rsplit("/", 1)[1]: (status, crosses) for run, status, crosses in rows}


def _quads(store: ox.Store) -> set:
    """Every quad without blank nodes (the ontology's lists get new ids in each store)."""
    return {q for q in store if not any(isinstance(t, ox.BlankNode) for t in (q.subject, q.object))}


def _edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_editing_records_rederives_and_matches_a_fresh_build(tmp_path, copy_data):
    data = copy_data(REASONING)
    cache = tmp_path / "cache"
    store = build_store(data, cache)
    before = _status(store)
    assert before["unpublished-1x"] == ("FabricNotPublished", "false")
    assert before["pcie-8x-tp8"] == ("NoScaleUpFabric", "true")
    del store

    # An accelerator gains a host link: every run on it is re-derived.
    _edit(
        data / "accelerators" / "unpublished-npu.yaml",
        "vendor: Example",
        "vendor: Example\ninterconnect_ids: [pcie-gen5]",
    )
    # An accelerator's list changes to a scale-up fabric (the run still states PCIe).
    _edit(
        data / "accelerators" / "rtx-pro-6000.yaml",
        "interconnect_ids: [pcie]",
        "interconnect_ids: [nvlink-4]",
    )
    store = build_store(data, cache)
    after = _status(store)
    assert after["unpublished-1x"] == ("NoScaleUpFabric", "false")
    assert after["unpublished-ib"] == ("NoScaleUpFabric", None)
    assert after["pcie-8x-tp8"] == ("ScaleUpFabricPresent", "true")
    assert select(
        store,
        f"""SELECT ?i WHERE {{ <{RUNS}unpublished-ib> bg:interconnect ?i }}
        ORDER BY ?i""",
    ) == [("interconnects/infiniband-ndr",), ("interconnects/pcie-gen5",)]
    del store

    # Runs only: one edited (TP=1 -> 2 on two accelerators; its TTFT pair dropped), one deleted.
    run = data / "benchmarks" / "h100-1x-tp1.yaml"
    _edit(run, "accelerator_count: 1", "accelerator_count: 2")
    _edit(run, "parallelism: {tensor: 1}", "parallelism: {tensor: 2}")
    text = run.read_text(encoding="utf-8")
    run.write_text(
        "\n".join(line for line in text.splitlines() if "metric: ttft" not in line) + "\n",
        encoding="utf-8",
    )
    (data / "benchmarks" / "h100-8x-unstated.yaml").unlink()
    store = build_store(data, cache)
    after = _status(store)
    assert after["h100-1x-tp1"] == ("ScaleUpFabricPresent", "true")
    assert "h100-8x-unstated" not in after
    assert select(store, f"""SELECT ?p WHERE {{ <{RUNS}h100-8x-unstated> ?p ?o }}""") == []
    comparisons = select(
        store,
        f"""SELECT ?c ?out WHERE {{ ?c bg:outperformsBaseline ?out .
        FILTER(STRSTARTS(STR(?c), "{RUNS}h100-1x-tp1#")) }} ORDER BY ?c""",
    )
    assert comparisons == [
        ("benchmarks/h100-1x-tp1#comparison-2-vs-1", "false"),
        ("benchmarks/h100-1x-tp1#comparison-3-vs-2", "true"),
    ]
    incremental = _quads(store)
    del store

    fresh = _quads(build_store(data, tmp_path / "fresh-cache"))
    assert sorted(map(str, incremental - fresh)) == []
    assert sorted(map(str, fresh - incremental)) == []


def test_a_host_link_is_no_evidence_where_the_fabric_is_not_published(tmp_path, copy_data):
    """A system or run stating fabric_published: false (an MLPerf "N/A") keeps its runs at
    FabricNotPublished even with PCIe listed; a scale-up fabric is still present."""
    data = copy_data(REASONING)
    _edit(data / "systems" / "arc-two-nodes.yaml", "nodes: 2", "nodes: 2\nfabric_published: false")
    _edit(
        data / "benchmarks" / "pcie-8x-tp8.yaml",
        "concurrency: 1",
        "concurrency: 1\nfabric_published: false",
    )
    _edit(data / "systems" / "h100-two-nodes.yaml", "nodes: 2", "nodes: 2\nfabric_published: false")
    status = _status(build_store(data, tmp_path / "cache"))
    assert status["arc-2node-tp4-dp2"] == ("FabricNotPublished", "true")
    assert status["pcie-8x-tp8"] == ("FabricNotPublished", "true")
    assert status["h100-2node-tp8-pp2"] == ("ScaleUpFabricPresent", "true")


def _bases(store: ox.Store, run: str) -> set[tuple]:
    """(accelerator, rule, status, evidence) of each basis of a run's fabric status."""
    return set(
        select(
            store,
            f"""SELECT ?part ?rule ?status ?evidence WHERE {{
            <{RUNS}{run}> bg:fabricStatusBasis ?b . ?b bg:basisAccelerator ?part ;
            bg:basisRule ?rule ; bg:basisStatus ?status .
            OPTIONAL {{ ?b bg:basisEvidence ?evidence }} }}""",
        )
    )


def test_a_parts_own_fabric_edited_changes_its_runs_statuses_and_matches_a_fresh_build(
    tmp_path, copy_data
):
    """A part's own `fabric` decides every run on it whatever the run states: made built in,
    then none, then taken out again, each run on it (one part alone, and one of two kinds)
    gets its new status and basis in the incremental build, as in a fresh one."""
    data = copy_data(REASONING)
    cache = tmp_path / "cache"
    store = build_store(data, cache)
    assert _status(store)["pcie-8x-tp8"][0] == "NoScaleUpFabric"
    del store
    part = data / "accelerators" / "rtx-pro-6000.yaml"
    plain = part.read_text(encoding="utf-8")
    sourced = plain + (
        "source: {url: https://example.org/rtx-pro-6000, kind: vendor, states: [fabric]}\n"
    )
    steps = [
        ("built-in", "ScaleUpFabricPresent", "PartFabricBuiltIn"),
        ("none", "NoScaleUpFabric", "PartHasNoPeerFabric"),
        (None, "NoScaleUpFabric", "StatedHostLinksOnly"),
    ]
    for i, (fabric, status, rule) in enumerate(steps):
        part.write_text(plain if fabric is None else f"{sourced}fabric: {fabric}\n", "utf-8")
        store = build_store(data, cache)
        assert _status(store)["pcie-8x-tp8"][0] == status, fabric
        assert ("accelerators/rtx-pro-6000", rule, status, "StatedFact") in _bases(
            store, "pcie-8x-tp8"
        ), fabric
        # the run of two kinds: its RTX PRO 6000's basis follows the part
        assert any(
            b[0] == "accelerators/rtx-pro-6000" and b[1] == rule
            for b in _bases(store, "mixed-2node")
        ), fabric
        incremental = _quads(store)
        del store
        fresh = _quads(build_store(data, tmp_path / f"fresh-{i}"))
        assert sorted(map(str, incremental - fresh)) == []
        assert sorted(map(str, fresh - incremental)) == []


# One edit to a record that runs reach through links: (file, old text, new text, a run whose
# derived facts it changes, what that run's fabric status becomes).
LINKED_EDITS = {
    "interconnect role": (
        "interconnects/pcie-gen5.yaml",
        "role: host-link",
        "role: scale-up-fabric",
        "arc-2node-tp4-dp2",
        "ScaleUpFabricPresent",
    ),
    "system fabric": (
        "systems/arc-two-nodes.yaml",
        "interconnect_ids: [infiniband-ndr]",
        "interconnect_ids: [infiniband-ndr, nvlink-4]",
        "arc-2node-tp4-dp2",
        "ScaleUpFabricPresent",
    ),
    "accelerator links": (
        "accelerators/arc-pro-b70.yaml",
        "interconnect_ids: [pcie-gen5]",
        "interconnect_ids: [nvlink-4]",
        "arc-2node-tp4-dp2",
        "ScaleUpFabricPresent",
    ),
    "system gains a part": (
        "systems/arc-two-nodes.yaml",
        "count: 4}]",
        "count: 4}, {id: nvidia-h100-sxm, count: 1}]",
        "arc-2node-tp4-dp2",
        "ScaleUpFabricPresent",
    ),
    "system loses a part": (
        "systems/h100-two-nodes.yaml",
        "accelerators: [{id: nvidia-h100-sxm, count: 8}]",
        "accelerators: []",
        None,
        None,
    ),
    "metric direction": (
        "metrics/ttft.yaml",
        "direction: lower-is-better",
        "direction: higher-is-better",
        None,
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(LINKED_EDITS))
def test_one_linked_edit_rederives_what_reaches_it_and_matches_a_fresh_build(
    tmp_path, copy_data, name
):
    """Only the runs and systems linking to an edited record are re-derived; the store must
    then hold what a fresh build of the edited folder holds."""
    file, old, new, run, status = LINKED_EDITS[name]
    data = copy_data(REASONING)
    store = build_store(data, tmp_path / "cache")
    before = _status(store)
    del store
    _edit(data / file, old, new)
    store = build_store(data, tmp_path / "cache")
    if run is not None:
        assert (before[run][0], _status(store)[run][0]) == ("NoScaleUpFabric", status)
    incremental = _quads(store)
    del store
    fresh = _quads(build_store(data, tmp_path / "fresh-cache"))
    assert sorted(map(str, incremental - fresh)) == []
    assert sorted(map(str, fresh - incremental)) == []


# Edits that change only what no other record reads of a record (its documentation): the
# rebuild derives again that record alone, not the runs and systems linking to it.
QUIET_EDITS = {
    "accelerator note": (
        "accelerators/arc-pro-b70.yaml",
        "vendor: Intel",
        "vendor: Intel\nnotes: edited\nsame_as: [https://example.org/b70]",
    ),
    "interconnect name": ("interconnects/pcie-gen5.yaml", "name: ", "name: Renamed "),
    "system source": (
        "systems/arc-two-nodes.yaml",
        "nodes: 2",
        "nodes: 2\nsource: [{publisher: Example, url: https://example.org/s}]",
    ),
    "metric history": (
        "metrics/ttft.yaml",
        "scope: per-user",
        "scope: per-user\nupdated: 2026-11-30\nhistory: [{date: 2026-11-30, note: edited}]",
    ),
}


@pytest.mark.parametrize("name", sorted(QUIET_EDITS))
def test_a_documentation_edit_derives_only_its_record_and_matches_a_fresh_build(
    tmp_path, copy_data, monkeypatch, name
):
    import benchgraph.pipeline.steps as build_module

    file, old, new = QUIET_EDITS[name]
    data = copy_data(REASONING)
    build_store(data, tmp_path / "cache")  # closed as soon as made
    asked = []
    real = build_module.derive
    monkeypatch.setattr(
        build_module,
        "derive",
        lambda store, runs=None, judged=None: asked.append(runs) or real(store, runs, judged),
    )
    _edit(data / file, old, new)
    store = build_store(data, tmp_path / "cache")
    kind, rid = file[:-5].split("/")
    derived = [list(runs) for runs in asked]  # IRI -> its file, where the links found it
    assert derived == [[RUNS.replace("benchmarks", kind) + rid] if kind == "systems" else []]
    incremental = _quads(store)
    del store
    assert incremental ^ _quads(build_store(data, tmp_path / "fresh-1")) == set()
    # an edit to what others do read of a record reaches its readers
    _edit(data / "accelerators" / "arc-pro-b70.yaml", "[pcie-gen5]", "[pcie-gen5, nvlink-4]")
    incremental = _quads(build_store(data, tmp_path / "cache"))
    assert f"{RUNS}arc-2node-tp4-dp2" in asked[-1]
    assert incremental ^ _quads(build_store(data, tmp_path / "fresh-2")) == set()


# A build refused, then mended: (the edits it refused, the edit that mends them). The
# refused build loads the valid records it converted but derives nothing, and keeps the
# store's older version of a record with a violation of its own; the mended build must
# derive what reaches either, even when the mending edit touches only documentation.
REFUSED = {
    "another record broken": (
        [
            ("accelerators/arc-pro-b70.yaml", "[pcie-gen5]", "[nvlink-4]"),
            ("benchmarks/cpu-only.yaml", "accelerator_count: 0", "accelerator_count: -1"),
        ],
        ("benchmarks/cpu-only.yaml", "accelerator_count: -1", "accelerator_count: 0"),
    ),
    "the same record's date": (
        [
            (
                "accelerators/arc-pro-b70.yaml",
                "interconnect_ids: [pcie-gen5]",
                "interconnect_ids: [nvlink-4]\nupdated: 2026-13-45",
            )
        ],
        ("accelerators/arc-pro-b70.yaml", "2026-13-45", "2026-11-30"),
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_a_refused_build_changed_is_derived_once_it_is_mended(tmp_path, copy_data, name):
    from benchgraph.errors import RecordsInvalid

    edits, mend = REFUSED[name]
    data = copy_data(REASONING)
    build_store(data, tmp_path / "cache")  # closed as soon as made
    for file, old, new in edits:
        _edit(data / file, old, new)
    with pytest.raises(RecordsInvalid):
        build_store(data, tmp_path / "cache")
    # the refusal committed its account of the store: the next build goes on from it
    assert not list((tmp_path / "cache").rglob(UNSETTLED))
    _edit(data / mend[0], *mend[1:])
    store = build_store(data, tmp_path / "cache")
    assert _status(store)["arc-2node-tp4-dp2"][0] == "ScaleUpFabricPresent"
    incremental = _quads(store)
    del store
    assert incremental ^ _quads(build_store(data, tmp_path / "fresh")) == set()


def test_two_files_of_one_id_in_one_load_leave_the_last_one_read(tmp_path, copy_data, monkeypatch):
    """The store loads batches as they come, one record each here: the second file of an id
    replaces the first in the store, so deleting the first leaves what a fresh build has."""
    import benchgraph.pipeline.workers as workers
    from benchgraph.errors import RecordsInvalid

    monkeypatch.setattr(workers, "BATCH", 1)
    data = copy_data(REASONING)
    twin = data / "benchmarks" / "zz" / "h100-1x-tp1.yaml"
    twin.parent.mkdir()
    twin.write_text(
        (data / "benchmarks/h100-1x-tp1.yaml")
        .read_text(encoding="utf-8")
        .replace("accelerator_count: 1", "accelerator_count: 2"),
        encoding="utf-8",
    )
    with pytest.raises(RecordsInvalid) as refused:
        build_store(data, tmp_path / "cache")
    # both files of the id are named, neither taken for the genuine one
    assert [p.code for p in refused.value.problems] == ["duplicate-id", "duplicate-id"]
    (data / "benchmarks/h100-1x-tp1.yaml").unlink()
    incremental = _quads(build_store(data, tmp_path / "cache"))
    assert incremental ^ _quads(build_store(data, tmp_path / "fresh")) == set()


def test_an_edit_reaching_runs_leaves_out_both_files_of_one_id(tmp_path, copy_data, monkeypatch):
    """An edit's derivation takes each run's file from the link that reached it: with
    --skip-invalid both files of one id are left out, and an edit to the part they link to
    derives neither of them, as a fresh build does not."""
    from benchgraph.pipeline.steps import build

    data = copy_data(REASONING)
    twin = data / "benchmarks" / "zz" / "h100-1x-tp1.yaml"
    twin.parent.mkdir()
    twin.write_text((data / "benchmarks/h100-1x-tp1.yaml").read_text(encoding="utf-8"))

    def built(cache: Path) -> ox.Store:
        monkeypatch.setenv("BENCHGRAPH_CACHE", str(cache))
        result = build(data, skip_invalid=True)
        left_out = sorted(p.rsplit("/", 2)[-2] for p in result.left_out)
        assert left_out == ["benchmarks", "zz"]  # both files of the id, nothing else
        return result.open()

    store = built(tmp_path / "cache")
    assert _status(store)["h100-8x-dp8"][0] == "ScaleUpFabricPresent"
    assert "h100-1x-tp1" not in _status(store)
    del store
    _edit(data / "accelerators/nvidia-h100-sxm.yaml", "[nvlink-4, nvswitch-4]", "[pcie-gen5]")
    store = built(tmp_path / "cache")
    assert _status(store)["h100-8x-dp8"][0] == "NoScaleUpFabric"
    assert "h100-1x-tp1" not in _status(store)
    incremental = _quads(store)
    del store
    assert incremental ^ _quads(built(tmp_path / "fresh")) == set()


def test_a_failure_while_the_store_loads_is_raised_as_itself(tmp_path, copy_data, monkeypatch):
    import benchgraph.pipeline.workers as workers

    real = workers.process

    def process(path, *args):
        if path.endswith("pcie-8x-tp8.yaml"):
            raise RuntimeError("conversion failed")
        return real(path, *args)

    monkeypatch.setattr(workers, "process", process)
    with pytest.raises(RuntimeError, match="conversion failed"):
        build_store(copy_data(REASONING), tmp_path / "cache")


# A build stopped after writing the store and before committing the cache's account of it
# (killed, or Ctrl-C in a long first build), then a further edit: the store must not keep
# what the stopped build loaded. name: the edits the stopped build was to bring in.
RUN_ON_TWO = [
    ("benchmarks/h100-1x-tp1.yaml", "accelerator_count: 1", "accelerator_count: 2"),
    ("benchmarks/h100-1x-tp1.yaml", "{tensor: 1}", "{tensor: 2}"),
]
INTERRUPTED = {
    "a first build": [],
    "an edit's build": RUN_ON_TWO,
}


@pytest.mark.parametrize("name", sorted(INTERRUPTED))
def test_a_build_stopped_after_loading_leaves_nothing_behind(
    tmp_path, copy_data, monkeypatch, name
):
    import benchgraph.pipeline.steps as build_module
    import benchgraph.store.load as load_module

    monkeypatch.setattr(load_module, "READ", 3)  # the store filled from the cache in loads
    edits = INTERRUPTED[name]
    data = copy_data(REASONING)
    if edits:
        build_store(data, tmp_path / "cache")  # the last build that ended; closed at once
    for file, old, new in edits:
        _edit(data / file, old, new)
    with monkeypatch.context() as patch:  # stopped once loaded, before deriving
        patch.setattr(build_module, "derive", _interrupt)
        with pytest.raises(KeyboardInterrupt):
            build_store(data, tmp_path / "cache")
    assert list((tmp_path / "cache").rglob(UNSETTLED))
    # what the stopped build loaded is edited again: the stopped build's edits undone (the
    # run's bg:crossesDevices true goes), another value
    for file, old, new in reversed(edits):
        _edit(data / file, new, old)
    _edit(data / "benchmarks" / "h100-1x-tp1.yaml", "title: 1x H100 SXM", "title: One H100 SXM")
    _edit(data / "benchmarks" / "pcie-8x-tp8.yaml", "value: 93.9", "value: 95.5")
    store = build_store(data, tmp_path / "cache")
    assert select(store, f"SELECT ?v WHERE {{ <{RUNS}pcie-8x-tp8> bg:value ?v }}") == [("95.5",)]
    incremental = _quads(store)
    del store
    assert incremental ^ _quads(build_store(data, tmp_path / "fresh")) == set()


def _interrupt(*args):
    raise KeyboardInterrupt


LINKS = "https://w3id.org/benchgraph/graph/links"


def test_a_changed_link_replaces_the_old_one_in_the_link_graph(tmp_path, copy_data):
    """Links of all records share one graph: an edit must take out exactly its record's old
    links and the store must equal a fresh build's."""
    data = copy_data(REASONING)
    part = data / "accelerators" / "arc-pro-b70.yaml"
    _edit(part, "vendor: Intel", "vendor: Intel\nsame_as: [https://example.org/old]")
    build_store(data, tmp_path / "cache")
    _edit(part, "[https://example.org/old]", "[https://example.org/new]")
    store = build_store(data, tmp_path / "cache")
    linked = (
        f"SELECT ?o WHERE {{ GRAPH <{LINKS}> {{ "
        f"<{RUNS.replace('benchmarks', 'accelerators')}arc-pro-b70> ?p ?o }} }}"
    )
    assert set(select(store, linked)) == {("https://example.org/new",)}
    incremental = _quads(store)
    del store
    assert incremental ^ _quads(build_store(data, tmp_path / "fresh")) == set()
    _edit(part, "\nsame_as: [https://example.org/new]", "")
    store = build_store(data, tmp_path / "cache")
    assert select(store, linked) == []


def test_runs_alike_but_for_their_id_are_each_derived_and_checked_as_alone(tmp_path, copy_data):
    """Runs that differ only in their id are derived and checked once for all (rules.OWN,
    validation.incremental): after an edit reaching them, each has its own status, basis and
    quads as a fresh build gives them, and each its own problem, at its own file and line."""
    data = copy_data(REASONING)
    run = data / "benchmarks" / "pcie-8x-tp8.yaml"
    alike = ["pcie-8x-tp8", *(f"pcie-8x-tp8-copy-{n}" for n in range(3))]
    for rid in alike[1:]:
        text = run.read_text(encoding="utf-8").replace("id: pcie-8x-tp8", f"id: {rid}", 1)
        (run.parent / f"{rid}.yaml").write_text(text, encoding="utf-8")
    cache = tmp_path / "cache"
    store = build_store(data, cache)
    assert {_status(store)[rid][0] for rid in alike} == {"NoScaleUpFabric"}
    del store
    part = data / "accelerators" / "rtx-pro-6000.yaml"
    part.write_text(
        part.read_text(encoding="utf-8")
        + "source: {url: https://example.org/rtx-pro-6000, kind: vendor, states: [fabric]}\n"
        + "fabric: built-in\n",
        encoding="utf-8",
    )
    store = build_store(data, cache)
    assert {_status(store)[rid][0] for rid in alike} == {"ScaleUpFabricPresent"}
    for rid in alike:
        assert ("accelerators/rtx-pro-6000", "PartFabricBuiltIn") in {
            b[:2] for b in _bases(store, rid)
        }
    incremental = _quads(store)
    del store
    assert incremental == _quads(build_store(data, tmp_path / "fresh"))
    # the metric they read goes to another unit: every copy is told, in its own file
    _edit(data / "metrics" / "tok-s-per-user.yaml", "unit: tok/s", "unit: ms")
    with pytest.raises(RecordsInvalid) as refused:
        build_store(data, cache)
    told = {
        (Path(p.file).stem, p.line, p.field)
        for p in refused.value.problems
        if p.code == "bg:UnitOfMetricShape" or "does not fit metric" in p.message
    }
    lines = run.read_text(encoding="utf-8").splitlines()
    unit_line = lines.index("unit: tok/s") + 1
    assert {(rid, unit_line, "unit") for rid in alike} <= told
