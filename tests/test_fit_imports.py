"""A fit on plain float arrays (dense C-contiguous, or CSR) validates them without importing
scikit-learn (its import is about a second of a first fit); anything else still goes
through scikit-learn's checks, with their messages."""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import run_fresh

from halfspaces import LogisticRegression, Perceptron
from halfspaces._validation import validate_X


@pytest.mark.parametrize("make", ["LogisticRegression()", "Perceptron(random_state=0)",
                                  "SVC(solver='dcd', random_state=0)"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_fit_on_a_plain_array_imports_no_scikit_learn(make, dtype):
    script = (
        "import numpy as np\n"
        "from halfspaces import LogisticRegression, Perceptron, SVC\n"
        f"X = np.random.default_rng(0).normal(size=(40, 3)).astype('{dtype}')\n"
        f"{make}.fit(X, np.where(X[:, 0] > 0, 1, -1))\n")
    _, imported = run_fresh(script, dict(os.environ), {"sklearn"})
    assert imported == "[]"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_refused_as_before(bad):
    X = np.ones((5, 2))
    X[3, 1] = bad
    for est in (LogisticRegression(), Perceptron()):
        with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
            est.fit(X, [1, -1, 1, -1, 1])


def test_finite_values_whose_sum_overflows_are_accepted_without_a_copy():
    X = np.full((4, 2), 1e308)  # finite, but their sum is not
    est = Perceptron()
    assert validate_X(est, X, reset=True) is X and est.n_features_in_ == 2
