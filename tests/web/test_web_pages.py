"""Pages for people: IRIs that can be pasted back, record pages that lead with a summary,
browsing and search without SPARQL, saved questions with parameters."""

from __future__ import annotations

import json

from web.web_support import ID

RUN = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
RTX = "accelerators/nvidia-rtx-pro-6000-blackwell"
HTML = {"Accept": "text/html"}
JSON = {"Accept": "application/sparql-results+json"}


def select(client, query: str) -> list[dict]:
    response = client.post("/sparql", data={"query": query}, headers=JSON)
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.data)["results"]["bindings"]


# --- IRIs that can be pasted --------------------------------------------------------------
def test_the_endpoint_predeclares_a_prefix_per_kind(client):
    rows = select(
        client,
        "SELECT ?label WHERE { VALUES ?a { acc:nvidia-h100-sxm "
        "acc:nvidia-rtx-pro-6000-blackwell } ?a rdfs:label ?label }",
    )
    assert sorted(r["label"]["value"] for r in rows) == [
        "NVIDIA H100 SXM 80 GB",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB",
    ]


def test_a_record_page_prints_its_iri_as_a_query_takes_it(client):
    text = client.get(f"/id/{RUN}", headers=HTML).get_data(as_text=True)
    assert "run:ev-sglang-dsv41-production-decode-tok-s-per-user" in text
    # a link to another record copies as its prefixed name, a measurement's as its whole IRI
    assert 'data-paste="acc:nvidia-rtx-pro-6000-blackwell"' in text
    assert f'data-paste="&lt;{ID}{RUN}#measurement-1&gt;"' in text


# --- record pages that lead with a summary ---------------------------------------------------
def text_of(html: str) -> str:
    import re
    from html import unescape

    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def section(html: str, name: str) -> str:
    start = html.index(">", html.index(f'id="{name}"')) + 1
    return html[start : html.index("</section>", start)]


def test_a_run_page_leads_with_its_answer(client):
    html = client.get(f"/id/{RUN}", headers=HTML).get_data(as_text=True)
    summary = text_of(section(html, "summary"))
    # the headline value with its unit and scope, then the facts a reader asks for first
    assert summary.startswith("93.9 tok/s per user"), summary[:80]
    for said in (
        "Model DeepSeek-V4.1-Flash",
        "Hardware 8 × NVIDIA RTX PRO 6000 Blackwell",
        "Fabric status no scale-up fabric",
        "Engine SGLang",
        "Status draft , confidence 0.75",
        "Measured by third party",
        "Date updated 2026-10-04",
        "Parallelism tensor 8, expert 8; crosses devices",
    ):
        assert said in summary, said
    # the status's basis: the part, the rule and the record it rests on
    basis = section(html, "summary")[section(html, "summary").index('class="basis"') :]
    basis = basis[: basis.index("</ul>")]
    assert "by the rule only host links are stated" in text_of(basis), text_of(basis)
    assert 'href="/id/accelerators/nvidia-rtx-pro-6000-blackwell"' in basis
    # and how strong it is: the strongest kind of source behind it, stated or derived
    assert "(strongest source: " in text_of(basis), text_of(basis)
    # measurements as rows: value and unit, condition, the change against the baseline
    assert "93.9 tok/s prose (prompt_class)" in summary
    assert "134.1 tok/s structured (prompt_class) +43 % against prose" in summary
    assert "143–169 ms" in summary and "220 of 600 W" in summary
    # the summary, then the note, then every triple
    assert html.index('id="summary"') < html.index("<h2>Note</h2>") < html.index('id="facts"')


def test_the_full_table_gives_types_once_and_datatypes_on_hover(client):
    html = client.get(f"/id/{RUN}", headers=HTML).get_data(as_text=True)
    facts = section(html, "facts")
    main = facts[: facts.index('class="node"')]
    assert main.count("<th>types</th>") == 1
    assert "rdf:type" not in text_of(main)
    # a number shows as its value; its datatype is its tooltip, not text beside it
    assert '<span class="literal" title="xsd:integer">8</span>' in main
    assert "xsd:integer" not in text_of(main)


def test_a_part_page_gives_its_facts_with_their_sources(client):
    html = client.get("/id/accelerators/nvidia-h100-sxm", headers=HTML).get_data(as_text=True)
    summary = section(html, "summary")
    rows = {text_of(r).split(" ", 1)[0]: r for r in summary.split("<tr>")[1:]}
    # memory and form factor are stated by source 1 (the seed's notes): footnoted to it
    memory = next(r for r in summary.split("<tr>") if "memory (GB)" in r)
    assert 'href="#source-1"' in memory
    assert '<li id="source-1">' in summary
    assert rows  # the spec table has rows
    # a fact no source states says so
    vendor = next(r for r in summary.split("<tr>") if "<th>vendor</th>" in r)
    assert "no source" in text_of(vendor)
    # the runs on a part, counted, linked to the query that lists them
    rtx = section(client.get(f"/id/{RTX}", headers=HTML).get_data(as_text=True), "summary")
    assert "Runs on it 1" in text_of(rtx)
    assert "#query=" in rtx[rtx.index("Runs on it") :]


def test_every_and_n_more_links_to_the_query_that_lists_them(app, client):
    """With a limit of one link shown, the rest are a link to the query page holding the
    query that lists them all; that query answers every one."""
    from urllib.parse import parse_qs, urlsplit

    from benchgraph.web.ld import RecordPage

    site = app.extensions["benchgraph"]
    iri = f"{ID}interconnects/pcie"
    with app.test_request_context("/"):
        page = RecordPage(site.store(), iri, iri.replace("/id/", "/graph/"), link_limit=1)
        groups = {g.predicate.text: g for g in page.incoming()}
    group = groups["bg:interconnect"]
    assert group.total >= 2 and group.more == group.total - 1
    fragment = parse_qs(urlsplit(group.more_link).fragment)
    assert fragment["view"] == ["table"]
    rows = select(client, fragment["query"][0])
    linking = {r["record"]["value"] for r in rows}
    assert len(linking) == group.total
    assert {link.iri for link, _ in group.links} <= linking


# --- browse and search -----------------------------------------------------------------------
def get_json(client, path: str) -> dict:
    response = client.get(path)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/json"
    return json.loads(response.data)


def test_the_kinds_are_listed_with_their_counts(client):
    kinds = {k["kind"]: k for k in get_json(client, "/id/?format=json")["kinds"]}
    # the test records: two accelerators, one valid run (the invalid one is left out)
    assert kinds["accelerators"]["count"] == 2
    assert kinds["benchmarks"]["count"] == 1
    assert kinds["engines"]["count"] == 3
    html = client.get("/id/", headers=HTML).get_data(as_text=True)
    assert 'href="/id/accelerators/"' in html
    assert client.get("/id/accelerators").status_code in (301, 308)  # to the list


def test_a_kind_lists_its_records_sorted_with_facets(client):
    body = get_json(client, "/id/accelerators/?format=json&sort=memory&order=desc")
    assert body["total"] == 2
    assert [r["label"] for r in body["rows"]] == [
        "NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB",
        "NVIDIA H100 SXM 80 GB",
    ]
    assert body["rows"][0]["memory"] == 96.0
    assert body["rows"][0]["runs"] == 1.0 and body["rows"][1]["runs"] == 0.0
    form = {v["key"]: v["count"] for v in body["facets"]["formFactor"]}
    assert form == {"SxmModule": 1}
    vendor = {v["label"]: v["count"] for v in body["facets"]["vendor"]}
    assert vendor == {"NVIDIA": 2}
    # a facet value filters, and the other facets count what is left
    body = get_json(client, "/id/accelerators/?format=json&formFactor=SxmModule")
    assert [r["id"] for r in body["rows"]] == ["nvidia-h100-sxm"]
    assert {v["label"]: v["count"] for v in body["facets"]["vendor"]} == {"NVIDIA": 1}


def test_a_kind_list_in_pages_with_facet_links_and_csv(client):
    import csv

    html = client.get("/id/accelerators/?per=1&page=2", headers=HTML).get_data(as_text=True)
    assert "2–2 of 2" in html
    assert "NVIDIA RTX PRO 6000" in html and "NVIDIA H100 SXM" not in section(html, "rows")
    assert 'href="/id/accelerators/?formFactor=SxmModule"' in html  # each facet value a link
    assert "(any)" not in html  # no facet is filtered on: none offers to clear itself
    filtered = client.get("/id/accelerators/?formFactor=SxmModule", headers=HTML)
    assert text_of(filtered.get_data(as_text=True)).count("(any)") == 1
    text = client.get("/id/accelerators/?format=csv").get_data(as_text=True)
    rows = list(csv.DictReader(text.splitlines()))
    assert [r["id"] for r in rows] == ["nvidia-h100-sxm", "nvidia-rtx-pro-6000-blackwell"]
    assert rows[0]["memory"] == "80"
    # a run's list: its facets are the curator's (vendor, fabric, status, source round)
    runs = get_json(client, "/id/benchmarks/?format=json")
    assert {"vendor", "fabric", "status", "round"} <= set(runs["facets"])
    assert runs["rows"][0]["fabric"] == [
        {
            "label": "no scale-up fabric",
            "iri": "https://w3id.org/benchgraph/ontology#NoScaleUpFabric",
        }
    ]


def test_the_run_listing_is_the_explorer_with_its_filters(client):
    from urllib.parse import parse_qs, urlsplit

    listing = "/id/benchmarks/?vendor=NVIDIA&status=Draft&unit=tok/s&sort=value&order=asc&per=20"
    response = client.get(listing, headers=HTML)
    assert response.status_code == 302
    to = urlsplit(response.headers["Location"])
    assert to.path == "/explore"
    # the listing's names as the explorer's: a vendor's name as its key, a unit as the metric
    # values given in it, the sort and its order, the page's size
    assert parse_qs(to.query) == {
        "vendor": ["nvidia"],
        "status": ["Draft"],
        "metric": ["tok-s-per-user|tok/s"],
        "order": ["asc"],
        "per": ["20"],
    }
    explored = get_json(client, f"{to.path}?{to.query}&format=json")
    assert [r["id"] for r in explored["rows"]] == [RUN.partition("/")[2]]
    # a filter no run meets keeps none, as the listing did, rather than showing every run
    response = client.get("/id/benchmarks/?round=v9.9", headers=HTML)
    gone = urlsplit(response.headers["Location"])
    assert get_json(client, f"{gone.path}?{gone.query}&format=json")["rows"] == []
    html = client.get("/explore?" + to.query, headers=HTML).get_data(as_text=True)
    assert 'id="results"' in html and RUN.partition("/")[2] in html
    # scripts keep the listing's own JSON and CSV
    assert client.get("/id/benchmarks/?format=csv").status_code == 200


def test_a_bad_list_argument_names_itself(client):
    response = client.get("/id/accelerators/?sort=colour")
    assert response.status_code == 400
    assert "sort: 'colour'" in json.loads(response.data)["error"]
    assert client.get("/id/gadgets/").status_code == 404


def test_search_ranks_labels_ids_and_parts_first(client):
    body = get_json(client, "/search?q=rtx+pro&format=json")
    assert body["results"][0]["id"] == "nvidia-rtx-pro-6000-blackwell"
    assert body["results"][0]["kind"] == "accelerators"
    # the run whose title names the part comes after the part
    assert any(r["kind"] == "benchmarks" for r in body["results"][1:])
    # an id, squashed: h100sxm finds nvidia-h100-sxm
    assert (
        get_json(client, "/search?q=h100sxm&format=json")["results"][0]["id"] == "nvidia-h100-sxm"
    )
    assert get_json(client, "/search?q=xyzzy&format=json")["total"] == 0
    html = client.get("/search?q=sglang", headers=HTML).get_data(as_text=True)
    assert 'href="/id/engines/sglang"' in html


def test_every_page_has_the_search_box(client):
    for path in ("/", f"/id/{RUN}", "/id/", "/ontology"):
        html = client.get(path, headers=HTML).get_data(as_text=True)
        assert 'action="/search"' in html and 'name="q"' in html, path


# --- completion from the ontology; its page's contents ---------------------------------------
def test_the_ontology_terms_for_completion(client):
    terms = get_json(client, "/ontology/terms.json")
    classes = {t["name"]: t for t in terms["classes"]}
    properties = {t["name"]: t for t in terms["properties"]}
    assert classes["bg:BenchmarkRun"]["label"] == "benchmark run"
    assert classes["bg:BenchmarkRun"]["iri"] == "https://w3id.org/benchgraph/ontology#BenchmarkRun"
    assert properties["bg:fabricStatus"]["label"] == "fabric status"
    assert properties["bg:fabricStatus"]["definition"]
    assert not set(classes) & set(properties)


def test_the_ontology_page_has_contents_by_class_and_a_filter(client):
    html = client.get("/ontology", headers=HTML).get_data(as_text=True)
    toc = html[html.index('id="toc"') : html.index("</nav>", html.index('id="toc"'))]
    run = toc[toc.index('href="#BenchmarkRun"') :]
    run = run[: run.index("</ul>")]
    assert 'href="#fabricStatus"' in run and 'href="#acceleratorCount"' in run
    assert 'id="term-filter"' in html and "bg-ontology.js" in html


# --- a refused rebuild is said -----------------------------------------------------------------
def test_a_refused_rebuild_is_degraded_and_every_page_says_so(app, client):
    site = app.extensions["benchgraph"]
    page = f"/id/{RUN}"
    etag = client.get(page, headers=HTML).headers["ETag"]
    assert json.loads(client.get("/healthz").data)["status"] == "ok"
    bad = "tests/web/data/records/accelerators/nvidia-h100-sxm.yaml"
    site.reload = {
        "rebuilds": 1,
        "last_rebuild": {
            "result": "refused",
            "at": 1_800_000_000.0,
            "seconds": 1.0,
            "reason": "watch",
            "violations": [f"{bad}:4: memory_gb: -5 is below 0"],
            "would_leave_out": {
                "count": 1,
                "invalid": [{"file": bad, "why": "invalid"}],
                "linking": [],
                "text": "left out: 1 record invalid",
            },
        },
    }
    try:
        response = client.get("/healthz")
        health = json.loads(response.data)
        assert response.status_code == 200
        assert (health["status"], health["ok"]) == ("degraded", False)
        assert health["degraded"]["files"] == [bad]
        for path in ("/", page, "/id/accelerators/", "/search?q=h100", "/ontology"):
            html = client.get(path, headers=HTML).get_data(as_text=True)
            assert 'id="refused-banner"' in html and bad in html, path
        # a browser's cached copy (without the banner) is not reused
        assert client.get(page, headers=HTML | {"If-None-Match": etag}).status_code == 200
    finally:
        site.reload = {}
    assert 'id="refused-banner"' not in client.get(page, headers=HTML).get_data(as_text=True)


def test_the_query_page_links_the_sssom_dump(client):
    html = client.get("/", headers=HTML).get_data(as_text=True)
    assert 'href="/dumps/benchgraph.sssom.tsv"' in html


# --- dumps written when the snapshot is opened ------------------------------------------------
def test_every_dump_is_written_when_the_snapshot_is_opened(served, tmp_path):
    """Without any request for them, each format's dump is written in the background (in a
    dump folder of this app's own: another app's dumps sweep those of other keys)."""
    import time

    from benchgraph.store.export import FORMATS
    from benchgraph.web import create_app

    app = create_app(
        served.app_config() | {"TESTING": True, "QUERY_WORKERS": 1, "DUMP_DIR": str(tmp_path)}
    )
    try:
        site = app.extensions["benchgraph"]
        folder = tmp_path / site.current.key
        wanted = [folder / f"benchgraph.{ext}" for ext in FORMATS]
        deadline = time.monotonic() + 120
        while not all(p.exists() for p in wanted) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [p.name for p in wanted if not p.exists()] == []
        assert all(p.with_name(p.name + ".gz").exists() for p in wanted)
    finally:
        app.extensions["benchgraph"].close()


def test_search_finds_a_record_by_its_aliases(client):
    """A record's `aliases` (skos:altLabel) are searched, and said when they matched."""
    body = get_json(client, "/id/accelerators/?format=json")
    h100 = next(r for r in body["rows"] if r["id"] == "nvidia-h100-sxm")
    assert h100["aliases"] == ["NVIDIA H100-SXM-80GB"]
    hits = get_json(client, "/search?q=H100-SXM-80GB&format=json")["results"]
    assert hits[0]["id"] == "nvidia-h100-sxm" and hits[0]["aliases"] == ["NVIDIA H100-SXM-80GB"]


def test_the_index_ranks_by_label_alias_and_id():
    from benchgraph.web.catalogue import Row, SearchIndex

    acc = "https://w3id.org/benchgraph/id/accelerators/"
    run = "https://w3id.org/benchgraph/id/benchmarks/"
    index = SearchIndex(
        [
            Row(acc + "part-a", "part-a", "Fixture Part A", aliases=["Codename Falcon"]),
            Row(run + "run-on-a", "run-on-a", "A run on Fixture Part A at batch 8"),
            Row(acc + "part-b", "part-b", "Fixture Part B"),
        ]
    )
    found = index.search("falcon")  # a word only an alias holds
    assert [(row.id, why) for _s, row, why in found] == [("part-a", "alias")]
    found = [row.id for _s, row, _w in index.search("fixture part a")]
    assert found == ["part-a", "run-on-a"]  # the part before the run named after it
    assert index.search("part-b")[0][1].id == "part-b"  # by its id, first
    assert index.search("fixture zebra") == []  # every word must be found


def test_the_server_s_dump_is_byte_for_byte_the_cli_s_export(tmp_path, web_cache, monkeypatch):
    """The same data gives the same bytes from `benchgraph export` and from /dumps/, saved
    queries served beside it or not (their key used to go into the description: 2 lines)."""
    import io
    from contextlib import redirect_stdout

    from benchgraph.cli.main import main
    from benchgraph.pipeline.steps import build
    from benchgraph.serving.prepare import prepare
    from benchgraph.web import create_app
    from web.web_support import EXAMPLES, RECORDS

    monkeypatch.setenv("BENCHGRAPH_CACHE", str(web_cache))
    served = prepare(build(RECORDS, skip_invalid=True), [], queries=EXAMPLES)
    app = create_app(
        served.app_config()
        | {"TESTING": True, "QUERY_WORKERS": 1, "QUERIES_DIR": str(EXAMPLES), "DUMPS_AHEAD": False}
    )
    try:
        client = app.test_client()
        for ext in ("nq", "ttl"):
            response = client.get(f"/dumps/benchgraph.{ext}")
            assert response.status_code == 200
            out = tmp_path / f"cli.{ext}"
            with redirect_stdout(io.StringIO()):
                assert (
                    main(["export", "--data", str(RECORDS), "--format", ext, "--out", str(out)])
                    == 0
                )
            assert response.data == out.read_bytes(), ext
    finally:
        app.extensions["benchgraph"].close()
        served.cleanup()
