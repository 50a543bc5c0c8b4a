"""One build sequence on a data folder, with whichever benchgraph this interpreter imports:
a cold build, a no-op rebuild, then the edits of build_bench.py, each timed; JSON on stdout.

    python benchmarks/build_once.py DATA CACHE [--no-edits]

It reads only `benchgraph.build.build`, its result's `timings`, `records` and store, and
`benchgraph.errors.RecordsInvalid`, which every version since the previous release has, so
that `build_bench.py --baseline REV` runs it with another commit's code (benchmarks/
baseline.py). DATA is edited in place: give each run a copy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time
from pathlib import Path

import yaml

ACCELERATORS = re.compile(r"^accelerators:\n((?:- .*\n)+)", re.M)


def cpu_seconds() -> float:
    """CPU time of this process and its ended children (the build's worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def busiest_accelerator(data: Path) -> tuple[Path, int] | None:
    """The accelerator record most runs link to, and how many do (an edit of its links
    reaches them all: the costly case); None when no run names one in a plain list."""
    counts: dict[str, int] = {}
    for run in (data / "benchmarks").rglob("*.yaml"):
        found = ACCELERATORS.search(run.read_text(encoding="utf-8"))
        for line in found.group(1).splitlines() if found else []:
            accelerator = line[2:].strip()
            counts[accelerator] = counts.get(accelerator, 0) + 1
    counts = {a: n for a, n in counts.items() if (data / "accelerators" / f"{a}.yaml").is_file()}
    if not counts:
        return None
    best = max(sorted(counts), key=lambda a: counts[a])
    return data / "accelerators" / f"{best}.yaml", counts[best]


def toggle_confidence(record: dict) -> None:
    record["confidence"] = 0.5 if record.get("confidence") != 0.5 else 0.6


def add_note(record: dict) -> None:
    """No other record reads a note: only the accelerator is checked and derived again."""
    record["notes"] = f"{record.get('notes') or ''} Edited.".strip()


def toggle_pcie(record: dict) -> None:
    """Add pcie-gen5 to the record's links, or take it out if there."""
    links = record.get("interconnect_ids") or []
    record["interconnect_ids"] = (
        [i for i in links if i != "pcie-gen5"] if "pcie-gen5" in links else [*links, "pcie-gen5"]
    )


def toggle_fabric(record: dict) -> None:
    """Make a built-in fabric optional, or any other built in: the part's fabric decides each
    run's bg:fabricStatus basis (rules.py), so every run on it is derived again."""
    record["fabric"] = "optional" if record.get("fabric") == "built-in" else "built-in"


def edit(path: Path, change) -> None:
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(record)
    path.write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True), encoding="utf-8")


def build_function():
    """benchgraph's build(), wherever this version keeps it."""
    try:
        from benchgraph.pipeline import build
    except ImportError:
        from benchgraph.build import build
    return build


PHASE_CPU: dict[str, list[float]] = {}  # phase -> [this thread's CPU s, the process's CPU s]


def count_phase_cpu() -> None:
    """Have the build's phase timer also note the CPU of each phase: the build's own thread
    (the check and derive phases run there alone) and the whole process (with the store's
    threads), as the workers' CPU shows in the process's children."""
    import benchgraph.timing as timing

    class Timer(timing.Timer):
        def __init__(self) -> None:
            super().__init__()
            self._cpu = (time.thread_time(), time.process_time())

        def lap(self, name: str) -> None:
            super().lap(name)
            now = (time.thread_time(), time.process_time())
            got = PHASE_CPU.setdefault(name, [0.0, 0.0])
            got[0] += now[0] - self._cpu[0]
            got[1] += now[1] - self._cpu[1]
            self._cpu = now

    build_function()
    original = timing.Timer
    for name, module in list(sys.modules.items()):
        if name.startswith("benchgraph") and getattr(module, "Timer", None) is original:
            module.Timer = Timer


def timed_build(data: Path) -> dict:
    """One build: wall and CPU seconds, its phases (wall, and with count_phase_cpu their
    CPU); `refused` with the first problems when the records are refused (an older version
    may not know a field an edit wrote)."""
    from benchgraph.errors import RecordsInvalid

    build = build_function()
    PHASE_CPU.clear()
    cpu, start = cpu_seconds(), time.perf_counter()
    try:
        result = build(data)
    except RecordsInvalid as exc:
        return {
            "seconds": time.perf_counter() - start,
            "cpu": cpu_seconds() - cpu,
            "refused": str(exc).splitlines()[:3],
        }
    return {
        "seconds": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
        "phases": dict(result.timings),
        "records": result.records,
        "result": result,
        "phase_cpu": {k: [round(x, 3) for x in v] for k, v in PHASE_CPU.items()},
    }


def sequence(data: Path, edits: bool = True) -> dict:
    """The cold build of `data` (into $BENCHGRAPH_CACHE) and, with `edits`, a no-op rebuild
    and the edits, in this order: one run's confidence; the note, then the links, then the
    fabric of the accelerator most runs link to."""
    out = {"full": timed_build(data)}
    full = out["full"]
    # the builds run in this process and its workers; the workers' peak is their largest
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["workers_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if "refused" in full:
        return out
    if not edits:
        return out
    out["noop"] = timed_build(data)
    runs = sorted((data / "benchmarks").rglob("*.yaml"))
    edit(runs[0], toggle_confidence)
    out["edit_run"] = timed_build(data)
    busiest = busiest_accelerator(data)
    if busiest is not None:
        acc, out["runs_on_it"] = busiest
        for name, change in (
            ("edit_accelerator", add_note),
            ("edit_links", toggle_pcie),
            ("edit_fabric", toggle_fabric),
        ):
            edit(acc, change)
            out[name] = timed_build(data)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("cache", type=Path, help="the build folder ($BENCHGRAPH_CACHE)")
    parser.add_argument("--no-edits", action="store_true", help="the cold build only")
    args = parser.parse_args()
    os.environ["BENCHGRAPH_CACHE"] = str(args.cache)
    count_phase_cpu()
    out = sequence(args.data, edits=not args.no_edits)
    result = out["full"].pop("result", None)
    if result is not None:
        store = result.open()
        out["quads"] = len(store)
        del store
    for step in out.values():
        if isinstance(step, dict):
            step.pop("result", None)
    import benchgraph

    out["benchgraph"] = benchgraph.__file__
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
