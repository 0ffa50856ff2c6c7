"""Shared test setup: make tests/strategies.py importable, headless plotting."""

import os
import sys

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.dirname(__file__))
