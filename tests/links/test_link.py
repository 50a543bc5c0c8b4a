"""`benchgraph link` against a real Oxigraph server on 127.0.0.1 loaded with a Wikidata-shaped
FIXTURE (tests/data/wikidata-fixture/README.md): the right entities are proposed, no
near-namesake wins, nothing is linked until a curator accepts, and what is accepted is in the
link graph, the linkset and the SSSOM export."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from benchgraph.cli.main import main
from benchgraph.links import sssom
from benchgraph.links.accept import REJECTED
from benchgraph.pipeline.steps import build
from paths import TEST_DATA

FIXTURE = TEST_DATA / "wikidata-fixture"
OXIGRAPH = Path(sys.executable).with_name("oxigraph")
WD = "http://www.wikidata.org/entity/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    """The fixture in an Oxigraph server of its own, read-only, on a free local port."""
    if not OXIGRAPH.is_file():
        pytest.skip(f"{OXIGRAPH}: the oxigraph server (pip package oxigraph) is not installed")
    store = tmp_path_factory.mktemp("wikidata-fixture-store")
    subprocess.run(
        [str(OXIGRAPH), "load", "--location", str(store), "--file", str(FIXTURE / "wikidata.ttl")],
        check=True,
        capture_output=True,
        timeout=60,
    )
    port = _free_port()
    proc = subprocess.Popen(
        [str(OXIGRAPH), "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{url}?query=ASK%7B%7D", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"oxigraph ended: {proc.stderr.read().decode()[:500]}")
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    target = tmp_path / "data"
    shutil.copytree(FIXTURE / "records", target)
    return target


def _propose(records: Path, endpoint: str, out: Path, *more: str) -> dict[str, dict]:
    assert (
        main(["link", "--data", str(records), "--endpoint", endpoint, "--out", str(out), *more])
        == 0
    )
    return {r["subject_id"]: r for r in sssom.read(out).rows}


def test_link_proposes_the_right_entities_and_no_near_namesake(records, endpoint, tmp_path):
    before = {p: p.read_bytes() for p in records.rglob("*.yaml")}
    out = tmp_path / "links.sssom.tsv"
    rows = _propose(records, endpoint, out)
    got = {s: (r["predicate_id"], r["object_id"]) for s, r in rows.items()}
    assert got == {
        "bgid:vendors/nvidia": ("skos:exactMatch", "wd:Q182477"),
        "bgid:accelerators/nvidia-l4": ("skos:exactMatch", "wd:Q9000001"),  # not L40S, not a road
        "bgid:accelerators/nvidia-l40s": ("skos:exactMatch", "wd:Q9000002"),  # not L4
        "bgid:accelerators/nvidia-h100-sxm": ("skos:exactMatch", "wd:Q9000003"),  # not PCIe
        "bgid:accelerators/nvidia-h100-pcie": ("skos:exactMatch", "wd:Q9000004"),
        "bgid:interconnects/nvlink-4": ("skos:closeMatch", "wd:Q9000020"),  # their technology
        "bgid:engines/vllm": ("skos:exactMatch", "wd:Q9000030"),
        "bgid:models/llama-2-70b": ("skos:exactMatch", "wd:Q9000040"),
    }  # nvidia-t4: its entity is absent; intel-arc-pro-b60: Arc A770 is below 0.8
    sxm = rows["bgid:accelerators/nvidia-h100-sxm"]
    assert (
        float(sxm["confidence"]) == 1.0 and sxm["mapping_justification"] == "semapv:LexicalMatching"
    )
    assert "wd:Q9000005" in sxm["comment"] and "wd:Q9000004" in sxm["comment"]  # runners-up
    header = sssom.read(out).header
    assert {"mapping_set_id", "license", "curie_map"} <= set(header)
    # proposing links nothing
    assert {p: p.read_bytes() for p in records.rglob("*.yaml")} == before
    # a lower threshold writes the Arc proposal, whose only candidate is a near-namesake
    low = _propose(records, endpoint, tmp_path / "low.sssom.tsv", "--min-confidence", "0.1")
    assert float(low["bgid:accelerators/intel-arc-pro-b60"]["confidence"]) < 0.8
    assert "bgid:accelerators/nvidia-t4" not in low


def test_accepted_rows_become_links_in_the_records_graph_and_export(records, endpoint, tmp_path):
    out = tmp_path / "links.sssom.tsv"
    _propose(records, endpoint, out)
    # the curator deletes the NVLink row (a generation is not the technology) and keeps the rest
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(line for line in lines if "nvlink-4" not in line))
    h100 = records / "accelerators" / "nvidia-h100-sxm.yaml"
    original = h100.read_text()
    assert (
        main(["link", "--data", str(records), "--accept", str(out), "--curator", "A. Curator"]) == 0
    )
    text = h100.read_text()
    assert text.startswith(original.split("vendor:")[0])  # comments and layout kept
    assert "notes: A note\n  that wraps.\n" in text
    assert "- iri: http://www.wikidata.org/entity/Q9000003\n  match: exact\n" in text
    assert "  curator: A. Curator\n" in text
    pcie = (records / "accelerators" / "nvidia-h100-pcie.yaml").read_text()
    assert "same_as:\n- iri: http://www.wikidata.org/entity/Q9000004\n" in pcie  # was []
    model = (records / "models" / "llama-2-70b.yaml").read_text()
    assert model.count("- ") == 2 and "huggingface.co" in model  # added to the list
    assert "Q9000020" not in (records / "interconnects" / "nvlink-4.yaml").read_text()
    # idempotent: the same file again changes nothing
    after = {p: p.read_bytes() for p in records.rglob("*.yaml")}
    assert (
        main(["link", "--data", str(records), "--accept", str(out), "--curator", "A. Curator"]) == 0
    )
    assert {p: p.read_bytes() for p in records.rglob("*.yaml")} == after

    # the deleted row is remembered and not proposed again; the linked are not asked again
    rejected = sssom.read(records / REJECTED).rows
    assert [(r["subject_id"], r["predicate_modifier"], r["object_id"]) for r in rejected] == [
        ("bgid:interconnects/nvlink-4", "Not", "wd:Q9000020")
    ]
    again = _propose(records, endpoint, tmp_path / "again.sssom.tsv")
    assert again == {}

    # in the link graph, the SSSOM export and (where the description is built) the linkset
    store = build(records).open()
    linked = {
        (r["s"].value.rsplit("/", 1)[1], r["o"].value.removeprefix(WD))
        for r in store.query(
            "SELECT ?s ?o WHERE { GRAPH <https://w3id.org/benchgraph/graph/links> { ?s "
            "<http://www.w3.org/2004/02/skos/core#exactMatch> ?o } }"
        )
    }
    assert ("nvidia-h100-sxm", "Q9000003") in linked and ("nvidia-l4", "Q9000001") in linked
    exported = tmp_path / "export.sssom.tsv"
    assert (
        main(["export", "--data", str(records), "--format", "sssom", "--out", str(exported)]) == 0
    )
    rows = {(r["subject_id"], r["object_id"]): r for r in sssom.read(exported).rows}
    sxm = rows[("bgid:accelerators/nvidia-h100-sxm", "wd:Q9000003")]
    assert (sxm["reviewer_label"], float(sxm["confidence"]), sxm["mapping_justification"]) == (
        "A. Curator",
        1.0,
        "semapv:LexicalMatching",
    )
    from benchgraph.serving.description import describe

    void = describe(store, "test")
    linksets = {q.subject for q in void if q.object.value == "http://rdfs.org/ns/void#Linkset"}
    said = {
        (q.subject, q.predicate.value.rsplit("#", 1)[1]): q.object.value
        for q in void
        if q.subject in linksets
    }
    wikidata = [
        s
        for s in linksets
        if said.get((s, "objectsTarget")) == "http://www.wikidata.org/"
        and said.get((s, "linkPredicate")).endswith("core#exactMatch")
    ]
    assert len(wikidata) == 1 and int(said[(wikidata[0], "triples")]) == len(
        [o for _s, o in linked if o.startswith("Q")]
    )


def test_accept_names_every_wrong_row_and_writes_nothing(records, tmp_path):
    bad = tmp_path / "bad.sssom.tsv"
    bad.write_text(
        "# curie_map:\n#   wd: http://www.wikidata.org/entity/\n"
        "#   bgid: https://w3id.org/benchgraph/id/\n"
        "subject_id\tpredicate_id\tobject_id\tmapping_justification\n"
        "bgid:accelerators/nvidia-l4\tskos:exactMatch\twd:Q9000001\tsemapv:LexicalMatching\n"
        "bgid:accelerators/no-such-part\tskos:exactMatch\twd:Q1\tsemapv:LexicalMatching\n"
        "bgid:accelerators/nvidia-l4\tskos:exactMatch\twd:Q9000001\tsemapv:LexicalMatching\n"
    )
    before = {p: p.read_bytes() for p in records.rglob("*.yaml")}
    with pytest.raises(Exception) as caught:
        from benchgraph.links.accept import accept

        accept(records, bad, "A. Curator")
    message = str(caught.value)
    assert f"{bad}:6: subject_id: 'bgid:accelerators/no-such-part' names no record" in message
    assert f"{bad}:7:" in message and "duplicate of the row at line 5" in message
    assert {p: p.read_bytes() for p in records.rglob("*.yaml")} == before
    assert main(["link", "--data", str(records), "--accept", str(bad), "--curator", "x"]) == 2


def test_accept_shows_a_rows_outside_text_escaped_and_refuses_an_iri_with_controls(
    records, tmp_path, capsys
):
    """A proposal file carries the endpoint's IRIs: one holding terminal escapes is no IRI,
    and it reaches the terminal escaped."""
    bad = tmp_path / "bad.sssom.tsv"
    row = (
        "bgid:accelerators/nvidia-l4\tskos:exactMatch\thttp://www.wikidata.org/entity/"
        "Q1\x1b[2J\tsemapv:LexicalMatching\n"
    )
    bad.write_text("subject_id\tpredicate_id\tobject_id\tmapping_justification\n" + row * 2)
    before = {p: p.read_bytes() for p in records.rglob("*.yaml")}
    assert main(["link", "--data", str(records), "--accept", str(bad), "--curator", "x"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert f"{bad}:2: object_id: 'http://www.wikidata.org/entity/Q1\\x1b[2J' is not an IRI" in err
    assert (
        f"{bad}:3: bgid:accelerators/nvidia-l4 -> http://www.wikidata.org/entity/Q1\\x1b[2J:"
        " a duplicate of the row at line 2"
    ) in err
    assert {p: p.read_bytes() for p in records.rglob("*.yaml")} == before


@pytest.mark.parametrize(
    "ours, theirs, expected",
    [
        ("NVIDIA L4 24 GB", "NVIDIA L40S", (0.0, "skos:exactMatch")),
        ("NVIDIA H100 SXM 80 GB", "NVIDIA H100 SXM", (1.0, "skos:exactMatch")),
        ("NVIDIA H100 SXM 80 GB", "NVIDIA H100", (0.85, "skos:closeMatch")),  # their family
        ("NVLink 4", "NVLink", (0.85, "skos:closeMatch")),  # their technology, our generation
        ("NVIDIA NVLink-C2C", "NVLink", (0.35, "skos:exactMatch")),  # another link, not a variant
        ("InfiniBand (generation not stated)", "InfiniBand", (1.0, "skos:exactMatch")),
    ],
)
def test_scores_tell_near_namesakes_from_variants(ours, theirs, expected):
    from benchgraph.links.reconcile import score, tokens

    assert score(tokens(ours, ["nvidia"]), tokens(theirs, ["nvidia"])) == expected


LAYOUTS = {
    "no list": (
        "id: x\nname: X  # named so\nnotes: n\n",
        "id: x\nname: X  # named so\nsame_as:\n- iri: https://e.org/1\nnotes: n\n",
    ),
    "flow list": (
        "id: x\nsame_as: ['https://e.org/0']\nnotes: n\n",
        "id: x\nsame_as:\n- https://e.org/0\n- iri: https://e.org/1\nnotes: n\n",
    ),
    "indented list": (
        "id: x\nsame_as:\n  # kept\n  - https://e.org/0\n\nnotes: n\n",
        "id: x\nsame_as:\n  # kept\n  - https://e.org/0\n  - iri: https://e.org/1\n\nnotes: n\n",
    ),
    "last field": (
        "id: x\nsame_as:\n- https://e.org/0",
        "id: x\nsame_as:\n- https://e.org/0\n- iri: https://e.org/1\n",
    ),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_an_accepted_link_adds_lines_and_changes_no_other(name, tmp_path):
    from benchgraph.links.accept import _with_links

    before, after = LAYOUTS[name]
    assert _with_links(before, [["iri: https://e.org/1"]], tmp_path / "x.yaml") == after
