"""What inference costs: build time with and without it, the one-record edit rebuild, a full
owlrl closure as the reference, and the saved queries on the inferred store.

Writes benchmarks/reports/infer.md. Synthetic data comes from benchmarks/synth.py.

    python benchmarks/infer_bench.py                      # 1k, 10k, 100k records
    python benchmarks/infer_bench.py --sizes 1000 10000   # quicker
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing as mp
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import pyoxigraph as ox

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402

from benchgraph.namespaces import INFERRED_GRAPH  # noqa: E402
from benchgraph.pipeline import steps as build_module  # noqa: E402
from benchgraph.pipeline import workers  # noqa: E402
from benchgraph.query.render import run  # noqa: E402
from benchgraph.query.saved import saved_queries  # noqa: E402
from benchgraph.reasoning import ontology  # noqa: E402

STRATEGY = """
## The strategy these figures chose

A full owlrl closure of the data is the reference, not the build: it is far slower than the
whole build at 1k runs and at least linear, so it would take hours at 100k. The build instead:

1. closes the ontology alone with owlrl, once per build process (about 1.5 s), and puts the
   useful part of that closure (no reflexive owl:sameAs, no owl:Thing or rdfs:Resource typing,
   no datatype axioms: `infer.useful`) into the inferred graph;
2. applies the closed hierarchy (super-classes, super-properties, domains, ranges) to each
   record's own nodes in the worker processes, together with the facts one run supports alone
   (bg:crossesDevices, the comparisons of its measurements); the result is cached per record
   file, so an edit re-infers one record;
3. runs the rules that join records over the query store (rules.py): the ontology's
   property chains for bg:interconnect and bg:fabricStatus, joined in Python from edge lists
   the store returns, and bg:outperformsBaseline as SPARQL; for the edited runs only, or for
   every run when another kind of record changed.

tests/reasoning/test_reasoning_inference.py checks on the fixture folder that this yields
exactly what a full owlrl closure yields (filtered the same way), and that owlrl adds nothing
useful to the built store.
"""

OWLRL_LIMIT = 600.0  # seconds: a strategy over 10 minutes is reported, not run larger
QUERY_SIZE = 10_000


def generate(out: Path, n: int) -> None:
    """synth.generate, with its dates written as YAML dates (the shapes reject the quoted
    strings it writes as of this benchmark)."""
    dump = synth._dump

    def dated(path: Path, record: dict) -> None:
        dump(path, _dates(record))

    synth._dump = dated
    try:
        synth.generate(out, n)
    finally:
        synth._dump = dump


def _dates(value):
    if isinstance(value, dict):
        return {
            k: (
                dt.date.fromisoformat(v)
                if k in ("updated", "date") and isinstance(v, str)
                else _dates(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_dates(v) for v in value]
    return value


class _NoReasoner:
    """Stands in for the Reasoner in the no-inference build."""

    closure: ClassVar[list] = []

    def __init__(self, ontology):
        self.ontology = ontology  # still loaded as data, only not reasoned with

    def local(self, triples, own):
        return []


def _without_inference() -> None:
    none = _NoReasoner(ontology.ontology_graph())
    build_module.reasoner = workers.reasoner = lambda saved=None: none
    build_module.ontology_closure = lambda: ""
    build_module.derive = lambda store, runs=None, judged=None: None


def _build(data: Path, cache: Path) -> tuple[float, object]:
    os.environ["BENCHGRAPH_CACHE"] = str(cache)
    start = time.perf_counter()
    result = build_module.build(data)
    return time.perf_counter() - start, result


def _count(store: ox.Store) -> tuple[int, int]:
    """(all quads, quads of the inferred graph)."""
    inferred = ox.NamedNode(str(INFERRED_GRAPH))
    rows = store.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
    total = int(next(iter(rows))["n"].value)
    rows = store.query(
        f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{inferred.value}> {{ ?s ?p ?o }} }}"
    )
    return total, int(next(iter(rows))["n"].value)


def _fresh_build(data: Path, cache: Path) -> float:
    """A rebuild as `benchgraph build` runs it: a new process (imports included)."""
    code = "import sys; from benchgraph.pipeline.steps import build; build(sys.argv[1])"
    env = {**os.environ, "BENCHGRAPH_CACHE": str(cache)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(data)], env=env, check=True)
    return time.perf_counter() - start


def _edit(path: Path, pattern: str, replacement: str) -> str:
    old = path.read_text(encoding="utf-8")
    new, n = re.subn(pattern, replacement, old, count=1, flags=re.MULTILINE)
    if not n:
        raise SystemExit(f"{path}: nothing to edit ({pattern})")
    path.write_text(new, encoding="utf-8")
    return old


def _mode(
    data: Path, cache: Path, inference: bool, edits: bool, with_queries: bool = False
) -> dict:
    """One build of data in its own process (so the no-inference patch stays there)."""
    queue: mp.Queue = mp.Queue()
    proc = mp.Process(target=_mode_child, args=(data, cache, inference, edits, with_queries, queue))
    proc.start()
    return _result(proc, queue)


def _result(proc: mp.Process, queue: mp.Queue, timeout: float | None = None):
    """What the child put on the queue; None when it died or ran out of time."""
    import queue as queues

    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            out = queue.get(timeout=5)
            proc.join()
            return out
        except queues.Empty:
            if not proc.is_alive() or (deadline and time.monotonic() > deadline):
                proc.terminate()
                proc.join()
                return None


def _mode_child(
    data: Path, cache: Path, inference: bool, edits: bool, with_queries: bool, queue
) -> None:
    if not inference:
        _without_inference()
    shutil.rmtree(cache, ignore_errors=True)
    seconds, result = _build(data, cache)
    out = {"build": seconds, "timings": dict(getattr(result, "timings", {}) or {})}
    store = result.open()
    out["quads"], out["inferred"] = _count(store)
    del store
    if edits:
        out["no_change"] = _fresh_build(data, cache)
        run_file = min((data / "benchmarks").rglob("*.yaml"))
        old = _edit(run_file, r"^value: .*$", "value: 123.45")
        out["edit_run"] = _fresh_build(data, cache)
        run_file.write_text(old, encoding="utf-8")
        _fresh_build(data, cache)
        acc_file = min((data / "accelerators").glob("*.yaml"))
        old = _edit(acc_file, r"^memory_gb: .*$", "memory_gb: 1234")
        out["edit_accelerator"] = _fresh_build(data, cache)
        acc_file.write_text(old, encoding="utf-8")
        _fresh_build(data, cache)
    if inference and edits and with_queries:
        _, result = _build(data, cache)
        out["queries"] = _time_queries(result.open())
    queue.put(out)


def _time_queries(store: ox.Store) -> dict[str, tuple[float, int]]:
    """Each saved query: the best of three runs, and its number of rows."""
    out = {}
    for name, saved in saved_queries().items():
        times, rows = [], 0
        for _ in range(3):
            start = time.perf_counter()
            rows = len(list(run(store, saved.text)))
            times.append(time.perf_counter() - start)
        out[name] = (min(times), rows)
    return out


def _owlrl_child(data: Path, cache: Path, queue) -> None:
    """A full owlrl closure of everything a no-inference build states, ontology included."""
    from rdflib import Graph

    from benchgraph.reasoning.infer import owlrl_closure

    _without_inference()
    _, result = _build(data, cache)
    store = result.open()
    g = Graph()
    for quad in store:
        g.add(tuple(_rdflib(t) for t in (quad.subject, quad.predicate, quad.object)))
    start = time.perf_counter()
    added = owlrl_closure(g)
    queue.put((time.perf_counter() - start, len(g), len(added)))


def _rdflib(term):
    from rdflib import BNode, Literal, URIRef

    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    datatype = URIRef(term.datatype.value) if term.language is None else None
    return Literal(term.value, lang=term.language, datatype=datatype)


def _owlrl(data: Path, cache: Path) -> tuple[float, int, int] | None:
    """(seconds, input triples, useful triples added), or None past OWLRL_LIMIT."""
    queue: mp.Queue = mp.Queue()
    proc = mp.Process(target=_owlrl_child, args=(data, cache, queue))
    proc.start()
    return _result(proc, queue, OWLRL_LIMIT + 120)  # + the no-inference build before it


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE / "out",
        help="where synthetic data and caches go (git-ignored)",
    )
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "infer.md")
    args = parser.parse_args()
    rows, owl, queries = [], [], {}
    owlrl_skip = None
    for n in args.sizes:
        data = args.out / f"synth-{n}"
        if not data.is_dir():
            generate(data, n)
        records = sum(1 for _ in data.rglob("*.yaml"))
        none = _mode(data, args.out / f"cache-none-{n}", False, False)
        if none is None:
            raise SystemExit(f"{n}: the build without inference failed")
        infer = _mode(data, args.out / f"cache-infer-{n}", True, True, n == QUERY_SIZE)
        if infer is None:
            raise SystemExit(f"{n}: the build with inference failed")
        rows.append((n, records, none, infer))
        queries.update(infer.get("queries", {}))
        print(
            f"{n}: {none['build']:.1f} s without, {infer['build']:.1f} s with inference; "
            f"edit {infer['edit_run']:.2f} s / {infer['edit_accelerator']:.2f} s",
            flush=True,
        )
        if owlrl_skip is None:
            found = _owlrl(data, args.out / f"cache-owl-{n}")
            if found is None or found[0] > OWLRL_LIMIT:
                owlrl_skip = n
                owl.append((n, None))
            else:
                owl.append((n, found))
                print(f"{n}: full owlrl closure {found[0]:.1f} s", flush=True)
                if found[0] * 10 > OWLRL_LIMIT:  # at least linear: the next size is over
                    owlrl_skip = -n
    args.report.write_text(_report(rows, owl, owlrl_skip, queries), encoding="utf-8")
    print(f"wrote {args.report}")


def _report(rows, owl, owlrl_skip, queries) -> str:
    lines = [
        "# Inference: what it costs",
        "",
        (
            "Measured by `python benchmarks/infer_bench.py` on synthetic records "
            "(benchmarks/synth.py), on "
            f"{platform.machine()} with {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}. "
            "Each build starts from an empty cache. *Without* inference replaces the reasoner "
            "by one that adds nothing and skips the cross-record rules; *with* is the shipped "
            "build. The edit rows rebuild after changing one record of a built folder: a run "
            "(re-derives that run only) and an accelerator's memory (re-derives the runs on it)."
        ),
        "",
        (
            "| runs | records | build without (s) | build with (s) | ratio | quads with "
            "| of which inferred | no change (s) | edit one run (s) | edit one accelerator (s) |"
        ),
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, records, none, infer in rows:
        lines.append(
            f"| {n:,} | {records:,} | {none['build']:.1f} | {infer['build']:.1f} | "
            f"{infer['build'] / none['build']:.2f} | {infer['quads']:,} | {infer['inferred']:,} "
            f"| {infer['no_change']:.2f} | {infer['edit_run']:.2f} "
            f"| {infer['edit_accelerator']:.2f} |"
        )
    lines += ["", "Build phases (s), without / with inference:", ""]
    phases = sorted({k for _, _, a, b in rows for k in (*a["timings"], *b["timings"])})
    if phases:
        lines.append("| runs | " + " | ".join(phases) + " |")
        lines.append("| ---: |" + " ---: |" * len(phases))
        for n, _, none, infer in rows:
            cells = [
                f"{none['timings'].get(k, 0):.1f} / {infer['timings'].get(k, 0):.1f}"
                for k in phases
            ]
            lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## The reference: a full owlrl closure of the data",
        "",
        (
            "owlrl's OWLRL_Semantics over everything the no-inference build states "
            "(ontology included), counting only the useful triples it adds "
            "(`infer.useful`)."
        ),
        "",
        "| runs | seconds | input triples | useful triples added |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for n, found in owl:
        if found is None:
            lines.append(f"| {n:,} | over {OWLRL_LIMIT:.0f} (stopped) | | |")
        else:
            lines.append(f"| {n:,} | {found[0]:.1f} | {found[1]:,} | {found[2]:,} |")
    if owlrl_skip:
        lines.append("")
        lines.append("Not run at larger sizes: at least linear, so over 10 minutes there.")
    lines += ["", STRATEGY.strip()]
    if queries:
        lines += [
            "",
            f"## Saved queries on the inferred store, {QUERY_SIZE:,} runs",
            "",
            "Best of three runs through `benchgraph.query.render.run` (pyoxigraph).",
            "",
            "| query | seconds | rows |",
            "| --- | ---: | ---: |",
        ]
        for name, (seconds, count) in sorted(queries.items()):
            lines.append(f"| {name} | {seconds:.3f} | {count:,} |")
        lines.append(f"\nMedian {statistics.median(s for s, _ in queries.values()):.3f} s.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
