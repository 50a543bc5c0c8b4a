# Two commands set everything up on a fresh machine (Python 3.11+, pip, git, make):
#   make run    install, build the shipped data and answer the headline question
#   make test   install with the test extras and run the test suite
PYTHON ?= python3
VENV   ?= .venv
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
	$(BIN)/benchgraph build --data data --out .benchgraph/benchgraph.trig
	$(BIN)/benchgraph query --data data --example no-gpu-fabric

test: install-test
	$(BIN)/python -m pytest -q

lint: install-test
	$(BIN)/ruff check src tests benchmarks

bench: install-test
	$(BIN)/python benchmarks/build_bench.py

clean:
	rm -rf .benchgraph
