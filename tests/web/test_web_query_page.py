"""The query page's views in headless Chromium, as an analyst uses them: a result drawn as a
bar, line or scatter chart (looked at in screenshots: the colours of the key are plotted), on
a log scale with the unit on its axis, capped for large results, downloaded as PNG and CSV,
opened from a saved query's view or from a shared link; and the table, errors, a narrow window
and scrolling. No Content-Security-Policy violation anywhere.

The charted numbers come from VALUES in the queries themselves (labelled system-a..f): the
tests are about drawing, not about the records.
"""

from __future__ import annotations

import base64
import os
import re
import urllib.parse
from pathlib import Path

import pytest

from web import png

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWS_QUERY = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?system ?day ?batch ?throughput ?status ?unit WHERE {
  VALUES (?system ?day ?batch ?throughput ?status) {
    ("system-a" "2026-01-05"^^xsd:date 1 12.5 bg:NoScaleUpFabric)
    ("system-b" "2026-02-10"^^xsd:date 2 40 bg:NoScaleUpFabric)
    ("system-c" "2026-03-15"^^xsd:date 4 950 bg:ScaleUpFabricPresent)
    ("system-d" "2026-04-20"^^xsd:date 8 2400 bg:ScaleUpFabricPresent)
    ("system-e" "2026-05-25"^^xsd:date 16 18000 bg:FabricNotPublished)
    ("system-f" "2026-06-30"^^xsd:date 32 31000 bg:FabricNotPublished)
  }
  BIND("tok/s" AS ?unit)
}
"""
STATUSES = ["bg:FabricNotPublished", "bg:NoScaleUpFabric", "bg:ScaleUpFabricPresent"]
VIEWS = {
    "bar": "bar x=?system y=?throughput color=?status log",
    "line": "line x=?day y=?throughput color=?status",
    "scatter": "scatter x=?batch y=?throughput color=?status log",
}
CHART = """
var canvas = document.querySelector('.yasr canvas');
var chart = canvas && Chart.getChart(canvas);
if (!chart || !chart.chartArea) { return null; }
return {type: chart.config.type, labels: chart.data.datasets.map(d => d.label),
        colours: chart.data.datasets.map(d => d.backgroundColor),
        points: chart.data.datasets.map(d => d.data.filter(v => v !== null).length),
        showLine: chart.data.datasets.map(d => !!d.showLine),
        x: chart.scales.x.type, y: chart.scales.y.type,
        xTitle: chart.options.scales.x.title.text, yTitle: chart.options.scales.y.title.text,
        area: [chart.chartArea.left, chart.chartArea.top, chart.chartArea.right,
               chart.chartArea.bottom].map(Math.round),
        notes: Array.from(document.querySelectorAll('.bg-chart-note')).map(n => n.textContent)};
"""


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: BENCHGRAPH_SCREENSHOTS if set (to keep them), else a temp dir."""
    folder = Path(os.environ.get("BENCHGRAPH_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def link(server, query: str, view: str) -> str:
    return server.url + "/#" + urllib.parse.urlencode({"query": query, "view": view})


def wait_for(browser, script: str, timeout: float = 30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda d: d.execute_script(script))


def chart(browser) -> dict:
    return wait_for(browser, CHART)


def editor_text(browser) -> str:
    return browser.execute_script("return benchgraph.yasgui.getTab().getQuery()")


def no_violations(browser, allowed_errors: tuple[str, ...] = ()) -> None:
    """No CSP violation was reported to the page or logged, and nothing else failed."""
    assert browser.execute_script("return window.__violations") == []
    logged = browser.get_log("browser")
    assert [e for e in logged if "Content Security Policy" in e["message"]] == []
    severe = [
        e["message"]
        for e in logged
        if e["level"] == "SEVERE" and not any(a in e["message"] for a in allowed_errors)
    ]
    assert severe == []


def narrow(browser, width: int = 800, height: int = 1000) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


@pytest.mark.parametrize("name", list(VIEWS))
def test_each_chart_view_plots_every_colour_of_its_key(live_server, browser, shots, name):
    from selenium.webdriver.common.by import By

    browser.get(link(live_server, VIEWS_QUERY, VIEWS[name]))
    drawn = chart(browser)
    assert drawn["labels"] == STATUSES  # one series per fabric status, in a stable order
    assert len(set(drawn["colours"])) == 3
    assert sum(drawn["points"]) == 6
    assert drawn["yTitle"] == "?throughput (tok/s)"  # the unit the ?unit column states
    assert drawn["y"] == ("logarithmic" if "log" in VIEWS[name] else "linear")
    assert drawn["showLine"] == [name == "line"] * 3
    assert drawn["x"] == {"bar": "category", "line": "linear", "scatter": "linear"}[name]
    assert drawn["xTitle"] == "?" + VIEWS[name].split()[1].split("?")[1]
    canvas = browser.find_element(By.CSS_SELECTOR, ".yasr canvas")
    browser.execute_script("document.querySelector('.yasr').scrollIntoView()")
    image = canvas.screenshot_as_png
    (shots / f"chart-{name}.png").write_bytes(image)
    browser.find_element(By.CSS_SELECTOR, ".yasr").screenshot(str(shots / f"view-{name}.png"))
    # Inside the plot (the key is above it): marks of every colour of the key.
    inside = png.count_colours(image, drawn["colours"], tuple(drawn["area"]))
    assert all(n >= 8 for n in inside.values()), inside
    assert png.non_white(image) > 0.02
    no_violations(browser)


SERIES_QUERY = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT ?line ?count ?share ?status WHERE {
  VALUES (?line ?count ?share ?status) {
    ("pcie TP" 1 1.0 bg:NoScaleUpFabric) ("pcie TP" 2 0.8 bg:NoScaleUpFabric)
    ("pcie TP" 4 0.6 bg:NoScaleUpFabric)
    ("pcie PP" 1 1.0 bg:NoScaleUpFabric) ("pcie PP" 2 0.75 bg:NoScaleUpFabric)
    ("nvlink TP" 1 1.0 bg:ScaleUpFabricPresent) ("nvlink TP" 2 0.95 bg:ScaleUpFabricPresent)
    ("nvlink TP" 4 0.9 bg:ScaleUpFabricPresent)
  }
}
"""


def test_a_series_column_draws_a_line_each_coloured_by_its_group(live_server, browser, shots):
    from selenium.webdriver.common.by import By

    view = "line x=?count y=?share color=?status series=?line"
    browser.get(link(live_server, SERIES_QUERY, view))
    drawn = chart(browser)
    # three lines (datasets), each in its status's colour, each point on its own line
    assert drawn["type"] == "line" and drawn["points"] == [2, 3, 3]
    series = browser.execute_script(
        "var c = Chart.getChart(document.querySelector('.yasr canvas'));"
        "return {series: c.data.datasets.map(d => d.bgSeries),"
        " key: c.legend.legendItems.map(i => i.text)};"
    )
    # colour groups in sorted order (the same status, the same colour in every chart)
    assert series["series"] == ["pcie PP", "pcie TP", "nvlink TP"]
    assert drawn["labels"] == [
        "bg:NoScaleUpFabric",
        "bg:NoScaleUpFabric",
        "bg:ScaleUpFabricPresent",
    ]
    assert drawn["colours"][0] == drawn["colours"][1] != drawn["colours"][2]
    assert series["key"] == ["bg:NoScaleUpFabric", "bg:ScaleUpFabricPresent"]  # once each
    assert drawn["showLine"] == [True] * 3
    # the shared link keeps the series column
    shared = browser.find_element(By.ID, "share-link").get_attribute("href")
    assert urllib.parse.parse_qs(urllib.parse.urlparse(shared).fragment)["view"][0] == view
    canvas = browser.find_element(By.CSS_SELECTOR, ".yasr canvas")
    image = canvas.screenshot_as_png
    (shots / "chart-line-series.png").write_bytes(image)
    inside = png.count_colours(image, sorted(set(drawn["colours"])), tuple(drawn["area"]))
    assert all(n >= 8 for n in inside.values()), inside
    no_violations(browser)


def test_log_scale_spans_the_decades_and_leaves_out_what_it_cannot_show(live_server, browser):
    query = VIEWS_QUERY.replace(
        '("system-a" "2026-01-05"^^xsd:date 1 12.5', '("system-a" "2026-01-05"^^xsd:date 1 0'
    )
    browser.get(link(live_server, query, VIEWS["bar"]))
    drawn = chart(browser)
    ticks = browser.execute_script(
        "var c = Chart.getChart(document.querySelector('.yasr canvas'));"
        "return c.scales.y.ticks.map(t => t.label).filter(l => l !== '');"
    )
    assert {"10", "100", "1,000", "10,000"} <= set(ticks), ticks
    assert sum(drawn["points"]) == 5
    assert drawn["notes"] == ["1 row at or below 0 is left out of the log scale."]
    no_violations(browser)


def test_a_large_result_is_charted_in_part_and_says_so(live_server, browser):
    values = " ".join(str(i) for i in range(1, 81))
    # one column only: 6,400 rows stay under the test server's 1 MB result limit
    query = (
        f"SELECT ?v WHERE {{ VALUES ?a {{ {values} }} VALUES ?b {{ {values} }} "
        "BIND(?a * ?b AS ?v) }"
    )
    browser.get(link(live_server, query, "scatter y=?v"))
    drawn = wait_for(
        browser, "var r = (function () {" + CHART + "})();return r && r.notes.length ? r : null;"
    )
    assert sum(drawn["points"]) == 5000
    assert drawn["notes"][0].startswith("Charting the first 5,000 of 6,400 rows")
    no_violations(browser)


def test_the_chart_downloads_as_png_and_its_data_as_csv(live_server, browser):
    from selenium.webdriver.common.by import By

    browser.get(link(live_server, VIEWS_QUERY, VIEWS["bar"]))
    drawn = chart(browser)
    # Keep the browser from saving the files; the links' targets are what is checked.
    browser.execute_script(
        "document.addEventListener('click', e => {"
        " if (e.target.matches('a.bg-download')) e.preventDefault(); });"
    )
    links = {a.text: a for a in browser.find_elements(By.CSS_SELECTOR, "a.bg-download")}
    links["PNG"].click()
    href = links["PNG"].get_attribute("href")
    assert href.startswith("data:image/png;base64,")
    image = base64.b64decode(href.split(",", 1)[1])
    width, height, _, _ = png.read(image)
    assert width > 300 and height > 200
    assert all(n > 0 for n in png.count_colours(image, drawn["colours"]).values())
    links["CSV"].click()
    href = links["CSV"].get_attribute("href")
    assert href.startswith("data:text/csv;charset=utf-8,")
    lines = urllib.parse.unquote(href.split(",", 1)[1]).split("\r\n")
    assert lines[0] == "system,throughput,status,unit"
    assert lines[1] == "system-a,12.5,https://w3id.org/benchgraph/ontology#NoScaleUpFabric,tok/s"
    assert len([line for line in lines if line]) == 7
    assert links["PNG"].get_attribute("download") == "benchgraph-chart.png"
    no_violations(browser)


def test_a_saved_query_opens_in_the_view_its_header_names(live_server, browser, shots):
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + "/")
    wait_for(browser, "return document.querySelector('.yasqe .CodeMirror')")
    browser.find_element(By.CSS_SELECTOR, 'button[data-example="memory-chart"]').click()
    drawn = chart(browser)
    assert drawn["type"] == "bar" and drawn["points"] == [2]  # the two accelerators
    assert drawn["yTitle"] == "?memory (GB)" and drawn["xTitle"] == "?label"
    selected = browser.find_element(By.CSS_SELECTOR, ".yasr .select_chart")
    assert "selected" in selected.get_attribute("class")
    # Another example without a view opens as a table again.
    browser.find_element(By.CSS_SELECTOR, 'button[data-example="accelerators"]').click()
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 2")
    no_violations(browser)


def test_the_shared_link_restores_the_query_and_the_view(live_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(link(live_server, VIEWS_QUERY, "bar x=?system y=?throughput"))
    chart(browser)
    Select(
        browser.find_element(By.CSS_SELECTOR, ".bg-chart-controls select[name=view]")
    ).select_by_value("scatter")
    chart(browser)
    browser.find_element(By.CSS_SELECTOR, ".bg-chart-controls input[name=log]").click()
    wait_for(
        browser,
        "return /log$/.test(new URLSearchParams("
        "new URL(document.getElementById('share-link').href).hash.slice(1))"
        ".get('view'))",
    )
    shared = browser.find_element(By.ID, "share-link").get_attribute("href")
    assert browser.current_url == shared  # the address bar holds it too
    view = urllib.parse.parse_qs(urllib.parse.urlparse(shared).fragment)["view"][0]
    assert view == "scatter x=?system y=?throughput color=?status unit=?unit log"
    # A fresh visit (nothing kept from this one) opens the same query in the same view.
    browser.execute_script("localStorage.clear()")
    browser.get("about:blank")
    browser.get(shared)
    drawn = chart(browser)
    assert editor_text(browser) == VIEWS_QUERY
    assert drawn["type"] == "line" and drawn["showLine"] == [False] * 3
    assert drawn["y"] == "logarithmic" and drawn["labels"] == STATUSES
    no_violations(browser)


def test_numbers_show_as_numbers_and_iris_link_to_this_server(live_server, browser, shots):
    from selenium.webdriver.common.by import By

    query = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT ?accelerator ?memory ?status ?elsewhere WHERE {
  ?accelerator a bg:Accelerator ; bg:memoryGB ?memory .
  BIND(bg:NoScaleUpFabric AS ?status)
  BIND(<http://example.org/elsewhere> AS ?elsewhere)
} ORDER BY ?accelerator"""
    browser.get(link(live_server, query, "table"))
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 2")
    table = browser.find_element(By.CSS_SELECTOR, ".yasr table")
    assert "^^" not in table.text and "xsd:" not in table.text
    numbers = browser.find_elements(By.CSS_SELECTOR, ".yasr td span.number")
    assert sorted(n.text for n in numbers) == ["80", "96"]
    assert numbers[0].get_attribute("title").startswith("xsd:")
    hrefs = [a.get_attribute("href") for a in table.find_elements(By.CSS_SELECTOR, "a.iri")]
    assert hrefs[0].startswith(live_server.url + "/id/accelerators/")
    assert live_server.url + "/ontology#NoScaleUpFabric" in hrefs
    assert "http://example.org/elsewhere" in hrefs
    assert live_server.request("GET", urllib.parse.urlparse(hrefs[0]).path)[0] == 200
    browser.find_element(By.CSS_SELECTOR, ".yasr").screenshot(str(shots / "view-table.png"))
    no_violations(browser)


def test_a_figure_in_the_table_is_rounded_with_its_whole_value_on_hover(live_server, browser):
    """4 significant digits on the page (36.564174064309924 reads 36.56, 10400.9988793425
    reads 10,400), the whole value in the cell's title and in every download; a count stays
    whole (13016 is not 13,020)."""
    from selenium.webdriver.common.by import By

    query = """SELECT ?v WHERE {
  VALUES ?v { 36.564174064309924 "10400.9988793425"^^<http://www.w3.org/2001/XMLSchema#double>
              13016 }
}"""
    browser.get(link(live_server, query, "table"))
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 3")
    cells = browser.find_elements(By.CSS_SELECTOR, ".yasr td span.number")
    shown = {c.text: c.get_attribute("title") for c in cells}
    assert set(shown) == {"36.56", "10,400", "13016"}, shown
    assert shown["36.56"].endswith("36.564174064309924")
    assert shown["10,400"].endswith("10400.9988793425")
    assert shown["13016"] == "xsd:integer"
    no_violations(browser)


def test_an_error_is_wrapped_text_with_nothing_to_download(live_server, browser, shots):
    from selenium.webdriver.common.by import By

    narrow(browser)
    # A filter with nothing after its `=`: the message says where rdflib's reading stops
    query = "SELECT * WHERE { ?s ?p ?o FILTER(?o = ) }"
    browser.get(link(live_server, query, "table"))
    message = wait_for(browser, "return document.querySelector('.bg-error-message')")
    box = browser.find_element(By.CSS_SELECTOR, ".bg-error")
    assert "malformed query (400)" in box.text
    assert "as rdflib's parser reads it" in message.text
    assert re.search(r"line 1, column \d+", message.text)
    assert '"ok"' not in message.text  # the message, not the JSON it came in
    assert message.value_of_css_property("white-space") == "pre-wrap"
    # wrapped: as wide as its box, over more than one line
    assert browser.execute_script(
        "var m = arguments[0]; return m.scrollWidth <= m.clientWidth", message
    )
    lines = browser.execute_script(
        "var m = arguments[0]; return m.getBoundingClientRect().height"
        " / parseFloat(getComputedStyle(m).lineHeight)",
        message,
    )
    assert lines > 1.5  # a ratio of two measured heights: 1.9993 for two lines
    assert not browser.find_element(By.ID, "downloads").is_displayed()
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 800
    box.screenshot(str(shots / "view-error.png"))
    no_violations(browser, allowed_errors=("status of 400",))


def test_the_page_fits_800_px_and_a_wide_table_scrolls_in_its_box(live_server, browser, shots):
    from selenium.webdriver.common.by import By

    narrow(browser)
    query = (
        "SELECT ?s ?p ?o ?note WHERE { ?s ?p ?o . "
        'BIND(CONCAT("a long note without spaces: ", REPLACE(STR(?s), "/", "-"), '
        'REPLACE(STR(?p), "/", "-")) AS ?note) } LIMIT 20'
    )
    browser.get(link(live_server, query, "table"))
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 20")
    assert browser.execute_script("return window.innerWidth") == 800
    # without the table's "Ellipse", its cells are whole and the table wider than the window
    ellipse = browser.find_element(By.XPATH, "//span[text()='Ellipse']/following::input[1]")
    if ellipse.is_selected():
        ellipse.click()
    box = wait_for(
        browser,
        "var b = document.querySelector('.yasr .dt-layout-table');"
        "return b && b.scrollWidth > b.clientWidth ? b : null;",
    )
    assert box.value_of_css_property("overflow-x") == "auto"
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 800
    browser.save_screenshot(str(shots / "page-800px-table.png"))
    browser.get(link(live_server, VIEWS_QUERY, VIEWS["bar"]))
    drawn = chart(browser)
    assert drawn["area"][2] <= 800
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 800
    browser.find_element(By.ID, "editor").screenshot(str(shots / "page-800px-chart.png"))
    no_violations(browser)


def test_at_800_px_the_editor_comes_first_and_an_example_scrolls_to_it(live_server, browser):
    from selenium.webdriver.common.by import By

    narrow(browser, 800, 600)
    browser.get(live_server.url + "/")
    wait_for(browser, "return document.querySelector('.yasqe .CodeMirror')")
    # The line saying what the page is, then the editor, then the examples below it.
    assert browser.execute_script("return window.scrollY") == 0
    lead = browser.find_element(By.CSS_SELECTOR, "p.lead")
    assert lead.is_displayed() and "SPARQL" in lead.text
    editor = browser.find_element(By.ID, "editor")
    examples = browser.find_element(By.CSS_SELECTOR, "aside.examples")
    top = "return arguments[0].getBoundingClientRect().top"
    assert browser.execute_script(top, editor) < 600
    assert browser.execute_script(top, editor) < browser.execute_script(top, examples)
    button = browser.find_element(By.CSS_SELECTOR, 'button[data-example="accelerators"]')
    browser.execute_script("arguments[0].scrollIntoView()", button)
    button.click()
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 2")
    top, results = browser.execute_script(
        "return [arguments[0].getBoundingClientRect().top,"
        " document.querySelector('.yasr').getBoundingClientRect().top]",
        editor,
    )
    assert -2 <= top <= 150, top  # the editor at the top of the window (or the page's end)
    assert results < 600, results  # and its result starting in view
    no_violations(browser)


MARKUP_QUERY = """SELECT ?iri ?text ?tagged ?typed WHERE {
  VALUES (?iri ?text ?tagged ?typed) {
    (<javascript:alert(1)> "<img src=x onerror=window.__bg_injected=1>" "<b>bold</b>"@en
     "<i>it</i> &amp; more"^^<http://example.org/type>)
    (<JavaScript:alert(2)> "<script>window.__bg_injected=2</script>" "a & b"@en "x"^^<urn:x>)
    (<data:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg==> "plain" "c"@en "y")
    (<http://example.org/a?b=1&c='d'> "<svg onload=window.__bg_injected=3>" "d"@en "z")
  }
}"""
SHOWN = {
    "<img src=x onerror=window.__bg_injected=1>",
    "<script>window.__bg_injected=2</script>",
    "<svg onload=window.__bg_injected=3>",
    '"<b>bold</b>"@en',
    '"a & b"@en',
    '"<i>it</i> &amp; more"^^<http://example.org/type>',
    "<javascript:alert(1)>",
    "<JavaScript:alert(2)>",
    "<data:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg==>",
}
CELLS = """return Array.from(document.querySelectorAll('.yasr table tbody td'))
  .map(td => td.textContent);"""
MARKUP = """var table = document.querySelector('.yasr table');
return {links: Array.from(table.querySelectorAll('a')).map(a => a.getAttribute('href')),
        elements: Array.from(table.querySelectorAll('tbody td *')).map(e => e.tagName)
          .filter(t => ['DIV', 'SPAN', 'A', 'SUP'].indexOf(t) < 0),
        handlers: Array.from(table.querySelectorAll('*')).filter(e => Array.from(e.attributes)
          .some(a => a.name.indexOf('on') === 0)).length,
        injected: window.__bg_injected === undefined ? null : window.__bg_injected};"""


def test_only_http_and_https_iris_of_a_result_are_links(live_server, browser):
    """An IRI of javascript:, data: or any scheme but http(s) is shown, not linked (the CSP
    blocked a click on the javascript: one; a link should not be there to click)."""
    browser.get(link(live_server, MARKUP_QUERY, "table"))
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 4")
    links = browser.execute_script(MARKUP)["links"]
    assert sorted(links) == ["http://example.org/a?b=1&c='d'", "http://example.org/type"]
    assert SHOWN <= set(browser.execute_script(CELLS))  # the others shown as text
    no_violations(browser)


def test_result_markup_is_text_shown_searched_and_sorted_with_no_csp_report(live_server, browser):
    """A literal holding markup is shown as that text, whether shown, searched, sorted or in
    the simple view, and nothing of it is parsed as HTML: the CSP reported an event handler
    of one (script-src-attr) where it blocked it."""
    from selenium.webdriver.common.by import By

    browser.get(link(live_server, MARKUP_QUERY, "table"))
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 4")

    def check() -> None:
        found = browser.execute_script(MARKUP)
        assert (found["elements"], found["handlers"], found["injected"]) == ([], 0, None)
        no_violations(browser)

    check()
    assert SHOWN <= set(browser.execute_script(CELLS))
    # searched by its text: the markup is found as text
    search = browser.find_element(By.CSS_SELECTOR, ".yasr input.tableFilter")
    for text in ("onerror=window", "&amp; more", "</script>", "c='d'"):
        search.clear()
        search.send_keys(text)
        wait_for(
            browser,
            "return document.querySelectorAll('.yasr table tbody tr').length === 1"
            " && document.querySelector('.yasr tbody td.dt-empty') === null",
        )
        check()
    search.clear()
    search.send_keys(" ")
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 4")
    # sorted by a column of markup, and the simple view
    browser.find_elements(By.CSS_SELECTOR, ".yasr table thead th")[2].click()
    check()
    simple = browser.find_element(By.XPATH, "//span[text()='Simple view']/following::input[1]")
    simple.click()
    wait_for(browser, "return document.querySelector('.yasr table tbody td') !== null")
    assert "<img src=x onerror=window.__bg_injected=1>" in browser.execute_script(CELLS)
    check()
