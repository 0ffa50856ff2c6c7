# The two commands a newcomer runs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/halfspaces demo

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m pip install -q -e ".[dev,bench]"
	$(PY) benchmarks/run_all.py

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) demo-output build dist src/*.egg-info
