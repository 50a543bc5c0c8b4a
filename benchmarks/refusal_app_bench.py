"""How long an over-budget query takes to be refused through the app, as a client's form POST
(Flask's test client: the form encoded, read, routed by the fast path, sent to a query worker
and answered 400), on the test records: the texts of refusal_bench.py, each asked twice over
and the second round's median of 5 kept (the first round warms the worker).

    python benchmarks/refusal_app_bench.py

Prints one Markdown row per text (refusal_bench.py measures the checks alone).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from refusal_bench import texts  # noqa: E402

from benchgraph.pipeline.steps import build  # noqa: E402
from benchgraph.serving.prepare import prepare  # noqa: E402
from benchgraph.web import create_app  # noqa: E402
from web.web_support import RECORDS  # noqa: E402


def main() -> int:
    os.environ.setdefault("BENCHGRAPH_CACHE", tempfile.mkdtemp(prefix="benchgraph-refusal-"))
    served = prepare(build(RECORDS, skip_invalid=True), [])
    app = create_app(served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1})
    client = app.test_client()
    print("| text | status | title | median ms of 5 |\n|---|---|---|---|")
    try:
        for round_ in (1, 2):
            for name, text in texts().items():
                took = []
                for _ in range(5):
                    start = time.perf_counter()
                    r = client.post("/sparql", data={"query": text})
                    took.append(time.perf_counter() - start)
                if round_ == 2:
                    median = statistics.median(took) * 1000
                    print(f"| {name} | {r.status_code} | {r.get_json()['title']} | {median:.1f} |")
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
