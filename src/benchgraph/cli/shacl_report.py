"""The validation report as a SHACL report graph (`benchgraph validate --format turtle`).

Each problem becomes an sh:ValidationResult: shape problems with their source shape, focus
node (the record, or the measurement, source, ... node inside it) and path; problems found
while reading a file (YAML syntax, unknown keys, dangling references) with a benchgraph IRI
for the check. Every result also says where to edit: bgcheck:file, bgcheck:line and
bgcheck:field (bgcheck: = https://w3id.org/benchgraph/checks#).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import quote

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD

from ..errors import INFO, VIOLATION, WARNING, Problem
from ..namespaces import BG, PREFIXES, record_iri

SH_NS = "http://www.w3.org/ns/shacl#"
SEVERITIES = {VIOLATION: "Violation", WARNING: "Warning", INFO: "Info"}
CHECKS = "https://w3id.org/benchgraph/checks#"  # IRIs of the checks that are not shapes
KINDS = ("benchmarks", "accelerators", "interconnects", "systems", "engines", "models", "metrics")


def report_graph(problems: list[Problem]) -> Graph:
    """An sh:ValidationReport holding one result per problem, in a stable order."""
    from ..validation.shapes import shape_info, shapes_graph

    sh = _Ns(SH_NS)
    g = Graph()
    for prefix, iri in PREFIXES.items():
        g.bind(prefix, iri)
    g.bind("sh", SH_NS)
    g.bind("bgcheck", CHECKS)
    report = BNode("report")
    g.add((report, RDF.type, sh.ValidationReport))
    conforms = not any(p.severity == VIOLATION for p in problems)
    g.add((report, sh.conforms, Literal(conforms)))
    shapes = shapes_graph()
    for i, p in enumerate(sorted(problems), 1):
        node = BNode(f"result{i}")
        g.add((report, sh.result, node))
        g.add((node, RDF.type, sh.ValidationResult))
        g.add((node, sh.resultSeverity, sh[SEVERITIES.get(p.severity, "Violation")]))
        g.add(
            (
                node,
                sh.resultMessage,
                Literal(
                    f"{p.field}: {p.value} {p.message}"
                    if p.value
                    else f"{p.field}: {p.message}"
                    if p.field
                    else p.message
                ),
            )
        )
        shape = _shape(p.code)
        if shape is not None and (shape, None, None) in shapes:
            g.add((node, sh.sourceShape, shape))
            path = shapes.value(shape, URIRef(SH_NS + "path"))
            if path is not None and shape_info(shape).field:
                g.add((node, sh.resultPath, path))
        else:
            g.add((node, sh.sourceShape, URIRef(CHECKS + (p.code or "record"))))
        focus = _record(p.file)
        if focus is not None:
            g.add((node, sh.focusNode, _node(focus, p.field)))
        if p.value:
            g.add((node, sh.value, Literal(p.value)))
        g.add((node, URIRef(CHECKS + "file"), Literal(p.file)))
        g.add((node, URIRef(CHECKS + "line"), Literal(p.line, datatype=XSD.integer)))
        if p.field:
            g.add((node, URIRef(CHECKS + "field"), Literal(p.field)))
    return g


class _Ns:
    def __init__(self, base: str):
        self.base = base

    def __getattr__(self, name: str) -> URIRef:
        return URIRef(self.base + name)

    def __getitem__(self, name: str) -> URIRef:
        return URIRef(self.base + name)


def _shape(code: str) -> URIRef | None:
    if code.startswith("bg:"):
        return BG[code[3:]]
    return None


NESTED = {
    "measurements": "measurement",
    "source": "source",
    "history": "revision",
    "accelerators": "accelerators",
}


def _node(record: URIRef, field: str) -> URIRef:
    """The node a field is stated on: the record, or one inside it (`measurements.1.min` is
    on `<record>#measurement-2`)."""
    parts = field.split(".")
    if len(parts) >= 3 and parts[0] in NESTED and parts[1].isdigit():
        suffix = f"{NESTED[parts[0]]}-{int(parts[1]) + 1}"
        if parts[2] == "condition" and len(parts) > 3:
            suffix += "-" + quote(parts[3], safe="")
        return URIRef(f"{record}#{suffix}")
    return record


def _record(file: str) -> URIRef | None:
    """The record a file holds, from its path: .../<kind>/[...]/<id>.yaml."""
    parts = PurePosixPath(file).parts
    for part in parts[:-1]:
        if part in KINDS:
            return record_iri(part, PurePosixPath(parts[-1]).stem)
    return None
