# Two commands set everything up on a fresh machine (Python 3.11+, pip, git, make):
#   make run    install, build the shipped data and serve it (SPARQL endpoint, query page)
#   make test   install with the test extras and run the test suite
PYTHON ?= python3
VENV   ?= .venv
# make run PORT=5123 HOST=0.0.0.0: where `make run` serves
PORT   ?= 5000
HOST   ?= 127.0.0.1
BIN     = $(VENV)/bin

.PHONY: run test test-fast install install-test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e .

install-test: $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'

run: install
	$(BIN)/benchgraph query --data data --example no-gpu-fabric --limit 10
	$(BIN)/benchgraph serve --data data --host $(HOST) --port $(PORT)

test: install-test
	$(BIN)/python -m pytest -q

# The suite without the tests marked slow (real servers under load, big builds, browsers,
# fuzzing at length, the shipped data's build, and those tests/slow_tests.py names by their
# measured time): for the edit-test loop, a few minutes on a loaded 2-core machine.
# `make test` stays the whole suite, as CI runs.
test-fast: install-test
	$(BIN)/python -m pytest -q -m "not slow"

lint: install-test
	$(BIN)/ruff check src tests benchmarks docs
	$(BIN)/ruff format --check src tests benchmarks docs

bench: install-test
	$(BIN)/python benchmarks/build_bench.py

clean:
	rm -rf .benchgraph

YASGUI_VERSION ?= 4.6.2
YASGUI_DIR      = src/benchgraph/web/static/vendor/yasgui
# The query page's charts. Chart.js was chosen, measured on npm in 2026-12 (minified / gzip -9):
#   uPlot 1.6.32 (MIT)              51 KB /  22 KB  no category bars or colour groups of its own
#   Chart.js 4.6.1 (MIT)           210 KB /  71 KB  bar, line, scatter, log and category axes,
#                                                   legend, PNG; no eval, no injected <style>
#   Observable Plot 0.6.17 + d3 7.9.2 (ISC)  490 KB / 161 KB  adds a <style> to every chart
#                                                   (blocked by the CSP's style-src)
#   Vega 6.4 + Vega-Lite 6.4 + vega-embed 7.3 (BSD-3)  832 KB / 280 KB  compiles expressions
#                                                   with new Function (needs 'unsafe-eval')
#   ECharts 6.1 (Apache-2.0)      1122 KB / 368 KB  (500 KB for its "simple" build)
# Chart.js is the smallest that draws every view the page offers without code of our own for
# axes and legends, and it runs under the Content-Security-Policy unchanged.
CHARTJS_VERSION ?= 4.6.1
CHARTJS_DIR      = src/benchgraph/web/static/vendor/chartjs
.PHONY: vendor
# Refresh the vendored query editor and chart library from npm (serving needs neither npm nor
# a CDN). LICENSE in $(YASGUI_DIR) is kept: the npm tarball ships none.
vendor:
	rm -rf .vendor-tmp && mkdir -p .vendor-tmp $(YASGUI_DIR)
	cd .vendor-tmp && npm pack --silent @zazuko/yasgui@$(YASGUI_VERSION) >/dev/null \
		&& tar xzf zazuko-yasgui-$(YASGUI_VERSION).tgz
	cp .vendor-tmp/package/build/yasgui.min.js .vendor-tmp/package/build/yasgui.min.css $(YASGUI_DIR)/
	sed -i '/^\/\/# sourceMappingURL=/d' $(YASGUI_DIR)/yasgui.min.js
	printf '@zazuko/yasgui %s\n' "$(YASGUI_VERSION)" > $(YASGUI_DIR)/VERSION
	mkdir -p $(CHARTJS_DIR)
	cd .vendor-tmp && npm pack --silent chart.js@$(CHARTJS_VERSION) >/dev/null \
		&& mkdir chartjs && tar xzf chart.js-$(CHARTJS_VERSION).tgz -C chartjs
	cp .vendor-tmp/chartjs/package/dist/chart.umd.min.js $(CHARTJS_DIR)/
	cp .vendor-tmp/chartjs/package/LICENSE.md $(CHARTJS_DIR)/LICENSE
	sed -i '/^\/\/# sourceMappingURL=/d' $(CHARTJS_DIR)/chart.umd.min.js
	printf 'chart.js %s\n' "$(CHARTJS_VERSION)" > $(CHARTJS_DIR)/VERSION
	rm -rf .vendor-tmp
