"""The server names itself by its public base, never by the Host a client sends; it answers
only the Host names it is allowed; HEAD is GET without the body. Both paths to /sparql, Flask's
view and the fast path below it (web/fastpath.py), agree on all of it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlencode

import pytest
from rdflib import Graph, URIRef

from benchgraph.web import DEFAULTS, publicbase
from web.web_support import start_server

SD = "http://www.w3.org/ns/sparql-service-description#"
JSON = "application/sparql-results+json"
ASK = "/sparql?" + urlencode({"query": "ASK { ?s ?p ?o }"})
POINT = "/sparql?" + urlencode({"query": "SELECT ?p ?o WHERE { ?s ?p ?o } LIMIT 40"})
VARYING = ("Server-Timing", "Date")


@contextmanager
def served_as(app, base: str, allowed: list[str]) -> Iterator[None]:
    """The app with another public base and allow-list, for one test."""
    before = {
        k: app.config[k]
        for k in ("PUBLIC_BASE", "ALLOWED_HOSTS", "TRUSTED_HOSTS", "CONTENT_SECURITY_POLICY")
    }
    app.config.update(
        PUBLIC_BASE=base,
        ALLOWED_HOSTS=allowed,
        CONTENT_SECURITY_POLICY=DEFAULTS["CONTENT_SECURITY_POLICY"],
    )
    publicbase.configure(app.config)
    try:
        yield
    finally:
        app.config.update(before)


def both(app):
    from web.test_web_fastpath import both as clients

    whole, flask_only, _fast = clients(app)
    return whole, flask_only


def endpoint_of(text: str) -> set[str]:
    g = Graph().parse(data=text, format="turtle")
    return {str(o) for o in g.objects(None, URIRef(SD + "endpoint"))}


def test_the_service_description_names_the_public_base_not_the_host(app, client):
    with served_as(app, "https://bg.example.org", ["alt.example"]):
        response = client.get(
            "/sparql", headers={"Host": "alt.example:8080", "Accept": "text/turtle"}
        )
        assert response.status_code == 200
        assert endpoint_of(response.get_data(as_text=True)) == {"https://bg.example.org/sparql"}
        response = client.get("/", headers={"Host": "alt.example"})
        page = response.get_data(as_text=True)
        assert "https://bg.example.org/sparql" in page and "alt.example" not in page
        # the page, loaded as alt.example, may send its queries to the public base
        connect = response.headers["Content-Security-Policy"].split("connect-src ")[1]
        assert connect.split(";")[0].split() == ["'self'", "https://bg.example.org"]
        void = client.get(
            "/.well-known/void", headers={"Host": "alt.example", "Accept": "text/turtle"}
        )
        assert b"alt.example" not in void.data
        # a relative IRI in a query is resolved against the public endpoint
        rel = client.get(
            "/sparql",
            headers={"Host": "alt.example", "Accept": JSON},
            query_string={"query": "SELECT (<rel> AS ?x) {}"},
        )
        value = json.loads(rel.data)["results"]["bindings"][0]["x"]["value"]
        assert value == "https://bg.example.org/rel"


@pytest.mark.parametrize(
    "path",
    ["/", "/sparql", ASK, "/healthz", "/.well-known/void", "/id/accelerators/nvidia-h100-sxm"],
)
def test_a_host_not_allowed_is_a_400_on_either_path(app, path):
    whole, flask_only = both(app)
    answers = []
    for c in (whole, flask_only):
        response = c.get(path, headers={"Host": "evil.example", "Accept": JSON})
        answers.append((response.status_code, response.get_data()))
    assert answers[0] == answers[1]
    status, data = answers[0]
    body = json.loads(data)
    assert status == 400 and body["ok"] is False and body["title"] == "host not allowed"
    assert "evil.example" in body["error"] and "--allowed-host" in body["error"]


def test_a_form_post_from_a_host_not_allowed_is_refused_and_counted(app, client):
    response = client.post(
        "/sparql", data={"query": "ASK {}"}, headers={"Host": "evil.example", "Accept": JSON}
    )
    assert response.status_code == 400
    assert json.loads(response.data)["title"] == "host not allowed"
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'reason="host-not-allowed",status="400"' in metrics


@pytest.mark.parametrize(
    "path",
    [
        "/sparql",
        ASK,
        POINT,
        "/",
        "/ontology",
        "/healthz",
        "/id/accelerators/nvidia-h100-sxm",
        "/.well-known/void",
    ],
)
@pytest.mark.parametrize("encoding", ["", "gzip"])
def test_head_answers_as_get_without_a_body_on_either_path(app, path, encoding):
    """GET of a plain query is answered below Flask; HEAD by Flask's view: same headers."""
    whole, flask_only = both(app)
    asked = {"Accept": JSON if "query" in path else "text/turtle", "Accept-Encoding": encoding}
    got = whole.get(path, headers=asked)
    assert got.status_code == 200
    for c in (whole, flask_only):
        head = c.open(path, method="HEAD", headers=asked)
        assert head.status_code == 200
        assert head.get_data() == b""
        assert {k: v for k, v in head.headers.items() if k not in VARYING} == {
            k: v for k, v in got.headers.items() if k not in VARYING
        }


def test_a_public_base_with_a_path_is_refused():
    with pytest.raises(publicbase.BadPublicBase, match="origin only"):
        publicbase.normalize("https://example.org/benchgraph")
    assert publicbase.normalize("HTTPS://Example.org:8443/") == "https://example.org:8443"


@pytest.mark.slow
def test_serve_names_itself_by_its_bound_address_or_public_base(tmp_path, web_cache):
    """By default the bound address (a Host of `localhost` is answered, not echoed); with
    --public-base that base, and only the allowed names are answered."""
    server = start_server(tmp_path, web_cache)
    try:
        status, _, data = server.request(
            "GET", "/sparql", headers={"Host": f"localhost:{server.port}", "Accept": "text/turtle"}
        )
        assert status == 200
        assert endpoint_of(data.decode()) == {f"{server.url}/sparql"}
        assert server.request("GET", ASK, headers={"Host": "evil.example"})[0] == 400
        status, headers, data = server.request("HEAD", "/sparql")
        assert status == 200 and data == b""
    finally:
        server.stop()
    server = start_server(
        tmp_path,
        web_cache,
        "--public-base",
        "https://bg.example.org",
        "--allowed-host",
        "alt.example",
    )
    try:
        for host in ("bg.example.org", "alt.example", f"127.0.0.1:{server.port}"):
            status, _, data = server.request(
                "GET", "/sparql", headers={"Host": host, "Accept": "text/turtle"}
            )
            assert status == 200, host
            assert endpoint_of(data.decode()) == {"https://bg.example.org/sparql"}
        status, _, data = server.request(
            "GET", ASK, headers={"Host": "evil.example", "Accept": JSON}
        )
        assert status == 400 and json.loads(data)["title"] == "host not allowed"
    finally:
        server.stop()
