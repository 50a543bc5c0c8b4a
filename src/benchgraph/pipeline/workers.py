"""Record files converted, checked and inferred into cache entries: one file by `process`,
many in batches by worker processes (forked, ended with the build)."""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from pathlib import Path

from rdflib import URIRef
from rdflib.namespace import SKOS

from ..locks import worker_started
from ..namespaces import INFERRED_GRAPH, LINK_GRAPH, SCHEMA, graph_iri, record_iri
from ..rdf.convert import outward, provenance_triples, record_triples
from ..rdf.nquads import nquads
from ..reasoning.ontology import reasoner
from ..reasoning.rules import rule_facts, ruleset
from ..records.reader import load_record
from ..store.cache import Entry
from ..store.load import store_problem
from ..validation.facts import triple_facts
from ..validation.incremental import alike_key, facts_text
from ..validation.record import check_record, local_shapes

PARALLEL_FROM = 400  # below this many changed files, worker start-up costs more than it saves
BATCH = 2000  # records the workers hand on at once (load.Loader.add reads batch by batch)
CHUNK = 64  # records a worker converts per task
AHEAD = 2 * BATCH // CHUNK  # tasks in flight
FEWER_COLLECTIONS = (50_000, 20, 20)  # gc thresholds while converting (700, 10, 10)
# A record's links to outside entities (its `same_as`) go to the link graph, one graph for
# every record's links, so that it can be described and taken whole as a void:Linkset; the
# mapping's own facts (justification, confidence, curator, date: a bg:Mapping node) stay in
# the record's graph with the rest of what its file states, and the SSSOM export (links/sssom.py)
# joins the two. Like the inferred graph, the record's share of it is loaded and removed
# with the record (load.Loader), so an edit replaces exactly its own links.
LINK_PREDICATES = frozenset((SKOS.exactMatch, SKOS.closeMatch, SKOS.broadMatch, SCHEMA.sameAs))


def process(path: str, data_dir: str, shown: str, commit: str | None, digest: str) -> Entry:
    """One record file -> its cache entry (runs in worker processes)."""
    record, problems = load_record(Path(path), Path(data_dir), shown)
    if record is None:
        return Entry(shown, digest, None, None, "", "", problems, [], {}).pack()
    triples = record_triples(record)
    problems += check_record(record, triples, problems)
    triples += provenance_triples(record, shown, commit)
    own = str(record_iri(record.kind, record.id))
    inferred = reasoner().local(triples, own)
    links, kept = split_links(triples, own)
    stated = nquads(kept, graph_iri(record.kind, record.id))
    # the quads a record adds to graphs it shares with others: removed one by one (load.py)
    inferred_nq = nquads(inferred, INFERRED_GRAPH) + nquads(links, LINK_GRAPH)
    refused = store_problem(record, stated + inferred_nq)  # its problem, not the load's
    if refused is not None:
        problems.append(refused)
    refs = list(record.references())
    facts = facts_text(triple_facts(record.kind, kept, own))
    entry = Entry(
        shown,
        digest,
        record.kind,
        record.id,
        stated,
        inferred_nq,
        problems,
        refs,
        # as the cache keeps it: made here, not in the build's thread, and a text
        # is sent for less than a mapping
        json.dumps(record.lines),
        facts=facts,
        alike=alike_key(refs, facts) if record.kind == "benchmarks" else "",
        # nothing links to a run: what others read of it is never asked
        outward=outward(stated, own) if record.kind != "benchmarks" else "",
        rules=rule_facts(kept, inferred, own),
    )
    return entry.pack(loading=True)


def split_links(triples: list, own: str) -> tuple[list, list]:
    """(the record's links to outside entities, the rest of its triples)."""
    subject = URIRef(own)
    links, kept = [], []
    for t in triples:
        (links if t[0] == subject and t[1] in LINK_PREDICATES else kept).append(t)
    return links, kept


def converted(args: list[tuple], jobs: int | None) -> Iterator[list[Entry]]:
    """The record files converted, in batches of BATCH, in worker processes when many.

    Meanwhile Python's cycle collector runs less often (the workers forked here inherit
    that): each of its full passes reads every live object, and a run of 100k measurements
    holds millions (triples, which make no cycles); they took a quarter of its conversion."""
    before = gc.get_threshold()
    gc.set_threshold(*FEWER_COLLECTIONS)
    try:
        yield from convert(args, jobs)
    finally:
        gc.set_threshold(*before)


def convert(args: list[tuple], jobs: int | None) -> Iterator[list[Entry]]:
    if len(args) >= PARALLEL_FROM and (jobs or os.cpu_count() or 1) > 1:
        warm()  # made once here; the forked workers inherit them
        chunks = (args[i : i + CHUNK] for i in range(0, len(args), CHUNK))
        # Forked (the workers inherit what was made above) from this thread, which keeps
        # the pool: the workers end with it (locks.worker_started), and not holding the
        # build's lock, which workers left behind by `kill -9` of a build held for ever.
        with ProcessPoolExecutor(
            max_workers=jobs or os.cpu_count(),
            mp_context=multiprocessing.get_context("fork"),
            initializer=worker_started,
            initargs=(os.getpid(),),
        ) as pool:
            # Two batches in flight at most: Executor.map takes every file at once, and at
            # 100k records the results waiting for the store's load held 2.7 GB.
            flight = deque(pool.submit(process_chunk, c) for c in islice(chunks, AHEAD))
            batch: list[Entry] = []
            while flight:
                batch += flight.popleft().result()
                flight.extend(pool.submit(process_chunk, c) for c in islice(chunks, 1))
                if len(batch) >= BATCH or not flight:
                    yield batch
                    batch = []
    else:
        for i in range(0, len(args), BATCH):
            yield [process(*a) for a in args[i : i + BATCH]]


def warm() -> None:
    """Make what converting a record needs (the reasoner, the compiled shapes, the rules),
    each once a process: 0.1-0.2 s, which a long-lived builder spends while it waits rather
    than in its first edit's build (session.py)."""
    reasoner(), local_shapes(), ruleset()


def process_chunk(args: list[tuple]) -> list[Entry]:
    return [process(*a) for a in args]
