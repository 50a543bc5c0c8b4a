"""Where a record's conversion goes: the steps of pipeline.workers.process, each timed in CPU
on the same runs in one process (the build's workers do the same, two at a time).

    python benchmarks/worker_steps.py [--runs 3000] [--data data]

The runs are the shipped data/'s first --runs run files (sorted by path); a plain libyaml
load of each file is timed beside them, for reference (the record reader composes nodes with
libyaml instead, to keep each field's line). Prints a Markdown table, ms a record.

It makes process()'s calls itself, in process()'s order, to time each: a step added to
process() must be added here too, or the table leaves it out.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import lz4.frame
import yaml

from benchgraph.namespaces import INFERRED_GRAPH, graph_iri, record_iri
from benchgraph.pipeline.workers import split_links
from benchgraph.rdf.convert import provenance_triples, record_triples
from benchgraph.rdf.nquads import nquads
from benchgraph.reasoning.ontology import reasoner
from benchgraph.reasoning.rules import rule_facts, ruleset
from benchgraph.records.reader import load_record
from benchgraph.store.load import store_problem
from benchgraph.validation.facts import triple_facts
from benchgraph.validation.incremental import alike_key, facts_text
from benchgraph.validation.record import check_record, local_shapes

HERE = Path(__file__).resolve().parent
REFERENCE = "(for reference: yaml.load with libyaml, not a step)"


def measure(data: Path, runs: int) -> tuple[dict[str, float], int]:
    files = sorted((data / "benchmarks").rglob("*.yaml"))[:runs]
    reasoner(), local_shapes(), ruleset()  # made once, before the workers fork
    spent: dict[str, float] = {}

    def lap(name: str, since: float) -> float:
        now = time.process_time()
        spent[name] = spent.get(name, 0.0) + now - since
        return now

    for path in files:
        t = time.process_time()
        raw = path.read_bytes()
        t = lap("reading the file", t)
        yaml.load(raw, Loader=yaml.CSafeLoader)
        t = lap(REFERENCE, t)
        record, problems = load_record(path, data, str(path))
        t = lap("YAML and the record's checks (load_record)", t)
        triples = record_triples(record)
        t = lap("rdflib terms (record_triples)", t)
        problems += check_record(record, triples, problems)
        t = lap("the record's shapes (check_record)", t)
        triples += provenance_triples(record, str(path), None)
        own = str(record_iri(record.kind, record.id))
        inferred = reasoner().local(triples, own)
        t = lap("provenance and local inference", t)
        links, kept = split_links(triples, own)
        stated = nquads(kept, graph_iri(record.kind, record.id))
        inferred_nq = nquads(inferred, INFERRED_GRAPH)
        store_problem(record, stated + inferred_nq)
        t = lap("N-Quads text", t)
        refs = list(record.references())
        alike_key(refs, facts_text(triple_facts(record.kind, kept, own)))
        json.dumps(record.lines)
        rule_facts(kept, inferred, own)
        t = lap("facts for the checks and rules, line map", t)
        lz4.frame.compress(stated.encode())
        lz4.frame.compress(inferred_nq.encode())
        lap("compressing for the cache", t)
    return spent, len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--data", type=Path, default=HERE.parent / "data")
    args = parser.parse_args()
    spent, n = measure(args.data, args.runs)
    total = sum(v for k, v in spent.items() if k != REFERENCE)
    print(f"| step ({n:,} runs) | ms a record | share |")
    print("|---|---:|---:|")
    for name, seconds in spent.items():
        share = "" if name == REFERENCE else f"{seconds / total:.0%}"
        print(f"| {name} | {seconds / n * 1e3:.3f} | {share} |")
    print(f"| total | {total / n * 1e3:.3f} | 100% |")


if __name__ == "__main__":
    main()
