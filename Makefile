# Two commands set everything up on a fresh machine (Python 3.11+, pip, git, make):
#   make run    install, build the shipped data and serve it (SPARQL endpoint, query page)
#   make test   install with the test extras and run the test suite
PYTHON ?= python3
VENV   ?= .venv
# make run PORT=5123 HOST=0.0.0.0: where `make run` serves
PORT   ?= 5000
HOST   ?= 127.0.0.1
BIN     = $(VENV)/bin

.PHONY: run test install install-test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e .

install-test: $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'

run: install
	$(BIN)/benchgraph query --data data --example no-gpu-fabric
	$(BIN)/benchgraph serve --data data --host $(HOST) --port $(PORT)

test: install-test
	$(BIN)/python -m pytest -q

lint: install-test
	$(BIN)/ruff check src tests benchmarks

bench: install-test
	$(BIN)/python benchmarks/build_bench.py

clean:
	rm -rf .benchgraph

YASGUI_VERSION ?= 4.6.2
YASGUI_DIR      = src/benchgraph/web/static/vendor/yasgui
.PHONY: vendor
# Refresh the vendored query editor from npm (serving needs neither npm nor a CDN).
# LICENSE in $(YASGUI_DIR) is kept: the npm tarball ships none.
vendor:
	rm -rf .vendor-tmp && mkdir -p .vendor-tmp $(YASGUI_DIR)
	cd .vendor-tmp && npm pack --silent @zazuko/yasgui@$(YASGUI_VERSION) >/dev/null \
		&& tar xzf zazuko-yasgui-$(YASGUI_VERSION).tgz
	cp .vendor-tmp/package/build/yasgui.min.js .vendor-tmp/package/build/yasgui.min.css $(YASGUI_DIR)/
	sed -i '/^\/\/# sourceMappingURL=/d' $(YASGUI_DIR)/yasgui.min.js
	printf '@zazuko/yasgui %s\n' "$(YASGUI_VERSION)" > $(YASGUI_DIR)/VERSION
	rm -rf .vendor-tmp
