"""The accelerator catalogue's record format (issue 16): part facts, per-source `states`,
vendor records named by id (or kept as a plain name), and `same_as` mappings.

Fixtures: tests/data/catalogue/ (README there: every file is made up for these tests).
"""

from __future__ import annotations

from pathlib import Path

from rdflib import Literal, URIRef
from rdflib.namespace import OWL, SKOS, XSD

from benchgraph.errors import RecordsInvalid
from benchgraph.namespaces import BG, SCHEMA, record_iri
from benchgraph.pipeline.steps import build
from benchgraph.rdf.convert import record_triples
from benchgraph.records.reader import load_record
from benchgraph.validation.record import check_record
from paths import TEST_DATA

CATALOGUE = TEST_DATA / "catalogue"


def _read(kind: str, text: str, name: str = "x"):
    return load_record(Path("/d") / kind / f"{name}.yaml", Path("/d"), text=f"id: {name}\n{text}")


def _triples(kind: str, text: str) -> set:
    record, problems = _read(kind, text)
    assert record is not None and problems == [], problems
    return set(record_triples(record))


def test_part_facts_become_their_terms():
    triples = _triples(
        "accelerators", (CATALOGUE / "accelerators/pcie-only.yaml").read_text().split("\n", 1)[1]
    )
    me = record_iri("accelerators", "x")
    assert (me, BG.formFactor, BG.PcieCard) in triples
    assert (me, BG.peerFabric, BG.NoPeerFabric) in triples
    assert (me, BG.countedAs, BG.CountedGpu) in triples
    assert (me, BG.hostInterface, record_iri("interconnects", "pcie-gen4")) in triples
    assert (me, BG.madeBy, record_iri("vendors", "maker")) in triples
    # the host interface is not an interconnect of the part: the chain would carry it to runs
    assert not any(p == BG.interconnect for _, p, _ in triples)
    source = URIRef(f"{me}#source-1")
    assert {(source, BG.states, BG.formFactor), (source, BG.states, BG.peerFabric)} <= triples


def test_an_optional_fabric_is_not_an_interconnect_of_the_part():
    triples = _triples(
        "accelerators", "name: n\nvendor: v\nfabric: optional\nfabric_interconnect: nvlink-4\n"
    )
    me = record_iri("accelerators", "x")
    assert (me, BG.fabricInterconnect, record_iri("interconnects", "nvlink-4")) in triples
    assert (me, BG.interconnect, record_iri("interconnects", "nvlink-4")) not in triples


def test_released_keeps_its_precision():
    for text, datatype in (
        ("2023", XSD.gYear),
        ("2023-10", XSD.gYearMonth),
        ("2023-10-12", XSD.date),
        ('"2023"', XSD.gYear),
    ):
        triples = _triples("accelerators", f"name: n\nvendor: v\nreleased: {text}\n")
        found = [o for s, p, o in triples if p == BG.released]
        assert found == [Literal(text.strip('"'), datatype=datatype)], text
    bad = _triples("accelerators", "name: n\nvendor: v\nreleased: '2023-02-30'\n")
    assert [o.datatype for s, p, o in bad if p == BG.released] == [None]


def test_a_states_name_of_no_field_is_an_error_naming_it():
    record, problems = _read(
        "accelerators", "name: n\nvendor: v\nsource:\n- title: t\n  states: [form_factor, tdp]\n"
    )
    assert [(p.line, p.field, p.value, p.code) for p in problems] == [
        (6, "source.0.states.1", "tdp", "unknown-stated-field")
    ]
    assert "tdp_w" in problems[0].message  # the fields it could have meant are listed


def test_a_derived_fact_is_marked_derived_and_counts_as_sourced():
    """`derives` marks a fact the record derives from a source (with others) that does not
    state it about the part: a query tells it from a stated one, and it is not unsourced."""

    def read(key):
        return _read(
            "accelerators",
            "name: n\nvendor: v\nfabric: none\nsource:\n"
            f"- title: the architecture drops NVLink\n  {key}: [fabric]\n",
        )

    record, problems = read("derives")
    assert problems == [], problems
    triples = record_triples(record)
    source = URIRef(f"{record_iri('accelerators', 'x')}#source-1")
    assert (source, BG.derives, BG.peerFabric) in triples
    assert (source, BG.states, BG.peerFabric) not in triples
    assert [p.field for p in check_record(record, triples)] == []
    # a source that neither states nor derives the fabric leaves it unsourced
    record, _ = read("notes")
    assert [p.field for p in check_record(record, record_triples(record))] == ["source"]


def test_a_derives_name_of_no_field_is_an_error_naming_it():
    record, problems = _read(
        "accelerators",
        "name: n\nvendor: v\nsource:\n- title: t\n  states: [tdp_w]\n  derives: [fabrik]\n",
    )
    assert [(p.line, p.field, p.value, p.code) for p in problems] == [
        (7, "source.0.derives.0", "fabrik", "unknown-stated-field")
    ]


def test_same_as_takes_a_bare_iri_or_a_mapping_and_never_owl_same_as():
    triples = _triples("vendors", (CATALOGUE / "vendors/maker.yaml").read_text().split("\n", 1)[1])
    me = record_iri("vendors", "x")
    exact, close = URIRef("https://example.org/maker"), URIRef("https://example.org/maker-group")
    assert {
        (me, SKOS.exactMatch, exact),
        (me, SCHEMA.sameAs, exact),
        (me, SKOS.closeMatch, close),
        (me, SCHEMA.sameAs, close),
    } <= triples
    assert (me, SKOS.exactMatch, close) not in triples
    assert not any(p == OWL.sameAs for _, p, _ in triples)
    node = URIRef(f"{me}#same-as-2")
    assert {
        (me, BG.mapping, node),
        (node, BG.mappedTo, close),
        (node, BG.matchKind, SKOS.closeMatch),
        (node, BG.mappingJustification, Literal("semapv:ManualMappingCuration")),
    } <= triples
    assert (me, BG.mapping, URIRef(f"{me}#same-as-1")) not in triples  # a bare IRI: no node


def test_vendor_names_a_vendor_record_or_stays_a_plain_name(tmp_path, copy_data):
    data = copy_data(CATALOGUE)
    result = build(data)
    infos = [
        (Path(p.file).name, p.field, p.value, p.code)
        for p in result.problems
        if p.severity == "info" and p.code == "vendor-name"
    ]
    # `nobody-yet` names no record: kept as a name, an info; `maker` does; `Example Corp`
    # is not an id at all
    assert infos == [("named-vendor.yaml", "vendor", "nobody-yet", "vendor-name")]
    assert result.conforms
    store = result.open()
    rows = {
        (r["p"].value.rsplit("/", 1)[1], r["n"].value)
        for r in store.query(
            "SELECT ?p ?n WHERE { ?p <https://w3id.org/benchgraph/ontology#madeBy> ?v . "
            "?v <http://www.w3.org/2000/01/rdf-schema#label> ?n }",
            use_default_graph_as_union=True,
        )
    }
    assert ("pcie-only", "Example Maker") in rows


def test_an_invalid_vendor_record_leaves_its_parts_in(tmp_path, copy_data):
    data = copy_data(CATALOGUE)
    (data / "vendors/maker.yaml").write_text(
        "id: maker\nname: Example Maker\nsame_as: [not an iri]\n"
    )
    try:
        build(data)
    except RecordsInvalid as refused:
        assert {Path(p.file).name for p in refused.problems if p.severity == "violation"} == {
            "maker.yaml"
        }
    result = build(data, skip_invalid=True)
    assert [Path(p).name for p in result.left_out] == ["maker.yaml"]


# A part on its host CPU's own chip (an SoC, a Jetson module): written here for the test, its
# vendor and source invented like the rest of tests/data/catalogue.
ON_CHIP = """id: soc-part
name: Example SoC
vendor: maker
form_factor: soc
counted_as: soc
host_interface: {host}
{extra}source:
- publisher: Example Maker
  title: Example SoC brief
  url: https://example.org/soc
  states: [form_factor, counted_as, host_interface{states}]
"""


def _soc(data: Path, host: str = "on-chip", extra: str = "", states: str = "") -> None:
    (data / "accelerators/soc-part.yaml").write_text(
        ON_CHIP.format(host=host, extra=extra, states=states)
    )


def test_on_chip_is_a_host_interface_that_names_no_interconnect(copy_data):
    data = copy_data(CATALOGUE)
    _soc(data)
    result = build(data)
    assert result.conforms, [p for p in result.problems if p.severity == "violation"]
    store = result.open()
    me = record_iri("accelerators", "soc-part")
    rows = {
        (r["v"].value, r["t"].value if r["t"] else None)
        for r in store.query(
            f"SELECT ?v ?t WHERE {{ <{me}> <{BG.hostInterface}> ?v OPTIONAL {{ ?v a ?t }} }}",
            use_default_graph_as_union=True,
        )
    }
    # the code's individual, typed as a host interface kind, never (by a range) an interconnect
    assert {v for v, _ in rows} == {str(BG.OnChipHost)}
    assert str(BG.HostInterfaceKind) in {t for _, t in rows}
    assert str(BG.Interconnect) not in {t for _, t in rows}


def test_on_chip_with_host_lanes_is_an_error_naming_the_field(copy_data):
    data = copy_data(CATALOGUE)
    _soc(data, extra="host_lanes: 16\n", states=", host_lanes")
    result = build(data, skip_invalid=True)
    bad = [(Path(p.file).name, p.field) for p in result.problems if p.severity == "violation"]
    assert bad == [("soc-part.yaml", "host_lanes")]


def test_a_misspelt_on_chip_is_an_unknown_interconnect_naming_field_and_value(copy_data):
    data = copy_data(CATALOGUE)
    _soc(data, host="on_chip")
    result = build(data, skip_invalid=True)
    bad = [
        (Path(p.file).name, p.field, p.value) for p in result.problems if p.severity == "violation"
    ]
    assert bad == [("soc-part.yaml", "host_interface", "on_chip")]


def test_the_host_interface_codes_agree_between_reading_and_converting():
    from benchgraph import vocab
    from benchgraph.records.schema import CODES

    assert CODES[("accelerators", "host_interface")] == set(vocab.HOST_INTERFACE_CODES)
