# The two commands a newcomer runs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-nojit bench lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/halfspaces demo

test: $(STAMP)
	$(PY) -m pytest

# The same suite with the compiled kernels run as plain Python (coverage of kernel lines,
# readable tracebacks). The demo is left out (it repeats passes already covered, on data too
# large for interpreted loops); tests/test_quickstart.py runs the README's quickstarts in a
# subprocess with the JIT on, as a user would.
test-nojit: $(STAMP)
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest tests src --ignore=tests/test_demo.py

# Every figure of the README's Speed section; BENCH_ARGS="--size reduced" or "--quick" for
# smaller runs, "--only NAME ..." for some of them (see benchmarks/run_all.py).
bench: $(STAMP)
	$(PY) -m pip install -q -e ".[dev,bench]"
	$(PY) benchmarks/run_all.py $(BENCH_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) demo-output build dist src/*.egg-info
