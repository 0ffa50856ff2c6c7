"""Example weights in the perceptron family: the update scaled by ``s_t``, weight 0 skipped.

Oracles: NumPy references written from the rules (``w += s_t y_t x_t`` on a mistake; the
average over the rounds of positive weight), and the data with the weight-0 rows removed.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import weighted_rows

from halfspaces import AveragedPerceptron, Perceptron

_data = functools.partial(weighted_rows, n=40, noise=0.4)


def reference(X, y, s, epochs):
    """(w, b, mistakes, w_avg, b_avg, rounds) of the weighted perceptron in the given order."""
    w, b, m = np.zeros(X.shape[1]), 0.0, 0
    w_sum, b_sum, rounds = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(epochs):
        for t in range(len(y)):
            if s[t] == 0:
                continue
            if y[t] * (X[t] @ w + b) <= 0:
                w, b, m = w + s[t] * y[t] * X[t], b + s[t] * y[t], m + 1
            w_sum, b_sum, rounds = w_sum + w, b_sum + b, rounds + 1
    return w, b, m, w_sum / rounds, b_sum / rounds, rounds


@pytest.mark.parametrize("sparse", [False, True])
def test_update_is_scaled_by_the_weight(sparse):
    X, y, s = _data()
    Xs = sp.csr_matrix(X) if sparse else X
    clf = Perceptron(shuffle=False, max_iter=3).fit(Xs, y, sample_weight=s)
    w, b, m, w_avg, b_avg, rounds = reference(X, y, s, clf.n_iter_)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    assert clf.intercept_[0] == pytest.approx(b) and clf.n_mistakes_ == m
    assert clf.t_ == rounds  # a row of weight 0 is not a round
    avg = AveragedPerceptron(shuffle=False, max_iter=3).fit(Xs, y, sample_weight=s)
    np.testing.assert_allclose(avg.coef_[0], w_avg, rtol=1e-12, atol=1e-12)
    assert avg.intercept_[0] == pytest.approx(b_avg, rel=1e-12)
    one = Perceptron().partial_fit(Xs, y, classes=[-1, 1], sample_weight=s)
    np.testing.assert_allclose(one.coef_[0], reference(X, y, s, 1)[0], atol=1e-12)


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron])
def test_weight_zero_is_the_row_left_out(cls):
    X, y, s = _data()
    kept = s > 0
    weighted = cls(shuffle=False, max_iter=5).fit(X, y, sample_weight=s)
    left_out = cls(shuffle=False, max_iter=5).fit(X[kept], y[kept], sample_weight=s[kept])
    np.testing.assert_array_equal(weighted.coef_, left_out.coef_)
    np.testing.assert_array_equal(weighted.intercept_, left_out.intercept_)
    assert weighted.mistakes_per_epoch_ == left_out.mistakes_per_epoch_
    assert weighted.t_ == left_out.t_


def test_unit_weights_are_the_unweighted_rule_and_k_is_not_k_copies():
    X, y, _ = _data()
    plain = Perceptron(random_state=0).fit(X, y)
    ones = Perceptron(random_state=0).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    # weight 2 doubles one update; two copies may update once (the second is right)
    X2, y2 = np.array([[1.0, 0.0]]), np.array([1])
    doubled = Perceptron(shuffle=False, max_iter=1).partial_fit(
        X2, y2, classes=[-1, 1], sample_weight=[2.0])
    copies = Perceptron(shuffle=False, max_iter=1).partial_fit(
        np.vstack([X2, X2]), [1, 1], classes=[-1, 1])
    assert doubled.coef_[0, 0] == 2.0 and copies.coef_[0, 0] == 1.0


def test_bad_weights_are_named():
    X, y, s = _data(n=6)
    with pytest.raises(ValueError, match=r"Perceptron.fit: 'sample_weight' must be finite and"
                                         r" >= 0; got -1.0 at example 2"):
        Perceptron().fit(X, y, sample_weight=[1, 1, -1, 1, 1, 1])
