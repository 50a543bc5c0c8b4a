"""Content negotiation: which serialization answers a request, by query form and Accept.

A format is offered under its standard media type and a few aliases clients send. Each is
rated by the most specific Accept range that matches it (RFC 9110, 12.5.1), so
`text/turtle;q=0, */*` refuses Turtle; the server's order breaks ties.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import pyoxigraph as ox

from ..errors import BenchgraphError


@dataclass(frozen=True)
class Format:
    """One serialization: its short name, media type, file extension and pyoxigraph name."""

    name: str
    media_type: str
    extension: str
    oxigraph: str  # a member of pyoxigraph.QueryResultsFormat or pyoxigraph.RdfFormat
    aliases: tuple[str, ...] = ()
    label: str = ""
    names: tuple[str, ...] = ()  # other short names clients put in a `format` parameter

    def called(self, value: str) -> bool:
        """Whether `value` (a `format` parameter) names this format."""
        return value in (self.name, self.extension, self.media_type, *self.aliases, *self.names)

    @property
    def content_type(self) -> str:
        """The Content-Type header: text formats say they are UTF-8."""
        return self.media_type + ("; charset=utf-8" if self.media_type.startswith("text/") else "")


JSON = Format(
    "json", "application/sparql-results+json", "srj", "JSON", ("application/json",), "SPARQL JSON"
)
XML = Format(
    "xml",
    "application/sparql-results+xml",
    "srx",
    "XML",
    ("application/xml", "text/xml"),
    "SPARQL XML",
)
CSV = Format("csv", "text/csv", "csv", "CSV", (), "CSV")
TSV = Format("tsv", "text/tab-separated-values", "tsv", "TSV", (), "TSV")

# Turtle is also what a client asking for N3 can read.
TURTLE = Format(
    "turtle", "text/turtle", "ttl", "TURTLE", ("application/x-turtle",), "Turtle", ("n3", "text/n3")
)
NTRIPLES = Format(
    "ntriples", "application/n-triples", "nt", "N_TRIPLES", (), "N-Triples", ("n-triples",)
)
NQUADS = Format("nquads", "application/n-quads", "nq", "N_QUADS", (), "N-Quads", ("n-quads",))
TRIG = Format("trig", "application/trig", "trig", "TRIG", (), "TriG")
JSONLD = Format(
    "jsonld",
    "application/ld+json",
    "jsonld",
    "JSON_LD",
    ("application/json",),
    "JSON-LD",
    ("json-ld", "json"),
)
RDFXML = Format(
    "rdfxml",
    "application/rdf+xml",
    "rdf",
    "RDF_XML",
    ("application/xml", "text/xml"),
    "RDF/XML",
    ("rdf+xml", "xml", "owl"),
)

HTML = Format("html", "text/html", "html", "", ("application/xhtml+xml",), "HTML")

# What each query form can be answered in, the default first.
SOLUTIONS = (JSON, XML, CSV, TSV)
BOOLEAN = (JSON, XML)
GRAPH = (TURTLE, NTRIPLES, NQUADS, TRIG, JSONLD, RDFXML)
BY_FORM = {"SELECT": SOLUTIONS, "ASK": BOOLEAN, "CONSTRUCT": GRAPH, "DESCRIBE": GRAPH}
KNOWN = (*SOLUTIONS, *GRAPH)
# Formats that keep graph names, for dumps and Linked Data pages.
DATASET = (TRIG, NQUADS, JSONLD)


class NotAcceptable(BenchgraphError):
    """No offered format is acceptable to the client."""

    status, title = 406, "not acceptable"

    def __init__(self, offered: tuple[Format, ...], asked: str = ""):
        self.offered, self.asked = offered, asked
        super().__init__(
            f"asked for {asked or 'nothing this server knows'}; offered: "
            + ", ".join(f.media_type for f in offered)
        )


def choose(
    offered: tuple[Format, ...], accept: str | None, override: list[str] | str | None = None
) -> Format:
    """The format to answer in.

    A `format` parameter (`override`, one value or several) decides when one of its values
    names an offered format; when its values name only formats this answer cannot take, that
    is refused; values naming no known format are ignored (clients such as SPARQLWrapper send
    several spellings). Otherwise the Accept header decides; without one, the first offered.
    """
    values = [override] if isinstance(override, str) else list(override or [])
    values = [v.strip().lower() for v in values if v and v.strip()]
    for value in values:
        for fmt in offered:
            if fmt.called(value):
                return fmt
    if any(fmt.called(value) for value in values for fmt in KNOWN):
        raise NotAcceptable(offered, "format=" + ", format=".join(values))
    if not accept or not accept.strip():
        return offered[0]
    # Imported here: query workers import this module, and werkzeug would double their size.
    from werkzeug.http import parse_accept_header

    ranges = [(value.split(";")[0].strip().lower(), q) for value, q in parse_accept_header(accept)]
    best, best_q = None, 0.0
    for fmt in offered:
        # The most specific range naming the format (by any of its names) decides.
        _rank, q = max(match(ranges, t) for t in (fmt.media_type, *fmt.aliases))
        if q > best_q:
            best, best_q = fmt, q
    if best is None:
        raise NotAcceptable(offered, f"Accept: {accept.strip()[:200]}")
    return best


BY_NAME = {f.name: f for f in KNOWN}


@lru_cache(maxsize=256)
def formats_for(accept: str | None, override: tuple[str, ...] = ()) -> dict[str, str]:
    """What `choose` gives each query form for this Accept and `format`, by form: a format's
    name, or "!" and what was asked for, when nothing offered is acceptable. The server
    process decides this, so that the query worker need not read Accept headers; clients
    send few distinct ones."""
    out = {}
    for form, offered in BY_FORM.items():
        try:
            out[form] = choose(offered, accept, list(override)).name
        except NotAcceptable as exc:
            out[form] = "!" + exc.asked
    return out


def match(ranges: list[tuple[str, float]], media_type: str) -> tuple[int, float]:
    """(specificity, q) of the most specific Accept range matching `media_type`; (-1, 0)
    when none does. Specificity: 2 the type itself, 1 `type/*`, 0 `*/*`."""
    main = media_type.split("/")[0]
    found = (-1, 0.0)
    for value, q in ranges:
        if value == media_type:
            rank = 2
        elif value == f"{main}/*":
            rank = 1
        elif value in ("*/*", "*"):
            rank = 0
        else:
            continue
        if rank > found[0]:
            found = (rank, q)
    return found


def serialize_rdf(
    items: Iterable[ox.Triple | ox.Quad], fmt: Format, prefixes: dict[str, str] | None = None
) -> bytes:
    """Triples or quads in an RDF format; graph names are dropped for triple-only formats."""
    items = list(items)
    if fmt not in DATASET:
        items = list(dict.fromkeys(i.triple if isinstance(i, ox.Quad) else i for i in items))
    return ox.serialize(items, format=getattr(ox.RdfFormat, fmt.oxigraph), prefixes=prefixes)
