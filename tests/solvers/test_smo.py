"""SMO reaches LIBSVM's optimum (scikit-learn's SVC) and the exact QP's, with any cache size
and with or without shrinking."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC as LibSVM

from halfspaces.solvers.qp import svm_dual_qp
from halfspaces.solvers.smo import best_offset, cache_columns, smo_svm

KERNELS = {"rbf": {"gamma": 0.5}, "poly": {"gamma": 0.5, "degree": 2, "coef0": 1.0},
           "linear": {}}


def _noisy(n=80, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    y = np.where(np.sin(3.0 * X[:, 0]) + X[:, 1] ** 2 - 0.4 + 0.3 * rng.normal(size=n) > 0,
                 1.0, -1.0)
    return X, y


def _dual(K, y, alpha):
    """``sum alpha - 1/2 (alpha y)^T K (alpha y)``: the reference dual objective."""
    ay = alpha * y
    return alpha.sum() - 0.5 * ay @ K @ ay


def _libsvm_alpha(svm, n):
    alpha = np.zeros(n)
    alpha[svm.support_] = np.abs(svm.dual_coef_[0])
    return alpha


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("fmt", [np.ascontiguousarray, sp.csr_matrix])
def test_smo_reaches_libsvm_optimum(kernel, fmt):
    X, y = _noisy()
    params = KERNELS[kernel]
    ref = LibSVM(C=2.0, kernel=kernel, tol=1e-10, **params).fit(X, y)
    res = smo_svm(fmt(X), y, 2.0, kernel=kernel, gap_rtol=1e-10, **params)
    assert res.converged
    K = pairwise_kernels(X, metric=kernel, **params)
    d_ref = _dual(K, y, _libsvm_alpha(ref, len(y)))
    assert _dual(K, y, res.alpha) == pytest.approx(d_ref, rel=1e-9)
    assert res.dual == pytest.approx(d_ref, rel=1e-9)
    assert 0.0 <= res.primal - res.dual <= 1e-10 * res.primal
    assert res.alpha.min() >= 0.0 and res.alpha.max() <= 2.0
    assert abs(res.alpha @ y) <= 1e-12 * len(y)
    # the decision values (unique at the optimum, where alpha need not be), from alpha
    np.testing.assert_allclose(res.g, K @ (res.alpha * y), atol=1e-10)
    f = res.g + res.theta_0
    np.testing.assert_allclose(f, ref.decision_function(X), atol=1e-6)
    np.testing.assert_array_equal(np.where(f >= 0, 1.0, -1.0), ref.predict(X))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_smo_reaches_exact_qp_optimum(fit_intercept):
    X, y = _noisy(n=40, seed=1)
    K = pairwise_kernels(X, metric="rbf", gamma=1.0)
    qp = svm_dual_qp(K, y, 0.7, fit_intercept=fit_intercept)
    res = smo_svm(X, y, 0.7, kernel="rbf", gamma=1.0, fit_intercept=fit_intercept,
                  gap_rtol=1e-9)
    assert res.converged
    assert res.dual == pytest.approx(_dual(K, y, qp.alpha), rel=1e-8)
    # the primal at (alpha, b) is the optimum too: the gap closes from both sides
    assert res.primal == pytest.approx(_dual(K, y, qp.alpha), rel=1e-8)
    if not fit_intercept:
        assert res.theta_0 == 0.0


def test_smo_precomputed_gram_is_the_same_problem():
    X, y = _noisy(n=50, seed=2)
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    on_rows = smo_svm(X, y, 1.0, kernel="rbf", gamma=0.5)
    on_gram = smo_svm(None, y, 1.0, kernel="precomputed", gram=K)
    assert on_gram.converged
    assert on_gram.dual == pytest.approx(on_rows.dual, rel=1e-12)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_shrinking_and_a_two_column_cache_reach_the_same_optimum(fit_intercept):
    X, y = _noisy(n=120, seed=3)
    runs = {(shrinking, cache): smo_svm(X, y, 5.0, kernel="rbf", gamma=2.0,
                                        fit_intercept=fit_intercept, gap_rtol=1e-9,
                                        shrinking=shrinking, cache_size=cache)
            for shrinking in (True, False) for cache in (200.0, 1e-6)}
    duals = [res.dual for res in runs.values()]
    assert all(res.converged for res in runs.values())
    assert max(duals) - min(duals) <= 1e-9 * max(duals)
    # the tiny cache holds two columns, and computes more of them than the large one
    assert runs[True, 1e-6].cache_bytes == 2 * 8 * len(y)
    assert runs[True, 1e-6].columns > runs[True, 200.0].columns


@pytest.mark.parametrize("cache_size", [0.01, 0.5, 3.0, 200.0])
@pytest.mark.parametrize("n", [100, 1000, 70000])
def test_cache_never_exceeds_cache_size(cache_size, n):
    slots = cache_columns(cache_size, n)
    column = 8 * n
    assert slots * column <= max(cache_size * 2**20, 2 * column)
    assert slots >= min(2, n)
    # as many as fit, and never more than the columns there are
    assert slots == min(n, max(2, int(cache_size * 2**20 // column)))


def test_cache_bytes_of_a_run_stay_within_cache_size():
    X, y = _noisy(n=300, seed=4)
    res = smo_svm(X, y, 1.0, kernel="rbf", gamma=1.0, cache_size=0.5)
    assert res.converged
    assert 2 * 8 * 300 <= res.cache_bytes <= 0.5 * 2**20


def test_weights_are_per_example_C():
    X, y = _noisy(n=70, seed=5)
    s = np.random.default_rng(0).uniform(0.2, 3.0, size=len(y))
    ref = LibSVM(C=1.5, kernel="rbf", gamma=1.0, tol=1e-10).fit(X, y, sample_weight=s)
    res = smo_svm(X, y, 1.5, kernel="rbf", gamma=1.0, sample_weight=s, gap_rtol=1e-10)
    # LIBSVM keeps its kernel in float32: alpha agrees to about 1e-6
    np.testing.assert_allclose(res.alpha, _libsvm_alpha(ref, len(y)), atol=1e-5)
    np.testing.assert_allclose(res.g + res.theta_0, ref.decision_function(X), atol=1e-5)
    assert np.all(res.alpha <= 1.5 * s)


def test_best_offset_minimizes_the_hinge_sum():
    rng = np.random.default_rng(6)
    for _ in range(20):
        n = int(rng.integers(1, 12))
        g, y = rng.normal(size=n), rng.choice([-1.0, 1.0], size=n)
        C = rng.choice([0.5, 1.0, 2.0], size=n)
        b, hinge = best_offset(g, y, C, hint=rng.normal())
        # the sum is piecewise linear: its minimum is at a kink
        kinks = y - g
        sums = [(C * np.maximum(0.0, 1.0 - y * (g + k))).sum() for k in kinks]
        assert hinge == pytest.approx(min(sums), abs=1e-12)
        assert hinge == pytest.approx((C * np.maximum(0.0, 1.0 - y * (g + b))).sum(),
                                      abs=1e-12)
