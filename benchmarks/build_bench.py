"""Build benchmark: full build, no-op rebuild and one-record edits at several sizes.

    python benchmarks/build_bench.py [--sizes 1000 10000 100000] [--shipped] [--report FILE]
    python benchmarks/build_bench.py --baseline 56b1f49 [--sizes 10000] [--repeat 2]

Machines are noisy, so each figure is also given as a ratio to a peer measured in the same
run: loading the same N-Quads into a fresh in-memory pyoxigraph store. The same N-Quads
loaded into a fresh on-disk store, the kind the build writes, is the floor of the build's
own load. The records come from benchmarks/synth.py: synthetic ones shaped like the seed run,
or with --shipped the shipped data/ with its runs copied to each size.

With --baseline REV the peer is another commit's code (benchmarks/baseline.py installs it in
an environment of its own): the same records are built by it and by today's code, each build
in a process of its own from an empty cache, the two alternating (ABBA...) --repeat times
each, for each shape of records (--shapes): synthetic (synth.generate), shipped-shaped
(synth.replicate) and one huge record (a run of that many measurements, as
comparisons_bench.py makes it). Report: reports/build-baseline.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyoxigraph as ox
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_once import (  # noqa: E402
    add_note,
    busiest_accelerator,
    cpu_seconds,
    edit,
    toggle_confidence,
    toggle_fabric,
    toggle_pcie,
)
from synth import generate, replicate  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


SHIPPED = HERE.parent / "data"


def disk_load(nq: bytes, root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one bulk load of nq into a fresh on-disk store."""
    path = root / "disk-peer"
    shutil.rmtree(path, ignore_errors=True)
    cpu = cpu_seconds()
    wall, _ = timed(lambda: ox.Store(str(path)).bulk_load(nq, ox.RdfFormat.N_QUADS, lenient=True))
    cpu = cpu_seconds() - cpu
    shutil.rmtree(path, ignore_errors=True)
    return wall, cpu


def measure(size: int, root: Path, shipped: bool) -> dict:
    from benchgraph.pipeline.steps import build
    from benchgraph.store.export import dumps

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
    edit(run, toggle_confidence)
    edit_run, result = timed(lambda: build(data))
    run_phases = dict(result.timings)
    acc, runs_on_it = busiest_accelerator(data)
    edit(acc, add_note)  # no other record reads a note
    edit_acc, result = timed(lambda: build(data))
    acc_phases = dict(result.timings)
    edit(acc, toggle_pcie)  # its links: every run on it is derived again
    edit_links, result = timed(lambda: build(data))
    links_phases = dict(result.timings)
    edit(acc, toggle_fabric)  # what decides every run's fabric status on it
    edit_fabric, result = timed(lambda: build(data))
    fabric_phases = dict(result.timings)
    watched = told_edits(data, run, acc)
    watched_cli = watch_edits(data, run, acc)
    nq = dumps(result.open(), "nq")
    peer, _ = timed(lambda: ox.Store().bulk_load(nq, ox.RdfFormat.N_QUADS))
    disk, disk_cpu = disk_load(nq, root)
    return {
        "size": size,
        "records": result.records,
        "quads": nq.count(b"\n"),
        "generate": gen,
        "full": full,
        "cpu": cpu,
        "rss": rss,
        "phases": phases,
        "noop": noop,
        "edit_run": edit_run,
        "edit_accelerator": edit_acc,
        "edit_links": edit_links,
        "edit_fabric": edit_fabric,
        "runs_on_it": runs_on_it,
        "watched": watched,
        "watched_cli": watched_cli,
        "peer": peer,
        "disk": disk,
        "disk_cpu": disk_cpu,
        "edit_phases": {
            "edit one run": run_phases,
            "edit an accelerator's note": acc_phases,
            "edit an accelerator's links": links_phases,
            "edit an accelerator's fabric": fabric_phases,
        },
    }


def told_edits(data: Path, run: Path, acc: Path) -> dict:
    """The four edits again as `serve --watch`'s builder makes them: one process whose
    session is told the edited file and remembered a full scan after the build before
    (pipeline/session.py). Each edit's seconds, and the longest remembering."""
    from benchgraph.pipeline.session import Session
    from benchgraph.pipeline.steps import build

    session = Session()
    build(data, session=session)
    remember = 0.0
    out = {}
    for name, path, change in (
        ("edit_run", run, toggle_confidence),
        ("edit_accelerator", acc, add_note),
        ("edit_links", acc, toggle_pcie),
        ("edit_fabric", acc, toggle_fabric),
    ):
        took, _ = timed(session.remember)
        remember = max(remember, took)
        edit(path, change)
        session.told([str(path.resolve())])
        out[name], result = timed(lambda: build(data, session=session))
        assert session.scanned == "told", name
        out[name + "_phases"] = dict(result.timings)
    out["remember"] = remember
    return out


def watch_edits(data: Path, run: Path, acc: Path) -> dict:
    """The four edits again as `benchgraph build --watch` makes them: the command runs as a
    user runs it, each edit is saved once it says it is watching, and each figure is the
    build's seconds as its line reports them (after the watcher's news and the settling)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchgraph", "build", "--data", str(data), "--watch"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str | None] = queue.Queue()
    said: list[str] = []

    def read() -> None:  # all it says, read as said: a full pipe would stop it
        for line in proc.stderr:
            said.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()

    def built() -> float:
        """Seconds of the next build, by its line; then wait until it watches again."""
        took = None
        while (line := lines.get(timeout=600)) is not None:
            found = re.search(r" in ([0-9.]+) s, the changed files read", line)
            took = float(found.group(1)) if found else took
            if "watching" in line:
                return took
        raise RuntimeError("build --watch ended: " + "".join(said[-20:]))

    out = {}
    try:
        built()  # the first build, of a folder built already
        for name, path, change in (
            ("edit_run", run, toggle_confidence),
            ("edit_accelerator", acc, add_note),
            ("edit_links", acc, toggle_pcie),
            ("edit_fabric", acc, toggle_fabric),
        ):
            edit(path, change)
            out[name] = built()
    finally:
        # SIGTERM: a benchmark started in the background (`cmd &` in a script) has its
        # children ignore SIGINT
        proc.send_signal(signal.SIGTERM)
        try:
            if proc.wait(timeout=120) != 0:
                raise RuntimeError("build --watch ended badly: " + "".join(said[-20:]))
        except subprocess.TimeoutExpired:
            proc.kill()
            raise RuntimeError(
                "build --watch did not end on SIGTERM: " + "".join(said[-20:])
            ) from None
    return out


def report(rows: list[dict], shipped: bool) -> str:
    lines = [
        "# Build benchmark" + (": the shipped records" if shipped else ""),
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, pyoxigraph {ox.__version__}.",
        "",
        (
            "Records: the shipped data/, its runs copied under new ids to each size "
            "(`synth.replicate`; most are imported MLPerf runs)."
            if shipped
            else "Records: synthetic, shaped like the seed run (`synth.generate`)."
        ),
        "",
        "Peer: loading the same N-Quads into a fresh in-memory pyoxigraph store, in the same "
        "run. On-disk load: the same N-Quads in one bulk load into a fresh on-disk store, the "
        "kind the build writes: the floor of the build's own load. CPU: user and system time "
        "of the build and its worker processes, or of the load (on a machine shared with other "
        "work, the steadier figure).",
        "",
        "The edits: one run's confidence; the note, then the links, then the fabric (built in "
        "or optional) of the accelerator most runs link to. A note is read by no other record, "
        "so only the accelerator is checked and derived again; its links and its fabric are "
        "read by every run on it (the last column counts them), which are checked and derived "
        "again.",
        "",
        "Peak memory: the largest resident size of the build process so far (the workers "
        "are not counted).",
        "",
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
            f"{r['peer']:.2f} | {r['disk']:.2f} | {r['disk_cpu']:.1f} | {r['runs_on_it']:,} |"
        )
    lines += [
        "",
        "The same four edits made as `serve --watch`'s builder makes them: one process, told "
        "the edited file by its watcher, which remembered a full scan of the folder while it "
        "waited after the build before (pipeline/session.py); the scan then stats and reads "
        "the told file alone. Remembering: the longest of those scans, made between builds.",
        "",
        "| runs | edit one run s | edit an accelerator's note s | edit an accelerator's links s "
        "| edit an accelerator's fabric s | remembering s |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        w = r["watched"]
        lines.append(
            f"| {r['size']:,} | {w['edit_run']:.2f} | {w['edit_accelerator']:.2f} | "
            f"{w['edit_links']:.2f} | {w['edit_fabric']:.2f} | {w['remember']:.2f} |"
        )
    lines += [
        "",
        "The same four edits with `benchgraph build --watch`, run as a user runs it: each "
        "edit saved once it says it is watching, each figure the build's seconds as its line "
        "reports them (the watcher's news and the 0.5 s settling come before). Its first "
        "edit pays for nothing the others do not: the builder compiles the shapes while it "
        "waits (workers.warm).",
        "",
        "| runs | edit one run s | edit an accelerator's note s | edit an accelerator's links s "
        "| edit an accelerator's fabric s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        w = r["watched_cli"]
        lines.append(
            f"| {r['size']:,} | {w['edit_run']:.2f} | {w['edit_accelerator']:.2f} | "
            f"{w['edit_links']:.2f} | {w['edit_fabric']:.2f} |"
        )
    lines += [
        "",
        "Phases of the full build (s). `convert` holds the store's bulk loads too: they "
        "read the workers' batches as they come (load.py); `load` is what is left at "
        "the end.",
        "",
        "| runs | " + " | ".join(rows[0]["phases"]) + " |",
        "|---:|" + "---:|" * len(rows[0]["phases"]),
    ]
    for r in rows:
        lines.append(
            f"| {r['size']:,} | " + " | ".join(f"{v:.1f}" for v in r["phases"].values()) + " |"
        )
    lines += [
        "",
        "Phases of the edits (s):",
        "",
        "| runs | edit | " + " | ".join(rows[0]["phases"]) + " |",
        "|---:|---|" + "---:|" * len(rows[0]["phases"]),
    ]
    for r in rows:
        told = {
            f"{name}, told": r["watched"][key + "_phases"]
            for key, name in zip(
                ("edit_run", "edit_accelerator", "edit_links", "edit_fabric"),
                r["edit_phases"],
                strict=True,
            )
        }
        for name, phases in (r["edit_phases"] | told).items():
            lines.append(
                f"| {r['size']:,} | {name} | "
                + " | ".join(f"{phases.get(k, 0):.2f}" for k in rows[0]["phases"])
                + " |"
            )
    return "\n".join(lines) + "\n"


# --- against another commit (--baseline) -------------------------------------------------------
SHAPES = ("synthetic", "shipped", "huge")
SHAPE_TEXT = {
    "synthetic": "synthetic runs in the record format (synth.generate)",
    "shipped": "shipped-shaped: the shipped data/ with its runs copied (synth.replicate)",
    "huge": "one huge record: the reasoning fixtures and one run of that many measurements "
    "(comparisons_bench.py)",
}
STEPS = (
    ("full", "cold build"),
    ("noop", "no-op rebuild"),
    ("edit_run", "edit one run"),
    ("edit_accelerator", "edit an accelerator's note"),
    ("edit_links", "edit an accelerator's links"),
    ("edit_fabric", "edit an accelerator's fabric"),
)


def write_records(shape: str, size: int, out: Path, tree: Path) -> None:
    """The records of one shape and size, from the data and fixtures of `tree` (a checkout)."""
    if shape == "synthetic":
        generate(out, size)
    elif shape == "shipped":
        replicate(tree / "data", out, size)
    else:
        from comparisons_bench import run_record, sweep

        shutil.copytree(tree / "tests" / "data" / "reasoning" / "data", out)
        text = yaml.dump(
            run_record("sweep-000000", sweep(size)), Dumper=yaml.CSafeDumper, sort_keys=False
        )
        (out / "benchmarks" / "sweep-000000.yaml").write_text(text, encoding="utf-8")


def one_build(python: Path, source: Path, root: Path, edits: bool) -> dict:
    """build_once.py with `python`'s benchgraph on a fresh copy of `source`, always at the
    same path (a record's display path is part of what it becomes), from an empty cache."""
    data, cache = root / "data", root / "cache"
    for path in (data, cache):
        shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(source, data)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # a run of 100k measurements is a 13 MB file, over the default record size limit
    env["BENCHGRAPH_MAX_RECORD_BYTES"] = "64MiB"
    argv = [str(python), str(HERE / "build_once.py"), str(data), str(cache)]
    done = subprocess.run(
        argv + ([] if edits else ["--no-edits"]), capture_output=True, text=True, env=env, cwd=root
    )
    for path in (data, cache):
        shutil.rmtree(path, ignore_errors=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(
    base, shapes: list[str], sizes: list[int], repeat: int, records: str, edits: bool
) -> list[dict]:
    """Each shape and size built by the baseline's code and today's, alternating."""
    sides = {"baseline": base.python, "today": Path(sys.executable)}
    tree = base.tree if records == "baseline" else HERE.parent
    rows = []
    with tempfile.TemporaryDirectory(prefix="benchgraph-baseline-") as tmp:
        root = Path(tmp)
        for shape in shapes:
            for size in sizes:
                source = root / f"{shape}-{size}"
                write_records(shape, size, source, tree)
                builds: dict[str, list[dict]] = {"baseline": [], "today": []}
                order = ["baseline", "today"]
                for i in range(repeat):
                    for side in order if i % 2 == 0 else order[::-1]:  # ABBA: drift cancels
                        load = os.getloadavg()[0]
                        got = one_build(sides[side], source, root, edits)
                        got["load"] = round(load, 1)
                        builds[side].append(got)
                        print(
                            f"{shape} {size:,} {side}: {got['full']['seconds']:.1f} s "
                            f"(load {load:.1f})",
                            file=sys.stderr,
                            flush=True,
                        )
                rows.append({"shape": shape, "size": size, "builds": builds})
                shutil.rmtree(source)
    return rows


def _median(builds: list[dict], step: str, what: str = "seconds") -> float | None:
    values = [
        b[step][what] for b in builds if step in b and what in b[step] and "refused" not in b[step]
    ]
    return statistics.median(values) if values else None


def _pairs(row: dict, step: str, what: str = "seconds") -> list[float]:
    """today / baseline of each pair of builds made one after the other."""
    out = []
    for b, t in zip(row["builds"]["baseline"], row["builds"]["today"]):
        if all(step in x and "refused" not in x[step] for x in (b, t)):
            out.append(t[step][what] / b[step][what])
    return out


def _cell(row: dict, side: str, step: str) -> str:
    values = []
    for b in row["builds"][side]:
        if step not in b:
            values.append("-")
        elif "refused" in b[step]:
            values.append("refused")
        else:
            values.append(
                f"{b[step]['seconds']:.2f}"
                if b[step]["seconds"] < 10
                else f"{b[step]['seconds']:.1f}"
            )
    return ", ".join(values)


def baseline_report(base, rows: list[dict], command: str, records: str, loads: tuple) -> str:
    subject = subprocess.run(
        ["git", "-C", str(HERE.parent), "log", "-1", "--format=%s", base.sha],
        capture_output=True,
        text=True,
    ).stdout.strip()
    today = subprocess.run(
        ["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    import rdflib

    lines = [
        f"# Build: today's code against {base.rev} ({base.label})",
        "",
        f"`{command}` on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, pyoxigraph {ox.__version__}, rdflib {rdflib.__version__} "
        f"for both (benchmarks/baseline.py); load average {loads[0]:.1f} at the start, "
        f'{loads[1]:.1f} at the end. Baseline: {base.sha[:10]} "{subject[:100]}"; today: '
        f"{today}.",
        "",
        "Each build is a process of its own from an empty cache on a fresh copy of the same "
        "records; the two codes alternate (baseline, today, today, baseline, ...). "
        "`x base` is today's median over the baseline's (above 1: today is slower); "
        "`pairs` is the same ratio for each pair built one after the other, the steadier "
        "figure on a machine shared with other work. CPU: the build's process and its "
        "workers. Peak: the build process's largest resident size, and its largest worker's.",
        "",
        "Records: "
        + "; ".join(f"*{s}*: {SHAPE_TEXT[s]}" for s in dict.fromkeys(r["shape"] for r in rows))
        + (
            "; from the baseline's own data/ and fixtures (the records both versions read)."
            if records == "baseline"
            else "; from today's data/ and fixtures."
        ),
        "",
        "| records | size | quads base / today | cold build base s | today s | x base "
        "| pairs | CPU base s | today s | x base | peak MB base / today |",
        "|---|---:|---|---|---|---:|---|---:|---:|---:|---|",
    ]
    for r in rows:
        b, t = r["builds"]["baseline"], r["builds"]["today"]
        mb, mt = _median(b, "full"), _median(t, "full")
        cb, ct = _median(b, "full", "cpu"), _median(t, "full", "cpu")
        quads = " / ".join(f"{x[0].get('quads', 0):,}" if x else "-" for x in (b, t))
        peak = " / ".join(
            f"{max(x['rss_mb'] for x in side):,.0f} + {max(x['workers_rss_mb'] for x in side):,.0f}"
            for side in (b, t)
        )
        lines.append(
            f"| {r['shape']} | {r['size']:,} | {quads} | {_cell(r, 'baseline', 'full')} "
            f"| {_cell(r, 'today', 'full')} | {_ratio(mt, mb)} "
            f"| {', '.join(f'{x:.2f}' for x in _pairs(r, 'full'))} "
            f"| {_num(cb)} | {_num(ct)} | {_ratio(ct, cb)} | {peak} |"
        )
    if any("noop" in b for r in rows for b in r["builds"]["today"]):
        lines += [
            "",
            "Rebuilds after the cold one, in this order (refused: that code does not "
            "read what the edit wrote, e.g. a field it does not know):",
            "",
            "| records | size | step | base s | today s | x base | pairs |",
            "|---|---:|---|---|---|---:|---|",
        ]
        for r in rows:
            for step, name in STEPS[1:]:
                if not any(step in x for x in r["builds"]["today"]):
                    continue
                mb, mt = _median(r["builds"]["baseline"], step), _median(r["builds"]["today"], step)
                lines.append(
                    f"| {r['shape']} | {r['size']:,} | {name} "
                    f"| {_cell(r, 'baseline', step)} | {_cell(r, 'today', step)} "
                    f"| {_ratio(mt, mb)} "
                    f"| {', '.join(f'{x:.2f}' for x in _pairs(r, step))} |"
                )
    lines += [
        "",
        "Phases of the cold builds, medians (s):",
        "",
        "| records | size | code | " + " | ".join(PHASES) + " |",
        "|---|---:|---|" + "---:|" * len(PHASES),
    ]
    for r in rows:
        for side in ("baseline", "today"):
            got = [b["full"]["phases"] for b in r["builds"][side] if "phases" in b["full"]]
            if got:
                lines.append(
                    f"| {r['shape']} | {r['size']:,} | {side} | "
                    + " | ".join(
                        f"{statistics.median(p.get(k, 0) for p in got):.2f}" for k in PHASES
                    )
                    + " |"
                )
    cpu_rows = []
    for r in rows:
        for side in ("baseline", "today"):
            got = [b["full"] for b in r["builds"][side] if "phase_cpu" in b["full"]]
            if got:
                cpu_rows.append(
                    f"| {r['shape']} | {r['size']:,} | {side} | "
                    + " | ".join(
                        f"{statistics.median(g['phase_cpu'].get(k, [0, 0])[0] for g in got):.2f}"
                        f" / {statistics.median(g['phase_cpu'].get(k, [0, 0])[1] for g in got):.2f}"
                        for k in PHASES
                    )
                    + " |"
                )
    if cpu_rows:
        lines += [
            "",
            "CPU of the cold builds by phase, medians (s): the build's own thread / "
            "its whole process (with the store's threads; the workers' CPU is the rest of "
            "the CPU column). The check and derive phases run on the build's thread "
            "alone, after the load: on two quiet cores they are the part of the build "
            "that nothing overlaps.",
            "",
            "| records | size | code | " + " | ".join(PHASES) + " |",
            "|---|---:|---|" + "---|" * len(PHASES),
            *cpu_rows,
        ]
    return "\n".join(lines) + "\n"


# "compact" is 0 for a code without that phase (f77324d1) and a build under COMPACT_FROM
PHASES = ("scan", "convert", "check", "load", "derive", "compact", "finish")


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if not a or not b else f"{a / b:.2f}"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument(
        "--shipped",
        action="store_true",
        help="the shipped records, runs copied to each size (synth.replicate)",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="build the same records with this commit's code too, alternately",
    )
    parser.add_argument(
        "--baseline-dir",
        type=Path,
        metavar="DIR",
        help="where the baseline's environment is made and kept (default: "
        ".benchgraph/ of this checkout)",
    )
    parser.add_argument(
        "--shapes",
        nargs="+",
        choices=SHAPES,
        default=list(SHAPES),
        help="with --baseline: the shapes of records (default: all)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="with --baseline: builds of each code per shape and size",
    )
    parser.add_argument(
        "--records",
        choices=("baseline", "today"),
        default="baseline",
        help="with --baseline: whose data/ and fixtures the shipped-shaped and "
        "huge records come from (default: the baseline's, which the "
        "later code reads too)",
    )
    parser.add_argument(
        "--no-edits", action="store_true", help="with --baseline: the cold builds only"
    )
    parser.add_argument(
        "--report",
        type=Path,
        help="default: reports/build.md, reports/build-shipped.md, or with "
        "--baseline reports/build-baseline.md",
    )
    args = parser.parse_args()
    if args.baseline:
        import baseline

        base = baseline.prepare(args.baseline, args.baseline_dir or baseline.HOME)
        report_path = args.report or HERE / "reports" / "build-baseline.md"
        loads = [os.getloadavg()[0]]
        rows = compare(base, args.shapes, args.sizes, args.repeat, args.records, not args.no_edits)
        loads.append(os.getloadavg()[0])
        command = "python benchmarks/build_bench.py " + " ".join(sys.argv[1:])
        report_path.parent.mkdir(parents=True, exist_ok=True)
        text = baseline_report(base, rows, command, args.records, tuple(loads))
        report_path.write_text(text, encoding="utf-8")
        report_path.with_suffix(".json").write_text(
            json.dumps(rows, indent=1) + "\n", encoding="utf-8"
        )
        print(text)
        return
    report_path = args.report or Path(__file__).parent / "reports" / (
        "build-shipped.md" if args.shipped else "build.md"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            rows.append(measure(size, Path(tmp), args.shipped))
            print(report(rows, args.shipped), flush=True)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(report(rows, args.shipped))


if __name__ == "__main__":
    main()
