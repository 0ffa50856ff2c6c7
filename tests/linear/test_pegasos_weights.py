"""Example weights in Pegasos: a violator's step scaled by ``s_i``, weight 0 left out.

Oracles: a NumPy reference written from the weighted update rule
(``w <- (1 - eta lam) w + eta s_i y_i x_i`` on a margin violation, then the projection onto
the ball of radius ``1/sqrt(lam)``), and the data with the weight-0 rows removed.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import weighted_rows

from halfspaces import PegasosSVC, Perceptron

_data = functools.partial(weighted_rows, n=30, noise=0.5)


def reference(X, y, s, lam, epochs, batch=1, project=True):
    """(w, b, steps) of weighted Pegasos, eta_t = 1/(lam t), rows of weight 0 left out, the
    others in the given order in batches of ``batch``; b takes the same step as w."""
    rows = [i for i in range(len(y)) if s[i] > 0]
    w, b, t = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(epochs):
        for lo in range(0, len(rows), batch):
            t += 1
            eta = 1.0 / (lam * t)
            batch_rows = rows[lo:lo + batch]
            viol = [i for i in batch_rows if y[i] * (X[i] @ w + b) < 1]
            w = (1 - eta * lam) * w
            for i in viol:
                w = w + eta / len(batch_rows) * s[i] * y[i] * X[i]
                b = b + eta / len(batch_rows) * s[i] * y[i]
            if project and w @ w * lam > 1:
                w = w / np.sqrt(lam * (w @ w))
    return w, b, t


def _pegasos(**kw):
    return PegasosSVC(lam=0.1, learning_rate="pegasos", average=False, sampling="cyclic",
                      intercept_decay=1.0, **kw)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("batch", [1, 4])
def test_step_is_scaled_by_the_weight(sparse, batch):
    X, y, s = _data()
    Xs = sp.csr_matrix(X) if sparse else X
    clf = _pegasos(max_iter=3, batch_size=batch).fit(Xs, y, sample_weight=s)
    w, b, t = reference(X, y, s, 0.1, 3, batch)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert clf.intercept_[0] == pytest.approx(b, rel=1e-10, abs=1e-12)
    assert clf.t_ == t  # a row of weight 0 takes no step
    one = _pegasos(batch_size=batch).partial_fit(Xs, y, classes=[-1, 1], sample_weight=s)
    w1, b1, t1 = reference(X, y, s, 0.1, 1, batch)
    np.testing.assert_allclose(one.coef_[0], w1, rtol=1e-10, atol=1e-12)
    assert one.intercept_[0] == pytest.approx(b1, rel=1e-10, abs=1e-12) and one.t_ == t1


@pytest.mark.parametrize("kw", [dict(sampling="cyclic"), dict(sampling="permutation"),
                                dict(average="suffix", eta0="calibrate", record_objective=True),
                                dict(batch_size=3, average=True)], ids=repr)
def test_weight_zero_is_the_row_left_out(kw):
    X, y, s = _data()
    kept = s > 0
    params = dict(lam=0.05, max_iter=4, random_state=0) | kw
    weighted = PegasosSVC(**params).fit(X, y, sample_weight=s)
    left_out = PegasosSVC(**params).fit(X[kept], y[kept], sample_weight=s[kept])
    np.testing.assert_array_equal(weighted.coef_, left_out.coef_)
    np.testing.assert_array_equal(weighted.intercept_, left_out.intercept_)
    assert weighted.t_ == left_out.t_ and weighted.eta0_ == left_out.eta0_
    assert weighted.mistakes_per_epoch_ == left_out.mistakes_per_epoch_
    one = PegasosSVC(**params).partial_fit(X, y, classes=[-1, 1], sample_weight=s)
    one_out = PegasosSVC(**params).partial_fit(X[kept], y[kept], classes=[-1, 1],
                                               sample_weight=s[kept])
    np.testing.assert_array_equal(one.coef_, one_out.coef_)
    assert one.t_ == one_out.t_


def test_unit_weights_are_the_unweighted_fit_and_the_objective_is_weighted():
    X, y, s = _data()
    plain = PegasosSVC(lam=0.05, random_state=0, record_objective=True).fit(X, y)
    ones = PegasosSVC(lam=0.05, random_state=0, record_objective=True).fit(
        X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    np.testing.assert_array_equal(plain.objective_history_, ones.objective_history_)
    kept = s > 0
    clf = PegasosSVC(lam=0.05, random_state=0, record_objective=True).fit(X, y, sample_weight=s)
    w, b = clf.coef_[0], clf.intercept_[0]
    hinge = np.maximum(0.0, 1.0 - y[kept] * (X[kept] @ w + b))
    J = np.mean(s[kept] * hinge) + 0.05 / 2 * w @ w
    assert clf.objective_history_[-1] == pytest.approx(J, rel=1e-12)


def test_a_later_sparse_block_takes_its_weights():
    # a fitted learner given a CSR block skips scikit-learn's checks; not its weights
    X, y, s = _data()
    Xs = sp.csr_matrix(X)
    for cls in (Perceptron, PegasosSVC):
        fitted = cls().partial_fit(Xs[:10], y[:10], classes=[-1, 1])
        weighted = cls().partial_fit(Xs[:10], y[:10], classes=[-1, 1])
        fitted.partial_fit(Xs[10:], y[10:])
        weighted.partial_fit(Xs[10:], y[10:], sample_weight=np.full(20, 3.0))
        assert not np.array_equal(fitted.coef_, weighted.coef_)
        assert weighted.t_ == fitted.t_


def test_bad_weights_are_named():
    X, y, _ = _data(n=6)
    with pytest.raises(ValueError, match=r"PegasosSVC.fit: 'sample_weight' must be finite"
                                         r" and >= 0; got -1.0 at example 2"):
        PegasosSVC().fit(X, y, sample_weight=[1, 1, -1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"PegasosSVC.partial_fit: every example weight"):
        PegasosSVC().partial_fit(X, y, classes=[-1, 1], sample_weight=np.zeros(6))
