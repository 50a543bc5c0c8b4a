"""Each field is read by what it holds, not by YAML 1.1's implicit types (records.KINDS).

`title: NO` was stored as "False", `engine_version: yes` as true, `1.10` as 1.1, `0755` as
755 and `2026-01-01T00:00:00Z` rewritten, with exit 0. Text fields keep the text as written;
numeric fields take plain decimal numbers; true/false fields take true or false; in the free
maps (settings, condition) a plain scalar YAML 1.1 and 1.2 read differently is an error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Literal
from rdflib.namespace import RDFS, SKOS

from benchgraph.rdf import convert
from benchgraph.rdf.convert import record_triples
from benchgraph.records.reader import load_record
from paths import ROOT

SHOWN = "data/benchmarks/x.yaml"


def read(body: str, kind: str = "benchmarks"):
    return load_record(Path(f"/d/{kind}/x.yaml"), Path("/d"), SHOWN, text="id: x\n" + body)


@pytest.mark.parametrize(
    "field,written",
    [
        ("title", "NO"),
        ("notes", "off"),
        ("engine_version", "yes"),
        ("engine_version", "1.10"),
        ("software", "0755"),
        ("methodology", "1.0e+3"),
        ("submitter", "2026-01-01T00:00:00Z"),
        ("scenario", "12:30"),
        ("division", "1_000"),
        ("benchmark", "0x10"),
        ("category", "Y"),
        ("availability", ".inf"),
        ("engine", "="),
    ],
)
def test_a_text_field_keeps_its_text_as_written(field, written):
    record, problems = read(f"{field}: {written}\n")
    assert problems == []
    assert record.fields[field] == written


def test_text_reaches_the_graph_as_written():
    record, _ = read("title: NO\nnotes: off\n")
    triples = set(record_triples(record))
    assert (record_iri(record), RDFS.label, Literal("NO")) in triples
    assert (record_iri(record), SKOS.note, Literal("off")) in triples


def record_iri(record):
    from benchgraph.namespaces import record_iri as iri

    return iri(record.kind, record.id)


@pytest.mark.parametrize(
    "written,value",
    [
        ("93.9", 93.9),
        ("1.10", 1.1),
        ("87", 87),
        ("-3", -3),
        ("1e3", 1000.0),
        ("1.0e+3", 1000.0),
        (".5", 0.5),
        ("0", 0),
    ],
)
def test_a_numeric_field_takes_plain_decimal_numbers(written, value):
    record, problems = read(f"value: {written}\n")
    assert problems == []
    assert record.fields["value"] == value and type(record.fields["value"]) is type(value)


@pytest.mark.parametrize(
    "written,code,says",
    [
        ("0755", "not-plain-decimal", "YAML 1.1 reads it as 493 and YAML 1.2 as 755"),
        ("1_000", "not-plain-decimal", "e.g. 1000"),
        ("0x10", "not-plain-decimal", "e.g. 16"),
        ("0b101", "not-plain-decimal", "e.g. 5"),
        ("12:30", "not-plain-decimal", "e.g. 750"),
        (".inf", "not-plain-decimal", "is not a finite number"),
        ("1e400", "number-not-kept", "too large"),
        ("1e-400", "number-not-kept", "too small"),
        ("0.1234567890123456789", "number-not-kept", "round it"),
    ],
)
def test_a_numeric_field_refuses_other_spellings(written, code, says):
    _, problems = read(f"title: t\nvalue: {written}\n")
    assert [(p.line, p.field, p.value, p.code) for p in problems] == [(3, "value", written, code)]
    assert says in problems[0].message
    assert str(problems[0]).startswith(f"{SHOWN}:3: value: {written} ")


def test_text_in_a_numeric_field_is_left_to_the_shapes():
    record, problems = read("value: 80 GB\n")
    assert problems == [] and record.fields["value"] == "80 GB"


@pytest.mark.parametrize("written", ["yes", "no", "on", "off", "y", "n", "Yes", "OFF"])
def test_a_true_false_field_takes_only_true_or_false(written):
    _, problems = read(f"reproducible: {written}\n")
    assert [(p.field, p.code) for p in problems] == [("reproducible", "not-true-or-false")]
    assert "write true or false" in problems[0].message
    record, problems = read("reproducible: true\n")
    assert problems == [] and record.fields["reproducible"] is True


@pytest.mark.parametrize(
    "written",
    [
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "0755",
        "1_000",
        "12:30",
        "0b101",
        ".inf",
        "-.Inf",
        ".NaN",
        "2026-01-01",
        "0x10",
        "0o17",
        "1e3",
        "+.5",
    ],
)
def test_a_free_map_refuses_what_yaml_versions_read_differently(written):
    _, problems = read(f"settings:\n  a: fp8\n  b: {written}\n")
    assert [(p.line, p.field, p.value, p.code) for p in problems] == [
        (4, "settings.b", written, "ambiguous-yaml")
    ]
    assert f"quote it ('{written}')" in problems[0].message


def test_a_free_map_keeps_what_both_read_alike():
    record, problems = read(
        "settings: {a: fp8_e4m3, b: 0.72, c: 16, d: true, e: 'yes', f: ~,"
        " g: '0755', h: 1.0e+3}\n"
        "measurements:\n  - {metric: m, value: 1, condition: {x: 'off'}}\n"
    )
    assert problems == []
    assert record.fields["settings"] == {
        "a": "fp8_e4m3",
        "b": 0.72,
        "c": 16,
        "d": True,
        "e": "yes",
        "f": None,
        "g": "0755",
        "h": 1000.0,
    }
    assert record.fields["measurements"][0]["condition"] == {"x": "off"}


def test_raw_interconnect_strings_are_text(tmp_path):
    record, problems = load_record(
        Path("/d/systems/x.yaml"),
        Path("/d"),
        text=("id: x\ninterconnect_raw: {accelerator_interconnect: NO, topology: 1.10}\n"),
    )
    assert problems == []
    assert record.fields["interconnect_raw"] == {
        "accelerator_interconnect": "NO",
        "topology": "1.10",
    }


def test_lines_and_the_duplicate_key_error_are_kept():
    _, problems = read("title: a\nnotes: b\ntitle: c\n")
    assert [(p.line, p.field, p.code) for p in problems] == [(4, "title", "duplicate-key")]


def test_an_alias_of_a_mapping_is_refused_at_the_alias():
    _, problems = read("measurements:\n  - &m {metric: a, value: 1, unit: ms}\n  - *m\n")
    assert [(p.line, p.field, p.code) for p in problems] == [(4, "measurements.1", "alias")]
    assert "repeats the part on line 3" in problems[0].message


def test_a_date_field_reads_dates_as_before():
    record, problems = read("updated: 2026-10-04\nhistory:\n  - {date: '2026-10-05', note: x}\n")
    assert problems == []
    assert str(record.fields["updated"]) == "2026-10-04"
    assert str(record.fields["history"][0]["date"]) == "2026-10-05"
    _, problems = read("updated: 2026-02-30\n")
    assert [(p.field, p.code) for p in problems] == [("updated", "bad-scalar")]


def query_edited_seed(tmp_path, old: str, new: str, query: str) -> list[str]:
    """Build a copy of the shape examples with one line of the seed run edited, query it with
    the CLI, and answer its CSV lines."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "shapes" / "examples" / "base", data)
    seed = data / "benchmarks" / "ev-sglang-dsv41-production-decode-tok-s-per-user.yaml"
    text = seed.read_text(encoding="utf-8")
    assert old in text
    seed.write_text(text.replace(old, new), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchgraph",
            "query",
            "--data",
            str(data),
            "--format",
            "csv",
            query,
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "BENCHGRAPH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_query_answers_the_text_as_written(tmp_path):
    """End to end: build and query a run whose text fields YAML 1.1 would type."""
    assert query_edited_seed(
        tmp_path,
        "category: inference/research",
        "category: NO\nengine_version: 1.10",
        "SELECT ?c ?v WHERE { ?r bg:category ?c ; bg:engineVersion ?v }",
    ) == ["c,v", "NO,1.10"]


def test_a_date_time_is_stored_as_written(tmp_path):
    """A `Z` stays `Z` (rdflib would respell it +00:00); YAML's space before the time
    becomes the T that xsd:dateTime needs."""
    assert query_edited_seed(
        tmp_path,
        "updated: 2026-10-04",
        "updated: 2026-10-04T12:30:00Z",
        "SELECT ?d WHERE { ?r a bg:BenchmarkRun ; <http://purl.org/dc/terms/modified> ?d }",
    ) == ["d", "2026-10-04T12:30:00Z"]
    record, problems = read("updated: 2026-10-04 12:30:00\n")
    assert problems == []
    assert convert.literal(record.fields["updated"]).n3() == (
        '"2026-10-04T12:30:00"^^<http://www.w3.org/2001/XMLSchema#dateTime>'
    )
