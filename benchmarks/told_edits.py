"""Edits told to a long-lived builder's session, each timed: the rebuilds `serve --watch` and
`build --watch` make, on a folder built already, with whichever benchgraph this interpreter
imports (another commit's: PYTHONPATH at its src/), so that two versions are compared in
turn on the same folder, each with a cache of its own (BENCHGRAPH_CACHE).

    python benchmarks/told_edits.py DATA [--runs 10] [--parts 4]

DATA is edited in place (give it a copy, or a folder made for measuring): `--runs` runs'
confidence, one after another, then the fabric of the part most runs link to, `--parts`
times (an even number leaves it as it was). Prints one JSON line: each edit's seconds and
phases, and how the session scanned.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_once import busiest_accelerator, edit, toggle_confidence, toggle_fabric  # noqa: E402

from benchgraph.pipeline.session import Session  # noqa: E402
from benchgraph.pipeline.steps import build  # noqa: E402


def told_edit(session: Session, data: Path, path: Path, change) -> tuple[float, object]:
    """One edit as `serve --watch`'s builder makes it: a full scan remembered while it
    waits, the file changed and told, then the build, timed (seconds, its result)."""
    session.remember()
    edit(path, change)
    session.told([str(path.resolve())])
    started = time.perf_counter()
    result = build(data, skip_invalid=True, session=session)
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--parts", type=int, default=4)
    args = parser.parse_args()
    part, reached = busiest_accelerator(args.data)
    runs = sorted((args.data / "benchmarks").rglob("*.yaml"))
    session = Session()
    build(args.data, skip_invalid=True, session=session)  # brought up to date: not timed
    edits = [
        ("run", runs[(len(runs) // 2 + 37 * i) % len(runs)], toggle_confidence)
        for i in range(args.runs)
    ]
    edits += [("part", part, toggle_fabric)] * args.parts
    out: dict = {"reached": reached, "run": [], "part": []}
    for name, path, change in edits:
        took, result = told_edit(session, args.data, path, change)
        out[name].append(
            {"seconds": round(took, 3), "scan": session.scanned, "phases": result.timings}
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
