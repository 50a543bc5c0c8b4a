"""A small SHACL evaluator: the shapes of shapes/ run over one record's triples, fast.

pySHACL is the reference (tests/validation/shacl_reference.py); this module evaluates the
subset of SHACL Core the shapes use, with pySHACL's semantics, in plain Python over an index of
a few dozen triples, which is what makes 100k records cheap. SPARQL-based constraints run as Python
twins registered by the constraint's IRI; a test holds every twin to pySHACL's results.
Anything the shapes use that this module cannot evaluate is an error at load time, so a new
construct in the shapes cannot be skipped silently.

Speed: nodes and predicates are keyed by plain strings (rdflib terms hash and compare in
Python), a focus node is checked only against the shapes of the predicates it has plus those
that fire on absence (sh:minCount, rules), and literals are read through their slots.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, XSD
from rdflib.namespace import SH as SH

from ..errors import BenchgraphError

Node = URIRef | Literal | BNode
Bindings = dict[str, object]
# A twin of a SPARQL constraint: (index, focus) -> rows of bindings; the row's `value` and
# `path` (when bound) become the result's, the others fill the message's {?var}.
Twin = Callable[["Index", Node], Iterable[Bindings]]
# A constraint on one value node: (index, value) -> conforms.
ValueTest = Callable[["Index", Node], bool]
# A constraint on a focus node and all its value nodes: -> (value, component, bindings)*.
NodeCheck = Callable[["Index", Node, list], Iterator[tuple]]

TYPE = str(RDF.type)


class ShapesError(BenchgraphError):
    """The shapes use something this evaluator does not implement."""

    code = "shapes-unsupported"


@dataclass(frozen=True)
class Result:
    """One SHACL validation result, as pySHACL reports it."""

    focus: Node
    path: URIRef | None
    shape: URIRef
    value: Node | None
    severity: URIRef
    component: URIRef
    message: str = ""

    def key(self) -> tuple:
        """What two validators must agree on: focus, path, shape and value."""
        return (
            str(self.focus),
            str(self.path or ""),
            str(self.shape),
            _term_key(self.value) if self.value is not None else (),
        )


class Index:
    """A small graph: objects by subject and predicate (as strings), types by node."""

    __slots__ = ("spo", "types", "instances")

    def __init__(self, triples: Iterable[tuple] = ()):
        self.spo: dict[str, dict[str, list[Node]]] = {}
        self.types: dict[str, set[str]] = {}
        self.instances: dict[str, list[Node]] = {}
        spo, types, instances = self.spo, self.types, self.instances
        for s, p, o in triples:
            key = str(s)
            by_p = spo.get(key)
            if by_p is None:
                by_p = spo[key] = {}
            pred = str(p)
            objs = by_p.get(pred)
            if objs is None:
                by_p[pred] = [o]
            else:
                objs.append(o)  # duplicates are harmless: counts use distinct values
            if pred == TYPE:
                cls = str(o)
                if cls not in types.setdefault(key, set()):
                    types[key].add(cls)
                    instances.setdefault(cls, []).append(s)

    def objects(self, s: Node, p: str) -> list[Node]:
        by_p = self.spo.get(str(s))
        return by_p.get(p, []) if by_p else []


@dataclass
class Shape:
    """A node or property shape, compiled."""

    iri: Node
    path: str | None
    severity: URIRef
    message: str
    value_tests: list[tuple[ValueTest, URIRef]] = field(default_factory=list)
    node_checks: list[NodeCheck] = field(default_factory=list)
    properties: list[Shape] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    on_absence: bool = False  # has a constraint other than sh:minCount 1 that can fail
    required: bool = False  # sh:minCount 1
    max_count: int | None = None

    def __post_init__(self) -> None:
        self.path_iri = URIRef(self.path) if self.path else None

    @property
    def fires_when_empty(self) -> bool:
        """Whether the shape can report a focus node that has no value at its path."""
        return (
            self.path is None
            or self.on_absence
            or any(p.fires_when_empty or p.required for p in self.properties)
        )

    def values(self, data: Index, focus: Node) -> list[Node]:
        return [focus] if self.path is None else data.objects(focus, self.path)

    def conforms(self, data: Index, node: Node) -> bool:
        """Whether node conforms (as a value node of sh:node, sh:or, ...)."""
        values = self.values(data, node)
        if not values and self.required:
            return False
        if (
            self.max_count is not None
            and len(values) > self.max_count
            and len({_term_key(v) for v in values}) > self.max_count
        ):
            return False
        for test, _ in self.value_tests:
            for v in values:
                if not test(data, v):
                    return False
        for check in self.node_checks:
            for _ in check(data, node, values):
                return False
        return all(p.conforms(data, node) for p in self.properties)

    def result(self, focus: Node, value: Node | None, component: URIRef) -> Result:
        """A result of this shape on focus, with the shape's own path and message."""
        return Result(focus, self.path_iri, self.iri, value, self.severity, component, self.message)

    def evaluate(
        self, data: Index, focus: Node, out: list[Result], values: list[Node] | None = None
    ) -> None:
        """Append the results of this shape (and its sh:property shapes) on focus to out."""
        if values is None:
            values = self.values(data, focus)
        path = self.path_iri
        if not values and self.required:
            out.append(self.result(focus, None, SH.MinCountConstraintComponent))
        elif (
            self.max_count is not None
            and len(values) > self.max_count
            and len({_term_key(v) for v in values}) > self.max_count
        ):
            out.append(self.result(focus, None, SH.MaxCountConstraintComponent))
        for test, component in self.value_tests:
            for v in values:
                if not test(data, v):
                    out.append(self.result(focus, v, component))
        for check in self.node_checks:
            for value, component, bindings in check(data, focus, values):
                message, where = self.message, path
                if bindings:
                    bindings = dict(bindings)
                    where = bindings.pop("path", path)
                    message = render(bindings.pop("message", None) or message, bindings)
                out.append(Result(focus, where, self.iri, value, self.severity, component, message))
        for prop in self.properties:
            prop.evaluate(data, focus, out)


def render(message: str, bindings: Bindings) -> str:
    """Substitute {?var} and {$var} as pySHACL does in SPARQL constraint messages."""
    if "{" not in message:
        return message
    return re.sub(r"\{[?$](\w+)\}", lambda m: str(bindings.get(m[1], m[0])), message)


_NUMERIC = {
    str(t)
    for t in (
        XSD.integer,
        XSD.decimal,
        XSD.float,
        XSD.double,
        XSD.int,
        XSD.long,
        XSD.short,
        XSD.byte,
        XSD.nonNegativeInteger,
        XSD.positiveInteger,
        XSD.negativeInteger,
        XSD.nonPositiveInteger,
        XSD.unsignedInt,
        XSD.unsignedLong,
        XSD.unsignedShort,
        XSD.unsignedByte,
    )
}
_PYTHON_TYPES = {
    str(XSD.string): (str, bytes),
    str(XSD.integer): int,
    str(XSD.decimal): Decimal,
    str(XSD.float): float,
    str(XSD.boolean): bool,
    str(XSD.date): dt.date,
    str(XSD.dateTime): dt.datetime,
}


def is_numeric(node: object) -> bool:
    """SPARQL isNumeric(): a well-formed literal of a numeric XSD datatype."""
    return (
        type(node) is Literal
        and node._datatype is not None
        and str(node._datatype) in _NUMERIC
        and not node._ill_typed
        and isinstance(node._value, (int, float, Decimal))
        and not isinstance(node._value, bool)
    )


def _datatype_test(datatype: URIRef) -> ValueTest:
    """pySHACL's sh:datatype: the datatype, well-formed; a plain literal is an xsd:string."""
    want = str(datatype)
    expected = _PYTHON_TYPES.get(want, object)
    is_string = want == str(XSD.string)

    def test(d: Index, v: Node) -> bool:
        if type(v) is not Literal:
            return False
        got = v._datatype
        if got is None:
            return is_string and v._language is None and isinstance(v._value, (str, bytes))
        return str.__eq__(got, want) and v._ill_typed is not True and isinstance(v._value, expected)

    return test


def _length_test(p: URIRef, n: int) -> tuple[ValueTest, URIRef]:
    """sh:minLength or sh:maxLength n: a blank node has no length and fails either."""
    if p == SH.minLength:
        return (
            lambda d, v: not isinstance(v, BNode) and len(str(v)) >= n,
            SH.MinLengthConstraintComponent,
        )
    return (
        lambda d, v: not isinstance(v, BNode) and len(str(v)) <= n,
        SH.MaxLengthConstraintComponent,
    )


def _pattern_test(pattern: Node, flags: str) -> tuple[ValueTest, URIRef]:
    """sh:pattern with its sh:flags (i, s, m, x)."""
    rx = re.compile(
        str(pattern),
        sum(f for c, f in (("i", re.I), ("s", re.S), ("m", re.M), ("x", re.X)) if c in flags),
    )
    return (
        lambda d, v: not isinstance(v, BNode) and bool(rx.search(str(v))),
        SH.PatternConstraintComponent,
    )


def _pair_check(p: URIRef, o: Node) -> NodeCheck:
    """sh:lessThan or sh:lessThanOrEquals against every value of the other property."""
    other, strict = str(o), p == SH.lessThan
    component = SH.LessThanConstraintComponent if strict else SH.LessThanOrEqualsConstraintComponent

    def pair(d: Index, f: Node, vs: list) -> Iterator[tuple]:
        for v in vs:
            if any(not _less(v, w, strict) for w in d.objects(f, other)):
                yield v, component, None

    return pair


def _logical_test(p: URIRef, members: list[Shape]) -> tuple[ValueTest, URIRef]:
    """sh:or, sh:and or sh:xone over the member shapes."""
    if p == SH["or"]:
        return (lambda d, v: any(m.conforms(d, v) for m in members), SH.OrConstraintComponent)
    if p == SH["and"]:
        return (lambda d, v: all(m.conforms(d, v) for m in members), SH.AndConstraintComponent)
    return (
        lambda d, v: sum(m.conforms(d, v) for m in members) == 1,
        SH.XoneConstraintComponent,
    )


def _range_test(bound: Literal, accept: Callable[[int], bool]) -> ValueTest:
    """pySHACL's value range comparison: strings only with strings; an error fails."""
    bound_is_str = isinstance(bound.value, str)
    number = bound.value if type(bound.value) in (int, Decimal) else None

    def test(d: Index, v: Node) -> bool:
        if type(v) is not Literal or isinstance(v._value, str) != bound_is_str:
            return False
        if number is not None and type(v._value) in (int, Decimal):
            # what compare_literal does for two numbers, without its overhead
            return accept((v._value > number) - (v._value < number))
        # imported here: pySHACL (90 ms to import) is wanted by no build, and no shipped
        # record's range is other than a number
        from pyshacl.rdfutil.compare import compare_literal

        try:
            return accept(compare_literal(v, bound))
        except (TypeError, NotImplementedError):
            return False

    return test


def _comparable(node: Node) -> tuple[object, bool]:
    if isinstance(node, URIRef):
        return str(node), True
    if isinstance(node, Literal) and isinstance(node.value, str):
        return node.value, True
    return node, False


def _less(value: Node, other: Node, strict: bool) -> bool:
    """pySHACL's sh:lessThan(OrEquals): IRIs and strings compare as text, not with numbers."""
    a, a_str = _comparable(value)
    b, b_str = _comparable(other)
    if a_str != b_str:
        return False
    try:
        return bool(a < b if strict else a <= b)
    except TypeError:
        return False


def _term_key(node: Node) -> tuple:
    """A key equal for equal RDF terms, cheap to hash."""
    if type(node) is Literal:
        return ("l", str(node), str(node._datatype or ""), node._language or "")
    return ("b" if isinstance(node, BNode) else "i", str(node))


_NODE_KINDS = {
    SH.IRI: (URIRef,),
    SH.Literal: (Literal,),
    SH.BlankNode: (BNode,),
    SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal),
    SH.IRIOrLiteral: (URIRef, Literal),
}
_RANGES = {
    SH.minInclusive: (lambda c: c >= 0, SH.MinInclusiveConstraintComponent),
    SH.minExclusive: (lambda c: c > 0, SH.MinExclusiveConstraintComponent),
    SH.maxInclusive: (lambda c: c <= 0, SH.MaxInclusiveConstraintComponent),
    SH.maxExclusive: (lambda c: c < 0, SH.MaxExclusiveConstraintComponent),
}
_IGNORED = {
    SH.path,
    SH.severity,
    SH.message,
    SH.targetClass,
    SH.name,
    SH.description,
    SH.property,
    SH.order,
    SH.group,
    SH.flags,
    SH.deactivated,
}


@dataclass
class _Plan:
    """The shapes to run on a node of one class: by the predicates it has, and always."""

    by_path: dict[str, list[Shape]] = field(default_factory=dict)
    always: list[Shape] = field(default_factory=list)
    required: list[Shape] = field(default_factory=list)  # report when the path is absent


class Shapes:
    """The shapes of a shapes graph, compiled; `evaluate` validates an Index."""

    def __init__(
        self,
        graph: Graph,
        twins: dict[URIRef, Twin] | None = None,
        skip: Callable[[Node, URIRef], bool] | None = None,
    ):
        """skip(shape, parameter) leaves a constraint out (e.g. those needing other records)."""
        self.g = graph
        self.twins = twins or {}
        self.skip = skip or (lambda shape, parameter: False)
        self._compiled: dict[Node, Shape] = {}
        self.plans: dict[str, _Plan] = {}
        for iri in sorted(set(graph.subjects(SH.targetClass, None)), key=str):
            shape = self.shape(iri)
            for cls in shape.targets:
                plan = self.plans.setdefault(cls, _Plan())
                if shape.value_tests or shape.node_checks or shape.required:
                    # the node shape's own constraints, without its sh:property shapes
                    plan.always.append(
                        Shape(
                            shape.iri,
                            None,
                            shape.severity,
                            shape.message,
                            shape.value_tests,
                            shape.node_checks,
                        )
                    )
                for prop in shape.properties:
                    if prop.fires_when_empty:
                        plan.always.append(prop)
                        continue
                    plan.by_path.setdefault(prop.path, []).append(prop)
                    if prop.required:
                        plan.required.append(prop)

    def evaluate(self, data: Index) -> list[Result]:
        """Every result of every targeted shape on the data."""
        out: list[Result] = []
        for cls, nodes in data.instances.items():
            plan = self.plans.get(cls)
            if plan is None:
                continue
            for focus in nodes:
                by_p = data.spo.get(str(focus), {})
                for pred, values in by_p.items():
                    for prop in plan.by_path.get(pred, ()):
                        prop.evaluate(data, focus, out, values)
                for shape in plan.always:
                    shape.evaluate(data, focus, out)
                for shape in plan.required:
                    if shape.path not in by_p:
                        out.append(shape.result(focus, None, SH.MinCountConstraintComponent))
        return out

    # --- compiling ------------------------------------------------------------------
    def shape(self, iri: Node) -> Shape:
        if iri in self._compiled:
            return self._compiled[iri]
        g = self.g
        path = g.value(iri, SH.path)
        if path is not None and not isinstance(path, URIRef):
            raise ShapesError(f"{iri}: only predicate paths are supported")
        shape = Shape(
            iri,
            str(path) if path is not None else None,
            g.value(iri, SH.severity) or SH.Violation,
            str(g.value(iri, SH.message) or ""),
        )
        self._compiled[iri] = shape
        shape.targets = sorted(str(c) for c in g.objects(iri, SH.targetClass))
        for p, o in sorted(g.predicate_objects(iri)):
            if p == SH.property:
                shape.properties.append(self.shape(o))
            elif p in _IGNORED or not str(p).startswith(str(SH)) or self.skip(iri, p):
                continue
            else:
                self.constraint(shape, p, o)
        return shape

    def constraint(self, shape: Shape, p: URIRef, o: Node) -> None:
        """Compile one constraint parameter into a value test or a node check."""
        g, tests, checks = self.g, shape.value_tests, shape.node_checks
        if p in (SH.hasValue, SH.sparql) or (p == SH.minCount and int(o) > 1):
            shape.on_absence = True
        if p == SH.minCount and int(o) == 1:
            shape.required = True
        elif p == SH.minCount:
            n = int(o)
            checks.append(
                lambda d, f, vs: iter(
                    [(None, SH.MinCountConstraintComponent, None)]
                    if len({_term_key(v) for v in vs}) < n
                    else []
                )
            )
        elif p == SH.maxCount:
            shape.max_count = int(o)
        elif p == SH.hasValue:
            key = _term_key(o)
            checks.append(
                lambda d, f, vs: iter(
                    []
                    if any(_term_key(v) == key for v in vs)
                    else [(None, SH.HasValueConstraintComponent, None)]
                )
            )
        elif p == SH.datatype:
            tests.append((_datatype_test(o), SH.DatatypeConstraintComponent))
        elif p == SH.nodeKind:
            kinds = _NODE_KINDS[o]
            tests.append((lambda d, v: isinstance(v, kinds), SH.NodeKindConstraintComponent))
        elif p == SH["class"]:
            cls = str(o)
            tests.append(
                (
                    lambda d, v: type(v) is not Literal and cls in d.types.get(str(v), ()),
                    SH.ClassConstraintComponent,
                )
            )
        elif p in _RANGES:
            accept, component = _RANGES[p]
            tests.append((_range_test(o, accept), component))
        elif p in (SH.minLength, SH.maxLength):
            tests.append(_length_test(p, int(o)))
        elif p == SH.pattern:
            tests.append(_pattern_test(o, str(g.value(shape.iri, SH.flags) or "")))
        elif p == SH["in"]:
            allowed = {_term_key(m) for m in Collection(g, o)}
            tests.append((lambda d, v: _term_key(v) in allowed, SH.InConstraintComponent))
        elif p in (SH.lessThan, SH.lessThanOrEquals):
            checks.append(_pair_check(p, o))
        elif p == SH["not"]:
            inner = self.shape(o)
            tests.append((lambda d, v: not inner.conforms(d, v), SH.NotConstraintComponent))
        elif p == SH.node:
            inner = self.shape(o)
            tests.append((lambda d, v: inner.conforms(d, v), SH.NodeConstraintComponent))
        elif p in (SH["or"], SH["and"], SH.xone):
            tests.append(_logical_test(p, [self.shape(m) for m in Collection(g, o)]))
        elif p == SH.sparql:
            checks.append(self._sparql(o))
        else:
            raise ShapesError(f"{shape.iri}: {p} is not supported by the fast validator")

    def _sparql(self, constraint: Node) -> NodeCheck:
        twin = self.twins.get(constraint)
        if twin is None:
            raise ShapesError(f"{constraint}: a SPARQL constraint with no Python twin")
        message = str(self.g.value(constraint, SH.message) or "")

        def check(d: Index, f: Node, vs: list) -> Iterator[tuple]:
            seen = set()
            for row in twin(d, f):
                row = dict(row)
                value = row.pop("value", f)
                key = (_term_key(value), str(row.get("path", "")))
                if key not in seen:
                    seen.add(key)
                    row.setdefault("message", message)
                    yield value, SH.SPARQLConstraintComponent, row

        return check
