"""The query page in headless Chromium: open it, run an example, see its rows; and every kind
of page works under the server's Content-Security-Policy, with no violation reported.

The `browser` fixture is browser_support.py's: where Chromium is missing the tests skip, saying
so; with CI=true they fail instead.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_run_an_example_and_see_its_rows(live_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(live_server.url + "/")
    wait = WebDriverWait(browser, 30)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".yasqe .CodeMirror")))
    browser.find_element(By.CSS_SELECTOR, 'button[data-example="accelerators"]').click()

    def rows(driver):
        found = driver.find_elements(By.CSS_SELECTOR, ".yasr table tbody tr")
        texts = [r.text for r in found]
        return texts if any("NVIDIA H100 SXM 80 GB" in t for t in texts) else False

    texts = wait.until(rows)
    assert len(texts) == 2, texts  # the two accelerator records of the test data
    assert any("96" in t and "NVIDIA RTX PRO 6000" in t for t in texts)
    # the result can be downloaded in each format a SELECT allows
    links = browser.find_elements(By.CSS_SELECTOR, "#download-links a")
    assert [a.text for a in links] == ["SPARQL JSON", "SPARQL XML", "CSV", "TSV"]
    assert "format=csv" in links[2].get_attribute("href")
    # nothing on the page failed to load or threw
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_record_notes_do_not_run_as_markup(live_server, browser):
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + "/id/engines/markup-notes")
    heading = browser.find_element(By.TAG_NAME, "h1").text
    assert heading == '<b>Markup</b> & "quotes" engine'
    assert browser.execute_script("return window.__bg_injected === undefined")


def test_every_page_works_under_the_content_security_policy(live_server, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    assert "script-src 'self'" in live_server.request("GET", "/")[1]["content-security-policy"]
    wait = WebDriverWait(browser, 30)
    violations = []
    browser.get(live_server.url + "/")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".yasqe .CodeMirror")))
    browser.find_element(By.CSS_SELECTOR, 'button[data-example="accelerators"]').click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".yasr table tbody tr"))
    # resizing a column makes the editor's table add a <style> of its own
    grip = browser.find_element(By.CSS_SELECTOR, ".grip-handle .grip-resizable")
    ActionChains(browser).click_and_hold(grip).move_by_offset(40, 0).release().perform()
    browser.find_element(By.CSS_SELECTOR, ".yasr .select_response").click()
    wait.until(lambda d: "NVIDIA H100" in d.find_element(By.CSS_SELECTOR, ".yasr").text)
    violations += browser.execute_script("return window.__violations")
    pages = {
        "/id/engines/markup-notes": "Markup",
        "/sparql": "SPARQL endpoint",
        "/ontology": "benchgraph ontology",
        "/id/engines/no-such-engine": "404",
    }
    for path, heading in pages.items():
        browser.get(live_server.url + path)
        assert heading in browser.find_element(By.TAG_NAME, "h1").text, path
        # the page's own stylesheet applied: the header is laid out as a flex row
        header = browser.find_element(By.CSS_SELECTOR, "header.site")
        assert header.value_of_css_property("display") == "flex", path
        violations += browser.execute_script("return window.__violations")
    assert violations == []
    logged = [
        e["message"]
        for e in browser.get_log("browser")
        if "Content Security Policy" in e["message"]
    ]
    assert logged == []
