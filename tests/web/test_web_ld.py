"""Linked Data: record pages for people, RDF for programs, the ontology, 404s, escaping."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from rdflib import Dataset, Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS

from web.web_support import GRAPH, ID

RUN = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
RTX = "accelerators/nvidia-rtx-pro-6000-blackwell"
BG = "https://w3id.org/benchgraph/ontology#"
HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


class Rows(HTMLParser):
    """The text of each table row, with whether the row is marked derived."""

    def __init__(self):
        super().__init__()
        self.rows: list[tuple[str, bool]] = []
        self.links: list[str] = []
        self._row: list[str] | None = None
        self._derived = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self._row, self._derived = [], "derived" in (attrs.get("class") or "")
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None:
            self.rows.append((" ".join(" ".join(self._row).split()), self._derived))
            self._row = None

    def handle_data(self, data):
        if self._row is not None:
            self._row.append(data)


def page(client, path: str) -> tuple[str, Rows]:
    response = client.get(path, headers=HTML)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "text/html"
    text = response.get_data(as_text=True)
    parser = Rows()
    parser.feed(text)
    return text, parser


def test_record_page_shows_facts_links_and_provenance(client):
    text, parsed = page(client, f"/id/{RTX}")
    assert "<h1>NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB</h1>" in text
    rows = [r for r, _ in parsed.rows]
    assert "memory (GB) 96" in rows  # predicates show their ontology label; datatypes on hover
    # an outgoing link, followed to this server's page of the interconnect
    assert "/id/interconnects/pcie" in parsed.links
    # an incoming link: the run that names this accelerator
    assert f"/id/{RUN}" in parsed.links
    assert "Linked from" in text
    # provenance: the record graph's own triples (its source file)
    assert (
        "record file tests/web/data/records/accelerators/nvidia-rtx-pro-6000-blackwell.yaml" in rows
    )


def test_derived_facts_are_marked(client):
    _text, parsed = page(client, f"/id/{RUN}")
    derived = [r for r, d in parsed.rows if d]
    stated = [r for r, d in parsed.rows if not d]
    assert any(r.startswith("fabric status") for r in derived), derived
    assert not any(r.startswith("fabric status") for r in stated)
    assert any(r.startswith("value 93.9") for r in stated), stated


def test_nodes_below_a_record_are_on_its_page(client):
    text, _ = page(client, f"/id/{RUN}")
    assert 'id="measurement-1"' in text


def test_every_literal_is_escaped(client):
    text, parsed = page(client, "/id/engines/markup-notes")
    assert "<script>window.__bg_injected" not in text
    assert "<img src=x" not in text
    assert "&lt;script&gt;window.__bg_injected = true&lt;/script&gt;" in text
    assert "<h1>&lt;b&gt;Markup&lt;/b&gt; &amp; &#34;quotes&#34; engine</h1>" in text
    assert any("Ampersands & angle brackets < >" in r for r, _ in parsed.rows)


@pytest.mark.parametrize(
    ("accept", "parser"),
    [
        ("text/turtle", "turtle"),
        ("application/n-triples", "nt"),
        ("application/rdf+xml", "xml"),
        ("application/ld+json", "json-ld"),
        ("*/*", "turtle"),
        (None, "turtle"),
    ],
)
def test_record_as_rdf_by_accept(client, accept, parser):
    response = client.get(f"/id/{RTX}", headers={"Accept": accept} if accept else {})
    assert response.status_code == 200
    assert "Accept" in response.vary
    g = Dataset()  # JSON-LD keeps the graph names, as TriG does
    g.parse(data=response.get_data(), format=parser)
    assert any(g.quads((URIRef(ID + RTX), RDFS.label, None, None)))


def test_record_as_trig_keeps_stated_and_derived_apart(client):
    response = client.get(f"/id/{RUN}", headers={"Accept": "application/trig"})
    d = Dataset()
    d.parse(data=response.get_data(), format="trig")
    graphs = {str(g.identifier) for g in d.graphs() if len(g)}
    assert f"{GRAPH}{RUN}" in graphs and f"{GRAPH}inferred" in graphs
    inferred = d.graph(URIRef(f"{GRAPH}inferred"))
    assert (URIRef(ID + RUN), URIRef(BG + "fabricStatus"), None) in inferred


def test_format_parameter_overrides_accept(client):
    response = client.get(f"/id/{RTX}?format=ntriples", headers=HTML)
    assert response.mimetype == "application/n-triples"


@pytest.mark.parametrize(
    "path", ["/id/accelerators/no-such-thing", "/id/gadgets/x", "/id/benchmarks/invalid-confidence"]
)
def test_unknown_ids_are_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_json()["status"] == 404
    assert client.get(path, headers=HTML).mimetype == "text/html"


def test_graph_iri_leads_to_the_record(client):
    response = client.get(f"/graph/{RTX}")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/id/{RTX}")


def test_record_page_revalidates(client):
    first = client.get(f"/id/{RTX}", headers=HTML)
    again = client.get(f"/id/{RTX}", headers=HTML | {"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_ontology_serves_the_ontology(client):
    response = client.get("/ontology", headers={"Accept": "text/turtle"})
    g = Graph().parse(data=response.get_data(), format="turtle")
    assert (URIRef("https://w3id.org/benchgraph/ontology"), RDF.type, OWL.Ontology) in g
    assert (URIRef(BG + "BenchmarkRun"), RDF.type, OWL.Class) in g
    text, parsed = page(client, "/ontology")
    assert 'id="BenchmarkRun"' in text
    # a record page's predicates link to their term on the ontology page
    _text, record = page(client, f"/id/{RTX}")
    assert "/ontology#memoryGB" in record.links


def test_a_runs_fabric_status_shows_what_it_rests_on(client):
    """The run's page has the basis of its derived fabric status: per kind of accelerator,
    the rule applied and the record whose fact decided, linked."""
    text, parsed = page(client, f"/id/{RUN}")
    basis = "fabric-basis-nvidia-rtx-pro-6000-blackwell"
    assert f'id="{basis}"' in text
    derived = [r for r, d in parsed.rows if d]
    assert any(r.startswith("rule only host links are stated") for r in derived), derived
    assert any(r.startswith("rests on") for r in derived), derived
    assert f"/id/{RTX}" in parsed.links


def test_a_runs_fabric_status_shows_how_strong_its_basis_is(client):
    """The run's page gives, on the basis of its status, the strongest kind of source behind
    the fact that decided it and whether that fact is stated or derived, as labels."""
    _text, parsed = page(client, f"/id/{RUN}")
    derived = [r for r, d in parsed.rows if d]
    assert any(r.startswith("strongest kind of source result set source") for r in derived), derived
    assert any(r.startswith("stated or derived stated") for r in derived), derived


def test_ontology_page_shows_each_term_used_in_the_data(client):
    """Every class and property with an example drawn from the data, linked to its page."""
    text, _parsed = page(client, "/ontology")
    term = text[text.index('id="memoryGB"') :]
    term = term[: term.index('<div class="term"') if '<div class="term"' in term else None]
    example = term[term.index('class="example"') :]
    assert "In the data:" in example and "/id/accelerators/" in example
    run_class = text[text.index('id="BenchmarkRun"') :]
    run_class = run_class[: run_class.index("</div>")]
    assert "In the data:" in run_class and "/id/benchmarks/" in run_class
