"""Security headers on every response, and pages that work under the Content-Security-Policy.

The browser side (the query page run under the policy, with no violation) is in
test_web_browser.py; here the headers, the policy's directives, the pages' markup (nothing
inline that the policy would block) and the style hashes against the vendored YASGUI.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest

from benchgraph.web import DEFAULTS
from web.web_support import HERE

YASGUI = HERE.parents[1] / "src" / "benchgraph" / "web" / "static" / "vendor" / "yasgui"
HTML = {"Accept": "text/html"}
PAGES = [
    "/",
    "/id/engines/markup-notes",
    "/ontology",
    "/sparql",
    "/id/engines/no-such-engine",
    "/no/such/page",
    "/id/engines/" + "a" * 9000,
]


def policy(text: str) -> dict[str, list[str]]:
    """A Content-Security-Policy as {directive: [sources]}."""
    out = {}
    for part in text.split(";"):
        name, *sources = part.split()
        out[name] = sources
    return out


@pytest.mark.parametrize(
    "path, headers",
    [
        *((p, HTML) for p in PAGES),
        ("/sparql?query=ASK%7B%7D", {"Accept": "application/sparql-results+json"}),
        ("/sparql", {"Accept": "text/turtle"}),
        ("/static/benchgraph.js", {}),
        ("/static/favicon.svg", {}),
        ("/healthz", {}),
        ("/no/such/page", {"Accept": "application/json"}),
    ],
)
def test_every_response_has_the_security_headers(app, client, path, headers):
    response = client.get(path, headers=headers)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    # the default policy, with connect-src naming the public base too (publicbase.py)
    assert response.headers["Content-Security-Policy"] == DEFAULTS[
        "CONTENT_SECURITY_POLICY"
    ].replace("connect-src 'self'", f"connect-src 'self' {app.config['PUBLIC_BASE']}")
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_the_policy_runs_only_this_servers_scripts_and_never_eval():
    directives = policy(DEFAULTS["CONTENT_SECURITY_POLICY"])
    assert directives["default-src"] == ["'none'"]
    assert directives["script-src"] == ["'self'"]
    assert not any("unsafe" in s for sources in directives.values() for s in sources)
    # directives that default-src does not cover
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'none'"]
    assert directives["form-action"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]


class Inline(HTMLParser):
    """What in a page the policy would block: inline scripts, styles, handlers, js: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if (
            tag == "script"
            and "src" not in attributes
            and attributes.get("type") != "application/json"
        ):  # JSON is data, not run
            self.found.append(f"inline <script> {attributes}")
        if tag == "style":
            self.found.append("<style> element")
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.found.append(f"<{tag} {name}={value!r}>")


@pytest.mark.parametrize("path", PAGES)
def test_pages_have_nothing_inline_the_policy_would_block(client, path):
    response = client.get(path, headers=HTML)
    assert response.mimetype == "text/html"
    parser = Inline()
    parser.feed(response.get_data(as_text=True))
    assert parser.found == []


def style_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_style_hashes_are_those_the_vendored_yasgui_adds():
    # YASGUI's column resizer adds a <style> with its table layout when a table is drawn, and
    # one with the drag cursor while a column is resized; both are constant text. When YASGUI
    # is updated these are found again (or the test says they are gone).
    bundle = (YASGUI / "yasgui.min.js").read_text(encoding="utf-8")
    layout = re.findall(r"createStyle\(\w+,`( \.grip-resizable\{[^`]*)`\)", bundle)
    cursor = re.findall(
        r"createStyle\([^;]{0,60}?,`\*\{cursor:`\+\w+\.opt\.dragCursor\+"
        r"`!important\}`\)",
        bundle,
    )
    drag_cursor = re.findall(r"dragCursor:`([^`]*)`", bundle)
    assert len(layout) == 1 and len(cursor) == 1 and len(drag_cursor) == 1, (
        "YASGUI's column resizer changed: find the <style> texts it adds again"
    )
    sources = policy(DEFAULTS["CONTENT_SECURITY_POLICY"])["style-src"]
    assert sources == [
        "'self'",
        style_hash(layout[0]),
        style_hash(f"*{{cursor:{drag_cursor[0]}!important}}"),
    ]


def test_a_refusal_has_the_headers_and_echoes_little(client):
    response = client.get("/id/engines/" + "a" * 9000, headers={"Accept": "application/json"})
    assert response.status_code == 414
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    error = response.get_json()
    assert error["ok"] is False and "MAX_PATH_BYTES" in error["error"]
    assert len(error["error"]) < 300
