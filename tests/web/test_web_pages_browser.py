"""Pages for people in headless Chromium: a record page leads with its summary and never
scrolls sideways at 1,400 px; browsing by facet and sorting; the search box; the editor's
completion from the ontology; the ontology's filter; the banner of a refused rebuild; IRIs
copied as a query takes them; the chart's labels, accuracy targets and units. No Content-
Security-Policy violation in any of it.

The pages are served by the session's app (the test records) in this process, so a test can
set what the server knows (a refused rebuild) without rebuilding anything.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator

import pytest

from web.test_web_query_page import chart, no_violations, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RUN = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"


class PageServer:
    def __init__(self, url: str, app):
        self.url, self.app = url, app


@pytest.fixture(scope="module")
def pages(served) -> Iterator[PageServer]:
    """An app on the test records, served on a free port of 127.0.0.1 from a thread of this
    process, its public base that address (publicbase.py: where the page sends queries)."""
    from werkzeug.serving import make_server

    from benchgraph.web import create_app
    from web.web_support import EXAMPLES, free_port

    port = free_port()
    app = create_app(
        served.app_config()
        | {
            "TESTING": True,
            "QUERY_WORKERS": 2,
            "QUERY_TIMEOUT": 5.0,
            "QUERIES_DIR": str(EXAMPLES),
            "PUBLIC_BASE": f"http://127.0.0.1:{port}",
            "DUMPS_AHEAD": False,
        }
    )
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield PageServer(f"http://127.0.0.1:{port}", app)
    server.shutdown()
    thread.join(timeout=10)
    app.extensions["benchgraph"].close()


def link(server: PageServer, query: str, view: str) -> str:
    return server.url + "/#" + urllib.parse.urlencode({"query": query, "view": view})


def test_a_run_page_leads_with_its_summary_and_fits_1400_px(pages, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{pages.url}/id/{RUN}")
    headline = browser.find_element(By.CSS_SELECTOR, "p.headline")
    assert headline.text.startswith("93.9 tok/s per user")
    top = "return arguments[0].getBoundingClientRect().top"
    assert browser.execute_script(top, headline) < 400  # in the first screen, near the top
    status = browser.find_element(By.XPATH, "//table[@class='summary']//th[text()='Fabric status']")
    assert browser.execute_script(top, status) < 1000
    # the note, then every triple, below the summary
    note = browser.find_element(By.XPATH, "//h2[text()='Note']")
    facts = browser.find_element(By.ID, "facts")
    assert (
        browser.execute_script(top, status)
        < browser.execute_script(top, note)
        < browser.execute_script(top, facts)
    )
    # datatypes on hover, not beside the value
    typed = browser.find_element(By.CSS_SELECTOR, "#facts span.literal[title='xsd:integer']")
    assert typed.is_displayed()
    assert browser.execute_script("return window.innerWidth") == 1400
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1400
    no_violations(browser)


def test_browse_by_facet_and_sort(pages, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{pages.url}/id/accelerators/")
    rows = (
        "return Array.from(document.querySelectorAll('table.listing tbody tr td:first-child'))"
        ".map(td => td.textContent.trim())"
    )
    assert browser.execute_script(rows) == [
        "NVIDIA H100 SXM 80 GB",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB",
    ]
    browser.find_element(By.XPATH, "//table[@class='listing']//th/a[text()='memory (GB)']").click()
    wait_for(browser, "return location.search.indexOf('sort=memory') >= 0")
    assert browser.execute_script(rows)[0].startswith("NVIDIA RTX PRO 6000")  # 96 before 80
    facet = browser.find_element(By.CSS_SELECTOR, "section.facet[data-facet=formFactor]")
    assert "SXM module 1" in facet.text
    facet.find_element(By.LINK_TEXT, "SXM module").click()
    wait_for(browser, "return location.search.indexOf('formFactor=SxmModule') >= 0")
    assert browser.execute_script(rows) == ["NVIDIA H100 SXM 80 GB"]
    assert "1–1 of 1 (of 2 in all)" in browser.find_element(By.CSS_SELECTOR, "p.count").text
    chosen = browser.find_element(By.CSS_SELECTOR, "section.facet[data-facet=formFactor] li.chosen")
    assert chosen.text.startswith("✓ SXM module") or "SXM module" in chosen.text
    no_violations(browser)


def test_the_search_box_in_the_header(pages, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{pages.url}/id/{RUN}")
    box = browser.find_element(By.CSS_SELECTOR, "header.site form.search input[name=q]")
    box.send_keys("rtx pro", Keys.ENTER)
    wait_for(browser, "return location.pathname === '/search'")
    first = browser.find_element(By.CSS_SELECTOR, "ol.results li a")
    assert first.text == "NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB"
    assert (
        browser.find_element(By.CSS_SELECTOR, "header.site input[name=q]").get_attribute("value")
        == "rtx pro"
    )
    first.click()
    wait_for(
        browser, "return location.pathname === '/id/accelerators/nvidia-rtx-pro-6000-blackwell'"
    )
    no_violations(browser)


def test_the_editor_completes_classes_and_properties_from_this_server(pages, browser):
    from selenium.webdriver.common.action_chains import ActionChains

    browser.get(pages.url + "/")
    wait_for(browser, "return document.querySelector('.yasqe .CodeMirror')")
    hints = (
        "return Array.from(document.querySelectorAll('.CodeMirror-hints li'))"
        ".map(li => li.textContent)"
    )
    for text, typed, expected in (
        ("SELECT * WHERE {\n  ?r a bg:Benchmar", "k", "bg:BenchmarkRun  — benchmark run"),
        ("SELECT * WHERE {\n  ?r bg:fabricStat", "u", "bg:fabricStatus  — fabric status"),
    ):
        browser.execute_script(
            "var y = benchgraph.yasgui.getTab().getYasqe(); y.setValue(arguments[0]);"
            "y.focus(); y.setCursor({line: 1, ch: arguments[0].split('\\n')[1].length});",
            text,
        )
        # keys go to the focused editor as a user's typing does: CodeMirror's textarea is
        # a 1px box that WebDriver may call "not interactable" while the page lays out
        wait_for(
            browser,
            "return document.activeElement && document.activeElement.closest('.CodeMirror')",
        )
        ActionChains(browser).send_keys(typed).perform()
        found = wait_for(
            browser, hints.replace("return ", "var h = ") + "; return h.length ? h : null;"
        )
        assert expected in found, found
        ActionChains(browser).send_keys("\n").perform()  # take the first
        assert expected.split()[0] in browser.execute_script(
            "return benchgraph.yasgui.getTab().getQuery()"
        )
    # the completions came from here: no request left this server
    origins = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).origin)"
    )
    assert set(origins) == {pages.url}
    no_violations(browser)


def test_the_ontology_page_filters_its_terms(pages, browser):
    from selenium.webdriver.common.by import By

    browser.get(pages.url + "/ontology")
    shown = (
        "return Array.from(document.querySelectorAll('div.term')).filter(t => !t.hidden)"
        ".map(t => t.id)"
    )
    everything = browser.execute_script(shown)
    box = browser.find_element(By.ID, "term-filter")
    box.send_keys("fabric status basis")
    left = wait_for(
        browser,
        shown.replace("return ", "var s = ") + f"; return s.length < {len(everything)} ? s : null;",
    )
    assert "FabricStatusBasis" in left and "memoryGB" not in left
    assert f"of {len(everything)} terms" in browser.find_element(By.ID, "term-count").text
    toc = browser.find_element(By.ID, "toc")
    assert "basis of a fabric status" in toc.text and "memory (GB)" not in toc.text
    no_violations(browser)


def test_every_page_shows_the_banner_while_a_rebuild_is_refused(pages, browser):
    from selenium.webdriver.common.by import By

    site = pages.app.extensions["benchgraph"]
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
        for path in ("/", f"/id/{RUN}", "/id/accelerators/", "/ontology"):
            browser.get(pages.url + path)
            banner = browser.find_element(By.ID, "refused-banner")
            assert banner.is_displayed() and bad in banner.text, path
            assert "not what is on disk" in banner.text
    finally:
        site.reload = {}
    browser.get(pages.url + "/")
    assert browser.find_elements(By.ID, "refused-banner") == []
    no_violations(browser)


def test_iris_copy_as_a_query_takes_them(pages, browser):
    browser.get(
        link(
            pages,
            "SELECT ?a ?m WHERE { ?a a bg:Accelerator . "
            "OPTIONAL { <https://w3id.org/benchgraph/id/benchmarks/"
            "ev-sglang-dsv41-production-decode-tok-s-per-user> bg:measurement ?m "
            "FILTER(STRENDS(STR(?m), 'measurement-1')) } } ORDER BY ?a",
            "table",
        )
    )
    wait_for(browser, "return document.querySelectorAll('.yasr table tbody tr').length === 2")
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('.yasr tbody a.iri')).map(a => a.textContent)"
    )
    assert "acc:nvidia-h100-sxm" in shown
    assert any(s.endswith("#measurement-1") and s.startswith("run:") for s in shown)
    copied = browser.execute_script("""
        var body = document.querySelector('.yasr table tbody');
        var range = document.createRange(); range.selectNodeContents(body);
        var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        var data = new DataTransfer();
        document.dispatchEvent(new ClipboardEvent('copy', {clipboardData: data, bubbles: true,
                                                           cancelable: true}));
        return data.getData('text/plain');""")
    assert "acc:nvidia-h100-sxm" in copied
    assert (
        "<https://w3id.org/benchgraph/id/benchmarks/ev-sglang-dsv41-production-decode-"
        "tok-s-per-user#measurement-1>"
    ) in copied
    assert "run:ev-sglang" not in copied  # the form that would not parse is not copied
    no_violations(browser)


LONG = """SELECT ?system ?value ?accuracyTarget ?unit ?maker WHERE {
  VALUES (?system ?value ?accuracyTarget ?unit ?maker) {
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition" 10 "99" "tok/s" "NVIDIA")
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition" 9 "99.9" "tok/s" "NVIDIA")
    ("HPE ProLiant Compute DL380a Gen12 (8x RTX PRO 6000, TensorRT)" 12 "99" "tok/s" "HPE")
    ("HPE ProLiant Compute DL380a Gen12 (8x RTX PRO 6000, TensorRT)" 11 "99.9" "tok/s" "HPE")
    ("a sample counter" 500 "99" "samples/s" "HPE")
  }
}"""


def test_chart_labels_keep_their_start_and_say_their_accuracy_target(pages, browser):
    # coloured by maker: the accuracy target goes into each label
    browser.get(link(pages, LONG, "bar x=?system y=?value color=?maker unit=?unit"))
    chart(browser)
    ticks = wait_for(
        browser,
        "var c = Chart.getChart(document.querySelector('.yasr canvas'));"
        "return c.scales.x.ticks.map(t => t.label);",
    )
    assert ticks, ticks
    for tick in ticks:
        assert tick.startswith(("NVIDIA RTX PRO", "HPE ProLiant")), ticks  # never only the end
        assert tick.endswith(("(99)", "(99.9)")), ticks  # the target says which row is which
    notes = " ".join(chart(browser)["notes"])
    assert "differ by ?accuracyTarget (99, 99.9)" in notes
    # with no colour asked for, the colours are the targets, and the key says so
    browser.get(link(pages, LONG, "bar x=?system y=?value unit=?unit"))
    browser.refresh()
    drawn = chart(browser)
    assert drawn["labels"] == ["99", "99.9"]
    assert (
        browser.execute_script(
            "return Chart.getChart(document.querySelector('.yasr canvas'))"
            ".options.plugins.legend.title.text"
        )
        == "?accuracyTarget"
    )
    no_violations(browser)


def test_a_chart_of_several_units_shows_one_at_a_time(pages, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(link(pages, LONG, "bar x=?system y=?value unit=?unit"))
    drawn = chart(browser)
    assert drawn["yTitle"] == "?value (tok/s)"  # the commonest unit first, alone on its axis
    assert sum(drawn["points"]) == 4
    assert any("2 units (samples/s, tok/s)" in n for n in drawn["notes"])
    Select(
        browser.find_element(By.CSS_SELECTOR, ".bg-chart-controls select[name=unit]")
    ).select_by_value("samples/s")
    drawn = wait_for(
        browser,
        "var c = Chart.getChart(document.querySelector('.yasr canvas'));"
        "return c && c.options.scales.y.title.text === '?value (samples/s)'"
        " ? c.data.datasets.map(d => d.data.filter(v => v !== null).length)"
        " : null;",
    )
    assert sum(drawn) == 1
    no_violations(browser)


def test_a_shared_chart_link_scrolls_to_the_chart(pages, browser):
    browser.get(link(pages, LONG, "bar x=?system y=?value unit=?unit"))
    chart(browser)
    # scrolled down to it: the chart wholly in the window
    assert wait_for(
        browser,
        "var f = document.querySelector('.yasr figure.bg-chart');"
        "var r = f && f.getBoundingClientRect();"
        "return window.scrollY > 0 && r.top >= 0 &&"
        " r.bottom <= window.innerHeight;",
    )
    no_violations(browser)


def test_a_saved_question_asked_with_its_form(pages, browser):
    from selenium.webdriver.common.by import By

    browser.get(pages.url + "/")
    wait_for(browser, "return document.querySelector('.yasqe .CodeMirror')")
    form = browser.find_element(By.CSS_SELECTOR, 'form.params[data-example="part-memory"]')
    part = form.find_element(By.NAME, "part")
    part.clear()
    part.send_keys("acc:nvidia-rtx-pro-6000-blackwell")
    above = form.find_element(By.NAME, "above")
    above.clear()
    above.send_keys("90")
    browser.execute_script("arguments[0].scrollIntoView()", form)
    form.find_element(By.TAG_NAME, "button").click()
    wait_for(browser, "return location.search.indexOf('part=acc%3Anvidia-rtx-pro-6000') >= 0")
    rows = wait_for(
        browser,
        "var r = document.querySelectorAll('.yasr table tbody tr');"
        "return r.length ? Array.from(r).map(x => x.textContent) : null;",
    )
    # one row per status asked (the default two); the seed run is the draft one's
    assert len(rows) == 2 and all("acc:nvidia-rtx-pro-6000-blackwell96" in r for r in rows)
    assert any("run:ev-sglang" in r and "bg:Draft" in r for r in rows)
    text = browser.execute_script("return benchgraph.yasgui.getTab().getQuery()")
    assert "VALUES ?part { acc:nvidia-rtx-pro-6000-blackwell }" in text
    assert "VALUES ?above { 90 }" in text
    # the form keeps what was asked
    form = browser.find_element(By.CSS_SELECTOR, 'form.params[data-example="part-memory"]')
    assert (
        form.find_element(By.NAME, "part").get_attribute("value")
        == "acc:nvidia-rtx-pro-6000-blackwell"
    )
    no_violations(browser)


def test_a_bad_value_in_the_form_says_which_parameter(pages, browser):
    from selenium.webdriver.common.by import By

    browser.get(pages.url + "/?example=part-memory&after=someday")
    assert "400" in browser.find_element(By.TAG_NAME, "h1").text
    assert "after: 'someday' is not a date" in browser.find_element(By.CSS_SELECTOR, "p.error").text
    no_violations(browser, allowed_errors=("status of 400",))


def test_the_chart_csv_writes_a_formula_as_text(pages, browser):
    """The chart's CSV download (bg-chartdata.js) follows query/render.py's rule."""
    browser.get(pages.url + "/")
    wait_for(browser, "return window.benchgraph && window.benchgraph.chartdata")
    text = browser.execute_script(
        "return benchgraph.chartdata.csv({x: 'system', y: 'value'},"
        " [{row: {system: {value: '=HYPERLINK(\"http://a.example/\")'}, value: {value: '-5'}}}])"
    )
    assert text.splitlines()[1] == '"\'=HYPERLINK(""http://a.example/"")",-5'
