"""The facts a build takes of each record where it converts it (validate.triple_facts) are
those the text of its N-Quads gives (facts_from_nquads, which the cache's records use)."""

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

from benchgraph.namespaces import BG, QUDT, SCHEMA, record_iri
from benchgraph.rdf.nquads import nquads
from benchgraph.validation.facts import facts_from_nquads, triple_facts


def test_triple_facts_equal_the_text_s_for_every_kind_of_object() -> None:
    own = str(record_iri("interconnects", "x"))
    me, part = URIRef(own), URIRef(own + "#part-1")
    other = URIRef(str(record_iri("interconnects", "y")))
    triples = [
        (me, BG.unitCode, Literal("GB/s")),
        (part, BG.unitCode, Literal('say "fast" \\ or \u00e9\tslow')),  # escaped, and a tab
        (part, BG.rawValue, Literal("line\nbreak")),
        (part, BG.submitter, Literal('say "hi" \\ \u00e9')),  # escaped: read by the parser
        (me, BG.countPerNode, Literal(8)),
        (me, BG.nodes, Literal(2.5)),  # a typed literal that is no integer: skipped
        (me, BG.submitter, Literal("Acme", lang="en")),  # tagged: skipped
        (me, BG.rawValue, Literal('q"uote', datatype=XSD.string)),
        (me, SCHEMA.url, URIRef("https://example.org/a b")),
        (me, RDF.type, BG.Interconnect),
        (me, QUDT.hasUnit, URIRef("http://qudt.org/vocab/unit/GigaBYTE-PER-SEC")),
        (other, BG.unitCode, Literal("not mine")),
        (me, BG.name, Literal("not a fact")),
    ]
    for kind in ("interconnects", "accelerators"):
        text = nquads(triples, URIRef("urn:x:graph"))
        expected = facts_from_nquads(kind, text, own)
        assert triple_facts(kind, triples, own) == expected
        assert ("#part-1", "unit", 'say "fast" \\ or \u00e9\tslow') not in expected  # a tab
        assert ("", "unit", "GB/s") in expected
        assert ("#part-1", "submitter", 'say "hi" \\ \u00e9') in expected
    assert ("", "type", str(BG.Interconnect)) in triple_facts("interconnects", triples, own)
