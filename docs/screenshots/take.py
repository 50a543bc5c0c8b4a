"""Take the query page's screenshots in this folder from a running server on the shipped data:

    benchgraph serve --data data --port 5123 &
    python docs/screenshots/take.py http://127.0.0.1:5123 [NAME ...]

Needs selenium with Chromium and chromedriver (as tests/web's browser tests do). Each shot is
a query (a saved example, or a shared link's query and view) as an analyst would open it;
README.md here says what each shows.
"""

from __future__ import annotations

import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from benchgraph.query.params import with_values
from benchgraph.query.saved import saved_queries

HERE = Path(__file__).parent
BY_BATCH = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
# Llama-2-7B on vLLM, 1024 tokens in and out, one accelerator: throughput by batch size
SELECT ?batch ?throughput ?accelerator ?unit WHERE {
  ?run bg:model <https://w3id.org/benchgraph/id/models/llama-2-7b-hf> ;
       bg:engine <https://w3id.org/benchgraph/id/engines/vllm> ;
       bg:inputTokens 1024 ; bg:outputTokens 1024 ;
       bg:acceleratorCount 1 ;
       bg:batchSize ?batch ;
       bg:accelerator/rdfs:label ?accelerator ;
       bg:metric <https://w3id.org/benchgraph/id/metrics/throughput-total-tok-s> ;
       bg:value ?throughput ; bg:unitCode ?unit .
}
ORDER BY ?accelerator ?batch
"""
WRONG = "SELECT ?run WHERE { ?run a bg:BenchmarkRun ; mlperf:scenario ?scenario }"
QUERIES = HERE.parent.parent / "queries"


def narrowed(name: str, condition: str, before: str, given: dict | None = None) -> str:
    """A saved query with its parameters `given` (as the query page's form sends them) and
    one more FILTER, put before its closing `before` clause."""
    query = saved_queries(QUERIES)[name]
    text = with_values(query.text, query.params, given or {})
    text = "\n".join(line for line in text.splitlines() if not line.startswith("# "))
    at = text.rindex("}\n" + before)
    return text[:at] + f"  FILTER({condition})\n" + text[at:]


# the LLM benchmarks' tokens per joule of system power; NVIDIA's tables of the 70B models
PER_WATT = narrowed("per-watt", '?unit = "tok/J" && ?powerKind = "system (wall)"', "ORDER BY")
# NVIDIA's tables of the 70B models at FP8 only: the v0.17 table measures the A100 at FP16,
# which is no fabric effect beside FP8 lines. The source and precision as its parameters give
# them (a FILTER more on the query's columns would pass the server's 400-part limit).
SCALING = narrowed(
    "scaling-by-fabric",
    'CONTAINS(?modelLabel, "70B")',
    "ORDER BY",
    {"source": ["NVIDIA/TensorRT-LLM"], "precision": ["FP8"]},
)
CHART_DRAWN = (
    "var c = document.querySelector('.yasr canvas');"
    "return !!(c && Chart.getChart(c) && Chart.getChart(c).chartArea);"
)
ROWS_DRAWN = "return document.querySelectorAll('.yasr table tbody tr').length > 0;"
ERROR_DRAWN = "return !!document.querySelector('.bg-error');"
SUMMARY = "return !!document.querySelector('#summary');"
LISTED = "return !!document.querySelector('table.listing tbody tr');"
FOUND = "return !!document.querySelector('ol.results li');"
EXPLORED = (
    "var c = document.querySelector('#chart-canvas');"
    "return !!document.querySelector('#results tbody tr') &&"
    " (!c || !!(window.Chart && Chart.getChart(c)));"
)
# one comparable group: one model, source, precision and workload, the two parts at 4 and 8
Q4 = (
    "/explore?model=llama3.1-70b&source=NVIDIA&precision=FP8&workload=1000+in+%2F+1000+out"
    "&accelerator=nvidia-h100-sxm&accelerator=nvidia-l40s&count=4&count=8"
    "&col=perAccelerator,value,accelerator,count,fabric,workload,precision,engine"
    "&sort=perAccelerator&chart=scatter&y=perAccelerator"
)
# name: (window width, how to open it, what shows it is ready, the element shot); the window
# is 1100 px high, and an element's shot ends where the window does.
SHOTS = {
    "query-page": (1400, None, "return !!document.querySelector('.CodeMirror');", None),
    "bar-mlperf-llama2-no-fabric": (1400, "example:mlperf-llama2-no-fabric", CHART_DRAWN, ".yasr"),
    "scatter-log-per-accelerator-by-fabric": (
        1400,
        "example:per-accelerator",
        CHART_DRAWN,
        ".yasr",
    ),
    "line-throughput-by-batch": (
        1400,
        (BY_BATCH, "line x=?batch y=?throughput color=?accelerator log"),
        CHART_DRAWN,
        ".yasr",
    ),
    "bar-per-watt-tokens-per-joule": (
        1400,
        (PER_WATT, "bar x=?run y=?efficiency color=?system unit=?unit"),
        CHART_DRAWN,
        ".yasr",
    ),
    "line-scaling-by-fabric-70b": (
        1400,
        (SCALING, "line x=?count y=?share color=?status series=?line group=?modelLabel,?source"),
        CHART_DRAWN,
        ".yasr",
    ),
    "table-no-gpu-fabric": (1400, "example:no-gpu-fabric", ROWS_DRAWN, ".yasr"),
    "error": (1400, (WRONG, "table"), ERROR_DRAWN, ".yasr"),
    "page-800px": (800, "example:mlperf-llama2-no-fabric", CHART_DRAWN, None),
    # pages for people: a record's summary, a part's spec table, browsing, search
    "run-page-seed": (
        1400,
        "page:/id/benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user",
        SUMMARY,
        None,
    ),
    "accelerator-page-h100-sxm": (1400, "page:/id/accelerators/nvidia-h100-sxm", SUMMARY, None),
    "browse-accelerators": (1400, "page:/id/accelerators/", LISTED, None),
    "search-h200": (1400, "page:/search?q=H200", FOUND, None),
    # the five questions an analyst asks first (README, Exploring results), without SPARQL
    "q1-headline-on-open": (1400, "page:/", ROWS_DRAWN, None),
    "q2-every-run-on-mi300x": (
        1400,
        "page:/explore?accelerator=amd-instinct-mi300x",
        EXPLORED,
        None,
    ),
    "q3-most-efficient-llama2-70b-offline": (
        1400,
        "page:/explore?model=llama2-70b&scenario=Offline&sort=efficiency&y=efficiency",
        EXPLORED,
        None,
    ),
    "q4-h100-sxm-against-l40s-4-to-8": (1400, "page:" + Q4, EXPLORED, None),
    "q5-a-round-model-and-part": (
        1400,
        "page:/explore?source=MLCommons+v5.1&division=closed&model=llama2-70b&accelerator="
        "nvidia-b200-sxm",
        EXPLORED,
        None,
    ),
}


def main(base: str, only: list[str]) -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--user-data-dir={tempfile.mkdtemp()}",
    ]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        for name, (width, how, ready, element) in SHOTS.items():
            if only and name not in only:
                continue
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {
                    "width": width,
                    "height": 700 if name.startswith("table") else 1100,
                    "deviceScaleFactor": 1,
                    "mobile": False,
                },
            )
            if isinstance(how, str) and how.startswith("page:"):
                driver.get(base + how[len("page:") :])
            elif isinstance(how, tuple):
                query, view = how
                driver.get("about:blank")
                driver.get(base + "/#" + urllib.parse.urlencode({"query": query, "view": view}))
            else:
                driver.get(base + "/")
                WebDriverWait(driver, 30).until(
                    lambda d: d.execute_script("return !!document.querySelector('.CodeMirror')")
                )
                if how:
                    example = how.split(":", 1)[1]
                    driver.find_element(
                        By.CSS_SELECTOR, f'button[data-example="{example}"]'
                    ).click()
            WebDriverWait(driver, 60).until(lambda d, ready=ready: d.execute_script(ready))
            time.sleep(0.5)
            out = HERE / f"{name}.png"
            if element:
                found = driver.find_element(By.CSS_SELECTOR, element)
                driver.execute_script("arguments[0].scrollIntoView()", found)
                found.screenshot(str(out))
            else:
                driver.save_screenshot(str(out))
            print(out, out.stat().st_size)
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"), sys.argv[2:])  # names after the URL: only those shots
