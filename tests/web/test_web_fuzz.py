"""Fuzzing the endpoint: random and mutated SPARQL (the saved queries of queries/*.rq with
characters inserted, deleted and replaced, deep nesting, odd Unicode, NUL bytes, huge
numbers), random protocol parameters, headers and encodings. Whatever comes in, the answer
is never a 500, never shows a traceback, and comes within the query time limit.

Short by default (a few hundred examples in all); set BENCHGRAPH_FUZZ_EXAMPLES to run long,
e.g. `BENCHGRAPH_FUZZ_EXAMPLES=20000 pytest tests/web/test_web_fuzz.py`: the count is for the
in-process test; the live server's test runs a tenth of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paths import ROOT
from web.web_support import LIVE_TIMEOUT

LONG = int(os.environ.get("BENCHGRAPH_FUZZ_EXAMPLES", "0"))
IN_PROCESS_EXAMPLES = LONG or 250
LIVE_EXAMPLES = max(LONG // 10, 40)
SAVED = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "queries").glob("*.rq"))]
TIME_LIMIT = 5.0  # the app fixture's QUERY_TIMEOUT
SLACK = 3.0  # seconds past the limit a refusal or a timeout answer may take


def fuzz(examples: int) -> settings:
    """Hypothesis settings of these tests: fixed examples in CI (derandomized), fresh ones in a
    long run; no deadline (a query worker may be replaced meanwhile)."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not LONG,
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


# --- SPARQL text ------------------------------------------------------------------------------
ODD = [
    "\x00",
    "\r",
    "\n",
    "\r\n",
    "\f",
    "\v",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ufffd",
    "\u200b",
    "\U0001f600",
    "\udc80",
    "\\",
    "\\u",
    "\\u0022",
    "\\U0010FFFF",
    "\\uD800",
    "\\u00110000",
    "#",
    '"',
    "'",
    '"""',
    "<",
    ">",
    "<<",
    ">>",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "?",
    "$",
    ":",
    "@",
    "^^",
    ".",
    ";",
    ",",
    "|",
    "*",
    "!",
    "%",
    "%00",
    "SERVICE",
    "SILENT",
    "LOAD",
    "INSERT",
    "DROP",
    "FROM",
    "FROM NAMED",
    "GRAPH",
    "VALUES",
    "LIMIT",
    "OFFSET",
    "99999999999999999999999999999",
    "1e999999",
    "-0",
    "1.",
    ".5",
    "0x1F",
    "NaN",
    "INF",
]
TOKENS = [
    "SELECT",
    "ASK",
    "CONSTRUCT",
    "DESCRIBE",
    "WHERE",
    "*",
    "?s",
    "?p",
    "?o",
    "a",
    "<http://example.org/x>",
    "bg:Accelerator",
    "rdfs:label",
    '"x"',
    "1",
    "{",
    "}",
    "(",
    ")",
    ".",
    ";",
    "FILTER",
    "OPTIONAL",
    "UNION",
    "MINUS",
    "BIND",
    "AS",
    "EXISTS",
    "NOT",
    "ORDER BY",
    "GROUP BY",
    "COUNT(*)",
    "LIMIT",
    "10",
    'REGEX(?o, "(a+)+$")',
    "SERVICE",
    "<http://127.0.0.1:9/>",
    "PREFIX",
    "ex:",
    "BASE",
    "<x>",
    "DISTINCT",
]


def nested(depth: int, open_: str, close: str) -> str:
    return "SELECT * { " + open_ * depth + "?s ?p ?o" + close * depth + " }"


@st.composite
def mutated(draw) -> str:
    """A saved query with a few characters inserted, deleted or replaced."""
    text = draw(st.sampled_from(SAVED))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "repeat"]))
        piece = draw(st.one_of(st.sampled_from(ODD), st.text(max_size=3)))
        if action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif action == "replace":
            text = text[:at] + piece + text[at + len(piece) :]
        else:
            text = text[:at] + piece * draw(st.integers(2, 400)) + text[at:]
    return text


sparql = st.one_of(
    mutated(),
    st.lists(st.sampled_from(TOKENS + ODD), max_size=30).map(" ".join),
    st.text(max_size=200),
    st.builds(
        nested,
        st.sampled_from([1, 50, 255, 256, 257, 1000, 20_000]),
        st.sampled_from(["{", "{ {", "[ ", "(", "<< ", "FILTER(", "{ SELECT * { "]),
        st.sampled_from(["}", "} }", " ]", ")", " >>", ")", " } }"]),
    ),
    st.sampled_from(SAVED),
)

# --- requests ---------------------------------------------------------------------------------
ACCEPT = [
    "",
    "*/*",
    "application/sparql-results+json",
    "text/csv;q=0.5, */*;q=0.1",
    "text/turtle",
    "application/rdf+xml",
    "text/html",
    "application/json;q=abc",
    "text/*;q=0",
    "\x00",
    "a/b/c",
    ";;;",
    "*/*;q=1;q=2",
    "application/sparql-results+xml, text/tab-separated-values",
    "x" * 2000,
]
CONTENT_TYPES = [
    "application/sparql-query",
    "application/sparql-query; charset=utf-8",
    "application/sparql-query; charset=latin-1",
    'application/sparql-query; charset="utf-8"',
    "application/sparql-query; charset=",
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=utf-16",
    "application/x-www-form-urlencoded; charset=nonsense",
    "multipart/form-data",
    "multipart/form-data; boundary=x",
    "application/sparql-update",
    "text/plain",
    "",
    ";",
    "application/sparql-query; charset=utf-8; charset=ascii",
]
PARAMS = [
    "query",
    "query",
    "query",
    "update",
    "default-graph-uri",
    "named-graph-uri",
    "format",
    "download",
    "x",
    "",
    "query[]",
]
FORMATS = [
    "json",
    "xml",
    "csv",
    "tsv",
    "turtle",
    "ntriples",
    "rdfxml",
    "jsonld",
    "html",
    "application/json",
    "text/turtle",
    "",
    "nonsense",
]
GRAPH_URIS = [
    "https://w3id.org/benchgraph/graph/x",
    "http://example.org/g",
    "",
    "not an iri",
    "<http://x>",
    "http://[::1",
    "\x00",
    "urn:x:\U0001f600",
]
BAD_BYTES = [
    b"\xff",
    b"\xc3\x28",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\x80",
    b"\x00",
    b"\xef\xbb\xbf",
]


def value_for(name: str, draw) -> str:
    if name in ("query", "query[]", "update"):
        return draw(sparql)
    if name == "format":
        return draw(st.sampled_from(FORMATS))
    if name.endswith("graph-uri"):
        return draw(st.sampled_from(GRAPH_URIS))
    return draw(st.text(max_size=20))


def encode(text: str, draw) -> bytes:
    """The text as UTF-8, sometimes with bad bytes put in."""
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from(BAD_BYTES)) + data[at:]
    return data


@st.composite
def requests(draw) -> dict:
    """A request to /sparql: method, query string (percent-encoded bytes), headers, body."""
    method = draw(st.sampled_from(["GET", "GET", "POST", "POST", "HEAD", "PUT"]))
    names = draw(st.lists(st.sampled_from(PARAMS), min_size=0, max_size=4))
    pairs = [(name, value_for(name, draw)) for name in names]
    headers = {}
    accept = draw(st.sampled_from([None, *ACCEPT]))
    if accept is not None:
        headers["Accept"] = accept
    body = b""
    if method in ("POST", "PUT"):
        content_type = draw(st.sampled_from(CONTENT_TYPES))
        if content_type:
            headers["Content-Type"] = content_type
        if content_type.startswith("application/x-www-form-urlencoded"):
            form = [
                (n, value_for(n, draw)) for n in draw(st.lists(st.sampled_from(PARAMS), max_size=3))
            ]
            body = b"&".join(
                quote(n).encode() + b"=" + quote(encode(v, draw)).encode() for n, v in form
            )
        else:
            body = encode(draw(sparql), draw)
        if not draw(st.booleans()):
            pairs = []  # a direct POST usually carries no query string
    raw_query = b"&".join(
        quote(n).encode() + b"=" + quote(encode(v, draw)).encode() for n, v in pairs
    )
    return {"method": method, "query_string": raw_query, "headers": headers, "body": body}


def assert_sound(status: int, body: bytes, elapsed: float) -> None:
    assert status != 500 and status < 600, body[:2000]
    assert b"Traceback" not in body, body[:2000]
    assert elapsed < TIME_LIMIT + SLACK, f"answered after {elapsed:.1f} s"


# --- in process (Flask's test client; the query workers are real processes) -----------------
@fuzz(IN_PROCESS_EXAMPLES)
@given(requests())
def test_the_endpoint_never_fails_whatever_comes_in(client, sent):
    start = time.perf_counter()
    response = client.open(
        "/sparql",
        method=sent["method"],
        query_string=sent["query_string"].decode("ascii"),
        headers=sent["headers"],
        data=sent["body"],
    )
    body = response.get_data()
    assert_sound(response.status_code, body, time.perf_counter() - start)
    if response.status_code >= 400 and response.is_json and body:  # errors have one shape
        assert response.get_json().get("title"), body[:500]


@fuzz(max(IN_PROCESS_EXAMPLES // 5, 50))
@given(
    st.one_of(
        st.binary(max_size=300),
        st.builds(lambda t: t.encode("utf-8", "replace"), st.text(max_size=100)),
    )
)
def test_other_paths_never_fail_whatever_comes_in(client, raw):
    """Random bytes as the path of the pages beside the endpoint (records, ontology, dumps)."""
    path = "/" + quote(raw, safe="/?=&")
    start = time.perf_counter()
    response = client.get(path)
    assert_sound(response.status_code, response.get_data(), time.perf_counter() - start)


# --- against the real server (gunicorn) ------------------------------------------------------
@pytest.mark.slow
@fuzz(LIVE_EXAMPLES)
@given(requests())
def test_the_live_endpoint_never_fails_whatever_comes_in(live_server, sent):
    path = "/sparql" + ("?" + sent["query_string"].decode() if sent["query_string"] else "")
    start = time.perf_counter()
    try:
        status, _headers, body = live_server.request(
            sent["method"],
            path,
            sent["body"] if sent["method"] in ("POST", "PUT") else None,
            sent["headers"],
            timeout=TIME_LIMIT + 30,
        )
    except (BrokenPipeError, ConnectionResetError):
        # A request over a limit (414, 413) is answered before its body is read, and the
        # connection closed: the client may fail to send the rest. The server must live on.
        assert live_server.request("GET", "/healthz")[0] == 200
        return
    assert status != 500 and b"Traceback" not in body, body[:2000]
    assert time.perf_counter() - start < LIVE_TIMEOUT + SLACK


def test_the_saved_queries_are_the_seeds():
    """The mutations start from real queries: the shipped queries/ folder."""
    assert len(SAVED) >= 5 and all("SELECT" in q or "ASK" in q or "CONSTRUCT" in q for q in SAVED)
    assert Path(ROOT / "queries").is_dir()
