"""Dual coordinate descent reaches the QP optimum (Clarabel) and LIBLINEAR's, dense and CSR."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from halfspaces.losses import svm_objective
from halfspaces.solvers.dcd import dcd_svm
from halfspaces.solvers.qp import svm_primal_qp


def _sparse_noisy(n=300, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random(size=(n, d)) < 0.3)
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.5 * rng.normal(size=n) > 0.3, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("fmt", [np.ascontiguousarray, sp.csr_matrix])
def test_dcd_reaches_qp_optimum(loss, fit_intercept, fmt):
    X, y = _sparse_noisy()
    C = 0.1
    qp = svm_primal_qp(X, y, C, fit_intercept=fit_intercept, loss=loss)
    res = dcd_svm(fmt(X), y, C, loss=loss, fit_intercept=fit_intercept, tol=1e-6,
                  max_iter=20000, rng=np.random.RandomState(0))
    assert res.converged
    j_qp = svm_objective(qp.theta, qp.theta_0, X, y, C=C, loss=loss)
    j_dcd = svm_objective(res.theta, res.theta_0, X, y, C=C, loss=loss)
    assert abs(j_dcd - j_qp) <= 1e-6 * j_qp
    np.testing.assert_allclose(res.theta, qp.theta, atol=1e-3)
    assert res.theta_0 == pytest.approx(qp.theta_0, abs=1e-3)
    # 0 <= a <= U, and the reported objectives are P at theta and the dual at alpha made
    # feasible (sum a y = 0 with an offset): a certificate P - D <= 0.01 tol P
    assert res.alpha.min() >= 0.0
    if loss == "hinge":
        assert res.alpha.max() <= C
    assert res.primal == pytest.approx(j_dcd, rel=1e-12)
    assert res.dual == pytest.approx(_dual_objective(X, y, C, loss, fit_intercept, res.alpha),
                                     rel=1e-12)
    assert 0.0 <= res.primal - res.dual <= 1e-8 * res.primal


def _dual_objective(X, y, C, loss, fit_intercept, alpha):
    """sum a - 1/2 ||sum a_i y_i x_i||^2 (- sum a^2 / 4C) at alpha scaled onto sum a y = 0."""
    a = np.clip(alpha, 0.0, C if loss == "hinge" else np.inf)
    if fit_intercept:  # shrink the heavier class to the lighter one's total
        pos, neg = a[y > 0].sum(), a[y < 0].sum()
        a = np.where(y > 0, a * min(1.0, neg / pos), a * min(1.0, pos / neg))
    w = (a * y) @ X
    return a.sum() - 0.5 * w @ w - (a @ a / (4 * C) if loss == "squared_hinge" else 0.0)


def test_dcd_matches_liblinear_without_offset():
    X, y = _sparse_noisy(seed=1)
    C = 0.2
    res = dcd_svm(sp.csr_matrix(X), y, C, fit_intercept=False, tol=1e-8, max_iter=50000,
                  rng=np.random.RandomState(0))
    ref = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-8,
                    max_iter=100000).fit(X, y)
    assert svm_objective(res.theta, 0.0, X, y, C=C) == pytest.approx(
        svm_objective(ref.coef_[0], 0.0, X, y, C=C), rel=1e-7)


@pytest.mark.parametrize("shrinking", [True, False])
def test_same_seed_same_result_and_shrinking_agrees(shrinking):
    X, y = _sparse_noisy(seed=2)
    runs = [dcd_svm(X, y, 0.1, tol=1e-6, max_iter=20000, shrinking=shrinking,
                    rng=np.random.RandomState(7)) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].theta, runs[1].theta)
    assert runs[0].theta_0 == runs[1].theta_0
    qp = svm_primal_qp(X, y, 0.1)
    assert svm_objective(runs[0].theta, runs[0].theta_0, X, y, C=0.1) == pytest.approx(
        svm_objective(qp.theta, qp.theta_0, X, y, C=0.1), rel=1e-6)


def test_max_iter_reports_not_converged():
    X, y = _sparse_noisy(seed=3)
    res = dcd_svm(X, y, 10.0, tol=1e-10, max_iter=3, rng=np.random.RandomState(0))
    assert not res.converged and res.n_iter == 3


def test_int64_indices_and_float32_data_give_the_same_iterates():
    X, y = _sparse_noisy(seed=4)
    A = sp.csr_matrix(X)
    B = sp.csr_matrix((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                      shape=A.shape)
    runs = [dcd_svm(M, y, 0.1, tol=1e-5, max_iter=5000, rng=np.random.RandomState(3))
            for M in (A, B, X)]
    np.testing.assert_array_equal(runs[0].theta, runs[1].theta)
    np.testing.assert_allclose(runs[0].theta, runs[2].theta, rtol=1e-12, atol=1e-14)
    f32 = dcd_svm(X.astype(np.float32), y, 0.1, tol=1e-5, max_iter=5000,
                  rng=np.random.RandomState(3))
    np.testing.assert_allclose(f32.theta, runs[2].theta, atol=1e-4)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_one_outer_iteration_per_call_gives_the_same_iterates(fit_intercept, capsys):
    # verbose=True stops the compiled driver after every outer iteration to print; the state
    # carried between calls (active set, thresholds, generator, multiplier) must make the
    # chained run identical to the single call.
    X, y = _sparse_noisy(seed=5)
    A = sp.csr_matrix(X)
    runs = [dcd_svm(A, y, 0.3, fit_intercept=fit_intercept, tol=1e-5, max_iter=5000,
                    rng=np.random.RandomState(11), verbose=v) for v in (False, True)]
    assert runs[0].converged and runs[1].converged
    np.testing.assert_array_equal(runs[0].alpha, runs[1].alpha)
    np.testing.assert_array_equal(runs[0].theta, runs[1].theta)
    assert runs[0].theta_0 == runs[1].theta_0 and runs[0].n_iter == runs[1].n_iter
    assert capsys.readouterr().out.count("dcd: iter") >= runs[1].n_iter


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_converged_means_a_duality_gap_within_tol(fit_intercept):
    # Independent check of the stopping rule: after convergence, the primal objective at
    # theta minus the dual objective at alpha (made feasible), both computed here from the
    # formulas, is at most 0.01 tol of the objective: the objective is certified.
    X, y = _sparse_noisy(n=600, d=30, seed=6)
    C, tol = 0.5, 1e-4
    res = dcd_svm(sp.csr_matrix(X), y, C, fit_intercept=fit_intercept, tol=tol,
                  max_iter=10000, rng=np.random.RandomState(0))
    assert res.converged
    primal = svm_objective(res.theta, res.theta_0, X, y, C=C)
    dual = _dual_objective(X, y, C, "hinge", fit_intercept, res.alpha)
    assert 0.0 <= primal - dual <= 0.01 * tol * primal


def test_max_iter_counts_epochs_not_shrunk_passes():
    # max_iter bounds the work (row visits / n), so passes over a small shrunk set count
    # little: a budget of 5 epochs ends with at most 5 n row visits reported as n_iter <= 5.
    X, y = _sparse_noisy(n=500, seed=7)
    res = dcd_svm(X, y, 10.0, tol=1e-12, max_iter=5, rng=np.random.RandomState(0))
    assert not res.converged and res.n_iter == 5
