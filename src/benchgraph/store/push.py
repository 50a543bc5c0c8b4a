"""`benchgraph push`: bring a SPARQL store server to hold a build, graph by graph, over the
SPARQL 1.1 Graph Store HTTP Protocol.

Each named graph of the build is sent whole (PUT, which the store applies as one change),
so a push stopped at any point leaves only whole graphs. The derived facts are sent as one
graph per record (`graph/inferred/<kind>/<id>`, plus `graph/inferred/ontology` for what is
derived about no record): an edit changes few of them, and the whole inferred graph
(millions of quads at 100k records) is never sent again for it. A manifest graph in the
store records each graph's digest and size, so any clone pushing to the store knows what it
holds; it is written every CHECKPOINT graphs and at the end. A graph sent after the last
checkpoint is sent again by the next push (the same bytes), a graph removed is removed again
(a 404 is fine), and graphs of benchgraph's that the manifest does not name are found by a
query and removed, so an interrupted push resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO

import pyoxigraph as ox

from .._version import __version__
from ..namespaces import BASE, GRAPH, ID, INFERRED_GRAPH
from .http import PUSH_ACCOUNT, Client, check_url, error_from
from .remote import INFERRED_PARTS, MANIFEST, PUSH, RemoteStore

INFERRED = str(INFERRED_GRAPH)
CHECKPOINT = 2000  # graphs sent between two writes of the manifest
CHECKPOINT_SECONDS = 30.0
SENDERS = 4  # requests in flight at once: the store works while the next one is sent
NTRIPLES = "application/n-triples"
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


@dataclass
class Graph:
    """One graph as the build has it: its sorted N-Triples, their digest and count."""

    name: str
    text: bytes
    quads: int

    @property
    def digest(self) -> str:
        return hashlib.blake2b(self.text, digest_size=16).hexdigest()


@dataclass
class Plan:
    """What a push sends and removes."""

    send: list[Graph] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    kept: int = 0  # graphs the store already holds as they are
    new: int = 0  # among send: graphs the store does not hold yet

    def summary(self) -> str:
        quads = sum(g.quads for g in self.send)
        return (
            f"{len(self.send)} graph(s) to send ({self.new} new, "
            f"{len(self.send) - self.new} changed; {quads:,} quads), "
            f"{len(self.remove)} to remove, {self.kept} unchanged"
        )


def local_graphs(store: ox.Store) -> dict[str, Graph]:
    """Every graph of the built store as a push sends it: record graphs and the others as
    they are, the inferred graph split by the record its subject belongs to."""
    out: dict[str, Graph] = {}
    for graph in store.named_graphs():
        text = store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=graph)
        if graph.value == INFERRED:
            out.update(split_inferred(text))
        else:
            lines = sorted(text.splitlines(keepends=True))
            out[graph.value] = Graph(graph.value, b"".join(lines), len(lines))
    return out


def graphs_of(quads: list[ox.Quad]) -> dict[str, Graph]:
    """Quads as the graphs a push sends (their N-Triples sorted)."""
    parts: dict[str, list[ox.Triple]] = defaultdict(list)
    for q in quads:
        parts[q.graph_name.value].append(q.triple)
    out = {}
    for name, triples in parts.items():
        lines = sorted(
            ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).splitlines(keepends=True)
        )
        out[name] = Graph(name, b"".join(lines), len(lines))
    return out


def split_inferred(text: bytes) -> dict[str, Graph]:
    """The inferred graph's N-Triples as one graph per record (by the subject's record)."""
    # a record's nodes (id/<kind>/<id>#...) and its graph (graph/<kind>/<id>, what its
    # provenance says of the graph) are the record's
    owners = (f"<{ID}".encode(), f"<{GRAPH}".encode())
    parts: dict[str, list[bytes]] = defaultdict(list)
    for line in text.splitlines(keepends=True):
        subject = line[: line.index(b" ")]
        record = next(
            (
                subject[len(o) : -1].split(b"#", 1)[0].decode()
                for o in owners
                if subject.startswith(o)
            ),
            None,
        )
        if record is not None and record.count("/") == 1:
            parts[INFERRED_PARTS + record].append(line)
        else:
            parts[INFERRED_PARTS + "ontology"].append(line)
    return {name: Graph(name, b"".join(sorted(lines)), len(lines)) for name, lines in parts.items()}


def plan(local: dict[str, Graph], manifest: dict[str, tuple[str, int]], present: set[str]) -> Plan:
    """Send what differs from the manifest or is not in it; remove the manifest's graphs
    the build no longer has, and benchgraph's graphs in the store the manifest does not name
    (left by a push stopped before its checkpoint)."""
    p = Plan()
    for name, graph in sorted(local.items()):
        recorded = manifest.get(name)
        if recorded is not None and recorded[0] == graph.digest:
            p.kept += 1
            continue
        p.send.append(graph)
        p.new += recorded is None and name not in present
    p.remove = sorted((set(manifest) | present) - set(local) - {MANIFEST})
    return p


class Progress:
    """A bar on a terminal; elsewhere (CI logs) a line every few seconds."""

    def __init__(self, total: int, out: IO[str], every: float = 5.0):
        self.total, self.done, self.out, self.every = total, 0, out, every
        self.start = self.last = time.monotonic()
        self.tty = out.isatty()
        self.lock = threading.Lock()

    def step(self, n: int = 1) -> None:
        with self.lock:
            self.done += n
            now = time.monotonic()
            if self.tty:
                if now - self.last >= 0.1 or self.done == self.total:
                    width = 30
                    filled = width * self.done // max(self.total, 1)
                    self.out.write(
                        f"\rpush [{'#' * filled}{'.' * (width - filled)}] "
                        f"{self.done}/{self.total} graphs {now - self.start:.0f} s"
                    )
                    self.out.flush()
                    self.last = now
            elif now - self.last >= self.every:
                self.out.write(
                    f"push: {self.done}/{self.total} graphs ({now - self.start:.0f} s)\n"
                )
                self.out.flush()
                self.last = now

    def end(self) -> None:
        if self.tty and self.total:
            self.out.write("\n")


class Pusher:
    """Sends a Plan to a store's Graph Store endpoint, keeping its manifest."""

    def __init__(
        self, graph_store: str, client: Client, manifest: dict[str, tuple[str, int]], key: str
    ):
        self.url = check_url(graph_store, "--graph-store")
        self.client = client
        self.manifest = dict(manifest)
        self.key = key
        self.lock = threading.Lock()

    def run(self, p: Plan, progress: Progress) -> None:
        """Remove, then send; the manifest written every CHECKPOINT graphs (or
        CHECKPOINT_SECONDS), at the end, and when the push stops on a failure or Ctrl-C (with
        what was done by then)."""
        removals: list[Callable[[], None]] = [lambda n=n: self._remove(n) for n in p.remove]
        sends: list[Callable[[], None]] = [lambda g=g: self._send(g) for g in p.send]
        since, last = 0, time.monotonic()
        with ThreadPoolExecutor(SENDERS) as pool:
            # the removals end before any send starts: a graph's DELETE and PUT in flight at
            # once may land in either order
            for work in (removals, sends):
                futures = [pool.submit(w) for w in work]
                try:
                    for f in futures:
                        f.result()
                        progress.step()
                        since += 1
                        if since >= CHECKPOINT or time.monotonic() - last > CHECKPOINT_SECONDS:
                            self._write_manifest(final=False)
                            since, last = 0, time.monotonic()
                except BaseException:
                    for f in futures:
                        f.cancel()
                    pool.shutdown(wait=True)  # the requests under way end, whole or refused
                    try:
                        self._write_manifest(final=False)
                    except Exception:  # noqa: BLE001 - the first failure is the one to report
                        pass
                    raise
        self._write_manifest(final=True)

    def _send(self, graph: Graph) -> None:
        response = self.client.request(
            "PUT",
            self.url,
            body=graph.text,
            headers={"Content-Type": NTRIPLES},
            params=[("graph", graph.name)],
        )
        if response.status not in (200, 201, 204):
            raise error_from(response, f"PUT <{graph.name}>")
        with self.lock:
            self.manifest[graph.name] = (graph.digest, graph.quads)

    def _remove(self, name: str) -> None:
        response = self.client.request("DELETE", self.url, params=[("graph", name)])
        if response.status not in (200, 204, 404):
            raise error_from(response, f"DELETE <{name}>")
        with self.lock:
            self.manifest.pop(name, None)

    def _write_manifest(self, final: bool) -> None:
        """The manifest graph, whole: each graph's digest and size, and (at the end) the
        build key and version that were pushed (no clock time: the same push, the same
        manifest)."""
        with self.lock:
            entries = sorted(self.manifest.items())
        lines = []
        for name, (digest, quads) in entries:
            lines.append(f'<{name}> <{PUSH}digest> "{digest}" .\n')
            lines.append(f'<{name}> <{PUSH}quads> "{quads}"^^<{XSD_INTEGER}> .\n')
        if final:
            lines.append(f'<{MANIFEST}> <{PUSH}datasetKey> "{self.key}" .\n')
            lines.append(f'<{MANIFEST}> <{PUSH}benchgraphVersion> "{__version__}" .\n')
        response = self.client.request(
            "PUT",
            self.url,
            body="".join(lines).encode(),
            headers={"Content-Type": NTRIPLES},
            params=[("graph", MANIFEST)],
        )
        if response.status not in (200, 201, 204):
            raise error_from(response, f"PUT <{MANIFEST}> (the manifest)")


def present_graphs(remote: RemoteStore) -> set[str]:
    """benchgraph's graphs the store holds (under its base IRI), whatever the manifest says."""
    rows = remote._select("SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g", raw=True)
    return {r["g"]["value"] for r in rows if r["g"]["value"].startswith(BASE)}


@dataclass
class PushResult:
    plan: Plan
    seconds: float
    local_quads: int


def push(
    store: ox.Store,
    key: str,
    query_url: str,
    graph_store: str,
    *,
    dry_run: bool = False,
    full: bool = False,
    out: IO[str] | None = None,
    extra: list[ox.Quad] = (),
) -> PushResult:
    """Bring the store at query_url / graph_store to hold the build in `store` (key: its
    dataset key) and the quads `extra` (the dataset's description, which the build does not
    hold), each graph of them replaced whole. `full`: remove everything benchgraph holds
    there and send all again."""
    out = out or sys.stderr
    start = time.monotonic()
    check_url(graph_store, "--graph-store")
    remote = RemoteStore(query_url, account=PUSH_ACCOUNT)  # push's account, never serving's
    local = local_graphs(store)
    local.update(graphs_of(extra))
    present = present_graphs(remote)
    manifest = {} if full else remote.manifest()
    if full:  # start over: what is there goes, everything is sent
        # a graph sent is replaced whole (PUT): only those the build no longer has are
        # removed (removing one that is also sent raced its PUT and could win: a lost graph)
        p = Plan(
            send=sorted(local.values(), key=lambda g: g.name),
            remove=sorted(present - {MANIFEST} - set(local)),
            new=len(set(local) - present),
        )
    else:
        p = plan(local, manifest, present)
    print(f"push{' (dry run, nothing sent)' if dry_run else ''}: {p.summary()}", file=out)
    if not dry_run and (
        p.send or p.remove or (full and MANIFEST in present) or remote.dataset_key() != key
    ):
        progress = Progress(len(p.send) + len(p.remove), out)
        try:
            Pusher(graph_store, remote.client, manifest, key).run(p, progress)
        finally:
            progress.end()
    remote.close()
    return PushResult(p, time.monotonic() - start, sum(g.quads for g in local.values()))
