"""What the browse and search pages read: every record's main facts, by kind, and an index of
their names, made once per served snapshot.

Each column is one small query (`?record <path> ?value`, the value's label beside it), so a
many-valued fact (a run's accelerators, a system's rounds) never multiplies another's rows;
the labels come from one query of every rdfs:label. Built in the web process on the
snapshot's store (embedded or remote), outside the query workers: these are benchgraph's own
fixed queries, and the result is kept for as long as the snapshot is served.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..namespaces import ID, PREFIXES, readable


@dataclass(frozen=True)
class Column:
    """One fact of a kind's list: its key (in URLs, JSON and CSV), header, SPARQL path."""

    key: str
    label: str
    path: str
    facet: bool = False  # counted per value, each a filter link
    numeric: bool = False


@dataclass(frozen=True)
class Kind:
    name: str  # the folder: benchmarks
    noun: str  # runs
    cls: str  # bg:BenchmarkRun
    columns: tuple[Column, ...]
    uses: str | None = None  # the run property that names it: runs are counted per value


C = Column
# What a curator scans a kind for, and filters it by (vendor, fabric, status, source round).
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("benchmarks", "runs", "bg:BenchmarkRun", (
        C("value", "value", "bg:value", numeric=True),
        C("unit", "unit", "bg:unitCode", facet=True),
        C("metric", "metric", "bg:metric", facet=True),
        C("accelerator", "accelerator", "bg:accelerator", facet=True),
        C("count", "count", "bg:acceleratorCount", numeric=True),
        C("system", "system", "bg:system"),
        C("vendor", "vendor", "bg:accelerator/(bg:madeBy|bg:vendor)", facet=True),
        C("fabric", "fabric status", "bg:fabricStatus", facet=True),
        C("status", "status", "bg:status", facet=True),
        C("round", "source round", "dct:source/bg:round", facet=True),
        C("model", "model", "bg:model", facet=True),
        C("engine", "engine", "bg:engine", facet=True),
        C("division", "division", "bg:division", facet=True),
        C("scenario", "scenario", "bg:scenario", facet=True),
        C("confidence", "confidence", "bg:confidence", numeric=True),
    )),
    Kind("accelerators", "accelerators", "bg:Accelerator", (
        C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),
        C("architecture", "architecture", "bg:architecture", facet=True),
        C("memory", "memory (GB)", "bg:memoryGB", numeric=True),
        C("memoryType", "memory type", "bg:memoryType", facet=True),
        C("formFactor", "form factor", "bg:formFactor", facet=True),
        C("fabric", "fabric", "bg:peerFabric", facet=True),
        C("fabricInterconnect", "fabric interconnect", "bg:fabricInterconnect", facet=True),
        C("hostInterface", "host interface", "bg:hostInterface", facet=True),
        C("tdp", "TDP (W)", "bg:tdpW", numeric=True),
        C("round", "source round", "dct:source/bg:round", facet=True),
    ), uses="accelerator"),
    Kind("systems", "systems", "bg:System", (
        C("submitter", "submitter", "bg:submitter", facet=True),
        C("accelerator", "accelerators", "bg:accelerator", facet=True),
        C("nodes", "nodes", "bg:nodes", numeric=True),
        C("systemType", "system type", "bg:systemType", facet=True),
        C("fabricPublished", "fabric published", "bg:fabricPublished", facet=True),
        C("interconnect", "interconnects", "bg:interconnect", facet=True),
        C("round", "source round", "dct:source/bg:round", facet=True),
    ), uses="system"),
    Kind("interconnects", "interconnects", "bg:Interconnect", (
        C("role", "role", "bg:role", facet=True),
        C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),
        C("generation", "generation", "bg:generation"),
        C("bandwidth", "bandwidth (GB/s)", "bg:bandwidthGBps", numeric=True),
    )),
    Kind("engines", "engines", "bg:Engine", (
        C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),
    ), uses="engine"),
    Kind("models", "models", "bg:Model", (
        C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),
        C("parameters", "parameters (billions)", "bg:parametersBillions", numeric=True),
    ), uses="model"),
    Kind("metrics", "metrics", "bg:Metric", (
        C("unit", "unit", "bg:unitCode", facet=True),
        C("scope", "scope", "bg:scope", facet=True),
        C("direction", "direction", "bg:direction", facet=True),
    )),
    Kind("vendors", "vendors", "bg:Organisation", ()),
)}
RUNS_COLUMN = Column("runs", "runs", "", numeric=True)  # counted from the runs' columns


@dataclass(frozen=True)
class Value:
    """One value of a column: its key in a filter (`nvidia`, `NoScaleUpFabric`, `v5.1`), what
    it shows, and where it links."""

    key: str
    label: str
    iri: str | None = None
    number: float | None = None


@dataclass
class Row:
    iri: str
    id: str
    label: str
    values: dict[str, list[Value]] = field(default_factory=dict)
    aliases: list[str] = field(default_factory=list)


@dataclass
class Catalogue:
    """Every record's row, by kind; and the search index over them."""

    rows: dict[str, list[Row]]
    by_iri: dict[str, Row]
    index: SearchIndex

    def count(self, kind: str) -> int:
        return len(self.rows.get(kind, []))


def build_catalogue(store) -> Catalogue:
    """The catalogue of the dataset in `store` (pyoxigraph's Store, or a RemoteStore)."""
    labels: dict[str, str] = {}
    for row in _select(store, "SELECT ?s ?l WHERE { ?s rdfs:label ?l }"):
        s, lab = row[0].value, row[1]
        if s not in labels or getattr(lab, "language", None) in ("en", None):
            labels[s] = lab.value
    rows: dict[str, list[Row]] = {}
    by_iri: dict[str, Row] = {}
    for kind in KINDS.values():
        found = {}
        for r in _select(store, f"SELECT ?r ?id WHERE {{ ?r a {kind.cls} ; bg:recordId ?id }}"):
            iri = r[0].value
            if iri.startswith(f"{ID}{kind.name}/") and iri not in found:
                found[iri] = Row(iri, r[1].value, labels.get(iri, r[1].value))
        for column in kind.columns:
            query = (f"SELECT ?r ?v WHERE {{ ?r a {kind.cls} . ?r {column.path} ?v }}")
            for r in _select(store, query):
                row = found.get(r[0].value)
                if row is None:
                    continue
                value = _value(r[1], labels)
                kept = row.values.setdefault(column.key, [])
                same = next((i for i, v in enumerate(kept) if v.key == value.key), None)
                if same is None:
                    kept.append(value)
                elif value.iri and not kept[same].iri:  # a vendor record beats its name
                    kept[same] = value
        rows[kind.name] = sorted(found.values(), key=lambda row: row.label.casefold())
        by_iri.update(found)
    for r in _select(store, "SELECT ?r ?a WHERE { ?r skos:altLabel ?a }"):
        row = by_iri.get(r[0].value)
        if row is not None and r[1].value not in row.aliases:
            row.aliases.append(r[1].value)
    _count_runs(rows)
    return Catalogue(rows, by_iri, SearchIndex(list(by_iri.values())))


def _count_runs(rows: dict[str, list[Row]]) -> None:
    """A `runs` column on each kind the runs name (accelerators, systems, engines, models)."""
    runs_of: dict[str, int] = defaultdict(int)
    for run in rows.get("benchmarks", []):
        for key in ("accelerator", "system", "model", "engine"):
            for v in run.values.get(key, []):
                runs_of[v.iri or ""] += 1
    for kind in KINDS.values():
        if kind.uses is None:
            continue
        for row in rows.get(kind.name, []):
            n = runs_of.get(row.iri, 0)
            row.values["runs"] = [Value(str(n), str(n), number=float(n))]


def _select(store, text: str) -> list[tuple]:
    return [tuple(sol) for sol in store.query(text, use_default_graph_as_union=True,
                                              prefixes=PREFIXES)]


def _value(term: object, labels: dict[str, str]) -> Value:
    if isinstance(term, ox.NamedNode):
        iri = term.value
        return Value(local_key(iri), labels.get(iri) or readable(iri), iri)
    text = getattr(term, "value", str(term))
    number = None
    datatype = getattr(getattr(term, "datatype", None), "value", "")
    if datatype.endswith(("#integer", "#decimal", "#double", "#float", "#int", "#long")):
        try:
            number = float(text)
        except ValueError:
            number = None
    if datatype.endswith("#boolean"):
        return Value(text, "yes" if text == "true" else "no")
    return Value(text, text, number=number)


def local_key(iri: str) -> str:
    """How a filter names an IRI value: a record's id, a term's local name."""
    return iri.rstrip("/").rpartition("#" if "#" in iri else "/")[2]


# --- search --------------------------------------------------------------------------------
WORD = re.compile(r"[0-9a-z]+")
# Records a person looks up by name (a part, a model) before the runs named after them.
KIND_WEIGHT = {"accelerators": 3.0, "models": 3.0, "engines": 3.0, "interconnects": 2.5,
               "vendors": 2.5, "metrics": 2.0, "systems": 1.0, "benchmarks": 0.0}


def fold(text: str) -> str:
    """Lower case, accents off: what a search compares."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


@dataclass
class _Entry:
    row: Row
    kind: str
    squashed: list[tuple[str, float, str]]  # each name without spaces and signs, its weight
    bonus: float  # the kind's weight, less a little for a long label


class SearchIndex:
    """Records ranked by how well their label, id and aliases match a query's words.

    Every word of every name, and every name squashed ("h100sxm80gb"), is an item of one
    vocabulary string; a query word is found in it by substring, in C, and each item it is
    found in scores its records: a whole word counts twice its name's weight, a word's
    start 1.5 times, anything else once. A record must hold every word of the query. The
    cost is a scan of the vocabulary (some 13k items at the shipped size) and the records
    found, never every record (benchmarks/search_bench.py measures it)."""

    WEIGHTS = {"label": 3.0, "alias": 2.5, "id": 2.0}

    def __init__(self, rows: list[Row]):
        self.entries: list[_Entry] = []
        postings: dict[str, dict[int, tuple[float, str, bool]]] = defaultdict(dict)
        for row in rows:
            kind = row.iri[len(str(ID)):].partition("/")[0]
            n = len(self.entries)
            squashed = []
            for what, text in [("label", row.label), ("id", row.id),
                               *(("alias", a) for a in row.aliases)]:
                weight = self.WEIGHTS[what]
                words = WORD.findall(fold(text))
                squashed.append(("".join(words), weight, what))
                for item, is_word in [*((w, True) for w in words), ("".join(words), False)]:
                    held = postings[item].get(n)
                    if held is None or held[0] < weight:
                        postings[item][n] = (weight, what, is_word)
            self.entries.append(_Entry(row, kind, squashed,
                                       KIND_WEIGHT.get(kind, 0.0) - len(row.label) / 200))
        self.items = list(postings)
        self.postings = [postings[item] for item in self.items]
        self.vocabulary = "\n".join(self.items)
        self.starts, at = [], 0
        for item in self.items:
            self.starts.append(at)
            at += len(item) + 1

    def _scores(self, word: str) -> dict[int, tuple[float, str]]:
        """The best score of `word` in each record that holds it, and in which name."""
        import bisect

        out: dict[int, tuple[float, str]] = {}
        at = self.vocabulary.find(word)
        while at >= 0:
            i = bisect.bisect_right(self.starts, at) - 1
            item = self.items[i]
            start = self.starts[i]
            for n, (weight, what, is_word) in self.postings[i].items():
                if is_word and item == word:
                    s = weight * 2
                elif is_word and at == start:
                    s = weight * 1.5
                else:
                    s = weight
                if s > out.get(n, (0.0, ""))[0]:
                    out[n] = (s, what)
            nxt = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.vocabulary)
            at = self.vocabulary.find(word, max(nxt, at + 1))
        return out

    def search(self, query: str, limit: int | None = 50) -> list[tuple[float, Row, str]]:
        """(score, row, the name that matched best) for each record every word of `query`
        is found in, best first."""
        words = WORD.findall(fold(query))
        if not words:
            return []
        whole = "".join(words)
        total: dict[int, list] = {}
        for k, word in enumerate(sorted(set(words), key=len, reverse=True)):
            scores = self._scores(word)
            if k == 0:
                total = {n: [s, what, s] for n, (s, what) in scores.items()}
            else:
                total = {n: [t[0] + scores[n][0], t[1] if t[2] >= scores[n][0]
                             else scores[n][1], max(t[2], scores[n][0])]
                         for n, t in total.items() if n in scores}
            if not total:
                return []
        found = []
        for n, (score, why, _best) in total.items():
            e = self.entries[n]
            for name, weight, what in e.squashed:
                if name == whole:
                    score += 10 * weight
                    why = what
                elif name.startswith(whole):
                    score += 2 * weight
            found.append((score + e.bonus, e.row, why))
        found.sort(key=lambda item: (-item[0], item[1].label.casefold(), item[1].iri))
        return found if limit is None else found[:limit]
