"""One error family: every error the web app answers is a BenchgraphError carrying its own
status, title and code, mapped in one place (BenchgraphError.answer) and written in the one
error shape (web/errors.py), whether Flask's view, the fast path or a query worker meets it.

The family is found by walking BenchgraphError's subclasses over every module of benchgraph:
an error added later fails `test_every_error_of_the_family_is_named_here` until it is given
an example below, or named as one the app never answers."""

from __future__ import annotations

import importlib
import json
import pkgutil

import pytest

import benchgraph
from benchgraph.errors import Answered, BenchgraphError, QueryRefused
from benchgraph.query.params import ParameterError
from benchgraph.query.syntax import QuerySyntaxError
from benchgraph.query.text import QueryTextError
from benchgraph.store.http import (
    QueryNotSent,
    StoreError,
    StoreTimeout,
    StoreTooLarge,
    StoreUnavailable,
)
from benchgraph.web.endpoint import ProtocolError, ReadOnly
from benchgraph.web.errors import error_for, reason
from benchgraph.web.negotiation import SOLUTIONS, NotAcceptable
from benchgraph.web.poolerrors import (
    ClientGone,
    PoolBusy,
    PoolError,
    QueryOutOfMemory,
    QueryTimeout,
    WorkerDied,
)
from benchgraph.web.queryworker import BadGraphIRI, ServiceFailed, TooLarge
from benchgraph.web.sparql import DescriptionUnavailable
from benchgraph.web.ui import BadParameter

# Each error the app answers: an example, and the (status, title, code) it is answered with.
ANSWERED: dict[type, tuple[BenchgraphError, tuple[int, str, str | None]]] = {
    PoolError: (PoolError("x"), (500, "query failed", "query-failed")),
    QueryTimeout: (QueryTimeout("x"), (503, "query timed out", "timeout")),
    QueryOutOfMemory: (QueryOutOfMemory("x"), (507, "query used too much memory", "memory")),
    ClientGone: (ClientGone("x"), (499, "client gone", "client-gone")),
    PoolBusy: (PoolBusy("x"), (503, "server busy", "busy")),
    WorkerDied: (WorkerDied("x"), (500, "query worker died", "worker-died")),
    TooLarge: (TooLarge(10), (422, "result too large", "too-large")),
    BadGraphIRI: (BadGraphIRI("x"), (400, "bad graph IRI", None)),
    ServiceFailed: (ServiceFailed("x"), (502, "federated query failed", "service-failed")),
    StoreError: (StoreError(400, "m"), (502, "store error", None)),
    StoreTimeout: (StoreTimeout("m"), (503, "query timed out", "timeout")),
    QueryNotSent: (QueryNotSent("m"), (403, "graph refused", "graph-refused")),
    StoreTooLarge: (StoreTooLarge("m"), (422, "result too large", "too-large")),
    StoreUnavailable: (StoreUnavailable("m"), (503, "store unavailable", None)),
    ProtocolError: (
        ProtocolError(415, "unsupported media type", "d"),
        (415, "unsupported media type", None),
    ),
    ReadOnly: (ReadOnly(), (403, "read-only endpoint", "update")),
    NotAcceptable: (NotAcceptable(SOLUTIONS, "image/png"), (406, "not acceptable", None)),
    DescriptionUnavailable: (
        DescriptionUnavailable("x"),
        (503, "service description unavailable", None),
    ),
    BadParameter: (
        BadParameter(ParameterError("run", "x", "is no run")),
        (400, "bad parameter", None),
    ),
    QueryRefused: (
        QueryRefused("service", 403, "service refused", "d"),
        (403, "service refused", "service"),
    ),
    QuerySyntaxError: (QuerySyntaxError("m", 1, 2), (400, "malformed query", "malformed")),
    QueryTextError: (
        QueryTextError("m", 1, 2, "too deep"),
        (400, "query too deep", "query-too-deep"),
    ),
    Answered: (
        Answered({"status": 400, "title": "malformed query", "detail": "d", "code": "malformed"}),
        (400, "malformed query", "malformed"),
    ),
}
# Errors of the family the app never answers as themselves, and why.
NOT_ANSWERED = {
    "benchgraph.errors.CannotRun": "the command line's: it says the command cannot run",
    "benchgraph.errors.RecordsInvalid": "the build's: the records have problems",
    "benchgraph.records.files.RecordFileError": "the build's: a record file not read",
    "benchgraph.validation.shacl.ShapesError": "the build's: shapes it cannot evaluate",
    "benchgraph.store.load.StoreRefused": "the build's: the store refused its load",
    "benchgraph.importers.mlperf_power.PowerLogError": "an import's",
    "benchgraph.links.accept.AcceptError": "the `link` command's",
    "benchgraph.links.sssom.MappingFileError": "the `link` command's",
    "benchgraph.query.saved.SavedQueryError": "logged when the saved queries are read",
    "benchgraph.query.params.ParameterError": "answered on the query page as BadParameter",
    "benchgraph.serving.snapshots.SnapshotGone": "the server's own: a newer snapshot is served",
    "benchgraph.web.publicbase.BadPublicBase": "the server's start-up: its settings are wrong",
}


def family() -> set[type]:
    """Every subclass of BenchgraphError that benchgraph defines, every module imported."""
    for module in pkgutil.walk_packages(benchgraph.__path__, "benchgraph."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found, todo = set(), [BenchgraphError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found and sub.__module__.startswith("benchgraph."):
                found.add(sub)
                todo.append(sub)
    return found


def name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_error_of_the_family_is_named_here():
    walked = {name(cls) for cls in family()}
    named = {name(cls) for cls in ANSWERED} | set(NOT_ANSWERED)
    assert walked - named == set(), "give each an example in ANSWERED, or name it in NOT_ANSWERED"
    assert named - walked == set()


@pytest.mark.parametrize("dotted", sorted(NOT_ANSWERED))
def test_an_error_the_app_never_answers_has_no_answer_of_its_own(dotted):
    (cls,) = [c for c in family() if name(c) == dotted]
    assert cls.status is None  # given a status, it is answered: an example belongs above


@pytest.mark.parametrize("cls", list(ANSWERED), ids=[c.__name__ for c in ANSWERED])
def test_each_error_carries_its_answer_and_is_written_in_the_one_shape(app, cls):
    exc, (status, title, code) = ANSWERED[cls]
    assert type(exc) is cls
    assert (exc.status, exc.title, exc.code) == (status, title, code)
    metrics = app.extensions["benchgraph"].metrics
    before = metrics.refusals[reason(status, title, code), status]
    with app.test_request_context("/sparql", headers={"Accept": "application/json"}):
        response = error_for(exc)
    body = response.get_json()
    assert response.status_code == status
    assert response.headers["Content-Type"] == "application/json"
    assert (body["ok"], body["status"], body["title"]) == (False, status, title)
    assert body["error"] == exc.detail and body["error"]
    assert set(body) <= {"ok", "status", "title", "error", "position", "parameter"}
    assert metrics.refusals[reason(status, title, code), status] == before + 1
    if cls is PoolBusy:
        assert response.headers["Retry-After"] == "5"


@pytest.mark.parametrize("cls", list(ANSWERED), ids=[c.__name__ for c in ANSWERED])
def test_an_error_a_query_worker_answers_is_written_as_the_server_writes_it(app, cls):
    """A worker sends an error's answer as JSON (queryworker._refusal); the server writes it
    back in the same shape, with the same status and the same reason on /metrics."""
    exc = ANSWERED[cls][0]
    sent = Answered(json.loads(json.dumps(exc.answer())))
    answers = []
    for error in (exc, sent):
        with app.test_request_context("/sparql", headers={"Accept": "application/json"}):
            response = error_for(error)
        answers.append(
            (response.status_code, response.get_json(), response.headers.get("Retry-After"))
        )
    assert answers[0] == answers[1]
    assert (sent.status, sent.title, sent.code) == (exc.status, exc.title, exc.code)


def test_a_query_worker_answers_with_the_answer_of_the_family():
    from benchgraph.web.queryworker import _refusal

    exc = QuerySyntaxError("unexpected end", 3, 4)
    answer = {
        "status": 400,
        "title": "malformed query",
        "detail": "line 3, column 4: unexpected end",
        "code": "malformed",
        "position": {"line": 3, "column": 4},
    }
    assert _refusal(exc) == {"status": 400, "refusal": answer}
