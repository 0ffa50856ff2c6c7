"""The CoCoA+ local solver against a NumPy reference written from the update rule; the
certificate against the exact dual of dcd.feasible_dual and the QP optimum (weak duality);
the CoCoA+ iteration (local solves, updates added with sigma' = K, proximal steps on the
offset) against the QP optimum, without and with the offset."""

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.losses import svm_objective
from halfspaces.solvers.cocoa import (
    ShardTerms,
    certify,
    cocoa_local_solve,
    move_centre,
    shard_terms,
)
from halfspaces.solvers.dcd import feasible_dual
from halfspaces.solvers.qp import svm_primal_qp


def _data(n=60, d=5, seed=0, offset=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)
    y = np.where(X @ rng.normal(size=d) + offset + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _reference(X, y, alpha, w, C, loss, sigma, bias, nu, orders):
    """The local coordinate steps of the module docstring, one row at a time."""
    U, D = (C, 0.0) if loss == "hinge" else (np.inf, 1.0 / (2 * C))
    Xb = np.hstack([X, np.full((X.shape[0], 1), bias)])
    dalpha, dw = np.zeros_like(alpha), np.zeros(X.shape[1] + 1)
    for order in orders:
        for i in order:
            a = alpha[i] + dalpha[i]
            G = y[i] * ((w + sigma * dw) @ Xb[i] + nu) - 1 + D * a
            new = min(max(a - G / max(sigma * Xb[i] @ Xb[i] + D, 1e-12), 0.0), U)
            dalpha[i] += new - a
            dw += (new - a) * y[i] * Xb[i]
    return dalpha, dw


@pytest.mark.parametrize("fmt", [np.ascontiguousarray, sp.csr_matrix], ids=["dense", "csr"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize(("bias", "nu"), [(0.0, 0.0), (1.5, -0.4)])
def test_local_solver_matches_the_numpy_reference(fmt, loss, bias, nu):
    X, y = _data()
    rng = np.random.default_rng(1)
    C = 0.5
    alpha = rng.uniform(0, C, size=y.size)  # a feasible start, not zero
    w = np.concatenate([(alpha * y) @ X + rng.normal(scale=0.1, size=X.shape[1]), [0.2]])
    upd = cocoa_local_solve(fmt(X), y, alpha, w, C=C, loss=loss, sigma=3.0, bias=bias,
                            nu=nu, n_passes=2, rng=np.random.default_rng(7))
    g = np.random.default_rng(7)  # the solver draws one permutation per pass from rng
    orders = [g.permutation(y.size) for _ in range(2)]
    dalpha, dw = _reference(X, y, alpha, w, C, loss, 3.0, bias, nu, orders)
    np.testing.assert_allclose(upd.delta_alpha, dalpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(upd.delta_w, dw, rtol=1e-10, atol=1e-12)
    new = alpha + upd.delta_alpha
    assert new.min() >= 0 and (loss != "hinge" or new.max() <= C)
    # delta_w is the change of w(alpha) = sum alpha_i y_i x~_i
    Xb = np.hstack([X, np.full((y.size, 1), bias)])
    np.testing.assert_allclose(upd.delta_w, (upd.delta_alpha * y) @ Xb, atol=1e-12)


def test_shard_terms_match_their_definitions():
    X, y = _data(n=30, d=4, seed=4)
    rng = np.random.default_rng(2)
    alpha, w = rng.uniform(0, 1, size=30), rng.normal(size=5)
    terms = shard_terms(sp.csr_matrix(X), y, alpha, w, loss="squared_hinge", bias=0.7, nu=0.2)
    scores = X @ w[:4]
    slack = np.maximum(0.0, 1.0 - y * (scores + 0.2 + 0.7 * w[4]))
    pos = y > 0
    expected = [(slack ** 2).sum(), alpha[pos].sum(), alpha[~pos].sum(),
                (alpha * scores)[pos].sum(), (alpha * scores)[~pos].sum(), (alpha ** 2).sum()]
    np.testing.assert_allclose(terms, expected, rtol=1e-12)


def _exact_dual(X, y, alpha, C, loss):
    """The dual objective of the SVM with offset at a dual-feasible point."""
    w = (alpha * y) @ X
    D = 0.0 if loss == "hinge" else 1.0 / (2 * C)
    return alpha.sum() - 0.5 * w @ w - 0.5 * D * alpha @ alpha


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("seed", range(4))
def test_the_certified_dual_is_a_lower_bound_of_the_optimum_with_offset(loss, seed):
    """For any alpha in the box, with sum alpha_i y_i != 0: the bound of certify is at most
    the dual value of dcd.feasible_dual(alpha) (the class scaled), which is at most the QP
    optimum of the SVM with offset (weak duality)."""
    X, y = _data(n=40, d=3, seed=seed, offset=1.0)
    C = 0.8
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0, C, size=y.size) * (rng.random(y.size) < 0.7)
    nu, bias = 0.3, 0.5
    w = np.concatenate([(alpha * y) @ X, [bias * (alpha @ y)]])
    cert = certify(shard_terms(X, y, alpha, w, loss=loss, bias=bias, nu=nu), w, nu, C=C,
                   loss=loss, bias=bias, radius=float(np.sqrt((X * X).sum(axis=1).max())))
    assert abs(alpha @ y) > 0.1  # infeasible for the constraint sum alpha_i y_i = 0
    U = C if loss == "hinge" else np.inf
    feasible = _exact_dual(X, y, feasible_dual(alpha, y, U, True), C, loss)
    qp = svm_primal_qp(X, y, C, fit_intercept=True, loss=loss)
    best = svm_objective(qp.theta, qp.theta_0, X, y, C=C, loss=loss)
    assert cert.dual <= feasible + 1e-12 <= best + 1e-9
    b = nu + bias * w[-1]
    assert cert.primal == pytest.approx(svm_objective(w[:-1], b, X, y, C=C, loss=loss))
    assert cert.inner_gap >= 0.0  # weak duality of the proximal subproblem


def _cocoa(X, y, C, loss, K, rho, rounds, tol):
    """CoCoA+ on K machines in this process: the driver of halfspaces.dask, without Dask."""
    parts = np.array_split(np.arange(y.size), K)
    alpha, w, nu, step = np.zeros(y.size), np.zeros(X.shape[1] + 1), 0.0, 0.0
    bias, radius = np.sqrt(rho), float(np.sqrt((X * X).sum(axis=1).max()))
    rng = np.random.default_rng(0)
    duals = []
    for _ in range(rounds):
        terms = [shard_terms(X[p], y[p], alpha[p], w, loss=loss, bias=bias, nu=nu)
                 for p in parts]
        cert = certify(ShardTerms(*np.sum(terms, axis=0)), w, nu, C=C, loss=loss, bias=bias,
                       radius=radius)
        duals.append(cert.dual)
        if cert.primal - cert.dual <= tol * cert.primal:
            return w, float(nu + bias * w[-1]), cert, duals
        dw = np.zeros_like(w)
        for p in parts:
            upd = cocoa_local_solve(X[p], y[p], alpha[p], w, C=C, loss=loss, sigma=float(K),
                                    bias=bias, nu=nu, rng=rng)
            alpha[p] += upd.delta_alpha
            dw += upd.delta_w
        w = w + dw
        if rho:
            nu, step = move_centre(nu, w, cert, bias, step)
    raise AssertionError(f"no certificate in {rounds} rounds")


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_cocoa_plus_rounds_increase_the_dual_and_reach_the_qp_optimum(loss):
    """K machines, sigma' = K, updates added, no offset: the dual never decreases (the
    safe bound) and the certified iterate is the QP solution to 1e-6."""
    X, y = _data(n=80, d=4, seed=2)
    C = 0.3
    w, _, cert, duals = _cocoa(X, y, C, loss, K=4, rho=0.0, rounds=1000, tol=1e-6)
    assert np.all(np.diff(duals) >= -1e-12)
    qp = svm_primal_qp(X, y, C, fit_intercept=False, loss=loss)
    best = svm_objective(qp.theta, 0.0, X, y, C=C, loss=loss)
    J = svm_objective(w[:-1], 0.0, X, y, C=C, loss=loss)
    assert cert.dual <= best * (1 + 1e-9) and J <= best * (1 + 1e-6)
    assert J == pytest.approx(cert.primal, rel=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("K", [1, 3])
def test_proximal_cocoa_plus_reaches_the_svm_optimum_with_its_unregularized_offset(loss, K):
    """The offset by proximal steps: the certified iterate is the QP optimum of the SVM
    with an unregularized offset (not LIBLINEAR's regularized one), to 1e-6."""
    X, y = _data(n=60, d=3, seed=5, offset=1.0)
    C = 0.5
    w, b, cert, _ = _cocoa(X, y, C, loss, K=K, rho=0.3, rounds=3000, tol=1e-6)
    qp = svm_primal_qp(X, y, C, fit_intercept=True, loss=loss)
    best = svm_objective(qp.theta, qp.theta_0, X, y, C=C, loss=loss)
    J = svm_objective(w[:-1], b, X, y, C=C, loss=loss)
    assert cert.dual <= best * (1 + 1e-9)
    assert best * (1 - 1e-9) <= J <= best * (1 + 1e-6)
    assert b == pytest.approx(qp.theta_0, abs=0.05)
    # the regularized offset (the constant feature alone) is a worse point of this objective
    reg = svm_primal_qp(np.hstack([X, np.ones((60, 1))]), y, C, fit_intercept=False,
                        loss=loss)
    assert svm_objective(reg.theta[:-1], reg.theta[-1], X, y, C=C, loss=loss) > best * 1.001


def test_one_machine_with_sigma_one_is_dual_coordinate_descent():
    """K = 1, sigma' = 1: the local solver is DCD on the whole problem (the QP optimum)."""
    X, y = _data(n=50, d=3, seed=3)
    C = 1.0
    upd = cocoa_local_solve(sp.csr_matrix(X), y, np.zeros(y.size), np.zeros(4), C=C,
                            n_passes=400, rng=np.random.default_rng(0))
    qp = svm_primal_qp(X, y, C, fit_intercept=False)
    np.testing.assert_allclose(upd.delta_w[:3], qp.theta, atol=1e-5)
