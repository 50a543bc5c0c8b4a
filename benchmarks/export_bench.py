"""Export benchmark: each dump format of a built store, its time and peak memory.

    python benchmarks/export_bench.py [--sizes 10000 100000] [--report FILE]

The records are the shipped data/ with its runs copied to each size (synth.replicate). Each
dump runs in a process of its own, so its peak memory is its own. Machines are noisy, so each
time is also given as a ratio to a peer measured in the same run: Oxigraph's own N-Quads dump
of the same store, unsorted, which reads every quad once as every dump must.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import replicate  # noqa: E402

from benchgraph.pipeline.steps import build  # noqa: E402
from benchgraph.store.export import FORMATS  # noqa: E402

SHIPPED = Path(__file__).resolve().parent.parent / "data"
PEER = "oxigraph's own N-Quads dump, unsorted"
CHILD = """
import sys
from pathlib import Path
import pyoxigraph as ox
from benchgraph.store.export import dump
store = ox.Store.read_only(sys.argv[1])
if sys.argv[2] == "peer":
    store.dump(sys.argv[3], ox.RdfFormat.N_QUADS)
else:
    dump(store, sys.argv[2], Path(sys.argv[3]))
# its own peak: the kernel's maximum resident size of a child counts the parent's before exec
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM")))
"""


def in_child(store: Path, fmt: str, out: Path) -> dict:
    """Wall and CPU seconds, peak resident MB and output MB of one dump in its own process."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store), fmt, str(out)], stdout=subprocess.PIPE
    )
    peak_kb = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"the {fmt} dump failed with exit code {child.returncode}")
    wall = time.perf_counter() - start
    size = out.stat().st_size / 1e6
    out.unlink()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": int(peak_kb) / 1024,
        "mb": size,
    }


def measure(size: int, root: Path) -> dict:
    data = root / f"data-{size}"
    replicate(SHIPPED, data, size)
    os.environ["BENCHGRAPH_CACHE"] = str(root / f"cache-{size}")
    result = build(data)
    store = result.store_path
    quads = len(result.open())
    rows = {"peer": in_child(store, "peer", root / "peer.nq")}
    for fmt in FORMATS:
        rows[fmt] = in_child(store, fmt, root / f"dump.{fmt}")
    return {"size": size, "records": result.records, "quads": quads, "rows": rows}


def report(sizes: list[dict]) -> str:
    lines = [
        "# Export benchmark",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, pyoxigraph {ox.__version__}.",
        "",
        "Records: the shipped data/, its runs copied under new ids to each size "
        "(`synth.replicate`). Each dump is written by `benchgraph.export.dump` in a process of "
        "its own, to a file.",
        "",
        f"Peer: {PEER}, of the same store in the same run: reading every quad "
        "from the store, which every dump does once. CPU: user and system time of the "
        "process. Peak memory: its largest resident size.",
        "",
        "| runs | quads | format | s | x peer | CPU s | peak memory MB | output MB |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for s in sizes:
        peer = s["rows"]["peer"]["wall"]
        for fmt, r in s["rows"].items():
            lines.append(
                f"| {s['size']:,} | {s['quads']:,} | {PEER if fmt == 'peer' else fmt} "
                f"| {r['wall']:.1f} | {r['wall'] / peer:.2f} | {r['cpu']:.1f} "
                f"| {r['rss']:,.0f} | {r['mb']:,.0f} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument(
        "--report", type=Path, default=Path(__file__).parent / "reports" / "export.md"
    )
    args = parser.parse_args()
    sizes = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            sizes.append(measure(size, Path(tmp)))
            print(report(sizes), flush=True)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(report(sizes))


if __name__ == "__main__":
    main()
