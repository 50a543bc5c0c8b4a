"""One error family: every error the web app answers is a BenchgraphError carrying its own
status, title and code, and web/errors.error_for turns any of them into the one error shape."""

from __future__ import annotations

import pytest

from benchgraph.errors import BenchgraphError
from benchgraph.store.http import QueryNotSent, StoreError, StoreTimeout, StoreUnavailable
from benchgraph.web.errors import error_for
from benchgraph.web.querypool import PoolBusy, QueryTimeout
from benchgraph.web.queryworker import TooLarge
from benchgraph.web.sparql import ProtocolError

CASES = [
    (PoolBusy("x"), (503, "server busy", "busy")),
    (QueryTimeout("x"), (503, "query timed out", "timeout")),
    (TooLarge(10), (422, "result too large", "too-large")),
    (StoreError(400, "m"), (502, "store error", None)),
    (StoreTimeout("m"), (503, "query timed out", "timeout")),
    (QueryNotSent("m"), (403, "graph refused", "graph-refused")),
    (StoreUnavailable("m"), (503, "store unavailable", None)),
    (ProtocolError(415, "unsupported media type", "d"), (415, "unsupported media type", None)),
]


@pytest.mark.parametrize(("exc", "answer"), CASES, ids=[type(e).__name__ for e, _ in CASES])
def test_each_error_carries_its_answer_and_is_written_in_the_one_shape(app, exc, answer):
    assert isinstance(exc, BenchgraphError)
    assert (exc.status, exc.title, exc.code) == answer
    with app.test_request_context("/sparql"):
        response = error_for(exc)
    body = response.get_json()
    assert response.status_code == answer[0]
    assert (body["status"], body["title"], body["ok"]) == (answer[0], answer[1], False)
    assert body["error"]  # the code labels the refusal on /metrics, not the body
