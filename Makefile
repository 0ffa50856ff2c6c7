# The two commands a newcomer runs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-nojit bench lint fuzz docs clean

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
# readable tracebacks). Left out, because make test has run them and here they would repeat
# it: the demo (passes already covered, on data too large for interpreted loops), the
# README's quickstarts and the notebooks (tests/test_quickstart.py and tests/test_notebooks.py
# run them in subprocesses and kernels as a user would, with the JIT on: the same work as in
# make test) and the tests marked jit_only (a check on the whole a9a set, a benchmark's runs).
test-nojit: $(STAMP)
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest tests src --ignore=tests/test_demo.py \
	  --ignore=tests/test_quickstart.py --ignore=tests/test_notebooks.py -m "not jit_only"

# Every file of benchmarks/results (the documentation's benchmarks page); BENCH_ARGS="--size reduced" or "--quick" for
# smaller runs, "--only NAME ..." for some of them (see benchmarks/run_all.py).
bench: $(STAMP)
	$(PY) -m pip install -q -e ".[dev,bench]"
	$(PY) benchmarks/run_all.py $(BENCH_ARGS)

# Coverage-guided fuzzing (atheris) of the svmlight, VW, model-file, CSV/text and cache readers,
# each for FUZZ_SECONDS; new inputs go to fuzz/work/, a crash or hang stops the run and is
# written to fuzz/findings/ (see fuzz/harness.py). CI runs it at the default.
FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?= svmlight vw model text cache
$(VENV)/.fuzz-installed: $(STAMP)
	$(PY) -m pip install -q -e ".[dev,fuzz]"
	touch $@

fuzz: $(VENV)/.fuzz-installed
	mkdir -p fuzz/findings
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/work/$$t; \
	  NUMBA_DISABLE_JIT=$$(test $$t = svmlight && echo 1 || echo 0) $(PY) fuzz/$$t.py \
	    fuzz/work/$$t fuzz/corpus/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
	    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=fuzz/findings/$$t- \
	    || exit 1; \
	done

# The documentation site into docs/_build/html: docs/_generate.py writes the CLI reference
# (from the parser), the benchmarks' results page and the gallery (examples and notebooks run
# once, again only when they or the package change), then Sphinx builds with warnings as
# errors, and headless chromium opens every page (images, links, anchors, script errors).
$(VENV)/.docs-installed: $(STAMP) pyproject.toml
	$(PY) -m pip install -q -e ".[dev,docs]"
	touch $@

docs: $(VENV)/.docs-installed
	MPLBACKEND=Agg $(PY) docs/_generate.py
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	$(PY) docs/_check_site.py
	@echo "docs: open docs/_build/html/index.html"

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks fuzz

clean:
	rm -rf $(VENV) demo-output build dist src/*.egg-info fuzz/work docs/_build docs/generated
