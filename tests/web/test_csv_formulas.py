"""A CSV download never hands a spreadsheet a formula: a record's text that starts like one
(=HYPERLINK(...), +, -, @) is written with a leading apostrophe, as OWASP advises; numbers
stay numbers. The listing's CSV, `benchgraph query --format csv` (with and without --short)
and the chart's CSV (bg-chartdata.js, checked in the browser tests' page) share the rule."""

from __future__ import annotations

import csv
import shutil

import pyoxigraph as ox
import pytest

from benchgraph.pipeline.steps import build
from benchgraph.query.cells import safe_csv, spreadsheet_safe
from benchgraph.query.render import render
from benchgraph.serving.prepare import prepare
from benchgraph.web import create_app
from web.web_support import RECORDS

HOSTILE = '=HYPERLINK("http://attacker.example/","click")'


@pytest.mark.parametrize(
    ("text", "written"),
    [
        (HOSTILE, "'" + HOSTILE),
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTAB", "'\tTAB"),
        ("-5", "-5"),
        ("+1e3", "+1e3"),
        ("NVIDIA H100", "NVIDIA H100"),
        ("a=b", "a=b"),
    ],
)
def test_a_formula_start_is_written_as_text(text, written):
    assert spreadsheet_safe(text) == written


def _results(label: str):
    store = ox.Store()
    store.add(
        ox.Quad(
            ox.NamedNode("https://w3id.org/benchgraph/id/accelerators/x"),
            ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
            ox.Literal(label),
        )
    )
    store.add(
        ox.Quad(
            ox.NamedNode("https://w3id.org/benchgraph/id/accelerators/x"),
            ox.NamedNode("https://w3id.org/benchgraph/ontology#value"),
            ox.Literal("-5", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
        )
    )
    return store


@pytest.mark.parametrize("short", [False, True])
def test_query_csv_neutralises_a_label_and_keeps_numbers(short):
    store = _results(HOSTILE)
    q = (
        "SELECT ?s ?label ?v WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label ;"
        " <https://w3id.org/benchgraph/ontology#value> ?v }"
    )
    text = render(store.query(q), "csv", short_names=short)
    rows = list(csv.DictReader(text.splitlines()))
    assert rows[0]["label"] == "'" + HOSTILE
    assert rows[0]["v"] == "-5"
    iri = "https://w3id.org/benchgraph/id/accelerators/x"
    assert rows[0]["s"] == ("acc:x" if short else iri)


def test_the_listing_csv_neutralises_a_hostile_name(tmp_path):
    records = tmp_path / "records"
    shutil.copytree(RECORDS, records)
    part = records / "accelerators" / "nvidia-h100-sxm.yaml"
    text = part.read_text(encoding="utf-8")
    part.write_text(
        text.replace("name: NVIDIA H100 SXM 80 GB", f"name: '{HOSTILE}'", 1), encoding="utf-8"
    )
    prepared = prepare(build(records, skip_invalid=True), [])
    app = create_app(prepared.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    try:
        body = app.test_client().get("/id/accelerators/?format=csv").get_data(as_text=True)
        answer = app.test_client().get(
            "/sparql",
            query_string={
                "query": "SELECT ?label WHERE { ?a a bg:Accelerator ; rdfs:label ?label }",
                "format": "csv",
            },
        )
    finally:
        app.extensions["benchgraph"].close()
        prepared.cleanup()
    rows = {r["id"]: r for r in csv.DictReader(body.splitlines())}
    assert rows["nvidia-h100-sxm"]["label"] == "'" + HOSTILE
    assert rows["nvidia-h100-sxm"]["memory"] == "80"
    # the endpoint's text/csv, as a spreadsheet opens it
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    labels = [r["label"] for r in csv.DictReader(answer.get_data(as_text=True).splitlines())]
    assert "'" + HOSTILE in labels and HOSTILE not in labels


def test_safe_csv_leaves_plain_answers_byte_for_byte_and_keeps_numbers():
    plain = b"a,b\r\nNVIDIA H100,80\r\n"
    assert safe_csv(plain) is plain
    body = b'a,b\r\n-5,"=1+2"\r\n"x, y",@me\r\n'
    assert safe_csv(body) == b"a,b\r\n-5,'=1+2\r\n\"x, y\",'@me\r\n"
