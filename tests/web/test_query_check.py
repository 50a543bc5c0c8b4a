"""The check before a query runs: what rdflib (the check) and Oxigraph (the engine) would read
differently is refused, so no SERVICE hides from the check; nesting has a limit, a 400 with a
message, deep enough for generated queries and far below where the engine would crash.

The differential test runs each query on Oxigraph itself, against a listener on 127.0.0.1
that records connections: a query the check passes must never make the engine call out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from urllib.parse import quote, urlencode

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pyparsing import ParseBaseException
from rdflib.plugins.sparql.parser import parseQuery

from benchgraph.errors import QueryRefused
from benchgraph.query.inspect import check_services, inspect_query, needs_parse
from benchgraph.query.text import (
    DEFAULT_MAX_DEPTH,
    MAX_DEPTH_ENV,
    QueryTextError,
    check_depth,
    check_text,
)
from web.web_support import RECORDS, Listener

BASE = "http://localhost/sparql"


@pytest.fixture(scope="module")
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.fixture(scope="module")
def engine() -> ox.Store:
    """An in-memory Oxigraph store with one triple, so that `?s ?p ?o` has a row to join."""
    store = ox.Store()
    store.add(
        ox.Quad(
            ox.NamedNode("http://example.org/s"),
            ox.NamedNode("http://example.org/p"),
            ox.Literal("o"),
        )
    )
    return store


def engine_calls(store: ox.Store, listener: Listener, query: str) -> bool:
    """Whether Oxigraph, running `query`, connects to the listener."""
    before = len(listener.connections)
    try:
        result = store.query(query, base_iri=BASE, use_default_graph_as_union=True)
        if not isinstance(result, ox.QueryBoolean):
            list(result)
    except (SyntaxError, OSError, ValueError, RuntimeError):
        pass
    return len(listener.connections) > before


def check_passes(query: str) -> bool:
    """Whether the endpoint's check lets the query run, with no SERVICE allowed."""
    try:
        check_services(inspect_query(query, BASE), [])
    except QueryRefused:
        return False
    return True


def worker_passes(query: str) -> bool:
    """Whether a query worker runs the query with no SERVICE allowed: unparsed where the
    keyword check (needs_parse) finds no SERVICE or FROM in the code, else after the check."""
    try:
        if not needs_parse(query):
            return True
    except QueryRefused:
        return False
    return check_passes(query)


# --- the hole, and the characters and escapes refused --------------------------------------
def test_a_comment_ended_by_a_bare_cr_hides_service_from_rdflib_but_not_from_oxigraph(
    engine, listener
):
    """The finding itself: Oxigraph ends the comment at CR and calls the SERVICE; rdflib reads
    the SERVICE as part of the comment, which ends at LF. The check refuses the text."""
    query = f"SELECT * WHERE {{ #\r SERVICE <{listener.url}> {{ ?s ?p ?o }}\n ?s ?p ?o }}"
    assert engine_calls(engine, listener, query)
    with pytest.raises(QueryRefused) as refused:
        inspect_query(query, BASE)
    assert refused.value.status == 400
    assert refused.value.position == {"line": 1, "column": 19}
    assert "carriage return" in refused.value.detail


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ("SELECT * {\r?s ?p ?o }", (1, 11), "carriage return"),
        ('SELECT * { ?s ?p """a\rb""" }', (1, 22), "carriage return"),  # even in a long string
        ("SELECT * { #\f\n?s ?p ?o }", (1, 13), "form feed"),
        ("SELECT * {\v?s ?p ?o }", (1, 11), "vertical tab"),
        ("SELECT * { # \x85\n}", (1, 14), "U+0085"),
        ("SELECT * { # \u2028\n}", (1, 14), "U+2028"),
        ("SELECT * {\n \u2029 }", (2, 2), "U+2029"),
        ('SELECT * { BIND("\\u0022" AS ?a) }', (1, 18), "'\"'"),
        ("SELECT * { BIND('\\u0027' AS ?a) }", (1, 18), '"\'"'),
        ('SELECT * { BIND("\\U00000022" AS ?a) }', (1, 18), "'\"'"),
        ('SELECT * { BIND("\\u00000022" AS ?a) }', (1, 18), "'\"'"),
        ('SELECT * { BIND("\\u00220041" AS ?a) }', (1, 18), "past U+10FFFF"),
        ('SELECT * { BIND("\\u005C" AS ?a) }', (1, 18), "'\\\\'"),
        ("SELECT * { # \\u000A\n}", (1, 14), "'\\n'"),
        ("SELECT * { # \\u000d\n}", (1, 14), "'\\r'"),
        ("SELECT * { BIND(<http://x/\\u003E> AS ?a) }", (1, 27), "'>'"),
        ("SELECT * { \\u0023 }", (1, 12), "'#'"),
        ('SELECT * { BIND("\\uD800" AS ?a) }', (1, 18), "surrogate"),
        ('SELECT * { BIND("\\u00110000" AS ?a) }', (1, 18), "past U+10FFFF"),
        ('SELECT * { BIND("\\u0085" AS ?a) }', (1, 18), "line-break"),
    ],
)
def test_text_the_two_parsers_read_differently_is_refused_with_its_position(text, where, says):
    with pytest.raises(QueryTextError) as error:
        check_text(text)
    assert (error.value.line, error.value.column) == where
    assert says in str(error.value)
    with pytest.raises(QueryRefused) as refused:
        inspect_query(text, BASE)
    assert refused.value.status == 400 and refused.value.title == "ambiguous query"
    assert refused.value.position == {"line": where[0], "column": where[1]}


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * {\r\n?s ?p ?o # a comment\r\n}",  # Windows line ends
        'SELECT * { ?s ?p "caf\\u00E9 \\U0001F600" }',  # escapes of letters past ASCII
        "SELECT * { ?s ?p <http://example.org/\\u0078> }",  # an escaped letter in an IRI
        'SELECT * { ?s ?p """a\fb\u2028c""" }',  # odd breaks inside a string are its text
        "SELECT * { ?s ?p 'a\\'b' . ?s ?p \"#\" }",  # a quote escaped the usual way; # in a string
    ],
)
def test_text_both_parsers_read_alike_passes(text):
    check_text(text)
    inspect_query(text, BASE)


# --- the differential test ------------------------------------------------------------------
# Pieces of the ways a SERVICE could hide: comment starts, line ends of every kind (raw and
# escaped), string openers and closers (raw, escaped, long), IRIs with escapes, SERVICE
# spellings. A generated query puts a SERVICE clause between two runs of them.
LINE_ENDS = [
    "\n",
    "\r",
    "\r\n",
    "\f",
    "\v",
    "\x85",
    "\u2028",
    "\u2029",
    "\\u000A",
    "\\u000D",
    "\\U0000000A",
    "\\u000a",
]
PIECES = [
    "#",
    "# x ",
    '#"',
    "#'''",
    "#<",
    " ",
    ".",
    "?s ?p ?o",
    "?s ?p ?o .",
    '"',
    "'",
    '"""',
    "'''",
    '\\"',
    "\\'",
    "\\\\",
    "\\u0022",
    "\\u0027",
    "\\u00000022",
    "\\U00000027",
    "\\u005C",
    "\\u0023",
    "\\u003E",
    "\\u0053ERVICE",
    "<",
    ">",
    "<http://a/#>",
    "{",
    "}",
    "(",
    ")",
    "BIND(",
    " AS ?a)",
    " AS ?b)",
    "FILTER(",
    "1<2",
    "?a<?b#>",
    "x:",
    "\x00",
    "\\",
    "\\u",
    "\\U",
    "x:a\\#b",
    "x:a\\'b",
    'x:a\\"b',
] + LINE_ENDS
SERVICE_FORMS = [
    "SERVICE <{url}> {{ ?s ?p ?o }}",
    "SERVICE SILENT <{url}> {{ ?s ?p ?o }}",
    "\\u0053ERVICE <{url}> {{ ?s ?p ?o }}",
    "service x:sparql {{ ?s ?p ?o }}",
    "SERVICE <{url_escaped}> {{ ?s ?p ?o }}",
    # Oxigraph reads SERVICE SILENT with no space between; rdflib does not
    "SERVICESILENT<{url}>{{ ?s ?p ?o }}",
]
# Pairs meant to open before the SERVICE and close after it, in one parser's reading only.
WRAPS = [
    ("#\r", "\n"),
    ("#\\u000A", "\n"),
    ("#\\u000D", "\n"),
    ('BIND("\\u0022" AS ?a) ', ' BIND("\\u0022" AS ?b)'),
    ("BIND('\\u0027' AS ?a) ", " BIND('\\u0027' AS ?b)"),
    ('BIND("\\u00000022" AS ?a) ', ' BIND("\\u00000022" AS ?b)'),
    ('# \\u000A BIND("""\n', '\n# """ AS ?a)\n'),
    ('BIND("a\\u005C" AS ?a) ', ' "'),
    ('FILTER(1<2#>"""\r) ', ' #"""\n'),
    ("?s ?p ?o FILTER(?o<?b#>)\n", "\n"),
]
QUOTES = [
    '"',
    "'",
    '"""',
    "'''",
    "\\u0022",
    "\\u0027",
    "\\u00000022",
    "\\U00000027",
    '\\"',
    '\\u005C"',
    "\\u005Cu0022",
]
# What may open a hiding place before the SERVICE clause, and what may close it after.
OPENERS = (
    ["#" + end for end in LINE_ENDS]
    + ["#", '# "', ""]
    + [f"BIND({q}" for q in QUOTES]
    + [f"BIND({q}x{r}" for q in QUOTES[:4] for r in QUOTES[4:]]
)
CLOSERS = LINE_ENDS + [f"{q} AS ?b)" for q in QUOTES] + [""]


def _query(
    listener: Listener, before: list[str], form: str, after: list[str], wrap: tuple[str, str]
) -> str:
    port = listener.port
    service = form.format(url=listener.url, url_escaped=f"http://127.0.0.1:{port}/\\u0073parql")
    body = "".join(before) + wrap[0] + " " + service + " " + wrap[1] + "".join(after)
    return f"PREFIX x: <http://127.0.0.1:{port}/>\nSELECT * WHERE {{ ?s ?p ?o {body} }}\n"


hiding_attempts = st.builds(
    lambda before, form, after, wrap: (before, form, after, wrap),
    st.lists(st.sampled_from(PIECES), max_size=3),
    st.sampled_from(SERVICE_FORMS),
    st.lists(st.sampled_from(PIECES), max_size=3),
    st.one_of(
        st.sampled_from(WRAPS), st.tuples(st.sampled_from(OPENERS), st.sampled_from(CLOSERS))
    ),
)
EXAMPLES = int(os.environ.get("BENCHGRAPH_FUZZ_EXAMPLES", "0")) or 300


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(hiding_attempts)
def test_no_query_the_check_passes_makes_the_engine_call_out(engine, listener, attempt):
    query = _query(listener, *attempt)
    if check_passes(query):
        assert not engine_calls(engine, listener, query), query


@pytest.mark.parametrize("wrap", WRAPS, ids=range(len(WRAPS)))
def test_each_hiding_wrap_is_refused_or_found(engine, listener, wrap):
    """The wraps alone, with a plain SERVICE: where the engine calls out, the check refuses.
    (The cases the differential test found: the bare CR and the escaped quotes.)"""
    query = _query(listener, [], SERVICE_FORMS[0], [], wrap)
    assert not (check_passes(query) and engine_calls(engine, listener, query)), query


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(hiding_attempts)
def test_no_query_the_keyword_check_lets_through_makes_the_engine_call_out(
    engine, listener, attempt
):
    """The same attempts against the path most queries take: the keyword check alone, which
    skips comments and strings as Oxigraph splits them."""
    query = _query(listener, *attempt)
    if worker_passes(query):
        assert not engine_calls(engine, listener, query), query


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
@given(hiding_attempts)
def test_no_text_rdflib_refuses_makes_the_endpoint_call_out(client, listener, attempt):
    """The differential test of the refusal path: a text rdflib refuses is answered with a
    400 and never run, not even to learn where it fails (the endpoint once ran such a text
    on an empty store for Oxigraph's position, and the SERVICESILENT spelling called out)."""
    query = _query(listener, *attempt)
    try:
        parseQuery(query)
    except ParseBaseException:
        pass
    else:
        assume(False)
    before = len(listener.connections)
    response = client.get("/sparql", query_string={"query": query})
    assert response.status_code in (400, 403), query
    assert len(listener.connections) == before, query


# Wraps aimed at the keyword check: a comment or string in a naive reading, code in
# Oxigraph's (a <...> read as an IRI where Oxigraph reads a less-than, a local name's escaped
# # or '), and one SERVICE that is in a string to both.
KEYWORD_WRAPS = WRAPS + [
    ("# from\r", "\n"),
    ("# from\n", ""),
    ('BIND("from" AS ?a) ', ""),
    ("FILTER(1<2&&'>'='>') ", " BIND('' AS ?c)"),
    ("OPTIONAL { ?s ?p x:a\\# } ", "\n"),
    ("OPTIONAL { ?s ?p x:a\\' } ", " BIND('' AS ?c)"),
    ('BIND("""a\n', '""" AS ?c)'),
]


@pytest.mark.parametrize("wrap", KEYWORD_WRAPS, ids=range(len(KEYWORD_WRAPS)))
def test_each_hiding_wrap_is_refused_or_found_by_the_keyword_check(engine, listener, wrap):
    query = _query(listener, [], SERVICE_FORMS[0], [], wrap)
    assert not (worker_passes(query) and engine_calls(engine, listener, query)), query


# --- every SERVICE form through the real endpoint ---------------------------------------------
SERVICE_FORMS_LIVE = {
    # the line feed ends rdflib's comment: to rdflib, the SERVICE was inside it
    "comment-cr": "SELECT * WHERE {{ #\r SERVICE <{url}> {{ ?s ?p ?o }}\n ?s ?p ?o }}",
    "comment-crlf": "SELECT * WHERE {{ #\r\n SERVICE <{url}> {{ ?s ?p ?o }}\n ?s ?p ?o }}",
    "comment-ff": "SELECT * WHERE {{ #\f SERVICE <{url}> {{ ?s ?p ?o }}\n ?s ?p ?o }}",
    "comment-escaped-cr": "SELECT * WHERE {{ #\\u000D SERVICE <{url}> {{ ?s ?p ?o }}\n }}",
    "escaped-keyword": "SELECT * WHERE {{ \\u0053ERVICE <{url}> {{ ?s ?p ?o }} }}",
    "escaped-iri": "SELECT * WHERE {{ SERVICE <{url_escaped}> {{ ?s ?p ?o }} }}",
    "escaped-quotes": 'SELECT * WHERE {{ ?s ?p ?o BIND("\\u0022" AS ?a) '
    'SERVICE <{url}> {{ ?s ?p ?o }} BIND("\\u0022" AS ?b) }}',
    "escaped-newline-in-comment": 'SELECT * WHERE {{ ?s ?p ?o # \\u000A BIND("""\n'
    'SERVICE <{url}> {{ ?s ?p ?o }}\n# """ AS ?a)\n}}',
    "subquery": "SELECT * WHERE {{ {{ SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }} }}",
    "exists": "ASK {{ FILTER EXISTS {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }}",
    "not-exists": "ASK {{ FILTER NOT EXISTS {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }}",
    "optional": "SELECT * WHERE {{ ?s ?p ?o OPTIONAL {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }}",
    "minus": "SELECT * WHERE {{ ?s ?p ?o MINUS {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }}",
    "union": "SELECT * WHERE {{ {{ ?s ?p ?o }} UNION {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }}",
    "graph": "SELECT * WHERE {{ GRAPH ?g {{ SERVICE <{url}> {{ ?s ?p ?o }} }} }}",
    "ask": "ASK {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "construct": "CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "describe": "DESCRIBE ?s WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "prefixed": "PREFIX x: <{root}> SELECT * WHERE {{ SERVICE x:sparql {{ ?s ?p ?o }} }}",
    "base-relative": "BASE <{root}> SELECT * WHERE {{ SERVICE <sparql> {{ ?s ?p ?o }} }}",
    "silent": "SELECT * WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
    "variable": "SELECT * WHERE {{ VALUES ?e {{ <{url}> }} SERVICE ?e {{ ?s ?p ?o }} }}",
    "lower-case": "select * where {{ service <{url}> {{ ?s ?p ?o }} }}",
    "no-space-silent": "SELECT * WHERE {{ SERVICESILENT<{url}>{{}} }}",
    "after-local-escape": "PREFIX ex: <http://e/> SELECT * WHERE {{ ?s ex:a\\#b ?o . "
    "SERVICE <{url}> {{}} }}",
    "after-local-quote": "PREFIX ex: <http://e/> ASK {{ ?s ex:a\\'b ?o . SERVICE <{url}> {{}} }}",
}


@pytest.fixture
def fresh_listener():
    found = Listener()
    yield found
    found.close()


@pytest.mark.parametrize("method", ["GET", "form", "POST"])
@pytest.mark.parametrize("form", sorted(SERVICE_FORMS_LIVE))
def test_every_service_form_is_refused_by_the_endpoint_and_never_called(
    live_server, fresh_listener, form, method
):
    root = f"http://127.0.0.1:{fresh_listener.port}/"
    query = SERVICE_FORMS_LIVE[form].format(
        url=fresh_listener.url, root=root, url_escaped=root + "\\u0073parql"
    )
    accept = {"Accept": "application/sparql-results+json"}
    if method == "GET":
        status, _headers, body = live_server.request(
            "GET", "/sparql?" + urlencode({"query": query}, quote_via=quote), headers=accept
        )
    elif method == "form":
        status, _headers, body = live_server.request(
            "POST",
            "/sparql",
            urlencode({"query": query}).encode(),
            accept | {"Content-Type": "application/x-www-form-urlencoded"},
        )
    else:
        status, _headers, body = live_server.request(
            "POST", "/sparql", query.encode(), accept | {"Content-Type": "application/sparql-query"}
        )
    assert status in (400, 403), body
    assert json.loads(body)["title"] in (
        "federated query refused",
        "ambiguous query",
        "malformed query",
    )
    time.sleep(0.2)  # a connection the server began would be recorded by now
    assert fresh_listener.connections == []


# --- nesting depth --------------------------------------------------------------------------
def braces(n: int) -> str:
    """A query n levels deep, the WHERE clause's braces included."""
    return "SELECT * WHERE { " + "{ " * (n - 1) + "?s ?p ?o " + "} " * (n - 1) + "} LIMIT 1"


def parens(n: int) -> str:
    """n levels: the WHERE braces, FILTER's parentheses, and n - 2 more."""
    inner = n - 2
    return "SELECT * WHERE { ?s ?p ?o FILTER(" + "(" * inner + "true" + ")" * inner + ") } LIMIT 1"


def mixed(n: int) -> str:
    """Parentheses and braces by turns: FILTER(EXISTS { FILTER(EXISTS {..., n levels."""
    half = (n - 1) // 2
    return (
        "ASK { ?s ?p ?o "
        + "FILTER(EXISTS { ?s ?p ?o " * half
        + "FILTER(true)"
        + " })" * half
        + " }"
    )


@pytest.mark.parametrize("build", [braces, parens, mixed], ids=["braces", "parens", "mixed"])
def test_200_levels_of_nesting_are_answered(client, build):
    query = build(200)
    assert check_depth(query) in (200, 201)
    response = client.post(
        "/sparql", data={"query": query}, headers={"Accept": "application/sparql-results+json"}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.is_json


@pytest.mark.parametrize("build", [braces, parens], ids=["braces", "parens"])
def test_past_the_limit_is_a_400_naming_the_limit(client, build):
    over = build(DEFAULT_MAX_DEPTH + 1)
    assert check_depth(over, 10_000) == DEFAULT_MAX_DEPTH + 1
    response = client.post("/sparql", data={"query": over})
    assert response.status_code == 400
    body = response.get_json()
    assert body["title"] == "query too deep"
    assert f"limit of {DEFAULT_MAX_DEPTH} levels" in body["error"]
    assert body["position"]["line"] == 1
    assert client.post("/sparql", data={"query": build(DEFAULT_MAX_DEPTH)}).status_code == 200


def test_10000_levels_are_refused_by_the_endpoint(client):
    for query in (braces(10_000), parens(10_000), "SELECT * { " + "<< " * 10_000 + "}"):
        response = client.get("/sparql", query_string={"query": query})
        assert response.status_code == 400
        assert response.get_json()["title"] == "query too deep"
    assert client.get("/sparql", query_string={"query": "ASK {}"}).status_code == 200


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('SELECT * { ?s ?p "(((((" }', 1),  # in a string
        ("SELECT * { ?s ?p '''{{{\n{{{''' }", 1),  # in a long string
        ("SELECT * { # ((((( \n }", 1),  # in a comment
        ("SELECT * { #\r(((((\n }", 6),  # a bare CR ends a comment, as Oxigraph reads it
        ("SELECT * { ?s ?p <http://x/a_(b)> }", 2),  # in an IRI: counted opened, never closed
        ("SELECT * { ?s ?p <http://x/a_(b)>, <http://x/c_(d)> }", 2),  # ...and no more
        ("SELECT * { FILTER(?a<((((((1))))))>0) }", 8),  # `<` read as IRI and as operator
        ("SELECT * { << << <a> <b> <c> >> <b> <c> >> ?p ?o }", 3),  # triple terms
        ("SELECT * { FILTER(?a<<http://x/>) }", 2),  # a less-than before an IRI
    ],
)
def test_depth_skips_strings_and_comments_and_reads_ambiguity_both_ways(text, depth):
    assert check_depth(text, 1000) == depth


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchgraph", "query", "--data", str(RECORDS), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ | (env or {}),
    )


def test_the_cli_refuses_10000_levels_without_crashing(tmp_path):
    """pyoxigraph would overflow the stack near 5,000 levels (exit 139): the CLI checks the
    depth before it builds or parses anything."""
    path = tmp_path / "deep.rq"
    path.write_text(braces(10_000), encoding="utf-8")
    done = run_cli(f"@{path}")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith("benchgraph: the query is refused: line 1, column")
    assert f"limit of {DEFAULT_MAX_DEPTH} levels" in lines[0]


def test_the_cli_runs_200_levels_and_takes_its_limit_from_the_environment(tmp_path, web_cache):
    cache = {"BENCHGRAPH_CACHE": str(web_cache)}
    done = run_cli("--format", "json", braces(200), env=cache)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert sorted(answer["head"]["vars"]) == ["o", "p", "s"]
    assert len(answer["results"]["bindings"]) == 1
    done = run_cli(braces(200), env=cache | {MAX_DEPTH_ENV: "100"})
    assert done.returncode == 2 and "limit of 100 levels" in done.stderr
    done = run_cli(braces(2), env=cache | {MAX_DEPTH_ENV: "lots"})
    assert done.returncode == 2 and MAX_DEPTH_ENV in done.stderr and "Traceback" not in done.stderr


def chain(n: int) -> str:
    """A flat chain of n `&&` (no nesting): Oxigraph recursed along it on the 8 MiB main
    stack and killed the process (exit 139) at 10,000; rdflib hit its recursion
    limit."""
    return "ASK { FILTER(" + " && ".join(["true"] * n) + ") }"


@pytest.mark.slow
def test_a_long_flat_chain_is_answered_not_a_dead_worker():
    """The worker's own answer(), in a process of its own: before, it died of the chain.
    The algebra budget refuses such a chain by default (a store server would die of it);
    raised past it, the embedded store's deep stack answers it."""
    from benchgraph.query.text import MAX_PARTS_ENV

    program = (
        "import json, sys, pyoxigraph as ox\n"
        "from benchgraph.web.queryworker import Settings, answer\n"
        "header, body = answer(ox.Store(), {'query': sys.stdin.read(), 'accept': "
        "'application/sparql-results+json'}, Settings('', 1 << 20))\n"
        "print(json.dumps(header)); print(body.decode())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=chain(12_000),
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ | {MAX_PARTS_ENV: "100000"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    header, body = done.stdout.splitlines()[:2]
    assert json.loads(header)["status"] == 200, header
    assert json.loads(body)["boolean"] is True
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=chain(12_000),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    header = json.loads(done.stdout.splitlines()[0])
    assert header["status"] == 400 and header["error"] == "query too large", header


def test_past_the_operator_limit_is_a_400_naming_the_limit(client):
    """Operators in few tokens and parts (a local name's hyphens, which Oxigraph's scan
    counts): the operator limit's refusal. A chain of 50,000 `!` passes the parts budget
    first, read on the tokens before the rest of the text: a 400 naming that budget."""
    from benchgraph.query.text import DEFAULT_MAX_OPERATORS

    query = "PREFIX ex: <urn:x:> ASK { ?s ?p ex:a" + "-a" * DEFAULT_MAX_OPERATORS + " }"
    response = client.post("/sparql", data={"query": query})
    assert response.status_code == 400
    body = response.get_json()
    assert body["title"] == "query too long"
    assert f"more than {DEFAULT_MAX_OPERATORS:,} operators" in body["error"]
    assert body["position"]["line"] == 1
    query = "ASK { FILTER(" + "!" * DEFAULT_MAX_OPERATORS + "true) }"
    response = client.post("/sparql", data={"query": query})
    assert response.status_code == 400
    body = response.get_json()
    assert body["title"] == "query too large" and "limit of 400" in body["error"]


@pytest.mark.slow
def test_the_cli_runs_a_long_flat_chain_and_refuses_one_past_its_limit(tmp_path, web_cache):
    from benchgraph.query.text import MAX_OPERATORS_ENV, MAX_PARTS_ENV

    cache = {"BENCHGRAPH_CACHE": str(web_cache)}
    path = tmp_path / "chain.rq"
    path.write_text(chain(12_000), encoding="utf-8")
    done = run_cli("--format", "json", f"@{path}", env=cache | {MAX_PARTS_ENV: "100000"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["boolean"] is True
    done = run_cli(f"@{path}", env=cache)  # the algebra budget's default refuses it
    assert done.returncode == 2 and "the query has 12,001 parts" in done.stderr, done.stderr
    done = run_cli(f"@{path}", env=cache | {MAX_OPERATORS_ENV: "1000"})
    assert done.returncode == 2 and "more than 1,000 operators" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("levels", [2, 50, 200])
def test_a_nested_service_is_refused_as_a_service(client, levels):
    """rdflib's parser needs thousands of frames a level of nested SERVICE: such a query was
    refused as "query too deep" after seconds. It is a SERVICE call, refused as one."""
    text = (
        "SELECT * WHERE { "
        + "SERVICE <http://127.0.0.1:9/> { " * levels
        + "?s ?p ?o "
        + "} " * levels
        + "}"
    )
    response = client.get("/sparql", query_string={"query": text})
    assert response.status_code == 403
    assert response.get_json()["title"] == "federated query refused"


@pytest.mark.parametrize(
    "text",
    [
        "SELECT ?service WHERE { ?service ?p ?o } LIMIT 1",
        "PREFIX ex: <http://e/> SELECT * WHERE { ?s ex:service ?o . ?s ex:a.service ?o }",
        "SELECT * WHERE { ?s ?p <http://e/a=service?x> }",
        'SELECT * WHERE { ?s ?p "SERVICE <http://e/> {}" } # SERVICE <http://e/> {}',
    ],
)
def test_the_word_service_in_a_name_string_or_iri_is_no_refusal(client, text):
    response = client.get("/sparql", query_string={"query": text})
    assert response.status_code == 200, response.get_data(as_text=True)
