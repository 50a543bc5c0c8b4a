"""A query's text is read once for its checks: one pass (query/lexicon.py) feeds the depth and
operator limits, the refusals of what the two parsers read apart, the census, the SERVICE and
FROM look, the pragma and the form, on the embedded store and through a store server's gate,
from the worker's answer() to the store; an over-budget text is refused on its first few
hundred parts, not read to its end."""

from __future__ import annotations

import gc
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyoxigraph as ox
import pytest

from benchgraph.query import inspect, lexicon, stack
from benchgraph.query.inspect import check_store_query, needs_parse
from benchgraph.query.text import lexed
from benchgraph.store.remote import RemoteStore
from benchgraph.web.queryworker import Settings, answer

JSON = "application/sparql-results+json"
SELECT_ANSWER = b'{"head":{"vars":["s"]},"results":{"bindings":[]}}'


@pytest.fixture
def passes(monkeypatch):
    """The texts each pass read, in order (a fresh cache: nothing read before the test)."""
    lexicon.clear_cache()
    inspect._inspect.cache_clear()
    read: list[str] = []
    run = lexicon._Pass.run

    def counted(self):
        read.append(self.text)
        return run(self)

    monkeypatch.setattr(lexicon._Pass, "run", counted)
    return read


def _answer(store: object, text: str, where: str = "") -> tuple[dict, bytes]:
    """The worker's answer(), on a thread of the worker's kind; what it left in reference
    cycles collected there (pyoxigraph's results may be dropped only on their own thread)."""
    request = {"query": text, "accept": f"{JSON}, application/n-triples"}

    def work() -> tuple[dict, bytes]:
        outcome = answer(store, request, Settings(where, 1 << 20))
        gc.collect()
        return outcome

    return stack.call(work)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1",  # run unparsed
        "SELECT ?s FROM <urn:x:g> WHERE { ?s ?p ?o }",  # parsed by rdflib first
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",  # its form read from the pass
        "SELECT * WHERE { ?s ?p (1 2 3) }",  # a collection: parsed to count its parts
    ],
)
def test_the_embedded_store_reads_a_text_once(passes, text):
    header, _body = _answer(ox.Store(), text)
    assert header["status"] == 200, header
    assert passes == [text]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("SELECT * WHERE { ?s ?p ?o FILTER(" + " || ".join(["true"] * 5_000) + ") }", None),
        ("SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }", "service"),
        ('SELECT * WHERE { ?s ?p "a\\u0022" }', "ambiguous-query"),
        ("SELECT * WHERE { #\r SERVICE <http://127.0.0.1:9/> { } \n }", "ambiguous-query"),
    ],
)
def test_a_refusal_reads_the_text_once(passes, text, code):
    header, _body = _answer(ox.Store(), text)
    assert header["status"] in (400, 403), header
    assert header["code"] == (code or "too-many-parts")
    assert passes == [text]


class _Store(BaseHTTPRequestHandler):
    """An Oxigraph server that answers every query with no rows."""

    server_version = "Oxigraph/0.5"

    def do_GET(self):  # noqa: N802 - http.server's name
        self._send(b'{"head":{},"boolean":true}')

    def do_POST(self):  # noqa: N802
        self.server.sent.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self._send(SELECT_ANSWER)

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", JSON)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def store_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Store)
    server.sent = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}/query"
    server.shutdown()
    server.server_close()


def test_a_store_server_s_query_is_read_once_by_the_worker_and_the_gate(passes, store_server):
    """The worker's checks, the RemoteStore's gate (the same checks again, whoever sends the
    query) and the form the store is asked for all read the one pass."""
    server, url = store_server
    store = RemoteStore(url, gate=check_store_query)
    text = "PREFIX ex: <urn:x:> SELECT ?s WHERE { ?s ex:p ?o } LIMIT 1"
    header, body = _answer(store, text, url)
    assert header["status"] == 200, header
    assert json.loads(body)["results"]["bindings"] == []
    assert server.sent, "the query reached the store"
    assert passes == [text]


def test_an_over_budget_text_is_refused_on_its_first_parts():
    """10,000 path alternatives (119 KB): the pass stops once past the parts budget (400),
    some 800 tokens in, where a scan of its characters read all 119 KB first."""
    lexicon.clear_cache()
    text = "SELECT * WHERE { ?s " + "|".join(f"<urn:p{i}>" for i in range(10_000)) + " ?o }"
    found = lexed(text)
    assert found.stopped == "parts" and found.tokens < 1_000 and found.parts == 401
    with pytest.raises(Exception) as refused:
        needs_parse(text)
    assert getattr(refused.value, "code", None) == "too-many-parts"
