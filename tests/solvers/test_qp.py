"""The Clarabel QPs against scikit-learn (LIBSVM / LIBLINEAR) and the KKT conditions."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC as SkSVC
from sklearn.svm import LinearSVC

from halfspaces.losses import svm_objective
from halfspaces.solvers.qp import svm_dual_qp, svm_primal_qp


def _noisy(n=80, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0.2, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
def test_primal_matches_libsvm(C, fmt):
    X, y = _noisy()
    res = svm_primal_qp(fmt(X), y, C)
    ref = SkSVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    assert res.status == "solved"
    ours = svm_objective(res.theta, res.theta_0, X, y, C=C)
    theirs = svm_objective(ref.coef_[0], ref.intercept_[0], X, y, C=C)
    assert ours <= theirs * (1 + 1e-7)
    assert ours == pytest.approx(theirs, rel=1e-6)
    np.testing.assert_allclose(res.theta, ref.coef_[0], atol=1e-4 * max(1, C))
    assert res.theta_0 == pytest.approx(ref.intercept_[0], abs=1e-4 * max(1, C))


def test_primal_duals_satisfy_kkt():
    X, y = _noisy()
    C = 1.0
    res = svm_primal_qp(X, y, C)
    alpha = res.alpha
    z = y * (X @ res.theta + res.theta_0)
    np.testing.assert_allclose(res.theta, (alpha * y) @ X, atol=1e-7)  # theta = sum a y x
    assert abs(alpha @ y) < 1e-7  # sum a y = 0
    assert alpha.min() > -1e-9 and alpha.max() < C + 1e-7  # 0 <= a <= C
    free = (alpha > 1e-4) & (alpha < C - 1e-4)
    assert free.sum() >= 2
    np.testing.assert_allclose(z[free], 1.0, atol=1e-6)  # free SVs lie on the margin
    assert np.all(alpha[z > 1 + 1e-4] < 1e-6)  # outside the margin: a = 0


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dual_with_linear_gram_matches_primal(fit_intercept):
    X, y = _noisy(seed=1)
    C = 0.5
    primal = svm_primal_qp(X, y, C, fit_intercept=fit_intercept)
    dual = svm_dual_qp(X @ X.T, y, C, fit_intercept=fit_intercept)
    np.testing.assert_allclose((dual.alpha * y) @ X, primal.theta, atol=1e-6)
    # theta_0 is read from the multiplier of sum a y = 0: compare it with the free SVs
    assert dual.theta_0 == pytest.approx(primal.theta_0, abs=1e-6)


def test_squared_hinge_matches_liblinear_without_offset():
    X, y = _noisy(seed=2)
    C = 0.3
    res = svm_primal_qp(X, y, C, fit_intercept=False, loss="squared_hinge")
    ref = LinearSVC(loss="squared_hinge", fit_intercept=False, C=C, tol=1e-12,
                    max_iter=100000).fit(X, y)
    np.testing.assert_allclose(res.theta, ref.coef_[0], atol=1e-6)
    dual = svm_dual_qp(X @ X.T, y, C, fit_intercept=False, loss="squared_hinge")
    np.testing.assert_allclose((dual.alpha * y) @ X, ref.coef_[0], atol=1e-6)


def test_hard_margin_infeasible_gives_farkas_certificate():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    y = np.array([1.0, 1.0, -1.0, -1.0])
    for res in (svm_primal_qp(X, y, np.inf), svm_dual_qp(X @ X.T, y, np.inf)):
        assert res.status == "infeasible"
        a = res.certificate
        assert a.min() >= 0 and a.max() == 1.0
        np.testing.assert_allclose((a * y) @ X, 0.0, atol=1e-6)
        assert abs(a @ y) < 1e-6


def test_hard_margin_separable_is_feasible_with_margin_one():
    X, y = _noisy(seed=3)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X = X + 0.3 * y[:, None] * np.eye(5)[0]  # open a gap along the first axis
    res = svm_primal_qp(X, y, np.inf)
    z = y * (X @ res.theta + res.theta_0)
    assert res.status == "solved"
    assert z.min() == pytest.approx(1.0, abs=1e-7)


def _noisy_hard(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X, np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)


def _residual(Z, y, a):
    """max(max_j |sum_i a_i y_i z_ij| / max_i |z_ij|, |sum a_i y_i|) / sum a, the LP's check
    (each column at its own scale)."""
    top = np.abs(Z).max(axis=0)
    columns = np.abs((a * y) @ Z)[top > 0] / top[top > 0]
    return max(columns.max(), abs(a @ y)) / a.sum()


@pytest.mark.parametrize("seed", range(4))
def test_infeasible_status_only_with_a_verified_certificate(seed):
    # Clarabel's Farkas vector is an interior point's: approximate, with weight on every row.
    # "infeasible" must mean that it was checked: sum a y x = 0 (each column to 1e-8 of its
    # max |x_ij| sum a) and sum a y = 0 (to 1e-8 of sum a); otherwise the status is
    # Clarabel's own, with the residual kept. The dual's vector is checked in feature
    # space: K (a * y) = 0 for the Gram matrix K.
    X, y = _noisy_hard(200, seed)
    K = X @ X.T
    for res, Z in ((svm_primal_qp(X, y, np.inf), X), (svm_dual_qp(K, y, np.inf), K)):
        assert res.status != "solved"
        a = res.certificate
        assert a.min() >= 0 and a.sum() > 0
        residual = _residual(Z, y, a)
        assert res.residual == pytest.approx(residual, rel=1e-6)
        assert (res.status == "infeasible") == (residual <= 1e-8)
