"""The query page, the dumps, /healthz and /metrics, through the test client."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from rdflib import Dataset, Graph

from web.web_support import HERE


def test_query_page_serves_the_editor_from_this_server(client):
    response = client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    text = response.get_data(as_text=True)
    assert "/static/vendor/yasgui/yasgui.min.js" in text
    # nothing is fetched from a CDN or another site
    assert not re.search(r'(src|href)="(https?:)?//', text)
    for path in (
        "/static/vendor/yasgui/yasgui.min.js",
        "/static/vendor/yasgui/yasgui.min.css",
        "/static/benchgraph.js",
        "/static/benchgraph.css",
    ):
        assert client.get(path).status_code == 200, path


def test_yasgui_licence_is_shipped_beside_it():
    vendor = HERE.parents[1] / "src" / "benchgraph" / "web" / "static" / "vendor" / "yasgui"
    assert "MIT License" in (vendor / "LICENSE").read_text()
    assert (vendor / "VERSION").read_text().startswith("@zazuko/yasgui ")


def test_examples_come_from_the_saved_queries(client):
    text = client.get("/").get_data(as_text=True)
    assert 'data-example="accelerators"' in text
    assert "Accelerators and their memory" in text
    # a title with markup characters is text on the page
    assert "Engines &lt;and&gt; &#34;names&#34; &amp; notes" in text
    config = json.loads(re.search(r'id="bg-config">(.*?)</script>', text, re.S).group(1))
    example = next(e for e in config["examples"] if e["name"] == "accelerators")
    # the editor gets the query with the PREFIX lines it needs to run anywhere
    assert example["query"].startswith("PREFIX bg: <https://w3id.org/benchgraph/ontology#>")
    assert "# title:" not in example["query"]
    assert config["endpoint"] == "http://localhost/sparql"


def test_example_queries_run(client):
    text = client.get("/").get_data(as_text=True)
    config = json.loads(re.search(r'id="bg-config">(.*?)</script>', text, re.S).group(1))
    for example in config["examples"]:
        response = client.post("/sparql", data={"query": example["query"]})
        assert response.status_code == 200, example["name"]
        assert response.get_json(force=True)["results"]["bindings"], example["name"]


def test_query_page_without_examples(app, client, tmp_path):
    site = app.extensions["benchgraph"]
    saved, site.examples = site.examples, {}
    try:
        text = client.get("/").get_data(as_text=True)
    finally:
        site.examples = saved
    assert "No saved queries yet." in text


def test_prefixes_for_the_editor(client):
    prefixes = client.get("/prefixes.json").get_json()
    assert prefixes["bg"] == "https://w3id.org/benchgraph/ontology#"


def test_invalid_records_are_announced(client):
    assert "1 record file left out of this build" in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize(
    ("ext", "parser", "quads"),
    [
        ("trig", "trig", True),
        ("nq", "nquads", True),
        ("jsonld", "json-ld", True),
        ("ttl", "turtle", False),
        ("nt", "nt", False),
        ("rdf", "xml", False),
    ],
)
def test_dumps_in_every_format(app, client, ext, parser, quads):
    response = client.get(f"/dumps/benchgraph.{ext}")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    data = response.get_data()
    store = app.extensions["benchgraph"].store()
    if quads:
        d = Dataset()
        d.parse(data=data, format=parser)
        assert len(d) == len(store)
    else:
        union = {(q.subject, q.predicate, q.object) for q in store}
        assert len(Graph().parse(data=data, format=parser)) == len(union)
    zipped = client.get(f"/dumps/benchgraph.{ext}", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.get_data()) == data


def test_writing_a_dump_sweeps_other_snapshots_and_dead_writers(app, client):
    s = app.extensions["benchgraph"]
    folder, other = s.dump_dir / s.key, s.dump_dir / ("0" * len(s.key))
    other.mkdir(parents=True, exist_ok=True)
    (other / "benchgraph.nq").write_bytes(b"an older snapshot's dump")
    folder.mkdir(parents=True, exist_ok=True)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # a writer that is gone: its pid runs nothing now
    left = [
        folder / f"benchgraph.trig.{ended.pid}.part",
        folder / f"benchgraph.trig.gz.{ended.pid}.part",
    ]
    for half in left:
        half.write_bytes(b"half a dump")
    runs = folder / f".benchgraph-dump-{ended.pid}-x1"
    runs.mkdir()
    (runs / "run").write_bytes(b"sorted lines")
    busy = folder / f"benchgraph.trig.{os.getpid()}.part"  # a writer still at work
    busy.write_bytes(b"being written")
    (folder / "benchgraph.trig").unlink(missing_ok=True)  # so this request writes it
    try:
        assert client.get("/dumps/benchgraph.trig").status_code == 200
        assert not other.exists()
        assert not any(half.exists() for half in left) and not runs.exists()
        assert busy.exists() and (folder / "benchgraph.trig").exists()
    finally:
        busy.unlink(missing_ok=True)


def test_a_sweep_leaves_another_snapshot_a_running_writer_prepares(app, client):
    """A rebuild writing the next snapshot's description while this server, still on the
    last one, writes a dump and sweeps: the next snapshot's folder stays (taken from under
    the rebuild, its rename failed and the rebuild with it)."""
    s = app.extensions["benchgraph"]
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    preparing, abandoned = s.dump_dir / ("1" * len(s.key)), s.dump_dir / ("2" * len(s.key))
    for folder, pid in ((preparing, os.getpid()), (abandoned, ended.pid)):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"description.nq.{pid}.part").write_bytes(b"<a> <b> <c> .")
    (s.dump_dir / s.key / "benchgraph.nt").unlink(missing_ok=True)  # so this request writes it
    try:
        assert client.get("/dumps/benchgraph.nt").status_code == 200
        assert preparing.exists() and not abandoned.exists()
    finally:
        shutil.rmtree(preparing, ignore_errors=True)


def test_unknown_dump_is_404(client):
    assert client.get("/dumps/benchgraph.docx").status_code == 404


def test_healthz_reports_the_left_out_record(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True and body["invalid_records"] == 1
    assert body["invalid"] == ["tests/web/data/records/benchmarks/invalid-confidence.yaml"]
    assert body["problems"]["violation"] >= 1
    # the short lane's 2 workers (QUERY_WORKERS) at least, with spares kept warm beside them
    assert body["query_workers"]["workers"] >= 2


def test_metrics_count_queries(client):
    def counter(text: str, status: str) -> int:
        found = re.search(rf'benchgraph_queries_total{{status="{status}"}} (\d+)', text)
        return int(found.group(1)) if found else 0

    before = client.get("/metrics").get_data(as_text=True)
    client.get("/sparql", query_string={"query": "ASK {}"})
    client.get("/sparql", query_string={"query": "ASK {"})
    after = client.get("/metrics").get_data(as_text=True)
    assert counter(after, "200") == counter(before, "200") + 1
    assert counter(after, "400") == counter(before, "400") + 1
    assert "benchgraph_query_seconds_count" in after


def _config(text: str) -> dict:
    return json.loads(re.search(r'id="bg-config">(.*?)</script>', text, re.S).group(1))


def test_the_page_says_what_it_is_and_puts_the_headline_question_first(app, client):
    from benchgraph.query.saved import SavedQuery

    site = app.extensions["benchgraph"]
    saved = site.examples
    headline = SavedQuery(
        "no-gpu-fabric",
        "Runs on hardware with no GPU-to-GPU fabric",
        "",
        "SELECT ?run WHERE { ?run a bg:BenchmarkRun }",
    )
    site.examples = {**saved, "no-gpu-fabric": headline}  # named last, shown first
    try:
        text = client.get("/").get_data(as_text=True)
    finally:
        site.examples = saved
    lead = text.index('<p class="lead">')
    assert lead < text.index('id="examples"')
    assert re.findall(r'data-example="([^"]+)"', text)[0] == "no-gpu-fabric"
    assert _config(text)["examples"][0]["name"] == "no-gpu-fabric"


def test_a_saved_querys_view_reaches_the_page(client):
    config = _config(client.get("/").get_data(as_text=True))
    views = {e["name"]: e["view"] for e in config["examples"]}
    assert views["memory-chart"] == {"type": "bar", "x": "label", "y": "memory", "unitText": "GB"}
    assert views["accelerators"] == {}


def test_the_shipped_questions_name_their_comparable_groups_by_their_columns():
    """per-watt and scaling-by-fabric chart one comparable group at a time: their `# group:`
    lines reach the page's view, each a column of the query's result."""
    from benchgraph.query.saved import saved_queries
    from benchgraph.web.ui import chart_view

    shipped = saved_queries()
    groups = {name: chart_view(q).get("group") for name, q in shipped.items()}
    assert groups["per-watt"][:2] == ["powerKind", "model"] and "unit" in groups["per-watt"]
    assert set(groups["scaling-by-fabric"]) == {"modelLabel", "source"}
    for name, columns in groups.items():
        if columns:
            select = re.search(r"SELECT(.*?)WHERE", shipped[name].text, re.S).group(1)
            assert all(f"?{c}" in select.split() for c in columns), (name, columns)
            assert chart_view(shipped[name])["type"] != "table"  # a chart to group


def test_result_links_lead_to_this_servers_pages(client):
    links = _config(client.get("/").get_data(as_text=True))["links"]
    assert links["recordRoot"] == "/"
    assert links["base"] == "https://w3id.org/benchgraph/"
    assert "https://w3id.org/benchgraph/id/" in links["records"]
    assert links["ontologyPage"] == "/ontology"
    # each place the page sends an IRI answers here
    assert client.get("/id/accelerators/nvidia-h100-sxm").status_code == 200
    assert client.get(links["ontologyPage"]).status_code == 200


def test_the_chart_library_is_served_from_here_with_its_licence(client):
    text = client.get("/").get_data(as_text=True)
    assert "/static/vendor/chartjs/chart.umd.min.js" in text
    for name in (
        "vendor/chartjs/chart.umd.min.js",
        "bg-view.js",
        "bg-chartdata.js",
        "bg-chart.js",
        "bg-table.js",
    ):
        assert client.get("/static/" + name).status_code == 200, name
    vendor = HERE.parents[1] / "src" / "benchgraph" / "web" / "static" / "vendor" / "chartjs"
    assert "MIT License" in (vendor / "LICENSE").read_text()
    assert (vendor / "VERSION").read_text().startswith("chart.js ")
    # it runs under the policy: nothing in it compiles code from text
    bundle = (vendor / "chart.umd.min.js").read_text()
    assert "new Function" not in bundle and "eval(" not in bundle
