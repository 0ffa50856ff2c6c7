"""Losses and objectives against formulas written out directly in NumPy."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces.losses import (
    hinge,
    logistic,
    logistic_objective,
    squared_hinge,
    svm_objective,
    zero_one,
)


def _data(n=30, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(size=(n, d)) < 0.5] = 0.0
    y = rng.choice([-1.0, 1.0], size=n)
    theta = rng.normal(size=d)
    return X, y, theta, 0.3


def test_pointwise_losses_match_formulas():
    z = np.array([-3.0, -1.0, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_array_equal(zero_one(z), [1, 1, 1, 0, 0, 0])  # tie z = 0 is a mistake
    np.testing.assert_allclose(hinge(z), [4.0, 2.0, 1.0, 0.5, 0.0, 0.0])
    np.testing.assert_allclose(squared_hinge(z), [16.0, 4.0, 1.0, 0.25, 0.0, 0.0])
    np.testing.assert_allclose(logistic(z), np.log(1.0 + np.exp(-z)), rtol=1e-14)


def test_logistic_is_stable_for_large_agreements():
    out = logistic([-1000.0, 1000.0, -40.0, 40.0])
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [1000.0, 0.0, 40.0 + np.exp(-40.0), np.exp(-40.0)],
                               rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_svm_objective_both_forms_match_numpy(fmt):
    X, y, theta, theta_0 = _data()
    z = y * (X @ theta + theta_0)
    lam, C = 0.05, 2.0
    ref_lam = np.mean(np.maximum(0, 1 - z)) + lam / 2 * theta @ theta
    ref_C = 0.5 * theta @ theta + C * np.sum(np.maximum(0, 1 - z))
    assert svm_objective(theta, theta_0, fmt(X), y, lam=lam) == pytest.approx(ref_lam, rel=1e-13)
    assert svm_objective(theta, theta_0, fmt(X), y, C=C) == pytest.approx(ref_C, rel=1e-13)
    ref_sq = 0.5 * theta @ theta + C * np.sum(np.maximum(0, 1 - z) ** 2)
    assert svm_objective(theta, theta_0, fmt(X), y, C=C, loss="squared_hinge") == pytest.approx(
        ref_sq, rel=1e-13)
    ref_log = np.mean(np.log1p(np.exp(-z))) + lam / 2 * theta @ theta
    assert logistic_objective(theta, theta_0, fmt(X), y, lam=lam) == pytest.approx(
        ref_log, rel=1e-13)


@settings(max_examples=30, deadline=None)
@given(lam=st.floats(1e-4, 10.0), seed=st.integers(0, 1000), n=st.integers(1, 40))
def test_C_form_is_lam_form_over_lam(lam, seed, n):
    # J_C = 1/2||theta||^2 + C sum L = (1/lam) (1/n sum L + lam/2 ||theta||^2) = n C J_lam
    X, y, theta, theta_0 = _data(n=n, seed=seed)
    C = 1.0 / (lam * n)
    for objective in (svm_objective, logistic_objective):
        J_lam = objective(theta, theta_0, X, y, lam=lam)
        J_C = objective(theta, theta_0, X, y, C=C)
        assert J_C == pytest.approx(J_lam / lam, rel=1e-10)
        assert J_C == pytest.approx(n * C * J_lam, rel=1e-10)


def test_hard_margin_objective():
    X = np.array([[2.0], [-2.0]])
    y = np.array([1.0, -1.0])
    assert svm_objective(np.array([0.5]), 0.0, X, y, C=np.inf) == 0.125  # margins exactly 1
    assert svm_objective(np.array([0.4]), 0.0, X, y, C=np.inf) == np.inf  # a margin < 1


def test_objective_errors():
    X, y, theta, theta_0 = _data()
    with pytest.raises(ValueError, match="exactly one of lam"):
        svm_objective(theta, theta_0, X, y)
    with pytest.raises(ValueError, match="exactly one of lam"):
        svm_objective(theta, theta_0, X, y, lam=0.1, C=1.0)
    with pytest.raises(ValueError, match="'lam' must be a float > 0; got -1"):
        svm_objective(theta, theta_0, X, y, lam=-1.0)
    with pytest.raises(ValueError, match="'C' must be a float > 0; got 0"):
        logistic_objective(theta, theta_0, X, y, C=0.0)
    with pytest.raises(ValueError, match="only -1 and \\+1"):
        svm_objective(theta, theta_0, X, (y > 0).astype(float), C=1.0)
    with pytest.raises(ValueError, match="X has 4 features but theta has 3"):
        svm_objective(theta[:3], theta_0, X, y, C=1.0)
    with pytest.raises(ValueError, match="'loss' must be 'hinge' or 'squared_hinge'"):
        svm_objective(theta, theta_0, X, y, C=1.0, loss="logistic")
