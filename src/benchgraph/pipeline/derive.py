"""The cross-record rules' part of a build (reasoning.rules): as the records load in a first
build, and after the load for the runs and systems an edit reaches.

A first build converts the records others link to before the runs (steps.py orders the
files), so once those are in, each batch of runs is derived as the workers hand it on and
its derived quads go into the store with the batch's own load: no phase after the load reads
the store back or writes it again. Any other build derives, once the store is loaded, the
records `Loader.finish` names from the facts the cache keeps, and writes the difference to
what the store holds of them (store.load.Loader.derived)."""

from __future__ import annotations

from collections.abc import Iterable

from ..namespaces import ID, RUN, graph_of, record_iri, renamed
from ..reasoning.rules import SYSTEM, World
from ..store.cache import ID as ROW_ID
from ..store.cache import KIND, Cache, Entries, Entry
from ..store.load import Derived, Loader, graph_name

RUNS = "benchmarks"
IDS = str(ID)
SYSTEMS = f"{IDS}systems/"


class Derivation:
    """One build's derivation. `stream`: the store starts empty and every record is
    converted (a first build), the records others link to first: derive as they load;
    `first`: the display paths of those records, all of which come before any run."""

    def __init__(self, cache: Cache, stream: bool = False, first: Iterable[str] = ()):
        self.cache, self.stream = cache, stream
        self.waiting = set(first)  # records others link to, not converted yet
        self.world = World() if stream else None
        # runs not derived yet, by their rule facts: (graph, record IRI) of runs alike
        self.runs: dict[str, list[tuple[str, str]]] = {}
        self.others: list[tuple[str, str]] = []  # (graph, IRI) of records others link to
        self.done: set[str] = set()  # graphs derived as they loaded
        self.loader: Loader | None = None  # set by the build, as is `included`
        self.included: Entries | None = None

    # --- as the records load (store.load.Deriver) ----------------------------------------
    def take(self, entries: list[Entry]) -> Derived:
        """Derived quads of what can be derived now that these entries load."""
        if not self.stream:
            return Derived()
        for e in entries:
            self.waiting.discard(e.path)
            if not e.rules:
                continue
            own = str(record_iri(e.kind, e.id))
            if e.kind == RUNS:
                self.runs.setdefault(e.rules, []).append((graph_name(e), own))
            else:
                self.world.add(own, e.rules)
                self.others.append((graph_name(e), own))
            e.rules = ""  # the cache keeps it
        if self.waiting:
            return Derived()
        return self._now()

    def rest(self) -> Derived:
        """What is left to derive once every batch is in."""
        if not self.stream:
            return Derived()
        self.waiting.clear()
        return self._now()

    def again(self, graphs: Iterable[str]) -> None:
        """Graphs loaded a second time in this build (two files of one id): derived after
        the load, with the rest."""
        self.done -= set(graphs)

    def _now(self) -> Derived:
        others, runs = self.others, self.runs
        self.others, self.runs = [], {}
        if not others and not runs:
            return Derived()
        out = _alike(self.world, runs, others)
        self.done |= out.graphs()
        return out

    # --- after the load -------------------------------------------------------------------
    def after_load(self, included: Entries, records: dict[str, str | None] | None) -> None:
        """Derive these records (IRIs of runs and systems, each with its file where known;
        None: every record), from the facts the cache keeps of them and of every record
        that is not a run."""
        if records is not None and not records:
            return
        rows = included.rows

        def iri_of(path: str) -> str:
            return f"{IDS}{rows[path][KIND]}/{rows[path][ROW_ID]}"

        if records is None:
            wanted = [
                (path, iri_of(path))
                for path, row in rows.items()
                if graph_name_of(row) not in self.done
            ]
        else:
            # the files of these records: the one a link found (an id held by two files
            # refuses the build, or with --skip-invalid leaves both out, so a file in
            # `included` is its id's only one); else looked up in the cache (16k lookups
            # took 0.06-0.18 s at 100k; a dict of every record's key, a pass over 100k rows)
            known = {i: p for i, p in records.items() if p}
            found = self.cache.paths_of(
                [iri.rsplit("/", 2)[1:] for iri in records if iri not in known]
            )
            wanted = []
            for iri in records:
                if iri in known:
                    wanted.append((known[iri], iri))
                    continue
                kind, rid = iri.rsplit("/", 2)[1:]
                paths = [p for p in found.get((kind, rid), ()) if p in rows]
                if len(paths) > 1:  # two files of one id: the last the build read, as before
                    order = {p: n for n, p in enumerate(rows)}
                    paths.sort(key=order.__getitem__)
                wanted.append((paths[-1] if paths else None, iri))
        if not wanted:
            return
        # their facts, then those of the records they may read: every part, interconnect
        # and metric (few), and the systems among them and of their runs (not every system)
        world = World()
        mine = sorted({p for p, _ in wanted if p is not None})
        taken = set(mine)
        runs: dict[str, list[tuple[str, str]]] = {}  # rule facts -> runs alike
        facts_of = self.cache.rule_facts(mine)
        # gone, or with no facts: derived to nothing
        others = [(graph_of(iri), iri) for path, iri in wanted if path not in facts_of]
        for path, facts in facts_of.items():
            iri = iri_of(path)
            if rows[path][KIND] == RUNS:
                runs.setdefault(facts, []).append((graph_of(iri), iri))
            else:
                world.add(iri, facts)
                others.append((graph_of(iri), iri))
        # runs alike have the same system: one of each kind names them all
        for facts, members in runs.items():
            world.add(members[0][1], facts)
        systems = {iri for _, iri in wanted if iri.startswith(SYSTEMS)}
        systems |= {o for m in runs.values() for o in world.edges[SYSTEM].get(m[0][1], ())}
        more = [
            p
            for p in included.others()
            if p not in taken and (rows[p][KIND] != "systems" or iri_of(p) in systems)
        ]
        for path, facts in self.cache.rule_facts(more).items():
            world.add(iri_of(path), facts)
        self.loader.derived(_alike(world, runs, others, added=True))


def _alike(
    world: World,
    runs: dict[str, list[tuple[str, str]]],
    others: list[tuple[str, str]],
    added: bool = False,
) -> Derived:
    """What the rules derive of `others` ((graph, IRI), their facts in `world`) and of `runs`
    (rule facts -> (graph, IRI) of the runs that have them): one run of each kind is
    derived, its lines made the kind's, with RUN for its IRI (rules.OWN). `added`: the first
    run of each kind is in `world` already. Nothing links to a run: once derived, its facts
    are let go."""
    first = {}
    for facts, members in runs.items():
        first[members[0][1]] = members
        if not added:
            world.add(members[0][1], facts)
    found = world.derive([iri for _, iri in others] + list(first))
    out = Derived({graph: found[iri] for graph, iri in others})
    for iri, members in first.items():
        out.kinds.setdefault(tuple(renamed(found[iri], iri, RUN)), []).extend(members)
    world.forget(list(first))
    return out


def graph_name_of(row: tuple) -> str:
    return graph_of(str(record_iri(row[KIND], row[ROW_ID])))


def derive(
    target: Derivation, runs: dict[str, str | None] | None, judged: list[str] | None = None
) -> None:
    """The cross-record rules for the runs and systems `runs` (None: all), into the store
    the derivation's loader fills (`judged`: the runs whose comparisons must be judged
    again, which the rules do for every run they derive)."""
    target.after_load(target.included, runs)
