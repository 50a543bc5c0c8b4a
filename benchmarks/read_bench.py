"""Reading benchmark: records.load_record per record file, this checkout's against another
commit's (its records.py taken with git show), on the same files in the same run.

    python benchmarks/read_bench.py [--data data] [--against HEAD~1] [--rounds 3]

Times are CPU-bound and the machine may be shared: rounds alternate old and new, and the
ratio of the best rounds is the figure to read.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reading_changes import ROOT, new_records, old_module  # noqa: E402


def per_record(module, files: list[Path], data: Path) -> float:
    start = time.perf_counter()
    for path in files:
        module.load_record(path, data)
    return (time.perf_counter() - start) / len(files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--against", default="HEAD~1")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    old = old_module(args.against)
    files = new_records.find_record_files(args.data)
    best = {"old": float("inf"), "new": float("inf")}
    for _ in range(args.rounds):
        for name, module in (("old", old), ("new", new_records)):
            best[name] = min(best[name], per_record(module, files, args.data))
    print(f"{len(files)} record files, best of {args.rounds} rounds")
    print(f"records.py as of {args.against}: {best['old'] * 1e6:.1f} us a record")
    print(f"this checkout:  {best['new'] * 1e6:.1f} us a record ({best['new'] / best['old']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
