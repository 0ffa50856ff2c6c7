"""LogisticRegression against scikit-learn's lbfgs solution and a NumPy SGD reference."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import run_sklearn_check
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from halfspaces import LogisticRegression


def _data(n=200, d=6, seed=0, n_classes=2):
    return make_classification(n_samples=n, n_features=d, n_informative=4, n_redundant=0,
                               n_classes=n_classes, flip_y=0.05, random_state=seed)


def c_form_objective(w, b, X, y_pm, C):
    """1/2 ||w||^2 + C sum log(1 + exp(-y (Xw + b))), written out here."""
    z = y_pm * (X @ w + b)
    return 0.5 * w @ w + C * np.logaddexp(0, -z).sum()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_same_optimum_as_sklearn(sparse, fit_intercept, C):
    X, y = _data()
    Xf = sp.csr_matrix(X) if sparse else X
    ours = LogisticRegression(C=C, fit_intercept=fit_intercept, tol=1e-10,
                              max_iter=10_000).fit(Xf, y)
    ref = SkLogisticRegression(C=C, fit_intercept=fit_intercept, tol=1e-10,
                               max_iter=10_000).fit(Xf, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.predict_proba(Xf), ref.predict_proba(Xf), atol=1e-7)
    y_pm = np.where(y == 1, 1.0, -1.0)
    J_ours = c_form_objective(ours.coef_[0], ours.intercept_[0], X, y_pm, C)
    J_ref = c_form_objective(ref.coef_[0], ref.intercept_[0], X, y_pm, C)
    assert J_ours == pytest.approx(J_ref, rel=1e-10)
    # objective_ is the lam form: J_C = J_lam / lam with lam = 1/(C n)
    lam = 1 / (C * len(y))
    assert ours.objective_ == pytest.approx(J_ours * lam, rel=1e-12)


def test_lam_form_equals_C_form():
    X, y = _data()
    lam = 1e-3
    a = LogisticRegression(lam=lam, tol=1e-10, max_iter=1000).fit(X, y)
    b = SkLogisticRegression(C=1 / (lam * len(y)), tol=1e-10, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-7)


def test_one_vs_rest_matches_sklearn_ovr():
    X, y = _data(n=300, n_classes=3)
    ours = LogisticRegression(C=0.5, tol=1e-10, max_iter=1000, multi_class="ovr").fit(X, y)
    ref = OneVsRestClassifier(SkLogisticRegression(C=0.5, tol=1e-10, max_iter=1000)).fit(X, y)
    ref_coef = np.vstack([e.coef_ for e in ref.estimators_])
    np.testing.assert_allclose(ours.coef_, ref_coef, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-7)
    np.testing.assert_allclose(ours.predict_log_proba(X), np.log(ours.predict_proba(X)),
                               rtol=1e-10)
    assert ours.objective_.shape == (3,)


def reference_sgd_pass(X, y_pm, lam, eta0, w, b, t):
    """One pass of the documented SGD step, from the module docstring."""
    for i in range(X.shape[0]):
        t += 1
        z = X[i] @ w + b
        g = -y_pm[i] / (1 + np.exp(y_pm[i] * z))
        eta = eta0 / (1 + lam * eta0 * t)
        w = (1 - eta * lam) * w - eta * g * X[i]
        b = b - eta * g
    return w, b, t


@pytest.mark.parametrize("sparse", [False, True])
def test_partial_fit_matches_numpy_sgd(sparse):
    X, y = _data(n=50)
    y_pm = np.where(y == 1, 1.0, -1.0)
    est = LogisticRegression(lam=0.01, eta0=0.3)
    Xf = sp.csr_matrix(X) if sparse else X
    est.partial_fit(Xf, y, classes=[0, 1]).partial_fit(Xf, y)
    w, b, t = reference_sgd_pass(X, y_pm, 0.01, 0.3, np.zeros(6), 0.0, 0)
    w, b, t = reference_sgd_pass(X, y_pm, 0.01, 0.3, w, b, t)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-10)
    assert est.t_ == 100


def test_partial_fit_approaches_the_optimum():
    X, y = _data(n=500)
    lam = 0.01
    full = LogisticRegression(lam=lam, tol=1e-8).fit(X, y)
    online = LogisticRegression(lam=lam)
    for _ in range(30):
        online.partial_fit(X, y, classes=[0, 1])
    y_pm = np.where(y == 1, 1.0, -1.0)
    J = (np.logaddexp(0, -y_pm * (X @ online.coef_[0] + online.intercept_[0])).mean()
         + lam / 2 * online.coef_[0] @ online.coef_[0])
    assert full.objective_ <= J <= 1.02 * full.objective_


def test_warm_start_starts_from_the_solution():
    X, y = _data()
    est = LogisticRegression(C=1.0, tol=1e-8, warm_start=True).fit(X, y)
    est.fit(X, y)
    assert est.n_iter_ <= 2


def test_convergence_warning():
    X, y = _data()
    with pytest.warns(Warning, match="stopped after max_iter=1 iterations"):
        LogisticRegression(max_iter=1, tol=1e-12).fit(X, y)


def test_lbfgs_minimizes_a_quadratic_and_warns_at_max_iter():
    # J(theta) = 1/2 theta^T A theta - c^T theta has its minimum at A^{-1} c
    from sklearn.exceptions import ConvergenceWarning

    from halfspaces.linear.logistic import lbfgs

    A, c = np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([1.0, -1.0])

    def fun(theta):
        return 0.5 * theta @ A @ theta - c @ theta, A @ theta - c

    res = lbfgs(fun, np.zeros(2), max_iter=100, tol=1e-12)
    np.testing.assert_allclose(res.x, np.linalg.solve(A, c), rtol=1e-9)
    with pytest.warns(ConvergenceWarning, match="stopped after max_iter=1 iterations before"
                                                " the gradient fell below tol=1e-12"):
        lbfgs(fun, np.zeros(2), max_iter=1, tol=1e-12)


@pytest.mark.parametrize("params, message", [
    ({"C": 0.0}, "LogisticRegression: 'C' must be a float > 0 (inverse regularization"
                 " strength); got 0.0. Try C=1.0; smaller C regularizes more."),
    ({"lam": -1.0}, "LogisticRegression: 'lam' must be a float > 0 or None"),
    ({"solver": "newton"}, "LogisticRegression: 'solver' must be one of 'lbfgs', 'sgd'; got"
                           " 'newton'."),
    ({"tol": 0}, "LogisticRegression: 'tol' must be a float > 0"),
])
def test_parameter_errors(params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        LogisticRegression(**params).fit(*_data())


# LogisticRegression(), the default, is checked in tests/test_common.py.
@parametrize_with_checks([LogisticRegression(lam=1e-3),
                          LogisticRegression(solver="sgd", max_iter=5, random_state=0)])
def test_sklearn_compatible(estimator, check):
    # solver="sgd": a weight k is one step k times longer, not k copies (the weighted rule
    # is tested in tests/linear/test_logistic_sgd.py)
    run_sklearn_check(estimator, check)
