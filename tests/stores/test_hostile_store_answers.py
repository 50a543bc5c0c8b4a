"""A store's answer is not trusted: one nested 100,000 deep, or not SPARQL results at all,
is the store's fault, a 502 in the one error shape from the endpoint and one line (exit 2)
from `benchgraph query --store`, never a traceback and never "the query does not parse"."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchgraph.cli.main import main
from benchgraph.store.http import StoreError
from benchgraph.store.remote import RemoteStore
from benchgraph.web import create_app

DEEP = b'{"head":{"vars":["x"]},"results":{"bindings":[' + b"[" * 100_000 + b"]" * 100_000 + b"]}}"
ANSWERS = {
    "deep": DEEP,
    "not-json": b"<html>a proxy's error page</html>",
    "wrong-shape": b'{"head":{"vars":["x"]},"results":{"bindings":[{"x":42}]}}',
}


def _store(engine: str, body: bytes):
    class Answer(BaseHTTPRequestHandler):
        server_version = {"oxigraph": "Oxigraph/0.5", "virtuoso": "Virtuoso/07.20"}[engine]

        def _answer(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802 - http.server's name
            if "ASK" in self.path:  # the engine probe gets a real answer
                ok = b'{"head":{},"boolean":true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(ok)))
                self.end_headers()
                self.wfile.write(ok)
                return
            self._answer()

        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._answer()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/sparql"


@pytest.fixture(params=["oxigraph", "virtuoso"])
def engine(request):
    return request.param


@pytest.mark.parametrize("kind", sorted(ANSWERS))
def test_the_cli_says_the_store_answered_badly(engine, kind, capsys):
    server, url = _store(engine, ANSWERS[kind])
    try:
        code = main(["query", "--store", url, "SELECT ?x WHERE { ?x ?p ?o }"])
    finally:
        server.shutdown()
    err = capsys.readouterr().err
    assert code == 2, err
    assert "the store's answer is not" in err and "does not parse" not in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", sorted(ANSWERS))
def test_the_endpoint_answers_502_in_the_error_shape(engine, kind):
    server, url = _store(engine, ANSWERS[kind])
    app = create_app({"STORE_URL": url, "QUERY_WORKERS": 1, "TESTING": True})
    try:
        r = app.test_client().get(
            "/sparql",
            query_string={"query": "SELECT ?x WHERE { ?x ?p ?o }"},
            headers={"Accept": "application/sparql-results+json"},
        )
    finally:
        app.extensions["benchgraph"].close()
        server.shutdown()
    assert r.status_code == 502, r.get_data(as_text=True)[:300]
    body = r.get_json()
    assert body["title"] == "store error" and "the store's answer is not" in body["error"]


def test_the_own_selects_refuse_a_deep_answer(engine):
    """What serve asks the store itself (the pushed build's key, the graphs it holds)."""
    server, url = _store(engine, DEEP)
    try:
        with pytest.raises(StoreError, match="nested too deep"):
            RemoteStore(url).dataset_key()
    finally:
        server.shutdown()
