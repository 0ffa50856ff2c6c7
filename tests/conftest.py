"""Shared test setup: make tests/strategies.py importable, headless plotting."""

import os
import sys

from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")
# scikit-learn's array-API check (results unchanged with dispatch on) needs this before
# scipy is imported, as in scikit-learn's own CI.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
sys.path.insert(0, os.path.dirname(__file__))

# `pytest --hypothesis-profile=long`: many more generated examples, for a local search.
settings.register_profile("long", max_examples=5_000)
