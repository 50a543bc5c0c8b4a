"""ontology/alignments/hardware.ttl: loaded with --with only, never by the build's reasoner;
it maps our terms to Wikidata, Gaia-X, schema.org and Exa-AToW so that queries can join them."""

from __future__ import annotations

import json
from pathlib import Path

from rdflib import RDFS, Graph, URIRef

from benchgraph.cli.main import main
from benchgraph.reasoning.ontology import ontology_graph
from paths import ROOT, TEST_DATA

ALIGNMENTS = ROOT / "ontology" / "alignments" / "hardware.ttl"
GRAPH = "https://w3id.org/benchgraph/graph/alignments"
WITH = f"{ALIGNMENTS}={GRAPH}"


def _column(capsys, data: Path, text: str, *more: str) -> list[str]:
    capsys.readouterr()
    assert main(["query", "--data", str(data), "--format", "json", text, *more]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]["bindings"]
    return sorted(next(iter(r.values()))["value"].rsplit("/", 1)[1] for r in rows)


def test_the_reasoner_never_sees_the_alignments():
    made_by = URIRef("https://w3id.org/benchgraph/ontology#madeBy")
    p176 = URIRef("http://www.wikidata.org/prop/direct/P176")
    assert ALIGNMENTS.is_file()
    assert (made_by, RDFS.subPropertyOf, p176) in Graph().parse(ALIGNMENTS)
    assert (made_by, RDFS.subPropertyOf, p176) not in ontology_graph()


def test_gaia_x_none_is_our_known_none_only(copy_data, capsys):
    """Gaia-X's gpuInterconnection "none" is its default: only runs known to have no
    scale-up fabric map to it, never those whose fabric is not published."""
    data = copy_data(TEST_DATA / "fabric")
    gaia_x_none = f"""SELECT ?run WHERE {{
      GRAPH <{GRAPH}> {{ ?m <https://w3id.org/benchgraph/alignments/hardware#ourTerm> ?status ;
        <https://w3id.org/benchgraph/alignments/hardware#theirProperty>
          <https://w3id.org/gaia-x/development#gpuInterconnection> ;
        <https://w3id.org/benchgraph/alignments/hardware#theirValue> "none" }}
      ?run bg:fabricStatus ?status }}"""
    known_none = "SELECT ?run WHERE { ?run bg:fabricStatus bg:NoScaleUpFabric }"
    runs = _column(capsys, data, gaia_x_none, "--with", WITH)
    assert runs and runs == _column(capsys, data, known_none)
    assert not set(runs) & set(
        _column(capsys, data, "SELECT ?run WHERE { ?run bg:fabricStatus bg:FabricNotPublished }")
    )
    assert _column(capsys, data, gaia_x_none) == []  # without the alignments, no answer


def test_asked_to_reason_with_it_a_query_in_wikidata_terms_runs_on_ours(copy_data, capsys):
    """Parts whose manufacturer (wdt:P176) is Intel (wd:Q248), asked in Wikidata's terms."""
    data = copy_data(TEST_DATA / "wikidata-fixture" / "records")
    made_by_intel = """SELECT ?part WHERE { ?part <http://www.wikidata.org/prop/direct/P176>
        ?maker . ?maker skos:exactMatch <http://www.wikidata.org/entity/Q248> }"""
    assert _column(capsys, data, made_by_intel, "--with", WITH) == []
    assert _column(capsys, data, made_by_intel, "--with", WITH, "--reason-with") == [
        "intel-arc-pro-b60"
    ]
