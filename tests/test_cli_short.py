"""`benchgraph query --short`: CSV, TSV and JSON with each IRI as the table prints it, and
what --short's TSV prints pasted back into a query finds the same rows."""

from __future__ import annotations

import csv
import io
import json

import pytest

from benchgraph.cli.main import main
from paths import ROOT

BASE = ROOT / "shapes" / "examples" / "base"
QUERY = (
    "SELECT ?run ?part ?count ?m ?label ?outside WHERE { ?run bg:accelerator ?part ; "
    "bg:acceleratorCount ?count ; bg:measurement ?m ; rdfs:label ?label . "
    "BIND(<https://example.org/a> AS ?outside) } ORDER BY ?m"
)


@pytest.fixture
def ask(tmp_path, copy_data, monkeypatch, capsys):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    data = copy_data(BASE)

    def ask(*args: str) -> str:
        assert main(["query", "--data", str(data), *args]) == 0
        return capsys.readouterr().out

    return ask


def _table(text: str) -> list[list[str]]:
    lines = text.splitlines()
    rule = lines[1]  # ----  -----  ---: where each column starts
    cut = [i for i, c in enumerate(rule) if c == "-" and (i == 0 or rule[i - 1] == " ")] + [None]
    return [[line[a:b].strip() for a, b in zip(cut, cut[1:])] for line in lines[2:-1]]


def test_csv_short_writes_what_the_table_shows(ask):
    table = _table(ask(QUERY))
    assert table and table[0][0].startswith("run:") and table[0][1].startswith("acc:")
    rows = list(csv.reader(io.StringIO(ask("--format", "csv", "--short", QUERY))))
    assert rows[0] == ["run", "part", "count", "m", "label", "outside"]
    keep = [0, 1, 2, 3, 5]  # not ?label: the table cuts a long literal
    assert [[r[i] for i in keep] for r in rows[1:]] == [[r[i] for i in keep] for r in table]
    assert any(cell.startswith("<https://w3id.org/") for cell in rows[1])  # #measurement-1
    full = list(csv.reader(io.StringIO(ask("--format", "csv", QUERY))))
    assert full[1][0].startswith("https://w3id.org/benchgraph/id/benchmarks/")  # as SPARQL's


def test_json_short_keeps_the_results_shape_with_short_iris(ask):
    short = json.loads(ask("--format", "json", "--short", QUERY))
    full = json.loads(ask("--format", "json", QUERY))
    assert short["head"] == full["head"]
    assert len(short["results"]["bindings"]) == len(full["results"]["bindings"]) > 0
    for s, f in zip(short["results"]["bindings"], full["results"]["bindings"]):
        assert s["count"] == f["count"] and s["label"] == f["label"]  # literals as they were
        assert s["run"]["type"] == "uri" and s["run"]["value"].startswith("run:")
        assert s["part"]["value"].startswith("acc:")
        assert s["outside"]["value"] == "<https://example.org/a>"


def test_tsv_short_pasted_back_finds_the_same_rows(ask):
    text = ask("--format", "tsv", "--short", QUERY)
    head, *rows = text.splitlines()
    assert head.split("\t") == ["?run", "?part", "?count", "?m", "?label", "?outside"]
    assert rows and rows[0].split("\t")[0].startswith("run:")
    values = " ".join(f"({' '.join(row.split(chr(9))[:5])})" for row in rows)
    again = QUERY.replace(  # ?outside is bound by the query itself
        "WHERE { ", f"WHERE {{ VALUES (?run ?part ?count ?m ?label) {{ {values} }} "
    )
    assert ask("--format", "tsv", "--short", again) == text
