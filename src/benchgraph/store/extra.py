"""Outside graphs loaded beside the dataset (`--with FILE[=GRAPH]`): ontologies, alignments,
extracts of other datasets.

Each file is a named graph of its own (GRAPH, else the file's URI), in queries and dumps. It is
neither validated nor reasoned over: the build's reasoner sees benchgraph's ontology only, so
an outside axiom cannot rewrite the records' meaning unless asked (`--reason-with`, which
applies the outside graphs' class and property hierarchy to the dataset, into a graph of its
own). The build's store is never written: the outside graphs go into a copy of it (a RocksDB
checkpoint: hard links, cheap), made for the one command and removed after.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyoxigraph as ox

from ..errors import CannotRun
from ..namespaces import GRAPH

EXTENSIONS = {
    "owl": ox.RdfFormat.RDF_XML,
    "xml": ox.RdfFormat.RDF_XML,
    "json": ox.RdfFormat.JSON_LD,
    "jsonld": ox.RdfFormat.JSON_LD,
}
# what --reason-with adds: kept apart from the build's own inferred graph
WITH_INFERRED_GRAPH = GRAPH["with-inferred"]

Extra = tuple[Path, str | None]


def graph_of(path: Path, iri: str | None) -> str:
    """The graph a --with file is loaded into: its GRAPH, else the file's own URI."""
    return iri or path.resolve().as_uri()


def load(store: ox.Store, path: Path, graph: str) -> None:
    """Load one file into `graph`; its problems as CannotRun naming the file."""
    if not path.is_file():
        raise CannotRun(f"--with {path}: no such file")
    extension = path.suffix.lstrip(".").lower()
    fmt = ox.RdfFormat.from_extension(extension) or EXTENSIONS.get(extension)
    if fmt is None:
        raise CannotRun(f"--with {path}: unknown RDF format (use .ttl .nt .nq .trig .rdf .jsonld)")
    try:
        graph_node = ox.NamedNode(graph)
    except ValueError as exc:
        raise CannotRun(f"--with {path}={graph}: not an IRI: {exc}") from exc
    try:
        store.bulk_load(path=str(path), format=fmt, to_graph=graph_node)
    except (SyntaxError, ValueError, OSError) as exc:
        raise CannotRun(f"--with {path}: {exc}") from exc


def check(extra: list[Extra]) -> None:
    """Each file parses (what `validate --with` asks of them: their content is not checked)."""
    store = ox.Store()
    for path, iri in extra:
        load(store, path, graph_of(path, iri))


def load_all(store: ox.Store, extra: list[Extra], reason: bool = False) -> None:
    """Load every file, each into its graph; with `reason`, apply their hierarchy."""
    for path, iri in extra:
        load(store, path, graph_of(path, iri))
    if reason and extra:
        apply_hierarchy(store, [graph_of(p, i) for p, i in extra])


# The outside graphs' rdfs:subClassOf / rdfs:subPropertyOf (and owl:equivalentClass /
# owl:equivalentProperty, both ways) applied to every graph: the RDFS entailments an
# alignment is written for (an accelerator is then also a schema:ProductModel), and no more.
# OWL-RL over the whole dataset with outside axioms would merge what an outside ontology's
# owl:sameAs or functional properties say is one.
_AXIOMS = (
    ("?a (rdfs:subClassOf|owl:equivalentClass|^owl:equivalentClass)+ ?b", "?s a ?b", "?s a ?a"),
    (
        "?a (rdfs:subPropertyOf|owl:equivalentProperty|^owl:equivalentProperty)+ ?b",
        "?s ?b ?o",
        "?s ?a ?o",
    ),
)


def apply_hierarchy(store: ox.Store, graphs: list[str]) -> None:
    """Write into WITH_INFERRED_GRAPH what the outside graphs' hierarchy entails."""
    values = " ".join(f"<{g}>" for g in graphs)
    for axiom, head, body in _AXIOMS:
        store.update(
            "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
            "PREFIX owl: <http://www.w3.org/2002/07/owl#>\n"
            f"INSERT {{ GRAPH <{WITH_INFERRED_GRAPH}> {{ {head} }} }} WHERE {{\n"
            f"  {{ SELECT DISTINCT ?a ?b WHERE {{ VALUES ?g {{ {values} }} "
            f"GRAPH ?g {{ {axiom} }} }} }}\n"
            f"  GRAPH ?h {{ {body} }} FILTER(?a != ?b)\n}}"
        )


def copy_with(store_path: Path, copy: Path, extra: list[Extra], reason: bool = False) -> ox.Store:
    """A private copy of the built store at `copy`, writable, with the outside graphs loaded:
    a RocksDB checkpoint (hard links, cheap), so the build's own store is never written.
    What `--with` does for one command (joined) and for a served snapshot
    (serving.prepare) alike."""
    ox.Store.read_only(str(store_path)).backup(str(copy))
    store = ox.Store(str(copy))
    load_all(store, extra, reason)
    return store


@contextmanager
def joined(store_path: Path, extra: list[Extra], reason: bool = False) -> Iterator[ox.Store]:
    """The built store with the outside graphs beside it: the store itself (read-only) when
    there are none, else a private copy holding them, removed when the block ends."""
    if not extra:
        yield ox.Store.read_only(str(store_path))
        return
    folder = Path(tempfile.mkdtemp(prefix="benchgraph-with-", dir=store_path.parent))
    try:
        store = copy_with(store_path, folder / "store", extra, reason)
        store.flush()
        yield store
        del store
    finally:
        shutil.rmtree(folder, ignore_errors=True)
