"""Record sets for benchmarks: `generate(out_dir, n_runs, seed)` and `replicate(...)`.

`generate`: synthetic records shaped like the seed run, the richest of the shipped ones:
shared accelerators, interconnects of every role, systems, engines, models and metrics, and
runs with two measurements with conditions, settings, parallelism, history and sources (84
quads a run once built). The values are random.

`replicate`: the shipped records themselves, the runs copied under new ids until there are
n_runs of them (61 quads a run: most are imported MLPerf runs, with fewer measurements).

Either folder is for measuring speed only; it never goes into data/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import shutil
from pathlib import Path

import yaml

INTERCONNECTS = [
    ("nvlink-4", "scale-up-fabric"),
    ("nvlink-5", "scale-up-fabric"),
    ("nvswitch-4", "scale-up-fabric"),
    ("infinity-fabric", "scale-up-fabric"),
    ("tpu-ici", "scale-up-fabric"),
    ("pcie-gen4", "host-link"),
    ("pcie-gen5", "host-link"),
    ("nvlink-c2c", "host-link"),
    ("infiniband-ndr", "scale-out-network"),
    ("ethernet-400g", "scale-out-network"),
]
FABRICS = [  # what an accelerator's platform carries; [] = not published
    ["nvlink-4", "nvswitch-4"],
    ["nvlink-5"],
    ["infinity-fabric"],
    ["tpu-ici"],
    ["pcie-gen5"],
    ["pcie-gen4"],
    [],
    ["nvlink-c2c", "nvlink-5"],
]
METRICS = [
    ("tok-s", "tok/s", "higher-is-better", "aggregate"),
    ("tok-s-per-user", "tok/s", "higher-is-better", "per-user"),
    ("ttft", "ms", "lower-is-better", "per-user"),
    ("samples-s", "samples/s", "higher-is-better", "aggregate"),
    ("p90-latency", "ms", "lower-is-better", "per-user"),
]


def _dump(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        yaml.dump(record, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )


def generate(out_dir: Path, n_runs: int, seed: int = 0) -> None:
    """Write a data folder with n_runs benchmark runs and the records they link to."""
    rnd = random.Random(seed)
    out = Path(out_dir)
    for iid, role in INTERCONNECTS:
        _dump(out / "interconnects" / f"{iid}.yaml", {"id": iid, "name": iid.upper(), "role": role})
    accelerators = []
    for i in range(40):
        aid = f"acc-{i:03d}"
        rec = {
            "id": aid,
            "name": f"Accelerator {i}",
            "vendor": rnd.choice(["A", "B", "C"]),
            "memory_gb": rnd.choice([24, 48, 80, 96, 141, 192]),
        }
        fabric = FABRICS[i % len(FABRICS)]
        if fabric:
            rec["interconnect_ids"] = fabric
        _dump(out / "accelerators" / f"{aid}.yaml", rec)
        accelerators.append(aid)
    for mid, unit, direction, scope in METRICS:
        _dump(
            out / "metrics" / f"{mid}.yaml",
            {"id": mid, "name": mid, "unit": unit, "direction": direction, "scope": scope},
        )
    engines = [f"engine-{i}" for i in range(8)]
    for eid in engines:
        _dump(out / "engines" / f"{eid}.yaml", {"id": eid, "name": eid})
    models = [f"model-{i}" for i in range(30)]
    for mid in models:
        _dump(
            out / "models" / f"{mid}.yaml",
            {"id": mid, "name": mid, "parameters_b": rnd.choice([7, 8, 70, 405])},
        )
    systems = []
    for i in range(max(10, n_runs // 20)):
        sid = f"system-{i:05d}"
        acc = rnd.choice(accelerators)
        rec = {
            "id": sid,
            "name": f"System {i}",
            "accelerators": [{"id": acc, "count": rnd.choice([1, 4, 8])}],
            "nodes": rnd.choice([1, 1, 1, 2]),
            "host_cpu": "CPU X",
            "interconnect_raw": {"accelerator_interconnect": "raw text"},
        }
        if rnd.random() < 0.3:
            rec["interconnect_ids"] = ["infiniband-ndr"]
        _dump(out / "systems" / f"{sid}.yaml", rec)
        systems.append((sid, rec))
    for i in range(n_runs):
        sid, sysrec = rnd.choice(systems)
        acc = sysrec["accelerators"][0]["id"]
        count = sysrec["accelerators"][0]["count"] * sysrec["nodes"]
        metric, unit, _, _ = rnd.choice(METRICS)
        value = round(rnd.uniform(1, 5000), 2)
        rec = {
            "id": f"run-{i:06d}",
            "title": f"Synthetic run {i}",
            "category": "synthetic",
            "status": rnd.choice(["draft", "provisional", "verified"]),
            "confidence": round(rnd.uniform(0.3, 1.0), 2),
            "updated": dt.date(2026, 10, 4),
            "metric": metric,
            "value": value,
            "unit": unit,
            "model": rnd.choice(models),
            "engine": rnd.choice(engines),
            "accelerators": [acc],
            "accelerator_count": count,
            "system": sid,
            "concurrency": rnd.choice([1, 8, 64]),
            "measured_by": rnd.choice(["first_party", "vendor", "third_party"]),
            "reproducible": True,
            "methodology": "Synthetic methodology text " * 5,
            "settings": {"kv_cache_dtype": "fp8_e4m3", "max_running_requests": 16},
            "measurements": [
                {
                    "metric": metric,
                    "value": value,
                    "unit": unit,
                    "condition": {"prompt_class": "prose"},
                },
                {
                    "metric": metric,
                    "value": round(value * 1.2, 2),
                    "unit": unit,
                    "condition": {"prompt_class": "structured"},
                },
            ],
            "omitted_by_source": ["driver version"],
            "history": [{"date": dt.date(2026, 10, 4), "note": "created"}],
            "source": {"publisher": "Synthetic", "url": f"https://example.org/{i}"},
        }
        if rnd.random() < 0.7:
            rec["parallelism"] = {"tensor": min(count, rnd.choice([1, 2, 4, 8])), "data": 1}
        if rnd.random() < 0.2:
            rec["settings"]["speculative_algorithm"] = "EAGLE"
        _dump(out / "benchmarks" / f"{i // 1000:03d}" / f"run-{i:06d}.yaml", rec)


def replicate(data_dir: Path, out_dir: Path, n_runs: int) -> None:
    """Write a data folder with the records of data_dir, its runs copied (`<id>-r01`, ...)
    until there are n_runs of them, each copy in a folder of its own."""
    data_dir, out = Path(data_dir), Path(out_dir)
    for kind in sorted(p for p in data_dir.iterdir() if p.is_dir() and p.name != "benchmarks"):
        shutil.copytree(kind, out / kind.name)
    runs = sorted((data_dir / "benchmarks").rglob("*.yaml"))
    for i in range(n_runs):
        path = runs[i % len(runs)]
        copy, stem = i // len(runs), path.stem
        if copy:
            stem = f"{stem}-r{copy:02d}"
        text, found = re.subn(
            r"^id: .*$", f"id: {stem}", path.read_text(encoding="utf-8"), count=1, flags=re.M
        )
        if not found:
            raise ValueError(f"{path}: no id line")
        target = out / "benchmarks" / f"r{copy:02d}" / path.relative_to(data_dir / "benchmarks")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.with_name(f"{stem}.yaml").write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("runs", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--shipped",
        type=Path,
        metavar="DATA",
        help="copy the records of this data folder instead (see replicate)",
    )
    args = parser.parse_args()
    if args.shipped:
        replicate(args.shipped, args.out, args.runs)
    else:
        generate(args.out, args.runs, args.seed)


if __name__ == "__main__":
    main()
