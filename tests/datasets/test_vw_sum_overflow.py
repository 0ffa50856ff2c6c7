"""A feature repeated on a VW line has its values added up (issue 14): values whose sum
passes the largest double are refused at the file, line and byte column of the value that
passes it, by ``load_vw`` and ``iter_vw`` alike, compiled and interpreted (the kernel's
ASCII lines and the Python parser's non-ASCII ones); sums that stay finite load as the
exact sums. (A bad file is also a fuzz seed:
``fuzz/corpus/vw/regression-repeated-feature-sum-overflow``.)"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from halfspaces.datasets import DataFormatError, iter_vw, load_vw

GOOD = "1 | 1:1\n-1 | 1:2\n"  # integer names: also read with hash_features=False


def _errors(path, **options):
    """The messages of load_vw and iter_vw on ``path``, and the rows iter_vw gave first."""
    with pytest.raises(DataFormatError) as loaded:
        load_vw(path, **options)
    rows = 0
    with pytest.raises(DataFormatError) as streamed:  # (a first pass may find it)
        for X, _ in iter_vw(path, chunk_rows=1, **options):
            rows += X.shape[0]
    return str(loaded.value), str(streamed.value), rows


# (bad line, the token that passes the largest double, its occurrence, sign, feature name,
#  namespace, hashed together with another name, options)
CASES = [
    ("1 |a x:1e308 y:2 x:1e308", "x:1e308", 2, "positive", "x", "a", False, {}),
    ("1 |a x:-1e308 y:2 x:1e308 x:-1e308", "x:-1e308", 2, "negative", "x", "a", False, {}),
    ("1 |a x:1e308 |b y:2 |a x:7e307 x:7e307", "x:7e307", 2, "positive", "x", "a", False, {}),
    ("1 |a x:1e308 x:1e308 x:-1e308 x:-1e308", "x:1e308", 2, "positive", "x", "a", False, {}),
    ("1 | x:1.5e308 x:0.5e308", "x:0.5e308", 1, "positive", "x", "", False, {}),
    ("1 |\u00e9t\u00e9 x:1e308 x:1e308", "x:1e308", 2, "positive", "x", "\u00e9t\u00e9", False,
     {}),  # non-ASCII: the Python parser's line, byte columns
    ("1 |a x:1e308 y:1e308", "y:1e308", 1, "positive", "y", "a", True, {"n_features": 1}),
    ("1 | 3:1e308 4:1 3:1e308", "3:1e308", 2, "positive", "3", "", False,
     {"hash_features": False}),
]


@pytest.mark.parametrize("line, token, nth, sign, name, namespace, hashed, options", CASES)
def test_values_that_sum_past_the_largest_double_are_refused_at_their_token(
        tmp_path, line, token, nth, sign, name, namespace, hashed, options):
    path = tmp_path / "a.vw"
    path.write_bytes((GOOD + line + "\n-1 | 1:3\n").encode())
    at = -1
    for _ in range(nth):
        at = line.index(token, at + 1)
    column = len(line[:at].encode()) + 1
    where = f" in namespace {re.escape(repr(namespace))}" if namespace else ""
    also = " with the other features hashed to its column" if hashed else ""
    loaded, streamed, rows = _errors(path, **options)
    assert loaded == streamed
    assert re.fullmatch(
        rf"{re.escape(str(path))}:3:{column}: the {sign} values of feature '{name}'{where} on"
        rf" this line{also} sum to more than 1\.8e308 in absolute value \(the largest"
        r" double\).*; fix: give the feature once per line, or scale its values down",
        loaded), loaded
    assert rows == (0 if options.get("hash_features") is False else 2)  # the lines before


def test_the_first_error_of_the_file_wins(tmp_path):
    path = tmp_path / "a.vw"
    path.write_text(GOOD + "1 |n:1e200 a:1e200\n1 |a x:1e308 x:1e308\n1 |a x:zz\n")
    assert ":3: a feature value times the weight" in _errors(path)[0]
    path.write_text(GOOD + "1 |a x:1e308 x:1e308\n1 |a x:zz\n")
    assert ":3:" in _errors(path)[0] and "sum to more than" in _errors(path)[0]


@pytest.mark.parametrize("values", [[1e308, -1e308, 5.0], [1e308, 7e307], [-1.7e308, -1e292],
                                    [8e307, 8e307, -1e308]])
def test_sums_that_stay_finite_load_as_the_exact_sum(tmp_path, values):
    """Each sign's values add up below the largest double (whatever the order)."""
    path = tmp_path / "a.vw"
    path.write_text("1 | " + " ".join(f"7:{v!r}" for v in values) + "\n-1 | 2:1\n")
    X, _ = load_vw(path, hash_features=False, zero_based=True)
    assert X[0, 7] == math.fsum(values)
    streamed = np.vstack([X.toarray() for X, _ in iter_vw(path, hash_features=False,
                                                           zero_based=True, n_features=8)])
    assert streamed[0, 7] == math.fsum(values)
