"""Cross-record rules, run over the query store, writing the inferred graph.

These make the seed's conventions explicit and join what one record cannot see alone:
- the ontology's property chains (a run or system has every interconnect of its accelerators,
  a run every interconnect of its system), what OWL-RL's prp-spo2 derives, to a fixpoint;
- one bg:fabricStatus per run with accelerators, decided for each kind of accelerator in it
  (_kind_status) and combined: present if any kind is present, none only if every kind is
  none, else not published. A part whose fabric is built in is present, one with no peer
  link is none whatever a system says; otherwise what the run, its system and the part's
  record state decides (a missing list is never read as "none"; a scale-out network alone
  says nothing; a host link is no evidence of "none" where the run or its system says the
  fabric was not published, bg:fabricPublished false, e.g. an MLPerf system whose fabric
  field is "N/A"). A part's host interface and optional fabric are not bg:interconnect and
  reach no run. Each status links to its basis (bg:fabricStatusBasis): per kind, the rule
  applied, the record it rests on, the strongest kind of source behind the fact that
  decided (bg:basisSourceKind) and whether that fact is stated or derived (bg:basisEvidence);
- bg:outperformsBaseline on each comparison, from its metric's direction.

The store answers simple edge queries (`?s bg:accelerator ?o`) fast and multi-way joins over
its union graph slowly, so the chains and the status are joined here in Python from edge
lists: every edge for a full derivation, only the edited runs' edges for an incremental one.
At 100k synthetic runs a full derivation took about 45 s as SPARQL rules, about 25 s this way
(6 s of it deleting the previous results). Where a rule stays SPARQL it uses positive
patterns, never FILTER NOT EXISTS (quadratic in Oxigraph, oxigraph#885).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal

import pyoxigraph as ox

from ..namespaces import BG, INFERRED_GRAPH, PREFIXES, graph_of, record_iri
from ..vocab import EVIDENCE, SOURCE_KINDS

Node = ox.NamedNode
FABRIC_STATUS = Node(str(BG.fabricStatus))
OUTPERFORMS = Node(str(BG.outperformsBaseline))
COMPARISON = Node(str(BG.comparison))
RELATIVE_CHANGE, COMPARED = Node(str(BG.relativeChange)), Node(str(BG.compared))
METRIC, DIRECTION = Node(str(BG.metric)), Node(str(BG.direction))
HIGHER, LOWER = Node(str(BG.HigherIsBetter)), Node(str(BG.LowerIsBetter))
ACCELERATOR = Node(str(BG.accelerator))
SYSTEM = Node(str(BG.system))
INTERCONNECT = Node(str(BG.interconnect))
PRESENT = Node(str(BG.ScaleUpFabricPresent))
NO_FABRIC = Node(str(BG.NoScaleUpFabric))
NOT_PUBLISHED = Node(str(BG.FabricNotPublished))
RDF_TYPE = Node(PREFIXES["rdf"] + "type")
PEER_FABRIC = Node(str(BG.peerFabric))
BUILT_IN, NO_PEER = Node(str(BG.BuiltInPeerFabric)), Node(str(BG.NoPeerFabric))
SCALE_UP, HOST_LINK = Node(str(BG.ScaleUpFabric)), Node(str(BG.HostLink))
BASIS, BASIS_CLASS = Node(str(BG.fabricStatusBasis)), Node(str(BG.FabricStatusBasis))
BASIS_RULE, BASIS_STATUS = Node(str(BG.basisRule)), Node(str(BG.basisStatus))
RESTS_ON, BASIS_ACCELERATOR = Node(str(BG.restsOn)), Node(str(BG.basisAccelerator))
BASIS_KIND, BASIS_EVIDENCE = Node(str(BG.basisSourceKind)), Node(str(BG.basisEvidence))
PEER_FABRIC_FACT = PEER_FABRIC
# The kinds of source by strength, 1 the strongest (vendor) to 8 (a result set)
KIND_RANK = {Node(str(iri)): rank for rank, iri in enumerate(SOURCE_KINDS.values(), 1)}
STATED, DERIVED = Node(str(EVIDENCE["stated"])), Node(str(EVIDENCE["derived"]))
ACCELERATOR_FACT, SYSTEM_FACT = ACCELERATOR, SYSTEM
RULES = {
    name: Node(str(BG[name]))
    for name in (
        "PartFabricBuiltIn",
        "PartHasNoPeerFabric",
        "StatedFabric",
        "StatedHostLinksOnly",
        "NothingPublished",
    )
}
RUN_IRI = str(record_iri("benchmarks", ""))

# Comparisons live only in the inferred graph (infer.comparisons derives them per run).
OUTPERFORMS_RULE = """SELECT ?s ?o WHERE {
    GRAPH <https://w3id.org/benchgraph/graph/inferred> {
        ?s bg:relativeChange ?change ; bg:compared ?m }
    ?m bg:metric ?metric . ?metric bg:direction ?direction .
    VALUES ?direction { bg:HigherIsBetter bg:LowerIsBetter }
    BIND(IF(?direction = bg:HigherIsBetter, ?change > 0, ?change < 0) AS ?o) }"""

CHAINS = """SELECT ?property ?list WHERE {
    GRAPH <https://w3id.org/benchgraph/ontology> { ?property owl:propertyChainAxiom ?list } }"""


def run_rules(
    store: ox.Store, runs: list[str] | None = None, judged: list[str] | None = None
) -> None:
    """Recompute the cross-record facts, for every subject (None) or for the given runs and
    systems (a system holds the links of its accelerators), judging again the comparisons of
    the runs `judged` (None: of all `runs`). A comparison's verdict reads only its run and
    the run's metrics, so an edit that reaches runs through their hardware leaves it be.

    For given runs only the difference to what the store holds is written."""
    if runs == []:
        return
    graph = Node(str(INFERRED_GRAPH))
    chains = property_chains(store)
    supers = {
        p: super_properties(store, p)
        for p in {p for p, _ in chains} | {FABRIC_STATUS, OUTPERFORMS, BASIS}
    }
    predicates = [q for p in supers for q in [p, *supers[p]]]
    if runs is not None:
        runs = _with_nodes_below(store, runs, chains)
    read = None
    if runs is None:  # cheaper than reading it all back to write the difference
        store.update(f"DELETE WHERE {{ GRAPH {graph} {{ ?s a {BASIS_CLASS} ; ?p ?o }} }}")
        for predicate in predicates:
            store.update(f"DELETE WHERE {{ GRAPH {graph} {{ ?s {predicate} ?o }} }}")
        before: set[ox.Quad] = set()
    else:
        judged = runs if judged is None else judged
        read = _Scope(
            store,
            graph,
            [Node(r) for r in runs],
            predicates,
            sorted(
                {q for prop, path in chains for q in [prop, *path]} | {SYSTEM, ACCELERATOR},
                key=lambda n: n.value,
            ),
        )
        before = read.before | _derived_before(store, graph, read, judged, predicates)
    scope = None if runs is None else {Node(r) for r in runs}
    # with the scope read, no edge left to load can be one derived before (`before` is about
    # the scope and the nodes below it)
    edges = _Edges(store, full=scope is None, skip=before if read is None else set(), read=read)
    statuses = _fabric_status(store, edges, scope, read)  # before the chains add to the edges
    derived = _chains(edges, chains, scope)
    quads = {
        ox.Quad(s, p, o, graph)
        for (s, q), objects in derived.items()
        for o in objects
        for p in [q, *supers[q]]
    }
    for run, (status, bases) in statuses.items():
        quads |= {ox.Quad(run, p, status, graph) for p in [FABRIC_STATUS, *supers[FABRIC_STATUS]]}
        for node, triples in bases.items():
            quads |= {ox.Quad(run, p, node, graph) for p in [BASIS, *supers[BASIS]]}
            quads |= {ox.Quad(node, p, o, graph) for p, o in triples}
    if runs is None:
        pairs = {(row["s"], row["o"]) for row in _select(store, OUTPERFORMS_RULE)}
    else:
        pairs = _outperforms(store, judged, graph)
    for comparison, outperforms in pairs:
        quads |= {
            ox.Quad(comparison, p, outperforms, graph) for p in [OUTPERFORMS, *supers[OUTPERFORMS]]
        }
    for quad in before - quads:
        store.remove(quad)
    store.bulk_extend(quads - before)


class _Edges:
    """`subject -> objects` of a predicate over the union graph, fetched once per subject:
    all of them for a full derivation, only those asked for otherwise."""

    def __init__(self, store: ox.Store, full: bool, skip: set, read: _Scope | None = None):
        self.store, self.full = store, full
        self.skip: dict[Node, set] = defaultdict(set)  # predicate -> (subject, object)
        for q in skip:
            self.skip[q.predicate].add((q.subject, q.object))
        self.edges: dict[Node, dict[object, set]] = {}
        self.loaded: dict[Node, set] = defaultdict(set)
        if read is not None:  # the scope's edges, read in one pass with what was derived
            for predicate, table in read.edges.items():
                self.edges[predicate] = table
                self.loaded[predicate] = set(read.subjects)

    def of(self, predicate: Node, subjects=None) -> dict[object, set]:
        table = self.edges.setdefault(predicate, defaultdict(set))
        if self.full:
            if predicate not in self.loaded:
                self._load(predicate, "")
                self.loaded[predicate] = {None}
            return table
        todo = sorted(
            {s for s in subjects or () if isinstance(s, Node)} - self.loaded[predicate],
            key=lambda n: n.value,
        )
        for i in range(0, len(todo), 500):
            chunk = todo[i : i + 500]
            self._load(predicate, "VALUES ?s { " + " ".join(str(s) for s in chunk) + " }")
        self.loaded[predicate] |= set(todo)
        return table

    def _load(self, predicate: Node, values: str) -> None:
        """The stated edges and those not derived by these rules (which are recomputed)."""
        table = self.edges[predicate]
        graph = Node(str(INFERRED_GRAPH))
        skip = self.skip.get(predicate)
        if not skip:  # nothing derived before (a first build): the union graph will do
            for row in _select(self.store, f"SELECT ?s ?o WHERE {{ {values} ?s {predicate} ?o }}"):
                table[row["s"]].add(row["o"])
            return
        for row in _select(
            self.store, f"SELECT ?s ?o ?g WHERE {{ {values} GRAPH ?g {{ ?s {predicate} ?o }} }}"
        ):
            if row["g"] != graph or (row["s"], row["o"]) not in skip:
                table[row["s"]].add(row["o"])


def _chains(
    edges: _Edges, chains: list[tuple[Node, list[Node]]], scope: set | None
) -> dict[tuple, set]:
    """What the property chains add, (subject, property) -> objects, to a fixpoint (a run's
    system has the links of its accelerators, which the run then has too)."""
    derived: dict[tuple, set] = defaultdict(set)
    changed = True
    while changed:
        changed = False
        for prop, path in chains:
            first = edges.of(path[0], scope)
            subjects = first.keys() if scope is None else scope & first.keys()
            reached = {s: set(first[s]) for s in subjects}
            for step in path[1:]:
                table = edges.of(step, set().union(*reached.values()) if reached else set())
                reached = {
                    s: set().union(*(table.get(x, ()) for x in xs)) for s, xs in reached.items()
                }
            have = edges.of(prop, reached.keys())
            for s, objects in reached.items():
                new = objects - have.get(s, set())
                if new:
                    have[s] |= new  # later chains see what earlier ones derived
                    derived[(s, prop)] |= new
                    changed = True
    return derived


def _fabric_status(
    store: ox.Store, edges: _Edges, scope: set | None, read: _Scope | None = None
) -> dict[Node, tuple[Node, dict[Node, set]]]:
    """Exactly one status per run with accelerators in scope (none for CPU-only runs), with
    its basis: a node per kind of accelerator, `<run>#fabric-basis-<accelerator id>`, and the
    (predicate, object) pairs it holds. `read`: what was read of the scope already."""
    if scope is None:
        runs = {row["s"] for row in _select(store, "SELECT ?s WHERE { ?s a bg:BenchmarkRun }")}
    else:
        runs = read.runs & scope
    kinds = {
        row["i"]: row["c"]
        for row in _select(
            store,
            """SELECT ?i ?c WHERE {
        VALUES ?c { bg:ScaleUpFabric bg:HostLink } ?i a ?c }""",
        )
    }
    unpublished = {
        row["s"] for row in _select(store, "SELECT ?s WHERE { ?s bg:fabricPublished false }")
    }
    systems = edges.of(SYSTEM, runs)
    machines = set().union(*(systems.get(r, ()) for r in runs)) if runs else set()
    # the kinds of accelerator in a run's hardware: its own and its systems' (as the chains
    # gather a run's interconnects), each decided by its own part
    accelerators = edges.of(ACCELERATOR, runs | machines)
    parts = set().union(*(accelerators.get(r, ()) for r in runs | machines)) if runs else set()
    fabric_of = edges.of(PEER_FABRIC, parts)
    stated = _stated_links(store, edges, scope, runs | parts | machines, read)
    out = {}
    for run in runs:
        if not accelerators.get(run):
            continue
        asked = [run, *sorted(systems.get(run, ()), key=lambda n: n.value)]
        kinds_here = sorted(
            set().union(*(accelerators.get(r, ()) for r in asked)), key=lambda n: n.value
        )
        closed = run in unpublished or any(s in unpublished for s in asked[1:])
        bases = {}
        for part in kinds_here:
            status, rule, rests = _kind_status(
                part, fabric_of.get(part, ()), asked, stated, kinds, closed
            )
            node = Node(f"{run.value}#fabric-basis-{part.value.rsplit('/', 1)[1]}")
            bases[node] = {
                (RDF_TYPE, BASIS_CLASS),
                (BASIS_ACCELERATOR, part),
                (BASIS_RULE, RULES[rule]),
                (BASIS_STATUS, status),
                *((RESTS_ON, r) for r in rests),
            }
        found = {o for triples in bases.values() for p, o in triples if p == BASIS_STATUS}
        status = (
            PRESENT if PRESENT in found else NO_FABRIC if found == {NO_FABRIC} else NOT_PUBLISHED
        )
        out[run] = (status, bases)
    _strength(store, out, runs, scope)
    return out


def _strength(
    store: ox.Store,
    statuses: dict[Node, tuple[Node, dict[Node, set]]],
    runs: set[Node],
    scope: set | None,
) -> None:
    """Add to each basis the strongest kind of source behind the fact that decided it and
    whether that fact is stated or derived. The fact is the part's fabric for a part rule,
    the run's or system's interconnect list for a stated one (nothing for nothing published).
    It is derived where no source states it and some derive it, and also where the run's
    link to the record it rests on is itself derived (a run whose part or machine other
    files identify: its sources `derives: [accelerators]` or `[system]`)."""
    wanted: set[Node] = set()
    for _status, bases in statuses.values():
        for triples in bases.values():
            rule = next(o for p, o in triples if p == BASIS_RULE)
            if rule != RULES["NothingPublished"]:
                wanted |= {o for p, o in triples if p == RESTS_ON}
    sources = _sources_of(store, wanted)
    derived_links = _derived_links(store, runs if scope is not None else None)
    part_rules = {RULES["PartFabricBuiltIn"], RULES["PartHasNoPeerFabric"]}
    for run, (_status, bases) in statuses.items():
        links = derived_links.get(run, set())
        for triples in bases.values():
            rule = next(o for p, o in triples if p == BASIS_RULE)
            if rule == RULES["NothingPublished"]:
                continue
            fact = PEER_FABRIC_FACT if rule in part_rules else INTERCONNECT
            best = None
            for record in (o for p, o in triples if p == RESTS_ON):
                rank, derived = _evidence(
                    sources.get(record, ()), fact, whole=not record.value.startswith(PART_IRI)
                )
                # the record a part rule rests on is the run's part, a stated one's the run,
                # its system or its part: reached through a derived link, it is derived
                if (
                    ACCELERATOR_FACT in links
                    and (rule in part_rules or record.value.startswith(PART_IRI))
                ) or (SYSTEM_FACT in links and record.value.startswith(SYSTEM_IRI)):
                    derived = True
                key = (derived, rank if rank is not None else 99)
                if best is None or key < best:
                    best = key
            if best is None:
                continue
            derived, rank = best
            triples.add((BASIS_EVIDENCE, DERIVED if derived else STATED))
            if rank != 99:
                triples.add((BASIS_KIND, RANKED[rank]))


RANKED = {rank: kind for kind, rank in KIND_RANK.items()}
PART_IRI = str(record_iri("accelerators", ""))
SYSTEM_IRI = str(record_iri("systems", ""))


def _evidence(sources, fact: Node, whole: bool) -> tuple[int | None, bool]:
    """(the strongest rank, derived?) of a fact from a record's sources, each a
    (kind, stated properties, derived properties): those that state it, else those that
    derive it, else, for a run or system (`whole`: its sources vouch for the record as a
    whole, an MLPerf system description for every field), all of them. A part's facts are
    sourced field by field: one no source names has no kind."""
    stating = [kind for kind, states, _ in sources if fact in states]
    deriving = [kind for kind, states, derives in sources if fact in derives]
    kinds, derived = (
        (stating, False)
        if stating
        else (deriving, True)
        if deriving
        else ([kind for kind, _, _ in sources] if whole else [], False)
    )
    ranks = [KIND_RANK[k] for k in kinds if k in KIND_RANK]
    return (min(ranks) if ranks else None), derived


def _sources_of(store: ox.Store, records: set[Node]) -> dict[Node, list[tuple]]:
    """Each record's sources as (kind, stated properties, derived properties), by index
    lookups (a few records: the parts, systems and runs the bases rest on)."""
    source, kind_p = Node(PREFIXES["dct"] + "source"), Node(str(BG.sourceKind))
    states, derives = Node(str(BG.states)), Node(str(BG.derives))
    inferred = Node(str(INFERRED_GRAPH))
    out: dict[Node, list[tuple]] = {}
    for record in records:
        found = []
        for link in store.quads_for_pattern(record, source, None):
            if link.graph_name == inferred:
                continue
            node = link.object
            kind = next((q.object for q in store.quads_for_pattern(node, kind_p, None)), None)
            stated = {q.object for q in store.quads_for_pattern(node, states, None)}
            derived = {q.object for q in store.quads_for_pattern(node, derives, None)}
            found.append((kind, stated, derived))
        out[record] = found
    return out


def _derived_links(store: ox.Store, runs: set[Node] | None) -> dict[Node, set[Node]]:
    """The runs whose part or system is derived (a source `derives: [accelerators]` or
    `[system]`): run -> {bg:accelerator, bg:system}. All runs (None) or the given ones."""
    out: dict[Node, set[Node]] = defaultdict(set)
    query = (
        "SELECT ?r ?f WHERE { %s ?r dct:source ?s . ?s bg:derives ?f . "
        "VALUES ?f { bg:accelerator bg:system } }"
    )
    if runs is None:
        for row in _select(store, query % ""):
            out[row["r"]].add(row["f"])
        return out
    order = sorted(runs, key=lambda n: n.value)
    for i in range(0, len(order), 500):
        values = "VALUES ?r { " + " ".join(str(r) for r in order[i : i + 500]) + " }"
        for row in _select(store, query % values):
            out[row["r"]].add(row["f"])
    return out


def _kind_status(
    part: Node, fabric: set, asked: list[Node], stated: dict[Node, set], kinds: dict, closed: bool
) -> tuple[Node, str, list[Node]]:
    """(status, rule, records it rests on) for one kind of accelerator of a run. `asked`:
    the run and its systems, whose own statements decide unless the part does; `closed`:
    one of them says the fabric was not published (a host link is then no evidence)."""
    if BUILT_IN in fabric:
        return PRESENT, "PartFabricBuiltIn", [part]
    if NO_PEER in fabric:
        return NO_FABRIC, "PartHasNoPeerFabric", [part]
    said = {record: {kinds.get(i) for i in stated.get(record, ())} for record in [*asked, part]}
    fabric_said = [r for r, found in said.items() if SCALE_UP in found]
    if fabric_said:
        return PRESENT, "StatedFabric", fabric_said
    host_said = [r for r, found in said.items() if HOST_LINK in found]
    if host_said and not closed:
        return NO_FABRIC, "StatedHostLinksOnly", host_said
    return NOT_PUBLISHED, "NothingPublished", asked


def _stated_links(
    store: ox.Store, edges: _Edges, scope: set | None, subjects: set, read: _Scope | None = None
) -> dict[Node, set]:
    """The interconnects each record states itself (its own graph), not those the chains
    derive: a part's links decide for that part only, not for another kind in the run."""
    if scope is None:  # a full derivation removed what the chains derived: all is stated
        table = edges.of(INTERCONNECT)
        return {s: set(table[s]) for s in subjects if s in table}
    graph = Node(str(INFERRED_GRAPH))
    out: dict[Node, set] = {
        s: set(read.stated_links[s])
        for s in subjects
        if s in read.subjects and s in read.stated_links
    }
    for s in subjects - read.subjects:  # the parts and systems outside the scope: few
        found = {
            q.object
            for q in store.quads_for_pattern(s, INTERCONNECT, None)
            if q.graph_name != graph
        }
        if found:
            out[s] = found
    return out


def _outperforms(store: ox.Store, runs: list[str], graph: Node) -> set[tuple[Node, object]]:
    """OUTPERFORMS_RULE for the comparisons of these runs, by index lookups: the rule with
    a VALUES block of runs took Oxigraph 23 s for 2.3k runs of a 100k store."""
    directions: dict[object, set] = {}
    out = set()
    for run in runs:
        for link in store.quads_for_pattern(Node(run), COMPARISON, None, graph):
            node = link.object
            for change in store.quads_for_pattern(node, RELATIVE_CHANGE, None, graph):
                for compared in store.quads_for_pattern(node, COMPARED, None, graph):
                    for metric in store.quads_for_pattern(compared.object, METRIC, None):
                        if metric.object not in directions:
                            directions[metric.object] = {
                                q.object
                                for q in store.quads_for_pattern(metric.object, DIRECTION, None)
                            }
                        value = Decimal(change.object.value)
                        for direction in directions[metric.object]:
                            if direction == HIGHER:
                                out.add((node, ox.Literal(value > 0)))
                            elif direction == LOWER:
                                out.add((node, ox.Literal(value < 0)))
    return out


def _select(store: ox.Store, query: str):
    return list(store.query(query, use_default_graph_as_union=True, prefixes=PREFIXES))


def property_chains(store: ox.Store) -> list[tuple[Node, list[Node]]]:
    """(property, [p1, p2, ...]) for each owl:propertyChainAxiom in the ontology graph."""
    rdf = PREFIXES["rdf"]
    first_p, rest_p, nil = Node(rdf + "first"), Node(rdf + "rest"), Node(rdf + "nil")
    out = []
    for row in _select(store, CHAINS):
        steps, node = [], row["list"]
        while node != nil:
            first = next(store.quads_for_pattern(node, first_p, None), None)
            rest = next(store.quads_for_pattern(node, rest_p, None), None)
            if first is None or rest is None:
                break
            steps.append(first.object)
            node = rest.object
        else:
            out.append((row["property"], steps))
    return sorted(out, key=lambda c: (c[0].value, [p.value for p in c[1]]))


def super_properties(store: ox.Store, prop: Node) -> list[Node]:
    """The ontology's super-properties of prop (closed), without prop itself."""
    rows = _select(
        store, f"SELECT DISTINCT ?q WHERE {{ {prop} rdfs:subPropertyOf+ ?q FILTER(?q != {prop}) }}"
    )
    return sorted((row["q"] for row in rows), key=lambda n: n.value)


def _with_nodes_below(
    store: ox.Store, records: list[str], chains: list[tuple[Node, list[Node]]]
) -> list[str]:
    """The records and the nodes below them that the chains apply to (a system's
    `<system>#accelerators-1`), from the records' graphs. (The build removed what was
    derived about the nodes of a record's previous version: load.Loader._remove.)"""
    out = set(records)
    firsts = {path[0] for _, path in chains}
    for record in records:
        if record.startswith(RUN_IRI):  # a run's nodes never carry a chain's first link
            continue
        mine = record + "#"
        for predicate in firsts:
            out.update(
                q.subject.value
                for q in store.quads_for_pattern(None, predicate, None, Node(graph_of(record)))
                if q.subject.value.startswith(mine)
            )
    return sorted(out)


class _Scope:
    """What the incremental rules read of the subjects in scope (runs, systems and the nodes
    below systems), in one pass: a query a few hundred subjects at a time, each subject's
    quads filtered in the store, the predicate and graph handed back as small numbers.

    At 100k runs an edited accelerator put 14.8k runs in scope, and the store's cost is per
    lookup (about 20 us: one for each subject and pattern) and per term handed to Python
    (about 2.5 us: each IRI is read from the store's string table). One lookup a subject for
    every predicate the rules read, rather than one a subject and predicate, and the
    types' objects and the subjects left in the store (a subject comes back as its place in
    the query), read a fifth of the terms in a third of the lookups."""

    CHUNK = 500

    def __init__(
        self,
        store: ox.Store,
        graph: Node,
        subjects: list[Node],
        derived: list[Node],
        inputs: list[Node],
    ):
        self.subjects = set(subjects)
        self.before: set[ox.Quad] = set()  # what the rules derived about the subjects
        self.edges: dict[Node, dict[object, set]] = {p: defaultdict(set) for p in inputs}
        self.stated_links: dict[Node, set] = defaultdict(set)  # outside the inferred graph
        self.runs: set[Node] = set()
        wanted = list(dict.fromkeys([*derived, *inputs]))
        run_class = Node(str(BG.BenchmarkRun))
        code = "-1"
        for i, p in reversed(list(enumerate(wanted))):
            code = f"IF(?p = {p}, {i}, {code})"
        is_derived = [p in derived for p in wanted]
        is_input = [p in self.edges for p in wanted]
        order = sorted(subjects, key=lambda n: n.value)
        for chunk, values in _numbered(order):
            for j, k, o, inferred in store.query(
                f"SELECT ?j ?k ?v ?i WHERE {{ VALUES (?s ?j) {{ {values} }}"
                f" GRAPH ?g {{ ?s ?p ?o }} FILTER(?p IN ({', '.join(map(str, wanted))})"
                f" || (?p = {RDF_TYPE} && ?o = {run_class}))"
                f" BIND({code} AS ?k) BIND(IF(?k < 0, 0, ?o) AS ?v)"
                f" BIND(?g = {graph} AS ?i) }}"
            ):
                s, n, mine = chunk[int(j.value)], int(k.value), inferred.value == "true"
                if n < 0:
                    self.runs.add(s)
                    continue
                p = wanted[n]
                if mine and is_derived[n]:
                    self.before.add(ox.Quad(s, p, o, graph))
                    continue  # an edge derived before is derived again or not at all
                if is_input[n]:
                    self.edges[p][s].add(o)
                if p == INTERCONNECT and not mine:
                    self.stated_links[s].add(o)


def _derived_before(
    store: ox.Store, graph: Node, read: _Scope, judged: list[str], predicates: list[Node]
) -> set[ox.Quad]:
    """What the rules derived before below the runs in scope (their basis nodes, whole) and
    about the comparisons of the judged runs (what they derived about the runs and systems
    themselves: `read.before`)."""
    subjects = [
        link.object
        for r in judged
        for link in store.quads_for_pattern(Node(r), COMPARISON, None, graph)
    ]
    wanted = set(predicates)
    out: set[ox.Quad] = set()
    for subject in subjects:  # one lookup a subject, not one a subject and predicate
        out.update(
            q for q in store.quads_for_pattern(subject, None, None, graph) if q.predicate in wanted
        )
    out.update(
        _whole(
            store,
            graph,
            sorted({q.object for q in read.before if q.predicate == BASIS}, key=lambda n: n.value),
        )
    )
    return out


# What a basis node holds (_fabric_status), each handed back as a number (see _Scope)
BASIS_PREDICATES = (
    RDF_TYPE,
    BASIS_ACCELERATOR,
    BASIS_RULE,
    BASIS_STATUS,
    RESTS_ON,
    BASIS_KIND,
    BASIS_EVIDENCE,
)


def _whole(store: ox.Store, graph: Node, nodes: list[Node]) -> Iterator[ox.Quad]:
    """Every quad of these nodes in `graph`, the basis nodes' own predicates handed back as
    numbers (any other as itself), a few hundred nodes a query."""
    code = "?p"
    for i, p in reversed(list(enumerate(BASIS_PREDICATES))):
        code = f"IF(?p = {p}, {i}, {code})"
    for chunk, values in _numbered(nodes):
        for j, k, o in store.query(
            f"SELECT ?j ?k ?o WHERE {{ VALUES (?n ?j) {{ {values} }} "
            f"GRAPH {graph} {{ ?n ?p ?o }} BIND({code} AS ?k) }}"
        ):
            yield ox.Quad(
                chunk[int(j.value)],
                BASIS_PREDICATES[int(k.value)] if isinstance(k, ox.Literal) else k,
                o,
                graph,
            )


def _numbered(nodes: list[Node]) -> Iterator[tuple[list[Node], str]]:
    """The nodes a few hundred at a time, each with a VALUES block pairing each node with
    its place: a query hands the number back, not the node's IRI (read from the store's
    string table for every row)."""
    for i in range(0, len(nodes), _Scope.CHUNK):
        chunk = nodes[i : i + _Scope.CHUNK]
        yield chunk, " ".join(f"({n} {j})" for j, n in enumerate(chunk))
