"""Build benchmark: full build, no-op rebuild and one-record edits at several sizes.

    python benchmarks/build_bench.py [--sizes 1000 10000 100000] [--shipped] [--report FILE]

Machines are noisy, so each figure is also given as a ratio to a peer measured in the same
run: loading the same N-Quads into a fresh in-memory pyoxigraph store. The same N-Quads
loaded into a fresh on-disk store, the kind the build writes, is the floor of the build's
own load. The records come from benchmarks/synth.py: synthetic ones shaped like the seed run,
or with --shipped the shipped data/ with its runs copied to each size.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import generate, replicate  # noqa: E402

from benchgraph.pipeline.steps import build  # noqa: E402
from benchgraph.store.export import dumps  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def cpu_seconds() -> float:
    """CPU time of this process and its ended children (the build's worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


SHIPPED = Path(__file__).resolve().parent.parent / "data"
ACCELERATORS = re.compile(r"^accelerators:\n((?:- .*\n)+)", re.M)


def busiest_accelerator(data: Path) -> tuple[Path, int]:
    """The accelerator record most runs link to, and how many do (an edit of its links
    reaches them all: the costly case)."""
    counts: dict[str, int] = {}
    for run in (data / "benchmarks").rglob("*.yaml"):
        found = ACCELERATORS.search(run.read_text(encoding="utf-8"))
        for line in found.group(1).splitlines() if found else []:
            accelerator = line[2:].strip()
            counts[accelerator] = counts.get(accelerator, 0) + 1
    best = max(sorted(counts), key=lambda a: counts[a])
    return data / "accelerators" / f"{best}.yaml", counts[best]


def toggle_pcie(record: dict) -> None:
    """Add pcie-gen5 to the record's links, or take it out if there."""
    links = record.get("interconnect_ids") or []
    record["interconnect_ids"] = ([i for i in links if i != "pcie-gen5"] if "pcie-gen5" in links
                                  else [*links, "pcie-gen5"])


def toggle_fabric(record: dict) -> None:
    """Make a built-in fabric optional, or any other built in: the part's fabric decides each
    run's bg:fabricStatus basis (rules.py), so every run on it is derived again."""
    record["fabric"] = "optional" if record.get("fabric") == "built-in" else "built-in"


def edit(path: Path, change) -> None:
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(record)
    path.write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True),
                    encoding="utf-8")


def disk_load(nq: bytes, root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one bulk load of nq into a fresh on-disk store."""
    path = root / "disk-peer"
    shutil.rmtree(path, ignore_errors=True)
    cpu = cpu_seconds()
    wall, _ = timed(lambda: ox.Store(str(path)).bulk_load(nq, ox.RdfFormat.N_QUADS,
                                                          lenient=True))
    cpu = cpu_seconds() - cpu
    shutil.rmtree(path, ignore_errors=True)
    return wall, cpu


def measure(size: int, root: Path, shipped: bool) -> dict:
    data = root / f"data-{size}"
    gen, _ = timed(lambda: replicate(SHIPPED, data, size) if shipped else generate(data, size))
    os.environ["BENCHGRAPH_CACHE"] = str(root / f"cache-{size}")
    cpu = cpu_seconds()
    full, result = timed(lambda: build(data))
    cpu = cpu_seconds() - cpu
    # the builds run in this process; sizes ascend, so the peak so far is this size's
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    phases = dict(result.timings)
    noop, _ = timed(lambda: build(data))
    run = sorted((data / "benchmarks").rglob("*.yaml"))[0]
    edit(run, lambda r: r.update(confidence=0.5 if r.get("confidence") != 0.5 else 0.6))
    edit_run, result = timed(lambda: build(data))
    run_phases = dict(result.timings)
    acc, runs_on_it = busiest_accelerator(data)
    # no other record reads a note
    edit(acc, lambda r: r.update(notes=f"{r.get('notes') or ''} Edited.".strip()))
    edit_acc, result = timed(lambda: build(data))
    acc_phases = dict(result.timings)
    edit(acc, toggle_pcie)  # its links: every run on it is derived again
    edit_links, result = timed(lambda: build(data))
    links_phases = dict(result.timings)
    edit(acc, toggle_fabric)  # what decides every run's fabric status on it
    edit_fabric, result = timed(lambda: build(data))
    fabric_phases = dict(result.timings)
    nq = dumps(result.open(), "nq")
    peer, _ = timed(lambda: ox.Store().bulk_load(nq, ox.RdfFormat.N_QUADS))
    disk, disk_cpu = disk_load(nq, root)
    return {"size": size, "records": result.records, "quads": nq.count(b"\n"),
            "generate": gen, "full": full, "cpu": cpu, "rss": rss, "phases": phases, "noop": noop,
            "edit_run": edit_run, "edit_accelerator": edit_acc, "edit_links": edit_links,
            "edit_fabric": edit_fabric,
            "runs_on_it": runs_on_it, "peer": peer, "disk": disk, "disk_cpu": disk_cpu,
            "edit_phases": {"edit one run": run_phases, "edit an accelerator's note": acc_phases,
                            "edit an accelerator's links": links_phases,
                            "edit an accelerator's fabric": fabric_phases}}


def report(rows: list[dict], shipped: bool) -> str:
    lines = [
        "# Build benchmark" + (": the shipped records" if shipped else ""), "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, pyoxigraph {ox.__version__}.", "",
        ("Records: the shipped data/, its runs copied under new ids to each size "
         "(`synth.replicate`; most are imported MLPerf runs)." if shipped else
         "Records: synthetic, shaped like the seed run (`synth.generate`)."), "",
        "Peer: loading the same N-Quads into a fresh in-memory pyoxigraph store, in the same "
        "run. On-disk load: the same N-Quads in one bulk load into a fresh on-disk store, the "
        "kind the build writes: the floor of the build's own load. CPU: user and system time "
        "of the build and its worker processes, or of the load (on a machine shared with other "
        "work, the steadier figure).", "",
        "The edits: one run's confidence; the note, then the links, then the fabric (built in "
        "or optional) of the accelerator most runs link to. A note is read by no other record, "
        "so only the accelerator is checked and derived again; its links and its fabric are "
        "read by every run on it (the last column counts them), which are checked and derived "
        "again.", "",
        "Peak memory: the largest resident size of the build process so far (the workers "
        "are not counted).", "",
        "| runs | records | quads | full build s | x peer | full build CPU s | peak memory MB "
        "| no-op rebuild s "
        "| edit one run s | edit an accelerator's note s | edit an accelerator's links s "
        "| edit an accelerator's fabric s "
        "| peer load s | on-disk load s | on-disk load CPU s | runs on that accelerator |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']:,} | {r['records']:,} | {r['quads']:,} | {r['full']:.1f} | "
            f"{r['full'] / r['peer']:.1f} | {r['cpu']:.1f} | {r['rss']:,.0f} | {r['noop']:.2f} | "
            f"{r['edit_run']:.2f} | {r['edit_accelerator']:.2f} | {r['edit_links']:.2f} | "
            f"{r['edit_fabric']:.2f} | "
            f"{r['peer']:.2f} | {r['disk']:.2f} | {r['disk_cpu']:.1f} | {r['runs_on_it']:,} |")
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
    parser.add_argument("--shipped", action="store_true",
                        help="the shipped records, runs copied to each size (synth.replicate)")
    parser.add_argument("--report", type=Path,
                        help="default: reports/build.md, or reports/build-shipped.md")
    args = parser.parse_args()
    report_path = args.report or Path(__file__).parent / "reports" / (
        "build-shipped.md" if args.shipped else "build.md")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            rows.append(measure(size, Path(tmp), args.shipped))
            print(report(rows, args.shipped), flush=True)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(report(rows, args.shipped))


if __name__ == "__main__":
    main()
