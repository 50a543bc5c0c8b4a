"""Reasoning: the ontology's semantics applied to each record, then cross-record rules.

Strategy (measured: benchmarks/reports/infer.md): owlrl closes the ontology alone, once; the
useful part of that closure goes into the inferred graph. The closed hierarchy (super-classes,
super-properties, domains, ranges) is then applied to each record's own triples in Python, in
the build's worker processes, cached per record, so an edit re-infers one record. The same
pass derives the facts that need only the record itself (bg:crossesDevices, comparisons of
its measurements). Rules that join records (property chains, bg:fabricStatus, whether a
comparison outperforms its baseline) run as SPARQL in the query store (rules.py).

The fast path gives the answers a full owlrl closure gives (tests/reasoning/), as long as the
ontology keeps to the constructs in SUPPORTED; `Reasoner.unsupported()` names any other.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Iterator
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from ..namespaces import BG, graph_of

Triple = tuple[Any, Any, Any]

# The fast path implements rdfs:subClassOf, rdfs:subPropertyOf, rdfs:domain, rdfs:range and
# owl:equivalentClass/equivalentProperty (owlrl's closure of the ontology turns these into
# sub-class and sub-property pairs); owl:propertyChainAxiom is joined across records by
# rules.py; owl:disjointWith derives nothing (an inconsistency is SHACL's to report).
# Anything below would derive triples the fast path does not:
UNSUPPORTED = {
    OWL.inverseOf,
    OWL.sameAs,
    OWL.hasValue,
    OWL.someValuesFrom,
    OWL.allValuesFrom,
    OWL.intersectionOf,
    OWL.unionOf,
    OWL.oneOf,
    OWL.hasKey,
    OWL.maxCardinality,
    OWL.maxQualifiedCardinality,
    OWL.complementOf,
    OWL.onProperty,
}
UNSUPPORTED_TYPES = {
    OWL.TransitiveProperty,
    OWL.SymmetricProperty,
    OWL.FunctionalProperty,
    OWL.InverseFunctionalProperty,
    OWL.IrreflexiveProperty,
    OWL.AsymmetricProperty,
}
BUILT_IN = (str(RDF), str(RDFS), str(OWL), str(XSD))
EVERYTHING = {OWL.Thing, RDFS.Resource}

# What the cross-record rules write (rules.py); the per-record pass never does.
RULE_PREDICATES = {BG.interconnect, BG.fabricStatus, BG.outperformsBaseline}
MODEL_PARALLEL = (BG.tensorParallelSize, BG.pipelineParallelSize, BG.expertParallelSize)
CHANGE_PLACES = Decimal("0.000001")
# What derive_local reads of a run's triples (a run of 100k measurements has millions).
READ = frozenset(
    {
        BG.acceleratorCount,
        BG.accelerator,
        *MODEL_PARALLEL,
        BG.dataParallelSize,
        BG.measurement,
        BG.value,
        BG.condition,
        BG.conditionName,
        BG.conditionValue,
        BG.metric,
        BG.unitCode,
    }
)
# Bound once: rdflib's namespace lookups are slow in the per-triple loops below.
RDF_TYPE = RDF.type
IS_TYPE = frozenset([RDF.type])


def useful(triple: Triple) -> bool:
    """Whether an entailed triple is worth keeping: not reflexive, not about blank nodes,
    literals or the RDF/OWL/XSD vocabulary itself, not typing with owl:Thing/rdfs:Resource,
    not a datatype axiom."""
    s, p, o = triple
    if not isinstance(s, URIRef) or isinstance(o, BNode) or s == o:
        return False
    if str(s).startswith(BUILT_IN) or o in EVERYTHING:
        return False
    return not (p == RDF.type and (o == RDFS.Datatype or str(o).startswith(str(XSD))))


def owlrl_closure(graph: Graph) -> set[Triple]:
    """The useful triples a full owlrl OWL-RL closure adds to `graph` (a copy is closed)."""
    import owlrl

    closed = Graph()
    for t in graph:
        closed.add(t)
    before = set(closed)
    owlrl.DeductiveClosure(
        owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False
    ).expand(closed)
    return {t for t in closed if t not in before and useful(t)}


class Reasoner:
    """The ontology closed once with owlrl, its hierarchy ready to apply to one record."""

    def __init__(self, ontology: Graph):
        self.ontology = ontology
        self.closure = sorted(owlrl_closure(ontology))
        closed = set(ontology) | set(self.closure)
        self.superclasses: dict[URIRef, set[URIRef]] = defaultdict(set)
        self.superproperties: dict[URIRef, set[URIRef]] = defaultdict(set)
        self.domains: dict[URIRef, set[URIRef]] = defaultdict(set)
        self.ranges: dict[URIRef, set[URIRef]] = defaultdict(set)
        tables = {
            RDFS.subClassOf: self.superclasses,
            RDFS.subPropertyOf: self.superproperties,
            RDFS.domain: self.domains,
            RDFS.range: self.ranges,
        }
        for s, p, o in closed:
            table = tables.get(p)
            if (
                table is not None
                and isinstance(s, URIRef)
                and isinstance(o, URIRef)
                and s != o
                and not str(o).startswith(BUILT_IN)
            ):
                table[s].add(o)
        # owlrl closes these already; closing again keeps the fast path right on its own.
        _close(self.superclasses)
        _close(self.superproperties)
        self._plans: dict[URIRef, tuple[tuple, frozenset, frozenset]] = {}

    def unsupported(self) -> list[str]:
        """Axioms of the ontology that the fast path does not implement (should be none)."""
        out = []
        for s, p, o in self.ontology:
            if p in UNSUPPORTED or (p == RDF.type and o in UNSUPPORTED_TYPES):
                out.append(f"{s} {p} {o}")
        return sorted(out)

    def _plan(self, p: URIRef) -> tuple[tuple, frozenset, frozenset]:
        """For a predicate: its super-properties, the classes its subject and (IRI) object
        belong to by the domains and ranges of it and its super-properties, closed."""
        plan = self._plans.get(p)
        if plan is None:
            supers = tuple(sorted(self.superproperties.get(p, ())))
            domain: set[URIRef] = set()
            range_: set[URIRef] = set()
            for q in (p, *supers):
                for c in self.domains.get(q, ()):
                    domain |= {c} | self.superclasses.get(c, set())
                for c in self.ranges.get(q, ()):
                    range_ |= {c} | self.superclasses.get(c, set())
            plan = self._plans[p] = (supers, frozenset(domain), frozenset(range_))
        return plan

    def entail(self, triples: Iterable[Triple], owned) -> set[Triple]:
        """What the hierarchy entails from `triples` about subjects for which owned(s).

        The tables hold no built-in class (owl:Thing, rdfs:Resource, xsd:*), so what this
        adds is useful as it stands."""
        out: set[Triple] = set()
        add = out.add
        supers_of, plans = self.superclasses, self._plans
        for s, p, o in triples:
            if not owned(s):
                continue
            supers, domain, range_ = plans.get(p) or self._plan(p)
            for q in supers:
                add((s, q, o))
            for c in domain:
                add((s, RDF_TYPE, c))
            if range_ and isinstance(o, URIRef) and owned(o):
                for c in range_:
                    add((o, RDF_TYPE, c))
            if p in IS_TYPE:
                for c in supers_of.get(o, ()):
                    add((s, RDF_TYPE, c))
        return out

    def local(self, triples: Iterable[Triple], own: str) -> list[Triple]:
        """What one record adds to the inferred graph: the facts derived from it alone and
        what the hierarchy entails about its own nodes (`own`, `own#...` and its graph),
        minus what it states, in no particular order."""
        stated = set(triples)
        exact = {own, graph_of(own)}
        prefix = own + "#"

        def owned(term: Any) -> bool:
            # str.startswith and a set of str: an rdflib URIRef never equals a plain str
            return type(term) is URIRef and (str.startswith(term, prefix) or str(term) in exact)

        derived = set(derive_local(stated, URIRef(own)))
        out = self.entail(itertools.chain(stated, derived), owned)
        out |= derived
        out -= stated
        # in no order: rdfio.nquads sorts the text (sorting rdflib terms here took a
        # quarter of a 20k measurement record's conversion)
        return [t for t in out if t[1] not in RULE_PREDICATES and t[0] != t[2]]


def _close(edges: dict[URIRef, set[URIRef]]) -> None:
    """Transitive closure in place, without self-loops."""
    for node in list(edges):
        seen: set[URIRef] = set()
        todo = list(edges[node])
        while todo:
            n = todo.pop()
            if n in seen or n == node:
                continue
            seen.add(n)
            todo.extend(edges.get(n, ()))
        edges[node] = seen


# --- facts a run's own record supports --------------------------------------------------


def derive_local(triples: set[Triple], run: URIRef) -> Iterator[Triple]:
    """The facts one run record supports on its own: bg:crossesDevices, bg:acceleratorKinds
    and the comparisons of its measurements. Nothing for a record that is not a run."""
    if (run, RDF_TYPE, BG.BenchmarkRun) not in triples:
        return
    about: dict[Any, dict[Any, list[Any]]] = defaultdict(lambda: defaultdict(list))
    read = READ
    for s, p, o in triples:
        if p in read:
            about[s][p].append(o)
    crosses = crosses_devices(about[run])
    if crosses is not None:
        yield run, BG.crossesDevices, Literal(crosses)
    kinds = len(set(about[run].get(BG.accelerator, ())))
    if kinds:  # per-accelerator figures compare one kind only where this is 1
        yield run, BG.acceleratorKinds, Literal(kinds, datatype=XSD.integer)
    yield from comparisons(run, about)


def _int(values: list[Any]) -> int | None:
    for v in values:
        try:
            return int(v.toPython())
        except (TypeError, ValueError, AttributeError):
            continue
    return None


def crosses_devices(run: dict[Any, list[Any]]) -> bool | None:
    """Whether one copy of the model spans accelerators; None when unknown or CPU-only.

    True when a tensor, pipeline or expert parallel size is above 1; false on a single
    accelerator, when the stated model-parallel sizes are all 1, or when data-parallel
    replicas fill the accelerators; otherwise (a multi-accelerator run stating no
    parallelism) unknown, not guessed.
    """
    count = _int(run.get(BG.acceleratorCount, []))
    if not run.get(BG.accelerator) or count == 0:
        return None
    sizes = [n for p in MODEL_PARALLEL if (n := _int(run.get(p, []))) is not None]
    if any(n > 1 for n in sizes):
        return True
    if count == 1 or sizes:
        return False
    data = _int(run.get(BG.dataParallelSize, []))
    if data is not None and count is not None and data >= count:
        return False
    return None


def comparisons(run: URIRef, about: dict[Any, dict[Any, list[Any]]]) -> Iterator[Triple]:
    """Each measurement of the run compared with one baseline for each condition it varies,
    so that their number grows with the measurements, not with their square (comparing
    every pair differing in one condition took 99 s for a record of 21k measurements).

    A group: the run's measurements of one metric and unit with the same condition names
    that agree on every condition but one. Its baseline is its first-listed measurement
    (the record's order: the curator's reference comes first, as the seed lists prose
    before structured) whose value is not 0; each member whose varied condition differs
    from the baseline's is compared with it, e.g. structured (134.1) against prose (93.9):
    +0.428. A group of n measurements gives at most n - 1 comparisons."""
    value_p, condition_p, metric_p, unit_p = BG.value, BG.condition, BG.metric, BG.unitCode
    name_p, setting_p = BG.conditionName, BG.conditionValue
    comparison_p, comparison_c, compared_p = BG.comparison, BG.Comparison, BG.compared
    baseline_p, change_p, label_p, decimal = BG.baseline, BG.relativeChange, RDFS.label, XSD.decimal
    items = []
    for m in about[run].get(BG.measurement, []):
        facts = about.get(m, {})
        value = _decimal(facts.get(value_p, []))
        if value is None:
            continue
        conditions = {}
        for c in facts.get(condition_p, []):
            names = about.get(c, {}).get(name_p, [])
            values = about.get(c, {}).get(setting_p, [])
            if names and values:
                conditions[str(names[0])] = values[0]
        key = (tuple(facts.get(metric_p, [])), tuple(map(str, facts.get(unit_p, []))))
        items.append((_index(m), m, value, key, conditions))
    items.sort(key=lambda item: item[0])
    groups: dict[tuple, list[int]] = defaultdict(list)
    for position, (_, _, _, key, conditions) in enumerate(items):
        names = tuple(sorted(conditions))
        for name in names:
            rest = tuple(conditions[n] for n in names if n != name)
            groups[(key, names, name, rest)].append(position)
    changes: dict[Decimal, Literal] = {}
    labels: dict[tuple, Literal] = {}
    for (_, _, name, _), members in groups.items():
        base = next((p for p in members if items[p][2] != 0), None)
        if base is None:
            continue
        ib, b, vb, _, cb = items[base]
        for position in members:
            ia, a, va, _, ca = items[position]
            if ca[name] == cb[name]:  # the same condition twice: nothing varies
                continue
            node = URIRef(f"{run}#comparison-{ia}-vs-{ib}")
            change = (va / vb - 1).quantize(CHANGE_PLACES, rounding=ROUND_HALF_EVEN)
            # literals made once each: a sweep repeats its labels and often its changes
            change_literal = changes.get(change)
            if change_literal is None:
                change_literal = changes[change] = Literal(change, datatype=decimal)
            label = labels.get((name, ca[name], cb[name]))
            if label is None:
                label = labels[(name, ca[name], cb[name])] = Literal(
                    f"{name} {ca[name]} vs {cb[name]}"
                )
            yield run, comparison_p, node
            yield node, RDF_TYPE, comparison_c
            yield node, compared_p, a
            yield node, baseline_p, b
            yield node, change_p, change_literal
            yield node, label_p, label


def _index(measurement: Any) -> int:
    tail = str(measurement).rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0


def _decimal(values: list[Any]) -> Decimal | None:
    for v in values:
        try:
            return Decimal(str(v))
        except (InvalidOperation, ValueError):
            continue
    return None
