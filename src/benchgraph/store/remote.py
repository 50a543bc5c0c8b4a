"""A SPARQL 1.1 store over HTTP (Oxigraph server, Virtuoso, Fuseki, ...), read through the
same few calls as the embedded store: query, quads_for_pattern, named_graphs, dump.

What a push wrote is read back as the dataset benchgraph built: the derived facts, which a
push keeps in one graph per record (`graph/inferred/<kind>/<id>`, so an edit sends only its
change), read as the one inferred graph; the manifest graph left out of the graphs listed
and dumped. Engines differ in three things handled here: how the default graph becomes the
union of the graphs (Oxigraph server: the `union-default-graph` parameter; Virtuoso: it is
already, with its own system graphs in it, which a `define input:default-graph-exclude`
keeps out), the timeout parameter (Virtuoso: `timeout`, in ms) and which result formats
they give (each is asked for the one it writes, by the query's form).
"""

from __future__ import annotations

import io
import json
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox

from ..namespaces import BASE, GRAPH, INFERRED_GRAPH
from ..query.text import lexed
from .http import (
    SERVE_ACCOUNT,
    Account,
    Client,
    QueryNotSent,
    StoreError,
    StoreTimeout,
    StoreUnavailable,
    check_url,
    error_from,
    store_text,
)

INFERRED = str(INFERRED_GRAPH)
INFERRED_PARTS = INFERRED + "/"  # a push's graph of one record's derived facts: + kind/id
MANIFEST = str(GRAPH) + "manifest"
PUSH = BASE + "push#"  # the manifest's terms
RESULTS_JSON = "application/sparql-results+json"
_TOO_LONG = re.compile(rb"estimated execution time .{0,40} exceeds the limit")
NTRIPLES = "application/n-triples"
# A graph no store holds: Virtuoso's default graph when a query names only FROM NAMED graphs,
# which SPARQL says is then empty (Virtuoso read it as the union of every graph).
NO_GRAPH = "urn:benchgraph:no-graph"
MANIFEST_TTL = 30.0  # seconds the list of the store's graphs is reused
BATCH_ROWS = 5000  # quads asked for at once when dumping (under any engine's row cap)
FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
TRIPLE_TYPES = {
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "text/plain": ox.RdfFormat.N_TRIPLES,
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
}
RESULT_TYPES = {
    "application/sparql-results+json": ox.QueryResultsFormat.JSON,
    "application/sparql-results+xml": ox.QueryResultsFormat.XML,
}


def dataset_graph(name: str) -> str:
    """The dataset's name of a graph of the store (a record's derived facts: inferred)."""
    return INFERRED if name.startswith(INFERRED_PARTS) else name


def query_form(text: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE, as the one pass over the text read it (the gate's
    pass, kept; query/lexicon.py): the store is asked for a format that form has."""
    return lexed(text, parse=True).form or "SELECT"


def graph_variables(text: str) -> list[tuple[int, str]]:
    """Where each `GRAPH ?var` of the query starts, with its variable as written: the GRAPH
    keyword (in any case) as a token of the code, followed by a variable (the pass's)."""
    return list(lexed(text, parse=True).graph_variables)


class RemoteStore:
    """A store at a SPARQL query URL, holding what `benchgraph push` wrote."""

    def __init__(
        self,
        url: str,
        timeout: float | None = None,
        client: Client | None = None,
        max_bytes: int | None = None,
        gate: Callable[..., Any] | None = None,
        account: Account = SERVE_ACCOUNT,
    ):
        """`timeout`: seconds a query may take (the store's own parameter, where it has one,
        and the socket's); `max_bytes`: the most read of one answer (refused past it);
        `gate`: called as gate(text, base_iri, prefixes) with every query before it is sent,
        it refuses one by raising and answers what it found (query/inspect.QueryInfo, whose
        `shape` says how the query reads the dataset); `account`: whose credentials (the
        serving account's, unless a client is given)."""
        self.url = check_url(url, "--store")
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.gate = gate
        self.client = client or Client(timeout, account)
        self._others: list[str] | None = None
        self._engine: str | None = None
        self._graphs: tuple[float, dict[str, int]] | None = None

    @property
    def engine(self) -> str:
        """Which engine answers, asked once it is first needed (a store down when a server
        starts is a 503 for its queries, not a server that will not start)."""
        if self._engine is None:
            self._engine = self._probe()
        return self._engine

    def _probe(self) -> str:
        """Which engine answers (its Server header), checking it answers at all."""
        response = self.client.request(
            "GET", self.url, params=[("query", "ASK {}")], headers={"Accept": RESULTS_JSON}
        )
        if response.status != 200:
            raise error_from(response, f"--store {self.url}", self.client.account)
        server = self.client.server.lower()
        return next((e for e in ("oxigraph", "virtuoso", "fuseki") if e in server), "sparql")

    # --- queries ----------------------------------------------------------------------
    def query(
        self,
        query: str,
        *,
        base_iri: str | None = None,
        prefixes: dict[str, str] | None = None,
        use_default_graph_as_union: bool = False,
        default_graph: Iterable[object] | None = None,
        named_graphs: Iterable[object] | None = None,
        timeout: float | None = None,
    ):
        """pyoxigraph's Store.query, answered by the store: QuerySolutions or QueryBoolean
        (parsed from its results), or a list of triples for CONSTRUCT and DESCRIBE."""
        info = self.gate(query, base_iri, prefixes) if self.gate is not None else None
        form = query_form(query)
        default = [_iri(g) for g in default_graph or []]
        named = [_iri(g) for g in named_graphs or []]
        if not default and not named and self.engine in ("oxigraph", "virtuoso"):
            default, named = self._query_dataset(info)
        text = self._prologue(
            query, base_iri, prefixes, getattr(info, "shape", None), bool(default), bool(named)
        )
        params = [("query", text)]
        params += [("default-graph-uri", g) for g in default]
        params += [("named-graph-uri", g) for g in named]
        if use_default_graph_as_union and not default and not named and self.engine == "oxigraph":
            params.append(("union-default-graph", ""))
        limit = timeout or self.timeout
        if limit and self.engine == "virtuoso":
            params.append(("timeout", str(int(limit * 1000))))  # its own limit, in ms
        accept = NTRIPLES if form in ("CONSTRUCT", "DESCRIBE") else RESULTS_JSON
        from urllib.parse import urlencode

        response = self.client.request(
            "POST",
            self.url,
            body=urlencode(params).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": accept},
            timeout=limit,
            limit=self.max_bytes,
        )  # a read query is safe to send again
        if response.status != 200:
            if _TOO_LONG.search(response.body[:2000]):  # Virtuoso's estimate, before it runs
                raise StoreTimeout(
                    f"the store refused the query as too long to run: "
                    f"{error_from(response, 'the store', self.client.account)}"
                )
            error = error_from(response, "the store", self.client.account)
            if isinstance(error, StoreError) and response.status == 400:
                raise SyntaxError(f"the store refused the query: {error}") from None
            raise error
        if response.headers.get("X-SQL-State"):  # Virtuoso's "anytime" answer: a part
            raise StoreTimeout(
                f"the store stopped the query at its time limit of "
                f"{limit:g} s and would have sent a part of the answer: "
                f"{response.headers.get('X-SQL-Message', '')}"
            )
        if response.headers.get("X-SPARQL-MaxRows"):  # Virtuoso cut the result at its cap
            raise StoreError(
                502,
                f"the store cut the result at its limit of "
                f"{response.headers['X-SPARQL-MaxRows']} rows "
                "(Virtuoso: ResultSetMaxRows in its [SPARQL] section)",
            )
        kind, body = response.content_type, response.body
        if self.engine == "virtuoso":
            body = _canonical_booleans(body, kind)
        try:
            if kind in RESULT_TYPES:
                return ox.parse_query_results(body, RESULT_TYPES[kind])
            if kind in TRIPLE_TYPES:
                return list(ox.parse(body, TRIPLE_TYPES[kind]))
        except (SyntaxError, ValueError) as exc:  # the store's fault, not the query's
            raise _unreadable(kind, exc) from None
        raise StoreError(
            502, f"the store answered in {kind or 'no format'}, which benchgraph does not read"
        )

    def _query_dataset(self, info: Any) -> tuple[list[str], list[str]]:
        """The query's FROM and FROM NAMED graphs, as the protocol's default-graph-uri and
        named-graph-uri. An Oxigraph server run with --union-default-graph (as the README
        says to serve it) reads its default graph as the union whatever FROM says, and keeps
        it so beside FROM NAMED (0.5.13: `SELECT (COUNT(*) AS ?n) FROM <g> WHERE { ?s ?p ?o }`
        counted every graph), while it honours the protocol's parameters, which SPARQL says
        stand for the query's clauses. FROM <inferred> names the one graph of derived facts
        the dataset has, which a push keeps one graph per record: each is named."""
        default = list(getattr(info, "default_graphs", ()))
        named = list(getattr(info, "named_graphs", ()))
        if INFERRED in named:
            raise QueryNotSent(
                f"FROM NAMED <{INFERRED}>: this store keeps the derived facts one graph per "
                "record, so GRAPH ?g would not name the one graph the dataset has; read it "
                f"with FROM <{INFERRED}>"
            )
        if INFERRED in default:
            parts = sorted(g for g in self._store_graphs() if g.startswith(INFERRED_PARTS))
            default = [g for g in default if g != INFERRED] + parts
        if named and not default and self.engine == "virtuoso":
            default = [NO_GRAPH]
        return default, named

    def _prologue(
        self,
        query: str,
        base_iri: str | None,
        prefixes: dict[str, str] | None,
        shape: Any = None,
        given_default: bool = False,
        given_named: bool = False,
    ) -> str:
        """The query as the store gets it: the base and the predeclared prefixes written
        out (the protocol has no way to pass them), and for Virtuoso kept to the graphs a
        push wrote (see _virtuoso), with what the gate found of it (`shape`) and whether
        the protocol's default-graph-uri and named-graph-uri were given."""
        head = []
        if shape is not None:
            self._check_graphs(shape)
        if self.engine == "virtuoso":
            exclude, query = self._virtuoso(query, shape, given_default, given_named)
            if exclude:
                head += [f"define input:default-graph-exclude <{g}>" for g in self.others()]
        if base_iri:
            head.append(f"BASE <{base_iri}>")
        head += [f"PREFIX {p}: <{iri}>" for p, iri in (prefixes or {}).items()]
        return "\n".join(head) + ("\n" if head else "") + query

    def _check_graphs(self, shape: Any) -> None:
        """Refuse a GRAPH <iri> pattern naming a graph the push did not write: on Virtuoso
        its own system graphs are readable so (and answer nothing on the others)."""
        named = [t for t in shape.graph_terms if not t.startswith("?")]
        if not named:
            return
        held = set(self._store_graphs()) | {INFERRED}
        for graph in named:
            if graph not in held:
                raise QueryNotSent(
                    f"GRAPH <{graph}>: not a graph of this dataset; name one "
                    "of the dataset's graphs (GRAPH ?g lists them)"
                )

    def _virtuoso(
        self, query: str, shape: Any, given_default: bool, given_named: bool
    ) -> tuple[bool, str]:
        """Whether the default graph needs the exclusion of Virtuoso's own graphs, and the
        query with each `GRAPH ?var` kept to the graphs the manifest names.

        Virtuoso's default graph is the union of every graph, its system graphs among them:
        `define input:default-graph-exclude` keeps those out. Its GRAPH ?var ranges over
        every graph too, and no exclusion fixes that (once one is defined, Virtuoso 7.2.5
        answers a GRAPH <iri> pattern with nothing, and a named-graph exclusion breaks it
        the same way; FROM <g> leaves GRAPH ?var ranging over all, as measured). So each
        GRAPH ?var is preceded by a join with the manifest (`{ ?var push:digest [] }`),
        which binds the variable to the graphs a push wrote, where the query does not name
        its graphs itself (FROM NAMED, named-graph-uri). Without `shape` (a query benchgraph
        wrote, sent with no gate) the default graph is excluded where the text has no GRAPH.
        """
        if shape is None:
            return not lexed(query, parse=True).graph_word, query
        exclude = shape.reads_default and not (shape.from_default or given_default)
        named = [t for t in shape.graph_terms if not t.startswith("?")]
        if exclude and named:
            raise QueryNotSent(
                f"GRAPH <{named[0]}> in a query that also reads the default graph: Virtuoso "
                "7.2 answers such a pattern with nothing once its own graphs are kept out of "
                f"the default graph; write VALUES ?g {{ <{named[0]}> }} GRAPH ?g {{ ... }}"
            )
        variables = sum(t.startswith("?") for t in shape.graph_terms)
        if not variables or shape.from_named or given_named:
            return exclude, query
        found = graph_variables(query)
        if len(found) != variables:  # the text was not read as the parser read it
            raise QueryNotSent(
                "the query's GRAPH patterns could not be told apart in its "
                "text, so it could not be kept to the dataset's graphs; put "
                "a space before each GRAPH keyword"
            )
        out, last = [], 0
        for start, variable in found:
            out += [query[last:start], f"{{ {variable} <{PUSH}digest> [] }} "]
            last = start
        return exclude, "".join(out) + query[last:]

    def can_write(self) -> tuple[bool | None, str]:
        """Whether this account may write to the store (True, False, or None where that
        cannot be learnt), and how it was learnt. Asked with an update that changes nothing:
        DELETE DATA of a triple in a graph of a fresh urn, which cannot exist. Virtuoso
        refuses it with SR186 (no permission) to an account without SPARQL_UPDATE, the
        anonymous /sparql's among them, and runs it for dba (measured on 7.2.5); the
        Oxigraph server's update endpoint (beside /query) answers 403 "read-only" when it
        runs as `oxigraph serve-read-only`, 204 else. Other engines: None."""
        probe = (
            f"DELETE DATA {{ GRAPH <urn:benchgraph:write-check:{uuid.uuid4()}> {{ "
            "<urn:benchgraph:write-check:s> <urn:benchgraph:write-check:p> "
            "<urn:benchgraph:write-check:o> } }"
        )
        if self.engine == "virtuoso":
            url = self.url
        elif self.engine == "oxigraph" and self.url.rstrip("/").endswith("/query"):
            url = self.url.rstrip("/")[: -len("query")] + "update"
        else:
            return None, f"the {self.engine} store's rights cannot be read without writing"
        response = self.client.request(
            "POST",
            url,
            body=_form(probe, "update"),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            retry=False,
        )
        if response.status in (200, 204):
            return True, (
                f"{url} ran an update that changes nothing (DELETE DATA of a triple "
                f"that cannot exist), answering {response.status}"
            )
        said = f"{response.status} {store_text(response.body)}".strip()
        if response.status in (401, 403) or b"SR186" in response.body[:2000]:
            return False, f"{url} refused an update: {said}"
        return None, f"{url} answered an update that changes nothing with {said}"

    def others(self) -> list[str]:
        """The store's graphs that are not benchgraph's (found once)."""
        if self._others is None:
            found = self._select("SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g", raw=True)
            self._others = sorted(
                row["g"]["value"] for row in found if not row["g"]["value"].startswith(BASE)
            )
        return self._others

    def _select(self, text: str, raw: bool = False) -> list[dict]:
        """The JSON bindings of a SELECT benchgraph writes itself (checked by the gate as
        every query is; sent as written)."""
        if self.gate is not None:
            self.gate(text, None, None)
        if not raw:
            text = self._prologue(text, None, None)
        response = self.client.request(
            "POST",
            self.url,
            body=_form(text),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": RESULTS_JSON},
        )
        if response.status != 200:
            raise error_from(response, "the store", self.client.account)
        rows = _bindings(_json(response.body, RESULTS_JSON), RESULTS_JSON)
        if self.engine == "virtuoso":
            _fix_bindings(rows)
        return rows

    # --- what the store holds ---------------------------------------------------------
    def manifest(self) -> dict[str, tuple[str, int]]:
        """graph -> (digest, quads) as the last push recorded them (empty: none)."""
        rows = self._select(
            f"SELECT ?g ?d ?n WHERE {{ GRAPH <{MANIFEST}> {{ "
            f"?g <{PUSH}digest> ?d ; <{PUSH}quads> ?n }} }}"
        )
        return {r["g"]["value"]: (r["d"]["value"], int(r["n"]["value"])) for r in rows}

    def dataset_key(self) -> str | None:
        """The build key of what the last push sent."""
        rows = self._select(
            f"SELECT ?k WHERE {{ GRAPH <{MANIFEST}> {{ <{MANIFEST}> <{PUSH}datasetKey> ?k }} }}"
        )
        return rows[0]["k"]["value"] if rows else None

    def _store_graphs(self) -> dict[str, int]:
        """The store's graphs a push wrote, with their quads (read again after MANIFEST_TTL:
        a TriG dump asks once per graph)."""
        now = time.monotonic()
        if self._graphs is not None and now - self._graphs[0] < MANIFEST_TTL:
            return self._graphs[1]
        manifest = self.manifest()
        if not manifest:
            raise StoreError(
                404,
                f"{self.url}: the store holds no benchgraph push (no "
                f"manifest graph <{MANIFEST}>): run benchgraph push first",
            )
        graphs = {g: n for g, (_d, n) in manifest.items()}
        self._graphs = (now, graphs)
        return graphs

    def named_graphs(self) -> Iterator[ox.NamedNode]:
        """The dataset's named graphs (the inferred graph once, no manifest)."""
        names = sorted({dataset_graph(g) for g in self._store_graphs()})
        return iter([ox.NamedNode(g) for g in names])

    def quads_for_pattern(
        self,
        subject=None,
        predicate=None,
        object=None,  # noqa: A002
        graph_name=None,
    ) -> Iterator[ox.Quad]:
        """Quads matching the pattern, in named graphs (the dataset's names)."""
        terms = {"s": subject, "p": predicate, "o": object}
        where = " ".join(str(t) if t is not None else f"?{v}" for v, t in terms.items())
        if graph_name is None or str(graph_name) == f"<{INFERRED}>":
            pattern = f"GRAPH ?g {{ {where} }}"
            if graph_name is not None:
                pattern += f' FILTER(?g = <{INFERRED}> || STRSTARTS(STR(?g), "{INFERRED_PARTS}"))'
            else:  # benchgraph's graphs (not the store's own), not the manifest
                pattern += f' FILTER(STRSTARTS(STR(?g), "{BASE}") && ?g != <{MANIFEST}>)'
        elif isinstance(graph_name, ox.DefaultGraph):
            return iter([])
        else:
            pattern = f"GRAPH {graph_name} {{ {where} }}"
        wanted = [v for v, t in terms.items() if t is None]
        rows = self._select(f"SELECT * WHERE {{ {pattern} }}")
        out = []
        for row in rows:
            values = {v: _term(row[v]) for v in wanted}
            g = ox.NamedNode(dataset_graph(row["g"]["value"])) if "g" in row else graph_name
            out.append(
                ox.Quad(
                    values.get("s", subject), values.get("p", predicate), values.get("o", object), g
                )
            )
        return iter(out)

    def dump(
        self,
        output: IO[bytes] | str | Path | None = None,
        format: ox.RdfFormat = ox.RdfFormat.N_QUADS,  # noqa: A002 - pyoxigraph's name
        *,
        from_graph: object = None,
    ) -> bytes | None:
        """pyoxigraph's Store.dump for the two forms export.py asks: every quad as
        N-Quads, or one graph's triples as N-Triples (in the store's order)."""
        graphs = self._store_graphs()
        if from_graph is not None:
            name = str(from_graph)[1:-1]
            wanted = [g for g in graphs if dataset_graph(g) == name]
        else:
            wanted = sorted(graphs)
        buffer = io.BytesIO() if output is None else None
        target = buffer or output
        opened = None
        if isinstance(target, (str, Path)):
            opened = target = open(target, "wb")  # noqa: SIM115 - closed below
        try:
            for quads in self._quads(wanted, graphs):
                if format == ox.RdfFormat.N_QUADS:
                    ox.serialize(quads, target, ox.RdfFormat.N_QUADS)
                else:
                    ox.serialize([q.triple for q in quads], target, ox.RdfFormat.N_TRIPLES)
        finally:
            if opened is not None:
                opened.close()
        return buffer.getvalue() if buffer is not None else None

    def _quads(self, wanted: list[str], sizes: dict[str, int]) -> Iterator[list[ox.Quad]]:
        """The quads of these graphs, BATCH_ROWS at a time or so (graphs are asked whole)."""
        batch: list[str] = []
        rows = 0
        for g in [*wanted, None]:
            if g is not None and (not batch or rows + sizes.get(g, 0) <= BATCH_ROWS):
                batch.append(g)
                rows += sizes.get(g, 0)
                continue
            if batch:
                values = " ".join(f"<{b}>" for b in batch)
                found = self._select(
                    f"SELECT ?g ?s ?p ?o WHERE {{ VALUES ?g {{ {values} }} "
                    "GRAPH ?g { ?s ?p ?o } }"
                )
                yield [
                    ox.Quad(
                        _term(r["s"]),
                        _term(r["p"]),
                        _term(r["o"]),
                        ox.NamedNode(dataset_graph(r["g"]["value"])),
                    )
                    for r in found
                ]
            batch, rows = ([g], sizes.get(g, 0)) if g is not None else ([], 0)

    def close(self) -> None:
        self.client.close()


XSD_BOOLEAN = "http://www.w3.org/2001/XMLSchema#boolean"
_BOOLEAN_NT = re.compile(rb'"([01])"\^\^<' + re.escape(XSD_BOOLEAN.encode()) + rb">")


def _canonical_booleans(body: bytes, kind: str) -> bytes:
    """Virtuoso's xsd:boolean literals in their canonical form: it writes what it stores,
    "1" and "0", for "true" and "false" (measured on 7.2.5), and benchgraph's answers and
    dumps are the same whatever the store."""
    if XSD_BOOLEAN.encode() not in body:
        return body
    if kind in TRIPLE_TYPES:
        return _BOOLEAN_NT.sub(
            lambda m: b'"%s"^^<%s>' % (b"true" if m[1] == b"1" else b"false", XSD_BOOLEAN.encode()),
            body,
        )
    if kind == RESULTS_JSON:
        data = _json(body, kind)
        if "boolean" not in data:
            _fix_bindings(_bindings(data, kind))
        return json.dumps(data).encode()
    return body


def _json(body: bytes, kind: str) -> dict[str, Any]:
    """A store's JSON results: an answer that is not (or is nested past the parser's depth:
    100,000 brackets) is the store's fault, a 502, never a traceback."""
    try:
        data = json.loads(body)
    except (RecursionError, ValueError) as exc:
        raise _unreadable(kind, exc) from None
    if not isinstance(data, dict):
        raise _unreadable(kind, ValueError("not a JSON object"))
    return data


def _bindings(data: dict[str, Any], kind: str) -> list[dict[str, dict]]:
    """The rows of JSON results, each binding an object with a text value, or a 502."""
    rows = (
        (data.get("results") or {}).get("bindings")
        if isinstance(data.get("results"), dict)
        else None
    )
    if not isinstance(rows, list) or not all(
        isinstance(row, dict)
        and all(isinstance(b, dict) and isinstance(b.get("value"), str) for b in row.values())
        for row in rows
    ):
        raise _unreadable(kind, ValueError("results.bindings is not a list of bindings"))
    return rows


def _unreadable(kind: str, exc: BaseException) -> StoreError:
    why = "nested too deep" if isinstance(exc, RecursionError) else store_text(str(exc).encode())
    return StoreError(502, f"the store's answer is not {kind} that benchgraph reads: {why}")


def _fix_bindings(rows: list[dict]) -> None:
    for row in rows:
        for binding in row.values():
            if binding.get("datatype") == XSD_BOOLEAN and binding["value"] in ("0", "1"):
                binding["value"] = "true" if binding["value"] == "1" else "false"


def _form(text: str, name: str = "query") -> bytes:
    from urllib.parse import urlencode

    return urlencode({name: text}).encode()


def _iri(term: object) -> str:
    return term.value if isinstance(term, ox.NamedNode) else str(term)


def _term(binding: dict) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    """A SPARQL JSON results term (SPARQL 1.0's "typed-literal" too, which Virtuoso writes)."""
    kind, value = binding["type"], binding["value"]
    if kind == "uri":
        return ox.NamedNode(value)
    if kind == "bnode":
        return ox.BlankNode(value)
    if "xml:lang" in binding:
        return ox.Literal(value, language=binding["xml:lang"])
    if "datatype" in binding:
        return ox.Literal(value, datatype=ox.NamedNode(binding["datatype"]))
    return ox.Literal(value)


__all__ = ["RemoteStore", "StoreError", "StoreUnavailable", "query_form"]
