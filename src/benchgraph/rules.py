"""Cross-record rules, run as SPARQL in the query store, writing the inferred graph.

These make the seed's conventions explicit and join what one record cannot see alone:
- the ontology's property chains (a run or system has every interconnect of its accelerators,
  a run every interconnect of its system), what OWL-RL's prp-spo2 derives, to a fixpoint;
- one bg:fabricStatus per run with accelerators, from the interconnects so gathered (a
  missing list is never read as "none"; a scale-out network alone says nothing);
- bg:outperformsBaseline on each comparison, from its metric's direction.
Each rule is a SELECT over the union of all graphs whose rows are added to the inferred graph,
in order, so later rules see earlier results. MINUS, not FILTER NOT EXISTS: the latter is
quadratic in Oxigraph (oxigraph#885).
"""

from __future__ import annotations

import pyoxigraph as ox

from .namespaces import BG, INFERRED_GRAPH, PREFIXES

FABRIC_STATUS = ox.NamedNode(str(BG.fabricStatus))
OUTPERFORMS = ox.NamedNode(str(BG.outperformsBaseline))
COMPARISON = ox.NamedNode(str(BG.comparison))

# (predicate, object or None for ?o, query selecting ?s [?o]); {VALUES} limits ?run.
STATUS_RULES: list[tuple[ox.NamedNode, ox.NamedNode | None, str]] = [
    (FABRIC_STATUS, ox.NamedNode(str(BG.ScaleUpFabricPresent)), """SELECT DISTINCT ?s WHERE {
        {VALUES} ?s a bg:BenchmarkRun ; bg:accelerator ?a ; bg:interconnect ?i .
        ?i a bg:ScaleUpFabric }"""),
    (FABRIC_STATUS, ox.NamedNode(str(BG.NoScaleUpFabric)), """SELECT DISTINCT ?s WHERE {
        {VALUES} ?s a bg:BenchmarkRun ; bg:accelerator ?a ; bg:interconnect ?i .
        ?i a bg:HostLink .
        MINUS { ?s bg:fabricStatus ?status } }"""),
    (FABRIC_STATUS, ox.NamedNode(str(BG.FabricNotPublished)), """SELECT DISTINCT ?s WHERE {
        {VALUES} ?s a bg:BenchmarkRun ; bg:accelerator ?a .
        MINUS { ?s bg:fabricStatus ?status } }"""),
    (OUTPERFORMS, None, """SELECT ?s ?o WHERE {
        {VALUES} ?s ^bg:comparison ?run ; bg:relativeChange ?change ;
           bg:compared/bg:metric/bg:direction ?direction .
        VALUES ?direction { bg:HigherIsBetter bg:LowerIsBetter }
        BIND(IF(?direction = bg:HigherIsBetter, ?change > 0, ?change < 0) AS ?o) }"""),
]

CHAINS = """SELECT ?property ?list WHERE {
    GRAPH <https://w3id.org/benchgraph/ontology> { ?property owl:propertyChainAxiom ?list } }"""


def run_rules(store: ox.Store, runs: list[str] | None = None) -> None:
    """Recompute the cross-record facts, for every subject (None) or for the given runs."""
    if runs == []:
        return
    graph = ox.NamedNode(str(INFERRED_GRAPH))
    chains = property_chains(store)
    supers = {p: super_properties(store, p)
              for p in {p for p, _ in chains} | {FABRIC_STATUS, OUTPERFORMS}}
    _forget(store, graph, runs, [q for p in supers for q in [p, *supers[p]]])
    values = "" if runs is None else "VALUES ?s { " + " ".join(f"<{r}>" for r in runs) + " }"
    values_run = values.replace("?s", "?run")

    def add(rows, predicate: ox.NamedNode, obj: ox.NamedNode | None) -> int:
        quads = []
        for row in rows:
            o = obj or row["o"]
            quads += [ox.Quad(row["s"], p, o, graph) for p in [predicate, *supers[predicate]]]
        store.extend(quads)
        return len(quads)

    while True:  # chains feed each other (a run's system has its accelerators' links)
        added = 0
        for prop, path in chains:
            query = f"""SELECT DISTINCT ?s ?o WHERE {{ {values} ?s {path} ?o .
                        MINUS {{ ?s <{prop.value}> ?o }} }}"""
            added += add(_select(store, query), prop, None)
        if not added:
            break
    for predicate, obj, query in STATUS_RULES:
        scope = values_run if predicate == OUTPERFORMS else values
        add(_select(store, query.replace("{VALUES}", scope)), predicate, obj)


def _select(store: ox.Store, query: str):
    return list(store.query(query, use_default_graph_as_union=True, prefixes=PREFIXES))


def property_chains(store: ox.Store) -> list[tuple[ox.NamedNode, str]]:
    """(property, SPARQL path) for each owl:propertyChainAxiom in the ontology graph."""
    out = []
    for row in _select(store, CHAINS):
        steps, node = [], row["list"]
        rdf = PREFIXES["rdf"]
        while node != ox.NamedNode(rdf + "nil"):
            first = next(store.quads_for_pattern(node, ox.NamedNode(rdf + "first"), None), None)
            rest = next(store.quads_for_pattern(node, ox.NamedNode(rdf + "rest"), None), None)
            if first is None or rest is None:
                break
            steps.append(f"<{first.object.value}>")
            node = rest.object
        else:
            out.append((row["property"], "/".join(steps)))
    return sorted(out, key=lambda c: (c[0].value, c[1]))


def super_properties(store: ox.Store, prop: ox.NamedNode) -> list[ox.NamedNode]:
    """The ontology's super-properties of prop (closed), without prop itself."""
    rows = _select(store, f"SELECT DISTINCT ?q WHERE {{ <{prop.value}> rdfs:subPropertyOf+ ?q "
                          f"FILTER(?q != <{prop.value}>) }}")
    return sorted((row["q"] for row in rows), key=lambda n: n.value)


def _forget(store: ox.Store, graph: ox.NamedNode, runs: list[str] | None,
            predicates: list[ox.NamedNode]) -> None:
    """Remove what the rules derived before: for every subject, or for the runs and the
    nodes below them (their comparisons, which an edit may have removed)."""
    doomed = []
    for predicate in predicates:
        if runs is None:
            doomed += store.quads_for_pattern(None, predicate, None, graph)
        elif predicate == OUTPERFORMS:
            below = {r + "#" for r in runs}
            doomed += [q for q in store.quads_for_pattern(None, predicate, None, graph)
                       if q.subject.value.partition("#")[0] + "#" in below]
        else:
            for run in runs:
                doomed += store.quads_for_pattern(ox.NamedNode(run), predicate, None, graph)
    for quad in doomed:
        store.remove(quad)
