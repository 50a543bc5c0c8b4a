"""Every saved query gives the same rows on the embedded store, on an Oxigraph server and on
Virtuoso, after a push of the shipped data; the dumps load unchanged into both stores and
answer the same. Values are compared as values: numbers as numbers, xsd:string as the plain
literal it is (engines write each in their own lexical form)."""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox
import pytest

from benchgraph.namespaces import PREFIXES
from benchgraph.pipeline.steps import build
from benchgraph.query.inspect import check_store_query
from benchgraph.query.params import with_values
from benchgraph.query.render import run
from benchgraph.query.saved import saved_queries
from benchgraph.store.export import dump
from benchgraph.store.http import StoreTimeout
from benchgraph.store.push import local_graphs, push
from benchgraph.store.remote import RemoteStore
from paths import DATA, ROOT
from stores import servers
from stores.conftest import start, start_pushed
from stores.test_push import store_quads

XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {
    XSD + t
    for t in (
        "integer",
        "decimal",
        "double",
        "float",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedInt",
        "unsignedLong",
        "unsignedShort",
        "unsignedByte",
    )
}
QUERIES = saved_queries()
RECORDS = ROOT / "tests" / "web" / "data" / "records"
ARGONNE = "argonne-lcf/LLM-Inference-Bench"


def value(term: object) -> tuple | None:
    """A term as a value to compare across engines."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return ("iri", term.value)
    if isinstance(term, ox.BlankNode):
        return ("bnode",)
    if isinstance(term, ox.Literal):
        if term.language:
            return ("lang", term.value, term.language.lower())
        datatype = term.datatype.value
        if datatype in NUMERIC:
            try:
                return ("number", Decimal(term.value).normalize())
            except InvalidOperation:
                return ("number", term.value)
        if datatype == XSD + "string":
            return ("string", term.value)
        return ("literal", term.value, datatype)
    return ("other", str(term))


# Columns made by GROUP_CONCAT, whose order SPARQL 1.1 leaves to the engine (18.5.1.7):
# compared as the set of their parts, with the separator the query gives.
CONCATENATED = {"restsOn": ", ", "sources": " "}


def rows(result: object) -> Counter:
    """The result's rows (or triples), each once per time it appears."""
    if isinstance(result, ox.QueryBoolean):
        return Counter([bool(result)])
    if isinstance(result, (ox.QueryTriples, list)):
        return Counter((value(t.subject), value(t.predicate), value(t.object)) for t in result)
    names = [v.value for v in result.variables]
    return Counter(tuple(_unordered(n, value(s[n])) for n in names) for s in result)


def _unordered(name: str, cell: tuple | None) -> tuple | None:
    if name in CONCATENATED and cell and cell[0] == "string":
        return ("string", tuple(sorted(cell[1].split(CONCATENATED[name]))))
    return cell


@pytest.fixture(scope="module")
def shipped():
    """The shipped data, built once."""
    result = build(DATA, skip_invalid=True)
    return result


@pytest.fixture(scope="module")
def embedded_answers(shipped):
    store = shipped.open()
    return {name: rows(run(store, q.text)) for name, q in QUERIES.items()}


@dataclass
class ReadOnly:
    """A store served as the README says: `oxigraph serve-read-only` over the pushed store,
    Virtuoso's /sparql-auth with an account that can only read (`env`, as serve reads it)."""

    name: str
    query: str
    env: dict[str, str]


@pytest.fixture(scope="module", params=["oxigraph", "virtuoso"])
def pushed_shipped(request, shipped, tmp_path_factory):
    """The shipped data pushed into a server of its own (the session's servers would then
    remove its 13k graphs one request each for the next test's records), then read from a
    read-only setup."""

    def fill(server):
        push(shipped.open(), shipped.key, server.query, server.graph_store)

    server, folder = start_pushed(
        request.param, lambda: tmp_path_factory.mktemp(f"shipped-{request.param}"), fill
    )
    try:
        if server.name == "oxigraph":
            server.stop()
            server = servers.start_oxigraph(folder, read_only=True)
            yield ReadOnly(server.name, server.query, {})
        else:
            yield ReadOnly(server.name, server.query + "-auth", servers.add_reader(server))
    finally:
        server.stop()


@pytest.fixture
def reading(pushed_shipped, monkeypatch) -> RemoteStore:
    """The store as `query --store` and `serve --store` read it: the serving account, and
    every query through the endpoint's gate."""
    for key, val in pushed_shipped.env.items():
        monkeypatch.setenv(key, val)
    # a deadline, as the query worker gives it: a store that stops answering fails the test
    # that asked, not the whole run at CI's limit (Virtuoso's own limit is 120 s a query)
    return RemoteStore(pushed_shipped.query, timeout=600, gate=check_store_query)


def test_shipped_data_quad_counts(reading, shipped):
    local = local_graphs(shipped.open())
    held = store_quads(reading)
    assert sum(held.values()) == sum(g.quads for g in local.values())
    assert held == {name: g.quads for name, g in local.items()}


def answered(store: RemoteStore, text: str, engine: str):
    """The rows the store gives. Virtuoso's planner refuses a query whose cost it estimates
    over its limit (400 s, the default a served Virtuoso has), and its estimate of one query
    differs between servers holding the same data (scaling-by-fabric: 43-2,035 s; it runs in
    7-9 s where let through): that refusal, which the README describes, is an expected
    failure naming the estimate; any other error, and any answer that differs, fails."""
    try:
        return rows(run(store, text))
    except StoreTimeout as e:
        if engine == "virtuoso" and "estimated execution time" in str(e):
            pytest.xfail(f"Virtuoso's planner refused it by its estimate: {e}")
        raise


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_saved_query_same_rows(name, pushed_shipped, reading, embedded_answers):
    remote = reading
    # as `query --example` sends it: a parameter whose default is every value (UNDEF) has no
    # clause, which Virtuoso's planner refuses (query/params.py); the embedded store ran the file
    query = QUERIES[name]
    got = answered(remote, with_values(query.text, query.params, {}), pushed_shipped.name)
    want = embedded_answers[name]
    assert got == want, (
        f"{name} on {pushed_shipped.name}: only there "
        f"{list((got - want).items())[:3]}, only embedded "
        f"{list((want - got).items())[:3]}"
    )


@pytest.mark.parametrize(
    ("name", "given"),
    [
        ("scaling-by-fabric", {"source": ["TensorRT-LLM 0.17"]}),
        ("scaling-by-fabric", {"source": [ARGONNE]}),
        ("accelerator-profile", {"accelerator": ["nvidia-l40s"]}),
    ],
    ids=["scaling-by-fabric-version", "scaling-by-fabric-stating-none", "accelerator-profile-part"],
)
def test_saved_query_with_a_parameter_same_rows(name, given, pushed_shipped, reading, shipped):
    """A value given narrows the answer alike on every store: the version matched among a
    line's names (a run stating none has none, where Virtuoso reads an unbound as "")."""
    if pushed_shipped.name == "virtuoso" and given.get("source") == [ARGONNE]:
        # README says it: let through its planner, this one stops Virtuoso 7.2.5 answering
        # any query until it is restarted (4 of 4 tries, the server idle)
        pytest.skip("scaling-by-fabric with Argonne's source stops Virtuoso 7.2.5")
    query = QUERIES[name]
    text = with_values(query.text, query.params, given)
    want = rows(run(shipped.open(), text))
    assert want
    got = answered(reading, text, pushed_shipped.name)
    assert got == want, f"{name} on {pushed_shipped.name}"


def load_dump(server: servers.Server, path) -> None:
    """The dump file, unchanged, into the store the way its users load one: Oxigraph's
    Graph Store endpoint takes a whole dataset; Virtuoso's bulk loader reads the file."""
    if server.name == "oxigraph":
        import urllib.request

        kind = {"nq": "application/n-quads", "trig": "application/trig"}[path.suffix[1:]]
        request = urllib.request.Request(
            server.graph_store,
            data=path.read_bytes(),
            method="POST",
            headers={"Content-Type": kind},
        )
        with urllib.request.urlopen(request, timeout=120) as r:
            assert r.status in (200, 201, 204)
        return
    sql = (
        f"ld_dir('{path.parent}', '{path.name}', 'urn:benchgraph:unnamed'); "
        "rdf_loader_run(); checkpoint;"
    )
    subprocess.run(
        [
            "isql-vt",
            f"127.0.0.1:{server.sql_port}",
            servers.VIRTUOSO_USER,
            servers.VIRTUOSO_PASSWORD,
            f"exec={sql}",
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )


@pytest.mark.parametrize("engine", ["oxigraph", "virtuoso"])
@pytest.mark.parametrize("fmt", ["nq", "trig"])
def test_dumps_load_unchanged_and_answer_the_same(engine, fmt, tmp_path):
    result = build(RECORDS, skip_invalid=True)
    local = result.open()
    s = start(engine, tmp_path / engine)
    try:
        path = tmp_path / engine / f"benchgraph.{fmt}"
        dump(local, fmt, path)
        load_dump(s, path)
        remote = RemoteStore(s.query)
        held = remote._select(
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } "
            'FILTER(STRSTARTS(STR(?g), "https://w3id.org/benchgraph/")) }',
            raw=True,
        )
        assert int(held[0]["n"]["value"]) == len(local)
        for name, q in QUERIES.items():
            # as `query --example` sends it to a store (see test_saved_query_same_rows)
            sent = with_values(q.text, q.params, {})
            assert rows(run(remote, sent)) == rows(run(local, q.text)), name
    finally:
        s.stop()


def test_prefixes_reach_the_store(reading):
    """The predeclared prefixes are written out for the store (it knows none of them)."""
    remote = reading
    answer = remote.query(
        "ASK { ?run a bg:BenchmarkRun }", prefixes=PREFIXES, use_default_graph_as_union=True
    )
    assert bool(answer)
