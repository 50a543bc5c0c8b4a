"""Dumps of the built dataset in the standard RDF formats, byte-stable for the same data."""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from .namespaces import PREFIXES

# Record IRIs read better whole than as bgid:benchmarks\/x, so dumps leave that prefix out.
DUMP_PREFIXES = {k: v for k, v in PREFIXES.items() if k != "bgid"}

FORMATS = {
    "trig": ox.RdfFormat.TRIG,
    "nq": ox.RdfFormat.N_QUADS,
    "ttl": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "jsonld": ox.RdfFormat.JSON_LD,
}
ALIASES = {"turtle": "ttl", "n-triples": "nt", "ntriples": "nt", "n-quads": "nq",
           "nquads": "nq", "json-ld": "jsonld"}
QUADS = {"trig", "nq", "jsonld"}


def format_for(name: str) -> str:
    """Normalise a format name or file extension ('.ttl', 'turtle') to a key of FORMATS."""
    key = name.lower().lstrip(".")
    key = ALIASES.get(key, key)
    if key not in FORMATS:
        raise ValueError(f"unknown format {name!r} (use one of: {', '.join(FORMATS)})")
    return key


def dump(store: ox.Store, fmt: str, out: IO[bytes] | Path) -> None:
    """Write the dataset: quad formats keep the named graphs; triple formats write the union.

    Lines are sorted (N-Triples, N-Quads) or the store's own stable order (the rest), so two
    builds of the same data give the same bytes.
    """
    key = format_for(fmt)
    if key in ("nq", "nt"):
        if key == "nq":
            text = store.dump(format=ox.RdfFormat.N_QUADS)
        else:
            text = ox.serialize(_union(store), format=ox.RdfFormat.N_TRIPLES)
        lines = sorted(set(text.decode().splitlines(keepends=True)))
        data = "".join(lines).encode()
    elif key in QUADS:
        # The store's own order depends on how it was filled, so sort: graph, then subject.
        quads = sorted(store, key=lambda q: (str(q.graph_name), str(q.subject),
                                             str(q.predicate), str(q.object)))
        data = ox.serialize(quads, format=FORMATS[key], prefixes=DUMP_PREFIXES)
    else:
        data = ox.serialize(sorted(_union(store), key=str), format=FORMATS[key],
                            prefixes=DUMP_PREFIXES)
    if isinstance(out, Path):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    else:
        out.write(data)


def dumps(store: ox.Store, fmt: str) -> bytes:
    """The dump as bytes."""
    buf = io.BytesIO()
    dump(store, fmt, buf)
    return buf.getvalue()


def _union(store: ox.Store) -> list[ox.Triple]:
    triples = store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
                          use_default_graph_as_union=True)
    return list(triples)
