"""Dumps of the built dataset in the standard RDF formats, byte-stable for the same data.

The store's own order depends on how it was filled, so a dump has an order of its own:
sorted lines for N-Quads and N-Triples, graph by graph (each sorted as N-Triples lines) for
the other quad formats (JSON-LD with an @context of the prefixes: jsonld.py), sorted
N-Triples lines for the other triple formats. At 100k records
the dataset is 6M quads, 2 GB of N-Quads: sorted whole in memory that took 11 GB and two
minutes. The lines are therefore sorted in runs written to temporary files and merged (an
external sort), and the formats with prefixes are written as a stream of triples parsed back
from sorted lines, a graph or a run at a time.
"""

from __future__ import annotations

import heapq
import io
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from ..namespaces import PREFIXES, RECORD_PREFIXES
from .jsonld import Writer

# Record IRIs read better whole than as bgid:benchmarks\/x, so dumps leave those prefixes out.
DUMP_PREFIXES = {k: v for k, v in PREFIXES.items() if k not in RECORD_PREFIXES}

FORMATS = {
    "trig": ox.RdfFormat.TRIG,
    "nq": ox.RdfFormat.N_QUADS,
    "ttl": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "jsonld": ox.RdfFormat.JSON_LD,
    "rdf": ox.RdfFormat.RDF_XML,  # the union, as for Turtle: RDF/XML has no named graphs
}
ALIASES = {
    "turtle": "ttl",
    "n-triples": "nt",
    "ntriples": "nt",
    "n-quads": "nq",
    "nquads": "nq",
    "json-ld": "jsonld",
    "rdfxml": "rdf",
    "rdf/xml": "rdf",
    "xml": "rdf",
    "owl": "rdf",
}
QUADS = {"trig", "nq", "jsonld"}
RUN_LINES = 500_000  # lines sorted in memory at once: about 200 MB of N-Quads
PARSE_LINES = 20_000  # lines parsed back into triples at once
# The sorting runs' folder is named SCRATCH + "<pid>-...": the pid tells a sweeper
# (web/dumps.py) whether its writer still runs.
SCRATCH = ".benchgraph-dump-"


def format_for(name: str) -> str:
    """Normalise a format name or file extension ('.ttl', 'turtle') to a key of FORMATS."""
    key = name.lower().lstrip(".")
    key = ALIASES.get(key, key)
    if key not in FORMATS:
        raise ValueError(f"unknown format {name!r} (use one of: {', '.join(FORMATS)})")
    return key


def dump(
    store: ox.Store,
    fmt: str,
    out: IO[bytes] | Path,
    scratch: Path | None = None,
    extra: Sequence[ox.Quad] = (),
) -> None:
    """Write the dataset, with the quads `extra` (the description, when the store does not
    hold it): quad formats keep the named graphs; triple formats write the union (each
    triple once). Sorting writes temporary files (up to twice the dump's size) in `scratch`:
    beside `out` when it is a path, else in the system's ($TMPDIR), which is often in
    memory."""
    key = format_for(fmt)
    if isinstance(out, Path):
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("wb") as f:
            return dump(store, key, f, scratch or out.parent, extra)
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH}{os.getpid()}-", dir=scratch) as tmp:
        if key == "nq":
            unsorted = Path(tmp, "unsorted.nq")
            store.dump(unsorted, ox.RdfFormat.N_QUADS)
            with unsorted.open("ab") as f:
                f.write(ox.serialize(extra, format=ox.RdfFormat.N_QUADS) or b"")
            with unsorted.open("rb") as lines:
                out.writelines(sorted_unique(lines, tmp))
        elif key == "jsonld":  # with an @context of the prefixes: pyoxigraph's writes none
            Writer(DUMP_PREFIXES).write(_graph_by_graph(store, extra), out)
        elif key in QUADS:
            ox.serialize(_graph_by_graph(store, extra), out, FORMATS[key], prefixes=DUMP_PREFIXES)
        else:
            unsorted = Path(tmp, "unsorted.nt")
            with unsorted.open("wb") as f:
                for graph in _graphs(store):  # the union: every graph's triples, made unique
                    store.dump(f, ox.RdfFormat.N_TRIPLES, from_graph=graph)
                f.write(
                    ox.serialize([q.triple for q in extra], format=ox.RdfFormat.N_TRIPLES) or b""
                )
            with unsorted.open("rb") as lines:
                union = sorted_unique(lines, tmp)
                if key == "nt":
                    out.writelines(union)
                else:
                    ox.serialize(_parsed(union), out, FORMATS[key], prefixes=DUMP_PREFIXES)


def dumps(store: ox.Store, fmt: str) -> bytes:
    """The dump as bytes."""
    buf = io.BytesIO()
    dump(store, fmt, buf)
    return buf.getvalue()


def sorted_unique(lines: Iterable[bytes], tmp: str) -> Iterator[bytes]:
    """The lines in byte order (which is the order of their text), each once: RUN_LINES at a
    time sorted in memory and written to a file in `tmp`, then the files merged."""
    runs: list[IO[bytes]] = []
    lines = iter(lines)
    while batch := list(islice(lines, RUN_LINES)):
        chunk = sorted(set(batch))
        if len(batch) < RUN_LINES and not runs:  # the lines ended within one run: no file
            yield from chunk
            return
        run = tempfile.TemporaryFile(dir=tmp)
        run.writelines(chunk)
        run.seek(0)
        runs.append(run)
    last = None
    try:
        for line in heapq.merge(*runs):
            if line != last:
                yield line
                last = line
    finally:
        for run in runs:
            run.close()


def _graphs(store: ox.Store) -> list[ox.NamedNode | ox.BlankNode | ox.DefaultGraph]:
    """The store's graphs in the order of their text, the default graph among them."""
    graphs: list = list(store.named_graphs())
    graphs.append(ox.DefaultGraph())
    return sorted(graphs, key=str)


def _graph_by_graph(store: ox.Store, extra: Sequence[ox.Quad] = ()) -> Iterator[ox.Quad]:
    """Every quad, graph by graph, each graph's triples in the order of their N-Triples;
    `extra` in the graphs it names, among the store's."""
    more: dict[str, list[ox.Triple]] = {}
    for q in extra:
        more.setdefault(str(q.graph_name), []).append(q.triple)
    names = {str(g): g for g in _graphs(store)} | {str(q.graph_name): q.graph_name for q in extra}
    for name in sorted(names):
        graph = names[name]
        text = store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=graph) + (
            ox.serialize(more.get(name, []), format=ox.RdfFormat.N_TRIPLES) or b""
        )
        lines = sorted(set(text.splitlines(keepends=True)))
        for triple in _parsed(lines):
            yield ox.Quad(triple.subject, triple.predicate, triple.object, graph)


def _parsed(lines: Iterable[bytes]) -> Iterator[ox.Triple]:
    """N-Triples lines parsed back into triples, in their order, PARSE_LINES at a time."""
    lines = iter(lines)
    while chunk := b"".join(islice(lines, PARSE_LINES)):
        yield from ox.parse(chunk, ox.RdfFormat.N_TRIPLES)
