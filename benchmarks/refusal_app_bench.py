"""How long an over-budget query takes to be refused through the app, as a client's form POST
(Flask's test client: the form read, routed by the fast path, sent to a query worker and
answered 400), on the test records: the texts of refusal_bench.py, each asked twice over and
the second round's median of N kept (the first round warms the worker). Each body is encoded
once, before the clock starts: a client's own encoding (0.1 s for the 589 KB VALUES text) is
not the server's time.

    python benchmarks/refusal_app_bench.py [--runs N]

Prints one Markdown row per text (refusal_bench.py measures the checks alone).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from refusal_bench import texts  # noqa: E402

from benchgraph.pipeline.steps import build  # noqa: E402
from benchgraph.serving.prepare import prepare  # noqa: E402
from benchgraph.web import create_app  # noqa: E402
from web.web_support import RECORDS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    os.environ.setdefault("BENCHGRAPH_CACHE", tempfile.mkdtemp(prefix="benchgraph-refusal-"))
    served = prepare(build(RECORDS, skip_invalid=True), [])
    app = create_app(served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    client = app.test_client()
    print(f"| text | status | title | median ms of {runs} | worst ms |\n|---|---|---|---|---|")
    form = "application/x-www-form-urlencoded"
    try:
        for round_ in (1, 2):
            for name, text in texts().items():
                took, body = [], urlencode({"query": text}).encode()
                for _ in range(runs):
                    start = time.perf_counter()
                    r = client.post("/sparql", data=body, content_type=form)
                    took.append(time.perf_counter() - start)
                if round_ == 2:
                    median, worst = statistics.median(took) * 1000, max(took) * 1000
                    title = r.get_json()["title"]
                    print(f"| {name} | {r.status_code} | {title} | {median:.1f} | {worst:.1f} |")
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
