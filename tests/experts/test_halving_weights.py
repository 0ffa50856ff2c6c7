"""Example weights in Halving: a row of positive weight removes as before, weight 0 is no round.

Oracle: the version space written from its definition in NumPy,
``V_{t+1} = {h in V_t : h(x_t) = y_t}`` over the rows of positive weight.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import HalvingClassifier
from halfspaces.exceptions import NotRealizableError


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(64, 3))
    X = rng.normal(size=(n, 3))
    y = np.where(X @ W[5] >= 0, 1, -1)
    s = rng.integers(0, 3, size=n).astype(float)
    s[:2] = [0.0, 0.5]
    return W, X, y, s


def reference(W, X, y, s):
    """(version space, mistakes, rounds) of Halving over the rows of positive weight."""
    V, mistakes, rounds = np.ones(W.shape[0], dtype=bool), 0, 0
    for t in np.flatnonzero(s > 0):
        votes = np.where(X[t] @ W[V].T >= 0, 1, -1)
        if y[t] * votes.mean() <= 0:
            mistakes += 1
        V[V] = votes == y[t]
        rounds += 1
    return V, mistakes, rounds


@pytest.mark.parametrize("sparse", [False, True])
def test_weight_zero_is_no_round_and_a_positive_weight_removes(sparse):
    W, X, y, s = _data()
    Xs = sp.csr_matrix(X) if sparse else X
    clf = HalvingClassifier(W).fit(Xs, y, sample_weight=s)
    V, mistakes, rounds = reference(W, X, y, s)
    np.testing.assert_array_equal(clf.version_space_, V)
    assert clf.n_mistakes_ == mistakes and clf.t_ == rounds
    kept = s > 0
    left_out = HalvingClassifier(W).fit(Xs[kept], y[kept])
    np.testing.assert_array_equal(clf.version_space_, left_out.version_space_)
    one = HalvingClassifier(W).partial_fit(Xs, y, classes=[-1, 1], sample_weight=s)
    np.testing.assert_array_equal(one.version_space_, V)


def test_the_unrealizable_round_counts_rounds_of_positive_weight():
    W, X, y, s = _data()
    y = y.copy()
    y[10:12] = -y[10:12]  # the one hypothesis disagrees with rows 10 and 11
    s[10:12] = [0.0, 2.0]  # row 10 is no round; row 11 empties the version space
    with pytest.raises(NotRealizableError) as info:
        HalvingClassifier(W[[5]]).fit(X, y, sample_weight=s)
    assert info.value.round == np.count_nonzero(s[:10] > 0) + 1

