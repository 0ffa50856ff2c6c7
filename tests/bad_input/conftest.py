"""Make the suite's shared module (bad_input_data.py) importable by its test files."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
