"""Cross-record rules, run as SPARQL in the query store, writing the inferred graph.

These make the seed's conventions explicit: a run's hardware carries the interconnects its
own record, its system and its accelerators list; from them follows one fabric status. A
missing list is never read as "none". Each rule is a SELECT over the union of all graphs
whose rows are added to the inferred graph, in order, so later rules see earlier results.
MINUS, not FILTER NOT EXISTS: the latter is quadratic in Oxigraph (oxigraph#885).
"""

from __future__ import annotations

import pyoxigraph as ox

from .namespaces import BG, INFERRED_GRAPH

INTERCONNECT = ox.NamedNode(str(BG.interconnect))
FABRIC_STATUS = ox.NamedNode(str(BG.fabricStatus))

# (predicate, object or None for ?o, query selecting ?run [?o])
RULES: list[tuple[ox.NamedNode, ox.NamedNode | None, str]] = [
    (INTERCONNECT, None, """SELECT DISTINCT ?run ?o WHERE {
        {VALUES} ?run a bg:BenchmarkRun .
        { ?run bg:accelerator/bg:interconnect ?o } UNION { ?run bg:system/bg:interconnect ?o }
        MINUS { ?run bg:interconnect ?o } }"""),
    (FABRIC_STATUS, ox.NamedNode(str(BG.ScaleUpFabricPresent)), """SELECT DISTINCT ?run WHERE {
        {VALUES} ?run a bg:BenchmarkRun ; bg:accelerator ?a ; bg:interconnect ?i .
        ?i a bg:ScaleUpFabric }"""),
    (FABRIC_STATUS, ox.NamedNode(str(BG.NoScaleUpFabric)), """SELECT DISTINCT ?run WHERE {
        {VALUES} ?run a bg:BenchmarkRun ; bg:accelerator ?a ; bg:interconnect ?i .
        ?i a bg:HostLink .
        MINUS { ?run bg:fabricStatus ?status } }"""),
    (FABRIC_STATUS, ox.NamedNode(str(BG.FabricNotPublished)), """SELECT DISTINCT ?run WHERE {
        {VALUES} ?run a bg:BenchmarkRun ; bg:accelerator ?a .
        MINUS { ?run bg:fabricStatus ?status } }"""),
]


def run_rules(store: ox.Store, runs: list[str] | None = None) -> None:
    """Recompute the cross-record facts, for every run (None) or for the given run IRIs."""
    if runs == []:
        return
    graph = ox.NamedNode(str(INFERRED_GRAPH))
    values = "" if runs is None else "VALUES ?run { " + " ".join(f"<{r}>" for r in runs) + " }"
    subjects = None if runs is None else [ox.NamedNode(r) for r in runs]
    for predicate in (INTERCONNECT, FABRIC_STATUS):
        for subject in subjects or [None]:
            for quad in list(store.quads_for_pattern(subject, predicate, None, graph)):
                store.remove(quad)
    prefixes = {"bg": str(BG)}
    for predicate, obj, query in RULES:
        rows = store.query(query.replace("{VALUES}", values), use_default_graph_as_union=True,
                           prefixes=prefixes)
        store.extend([ox.Quad(row["run"], predicate, obj or row["o"], graph) for row in rows])
