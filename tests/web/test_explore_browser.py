"""The analyst's first screen in headless Chromium: the query page opens on its headline answer
(and on an example opened by link, unless the link says run=no), and the results explorer
(/explore) filters, shows the columns chosen, sorts within one metric and unit, charts one
comparable group, downloads what it shows and reopens from its URL. Every figure is rounded.
The saved questions per-watt and scaling-by-fabric chart one comparable group at a time.

Served from this process on slices of the shipped records (every part, system and metric, and
the MLPerf v4.1 llama2-70b runs with the seed run; or a few of NVIDIA's TensorRT-LLM tables),
with the shipped saved queries.
"""

from __future__ import annotations

import re
import shutil
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchgraph.web.figures import figure
from paths import ROOT
from web.test_web_query_page import no_violations, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DATA = ROOT / "data"
DECIMAL = re.compile(r"(?<![\w.:])\d[\d,]*\.\d+(?![\w.])")


def long_figures_in(text: str) -> list[str]:
    """The decimal numbers of `text` with more than 4 significant digits: what a page rounds
    and a download keeps whole."""
    return [
        n for n in DECIMAL.findall(text) if len(n.replace(",", "").replace(".", "").lstrip("0")) > 4
    ]


BENCHMARKS = DATA / "benchmarks"
MLPERF_70B = sorted((BENCHMARKS / "mlperf-v4.1").glob("*llama2-70b*.yaml"))
SEED = BENCHMARKS / "ev-sglang-dsv41-production-decode-tok-s-per-user.yaml"
# NVIDIA's TensorRT-LLM tables at one workload: two models of the v0.17 table (the A100 at
# FP16 beside FP8 parts) and a later table's model, each at several GPU counts
TABLES = [
    path
    for pattern in (
        "trtllm-258c7540c035-llama3.1-70b-*-128-128.yaml",
        "trtllm-258c7540c035-mixtral-8x7b-*-128-128.yaml",
        "trtllm-00f37686aa85-llama3.3-70b-nvidia-rtx-pro-6000-*-128-128.yaml",
    )
    for path in sorted((BENCHMARKS / "trtllm-perf").glob(pattern))
]


def slice_of_data(out: Path, runs: list[Path]) -> Path:
    """The shipped records but for most runs: `runs` alone."""
    for path in DATA.iterdir():
        if path.is_dir() and path.name != "benchmarks":
            shutil.copytree(path, out / path.name)
    (out / "benchmarks").mkdir(parents=True)
    for path in runs:
        shutil.copy(path, out / "benchmarks" / path.name)
    return out


class PageServer:
    def __init__(self, url: str, app):
        self.url, self.app = url, app


@contextmanager
def serving(records: Path, web_cache: Path) -> Iterator[PageServer]:
    """An app on `records` and the shipped saved queries, served from a thread."""
    from werkzeug.serving import make_server

    from benchgraph.pipeline.steps import build
    from benchgraph.serving.prepare import prepare
    from benchgraph.web import create_app
    from web.web_support import free_port

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BENCHGRAPH_CACHE", str(web_cache))
        result = build(records, skip_invalid=True)
    prepared = prepare(result, [])
    port = free_port()
    app = create_app(
        prepared.app_config()
        | {
            "TESTING": True,
            "QUERY_WORKERS": 2,
            "QUERY_TIMEOUT": 10.0,
            "PUBLIC_BASE": f"http://127.0.0.1:{port}",
            "DUMPS_AHEAD": False,
        }
    )
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield PageServer(f"http://127.0.0.1:{port}", app)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        app.extensions["benchgraph"].close()
        prepared.cleanup()


@pytest.fixture(scope="module")
def shipped(tmp_path_factory, web_cache) -> Iterator[PageServer]:
    """The llama2-70b runs of MLPerf v4.1 (some with power measured, on several parts and
    counts) and the seed run."""
    records = slice_of_data(tmp_path_factory.mktemp("explore-data"), [*MLPERF_70B, SEED])
    with serving(records, web_cache) as server:
        yield server


@pytest.fixture(scope="module")
def tables(tmp_path_factory, web_cache) -> Iterator[PageServer]:
    """NVIDIA's tables (TABLES): runs that scale, in three comparable groups."""
    records = slice_of_data(tmp_path_factory.mktemp("tables-data"), TABLES)
    with serving(records, web_cache) as server:
        yield server


RESULT_ROWS = (
    "var r = document.querySelectorAll('.yasr table tbody tr');"
    "return r.length ? Array.from(r).map(x => x.textContent) : null;"
)

# the answer YASR holds, whichever view (table, chart) shows it
BINDINGS = (
    "var y = benchgraph.yasgui.getTab().getYasr();"
    "return y && y.results && y.results.getBindings ? y.results.getBindings() : null;"
)


def test_the_home_page_shows_the_headline_answer_with_no_click(shipped, browser):
    from selenium.webdriver.common.by import By

    browser.get(shipped.url + "/")
    rows = wait_for(browser, RESULT_ROWS)
    # the headline question's answer: runs with no GPU-to-GPU fabric, their status that one
    assert rows and all("bg:NoScaleUpFabric" in r for r in rows)
    assert "no-gpu-fabric" in browser.execute_script(
        "return document.querySelector('#examples li.chosen').dataset.example"
    )
    # the examples list is compact: one line each, the long text closed behind <details>
    line = browser.find_element(By.CSS_SELECTOR, '#examples li[data-example="per-watt"] p.line')
    assert 0 < len(line.text) <= 111
    more = browser.find_element(By.CSS_SELECTOR, '#examples li[data-example="per-watt"] details')
    assert more.get_attribute("open") is None
    no_violations(browser)


def test_an_example_opened_by_link_runs_and_is_scrolled_to(shipped, browser):
    browser.get(shipped.url + "/?example=per-watt&scenario=Offline")
    rows = wait_for(browser, BINDINGS)
    assert rows and all(b["scenario"]["value"] == "Offline" for b in rows)
    in_view = (
        "var li = document.querySelector('#examples li.chosen');"
        "var f = li && li.querySelector('form'); if (!f) return false;"
        "var a = li.closest('aside').getBoundingClientRect(), r = f.getBoundingClientRect();"
        "return li.dataset.example === 'per-watt' && r.top >= Math.max(0, a.top) - 1 &&"
        " r.bottom <= Math.min(window.innerHeight, a.bottom) + 1;"
    )
    assert wait_for(browser, in_view)
    no_violations(browser)


def test_run_no_opens_an_example_without_running_it(shipped, browser):
    browser.get(shipped.url + "/?example=per-watt&run=no")
    wait_for(browser, "return benchgraph.yasgui.getTab().getQuery().indexOf('powerKind') >= 0")
    # the page has loaded and asked what it asks on open; no query went to the endpoint
    wait_for(browser, "return document.readyState === 'complete'")
    asked = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => n.indexOf('/sparql') >= 0)"
    )
    assert asked == []
    no_violations(browser)


def test_the_examples_list_narrows_to_the_words_typed(shipped, browser):
    from selenium.webdriver.common.by import By

    browser.get(shipped.url + "/")
    box = browser.find_element(By.ID, "example-filter")
    box.send_keys("joule")
    shown = wait_for(
        browser,
        "var s = Array.from(document.querySelectorAll('#examples > li'))"
        ".filter(li => !li.hidden).map(li => li.dataset.example);"
        "return s.length < document.querySelectorAll('#examples > li').length ? s : null;",
    )
    assert "per-watt" in shown and "no-gpu-fabric" not in shown
    no_violations(browser)


def page_text(browser) -> str:
    """What the page shows as text, less prose that quotes a source in its own words (notes,
    text literals): a figure there is the source's, as written."""
    return browser.execute_script(
        "var m = document.querySelector('main').cloneNode(true);"
        "m.querySelectorAll('section.note, td.note, span.literal:not([title])')"
        ".forEach(e => e.remove());"
        "document.body.appendChild(m); var t = m.innerText; m.remove(); return t;"
    )


def long_figures(browser) -> list[str]:
    """The figures a page shows (as text, not in a URL or a tooltip) with more than 4
    significant digits."""
    return long_figures_in(page_text(browser))


def test_listing_and_record_pages_show_figures_rounded_and_csv_keeps_them_whole(shipped, browser):
    import urllib.request

    from selenium.webdriver.common.by import By

    # the run listing is the explorer, with the listing's sort and page size
    browser.get(shipped.url + "/id/benchmarks/?sort=value&order=desc&per=500&model=llama2-70b")
    wait_for(browser, "return location.pathname === '/explore'")
    assert "model=llama2-70b" in browser.current_url and "per=500" in browser.current_url
    assert len(browser.execute_script(TABLE)) == 160  # every llama2-70b run, on one page
    assert DECIMAL.search(page_text(browser)) and long_figures(browser) == []
    with urllib.request.urlopen(shipped.url + "/id/benchmarks/?format=csv") as r:
        csv_text = r.read().decode()
    assert long_figures_in(csv_text)  # the same values, whole
    run = "mlperf-v4.1-closed-nvidia-h200-sxm-141gbx8-trt-maxq-llama2-70b-99-offline"
    browser.get(shipped.url + f"/id/benchmarks/{run}")
    assert long_figures(browser) == []
    full = browser.find_element(By.CSS_SELECTOR, "#facts span.literal[data-full]")
    assert long_figures_in(full.get_attribute("title"))  # the whole value on hover
    no_violations(browser)


# --- the explorer ------------------------------------------------------------------------------
TABLE = (
    "return Array.from(document.querySelectorAll('#results tbody tr[data-run]')).map(tr => {"
    "  var o = {id: tr.dataset.run};"
    "  tr.querySelectorAll('td[data-col]').forEach(td => { o[td.dataset.col] = td.textContent; });"
    "  return o; });"
)
HEADERS = (
    "return Array.from(document.querySelectorAll('#results thead th[data-col]'))"
    ".map(th => th.dataset.col)"
)


FIGURES = ("value", "perAccelerator", "power", "efficiency")  # the explorer's figure columns


def number(cell: str) -> float:
    return float(cell.split()[0].replace(",", ""))


def test_explore_filter_columns_sort_chart_download_and_share(shipped, browser):
    import csv
    import io

    from selenium.webdriver.common.by import By

    browser.get(shipped.url + "/")
    browser.find_element(By.LINK_TEXT, "Explore results").click()  # in every page's header
    wait_for(browser, "return location.pathname === '/explore'")
    # unfiltered, the rows mix two metrics: the page says so and sorts within each
    assert "mix 2 metrics" in browser.find_element(By.ID, "mixed").text
    first = browser.find_element(By.CSS_SELECTOR, "#results tbody tr:first-child")
    assert first.get_attribute("class") == "group" and "(tok/s)" in first.text
    # filter: the llama2-70b runs of the Offline scenario on closed division
    for facet, value in (("model", "llama2-70b"), ("scenario", "Offline"), ("division", "closed")):
        link = browser.find_element(
            By.CSS_SELECTOR, f'section.facet[data-facet="{facet}"] a[data-value="{value}"]'
        )
        link.click()
        wait_for(browser, f"return location.search.indexOf('{facet}={value}') >= 0")
    rows = browser.execute_script(TABLE)
    assert rows and all(r["scenario"] == "Offline" for r in rows)
    assert browser.find_elements(By.ID, "mixed") == []  # one metric now
    # choose columns: the engine in, the per-accelerator figure out
    browser.find_element(By.CSS_SELECTOR, 'fieldset.columns input[value="engine"]').click()
    wait_for(browser, "return location.search.indexOf('engine') >= 0")
    browser.find_element(By.CSS_SELECTOR, 'fieldset.columns input[value="perAccelerator"]').click()
    wait_for(browser, "return location.search.indexOf('perAccelerator') < 0")
    headers = browser.execute_script(HEADERS)
    assert "engine" in headers and "perAccelerator" not in headers
    # sort by efficiency: highest first, the runs without a measured power after them
    browser.find_element(By.CSS_SELECTOR, '#results th[data-col="efficiency"] a').click()
    wait_for(browser, "return location.search.indexOf('sort=efficiency') >= 0")
    rows = browser.execute_script(TABLE)
    measured = [number(r["efficiency"]) for r in rows if r["efficiency"]]
    assert len(measured) >= 2 and measured == sorted(measured, reverse=True)
    assert all(r["efficiency"] for r in rows[: len(measured)])
    # the chart: the filtered rows of one comparable group, as many bars as rows with a value
    chart = wait_for(
        browser,
        "var c = benchgraph.exploreChart; return c && {labels: c.data.labels.length,"
        " datasets: c.data.datasets.map(d => d.label)};",
    )
    assert chart["labels"] == len(rows)
    ticks = browser.execute_script(
        "return benchgraph.exploreChart.scales.x.ticks.map(t => t.label)"
    )  # each bar's label, cut to fit, keeps its accuracy target
    assert ticks and all(t.endswith((" (99)", " (99.9)")) for t in ticks), ticks
    assert (
        "Throughput, tokens per second"
        in browser.find_element(By.CSS_SELECTOR, "#chart figcaption").text
    )
    # every figure on the page rounded; the page never scrolls sideways at 1,400 px
    assert long_figures(browser) == []
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1400
    # download: the CSV holds exactly the rows and columns shown, in order, values whole
    href = browser.find_element(By.ID, "download-csv").get_attribute("href")
    text = browser.execute_script("return fetch(arguments[0]).then(r => r.text())", href)
    table = list(csv.DictReader(io.StringIO(text)))
    assert [t["id"] for t in table] == [r["id"] for r in rows]
    assert [h for h in table[0] if not h.endswith(" unit")] == ["id", "label", *headers]
    assert long_figures_in(text)
    assert any(r["engine"].count(" ") for r in rows)  # an engine with its version (TensorRT 10.2)
    data = browser.execute_script(
        "return fetch(arguments[0]).then(r => r.json())",
        browser.find_element(By.ID, "download-json").get_attribute("href"),
    )
    assert [r["id"] for r in data["rows"]] == [r["id"] for r in rows]
    # each cell the same in both: a label as shown, a figure whole that the page rounds
    for shown, in_csv, in_json in zip(rows, table, data["rows"], strict=True):
        for col in headers:
            if col in FIGURES:
                got = in_json[col]
                assert (in_csv[col], in_csv[f"{col} unit"]) == (
                    (got["literal"], got["unit"]) if got else ("", "")
                )
                rounded = figure(float(got["literal"]), got["unit"]) if got else ""
                assert rounded == shown[col], (col, in_csv[col], shown[col])
            else:
                assert in_csv[col] == in_json[col] == shown[col], (col, shown["id"])
    # share the URL, reopen it: the same view
    shared = browser.find_element(By.ID, "share").get_attribute("href")
    browser.get("about:blank")
    browser.get(shared)
    assert browser.execute_script(TABLE) == rows
    assert browser.execute_script(HEADERS) == headers
    no_violations(browser)


def test_the_chart_shows_one_group_when_the_rows_mix_them(shipped, browser):
    from selenium.webdriver.common.by import By

    browser.get(shipped.url + "/explore?chart=scatter&y=value")
    chart = wait_for(
        browser,
        "var c = benchgraph.exploreChart; return c &&"
        " c.data.datasets.reduce((n, d) => n + d.data.length, 0);",
    )
    caption = browser.find_element(By.CSS_SELECTOR, "#chart figcaption").text
    # the larger group charted (160 MLPerf runs), the other offered as a link, never both
    assert chart == 160 and "Other groups: Decode throughput per user (tok/s) (1)" in caption
    # runs held to MLPerf's two accuracy targets: each point's label says which
    labels = browser.execute_script(
        "return JSON.parse(document.getElementById('chart-data').textContent)"
        ".points.map(p => p.label)"
    )
    assert all(label.endswith((" (99)", " (99.9)")) for label in labels), labels[:3]
    browser.find_element(By.CSS_SELECTOR, "#chart figcaption a").click()
    wait_for(browser, "return location.search.indexOf('group=') >= 0")
    assert (
        wait_for(
            browser,
            "var c = benchgraph.exploreChart; return c &&"
            " c.data.datasets.reduce((n, d) => n + d.data.length, 0);",
        )
        == 1
    )
    no_violations(browser)


def test_explore_takes_hostile_values_as_filters_or_says_which_parameter(shipped):
    import json
    import urllib.error
    import urllib.request

    def get(path: str):
        try:
            with urllib.request.urlopen(shipped.url + path) as r:
                return r.status, r.headers.get_content_type(), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get_content_type(), e.read().decode()

    status, kind, body = get("/explore?accelerator=%3Cscript%3Ealert(1)%3C/script%3E")
    assert status == 200 and "No runs" in body and "<script>alert" not in body
    for path, name in (
        ("/explore?col=%3Cb%3E", "col"),
        ("/explore?sort=value;DROP", "sort"),
        ("/explore?y=accelerator", "y"),
        ("/explore?page=x", "page"),
        ("/explore?format=xml", "format"),
    ):
        status, kind, body = get(path)
        assert (status, kind) == (400, "application/json"), path
        assert json.loads(body)["error"].startswith(f"{name}: "), body


# --- the saved questions' charts: one comparable group at a time -----------------------------
DRAWN = (
    "var p = benchgraph.yasgui.getTab().getYasr().plugins.chart;"
    "if (!p || !p.chart || !p.chart.chartArea) return null;"
    "var columns = arguments[0];"
    "return {title: p.chart.options.plugins.title.text,"
    " groups: (p.comparable || []).map(g => [g.name, g.rows]),"
    " rows: p.points.map(pt => columns.map(c => pt.row[c] ? pt.row[c].value : '')),"
    " lines: p.chart.data.datasets.map(d => d.bgSeries || d.label),"
    " picker: Array.from(document.querySelectorAll("
    "  '.bg-chart-controls select[name=group] option')).map(o => o.value),"
    " notes: Array.from(document.querySelectorAll('.yasr .bg-chart-note'))"
    "  .map(n => n.textContent)};"
)
PER_WATT = ["powerKind", "model", "benchmark", "scenario", "accuracyTarget", "workload", "unit"]
SCALING = ["modelLabel", "source"]


def drawn(browser, columns: list[str], title: str | None = None) -> dict:
    """The chart as drawn: its title, groups, charted rows' group columns, lines and notes
    (once its title is `title`, where given)."""
    from selenium.webdriver.support.ui import WebDriverWait

    script = (
        f"var d = (function () {{ {DRAWN} }}).apply(null, arguments);"
        "return d && (arguments[1] === null || d.title === arguments[1]) ? d : null;"
    )
    return WebDriverWait(browser, 30).until(lambda d: d.execute_script(script, columns, title))


def bindings_by_group(browser, columns: list[str]) -> Counter:
    rows = wait_for(browser, BINDINGS)
    return Counter(tuple(b[c]["value"] if c in b else "" for c in columns) for b in rows)


def test_per_watt_charts_one_comparable_group_and_says_how_many_it_mixes(shipped, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(shipped.url + "/?example=per-watt")
    chart = drawn(browser, PER_WATT)
    in_result = bindings_by_group(browser, PER_WATT)
    groups = [name for name, _n in chart["groups"]]
    # wall and board power, two benchmarks, two scenarios: the rows mix groups, and say so
    assert len(groups) == len(in_result) >= 2
    assert chart["notes"][0].startswith(f"These rows mix {len(groups)} comparable groups")
    assert chart["picker"] == groups and chart["title"] == groups[0]  # the first shown
    (first,) = set(map(tuple, chart["rows"]))  # every bar of one group, and all of its rows
    assert len(chart["rows"]) == in_result[first]
    Select(
        browser.find_element(By.CSS_SELECTOR, ".bg-chart-controls select[name=group]")
    ).select_by_value(groups[1])
    chart = drawn(browser, PER_WATT, groups[1])
    (second,) = set(map(tuple, chart["rows"]))
    assert second != first and len(chart["rows"]) == in_result[second]
    no_violations(browser)


def test_per_watt_narrowed_to_one_group_charts_every_row(shipped, browser):
    browser.get(
        shipped.url + "/?example=per-watt&benchmark=llama2-70b-99&scenario=Offline&power=wall"
    )
    chart = drawn(browser, PER_WATT)
    assert len(chart["groups"]) == 1 and chart["picker"] == []
    assert chart["notes"][0] == f"One comparable group: {chart['title']}."
    assert len(chart["rows"]) == sum(bindings_by_group(browser, PER_WATT).values()) >= 1
    no_violations(browser)


def test_scaling_charts_one_model_and_source_at_a_time(tables, browser):
    browser.get(tables.url + "/?example=scaling-by-fabric")
    chart = drawn(browser, SCALING)
    in_result = bindings_by_group(browser, SCALING)
    # two models of one table, and a later table's model: three groups, one line chart each
    assert len(chart["groups"]) == len(in_result) == 3
    assert "These rows mix 3 comparable groups (by ?modelLabel, ?source)" in chart["notes"][0]
    (first,) = set(map(tuple, chart["rows"]))
    assert len(chart["rows"]) == in_result[first] and chart["lines"]
    # each line names its source's repository and version, never the table's commit
    repo, commit = first[1].split("@")
    assert all(f" ({repo}): " in line and commit not in line for line in chart["lines"])
    # narrowed by its parameters to one model, table and precision: one group, no FP16 line
    browser.get(
        tables.url + "/?example=scaling-by-fabric&model=llama3.1-70b"
        "&source=NVIDIA/TensorRT-LLM@258c7540c035&precision=FP8"
    )
    chart = drawn(browser, SCALING)
    assert len(chart["groups"]) == 1 and chart["notes"][0].startswith("One comparable group")
    assert chart["lines"] and not [line for line in chart["lines"] if "A100" in line]
    assert {"H100", "L40S"} <= {w for line in chart["lines"] for w in line.split()}
    no_violations(browser)


# --- a part's page: how it performs ----------------------------------------------------------
BEST = (
    "return Array.from(document.querySelectorAll('#performance table.best tbody tr, "
    "#performance table.best tr:not(:first-child)')).filter(tr => tr.querySelector('td'))"
    ".map(tr => { var c = tr.querySelectorAll('td'), a = tr.querySelector('td.num a');"
    " return {model: c[0].textContent, metric: c[1].textContent, scenario: c[2].textContent,"
    " target: c[3].textContent, shown: a.textContent, full: a.title,"
    " run: a.getAttribute('href')}; });"
)


def significant(number: str) -> int:
    return len(re.sub(r"[.,]", "", number).strip("0"))


def test_a_part_page_shows_its_best_results_rounded_with_units(shipped, browser):
    import json
    import urllib.parse
    import urllib.request

    browser.get(shipped.url + "/id/accelerators/nvidia-h100-sxm")
    best = wait_for(browser, BEST)
    # one best per model, metric, scenario and accuracy target: Offline and Server, 99 and 99.9
    groups = [(b["model"], b["metric"], b["scenario"], b["target"]) for b in best]
    assert len(groups) == len(set(groups)) >= 4
    assert {b["scenario"] for b in best} >= {"Offline", "Server"}
    for b in best:
        number, _, unit = b["shown"].partition(" ")
        assert unit == "tok/s" and significant(number) <= 4, b  # rounded, with its unit
        assert abs(float(number.replace(",", "")) / float(b["full"].split()[0]) - 1) < 5e-4, b
    assert any(significant(b["full"].split()[0]) > 4 for b in best)  # the whole on hover
    # the best is the highest of its group, as the explorer ranks the same runs
    offline = next(b for b in best if (b["scenario"], b["target"]) == ("Offline", "99"))
    query = urllib.parse.urlencode(
        {"accelerator": "nvidia-h100-sxm", "scenario": "Offline", "target": "99", "format": "json"}
    )
    with urllib.request.urlopen(f"{shipped.url}/explore?{query}") as r:
        rows = [row for row in json.load(r)["rows"] if row["value"]]
    top = max(rows, key=lambda row: row["value"]["value"])
    assert offline["run"].endswith("/" + top["id"])
    assert figure(top["value"]["value"], top["value"]["unit"]) == offline["shown"]
    assert long_figures(browser) == []
    no_violations(browser)
