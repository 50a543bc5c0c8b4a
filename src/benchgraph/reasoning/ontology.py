"""benchgraph's ontology, parsed, and the reasoner made of it: its owlrl closure (about
1.4 s) is made once per process and kept across processes in a pickle in the build folder."""

from __future__ import annotations

import pickle
from functools import lru_cache
from pathlib import Path

from rdflib import Graph
from rdflib.compare import to_canonical_graph

from ..errors import CannotRun
from ..namespaces import INFERRED_GRAPH, ONTOLOGY_IRI
from ..rdf.nquads import nquads
from ..resources import resource
from .infer import Reasoner


@lru_cache(maxsize=1)
def ontology_graph() -> Graph:
    """benchgraph's own ontology (and unit declarations), parsed."""
    g = Graph()
    for path in sorted(resource("ontology").glob("*.ttl")):
        try:
            g.parse(path, format="turtle")
        except Exception as exc:  # any parse failure means the install itself is broken
            raise CannotRun(f"{path}: the ontology does not parse: {exc}") from exc
    # The store renames blank nodes at random on loading; skolem IRIs from the canonical
    # labelling keep the property-chain lists stable, so dumps stay byte-identical.
    return to_canonical_graph(g).skolemize(
        authority="https://w3id.org", basepath="/benchgraph/genid/"
    )


_REASONER: list[Reasoner] = []


def reasoner(saved: Path | None = None) -> Reasoner:
    """The ontology closed by owlrl (about 1.4 s), made once per process, and kept in
    `saved` (a pickle in the build folder, keyed by the code version) across processes."""
    if not _REASONER:
        try:
            with open(saved, "rb") as f:  # type: ignore[arg-type]
                _REASONER.append(pickle.load(f))
        except (OSError, TypeError, pickle.UnpicklingError, EOFError, AttributeError):
            _REASONER.append(Reasoner(ontology_graph()))
            if saved is not None:
                tmp = saved.with_suffix(".tmp")
                tmp.write_bytes(pickle.dumps(_REASONER[0]))
                tmp.replace(saved)
    return _REASONER[0]


@lru_cache(maxsize=1)
def ontology_closure() -> str:
    """The useful part of the ontology's owlrl closure, as N-Quads of the inferred graph."""
    return nquads(reasoner().closure, INFERRED_GRAPH)


@lru_cache(maxsize=1)
def ontology_nquads() -> str:
    """The ontology's own N-Quads, in its graph: made once per process (15 ms, which each
    edit of a long-lived builder spent again)."""
    return nquads(reasoner().ontology, ONTOLOGY_IRI)
