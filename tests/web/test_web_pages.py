"""Pages for people: IRIs that can be pasted back, record pages that lead with a summary,
browsing and search without SPARQL, saved questions with parameters."""

from __future__ import annotations

import json

from web.web_support import ID

RUN = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
RTX = "accelerators/nvidia-rtx-pro-6000-blackwell"
HTML = {"Accept": "text/html"}
JSON = {"Accept": "application/sparql-results+json"}


def select(client, query: str) -> list[dict]:
    response = client.post("/sparql", data={"query": query}, headers=JSON)
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.data)["results"]["bindings"]


# --- IRIs that can be pasted --------------------------------------------------------------
def test_the_endpoint_predeclares_a_prefix_per_kind(client):
    rows = select(client, "SELECT ?label WHERE { VALUES ?a { acc:nvidia-h100-sxm "
                          "acc:nvidia-rtx-pro-6000-blackwell } ?a rdfs:label ?label }")
    assert sorted(r["label"]["value"] for r in rows) == [
        "NVIDIA H100 SXM 80 GB", "NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB"]


def test_a_record_page_prints_its_iri_as_a_query_takes_it(client):
    text = client.get(f"/id/{RUN}", headers=HTML).get_data(as_text=True)
    assert "run:ev-sglang-dsv41-production-decode-tok-s-per-user" in text
    # a link to another record copies as its prefixed name, a measurement's as its whole IRI
    assert 'data-paste="acc:nvidia-rtx-pro-6000-blackwell"' in text
    assert f'data-paste="&lt;{ID}{RUN}#measurement-1&gt;"' in text
