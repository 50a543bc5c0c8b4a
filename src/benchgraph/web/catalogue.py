"""What the browse and search pages read: every record's main facts, by kind, and an index of
their names, made once per served snapshot.

Each column is one small query (`?record <path> ?value`, the value's label beside it), so a
many-valued fact (a run's accelerators, a system's rounds) never multiplies another's rows;
the labels come from one query of every rdfs:label. Built in the web process on the
snapshot's store (embedded or remote), outside the query workers: these are benchgraph's own
fixed queries, and the result is kept for as long as the snapshot is served.
"""

from __future__ import annotations

import bisect
import heapq
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..namespaces import ID, PREFIXES, readable
from .figures import figure


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
KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "benchmarks",
            "runs",
            "bg:BenchmarkRun",
            (
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
            ),
        ),
        Kind(
            "accelerators",
            "accelerators",
            "bg:Accelerator",
            (
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
            ),
            uses="accelerator",
        ),
        Kind(
            "systems",
            "systems",
            "bg:System",
            (
                C("submitter", "submitter", "bg:submitter", facet=True),
                C("accelerator", "accelerators", "bg:accelerator", facet=True),
                C("nodes", "nodes", "bg:nodes", numeric=True),
                C("systemType", "system type", "bg:systemType", facet=True),
                C("fabricPublished", "fabric published", "bg:fabricPublished", facet=True),
                C("interconnect", "interconnects", "bg:interconnect", facet=True),
                C("round", "source round", "dct:source/bg:round", facet=True),
            ),
            uses="system",
        ),
        Kind(
            "interconnects",
            "interconnects",
            "bg:Interconnect",
            (
                C("role", "role", "bg:role", facet=True),
                C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),
                C("generation", "generation", "bg:generation"),
                C("bandwidth", "bandwidth (GB/s)", "bg:bandwidthGBps", numeric=True),
            ),
        ),
        Kind(
            "engines",
            "engines",
            "bg:Engine",
            (C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),),
            uses="engine",
        ),
        Kind(
            "models",
            "models",
            "bg:Model",
            (
                C("vendor", "vendor", "bg:madeBy|bg:vendor", facet=True),
                C("parameters", "parameters (billions)", "bg:parametersBillions", numeric=True),
            ),
            uses="model",
        ),
        Kind(
            "metrics",
            "metrics",
            "bg:Metric",
            (
                C("unit", "unit", "bg:unitCode", facet=True),
                C("scope", "scope", "bg:scope", facet=True),
                C("direction", "direction", "bg:direction", facet=True),
            ),
        ),
        Kind("vendors", "vendors", "bg:Organisation", ()),
    )
}
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
            query = f"SELECT ?r ?v WHERE {{ ?r a {kind.cls} . ?r {column.path} ?v }}"
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
    return [
        tuple(sol) for sol in store.query(text, use_default_graph_as_union=True, prefixes=PREFIXES)
    ]


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
    # shown to 4 significant digits (figures.py); the key keeps the whole value for CSV
    return Value(text, figure(text) if number is not None else text, number=number)


def local_key(iri: str) -> str:
    """How a filter names an IRI value: a record's id, a term's local name."""
    return iri.rstrip("/").rpartition("#" if "#" in iri else "/")[2]


# --- search --------------------------------------------------------------------------------
WORD = re.compile(r"[0-9a-z]+")
# Records a person looks up by name (a part, a model) before the runs named after them.
KIND_WEIGHT = {
    "accelerators": 3.0,
    "models": 3.0,
    "engines": 3.0,
    "interconnects": 2.5,
    "vendors": 2.5,
    "metrics": 2.0,
    "systems": 1.0,
    "benchmarks": 0.0,
}


def fold(text: str) -> str:
    """Lower case, accents off: what a search compares."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


@dataclass
class _Entry:
    row: Row
    kind: str
    squashed: list[tuple[str, float, str]]  # each name without spaces and signs, its weight
    unordered: list[str | None]  # each name's words sorted and joined (None: one word)
    bonus: float  # the kind's weight, less a little for a long label
    order: tuple[str, str]  # ties: by label, then IRI


class SearchIndex:
    """Records ranked by how well their label, id and aliases match a query's words.

    Every word of every name, and every name squashed ("h100sxm80gb"), is an item of one
    vocabulary string; a query word is found in it by substring, in C, and each item it is
    found in scores its records: a whole word counts twice its name's weight, a word's
    start 1.5 times, anything else once (a word of one or two letters counts only as a
    word's start: as a part of words it is in nearly all). A record must hold every word of
    the query. The cost is a scan of the vocabulary (some 13k items at the shipped size)
    and the records found, never every record (benchmarks/search_bench.py measures it)."""

    WEIGHTS = {"label": 3.0, "alias": 2.5, "id": 2.0}

    def __init__(self, rows: list[Row]):
        self.entries: list[_Entry] = []
        postings: dict[str, dict[int, float]] = defaultdict(dict)
        is_word: dict[str, bool] = {}
        for row in rows:
            kind = row.iri[len(str(ID)) :].partition("/")[0]
            n = len(self.entries)
            squashed, unordered = [], []
            for what, text in [
                ("label", row.label),
                ("id", row.id),
                *(("alias", a) for a in row.aliases),
            ]:
                weight = self.WEIGHTS[what]
                words = WORD.findall(fold(text))
                joined = "".join(words)
                squashed.append((joined, weight, what))
                unordered.append("".join(sorted(words)) if len(words) > 1 else None)
                for item, word in [*((w, True) for w in words), (joined, False)]:
                    if postings[item].get(n, 0.0) < weight:
                        postings[item][n] = weight
                    is_word[item] = is_word.get(item, False) or word
            self.entries.append(
                _Entry(
                    row,
                    kind,
                    squashed,
                    unordered,
                    KIND_WEIGHT.get(kind, 0.0) - len(row.label) / 200,
                    (row.label.casefold(), row.iri),
                )
            )
        self.items = list(postings)
        self.is_word = [is_word[item] for item in self.items]
        # each item's records and weights, as two tuples: zip() over them costs least
        self.postings = [
            (tuple(postings[item]), tuple(postings[item].values())) for item in self.items
        ]
        self.vocabulary = "\n".join(self.items)
        self.starts, at = [], 0
        self.short: dict[str, list[int]] = defaultdict(list)  # items by their first 1-2 chars
        for i, item in enumerate(self.items):
            self.starts.append(at)
            at += len(item) + 1
            for k in (1, 2):
                if len(item) >= k:
                    self.short[item[:k]].append(i)
        # words by each form of theirs with a letter left out (SymSpell's deletes): a word
        # one typo from a query word shares one of these with it
        self.near: dict[str, list[int]] = defaultdict(list)
        for i, item in enumerate(self.items):
            if self.is_word[i] and FUZZY_MIN <= len(item) <= FUZZY_MAX and not item.isdigit():
                for key in {item, *_deletes(item)}:
                    self.near[key].append(i)

    def _hits(self, word: str) -> list[tuple[int, float]]:
        """(item, factor) of each vocabulary item holding `word`: 2 for the word itself, 1.5
        for a word it starts, 1 for anything else."""
        if len(word) <= 2:  # a letter or two: the start of a word only, else it is in all
            return [(i, 2.0 if self.items[i] == word else 1.5) for i in self.short.get(word, ())]
        out = []
        starts, items, vocabulary, last = (
            self.starts,
            self.items,
            self.vocabulary,
            len(self.starts) - 1,
        )
        at = vocabulary.find(word)
        while at >= 0:
            i = bisect.bisect_right(starts, at) - 1
            if self.is_word[i] and items[i] == word:
                out.append((i, 2.0))
            elif self.is_word[i] and at == starts[i]:
                out.append((i, 1.5))
            else:
                out.append((i, 1.0))
            at = vocabulary.find(word, starts[i + 1] if i < last else len(vocabulary))
        return out

    def _near(self, word: str) -> list[tuple[int, float]]:
        """(item, FUZZY) of each vocabulary word one typo from `word`: a letter wrong, left
        out, added, or two swapped (nvidai, nvida, nvidiia: nvidia)."""
        if not FUZZY_MIN <= len(word) <= FUZZY_MAX + 1:
            return []
        found: set[int] = set()
        for key in {word, *_deletes(word)}:
            found.update(self.near.get(key, ()))
        items = self.items
        return [(i, FUZZY) for i in sorted(found) if _one_typo(word, items[i])]

    def _scores(
        self, word: str, near: bool = False, fixes: dict[str, list[str]] | None = None
    ) -> dict[int, float]:
        """The best score of `word` in each record that holds it; with `near` (or where none
        holds it), of the words one typo from it too (put in `fixes`)."""
        out: dict[int, float] = {}
        get = out.get
        hits = self._hits(word)
        if near or not hits:
            typos = self._near(word)
            if typos and fixes is not None:
                fixes[word] = [word] + [self.items[i] for i, _f in typos][:3]
            hits += typos
        for i, factor in hits:
            entries, weights = self.postings[i]
            for n, weight in zip(entries, weights):
                s = weight * factor
                if s > get(n, 0.0):
                    out[n] = s
        return out

    def search(self, query: str, limit: int | None = 50) -> list[tuple[float, Row, str]]:
        """(score, row, the name that matched best: label, id or alias) for each record
        every word of `query` is found in, best first."""
        words = WORD.findall(fold(query))
        if not words:
            return []
        # the words as given (a word no name holds: the words one typo from it); if no record
        # holds them all, every word and the words one typo from it
        fixes: dict[str, list[str]] = {}
        total = self._every(words, fixes) or self._every(words, fixes, near=True)
        # a whole name earns its bonus as typed, in any order, or with a typo's fix
        variants = [words]
        for word, near in fixes.items():
            variants = [[f if w == word else w for w in v] for v in variants for f in near][:8]
        wholes = {"".join(v) for v in variants}
        bags = {"".join(sorted(v)) for v in variants if len(v) > 1}
        ranked = []
        entries = self.entries
        for n, score in total.items():
            e = entries[n]
            for (name, weight, _what), free in zip(e.squashed, e.unordered):
                if name in wholes or free in bags:
                    score += 10 * weight
                elif any(name.startswith(whole) for whole in wholes):
                    score += 2 * weight
            ranked.append((-(score + e.bonus), e.order, n))
        ranked = heapq.nsmallest(limit, ranked) if limit is not None else sorted(ranked)
        return [
            (-score, entries[n].row, self._why(entries[n], words)) for score, _order, n in ranked
        ]

    def _every(
        self, words: list[str], fixes: dict[str, list[str]], near: bool = False
    ) -> dict[int, float]:
        """The records every word is found in, with their summed scores; `fixes` gets the
        words one typo from a query word that were looked up (the word itself first)."""
        if near and not any(len(w) >= FUZZY_MIN for w in words):
            return {}
        fixes.clear()
        total: dict[int, float] = {}
        for k, word in enumerate(sorted(set(words), key=len, reverse=True)):
            scores = self._scores(word, near, fixes)
            total = (
                scores if k == 0 else {n: t + scores[n] for n, t in total.items() if n in scores}
            )
            if not total:
                return {}
        return total

    @staticmethod
    def _why(e: _Entry, words: list[str]) -> str:
        """The name that holds most of the words (the first of label, id, alias on a tie)."""
        best, why = -1, ""
        for name, _weight, what in e.squashed:
            held = sum(w in name for w in words)
            if held > best:
                best, why = held, what
        return why


# Typos: a word of 3 to 24 letters is looked up one typo away (shorter ones are one typo from
# too many words: l4, a1), scoring below any substring match, and only where no substring
# match holds every word of the query.
FUZZY, FUZZY_MIN, FUZZY_MAX = 0.75, 3, 24


def _deletes(word: str) -> set[str]:
    """`word` with each of its letters left out in turn."""
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_typo(a: str, b: str) -> bool:
    """Whether b is a, one letter wrong, left out, added, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):  # one letter added
        return a[i:] == b[i + 1 :]
    return (
        a[i + 1 :] == b[i + 1 :]
        or (  # one wrong, or two swapped
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
        )
    )
