"""The CoCoA+ local solver against a NumPy reference written from the update rule, and the
CoCoA+ iteration (local solves, updates added with sigma' = K) against the QP optimum."""

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.losses import svm_objective
from halfspaces.solvers.cocoa import cocoa_local_solve, hinge_terms
from halfspaces.solvers.qp import svm_primal_qp


def _data(n=60, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _reference(X, y, alpha, w, C, loss, sigma, bias, orders):
    """The local coordinate steps of the module docstring, one row at a time."""
    U, D = (C, 0.0) if loss == "hinge" else (np.inf, 1.0 / (2 * C))
    Xb = np.hstack([X, np.full((X.shape[0], 1), bias)])
    dalpha, dw = np.zeros_like(alpha), np.zeros(X.shape[1] + 1)
    for order in orders:
        for i in order:
            a = alpha[i] + dalpha[i]
            G = y[i] * (w + sigma * dw) @ Xb[i] - 1 + D * a
            new = min(max(a - G / max(sigma * Xb[i] @ Xb[i] + D, 1e-12), 0.0), U)
            dalpha[i] += new - a
            dw += (new - a) * y[i] * Xb[i]
    return dalpha, dw


@pytest.mark.parametrize("fmt", [np.ascontiguousarray, sp.csr_matrix], ids=["dense", "csr"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("bias", [0.0, 1.5])
def test_local_solver_matches_the_numpy_reference(fmt, loss, bias):
    X, y = _data()
    rng = np.random.default_rng(1)
    C = 0.5
    alpha = rng.uniform(0, C, size=y.size)  # a feasible start, not zero
    w = np.concatenate([(alpha * y) @ X + rng.normal(scale=0.1, size=X.shape[1]), [0.2]])
    upd = cocoa_local_solve(fmt(X), y, alpha, w, C=C, loss=loss, sigma=3.0, bias=bias,
                            n_passes=2, rng=np.random.default_rng(7))
    g = np.random.default_rng(7)  # the solver draws one permutation per pass from rng
    orders = [g.permutation(y.size) for _ in range(2)]
    dalpha, dw = _reference(X, y, alpha, w, C, loss, 3.0, bias, orders)
    np.testing.assert_allclose(upd.delta_alpha, dalpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(upd.delta_w, dw, rtol=1e-10, atol=1e-12)
    new = alpha + upd.delta_alpha
    assert new.min() >= 0 and (loss != "hinge" or new.max() <= C)
    # delta_w is the change of w(alpha) = sum alpha_i y_i x~_i
    Xb = np.hstack([X, np.full((y.size, 1), bias)])
    np.testing.assert_allclose(upd.delta_w, (upd.delta_alpha * y) @ Xb, atol=1e-12)


def _dual(alpha, X, y, C, loss):
    w = (alpha * y) @ X
    D = 0.0 if loss == "hinge" else 1.0 / (2 * C)
    return alpha.sum() - 0.5 * w @ w - 0.5 * D * alpha @ alpha


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_cocoa_plus_rounds_increase_the_dual_and_reach_the_qp_optimum(loss):
    """K machines, sigma' = K, updates added: the dual never decreases (the safe bound) and
    the iterate converges to the QP solution of the SVM without offset."""
    X, y = _data(n=80, d=4, seed=2)
    C, K = 0.3, 4
    parts = np.array_split(np.arange(y.size), K)
    alpha, w = np.zeros(y.size), np.zeros(X.shape[1] + 1)
    rng = np.random.default_rng(0)
    duals = [_dual(alpha, X, y, C, loss)]
    for _ in range(300):
        dw = np.zeros_like(w)
        for rows in parts:
            upd = cocoa_local_solve(X[rows], y[rows], alpha[rows], w, C=C, loss=loss,
                                    sigma=float(K), rng=rng)
            alpha[rows] += upd.delta_alpha
            dw += upd.delta_w
        w += dw
        duals.append(_dual(alpha, X, y, C, loss))
    assert np.all(np.diff(duals) >= -1e-12)
    qp = svm_primal_qp(X, y, C, fit_intercept=False, loss=loss)
    best = svm_objective(qp.theta, 0.0, X, y, C=C, loss=loss)
    assert svm_objective(w[:-1], 0.0, X, y, C=C, loss=loss) <= best * (1 + 1e-6)
    # weak duality, and the gap from hinge_terms closes
    total, asum, asq = hinge_terms(X, y, alpha, w, loss=loss)
    D = 0.0 if loss == "hinge" else 1.0 / (2 * C)
    primal = 0.5 * w @ w + C * total
    assert asum - 0.5 * w @ w - 0.5 * D * asq <= primal
    assert primal - (asum - 0.5 * w @ w - 0.5 * D * asq) <= 1e-6 * primal


def test_one_machine_with_sigma_one_is_dual_coordinate_descent():
    """K = 1, sigma' = 1: the local solver is DCD on the whole problem (the QP optimum)."""
    X, y = _data(n=50, d=3, seed=3)
    C = 1.0
    upd = cocoa_local_solve(sp.csr_matrix(X), y, np.zeros(y.size), np.zeros(4), C=C,
                            n_passes=400, rng=np.random.default_rng(0))
    qp = svm_primal_qp(X, y, C, fit_intercept=False)
    np.testing.assert_allclose(upd.delta_w[:3], qp.theta, atol=1e-5)
