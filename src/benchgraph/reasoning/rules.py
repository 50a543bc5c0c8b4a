"""Cross-record rules: what one record cannot derive alone, into the inferred graph.

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

They read no store. Each record's worker takes from its triples what these rules read of it
(`rule_facts`: its edges of the chains' properties, the types and fabric flags they test, its
sources, its comparisons and metric directions), and the build keeps that in its cache; a
`World` joins the facts of the records asked about with those of every record that is not
a run (parts, systems, interconnects, metrics: few), and `World.derive` hands each record's
derived quads as N-Quads lines. The facts are what the store's union graph holds of these
predicates, read where each record is converted, so the result is what the rules read from
the store gave (tests/reasoning compare incremental builds with fresh ones quad by quad).
Run over the store they took most of a cold build's serial end: at 60k synthetic runs
11-14 s of the build's thread and as much again of the store's, reading what the workers
had just written; an edited accelerator's 14.7k runs at 100k took 3.5-3.9 s.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from rdflib import Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS, XSD

from ..namespaces import BG, ID, INFERRED_GRAPH, RUN, record_iri
from ..vocab import EVIDENCE, SOURCE_KINDS

FABRIC_STATUS = str(BG.fabricStatus)
OUTPERFORMS = str(BG.outperformsBaseline)
HIGHER, LOWER = str(BG.HigherIsBetter), str(BG.LowerIsBetter)
ACCELERATOR = str(BG.accelerator)
SYSTEM = str(BG.system)
INTERCONNECT = str(BG.interconnect)
PRESENT = str(BG.ScaleUpFabricPresent)
NO_FABRIC = str(BG.NoScaleUpFabric)
NOT_PUBLISHED = str(BG.FabricNotPublished)
RDF_TYPE = str(RDF.type)
RUN_CLASS = str(BG.BenchmarkRun)
BUILT_IN, NO_PEER = str(BG.BuiltInPeerFabric), str(BG.NoPeerFabric)
SCALE_UP, HOST_LINK = str(BG.ScaleUpFabric), str(BG.HostLink)
BASIS, BASIS_CLASS = str(BG.fabricStatusBasis), str(BG.FabricStatusBasis)
BASIS_RULE, BASIS_STATUS = str(BG.basisRule), str(BG.basisStatus)
RESTS_ON, BASIS_ACCELERATOR = str(BG.restsOn), str(BG.basisAccelerator)
BASIS_KIND, BASIS_EVIDENCE = str(BG.basisSourceKind), str(BG.basisEvidence)
# The kinds of source by strength, 1 the strongest (vendor) to 8 (a result set)
KIND_RANK = {str(iri): rank for rank, iri in enumerate(SOURCE_KINDS.values(), 1)}
RANKED = {rank: kind for kind, rank in KIND_RANK.items()}
STATED, DERIVED = str(EVIDENCE["stated"]), str(EVIDENCE["derived"])
RULES = {
    name: str(BG[name])
    for name in (
        "PartFabricBuiltIn",
        "PartHasNoPeerFabric",
        "StatedFabric",
        "StatedHostLinksOnly",
        "NothingPublished",
    )
}
PART_RULES = {RULES["PartFabricBuiltIn"], RULES["PartHasNoPeerFabric"]}
PART_IRI = str(record_iri("accelerators", ""))
SYSTEM_IRI = str(record_iri("systems", ""))
IDS = str(ID)
RUNS_IRI = str(record_iri("benchmarks", ""))
GRAPH = f"<{INFERRED_GRAPH}>"
TRUE = '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>'
FALSE = '"false"^^<http://www.w3.org/2001/XMLSchema#boolean>'

# The predicates rule_facts reads besides the chains', as plain strings: rdflib's URIRef
# compares and hashes in Python, and comparing each triple's predicate with each of these
# was half of rule_facts' time in the workers (2M compares for 3,000 runs).
(_TYPE, _PUBLISHED, _PEER, _SOURCE, _SOURCE_KIND, _STATES, _DERIVES) = range(7)
(_CHANGE, _COMPARED, _METRIC, _DIRECTION) = range(7, 11)
_READ = {
    str(RDF.type): _TYPE,
    str(BG.fabricPublished): _PUBLISHED,
    str(BG.peerFabric): _PEER,
    str(DCTERMS.source): _SOURCE,
    str(BG.sourceKind): _SOURCE_KIND,
    str(BG.states): _STATES,
    str(BG.derives): _DERIVES,
    str(BG.relativeChange): _CHANGE,
    str(BG.compared): _COMPARED,
    str(BG.metric): _METRIC,
    str(BG.direction): _DIRECTION,
}
_TESTED_TYPES = {str(BG.BenchmarkRun), str(BG.ScaleUpFabric), str(BG.HostLink)}
_BOOLEAN = str(XSD.boolean)


def _short(iri: str) -> str:
    """An IRI as rule facts keep it: benchgraph's records' without their common start."""
    return "~" + iri[len(IDS) :] if iri.startswith(IDS) else iri


def _long(text: str) -> str:
    return IDS + text[1:] if text.startswith("~") else text


@dataclass(frozen=True)
class RuleSet:
    """What the rules take from the ontology: its property chains, the super-properties of
    what they derive, and the ontology's own facts of what they read."""

    chains: tuple[tuple[str, tuple[str, ...]], ...]  # (property, (p1, p2, ...)), sorted
    supers: dict[str, tuple[str, ...]]  # property -> its super-properties (closed)
    edges: tuple[str, ...]  # the chains' properties, and the system and accelerator links
    ontology: str  # rule_facts of the ontology's graph and its closure, as JSON


@lru_cache(maxsize=1)
def ruleset() -> RuleSet:
    """The rules' part of the ontology (reasoning.ontology.reasoner), made once a process."""
    from .ontology import reasoner

    r = reasoner()
    graph, closure = r.ontology, r.closure
    chains = []
    for prop, head in graph.subject_objects(OWL.propertyChainAxiom):
        chains.append((str(prop), tuple(str(p) for p in Collection(graph, head))))
    chains.sort()
    parents: dict[str, set[str]] = defaultdict(set)
    for s, p, o in [*graph, *closure]:
        if p == RDFS.subPropertyOf and isinstance(o, URIRef) and s != o:
            parents[str(s)].add(str(o))
    supers = {}
    edges = tuple(
        sorted({q for prop, path in chains for q in (prop, *path)} | {SYSTEM, ACCELERATOR})
    )
    for prop in {*(p for p, _ in chains), FABRIC_STATUS, OUTPERFORMS, BASIS}:
        seen, todo = set(), [prop]
        while todo:
            for q in parents.get(todo.pop(), ()):
                if q not in seen and q != prop:
                    seen.add(q)
                    todo.append(q)
        supers[prop] = tuple(sorted(seen))
    made = RuleSet(tuple(chains), supers, edges, "")
    ontology = _facts(made, list(graph), list(closure))
    return RuleSet(made.chains, made.supers, made.edges, ontology)


# A record's rule facts name the record itself (and the nodes below it) as OWN: runs alike
# but for their IRI (same links, statements, sources, comparisons) have the same text, and a
# build derives one of them for all (pipeline.derive). A space ends every IRI, so no other
# IRI reads as it; World.add names the record again.
OWN = "~ "


def rule_facts(stated: Iterable[tuple], inferred: Iterable[tuple], own: str) -> str:
    """What the cross-record rules read of one record, from its triples (rdflib terms) as
    its graph holds them (`stated`) and as its local reasoning adds them to the inferred
    graph (`inferred`), as JSON, the record's IRI `own` written as OWN."""
    short = _short(own)
    return (
        _facts(ruleset(), stated, inferred)
        .replace(f'"{short}"', f'"{OWN}"')
        .replace(f'"{short}#', f'"{OWN}#')
    )


@lru_cache(maxsize=4)
def _edge_codes(edges: tuple[str, ...]) -> dict[str, int]:
    return {p: i for i, p in enumerate(edges)}


def _facts(rs: RuleSet, stated: Iterable[tuple], inferred: Iterable[tuple]) -> str:
    codes = _edge_codes(rs.edges)
    edges, types, unpublished, peer = [], [], [], []
    links, kinds, states, derives = [], defaultdict(list), defaultdict(list), defaultdict(list)
    changes, compared, metrics, directions = [], [], defaultdict(list), []
    read = _READ.get
    for flag, triples in ((0, stated), (1, inferred)):
        for s, p, o in triples:
            if not isinstance(s, URIRef):
                continue
            p = str(p)  # a plain str: compared and hashed in C
            code = codes.get(p)
            if code is not None:
                if isinstance(o, URIRef):
                    edges.append((_short(s), code, _short(o), flag))
                continue
            which = read(p)
            if which is None:
                continue
            if which == _TYPE:
                if str(o) in _TESTED_TYPES:
                    types.append((_short(s), str(o)))
            elif which == _PUBLISHED:
                if isinstance(o, Literal) and str(o.datatype) == _BOOLEAN and str(o) == "false":
                    unpublished.append(_short(s))
            elif which == _PEER:
                peer.append((_short(s), str(o)))
            elif which == _SOURCE:
                links.append((_short(s), str(o), flag))
            elif which == _SOURCE_KIND:
                kinds[str(s)].append(str(o))
            elif which == _STATES:
                states[str(s)].append(str(o))
            elif which == _DERIVES:
                derives[str(s)].append(str(o))
            elif which == _CHANGE:
                if flag and isinstance(o, Literal):
                    changes.append((str(s), str(o)))
            elif which == _COMPARED:
                if flag:
                    compared.append((str(s), str(o)))
            elif which == _METRIC:
                metrics[str(s)].append(str(o))
            else:  # _DIRECTION
                directions.append((_short(s), str(o)))
    out: dict[str, list] = {}
    if edges:
        out["e"] = sorted(set(edges))
    if types:
        out["t"] = sorted(set(types))
    if unpublished:
        out["u"] = sorted(set(unpublished))
    if peer:
        out["f"] = sorted(set(peer))
    if links:
        # a record's sources, each joined here with what its own node says: the source's
        # kind, the fields it states and those it derives (kept on the record's own nodes)
        out["s"] = sorted(
            (s, kinds[node][:1], sorted(set(states[node])), sorted(set(derives[node])), flag)
            for s, node, flag in set(links)
        )
    if changes:
        # a comparison's change with the metrics of the measurement it compares (its own)
        of = defaultdict(set)
        for node, m in compared:
            of[node] |= set(metrics.get(m, ()))
        out["c"] = sorted(
            (_short(node), change, sorted(of[node])) for node, change in set(changes) if node in of
        )
    if directions:
        out["d"] = sorted(set(directions))
    return json.dumps(out, separators=(",", ":"))


class World:
    """The rule facts of records, joined: add every record the rules may read (all but the
    runs not asked about), then derive the records asked about."""

    def __init__(self, rules: RuleSet | None = None):
        self.rules = rs = rules or ruleset()
        self.edges: dict[str, dict[str, set[str]]] = {p: defaultdict(set) for p in rs.edges}
        self.derived: dict[str, dict[str, set[str]]] = {p: defaultdict(set) for p in rs.edges}
        self.stated_links: dict[str, set[str]] = defaultdict(set)
        self.types: dict[str, set[str]] = defaultdict(set)
        self.unpublished: set[str] = set()
        self.peer: dict[str, set[str]] = defaultdict(set)
        # subject -> [(kind or None, states, derives, in the inferred graph)]
        self.sources: dict[str, list[tuple]] = defaultdict(list)
        self.comparisons: dict[str, list[tuple]] = defaultdict(list)  # record -> (node, ...)
        self.directions: dict[str, set[str]] = defaultdict(set)
        self.subjects: dict[str, set[str]] = defaultdict(set)  # record -> its edges' subjects
        self.closed: set[str] = set()  # subjects whose chains are closed
        self.add("", rs.ontology)

    def add(self, own: str, facts: str) -> None:
        """The facts (rule_facts) of the record whose IRI is `own` ("" for the ontology)."""
        got = json.loads(facts.replace(f'"{OWN}', f'"{_short(own)}') if own else facts)
        edges, mine = self.rules.edges, self.subjects[own]
        for s, code, o, flag in got.get("e", ()):
            s, o, p = _long(s), _long(o), edges[code]
            self.edges[p][s].add(o)
            mine.add(s)
            if p == INTERCONNECT and not flag:
                self.stated_links[s].add(o)
        for s, c in got.get("t", ()):
            self.types[_long(s)].add(c)
        for s in got.get("u", ()):
            self.unpublished.add(_long(s))
        for s, o in got.get("f", ()):
            self.peer[_long(s)].add(o)
        for s, kind, states, derives, flag in got.get("s", ()):
            self.sources[_long(s)].append((kind[0] if kind else None, states, derives, flag))
        for node, change, metrics in got.get("c", ()):
            self.comparisons[own].append((_long(node), change, metrics))
        for s, o in got.get("d", ()):
            self.directions[_long(s)].add(o)

    def forget(self, records: Iterable[str]) -> None:
        """Let go of what these records (runs: nothing links to them) added."""
        for r in records:
            for s in (r, *self.subjects.pop(r, ())):
                for table in (*self.edges.values(), *self.derived.values()):
                    table.pop(s, None)
                for table in (self.stated_links, self.types, self.peer, self.sources):
                    table.pop(s, None)
                self.unpublished.discard(s)
                self.closed.discard(s)
            self.comparisons.pop(r, None)

    def derive(self, records: Iterable[str]) -> dict[str, list[str]]:
        """Each record's derived quads as sorted N-Quads lines (record IRI -> lines), for
        the records asked about; every record they link to must have been added."""
        records = list(records)
        out: dict[str, list[str]] = {}
        self._close_chains({s for r in records for s in (r, *self.subjects.get(r, ()))})
        supers, chains, derived = self.rules.supers, self.rules.chains, self.derived
        props = list(dict.fromkeys(prop for prop, _ in chains))
        kinds = self._interconnect_kinds()
        statuses: dict[tuple, list[str]] = {}  # a run's signature -> its lines, run as RUN
        for r in records:
            lines: set[str] = set()
            for s in (r, *self.subjects.get(r, ())):
                for prop in props:
                    for o in derived[prop].get(s, ()):
                        for p in (prop, *supers[prop]):
                            lines.add(f"<{s}> <{p}> <{o}> {GRAPH} .\n")
            if RUN_CLASS in self.types.get(r, ()):
                # runs of the same hardware, statements and sources have the same status
                # and bases but for the run's own IRI: decided once for each such kind
                key = self._signature(r)
                found = statuses.get(key)
                if found is None:
                    found = statuses[key] = self._status_lines(r, kinds)
                lines.update(line.replace(RUN, r) for line in found)
            for node, change, metrics in self.comparisons.get(r, ()):
                for verdict in self._outperforms(change, metrics):
                    for p in (OUTPERFORMS, *supers[OUTPERFORMS]):
                        lines.add(f"<{node}> <{p}> {verdict} {GRAPH} .\n")
            out[r] = sorted(lines)
        return out

    def _signature(self, run: str) -> tuple:
        """What a run's fabric status reads of the run itself."""
        return (
            frozenset(self.edges[ACCELERATOR].get(run, ())),
            frozenset(self.edges[SYSTEM].get(run, ())),
            frozenset(self.stated_links.get(run, ())),
            run in self.unpublished,
            tuple(
                sorted(
                    (k or "", tuple(st), tuple(d), f) for k, st, d, f in self.sources.get(run, ())
                )
            ),
        )

    def _status_lines(self, run: str, kinds: dict[str, str]) -> list[str]:
        """The run's status and bases as N-Quads lines, its IRI written as RUN."""
        found = self._fabric_status([run], kinds).get(run)
        if found is None:
            return []
        status, bases = found
        supers = self.rules.supers
        lines = [
            f"<{run}> <{p}> <{status}> {GRAPH} .\n" for p in (FABRIC_STATUS, *supers[FABRIC_STATUS])
        ]
        for node, triples in bases.items():
            lines += [f"<{run}> <{p}> <{node}> {GRAPH} .\n" for p in (BASIS, *supers[BASIS])]
            lines += [f"<{node}> <{p}> <{o}> {GRAPH} .\n" for p, o in triples]
        # the run's IRI at the start of an IRI (a subject, its basis nodes, or a record it
        # rests on): no other IRI starts with a run's and goes on with '>' or '#'
        return [
            line.replace(f"<{run}>", f"<{RUN}>").replace(f"<{run}#", f"<{RUN}#") for line in lines
        ]

    def _interconnect_kinds(self) -> dict[str, str]:
        kinds = {}
        for i, classes in self.types.items():
            if HOST_LINK in classes:  # both: the last of the store's answer, as it was
                kinds[i] = HOST_LINK
            elif SCALE_UP in classes:
                kinds[i] = SCALE_UP
        return kinds

    def _close_chains(self, subjects: set[str]) -> None:
        """What the property chains add to these subjects and to those their chains reach
        (a run's system, whose links come from its parts), to a fixpoint, into
        self.derived. Nothing links to a run, so a subject closed stays closed as more
        runs are added, and a run's own links decide what it gains: runs (and their nodes)
        of the same links are closed once for all of them."""
        chains, edges, derived = self.rules.chains, self.edges, self.derived
        steps = {p for _, path in chains for p in path}
        heads = {path[0] for _, path in chains}
        todo, need = [s for s in subjects if s not in self.closed], set()
        while todo:  # only a subject with a chain's first link has anything derived
            s = todo.pop()
            if s in need:
                continue
            need.add(s)
            for p in steps:
                for o in edges[p].get(s, ()):
                    if o not in self.closed and o not in need and any(o in edges[h] for h in heads):
                        todo.append(o)
        leaves = {s for s in need if s.startswith(RUNS_IRI)}
        if any(prop in heads for prop, _ in chains):
            leaves = set()  # a chain that feeds another's first link: the plain fixpoint
        self._fixpoint(need - leaves)
        memo: dict[tuple, dict[str, set[str]]] = {}
        for s in leaves:
            key = tuple(frozenset(edges[p].get(s, ())) for p in self.rules.edges)
            got = memo.get(key)
            if got is None:
                self._fixpoint({s})
                got = memo[key] = {prop: set(derived[prop].get(s, ())) for prop, _ in chains}
            else:
                for prop, objects in got.items():
                    if objects:
                        derived[prop][s] = set(objects)
        self.closed |= need

    def _fixpoint(self, need: set[str]) -> None:
        """The chains over these subjects to a fixpoint (those they reach closed before)."""
        chains, edges, derived = self.rules.chains, self.edges, self.derived
        changed = bool(need)
        while changed:
            changed = False
            for prop, path in chains:
                first, more_first = edges[path[0]], derived[path[0]]
                for s in need:
                    reached = first.get(s, set()) | more_first.get(s, set())
                    if not reached:
                        continue
                    for step in path[1:]:
                        table, more = edges[step], derived[step]
                        reached = set().union(
                            *(table.get(x, ()) for x in reached),
                            *(more.get(x, ()) for x in reached),
                        )
                    new = reached - edges[prop].get(s, set()) - derived[prop].get(s, set())
                    if new:
                        derived[prop][s] |= new  # later chains see what earlier ones derived
                        changed = True

    def _fabric_status(
        self, runs: list[str], kinds: dict[str, str] | None = None
    ) -> dict[str, tuple[str, dict[str, set]]]:
        """Exactly one status per run with accelerators (none for CPU-only runs), with its
        basis: a node per kind of accelerator, `<run>#fabric-basis-<accelerator id>`, and
        the (predicate, object) pairs it holds."""
        kinds = self._interconnect_kinds() if kinds is None else kinds
        systems, accelerators = self.edges[SYSTEM], self.edges[ACCELERATOR]
        out = {}
        for run in runs:
            if not accelerators.get(run):
                continue
            asked = [run, *sorted(systems.get(run, ()))]
            kinds_here = sorted(set().union(*(accelerators.get(r, ()) for r in asked)))
            closed = any(r in self.unpublished for r in asked)
            bases = {}
            for part in kinds_here:
                status, rule, rests = _kind_status(
                    part, self.peer.get(part, ()), asked, self.stated_links, kinds, closed
                )
                node = f"{run}#fabric-basis-{part.rsplit('/', 1)[1]}"
                bases[node] = {
                    (RDF_TYPE, BASIS_CLASS),
                    (BASIS_ACCELERATOR, part),
                    (BASIS_RULE, RULES[rule]),
                    (BASIS_STATUS, status),
                    *((RESTS_ON, r) for r in rests),
                }
                self._strength(run, RULES[rule], rests, bases[node])
            found = {o for triples in bases.values() for p, o in triples if p == BASIS_STATUS}
            status = (
                PRESENT
                if PRESENT in found
                else NO_FABRIC
                if found == {NO_FABRIC}
                else NOT_PUBLISHED
            )
            out[run] = (status, bases)
        return out

    def _strength(self, run: str, rule: str, rests: list[str], triples: set) -> None:
        """Add to a basis the strongest kind of source behind the fact that decided it and
        whether that fact is stated or derived. The fact is the part's fabric for a part
        rule, the run's or system's interconnect list for a stated one (nothing for nothing
        published). It is derived where no source states it and some derive it, and also
        where the run's link to the record it rests on is itself derived (a run whose part
        or machine other files identify: its sources `derives: [accelerators]` or
        `[system]`)."""
        if rule == RULES["NothingPublished"]:
            return
        links = {f for _, _, derives, _ in self.sources.get(run, ()) for f in derives}
        fact = str(BG.peerFabric) if rule in PART_RULES else INTERCONNECT
        best = None
        for record in rests:
            sources = [
                (kind, states, derives)
                for kind, states, derives, flag in self.sources.get(record, ())
                if not flag
            ]
            rank, derived = _evidence(sources, fact, whole=not record.startswith(PART_IRI))
            # the record a part rule rests on is the run's part, a stated one's the run,
            # its system or its part: reached through a derived link, it is derived
            if (ACCELERATOR in links and (rule in PART_RULES or record.startswith(PART_IRI))) or (
                SYSTEM in links and record.startswith(SYSTEM_IRI)
            ):
                derived = True
            key = (derived, rank if rank is not None else 99)
            if best is None or key < best:
                best = key
        if best is None:
            return
        derived, rank = best
        triples.add((BASIS_EVIDENCE, DERIVED if derived else STATED))
        if rank != 99:
            triples.add((BASIS_KIND, RANKED[rank]))

    def _outperforms(self, change: str, metrics: list[str]) -> set[str]:
        """A comparison's verdicts: its change against each direction of its metrics."""
        try:
            value = Decimal(change)
        except InvalidOperation:
            return set()
        out = set()
        for metric in metrics:
            for direction in self.directions.get(metric, ()):
                if direction == HIGHER:
                    out.add(TRUE if value > 0 else FALSE)
                elif direction == LOWER:
                    out.add(TRUE if value < 0 else FALSE)
        return out


def _evidence(sources: list[tuple], fact: str, whole: bool) -> tuple[int | None, bool]:
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


def _kind_status(
    part: str, fabric: Any, asked: list[str], stated: dict[str, set], kinds: dict, closed: bool
) -> tuple[str, str, list[str]]:
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
