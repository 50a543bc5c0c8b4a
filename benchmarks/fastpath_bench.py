"""The SPARQL endpoint's own cost per request, below the query: the app's WSGI stack (size
limits, the fast path, Flask) called in this process with the query pool replaced by a stub
that answers at once, so what is timed is reading the request, routing it, writing the
answer or the refusal and the headers every response gets, with no worker hop and no query.

    python benchmarks/fastpath_bench.py [--baseline REV] [--rounds 5] [--calls 4000]

Cases: a point lookup's 200 (form POST, SPARQL JSON), the same by GET (its ETag and Date),
and a malformed query's 400 (the worker's refusal, in the one error shape). With --baseline
REV the same is timed for that commit's code (benchmarks/baseline.py), in processes that
alternate with today's; the machine is shared, so the ratio of the two is what counts.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "web" / "data" / "records"  # today's test records, for both codes
POINT = "SELECT ?p ?o WHERE { <https://w3id.org/benchgraph/id/accelerators/x> ?p ?o }"
MALFORMED = "SELECT * WHERE { ?s"
BODY = b'{"head":{"vars":["p","o"]},"results":{"bindings":[]}}'
JSON = "application/sparql-results+json"


def cases() -> dict[str, tuple[str, str, bytes]]:
    """name -> (method, query string, form body)."""
    return {
        "200, form POST": ("POST", "", urlencode({"query": POINT}).encode()),
        "200, GET": ("GET", urlencode({"query": POINT}), b""),
        "400 malformed, form POST": ("POST", "", urlencode({"query": MALFORMED}).encode()),
    }


def child(calls: int) -> dict[str, float]:
    """Microseconds per request of each case, for the benchgraph this interpreter imports."""
    from werkzeug.test import EnvironBuilder

    import benchgraph.errors
    from benchgraph.pipeline.steps import build
    from benchgraph.serving.prepare import prepare
    from benchgraph.web import create_app

    os.environ["BENCHGRAPH_CACHE"] = tempfile.mkdtemp(prefix="fastpath-bench-")
    served = prepare(build(RECORDS, skip_invalid=True), [])
    app = create_app(served.app_config() | {"QUERY_WORKERS": 1, "DUMPS_AHEAD": False})
    answer = {
        "title": "malformed query",
        "detail": "line 1: the query ends early",
        "code": "malformed",
    }
    # the worker's refusal as each commit's server reads it
    if hasattr(benchgraph.errors, "Answered"):
        refusal = {"status": 400, "refusal": {"status": 400, **answer}}
    else:
        refusal = {
            "status": 400,
            "error": answer["title"],
            "detail": answer["detail"],
            "code": "malformed",
        }

    def stub(job, *args):
        if job["query"] == MALFORMED:
            return dict(refusal), b""
        return {"status": 200, "content_type": JSON, "form": "SELECT", "format": "json"}, BODY

    app.extensions["benchgraph"].current.pool.run = stub
    out = {}
    try:
        for name, (method, query, body) in cases().items():
            template = EnvironBuilder(
                path="/sparql",
                method=method,
                query_string=query,
                data=body or None,
                content_type="application/x-www-form-urlencoded" if body else None,
                headers={"Accept": JSON, "Host": "localhost"},
            ).get_environ()

            statuses = set()

            def call(
                template: dict = template, body: bytes = body, statuses: set = statuses
            ) -> None:
                environ = dict(template, **{"wsgi.input": io.BytesIO(body)})
                b"".join(app.wsgi_app(environ, lambda status, *_: statuses.add(status[:3])))

            for _ in range(200):
                call()  # warm
            batches = []
            for _ in range(10):
                start = time.perf_counter()
                for _ in range(calls // 10):
                    call()
                batches.append((time.perf_counter() - start) / (calls // 10) * 1e6)
            want = "400" if "400" in name else "200"
            assert statuses == {want}, (name, statuses)
            out[name] = statistics.median(batches)
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="REV", help="time this commit's code too")
    parser.add_argument("--rounds", type=int, default=5, help="processes of each code")
    parser.add_argument("--calls", type=int, default=4000, help="requests per case a process")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.calls)))
        return 0
    pythons = {"today": sys.executable}
    if args.baseline:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import baseline

        pythons["base"] = str(baseline.prepare(args.baseline).python)
    times: dict[str, dict[str, list[float]]] = {who: {} for who in pythons}
    for _ in range(args.rounds):
        for who, python in pythons.items():
            done = subprocess.run(
                [python, __file__, "--child", "--calls", str(args.calls)],
                capture_output=True,
                text=True,
                check=True,
            )
            for name, us in json.loads(done.stdout.splitlines()[-1]).items():
                times[who].setdefault(name, []).append(us)
    load = os.getloadavg()[0]
    print(
        f"`python benchmarks/fastpath_bench.py {' '.join(argv or sys.argv[1:])}`, load {load:.1f}"
    )
    print()
    head = "| case | today µs |" + (" base µs | x base |" if args.baseline else "")
    print(head)
    print("|---|---:|" + ("---:|---:|" if args.baseline else ""))
    for name in cases():
        today = statistics.median(times["today"][name])
        row = f"| {name} | {today:.0f} |"
        if args.baseline:
            base = statistics.median(times["base"][name])
            row += f" {base:.0f} | {today / base:.2f} |"
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
