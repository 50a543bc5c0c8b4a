"""Headless Chromium for the browser tests: the `browser` fixture (a fresh profile, every
Content-Security-Policy violation the page reports kept in `window.__violations`).

Needs Debian's `chromium` and `chromium-driver` (.ci/run installs them). Where they are
missing the tests skip, saying so; with CI=true they fail instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# Installed before any page script runs (DevTools scripts are not subject to the page's policy):
# every violation the browser reports to the page is kept for the test to read.
VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push([e.effectiveDirective, e.blockedURI, e.sourceFile + ":" +
                            e.lineNumber + ":" + e.columnNumber]);
});
"""
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
]


@pytest.fixture
def browser():
    missing = [
        name
        for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER))
        if not path or not os.path.exists(path)
    ]
    if missing:
        reason = (
            f"{' and '.join(missing)} not installed (Debian packages chromium, chromium-driver)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(reason + "; CI must run the browser test")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="benchgraph-chromium-")
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": VIOLATIONS})
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
