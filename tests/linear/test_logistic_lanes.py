"""LogisticRegression's L-BFGS objective over lanes of rows: any ``n_jobs`` gives the bits
of one thread, and the lanes compute the objective and gradient of a NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import LogisticRegression
from halfspaces.linear import logistic


def reference(theta, X, y, lam, s):
    """J = sum_i s_i log(1 + exp(-y_i (w.x_i + b))) / sum_i s_i + lam/2 |w|^2, and grad J."""
    w, b = theta[:-1], theta[-1]
    m = y * (X @ w + b)
    c = -s * y / (1.0 + np.exp(m))
    S = s.sum()
    return (s @ np.logaddexp(0.0, -m)) / S + 0.5 * lam * w @ w, np.r_[X.T @ c / S + lam * w,
                                                                     c.sum() / S]


@pytest.fixture
def lanes(monkeypatch):
    monkeypatch.setattr(logistic, "LANE_ROWS", 15)  # 60 rows: 4 lanes


def data(sparse):
    rng = np.random.RandomState(0)
    X = rng.randn(60, 7)
    X[rng.rand(60, 7) < 0.4] = 0.0
    y = np.where(X @ rng.randn(7) + 0.5 * rng.randn(60) > 0, 1.0, -1.0)
    return (sp.csr_matrix(X) if sparse else X), y, rng


@pytest.mark.parametrize("sparse", [False, True])
def test_lanes_give_the_reference_objective(lanes, sparse):
    X, y, rng = data(sparse)
    theta, s = rng.randn(8), rng.rand(60) * 2
    for weights in (None, s):
        for n_jobs in (None, 2):
            got = logistic._objective_and_grad(theta, X, y, 0.1, True, weights, n_jobs)
            want = reference(theta, X.toarray() if sparse else X, y, 0.1,
                             np.ones(60) if weights is None else weights)
            np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
            np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("sparse", [False, True])
def test_n_jobs_gives_the_same_bits(lanes, sparse):
    X, y, _ = data(sparse)
    fits = [LogisticRegression(n_jobs=n_jobs).fit(X, y) for n_jobs in (None, 2)]
    for other in fits[1:]:
        assert np.array_equal(other.coef_, fits[0].coef_)
        assert np.array_equal(other.intercept_, fits[0].intercept_)
        assert other.objective_ == fits[0].objective_ and other.n_iter_ == fits[0].n_iter_
