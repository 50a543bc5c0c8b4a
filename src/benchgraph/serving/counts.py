"""The description's counts (serving/description.py) from the build's cache, without reading
every quad of the store: each graph's counts are worked out once from the N-Quads the cache
keeps of it, and kept with its digest in `counts.sqlite` beside the cache; the totals are
kept too, and a rebuild counts again only the graphs it changed. Reading every quad took
16.5 s of each `serve --watch` rebuild at 100k runs, whose build took 0.3 s.

Exact where each record's share of the graphs it shares with others (inferred, links) is
its own, as the build's loads assume (store/load.py removes a record's share quad by quad):
a subject is typed by one record's quads alone. The equivalence with the store's own counts
is tested on the shipped data and after edits (tests/test_description_counts.py). Where the
cache does not hold exactly the build's store (another build since), `totals` answers None
and the description reads the store.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

import pyoxigraph as ox

from ..namespaces import GRAPH, INFERRED_GRAPH, LINK_GRAPH, ONTOLOGY_IRI, RUN
from ..store.cache import unpack

TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
DCT = "http://purl.org/dc/terms/"
SOURCE_PARTS = {
    f"<{DCT}source>": "source",
    f"<{DCT}license>": "licence",
    f"<{DCT}publisher>": "publisher",
    "<https://w3id.org/benchgraph/ontology#repository>": "repository",
}
GRAPHS = str(GRAPH)
ONTOLOGY, INFERRED, LINKS = str(ONTOLOGY_IRI), str(INFERRED_GRAPH), str(LINK_GRAPH)
# the link graph's linksets, per predicate and site: description.LINKS's REPLACE
_SITE = re.compile(r"^(https?://[^/]+/).*$")


class Unsure(Exception):
    """The text holds what these counts cannot add up exactly (a source in a shared graph)."""


def count(text: str, graphs: tuple[str, ...]) -> Counter:
    """The counts of some N-Quads lines, keyed `kind` (record graphs of a kind), `triples`
    (their quads, by kind), `graph` (quads of any other graph), `property`, `class`
    (subjects, each once), `source` (description.SOURCES's rows: record graphs citing each)
    and `link` (link graph quads by predicate and site), each key `part\\tname` (a row of
    several names as a JSON list). `graphs`: the graphs the lines are in."""
    out: Counter = Counter()
    sizes = {g: text.count(f" <{g}> .\n") for g in graphs}
    if sum(sizes.values()) != text.count("\n"):
        raise Unsure(f"lines in graphs other than {graphs}")
    # IRIs hold no space: subject, predicate and the rest (object, graph) of each line
    quads = [line.split(" ", 2) for line in text.splitlines()]
    for p, n in Counter(p for _, p, _ in quads).items():
        out[f"property\t{p[1:-1]}"] += n
    typed = {(s, rest.split(" ", 1)[0]) for s, p, rest in quads if p == TYPE and rest[0] == "<"}
    cited: dict[str, dict[str, dict[str, list[str]]]] = defaultdict(lambda: defaultdict(dict))
    for s, p, rest in [q for q in quads if q[1] in SOURCE_PARTS]:
        part = SOURCE_PARTS[p]
        o, g = rest[:-2].rsplit(" ", 1)
        if part == "source" and g[1:-1] in (INFERRED, LINKS):
            # joined across records in the store: not a sum of theirs
            raise Unsure(f"{s} {p} {rest}: a source in a graph records share")
        cited[g][s].setdefault(part, []).append(o)
    if sizes.get(LINKS):
        tail = f" <{LINKS}> ."
        for _, p, rest in [q for q in quads if q[2].endswith(tail) and q[2][0] == "<"]:
            site = _SITE.sub(r"\1", rest.split(" ", 1)[0][1:-1])
            out["link\t" + json.dumps([p[1:-1], site])] += 1
    for name, n in sizes.items():
        if not n:
            continue
        rest = name[len(GRAPHS) :] if name.startswith(GRAPHS) else ""
        if "/" in rest:
            kind = rest.partition("/")[0]
            out[f"kind\t{kind}"] += 1
            out[f"triples\t{kind}"] += n
        else:
            out[f"graph\t{name}"] += n
    for _, c in typed:
        out[f"class\t{c[1:-1]}"] += 1
    for nodes in cited.values():
        rows = set()
        for facts in nodes.values():
            for source in facts.get("source", ()):
                of = nodes.get(source, {})
                for licence in of.get("licence", ()):
                    for publisher in of.get("publisher", [""]):
                        for repository in of.get("repository", [""]):
                            rows.add("source\t" + json.dumps([licence, publisher, repository]))
        for row in rows:
            out[row] += 1
    return out


def totals(work: Path, key: str, store: ox.Store, start: bool = False) -> Counter | None:
    """The counts of `store`, which the build in `work` made with result key `key` (or a
    copy of it): from the counts kept per graph, those of graphs changed since counted
    again. None where the cache is not that build's (another build ended since, or `key` is
    of a copy with other graphs), holds what count() cannot add up, or no counts are kept
    yet, unless `start`: counting every graph the first time takes longer than the store's
    own counts (37-48 s at 100k runs against 23-30 s: benchmarks/reports/counts.md), which
    `serve --watch`'s builder does while it waits (serving/reload.py), not a command's or a
    server's start."""
    cache = work / "cache.sqlite"
    if not cache.is_file():
        return None
    db = None
    try:
        # the cache beside, read only: the graphs to count again are found by SQL, in C
        db = sqlite3.connect(
            (work / "counts.sqlite").resolve().as_uri(), uri=True, timeout=60, isolation_level=None
        )
        db.execute("ATTACH DATABASE ? AS cache", (cache.resolve().as_uri() + "?mode=ro",))
        db.execute(
            "CREATE TABLE IF NOT EXISTS counted (graph TEXT PRIMARY KEY, digest TEXT, counts TEXT)"
            " WITHOUT ROWID"
        )
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS name (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("BEGIN IMMEDIATE")  # one process counts at a time, on one state of the cache
        try:
            found = _brought_up(db, key, store, start)
        except Unsure as exc:
            db.execute("ROLLBACK")
            # such records stay: counted in the store from now on, not tried again each time
            db.execute("INSERT OR REPLACE INTO meta VALUES ('unsure', ?)", (str(exc),))
            return None
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return found
    except sqlite3.OperationalError:  # counts.sqlite not writable, or held too long
        return None
    finally:
        if db is not None:
            db.close()


def _brought_up(db: sqlite3.Connection, key: str, store: ox.Store, start: bool) -> Counter | None:
    # the last build's result, committed with its account of the store (`loaded`)
    row = db.execute("SELECT value FROM cache.meta WHERE key = 'result'").fetchone()
    if row is None or row[0] is None or json.loads(row[0])["key"] != key:
        return None
    said = dict(db.execute("SELECT key, value FROM meta"))
    if "unsure" in said or ("totals" not in said and not start):
        return None
    total = Counter(json.loads(said["totals"])) if "totals" in said else Counter()
    if "totals" not in said:
        db.execute("DELETE FROM counted")
        said = {}
    # each graph's counts keyed by a number for each name: 83 MB at 100k runs (as names,
    # 152 MB packed)
    names = dict(db.execute("SELECT id, name FROM name"))
    ids = {name: i for i, name in names.items()}
    # what the store took since the last count: the cache's rows past the last `n` counted
    # (store/cache.py), the graphs loaded again or anew; comparing every graph's digest
    # took 0.55 s at 100k runs
    seen = int(said.get("seen", -1))
    fresh, top = {}, seen
    for n, graph, digest in db.execute(
        "SELECT n, graph, digest FROM cache.loaded WHERE n > ? ORDER BY n", (seen,)
    ):
        fresh[graph], top = digest, n
    stale = db.execute(
        "SELECT graph, counts FROM counted WHERE graph IN (SELECT value FROM json_each(?))",
        (json.dumps(list(fresh)),),
    ).fetchall()
    # graphs counted and since removed (a record deleted): by the number of graphs, each
    # found only then by comparing them all
    ((now,),) = db.execute("SELECT count(*) FROM cache.loaded")
    if int(said.get("graphs", 0)) + len(fresh) - len(stale) != now:
        stale += db.execute(
            "SELECT c.graph, c.counts FROM counted c LEFT JOIN cache.loaded l"
            " ON l.graph = c.graph WHERE l.graph IS NULL"
        ).fetchall()
    for _, text in stale:
        total.subtract({names[int(i)]: n for i, n in json.loads(text).items()})
    db.executemany("DELETE FROM counted WHERE graph = ?", [(g,) for g, _ in stale])
    new = []
    for graph, text in _texts(db, fresh, store):
        found = count(text, (graph, INFERRED, LINKS))
        total.update(found)
        for name in found.keys() - ids.keys():
            ids[name] = len(ids)
            db.execute("INSERT INTO name VALUES (?, ?)", (ids[name], name))
        new.append((graph, fresh[graph], json.dumps({ids[k]: n for k, n in found.items()})))
    missing = sorted(fresh.keys() - {g for g, *_ in new})
    if missing:
        raise Unsure(f"the cache has not the quads of {len(missing)} graph(s): {missing[:3]}")
    db.executemany("INSERT INTO counted VALUES (?, ?, ?)", new)
    total = +total  # without the zeros
    db.executemany(
        "INSERT OR REPLACE INTO meta VALUES (?, ?)",
        [("totals", json.dumps(total, sort_keys=True)), ("seen", str(top)), ("graphs", str(now))],
    )
    return total + _derived(db)


def _texts(db: sqlite3.Connection, graphs: dict[str, str], store: ox.Store):
    """(graph, its N-Quads: the record's or the ontology's own, and its share of the inferred
    and link graphs) of these graphs (graph -> the digest loaded), as the store holds them."""
    listed = json.dumps(list(graphs))
    shares = dict(
        db.execute(
            "SELECT graph, nq FROM cache.inferred WHERE graph IN (SELECT value FROM json_each(?))",
            (listed,),
        )
    )
    rows = db.execute(
        f"SELECT '{GRAPHS}' || e.kind || '/' || e.id, e.digest, b.stated FROM cache.entry e"
        " JOIN cache.body b ON b.path = e.path WHERE e.kind IS NOT NULL"
        f" AND '{GRAPHS}' || e.kind || '/' || e.id IN (SELECT value FROM json_each(?))",
        (listed,),
    )
    for graph, digest, stated in rows:
        if digest != graphs[graph]:  # another file of the same id, not loaded
            continue
        share = shares.get(graph)
        yield graph, unpack(stated) + (unpack(share) if share else "")
    if ONTOLOGY in graphs:
        share = shares.get(ONTOLOGY)
        yield ONTOLOGY, _ontology(store) + (unpack(share) if share else "")


def _ontology(store: ox.Store) -> str:
    """The ontology's own quads (the cache keeps its closure, not them): its graph alone."""
    text = store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(ONTOLOGY))
    return "".join(f"{line[:-2]} <{ONTOLOGY}> .\n" for line in text.decode().splitlines())


def _derived(db: sqlite3.Connection) -> Counter:
    """The counts of what the cross-record rules derived (store.load.Derived): lines of
    records of their own, and for runs alike a kind's lines once, times its runs."""
    out: Counter = Counter()
    for (nq,) in db.execute("SELECT nq FROM cache.derived WHERE nq IS NOT NULL"):
        out.update(count(unpack(nq), (INFERRED,)))
    for kind, runs in db.execute(
        "SELECT kind, count(*) FROM cache.derived WHERE kind IS NOT NULL GROUP BY kind"
    ):
        row = db.execute("SELECT nq FROM cache.derived_kind WHERE kind = ?", (kind,)).fetchone()
        if row is None:
            raise Unsure(f"the lines of derived kind {kind} are not in the cache")
        for name, n in count(unpack(row[0]).replace(f"<{RUN}", "<x:run"), (INFERRED,)).items():
            out[name] += n * runs
    return out


def term(text: str) -> ox.NamedNode | ox.Literal | ox.BlankNode:
    """One term as N-Triples writes it, as the store's own answer has it."""
    (quad,) = ox.parse(f"<x:s> <x:p> {text} .\n", ox.RdfFormat.N_TRIPLES)
    return quad.object
