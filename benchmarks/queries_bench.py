"""Saved-query benchmark: every queries/*.rq on the engine that serves it (pyoxigraph), on
the shipped records copied to N runs (synth.replicate, which keeps the runs on several kinds
of accelerator), this checkout's text against another commit's (git show), in the same run.

    python benchmarks/queries_bench.py [--runs 12000] [--against HEAD~2] [--rounds 3]
                                       [--query NAME ...]

The folder is built once (in a temporary place); each query runs `rounds` times, old and new
alternating, and the best time of each is reported with the rows it answered.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import replicate  # noqa: E402


def old_text(commit: str, name: str) -> str | None:
    found = subprocess.run(
        ["git", "show", f"{commit}:queries/{name}.rq"], cwd=ROOT, capture_output=True, text=True
    )
    return found.stdout if found.returncode == 0 else None


def timed(store, text: str) -> tuple[float, int]:
    from benchgraph.query.render import run

    start = time.perf_counter()
    rows = sum(1 for _ in run(store, text))
    return time.perf_counter() - start, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=12_000)
    parser.add_argument("--against", default="HEAD~2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--query", action="append", default=[], metavar="NAME", help="only these (repeatable)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BENCHGRAPH_CACHE"] = str(Path(tmp) / "cache")
        from benchgraph.pipeline.steps import build
        from benchgraph.query.saved import saved_queries

        data = Path(tmp) / "data"
        replicate(ROOT / "data", data, args.runs)
        start = time.perf_counter()
        store = build(data, skip_invalid=True).open()
        print(
            f"{args.runs:,} runs built in {time.perf_counter() - start:.1f} s; best of "
            f"{args.rounds} rounds, pyoxigraph; old = queries/ as of {args.against}\n"
        )
        print("| query | old s | old rows | new s | new rows |")
        print("|---|---:|---:|---:|---:|")
        for name, query in saved_queries().items():
            if args.query and name not in args.query:
                continue
            before = old_text(args.against, name)
            best = {"old": (float("inf"), 0), "new": (float("inf"), 0)}
            for _ in range(args.rounds):
                for label, text in (("old", before), ("new", query.text)):
                    if text is not None:
                        took = timed(store, text)
                        best[label] = min(best[label], took)
            old = f"{best['old'][0]:.3f} | {best['old'][1]:,}" if before is not None else "- | -"
            print(f"| {name} | {old} | {best['new'][0]:.3f} | {best['new'][1]:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
