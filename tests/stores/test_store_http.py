"""The remote store's client and server face, without a real store where none is needed:
bearer and basic authentication from the environment, a store that is down (a clear 503
from the endpoint, exit 2 from the CLI), and the refusals made before a query is sent."""

from __future__ import annotations

import base64
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchgraph.cli.main import main
from benchgraph.store.http import Client, StoreUnavailable
from benchgraph.web import create_app
from stores.servers import free_port


class _Guarded(BaseHTTPRequestHandler):
    """Answers 200 to the one Authorization it expects, 401 with a challenge otherwise."""

    expected = ""
    challenge = ""
    seen: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        auth = self.headers.get("Authorization", "")
        self.seen.append(auth)
        if auth == self.expected:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        else:
            self.send_response(401)
            if self.challenge:
                self.send_header("WWW-Authenticate", self.challenge)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def guarded():
    _Guarded.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Guarded)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/sparql"
    server.shutdown()


def test_bearer_token_from_the_environment(guarded, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_STORE_TOKEN", "tok-123")
    _Guarded.expected, _Guarded.challenge = "Bearer tok-123", ""
    assert Client().request("GET", guarded).status == 200


def test_basic_credentials_answer_the_challenge(guarded, monkeypatch):
    monkeypatch.delenv("BENCHGRAPH_STORE_TOKEN", raising=False)
    monkeypatch.setenv("BENCHGRAPH_STORE_USER", "ann")
    monkeypatch.setenv("BENCHGRAPH_STORE_PASSWORD", "pw")
    _Guarded.expected = "Basic " + base64.b64encode(b"ann:pw").decode()
    _Guarded.challenge = 'Basic realm="store"'
    client = Client()
    assert client.request("GET", guarded).status == 200
    assert client.request("GET", guarded).status == 200
    assert _Guarded.seen == ["", _Guarded.expected, _Guarded.expected]  # asked once


def test_store_down_is_a_clear_error(monkeypatch, capsys):
    url = f"http://127.0.0.1:{free_port()}/sparql"
    monkeypatch.setattr("benchgraph.store.http.RETRIES", (0.01,))
    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        Client().request("GET", url)
    assert main(["query", "--store", url, "ASK { ?s ?p ?o }"]) == 2
    assert "cannot be reached" in capsys.readouterr().err


def test_endpoint_answers_503_while_the_store_is_down(monkeypatch):
    monkeypatch.setattr("benchgraph.store.http.RETRIES", (0.01,))
    app = create_app(
        {"STORE_URL": f"http://127.0.0.1:{free_port()}/sparql", "QUERY_WORKERS": 1, "TESTING": True}
    )
    try:
        r = app.test_client().get("/sparql", query_string={"query": "ASK { ?s ?p ?o }"})
        assert r.status_code == 503
        assert r.get_json()["title"] == "store unavailable"
        assert "cannot be reached" in r.get_json()["error"]
    finally:
        app.extensions["benchgraph"].close()


class _OtherStore(BaseHTTPRequestHandler):
    """A SPARQL store of an engine benchgraph cannot ask about its rights."""

    def do_GET(self):  # noqa: N802 - http.server's name
        body = b'{"head": {}, "boolean": true}'
        self.send_response(200)
        self.send_header("Server", "SomeStore/1.0")
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_store_whose_rights_cannot_be_read_is_served_with_a_loud_warning(capsys, caplog):
    """Nothing is written to learn it: the warning goes to stderr, and to the server's log
    from each server process."""
    from benchgraph.cli.serve import _check_read_only

    server = ThreadingHTTPServer(("127.0.0.1", 0), _OtherStore)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/sparql"
    try:
        warning = _check_read_only(url)
        assert warning and "could not learn whether the serving account can write" in warning
        assert warning in capsys.readouterr().err
        app = create_app(
            {"STORE_URL": url, "QUERY_WORKERS": 1, "TESTING": True, "STORE_WARNING": warning}
        )
        app.extensions["benchgraph"].close()
        assert warning in caplog.text
    finally:
        server.shutdown()
