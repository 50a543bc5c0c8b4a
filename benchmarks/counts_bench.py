"""The description's counts after an edit: kept per graph in the build's cache
(serving/counts.py), against the peer they replaced, the store's own count of every quad.

    python benchmarks/counts_bench.py --data DIR [--rounds 3] [--report FILE]

DIR is edited in place (give it a copy, or a folder made for measuring): each round edits a
run (its confidence) and the part most runs link to (its fabric, which every run on it
derives again), rebuilds as `serve --watch`'s builder does (told the edited file), then
times the counts both ways on the built store, in turn. An even number of rounds leaves the
records as they were. The first full count, which `serve --watch`'s builder makes while it
waits, is timed once, before the rounds.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_once import busiest_accelerator, toggle_confidence, toggle_fabric  # noqa: E402
from told_edits import told_edit  # noqa: E402

from benchgraph.pipeline.session import Session  # noqa: E402
from benchgraph.pipeline.steps import build  # noqa: E402
from benchgraph.serving import counts  # noqa: E402
from benchgraph.serving.description import describe  # noqa: E402


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def measure(data: Path, rounds: int) -> dict:
    part, reached = busiest_accelerator(data)
    run = sorted((data / "benchmarks").rglob("*.yaml"))[0]
    session = Session()
    result = build(data, skip_invalid=True, session=session)
    work = result.store_path.parent
    (work / "counts.sqlite").unlink(missing_ok=True)  # so that the first count is one
    first, kept = timed(lambda: counts.totals(work, result.key, result.open(), start=True))
    if kept is None:
        raise SystemExit("no counts kept: a record of this folder cannot be counted per graph")
    out: dict = {"first": first, "reached": reached, "records": result.records, "rounds": []}
    for _ in range(rounds):
        for name, path, change in (("run", run, toggle_confidence), ("part", part, toggle_fabric)):
            _, result = told_edit(session, data, path, change)
            store = result.open()
            kept_s, kept = timed(_from_kept, work, result.key, store)
            store_s, read = timed(describe, store, result.key)
            if kept is None or {str(q) for q in kept} != {str(q) for q in read}:
                raise SystemExit(f"after the {name} edit the kept counts are not the store's")
            out["rounds"].append({"edit": name, "kept": kept_s, "store": store_s})
            store = None  # closed before the next build writes it
    return out


def _from_kept(work: Path, key: str, store) -> list | None:
    """The description as a rebuild makes it: from the counts kept, brought up to date."""
    found = counts.totals(work, key, store)
    return None if found is None else describe(store, key, found)


def report(found: dict, data: Path, rounds: int) -> str:
    lines = [
        "# The description's counts after an edit: kept per graph, against the store's count",
        "",
        f"`python benchmarks/counts_bench.py --data {data} --rounds {rounds}` on "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}: "
        f"{found['records']:,} records; the part edited has {found['reached']:,} runs on it. "
        "Each edit is rebuilt as `serve --watch`'s builder does (told the file), then the "
        "new snapshot's description is made both ways on the same store, in turn: from the "
        "counts kept per graph in the build's cache, brought up to date (serving/counts.py), "
        "and by the peer they replaced, the store's own aggregate queries over every quad. "
        "Both gave the same description each time (the benchmark stops otherwise).",
        "",
        f"The first full count (made once, by `serve --watch`'s builder while it waits): "
        f"{found['first']:.2f} s.",
        "",
        "| edit | from the kept counts s (each round) | from the store s (each round) "
        "| ratio (medians) |",
        "|---|---|---|---:|",
    ]
    for name in ("run", "part"):
        rows = [r for r in found["rounds"] if r["edit"] == name]
        kept = [r["kept"] for r in rows]
        store = [r["store"] for r in rows]
        ratio = statistics.median(kept) / statistics.median(store)
        lines.append(
            f"| {'a run' if name == 'run' else 'the part'} | "
            f"{', '.join(f'{s:.2f}' for s in kept)} | {', '.join(f'{s:.2f}' for s in store)} | "
            f"{ratio:.3f}x |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "counts.md")
    args = parser.parse_args()
    found = measure(args.data, args.rounds)
    text = report(found, args.data, args.rounds)
    args.report.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
