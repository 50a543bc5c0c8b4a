"""Where a cold build's time went between commits: each commit's code (in an environment of its
own, benchmarks/baseline.py) builds the same synthetic records from an empty cache, and its
worker step converts a slice of them in one process; CPU split by where it runs.

    python benchmarks/build_bisect.py 56b1f49 a8b1e9e 044d50c HEAD [--runs 15000] [--passes 2]

Each pass builds every commit once, the second pass in reverse order (a machine's load drifts).
The figures that hold still on a shared machine are CPU seconds: the build's own thread (its
check and derive phases run there alone, after the load), its whole process (with the store's
threads), its workers, and a record's conversion (`process`) timed alone. Prints a Markdown
table; --json keeps every build.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import baseline  # noqa: E402
from synth import generate  # noqa: E402

# Run by each commit's interpreter: `process` (the workers' step) on the first N runs, and the
# ontology's closure, thread CPU. Where they live moved with the code; both places are tried.
WORKER_STEP = """
import gc, json, sys, time
from pathlib import Path
data, n = Path(sys.argv[1]), int(sys.argv[2])
try:
    from benchgraph.pipeline import workers as w
    from benchgraph.reasoning.ontology import reasoner
    from benchgraph.validation.record import local_shapes
except ImportError:
    import benchgraph.build as w
    reasoner = w.reasoner
    try:
        from benchgraph.validate import local_shapes
    except ImportError:
        local_shapes = lambda: None
t = time.thread_time(); reasoner(); closure = time.thread_time() - t
local_shapes()
files = sorted((data / "benchmarks").rglob("*.yaml"))[:n]
args = [(str(p), str(data), str(p.relative_to(data.parent)), None, "x") for p in files]
if hasattr(w, "FEWER_COLLECTIONS"):  # as that commit's workers run
    gc.set_threshold(*w.FEWER_COLLECTIONS)
for a in args[:50]:
    w.process(*a)
t = time.thread_time()
for a in args:
    w.process(*a)
print(json.dumps({"ms_per_record": 1000 * (time.thread_time() - t) / len(args),
                  "closure_s": closure}))
"""


def measure(env: baseline.Baseline, source: Path, root: Path, step_runs: int) -> dict:
    data, cache = root / "data", root / "cache"
    for path in (data, cache):
        shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(source, data)
    done = subprocess.run(
        [str(env.python), str(HERE / "build_once.py"), str(data), str(cache), "--no-edits"],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{env.rev}: the build failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    step = subprocess.run(
        [str(env.python), "-c", WORKER_STEP, str(data), str(step_runs)],
        capture_output=True,
        text=True,
    )
    if step.returncode:
        raise SystemExit(f"{env.rev}: the worker step failed:\n{step.stderr[-3000:]}")
    out["step"] = json.loads(step.stdout.strip().splitlines()[-1])
    for path in (data, cache):
        shutil.rmtree(path, ignore_errors=True)
    return out


def table(commits: list[str], got: dict[str, list[dict]]) -> str:
    def med(rev: str, f) -> float:
        return statistics.median(f(b) for b in got[rev])

    def phase(name: str, i: int):
        return lambda b: b["full"]["phase_cpu"].get(name, [0, 0])[i]

    def thread(b: dict) -> float:
        return sum(v[0] for v in b["full"]["phase_cpu"].values())

    def workers(b: dict) -> float:
        return b["full"]["cpu"] - sum(v[1] for v in b["full"]["phase_cpu"].values())

    lines = [
        "| commit | builds | CPU s | workers CPU s | build's thread s "
        "| check: thread / process s | derive: thread / process s "
        "| worker ms a record | closure s |",
        "|---|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for rev in commits:
        lines.append(
            f"| {rev} | {len(got[rev])} | {med(rev, lambda b: b['full']['cpu']):.1f} "
            f"| {med(rev, workers):.1f} "
            f"| {med(rev, thread):.2f} "
            f"| {med(rev, phase('check', 0)):.2f} / {med(rev, phase('check', 1)):.2f} "
            f"| {med(rev, phase('derive', 0)):.2f} / {med(rev, phase('derive', 1)):.2f} "
            f"| {med(rev, lambda b: b['step']['ms_per_record']):.3f} "
            f"| {med(rev, lambda b: b['step']['closure_s']):.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--runs", type=int, default=15000, help="synthetic runs to build")
    parser.add_argument(
        "--step-runs", type=int, default=2000, help="runs the worker step is timed on"
    )
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--baseline-dir", type=Path, default=baseline.HOME)
    parser.add_argument("--json", type=Path, help="every build's figures")
    args = parser.parse_args()
    envs = {rev: baseline.prepare(rev, args.baseline_dir) for rev in args.commits}
    got: dict[str, list[dict]] = {rev: [] for rev in args.commits}
    with tempfile.TemporaryDirectory(prefix="benchgraph-bisect-") as tmp:
        root = Path(tmp)
        source = root / "records"
        generate(source, args.runs)
        for i in range(args.passes):
            for rev in args.commits if i % 2 == 0 else args.commits[::-1]:
                got[rev].append(measure(envs[rev], source, root, args.step_runs))
                print(
                    f"{rev}: {got[rev][-1]['full']['cpu']:.1f} CPU s", file=sys.stderr, flush=True
                )
    if args.json:
        args.json.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
    print(table(args.commits, got))


if __name__ == "__main__":
    main()
