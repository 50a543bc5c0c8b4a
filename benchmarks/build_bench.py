"""Build benchmark: full build, no-op rebuild and one-record edits at several sizes.

    python benchmarks/build_bench.py [--sizes 1000 10000 100000] [--report FILE]

Machines are noisy, so each figure is also given as a ratio to a peer measured in the same
run: loading the same N-Quads into a fresh in-memory pyoxigraph store (the floor any build
that ends in that store cannot beat). Synthetic data comes from benchmarks/synth.py.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import generate  # noqa: E402

from benchgraph.build import build  # noqa: E402
from benchgraph.export import dumps  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def cpu_seconds() -> float:
    """CPU time of this process and its ended children (the build's worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(size: int, root: Path) -> dict:
    data = root / f"data-{size}"
    gen, _ = timed(lambda: generate(data, size))
    os.environ["BENCHGRAPH_CACHE"] = str(root / f"cache-{size}")
    cpu = cpu_seconds()
    full, result = timed(lambda: build(data))
    cpu = cpu_seconds() - cpu
    # the builds run in this process; sizes ascend, so the peak so far is this size's
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    phases = dict(result.timings)
    noop, _ = timed(lambda: build(data))
    run = next((data / "benchmarks").rglob("*.yaml"))
    run.write_text(run.read_text().replace("category: synthetic", "category: edited"))
    edit_run, result = timed(lambda: build(data))
    run_phases = dict(result.timings)
    acc = sorted((data / "accelerators").glob("*.yaml"))[0]
    acc.write_text(acc.read_text() + "notes: edited\n")  # no other record reads a note
    edit_acc, result = timed(lambda: build(data))
    acc_phases = dict(result.timings)
    record = yaml.safe_load(acc.read_text())  # its links: every run on it is derived again
    links = record.get("interconnect_ids") or []
    record["interconnect_ids"] = links[:-1] if "pcie-gen5" in links else [*links, "pcie-gen5"]
    acc.write_text(yaml.safe_dump(record, sort_keys=False))
    edit_links, result = timed(lambda: build(data))
    links_phases = dict(result.timings)
    runs_on_it = sum(1 for p in (data / "benchmarks").rglob("*.yaml")
                     if f"- {record['id']}\n" in p.read_text())
    nq = dumps(result.open(), "nq")
    peer, _ = timed(lambda: ox.Store().bulk_load(nq, ox.RdfFormat.N_QUADS))
    return {"size": size, "records": result.records, "quads": nq.count(b"\n"),
            "generate": gen, "full": full, "cpu": cpu, "rss": rss, "phases": phases, "noop": noop,
            "edit_run": edit_run, "edit_accelerator": edit_acc, "edit_links": edit_links,
            "runs_on_it": runs_on_it, "peer": peer,
            "edit_phases": {"edit one run": run_phases, "edit an accelerator's note": acc_phases,
                            "edit an accelerator's links": links_phases}}


def report(rows: list[dict]) -> str:
    lines = [
        "# Build benchmark", "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, pyoxigraph {ox.__version__}.", "",
        "Peer: loading the same N-Quads into a fresh in-memory pyoxigraph store, in the same "
        "run (the floor for any build that ends in that store). CPU: user and system time of "
        "the build and its worker processes (on a machine shared with other work, the steadier "
        "figure).", "",
        "An accelerator's note is read by no other record, so only the accelerator is checked "
        "and derived again; its links are read by every run on it (the last column counts "
        "them), which are checked and derived again.", "",
        "Peak memory: the largest resident size of the build process so far (the workers "
        "are not counted).", "",
        "| runs | records | quads | full build s | x peer | full build CPU s | peak memory MB "
        "| no-op rebuild s "
        "| edit one run s | edit an accelerator's note s | edit an accelerator's links s "
        "| peer load s | runs on that accelerator |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']:,} | {r['records']:,} | {r['quads']:,} | {r['full']:.1f} | "
            f"{r['full'] / r['peer']:.1f} | {r['cpu']:.0f} | {r['rss']:,.0f} | {r['noop']:.2f} | "
            f"{r['edit_run']:.2f} | {r['edit_accelerator']:.2f} | {r['edit_links']:.2f} | "
            f"{r['peer']:.2f} | {r['runs_on_it']:,} |")
    lines += ["", "Phases of the full build (s). `convert` holds the store's bulk loads too: they "
              "read the workers' batches as they come (load.py); `load` is what is left at "
              "the end.", "",
              "| runs | " + " | ".join(rows[0]["phases"]) + " |",
              "|---:|" + "---:|" * len(rows[0]["phases"])]
    for r in rows:
        lines.append(f"| {r['size']:,} | " + " | ".join(f"{v:.1f}" for v in r["phases"].values())
                     + " |")
    lines += ["", "Phases of the edits (s):", "",
              "| runs | edit | " + " | ".join(rows[0]["phases"]) + " |",
              "|---:|---|" + "---:|" * len(rows[0]["phases"])]
    for r in rows:
        for name, phases in r["edit_phases"].items():
            lines.append(f"| {r['size']:,} | {name} | "
                         + " | ".join(f"{phases.get(k, 0):.2f}" for k in rows[0]["phases"]) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--report", type=Path,
                        default=Path(__file__).parent / "reports" / "build.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            rows.append(measure(size, Path(tmp)))
            print(report(rows), flush=True)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(report(rows))


if __name__ == "__main__":
    main()
