"""The query page at /: a SPARQL editor (YASGUI, served from this package), the saved queries as
examples (the headline question first), results as a table or a chart (Chart.js, also served
from here), downloads of results and of the whole dataset."""

from __future__ import annotations

import re

from flask import Blueprint, Response, current_app, jsonify, render_template, request, url_for

from ..namespaces import BASE, BG, GRAPH, ID, ONTOLOGY_IRI, PREFIXES, UNIT, pasteable
from ..query.params import (
    Parameter,
    ParameterError,
    split_values,
    with_values,
)
from ..query.saved import SavedQuery
from .dumps import dump_formats
from .errors import error_response
from .figures import figure
from .hooks import not_modified
from .negotiation import BY_FORM
from .publicbase import url as public_url
from .site import Site

bp = Blueprint("ui", __name__)
# every template shows a number as `{{ value|figure }}`: 4 significant digits (figures.py)
bp.add_app_template_filter(figure, "figure")

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
RUN_ARG = "run"  # /?example=NAME&run=no: the example opened, not run
ONE_LINE = 110  # characters of a description the examples list shows before its <details>


@bp.route("/")
def index() -> Response:
    """The query page; `?example=NAME&PARAM=VALUE...` opens a saved query with its
    parameters given (each a typed term in the query's VALUES, never text spliced in)."""
    s: Site = current_app.extensions["benchgraph"]
    ordered = sorted(s.examples.values(), key=lambda q: (q.name != HEADLINE, q.name))
    examples = [
        {
            "name": q.name,
            "title": q.title,
            "description": q.description,
            "line": one_line(q.description),
            "query": with_prefixes(_body(q.text)),
            "view": chart_view(q),
            "params": [dict(p.as_dict(), choices=_choices(s, p)) for p in query_params(q)],
        }
        for q in ordered
    ]
    opened = None
    if "example" in request.args:
        try:
            opened = _opened(s, request.args)
        except ParameterError as exc:
            return error_response(400, "bad parameter", str(exc), parameter=exc.name)
        for e in examples:  # the form shows what was given
            if e["name"] == opened["name"]:
                for p in e["params"]:
                    if p["name"] in opened["given"]:
                        p["value"] = opened["given"][p["name"]]
    etag = s.etag(
        "ui",
        public_url(current_app.config, url_for("ui.index")),
        request.query_string.decode("latin-1"),
        *(e["query"] + repr(sorted(e["view"].items())) for e in examples),
    )
    if request.if_none_match.contains_weak(etag):
        return not_modified(etag)
    config = {
        "endpoint": public_url(current_app.config, url_for("sparql.endpoint")),
        "links": local_links(),
        "prefixes": url_for("ui.prefixes"),
        "terms": url_for("ld.ontology_terms"),  # the editor's completion of classes, properties
        "prefixMap": PREFIXES,
        "examples": examples,
        "defaultQuery": examples[0]["query"] if examples else with_prefixes(DEFAULT_QUERY),
        "formats": {
            form: [(f.name, f.label) for f in formats] for form, formats in BY_FORM.items()
        },
        "storageKey": "benchgraph",  # the editor's tabs outlive a rebuild
        "open": opened
        and {
            "name": opened["name"],
            "query": opened["query"],
            "view": opened["view"],
            "run": opened["run"],
        },
        # opened with no example named and no shared query: the headline question, answered
        "headline": HEADLINE if HEADLINE in s.examples else None,
    }
    response = Response(
        render_template(
            "index.html",
            page_config=config,
            examples=examples,
            dumps=dump_formats(),
            invalid=len(s.invalid_records),
            dataset=s.key,
        ),
        mimetype="text/html",
    )
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/prefixes.json")
def prefixes() -> Response:
    """benchgraph's prefixes in prefix.cc's format, for the editor's PREFIX completion."""
    response = jsonify(PREFIXES)
    response.headers["Cache-Control"] = "max-age=3600"
    return response


GROUP_LINE = re.compile(r"#\s*group:\s*((?:[?$]\w+\s*)+)$")


def chart_view(query: SavedQuery) -> dict:
    """A saved query's first view (its `# view:` line) and, from a `# group:` line, the columns
    whose values make one comparable group: the chart shows one group at a time and says how
    many the rows mix (`# group: ?model ?scenario`; static/bg-chartdata.js)."""
    view = dict(query.view)
    for line in query.text.splitlines():
        if not line.startswith("#"):
            break
        found = GROUP_LINE.match(line.strip())
        if found:
            view["group"] = [name[1:] for name in found.group(1).split()]
    return view


def query_params(query: SavedQuery) -> tuple[Parameter, ...]:
    """A saved query's parameters (its `# param:` lines)."""
    return query.params


def _opened(s: Site, args) -> dict:
    """The saved query `args` names, its text built with the parameters given."""
    name = args.get("example", "")
    # run=no opens the example without running it; any other value of `run` is the saved
    # query's own parameter of that name (why-fabric-status takes a run)
    hold = args.get(RUN_ARG) == "no"
    query = s.examples.get(name)
    if query is None:
        raise ParameterError("example", name, "is no saved query; " + ", ".join(sorted(s.examples)))
    params = query_params(query)
    given: dict[str, list[str]] = {}
    for p in params:
        if p.name in args:
            values = args.getlist(p.name)
            given[p.name] = [
                v for value in values for v in (split_values(value) if p.many else [value])
            ]
    for p in params:
        if hold and p.name == RUN_ARG:
            given.pop(p.name, None)
    others = [
        k
        for k in args
        if k != "example" and k not in {p.name for p in params} and not (hold and k == RUN_ARG)
    ]
    if others:
        raise ParameterError(
            others[0],
            args.get(others[0], ""),
            "is not a parameter of "
            f"{name}; it takes " + (", ".join(p.name for p in params) or "none"),
        )
    store = s.store()
    text = with_values(query.text, params, given, known=lambda iri: _known(store, iri))
    return {
        "name": name,
        "query": with_prefixes(_body(text)),
        "view": chart_view(query),
        "given": given,
        "run": not hold,
    }


def _known(store, iri: str) -> bool:
    """Whether the dataset says anything of `iri` (a run, a part, a status)."""
    import pyoxigraph as ox

    return (
        next(iter(store.quads_for_pattern(ox.NamedNode(iri), None, None, None)), None) is not None
    )


def _choices(s: Site, param: Parameter) -> list[dict[str, str]]:
    """The statuses a status parameter offers: the concepts of its default's schemes."""
    if param.type != "status" or not param.default:
        return []
    return s.snapshot().made(
        f"choices-{param.default}", lambda: _scheme_members(s.store(), param.default)
    )


def _scheme_members(store, default: tuple[str, ...]) -> list[dict[str, str]]:
    import pyoxigraph as ox

    in_scheme = ox.NamedNode(PREFIXES["skos"] + "inScheme")
    label = ox.NamedNode(PREFIXES["rdfs"] + "label")
    schemes = set()
    for term in default:
        iri = str(BG) + term.partition(":")[2] if term.startswith("bg:") else term.strip("<>")
        schemes |= {
            q.object for q in store.quads_for_pattern(ox.NamedNode(iri), in_scheme, None, None)
        }
    members = {
        q.subject.value
        for scheme in schemes
        for q in store.quads_for_pattern(None, in_scheme, scheme, None)
    }
    out = []
    for iri in sorted(members):
        found = next(iter(store.quads_for_pattern(ox.NamedNode(iri), label, None, None)), None)
        out.append({"value": pasteable(iri), "label": found.object.value if found else iri})
    return out


def local_links() -> dict:
    """Where the result table sends benchgraph's own IRIs: this server's Linked Data pages
    (as the record pages do), so a server run anywhere but its public base links to itself."""
    root = url_for("ui.index").rstrip("/")
    return {
        "records": [str(ID), str(GRAPH)],
        "recordRoot": root + "/",
        "base": BASE,
        "ontology": str(ONTOLOGY_IRI),
        "terms": [str(BG), str(UNIT)],
        "ontologyPage": url_for("ld.ontology"),
    }


def one_line(description: str | None) -> str:
    """A description's first sentence, cut to ONE_LINE characters: the examples list's line
    (the whole text is behind it)."""
    if not description:
        return ""
    first = re.split(r"(?<=[.;:])\s", description.strip(), maxsplit=1)[0].rstrip(".;:")
    if len(first) <= ONE_LINE:
        return first
    return first[: ONE_LINE - 1].rsplit(" ", 1)[0].rstrip(",;: ") + "\u2026"


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
    used = [
        p
        for p in PREFIXES
        if p not in declared and re.search(rf"(?<![\w:/#<.-]){re.escape(p)}:", text)
    ]
    return "".join(f"PREFIX {p}: <{PREFIXES[p]}>\n" for p in used) + text
