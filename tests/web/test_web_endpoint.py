"""The endpoint's one request reader and its 200's headers (web/endpoint.py): a request is
read as the SPARQL Protocol says, once, whichever layer answers it."""

from __future__ import annotations

import io
import urllib.parse
from urllib.parse import urlencode

import pytest
from werkzeug.test import EnvironBuilder

from benchgraph.web import endpoint
from benchgraph.web.endpoint import Operation, ProtocolError

FORM = "application/x-www-form-urlencoded"


def environ(method="GET", query=None, body=None, content_type=None) -> dict:
    return EnvironBuilder(
        path="/sparql",
        method=method,
        query_string=query,
        data=body,
        content_type=content_type,
    ).get_environ()


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            environ(query={"query": "ASK {}", "format": "csv", "named-graph-uri": "urn:n"}),
            Operation("query", "ASK {}", [], ["urn:n"], ("csv",)),
        ),
        (
            environ(
                "POST",
                {"format": "xml", "default-graph-uri": "urn:a"},
                urlencode({"query": "ASK {}", "default-graph-uri": "urn:b", "format": "json"}),
                FORM,
            ),
            Operation("query", "ASK {}", ["urn:a", "urn:b"], [], ("xml", "json")),
        ),
        (
            environ("POST", {"download": "1"}, "ASK {}", "application/sparql-query"),
            Operation("query", "ASK {}", [], [], (), download=True),
        ),
        (
            environ("POST", None, urlencode({"update": "CLEAR ALL"}), FORM),
            Operation("update", "CLEAR ALL", [], []),
        ),
        (environ(), None),  # the service description
    ],
)
def test_a_request_is_read_into_its_operation(env, expected):
    assert endpoint.operation(env) == expected


@pytest.mark.parametrize(
    ("env", "status", "says"),
    [
        (environ("POST", None, "ASK {}", "text/plain"), 415, "got text/plain"),
        (environ("POST", None, "ASK {}", "application/sparql-query; charset=latin1"), 415, "UTF-8"),
        (environ("POST", {"query": "ASK {}"}, "ASK {}", "application/sparql-query"), 400, "body"),
        (environ("POST", None, b"\xff", "application/sparql-query"), 400, "not UTF-8"),
        (environ("POST", None, "", FORM), 400, "no query parameter"),
        (environ(query=[("query", "ASK {}"), ("query", "ASK {}")]), 400, "exactly one"),
    ],
)
def test_a_request_the_protocol_refuses_says_why(env, status, says):
    with pytest.raises(ProtocolError) as raised:
        endpoint.operation(env)
    assert raised.value.status == status and says in str(raised.value)


def test_a_request_is_read_once_and_its_refusal_kept():
    """The fast path reads the request; Flask's view, answering it, gets what was read (or
    what reading raised) without reading the body again."""
    env = environ("POST", None, urlencode({"query": "ASK {}"}), FORM)
    first = endpoint.operation(env)
    env["wsgi.input"] = io.BytesIO(b"query=SELECT+*+{}")  # read again, this would differ
    assert endpoint.operation(env) is first
    refused = environ("POST", None, "ASK {}", "text/plain")
    with pytest.raises(ProtocolError) as once:
        endpoint.operation(refused)
    with pytest.raises(ProtocolError) as twice:
        endpoint.operation(refused)
    assert twice.value is once.value


def test_a_refused_form_post_is_parsed_once(app, monkeypatch):
    """A query refused by its worker is answered by Flask's view (the error's one shape),
    which must not parse the form body again: on a long body that parse was most of the
    time the refusal took."""
    marker = "needle-" * 2000
    unquoted = []
    real = urllib.parse.unquote

    def counted(text, *args, **kwargs):
        out = real(text, *args, **kwargs)
        if "needle-needle" in out:
            unquoted.append(len(out))
        return out

    monkeypatch.setattr(urllib.parse, "unquote", counted)
    response = app.test_client().post(
        "/sparql", data={"query": f"SELECT * WHERE {{ ?s  # {marker}\n"}
    )
    assert response.status_code == 400
    assert response.get_json()["title"] == "malformed query"
    assert len(unquoted) == 1


def test_a_200s_headers():
    header = {"content_type": "text/csv", "wait_s": 0.002, "slot_s": 0.001}
    headers = dict(endpoint.answer_headers(header, 0.0125, "abc", "csv"))
    assert headers == {
        "Content-Type": "text/csv",
        "Server-Timing": "query;dur=12.5, wait;dur=2.0, slot;dur=1.0",
        "Vary": "Accept",
        "ETag": 'W/"abc"',
        "Cache-Control": "no-cache",
        "Content-Disposition": 'attachment; filename="result.csv"',
    }
    assert [name for name, _ in endpoint.answer_headers(header, 0.0, None)] == [
        "Content-Type",
        "Server-Timing",
        "Vary",
    ]
