"""The dataset's links as an SSSOM mapping set: `export --format sssom` and the server's
/dumps/benchgraph.sssom.tsv, with what each record says of its link."""

from __future__ import annotations

import shutil

import pytest

from benchgraph.cli.main import main
from benchgraph.links import sssom
from benchgraph.pipeline.steps import build
from paths import TEST_DATA

MAPPED = """same_as:
- iri: http://www.wikidata.org/entity/Q1000001
  match: close
  justification: semapv:LexicalMatching
  confidence: 0.85
  curator: A. Curator
  date: 2026-11-30
"""


@pytest.fixture
def linked(copy_data):
    data = copy_data(TEST_DATA / "fabric")
    with open(data / "accelerators" / "sxm-part.yaml", "a") as f:
        f.write(MAPPED)
    with open(data / "accelerators" / "pcie-card.yaml", "a") as f:
        f.write("same_as: ['https://example.org/hardware/pcie-gpu']\n")
    return data


def _rows(ms: sssom.MappingSet) -> dict[str, dict]:
    return {r["subject_id"]: {k: v for k, v in r.items() if v} for r in ms.rows}


EXPECTED = {
    "bgid:accelerators/sxm-part": {
        "subject_id": "bgid:accelerators/sxm-part",
        "subject_label": "An SXM part with NVLink",
        "predicate_id": "skos:closeMatch",
        "object_id": "wd:Q1000001",
        "mapping_justification": "semapv:LexicalMatching",
        "confidence": "0.85",
        "reviewer_label": "A. Curator",
        "mapping_date": "2026-11-30",
    },
    "bgid:accelerators/pcie-card": {
        "subject_id": "bgid:accelerators/pcie-card",
        "subject_label": "A PCIe-only card",
        "predicate_id": "skos:exactMatch",
        "object_id": "https://example.org/hardware/pcie-gpu",
        "mapping_justification": "semapv:UnspecifiedMatching",
    },
}


def test_export_sssom_gives_every_link_with_its_curation(linked, tmp_path):
    out = tmp_path / "links.sssom.tsv"
    assert main(["export", "--data", str(linked), "--format", "sssom", "--out", str(out)]) == 0
    ms = sssom.read(out)
    assert ms.header["mapping_set_id"] == sssom.MAPPING_SET_ID
    assert ms.header["license"] == sssom.LICENSE
    assert ms.header["curie_map"]["wd"] == "http://www.wikidata.org/entity/"
    assert _rows(ms) == EXPECTED
    # the same links, the same bytes
    again = tmp_path / "again.sssom.tsv"
    assert main(["export", "--data", str(linked), "--format", "sssom", "--out", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()


def test_the_server_gives_the_links_as_sssom(linked, monkeypatch, tmp_path):
    from benchgraph.serving.prepare import prepare
    from benchgraph.web import create_app

    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    served = prepare(build(linked), [])
    app = create_app(served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    try:
        response = app.test_client().get("/dumps/benchgraph.sssom.tsv")
        assert response.status_code == 200
        assert response.mimetype == "text/tab-separated-values"
        path = tmp_path / "served.sssom.tsv"
        path.write_bytes(response.data)
        assert _rows(sssom.read(path)) == EXPECTED
        # the record's page shows its link, which lives in the link graph
        page = app.test_client().get("/id/accelerators/sxm-part", headers={"Accept": "text/html"})
        assert page.status_code == 200
        assert "Q1000001" in page.get_data(as_text=True)
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()


def test_a_broad_match_is_broadmatch_without_sameas(copy_data, tmp_path):
    """Our generation, their family (PCIe Gen4 and Wikidata's PCI Express as a whole): the
    record's `match: broad` is skos:broadMatch, exported as such, and no schema:sameAs says
    the two are the same thing."""
    data = copy_data(TEST_DATA / "fabric")
    with open(data / "accelerators" / "sxm-part.yaml", "a") as f:
        f.write(MAPPED.replace("match: close", "match: broad"))
    store = build(data).open()
    part = "<https://w3id.org/benchgraph/id/accelerators/sxm-part>"
    wd = "<http://www.wikidata.org/entity/Q1000001>"
    ask = "ASK {{ GRAPH ?g {{ {s} <{p}> {o} }} }}"
    assert store.query(ask.format(s=part, p="http://www.w3.org/2004/02/skos/core#broadMatch", o=wd))
    for p in ("https://schema.org/sameAs", "http://www.w3.org/2004/02/skos/core#closeMatch"):
        assert not store.query(ask.format(s=part, p=p, o=wd)), p
    # the same link as a close match does say sameAs: the check above can fail
    close = tmp_path / "close"
    shutil.copytree(TEST_DATA / "fabric", close)
    with open(close / "accelerators" / "sxm-part.yaml", "a") as f:
        f.write(MAPPED)
    assert build(close).open().query(ask.format(s=part, p="https://schema.org/sameAs", o=wd))
    out = tmp_path / "links.sssom.tsv"
    assert main(["export", "--data", str(data), "--format", "sssom", "--out", str(out)]) == 0
    row = _rows(sssom.read(out))["bgid:accelerators/sxm-part"]
    assert row["predicate_id"] == "skos:broadMatch" and row["object_id"] == "wd:Q1000001"
