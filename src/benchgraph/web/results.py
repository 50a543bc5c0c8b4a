"""The results explorer's table (/explore): one row per run with its headline value, its
per-accelerator figure, its measured power and efficiency, and what it ran on, made once per
served snapshot from one SPARQL query; and the filtering, faceting and sorting of those rows,
in Python, so that a page over 100k runs never asks the store again.

Filters are bitsets (a Python int per facet value, bit i for row i): a facet's counts among
the rows the other filters keep are an AND and a popcount each, whatever the number of rows
(benchmarks/explore_bench.py measures a filtered page).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..namespaces import PREFIXES, readable
from .catalogue import local_key

# Measurements the explorer shows beside the headline: the metric ids of measured power and of
# the efficiency derived from it (never from a TDP), as the per-watt saved query reads them.
POWER = {"system-power": "wall", "power-draw": "board"}
EFFICIENCY = (
    "tokens-per-joule",
    "samples-per-joule",
    "queries-per-joule",
    "energy-per-query",
    "tokens-per-joule-board",
)

QUERY = """
SELECT DISTINCT ?run ?id ?label ?value ?unit ?metric ?metricLabel ?scope
       ?acc ?accLabel ?vendor ?vendorLabel ?count ?fabric ?fabricLabel ?publisher ?round
       ?division ?model ?modelLabel ?benchmark ?scenario ?target ?engine ?engineLabel
       ?engineVersion ?perAcc ?perAccUnit ?watts ?powerId ?eff ?effUnit ?effId
       ?inputTokens ?outputTokens ?batch ?precision ?status ?statusLabel
WHERE {
  ?run a bg:BenchmarkRun ; bg:recordId ?id .
  OPTIONAL { ?run rdfs:label ?label }
  OPTIONAL { ?run bg:value ?value }
  OPTIONAL { ?run bg:unitCode ?unit }
  OPTIONAL { ?run bg:metric ?metric .
             OPTIONAL { ?metric rdfs:label ?metricLabel }
             OPTIONAL { ?metric bg:scope ?scope } }
  OPTIONAL { ?run bg:accelerator ?acc .
             OPTIONAL { ?acc rdfs:label ?accLabel }
             OPTIONAL { ?acc bg:madeBy ?vendor . OPTIONAL { ?vendor rdfs:label ?vendorLabel } }
             OPTIONAL { ?acc bg:vendor ?vendorLabel } }
  OPTIONAL { ?run bg:acceleratorCount ?count }
  OPTIONAL { ?run bg:fabricStatus ?fabric . OPTIONAL { ?fabric rdfs:label ?fabricLabel } }
  OPTIONAL { ?run dct:source ?src . OPTIONAL { ?src dct:publisher ?publisher }
             OPTIONAL { ?src bg:round ?round } }
  OPTIONAL { ?run bg:division ?division }
  OPTIONAL { ?run bg:model ?model . OPTIONAL { ?model rdfs:label ?modelLabel } }
  OPTIONAL { ?run bg:benchmarkName ?benchmark }
  OPTIONAL { ?run bg:scenario ?scenario }
  OPTIONAL { ?run bg:accuracyTarget ?target }
  OPTIONAL { ?run bg:engine ?engine . OPTIONAL { ?engine rdfs:label ?engineLabel } }
  OPTIONAL { ?run bg:engineVersion ?engineVersion }
  OPTIONAL { ?run bg:inputTokens ?inputTokens }
  OPTIONAL { ?run bg:outputTokens ?outputTokens }
  OPTIONAL { ?run bg:batchSize ?batch }
  OPTIONAL { ?run bg:setting ?setting .
             ?setting bg:settingName "precision" ; bg:settingValue ?precision }
  OPTIONAL { ?run bg:status ?status . OPTIONAL { ?status rdfs:label ?statusLabel } }
  OPTIONAL { ?run bg:measurement ?pm . ?pm bg:metric/bg:scope bg:PerAccelerator ;
             bg:value ?perAcc ; bg:unitCode ?perAccUnit }
  OPTIONAL { ?run bg:measurement ?p . ?p bg:metric/bg:recordId ?powerId ; bg:value ?watts .
             FILTER(?powerId IN ("system-power", "power-draw")) }
  OPTIONAL { ?run bg:measurement ?e . ?e bg:metric/bg:recordId ?effId ; bg:value ?eff ;
             bg:unitCode ?effUnit .
             FILTER(?effId IN ("tokens-per-joule", "samples-per-joule", "queries-per-joule",
                               "energy-per-query", "tokens-per-joule-board")) }
}
"""
PER_ACCELERATOR = str(PREFIXES["bg"]) + "PerAccelerator"


@dataclass(frozen=True)
class Facet:
    """A filter of the explorer: its key in URLs, and what it is called."""

    key: str
    label: str


# In the order an analyst narrows: which results, which workload, which hardware.
FACETS = (
    Facet("source", "source and round"),
    Facet("division", "division"),
    Facet("model", "model"),
    Facet("benchmark", "benchmark"),
    Facet("scenario", "scenario"),
    Facet("target", "accuracy target"),
    Facet("workload", "workload (tokens in / out, batch)"),
    Facet("precision", "precision"),
    Facet("metric", "metric"),
    Facet("accelerator", "accelerator"),
    Facet("vendor", "vendor"),
    Facet("count", "accelerator count"),
    Facet("fabric", "fabric status"),
    Facet("engine", "engine"),
    Facet("status", "record status"),
)
FACET_KEYS = tuple(f.key for f in FACETS)


@dataclass
class Figure:
    """A number with its unit and what it measures (the group it is compared within)."""

    value: float
    text: str  # the literal, whole: what CSV and JSON give
    unit: str
    group: str  # figures compare only within one group: a metric and a unit


@dataclass
class Result:
    """One run as the explorer shows it."""

    iri: str
    id: str
    label: str
    value: Figure | None = None
    per_accelerator: Figure | None = None
    power: Figure | None = None
    efficiency: Figure | None = None
    version: str | None = None  # the engine's, as the source names it (TensorRT-LLM 0.17)
    # each facet's values: (key, label), in the order found
    facets: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, facet: str, key: str | None, label: str | None) -> None:
        if key is None:
            return
        values = self.facets.setdefault(facet, [])
        if all(k != key for k, _ in values):
            values.append((key, label or key))

    def labels(self, facet: str) -> str:
        return ", ".join(label for _k, label in self.facets.get(facet, []))


FIGURES = ("value", "per_accelerator", "power", "efficiency")  # Result's figures


@dataclass
class Order:
    """A column's order of every row, made once: each row's rank ascending and descending
    (a figure's groups one after another, largest first, rows without it last either way),
    so that sorting the rows a filter keeps is a sort of their indices by an int."""

    asc: list[int]
    desc: list[int]
    group: list[str | None] | None = None  # a figure's group of each row


@dataclass
class Results:
    """Every run's row, and for each facet value the bitset of the rows that have it."""

    rows: list[Result]
    postings: dict[str, dict[str, int]]  # facet -> value key -> bitset of rows
    names: dict[str, dict[str, str]]  # facet -> value key -> label
    groups: dict[str, str]  # group key -> its label ("Throughput, tokens (tok/s)")
    orders: dict[str, Order] = field(default_factory=dict)  # a figure's or facet's order

    @property
    def everything(self) -> int:
        return (1 << len(self.rows)) - 1

    def keep(self, chosen: dict[str, list[str]], but: str | None = None) -> int:
        """The bitset of the rows that have, for each facet filtered on (but `but`), one of
        the values chosen."""
        kept = self.everything
        for facet, keys in chosen.items():
            if facet == but:
                continue
            postings = self.postings.get(facet, {})
            either = 0
            for key in keys:
                either |= postings.get(key, 0)
            kept &= either
        return kept

    def counts(self, chosen: dict[str, list[str]], facet: str) -> list[tuple[str, str, int]]:
        """(key, label, rows) of each value of `facet` among the rows the other filters keep
        (so a facet's own values stay choosable), most first."""
        others = self.keep(chosen, but=facet)
        names = self.names.get(facet, {})
        out = [
            (key, names[key], n)
            for key, bits in self.postings.get(facet, {}).items()
            if (n := (bits & others).bit_count()) or key in chosen.get(facet, [])
        ]
        return sorted(out, key=lambda t: (-t[2], t[1].casefold()))

    def select(self, bits: int) -> list[int]:
        """The indices of the rows of a bitset, in the table's order."""
        out: list[int] = []
        data = bits.to_bytes((len(self.rows) + 7) // 8, "little")
        for i, byte in enumerate(data):
            if byte:
                base = i * 8
                out.extend(base + b for b in _BITS[byte])
        return out


_BITS = [tuple(b for b in range(8) if n >> b & 1) for n in range(256)]


def build_results(store) -> Results:
    """The explorer's rows of the dataset in `store` (pyoxigraph's Store or a RemoteStore),
    from one query."""
    by_iri: dict[str, Result] = {}
    group_labels: dict[str, str] = {}
    for sol in store.query(QUERY, use_default_graph_as_union=True, prefixes=PREFIXES):
        v = dict(zip(_VARIABLES, sol))  # a solution's terms in the SELECT's order
        iri = v["run"].value
        row = by_iri.get(iri)
        if row is None:
            row = by_iri[iri] = Result(iri, v["id"].value, _text(v["label"]) or v["id"].value)
        _fill(row, v, group_labels)
    rows = sorted(by_iri.values(), key=lambda r: r.label.casefold())
    postings: dict[str, dict[str, int]] = {f: defaultdict(int) for f in FACET_KEYS}
    names: dict[str, dict[str, str]] = {f: {} for f in FACET_KEYS}
    for i, row in enumerate(rows):
        bit = 1 << i
        for facet, values in row.facets.items():
            for key, label in values:
                postings[facet][key] |= bit
                names[facet].setdefault(key, label)
    table = Results(rows, {f: dict(p) for f, p in postings.items()}, names, group_labels)
    for name in FIGURES:
        table.orders[name] = _figure_order(rows, name, group_labels)
    for facet in FACET_KEYS:
        table.orders[facet] = _facet_order(rows, facet)
    return table


def _ranks(order: list[int]) -> list[int]:
    rank = [0] * len(order)
    for position, i in enumerate(order):
        rank[i] = position
    return rank


def _figure_order(rows: list[Result], name: str, labels: dict[str, str]) -> Order:
    """Rows by a figure within its groups (a metric and unit): rows are in label order, so an
    index breaks a tie by label."""
    figures = [getattr(r, name) for r in rows]
    group = [f.group if f else None for f in figures]
    sizes: dict[str, int] = defaultdict(int)
    for g in group:
        if g is not None:
            sizes[g] += 1
    place = {g: n for n, g in enumerate(sorted(sizes, key=lambda g: (-sizes[g], labels.get(g, g))))}
    having = [i for i, f in enumerate(figures) if f is not None]
    lacking = [i for i, f in enumerate(figures) if f is None]
    asc = sorted(having, key=lambda i: (place[group[i]], figures[i].value, i))
    desc = sorted(having, key=lambda i: (place[group[i]], -figures[i].value, i))
    return Order(_ranks(asc + lacking), _ranks(desc + lacking), group)


def _facet_order(rows: list[Result], facet: str) -> Order:
    """Rows by a facet's first value: as a number where it is one (a count), else as text."""

    def key(i: int):
        label = rows[i].facets[facet][0][1]
        try:
            return (0, float(label), "", i)
        except ValueError:
            return (1, 0.0, label.casefold(), i)

    having = [i for i, r in enumerate(rows) if r.facets.get(facet)]
    lacking = [i for i, r in enumerate(rows) if not r.facets.get(facet)]
    asc = sorted(having, key=key)
    desc = sorted(having, key=lambda i: (key(i)[:3], -i))[::-1]
    return Order(_ranks(asc + lacking), _ranks(desc + lacking))


_VARIABLES = (
    "run id label value unit metric metricLabel scope acc accLabel vendor vendorLabel count "
    "fabric fabricLabel publisher round division model modelLabel benchmark scenario target "
    "engine engineLabel engineVersion perAcc perAccUnit watts powerId eff effUnit effId "
    "inputTokens outputTokens batch precision status statusLabel"
).split()


def _fill(row: Result, v: dict, groups: dict[str, str]) -> None:
    """What one solution adds to its run's row (a run with two accelerators, or two sources,
    has a solution for each)."""
    metric, unit = v["metric"], _text(v["unit"]) or ""
    if row.value is None and v["value"] is not None:
        key = f"{local_key(metric.value) if metric else 'value'}|{unit}"
        label = _text(v["metricLabel"]) or (readable(metric.value) if metric else "value")
        groups.setdefault(key, f"{label} ({unit})" if unit else label)
        row.value = _figure(v["value"], unit, key)
        row.add("metric", key, groups[key])
        if v["scope"] is not None and v["scope"].value == PER_ACCELERATOR:
            row.per_accelerator = row.value
    # a run with several of a kind (a sweep of conditions) shows its highest, whatever order
    # the store answers in; its own page lists each
    if v["perAcc"] is not None and not _is(row.per_accelerator, row.value):
        unit_pa = _text(v["perAccUnit"]) or ""
        row.per_accelerator = _higher(
            row.per_accelerator, _figure(v["perAcc"], unit_pa, f"per-accelerator|{unit_pa}")
        )
    if v["watts"] is not None:
        kind = POWER.get(v["powerId"].value, v["powerId"].value)
        row.power = _higher(row.power, _figure(v["watts"], "W", f"power-{kind}|W"))
    if v["eff"] is not None:
        unit_e = _text(v["effUnit"]) or ""
        row.efficiency = _higher(
            row.efficiency, _figure(v["eff"], unit_e, f"{v['effId'].value}|{unit_e}")
        )
    for facet, key, label in (
        ("accelerator", v["acc"], v["accLabel"]),
        ("model", v["model"], v["modelLabel"]),
        ("fabric", v["fabric"], v["fabricLabel"]),
        ("engine", v["engine"], v["engineLabel"]),
        ("status", v["status"], v["statusLabel"]),
    ):
        if key is not None:
            row.add(facet, local_key(key.value), _text(label) or readable(key.value))
    vendor = v["vendor"]
    vendor_label = _text(v["vendorLabel"])
    if vendor is not None:
        row.add("vendor", local_key(vendor.value), vendor_label or readable(vendor.value))
    elif vendor_label:
        row.add("vendor", vendor_label.casefold().replace(" ", "-"), vendor_label)
    publisher, round_ = _text(v["publisher"]), _text(v["round"])
    if publisher or round_:
        source = " ".join(x for x in (publisher, round_) if x)
        row.add("source", source, source)
    for facet in ("division", "benchmark", "scenario", "target", "count", "precision"):
        text = _text(v[facet])
        if text is not None:
            row.add(facet, text, text)
    workload = _workload(v)
    if workload:
        row.add("workload", workload, workload)
    version = _text(v["engineVersion"])
    if version and row.version is None:
        row.version = version


def _workload(v: dict) -> str:
    """What a run was asked to do, as the per-watt query says it: "1024 in / 1024 out, batch
    64" (either part alone where only it is stated)."""
    given, out, batch = _text(v["inputTokens"]), _text(v["outputTokens"]), _text(v["batch"])
    tokens = f"{given or '?'} in / {out or '?'} out" if given or out else ""
    return ", ".join(x for x in (tokens, f"batch {batch}" if batch else "") if x)


def _is(a: Figure | None, b: Figure | None) -> bool:
    return a is not None and a is b  # the headline is itself the per-accelerator figure


def _higher(kept: Figure | None, new: Figure | None) -> Figure | None:
    if kept is None or new is None:
        return kept or new
    return new if (new.group, new.value) > (kept.group, kept.value) else kept


def _figure(term, unit: str, group: str) -> Figure | None:
    text = term.value
    try:
        return Figure(float(text), text, unit, group)
    except ValueError:
        return None


def _text(term) -> str | None:
    return None if term is None else term.value
