"""How a part or a model performs, for its page: the best run per comparable group (one
model or benchmark, metric and unit, scenario and accuracy target, and accelerator kind),
best by the metric's bg:direction, and the count of runs by source and round.

Read with one query per page (the runs linked to the record and what each is compared by);
grouped and ranked here, where a metric with no direction is left unranked rather than
guessed. The query keeps to OPTIONALs: a negated pattern (FILTER NOT EXISTS) is quadratic in
Oxigraph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

import pyoxigraph as ox

from ..namespaces import BG, PREFIXES
from .catalogue import local_key
from .figures import figure
from .terms import Term

HIGHER, LOWER = str(BG.HigherIsBetter), str(BG.LowerIsBetter)
# The predicate that links a run to a record of each kind whose page shows its performance,
# and the explorer's facet that filters on that record (explore.py's parameter names).
LINKED_BY = {"accelerators": ("accelerator", "accelerator"), "models": ("model", "model")}

QUERY = """
SELECT ?run ?runLabel ?value ?unit ?metric ?metricLabel ?direction ?acc ?accLabel ?model
       ?modelLabel ?benchmark ?scenario ?target ?count ?publisher ?round
WHERE {
  VALUES ?focus { %s }
  ?run bg:%s ?focus ; a bg:BenchmarkRun .
  OPTIONAL { ?run rdfs:label ?runLabel }
  OPTIONAL { ?run bg:value ?value }
  OPTIONAL { ?run bg:unitCode ?unit }
  OPTIONAL { ?run bg:metric ?metric .
             OPTIONAL { ?metric rdfs:label ?metricLabel }
             OPTIONAL { ?metric bg:direction ?direction } }
  OPTIONAL { ?run bg:accelerator ?acc . OPTIONAL { ?acc rdfs:label ?accLabel } }
  OPTIONAL { ?run bg:model ?model . OPTIONAL { ?model rdfs:label ?modelLabel } }
  OPTIONAL { ?run bg:benchmarkName ?benchmark }
  OPTIONAL { ?run bg:scenario ?scenario }
  OPTIONAL { ?run bg:accuracyTarget ?target }
  OPTIONAL { ?run bg:acceleratorCount ?count }
  OPTIONAL { ?run dct:source ?src . OPTIONAL { ?src dct:publisher ?publisher }
             OPTIONAL { ?src bg:round ?round } }
}
"""


@dataclass
class Run:
    """One run as this page compares it."""

    iri: str
    label: str
    value: float | None = None
    text: str = ""  # the literal, whole
    unit: str = ""
    metric: str | None = None
    metric_label: str = ""
    direction: str | None = None
    benchmark: str | None = None
    scenario: str | None = None
    target: str | None = None
    count: str | None = None
    models: dict[str, str] = field(default_factory=dict)  # iri -> label
    accelerators: dict[str, str] = field(default_factory=dict)
    sources: set[str] = field(default_factory=set)  # "publisher round", as explore.py keys


@dataclass
class Best:
    """The best run of one comparable group, on one accelerator kind."""

    workload: str  # the model (or benchmark when no model is named)
    metric: str
    direction: str  # "higher is better"
    scenario: str
    target: str
    accelerator: Term
    shown: str  # "93.9 tok/s"
    full: str  # the literal with its unit, for the tooltip
    run: Term
    count: str | None
    runs: int  # how many runs the group compares


@dataclass
class SourceCount:
    source: str
    runs: int
    href: str | None  # the explorer on these runs


@dataclass
class Performance:
    best: list[Best]
    sources: list[SourceCount]
    unranked: int  # runs whose metric states no direction, or with no value


def performance(
    store: object, kind: str, iri: str, href: Callable[[str], str | None], explore: str
) -> Performance | None:
    """How the record `iri` of `kind` performs; None for a kind with no such page part.
    `href(iri)` is where a record's IRI leads; `explore` is the explorer's path."""
    if kind not in LINKED_BY:
        return None
    predicate, facet = LINKED_BY[kind]
    text = QUERY % (str(ox.NamedNode(iri)), predicate)
    runs: dict[str, Run] = {}
    for sol in store.query(text, use_default_graph_as_union=True, prefixes=PREFIXES):
        _add(runs, dict(zip(_VARIABLES, sol)))
    if not runs:
        return None
    best, unranked = _best(runs.values(), kind, iri, href)
    counts: dict[str, int] = defaultdict(int)
    for run in runs.values():
        for source in run.sources or {""}:
            counts[source] += 1
    mine = local_key(iri)
    sources = [
        SourceCount(
            s or "no source named",
            n,
            f"{explore}?{urlencode({facet: mine, 'source': s})}" if s else None,
        )
        for s, n in sorted(counts.items(), key=lambda kv: (kv[0] == "", kv[0].casefold()))
    ]
    return Performance(best, sources, unranked)


_VARIABLES = (
    "run runLabel value unit metric metricLabel direction acc accLabel model modelLabel "
    "benchmark scenario target count publisher round"
).split()


def _add(runs: dict[str, Run], v: dict) -> None:
    """What one solution adds to its run (a run of two kinds or two sources has several)."""
    iri = v["run"].value
    run = runs.get(iri)
    if run is None:
        run = runs[iri] = Run(iri, _text(v["runLabel"]) or local_key(iri))
        if v["value"] is not None:
            try:
                run.value = float(v["value"].value)
            except ValueError:
                run.value = None
            run.text = v["value"].value
        run.unit = _text(v["unit"]) or ""
        if v["metric"] is not None:
            run.metric = v["metric"].value
            run.metric_label = _text(v["metricLabel"]) or local_key(run.metric)
        run.direction = _text(v["direction"])
        run.benchmark, run.scenario = _text(v["benchmark"]), _text(v["scenario"])
        run.target, run.count = _text(v["target"]), _text(v["count"])
    if v["acc"] is not None:
        run.accelerators[v["acc"].value] = _text(v["accLabel"]) or local_key(v["acc"].value)
    if v["model"] is not None:
        run.models[v["model"].value] = _text(v["modelLabel"]) or local_key(v["model"].value)
    publisher, round_ = _text(v["publisher"]), _text(v["round"])
    if publisher or round_:
        run.sources.add(" ".join(x for x in (publisher, round_) if x))


def _best(runs, kind: str, iri: str, href: Callable[[str], str | None]) -> tuple[list[Best], int]:
    """The best run of each group, by its metric's direction; and how many runs no group
    could rank (a metric with no direction, no number)."""
    groups: dict[tuple, list[tuple[Run, str, str]]] = defaultdict(list)
    unranked = 0
    for run in runs:
        if run.value is None or run.direction not in (HIGHER, LOWER):
            unranked += 1
            continue
        workloads = run.models.items() or [(None, run.benchmark or "")]
        kinds = (
            [(iri, run.accelerators.get(iri, local_key(iri)))]
            if kind == "accelerators"
            else run.accelerators.items()
        ) or [("", "no accelerator named")]
        for _m, workload in workloads:
            for acc, acc_label in kinds:
                key = (workload, run.metric, run.unit, run.scenario or "", run.target or "", acc)
                groups[key].append((run, acc, acc_label))
    out = []
    for key, members in groups.items():
        sign = -1 if members[0][0].direction == HIGHER else 1
        run, acc, acc_label = min(members, key=lambda m: (sign * m[0].value, m[0].label))
        out.append(
            Best(
                workload=key[0],
                metric=run.metric_label,
                direction="higher is better" if sign < 0 else "lower is better",
                scenario=key[3],
                target=key[4],
                accelerator=Term(acc_label, href(acc) if acc else None, iri=acc or None),
                shown=figure(run.value, run.unit),
                full=f"{run.text} {run.unit}".strip(),
                run=Term(run.label, href(run.iri), iri=run.iri),
                count=run.count,
                runs=len(members),
            )
        )
    out.sort(
        key=lambda b: (
            b.workload.casefold(),
            b.metric.casefold(),
            b.scenario,
            b.target,
            b.accelerator.text.casefold(),
        )
    )
    return out, unranked


def _text(term) -> str | None:
    return None if term is None else term.value
