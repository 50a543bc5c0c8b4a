"""Where store servers give out on a query's size: the number of OPTIONALs, UNIONs, triple
patterns, FILTERs, ... at which an Oxigraph server or Virtuoso dies (or refuses the query), to
set benchgraph's parts budget (BENCHGRAPH_QUERY_MAX_PARTS) well below it.

    python benchmarks/store_algebra_bench.py [--engines oxigraph virtuoso] [--kinds ...]
                                             [--timeout 60] [--report FILE]

For each engine and each kind of query part, a query of n such parts is sent to a fresh server
(the tests' servers: tests/stores/servers.py, on free ports of 127.0.0.1), n searched by
bisection between 1 and the most benchgraph's text limits let through (256 levels, 50,000
operators, a 4 MiB body): the first n the server does not survive, or where it survives
all, the first it refuses. The parts are cheap to evaluate (empty groups, constants), so that
what is measured is the server's stack, not its optimizer; each answer's time is given too,
and the parts of each query as benchgraph counts them (query/gate.py), to compare with
the budget. A server that dies is started again; one
still busy at the time limit is stopped and started again (its query would go on).
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_BODY = 4 * 1024 * 1024  # serve's --max-body-mb default: no longer query gets through
sys.path.insert(0, str(ROOT / "tests"))
from stores import servers  # noqa: E402 - the tests' servers, as the store tests start them

# One query of n parts of a kind: each a part Oxigraph's algebra nests one level deeper for.
KINDS: dict[str, Callable[[int], str]] = {
    "OPTIONAL {}": lambda n: "SELECT * WHERE { " + "OPTIONAL { } " * n + "}",
    "OPTIONAL with a pattern": lambda n: (
        "SELECT * WHERE { "
        + "".join(f"OPTIONAL {{ <urn:s> <urn:p> ?o{i} }} " for i in range(n))
        + "}"
    ),
    "UNION": lambda n: "SELECT * WHERE { " + " UNION ".join(["{ }"] * n) + " }",
    "MINUS {}": lambda n: "SELECT * WHERE { " + "MINUS { } " * n + "}",
    "triple patterns": lambda n: (
        "SELECT * WHERE { " + " ".join(f"<urn:s{i}> <urn:p> ?o ." for i in range(n)) + " }"
    ),
    "FILTER": lambda n: "SELECT * WHERE { " + "FILTER(true) " * n + "}",
    "BIND": lambda n: "SELECT * WHERE { " + "".join(f"BIND({i} AS ?b{i}) " for i in range(n)) + "}",
    "GRAPH": lambda n: (
        "SELECT * WHERE { " + "".join(f"GRAPH <urn:g{i}> {{ }} " for i in range(n)) + "}"
    ),
    "subqueries": lambda n: "SELECT * WHERE { " + "{ SELECT * WHERE { } } " * n + "}",
    "FILTER EXISTS": lambda n: "SELECT * WHERE { " + "FILTER EXISTS { } " * n + "}",
    "|| chain": lambda n: "SELECT * WHERE { FILTER(" + " || ".join(["false"] * n) + ") }",
    "&& chain": lambda n: "SELECT * WHERE { FILTER(" + " && ".join(["true"] * n) + ") }",
    "+ chain": lambda n: "SELECT * WHERE { BIND(" + " + ".join(["1"] * n) + " AS ?x) }",
    "! chain": lambda n: "SELECT * WHERE { FILTER(" + "!" * n + "true) }",
    "unary - chain": lambda n: "SELECT * WHERE { BIND(" + "- " * n + "1 AS ?x) }",
    "IN list": lambda n: (
        "SELECT * WHERE { FILTER(1 IN (" + ", ".join(str(i) for i in range(n)) + ")) }"
    ),
    "function arguments": lambda n: (
        "SELECT * WHERE { BIND(CONCAT(" + ", ".join(['"a"'] * n) + ") AS ?x) }"
    ),
    "path sequence": lambda n: "SELECT * WHERE { <urn:s> " + "/".join(["<urn:p>"] * n) + " ?o }",
    "path alternative": lambda n: (
        "SELECT * WHERE { <urn:s> " + "|".join(f"<urn:p{i}>" for i in range(n)) + " ?o }"
    ),
    "objects (,)": lambda n: (
        "SELECT * WHERE { <urn:s> <urn:p> " + ", ".join(f"<urn:o{i}>" for i in range(n)) + " }"
    ),
    "collection": lambda n: (
        "SELECT * WHERE { <urn:s> <urn:p> (" + " ".join(str(i) for i in range(n)) + ") }"
    ),
    "VALUES rows": lambda n: (
        "SELECT * WHERE { VALUES ?x { " + " ".join(str(i) for i in range(n)) + " } }"
    ),
}


def text_cap(build: Callable[[int], str]) -> int:
    """The most parts benchgraph's text limits (depth, operators, a 4 MiB body) let
    through."""
    from benchgraph.query.text import QueryTextError, check_text

    def passes(n: int) -> bool:
        text = build(n)
        if len(text.encode()) > MAX_BODY:
            return False
        try:
            check_text(text)
        except QueryTextError:
            return False
        return True

    lo, hi = 1, 1
    while passes(hi * 2) and hi < 10**6:
        hi *= 2
    hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if passes(mid) else (lo, mid)
    return lo


def counted(text: str) -> int | str:
    """The query's parts as benchgraph counts them ("-": not in this tree)."""
    from dataclasses import fields

    from benchgraph.query.inspect import QueryInfo, inspect_query

    if "shape" not in {f.name for f in fields(QueryInfo)}:
        return "-"
    if len(text) > 300_000:  # rdflib would take minutes: far past any budget anyway
        return "not counted"
    try:
        return inspect_query(text).shape.size
    except Exception as exc:  # noqa: BLE001 - a query rdflib refuses: said so in the table
        return f"rdflib refuses it ({type(exc).__name__})"


class Engine:
    """A store server of one kind, started afresh when it dies or is left busy."""

    def __init__(self, name: str, root: Path, timeout: float):
        self.name, self.root, self.timeout = name, root, timeout
        self.server: servers.Server | None = None
        self.starts = 0

    def ensure(self) -> servers.Server:
        if self.server is None or self.server.proc.poll() is not None:
            self.starts += 1
            start = {"oxigraph": servers.start_oxigraph, "virtuoso": servers.start_virtuoso}[
                self.name
            ]
            self.server = start(self.root / f"{self.name}-{self.starts}")
        return self.server

    def restart(self) -> None:
        if self.server is not None:
            self.server.proc.kill()
            self.server.proc.wait()
            self.server = None

    def send(self, text: str) -> tuple[str, float, str]:
        """(outcome, seconds, detail): outcome "ok", "refused" (an error answer, the server
        alive), "slow" (no answer within the timeout) or "died"."""
        server = self.ensure()
        params = {"query": text}
        if self.name == "virtuoso":
            params["timeout"] = str(int(self.timeout * 1000))
        data = urllib.parse.urlencode(params).encode()
        request = urllib.request.Request(
            server.query, data=data, headers={"Accept": "application/sparql-results+json"}
        )
        start = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as r:
                r.read()
                outcome, detail = "ok", str(r.status)
        except urllib.error.HTTPError as exc:
            outcome, detail = "refused", f"{exc.code} {first_line(exc.read())}"
        except TimeoutError:
            outcome, detail = "slow", f"no answer in {self.timeout:g} s"
        except OSError as exc:  # the connection dropped: the server may be going down
            outcome, detail = "dropped", type(exc).__name__
        seconds = time.monotonic() - start
        if outcome == "dropped":
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and server.proc.poll() is None:
                time.sleep(0.1)
        if server.proc.poll() is not None:
            log = server.log.read_text(errors="replace")
            why = (
                "stack overflow"
                if "overflowed its stack" in log
                else f"exit {server.proc.returncode}"
            )
            self.server = None
            return "died", seconds, why
        if outcome == "slow":
            self.restart()  # it would go on computing
        return outcome, seconds, detail

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


def first_line(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip().splitlines()
    return (text[0] if text else "")[:90]


def search(engine: Engine, build: Callable[[int], str], cap: int) -> list[tuple]:
    """Probes (n, outcome, seconds, detail): the first n the server does not survive, by
    doubling from 100 then bisecting to 2 %; where it survives `cap` without answering, the
    first n it refuses (or is slow on) instead."""
    probes: list[tuple] = []

    def probe(n: int) -> str:
        outcome, seconds, detail = engine.send(build(n))
        probes.append((n, outcome, seconds, detail))
        print(f"  {engine.name} n={n}: {outcome} in {seconds:.2f} s {detail}", flush=True)
        return outcome

    def first(lo: int, hi: int, bad: Callable[[str], bool]) -> None:
        while hi - lo > max(1, hi // 50):
            mid = (lo + hi) // 2
            if bad(probe(mid)):
                hi = mid
            else:
                lo = mid

    top = probe(cap)
    if top == "ok":
        return probes
    if top != "died":
        first(0, cap, lambda outcome: outcome != "ok")
        return probes
    lo, n = 0, 100
    while n < cap and probe(n) != "died":
        lo, n = n, n * 2
    first(lo, min(n, cap), lambda outcome: outcome == "died")
    return probes


def summary(probes: list[tuple]) -> tuple:
    """(dies at, the largest n probed below it and its probe, refuses from)."""
    died = min((n for n, outcome, _s, _d in probes if outcome == "died"), default=None)
    below = [p for p in probes if p[1] != "died" and (died is None or p[0] < died)]
    refused = min(
        (n for n, outcome, _s, _d in probes if outcome in ("refused", "slow")), default=None
    )
    return died, max(below, default=None), refused


def at_most(build: Callable[[int], str], parts: int, cap: int) -> int:
    """The most n whose query has no more than `parts` parts (benchgraph's count)."""
    lo, hi = 0, min(cap, parts) + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        size = counted(build(mid))
        lo, hi = (mid, hi) if isinstance(size, int) and size <= parts else (lo, mid)
    return lo


def survival(engine: Engine, kinds: list[str], parts: int, repeat: int) -> list[str]:
    """Each kind's largest query within `parts`, sent `repeat` times, each to a server
    started afresh: where the Oxigraph server dies varies from one process to the next
    (BIND: 800 in one run, 2,600 in another), so one probe of a size says little."""
    lines = [
        "| engine | part | n (parts) | answers | died | slowest s |",
        "|---|---|---:|---|---:|---:|",
    ]
    for kind in kinds:
        build = KINDS[kind]
        n = at_most(build, parts, text_cap(build))
        if n == 0:
            continue
        outcomes, slowest = [], 0.0
        for _ in range(repeat):
            engine.restart()
            outcome, seconds, _detail = engine.send(build(n))
            outcomes.append(outcome)
            slowest = max(slowest, seconds)
        counts = ", ".join(f"{o} {outcomes.count(o)}" for o in sorted(set(outcomes)))
        line = (
            f"| {engine.name} | {kind} | {n:,} ({counted(build(n))}) | {counts} | "
            f"{outcomes.count('died')} | {slowest:.1f} |"
        )
        print(line, flush=True)
        lines.append(line)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", nargs="+", default=["oxigraph", "virtuoso"])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds one query may take before the server is restarted",
    )
    parser.add_argument("--report", type=Path)
    parser.add_argument(
        "--survive",
        type=int,
        metavar="PARTS",
        help="instead: send each kind's largest query within PARTS parts "
        "--repeat times, each to a fresh server, and count deaths",
    )
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    if args.survive:
        lines = []
        with tempfile.TemporaryDirectory(prefix="store-algebra-") as tmp:
            for name in args.engines:
                engine = Engine(name, Path(tmp), args.timeout)
                try:
                    lines += survival(engine, args.kinds, args.survive, args.repeat)[
                        (2 if lines else 0) :
                    ]
                finally:
                    engine.stop()
        table = "\n".join(lines)
        print(table)
        if args.report:
            args.report.write_text(table + "\n", encoding="utf-8")
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="store-algebra-") as tmp:
        for name in args.engines:
            engine = Engine(name, Path(tmp), args.timeout)
            try:
                for kind in args.kinds:
                    build = KINDS[kind]
                    cap = text_cap(build)
                    print(f"{name}: {kind} (text limits let {cap:,} through)", flush=True)
                    probes = search(engine, build, cap)
                    died, best, refused = summary(probes)
                    why = next((d for n, o, _s, d in probes if o == "died" and n == died), "")
                    rows.append((name, kind, cap, died, best, refused, why, build))
            finally:
                engine.stop()
    lines = [
        "| engine | part | text limits let through | dies at (its parts) | largest that "
        "lives: answer, s (its parts) | refuses or slow from | how it dies |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for name, kind, cap, died, best, refused, why, build in rows:
        died_text = f"{died:,} ({counted(build(died))})" if died else "never"
        best_text = (
            f"{best[0]:,}: {best[1]} {best[3][:60]}, {best[2]:.1f} s ({counted(build(best[0]))})"
            if best
            else "-"
        )
        lines.append(
            f"| {name} | {kind} | {cap:,} | {died_text} | {best_text} | "
            f"{f'{refused:,}' if refused else '-'} | {why} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.report:
        head = (
            f"# Store servers against a query's size\n\nMachine: {platform.machine()}, "
            f"Python {platform.python_version()}. Command: `python "
            f"benchmarks/store_algebra_bench.py --report {args.report}`.\n\n"
        )
        args.report.write_text(head + table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
