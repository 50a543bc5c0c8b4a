"""The query page at /: a SPARQL editor (YASGUI, served from this package), the saved queries as
examples (the headline question first), results as a table or a chart (Chart.js, also served
from here), downloads of results and of the whole dataset."""

from __future__ import annotations

import re

from flask import Blueprint, Response, current_app, jsonify, render_template, url_for

from ..namespaces import BASE, BG, GRAPH, ID, ONTOLOGY_IRI, PREFIXES, UNIT
from .dumps import dump_formats
from .negotiation import BY_FORM
from .site import Site

bp = Blueprint("ui", __name__)

DEFAULT_QUERY = """SELECT ?record ?label WHERE {
  ?record bg:recordId ?id ;
          rdfs:label ?label .
}
ORDER BY ?record
LIMIT 25
"""
# The question benchgraph was made to answer comes first among the examples; the rest follow
# by name.
HEADLINE = "no-gpu-fabric"


@bp.route("/")
def index() -> Response:
    """The query page."""
    s: Site = current_app.extensions["benchgraph"]
    ordered = sorted(s.examples.values(), key=lambda q: (q.name != HEADLINE, q.name))
    examples = [{"name": q.name, "title": q.title, "description": q.description,
                 "query": with_prefixes(_body(q.text)), "view": q.view} for q in ordered]
    etag = s.etag("ui", url_for("ui.index", _external=True),
                  *(e["query"] + repr(sorted(e["view"].items())) for e in examples))
    config = {
        "endpoint": url_for("sparql.endpoint", _external=True),
        "links": local_links(),
        "prefixes": url_for("ui.prefixes"),
        "terms": url_for("ld.ontology_terms"),  # the editor's completion of classes, properties
        "prefixMap": PREFIXES,
        "examples": examples,
        "defaultQuery": examples[0]["query"] if examples else with_prefixes(DEFAULT_QUERY),
        "formats": {form: [(f.name, f.label) for f in formats]
                    for form, formats in BY_FORM.items()},
        "storageKey": "benchgraph",  # the editor's tabs outlive a rebuild
    }
    response = Response(render_template(
        "index.html", page_config=config, examples=examples, dumps=dump_formats(),
        invalid=len(s.invalid_records), dataset=s.key,
    ), mimetype="text/html")
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/prefixes.json")
def prefixes() -> Response:
    """benchgraph's prefixes in prefix.cc's format, for the editor's PREFIX completion."""
    response = jsonify(PREFIXES)
    response.headers["Cache-Control"] = "max-age=3600"
    return response


def local_links() -> dict:
    """Where the result table sends benchgraph's own IRIs: this server's Linked Data pages
    (as the record pages do), so a server run anywhere but its public base links to itself."""
    root = url_for("ui.index").rstrip("/")
    return {"records": [str(ID), str(GRAPH)], "recordRoot": root + "/",
            "base": BASE, "ontology": str(ONTOLOGY_IRI),
            "terms": [str(BG), str(UNIT)], "ontologyPage": url_for("ld.ontology")}


def _body(text: str) -> str:
    """A saved query without its leading `# title:` / `# description:` comment lines."""
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip() + "\n"


def with_prefixes(text: str) -> str:
    """The query with PREFIX lines for the predeclared prefixes it uses but does not declare,
    so that it also runs on other endpoints when copied."""
    declared = {m.lower() for m in re.findall(r"(?im)^\s*PREFIX\s+([\w-]*):", text)}
    used = [p for p in PREFIXES if p not in declared
            and re.search(rf"(?<![\w:/#<.-]){re.escape(p)}:", text)]
    return "".join(f"PREFIX {p}: <{PREFIXES[p]}>\n" for p in used) + text
