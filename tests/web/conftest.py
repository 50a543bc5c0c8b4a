"""Fixtures of the web tests: an app on the test records, its client, and a live server.

`app`/`client` run the Flask app in this process (its query workers are real processes).
`live_server` starts `benchgraph serve` (gunicorn) on a free port, as a user would.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchgraph.pipeline.steps import build
from benchgraph.serving.prepare import Served, prepare
from benchgraph.web import create_app
from web.browser_support import browser  # noqa: F401 - the fixture, for every browser test
from web.web_support import EXAMPLES, RECORDS, W3C, LiveServer, start_server, w3c_graph_data


@pytest.fixture(scope="session")
def web_cache(tmp_path_factory) -> Path:
    """A build cache shared by this session's builds of the test records."""
    return tmp_path_factory.mktemp("web-cache")


@pytest.fixture(scope="session")
def served(web_cache) -> Iterator[Served]:
    """The test records built (leaving out the invalid one) and prepared for serving."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BENCHGRAPH_CACHE", str(web_cache))
        result = build(RECORDS, skip_invalid=True)
    prepared = prepare(result, [])
    yield prepared
    prepared.cleanup()


@pytest.fixture(scope="session")
def app(served):
    """The app on the test records: 2 query workers, a 5 s limit, a 200 kB result cap."""
    application = create_app(
        served.app_config()
        | {
            "TESTING": True,
            "QUERY_WORKERS": 2,
            "QUERY_TIMEOUT": 5.0,
            "MAX_RESULT_BYTES": 200_000,
            "QUERIES_DIR": str(EXAMPLES),
        }
    )
    yield application
    application.extensions["benchgraph"].close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory, web_cache) -> Iterator[LiveServer]:
    """`benchgraph serve` with the W3C protocol tests' graphs loaded by --with (if ../shared
    is here), a 3 s query limit and a 1 MB result cap."""
    extra = []
    if W3C.is_dir():
        for path, name in w3c_graph_data():
            extra += ["--with", f"{path}={name}"]
    server = start_server(
        tmp_path_factory.mktemp("live"), web_cache, "--max-result-mb", "1", *extra
    )
    yield server
    server.stop()
