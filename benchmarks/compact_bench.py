"""Compaction benchmark: what compacting the store at the end of a large build costs the
build, and what it saves the edits after it.

    python benchmarks/compact_bench.py [--runs 100000] [--repeat 2] [--edits 2] [--report FILE]

The shipped data/ with its runs copied to --runs (synth.replicate) is built cold, then its
busiest accelerator's fabric is edited --edits times, each edit built again; every build is
a process of its own, as `benchgraph build` is. Two variants alternate (--repeat times each):
*compacted*, today's build (it compacts once it has bulk loaded store.load.COMPACT_FROM
bytes), and *peer*, the same code with the compaction turned off. For each build: its phases,
and the warnings RocksDB wrote to the store's LOG while it ran ("Stalling writes because we
have N level-0 files": the merge a flush then waits for). CPU: the build process and its
workers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# one build in a process of its own: the compaction off for the peer; JSON on stdout
BUILD = """
import json, os, sys, time
sys.path.insert(0, {here!r})
import build_once
import benchgraph.pipeline.steps as steps
if {peer!r}:
    steps.COMPACT_FROM = 1 << 62
data = build_once.Path({data!r})
if {edit!r}:
    build_once.edit(build_once.busiest_accelerator(data)[0], build_once.toggle_fabric)
got = build_once.timed_build(data)
got.pop("result", None)
print(json.dumps(got))
"""


def build(data: Path, cache: Path, peer: bool, edit: bool) -> dict:
    code = BUILD.format(here=str(HERE), peer=peer, data=str(data), edit=edit)
    env = {**os.environ, "BENCHGRAPH_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    log = next(cache.glob("*/*/store/LOG"), None)  # the LOG of this build's opening
    got["stalls"] = log.read_text(errors="replace").count("Stalling writes") if log else 0
    return got


def sequence(source: Path, tmp: Path, peer: bool, edits: int) -> dict:
    data, cache = tmp / "data", tmp / "cache"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(source, data)
    out = {"cold": build(data, cache, peer, edit=False), "edits": []}
    for _ in range(edits):
        out["edits"].append(build(data, cache, peer, edit=True))
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def report(runs: int, rows: dict[str, list[dict]], command: str, loads: list[float]) -> str:
    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" if values else "-"

    def most(values: list[float]) -> str:
        return f"{max(values):.2f}" if values else "-"

    lines = [
        f"# Compacting the store at the end of a large build ({runs:,} runs)",
        "",
        f"`{command}` on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; load average {loads[0]:.1f} at the start, "
        f"{loads[1]:.1f} at the end.",
        "",
        __doc__.split("\n\n", 2)[2].strip(),
        "",
        "| variant | cold s | cold CPU s | compact s | first edit s | its finish s | "
        "later edits s (max) | their finish s (max) | stall warnings in the edits |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for variant, seqs in rows.items():
        colds = [s["cold"] for s in seqs]
        firsts = [s["edits"][0] for s in seqs if s["edits"]]
        later = [e for s in seqs for e in s["edits"][1:]]
        cells = [
            variant,
            _each(c["seconds"] for c in colds),
            _each(c["cpu"] for c in colds),
            _each(c["phases"].get("compact", 0) for c in colds),
            _each((e["seconds"] for e in firsts), 2),
            _each((e["phases"]["finish"] for e in firsts), 2),
            f"{med([e['seconds'] for e in later])} ({most([e['seconds'] for e in later])})",
            f"{med([e['phases']['finish'] for e in later])} "
            f"({most([e['phases']['finish'] for e in later])})",
            ", ".join(str(e["stalls"]) for s in seqs for e in s["edits"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    cold = {v: statistics.median(s["cold"]["seconds"] for s in seqs) for v, seqs in rows.items()}
    edit = {
        v: statistics.median(e["seconds"] for s in seqs for e in s["edits"])
        for v, seqs in rows.items()
        if any(s["edits"] for s in seqs)
    }
    lines += [
        "",
        f"Ratios, compacted over peer (medians): cold build {cold['compacted'] / cold['peer']:.2f}"
        + (
            f", edits {edit['compacted'] / edit['peer']:.2f}"
            if len(edit) == 2 and edit["peer"]
            else ""
        )
        + ".",
        "",
    ]
    return "\n".join(lines)


def _each(values, places: int = 1) -> str:
    return ", ".join(f"{v:.{places}f}" for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--edits", type=int, default=2)
    parser.add_argument("--data", type=Path, default=HERE.parent / "data")
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "build-compact.md")
    args = parser.parse_args()
    from synth import replicate

    loads = [os.getloadavg()[0]]
    rows: dict[str, list[dict]] = {"compacted": [], "peer": []}
    with tempfile.TemporaryDirectory(prefix="compact-bench-") as tmp:
        source = Path(tmp) / "source"
        replicate(args.data, source, args.runs)
        for _ in range(args.repeat):  # alternating: the machine's load falls on both
            for variant in ("compacted", "peer"):
                rows[variant].append(
                    sequence(source, Path(tmp) / "work", variant == "peer", args.edits)
                )
                print(variant, json.dumps(rows[variant][-1]["cold"]["phases"]), flush=True)
    loads.append(os.getloadavg()[0])
    command = "python benchmarks/compact_bench.py " + " ".join(sys.argv[1:])
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(report(args.runs, rows, command.strip(), loads), encoding="utf-8")
    print(args.report.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
