"""SVC against scikit-learn's LIBSVM, the KKT conditions, and the separability LP."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import run_sklearn_check
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC as SkSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from halfspaces import NotSeparableError
from halfspaces.linear.svm import SVC
from halfspaces.losses import svm_objective


def _noisy(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.3 * rng.normal(size=n) > 0, 1, 0)
    return X, y


def _separable(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ np.arange(1.0, d + 1) + 0.5 > 0, 1.0, -1.0)
    X += 0.2 * y[:, None] * np.arange(1.0, d + 1) / np.linalg.norm(np.arange(1.0, d + 1))
    return X, y


XOR = (np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1, 1, 0, 0]))


# SVC(), the default, is checked in tests/test_common.py.
@parametrize_with_checks([SVC(kernel="rbf"), SVC(solver="dcd", random_state=0),
                          SVC(kernel="poly", coef0=1.0, lam=0.01)])
def test_sklearn_compatible(estimator, check):
    run_sklearn_check(estimator, check)


@pytest.mark.parametrize("C", [0.1, 3.0])
def test_linear_qp_matches_libsvm(C):
    X, y = _noisy()
    ours = SVC(C=C, solver="qp").fit(X, y)
    ref = SkSVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    assert ours.objective_ == pytest.approx(
        svm_objective(ref.coef_[0], ref.intercept_[0], X, y_pm, C=C), rel=1e-6)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    assert set(ours.support_) == set(ref.support_)
    assert 0.0 <= ours.duality_gap_ <= 1e-6 * ours.objective_
    assert ours.margin_ == pytest.approx(1 / np.linalg.norm(ours.coef_))
    # theta = sum_i alpha_i y_i x_i over the support vectors
    np.testing.assert_allclose(ours.dual_coef_ @ ours.support_vectors_, ours.coef_, atol=1e-6)


@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 0.5}), ("rbf", {}),
                                            ("poly", {"degree": 2, "coef0": 1.0})])
def test_kernel_qp_matches_libsvm(kernel, params):
    X, y = _noisy(seed=1)
    ours = SVC(C=2.0, kernel=kernel, **params).fit(X, y)
    ref = SkSVC(C=2.0, kernel=kernel, tol=1e-10, **params).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X[:20]), ref.predict(X[:20]))
    assert not hasattr(ours, "coef_")
    with pytest.raises(AttributeError):
        ours.coef_  # noqa: B018
    # primal objective 1/2 a^T Q a + C sum hinge, from LIBSVM's dual coefficients
    extra = {k: v for k, v in params.items() if k != "gamma"}
    K = pairwise_kernels(X, metric=kernel, gamma=ref._gamma, **extra)
    ay_ref = np.zeros(len(y))
    ay_ref[ref.support_] = ref.dual_coef_[0]
    z_ref = np.where(y == 1, 1, -1) * (K @ ay_ref + ref.intercept_[0])
    ref_obj = 0.5 * ay_ref @ K @ ay_ref + 2.0 * np.maximum(0, 1 - z_ref).sum()
    assert ours.objective_ == pytest.approx(ref_obj, rel=1e-6)
    assert 0.0 <= ours.duality_gap_ <= 1e-6 * ours.objective_


def test_refit_with_another_kernel_drops_coef():
    X, y = _noisy(seed=2)
    clf = SVC().fit(X, y)
    clf.set_params(kernel="rbf").fit(X, y)
    assert not hasattr(clf, "coef_")
    ref = SkSVC(kernel="rbf", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-4)


def test_callable_kernel_equals_linear():
    X, y = _noisy(seed=2)
    a = SVC(kernel=lambda A, B: A @ B.T).fit(X, y)
    b = SVC(solver="qp").fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)
    assert a.margin_ == pytest.approx(b.margin_, rel=1e-6)


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
def test_hard_margin_is_the_max_margin_separator(fmt):
    X, y = _separable()
    clf = SVC(C=np.inf).fit(fmt(X), y)
    w, b = clf.coef_[0], clf.intercept_[0]
    z = y * (X @ w + b)
    # KKT of min 1/2||w||^2 s.t. z >= 1: feasible, w = sum a y x with a >= 0, sum a y = 0,
    # a_i > 0 only where z_i = 1. These conditions certify the unique optimum.
    assert z.min() >= 1 - 1e-7
    np.testing.assert_allclose(z[clf.support_], 1.0, atol=1e-6)
    np.testing.assert_allclose(clf.dual_coef_ @ X[clf.support_], clf.coef_, atol=1e-6)
    assert np.all(clf.dual_coef_ * y[clf.support_] > 0)
    assert abs(clf.dual_coef_.sum()) < 1e-6
    assert clf.margin_ == pytest.approx(1 / np.linalg.norm(w), rel=1e-12)
    # the geometric margin: min distance of a point to the hyperplane
    assert clf.margin_ == pytest.approx(np.min(z / np.linalg.norm(w)), rel=1e-6)
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-12).fit(X, y)
    assert clf.margin_ == pytest.approx(1 / np.linalg.norm(ref.coef_), rel=1e-4)
    assert clf.objective_ == pytest.approx(0.5 * w @ w)


def test_hard_margin_matches_max_margin_separator():
    from halfspaces.theory import max_margin_separator

    X, y = _separable(seed=4)
    for fit_intercept in (True, False):
        if not fit_intercept:
            X = X - X.mean(axis=0)  # keep it separable through the origin
            y = np.where(X @ np.arange(1.0, 4.0) > 0, 1.0, -1.0)
            X += 0.2 * y[:, None] * np.arange(1.0, 4.0) / np.linalg.norm(np.arange(1.0, 4.0))
        w, b, margin = max_margin_separator(X, y, fit_intercept=fit_intercept)
        clf = SVC(C=np.inf, fit_intercept=fit_intercept).fit(X, y)
        assert clf.margin_ == pytest.approx(margin, rel=1e-6)
        np.testing.assert_allclose(clf.coef_[0], w, atol=1e-6)


def test_hard_margin_known_answer():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0], [3.0, 3.0]])
    clf = SVC(C=np.inf).fit(X, [-1, -1, 1, 1, 1])
    np.testing.assert_allclose(clf.coef_, [[1.0, 0.0]], atol=1e-7)
    assert clf.intercept_[0] == pytest.approx(-1.0, abs=1e-7)
    assert clf.margin_ == pytest.approx(1.0, rel=1e-7)
    assert sorted(clf.support_) == [0, 1, 2, 3]


@pytest.mark.parametrize("kernel", ["linear", lambda A, B: A @ B.T])
def test_hard_margin_on_xor_raises_with_certificate(kernel):
    X, y = XOR
    with pytest.raises(NotSeparableError, match="not linearly separable") as info:
        SVC(C=np.inf, kernel=kernel).fit(X, y)
    a = info.value.certificate
    y_pm = np.where(y == 1, 1.0, -1.0)
    assert np.all(a >= 0) and a.sum() > 0  # Farkas: a >= 0, sum a y x = 0, sum a y = 0
    np.testing.assert_allclose((a * y_pm) @ X, 0.0, atol=1e-6)
    assert abs(a @ y_pm) < 1e-6
    assert set(info.value.rows) == {0, 1, 2, 3}


def test_stalled_hard_margin_qp_falls_back_to_the_lp(monkeypatch):
    import halfspaces.linear.svm as svm_module
    from halfspaces.solvers.qp import QPResult

    def stalled(X, y, C, **kwargs):
        return QPResult("InsufficientProgress", np.zeros(len(y)), np.zeros(X.shape[1]), 0.0, 50)

    monkeypatch.setattr(svm_module, "svm_primal_qp", stalled)
    X, y = XOR
    with pytest.raises(NotSeparableError) as info:
        SVC(C=np.inf).fit(X, y)
    a, y_pm = info.value.certificate, np.where(y == 1, 1.0, -1.0)
    assert np.all(a >= 0) and a.sum() > 0
    np.testing.assert_allclose((a * y_pm) @ X, 0.0, atol=1e-6)


def test_hard_margin_agrees_with_separability_lp():
    from halfspaces.theory import is_linearly_separable

    rng = np.random.default_rng(5)
    outcomes = []
    for seed in range(6):
        if seed % 2:  # random labels: usually not separable
            X, y = rng.normal(size=(12, 2)), np.where(rng.random(12) < 0.5, 1.0, -1.0)
        else:
            X, y = _separable(12, 2, seed)
        lp = is_linearly_separable(X, y, fit_intercept=True)
        outcomes.append(bool(lp.separable))
        if lp.separable:
            clf = SVC(C=np.inf).fit(X, y)
            assert np.min(y * clf.decision_function(X)) >= 1 - 1e-6
        else:
            with pytest.raises(NotSeparableError):
                SVC(C=np.inf).fit(X, y)
    assert any(outcomes) and not all(outcomes)


def test_rbf_separates_xor():
    X, y = XOR
    clf = SVC(C=np.inf, kernel="rbf", gamma=1.0).fit(X, y)
    assert clf.score(X, y) == 1.0
    y_pm = np.where(y == 1, 1.0, -1.0)
    np.testing.assert_allclose(y_pm * clf.decision_function(X), 1.0, atol=1e-6)


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_dcd_equals_qp(fmt, loss):
    X, y = _noisy(n=300, d=6, seed=3)
    qp = SVC(C=0.1, solver="qp", loss=loss).fit(fmt(X), y)
    dcd = SVC(C=0.1, solver="dcd", loss=loss, tol=1e-6, max_iter=20000,
              random_state=0).fit(fmt(X), y)
    assert qp.solver_ == "qp" and dcd.solver_ == "dcd"
    assert dcd.objective_ == pytest.approx(qp.objective_, rel=1e-6)
    assert 0.0 <= dcd.duality_gap_ <= 1e-4 * dcd.objective_
    np.testing.assert_allclose(dcd.coef_, qp.coef_, atol=1e-3)


@pytest.mark.jit_only  # the whole a9a set: minutes interpreted
def test_dcd_defaults_converge_on_a9a():
    # A user's first try on a 32k-row standard set: the defaults (tol=1e-4, max_iter=1000)
    # must converge; the duality gap, computed by the estimator from a feasible projection of
    # alpha, certifies the objective independently of the solver's stopping rule.
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from halfspaces.datasets import load_a9a

    X, y = load_a9a()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = SVC(solver="dcd", lam=1e-4, random_state=0).fit(X, y)
    assert clf.n_iter_ <= 1000
    assert 0.0 <= clf.duality_gap_ <= 1e-4 * clf.objective_
    assert clf.objective_ == pytest.approx(svm_objective(
        clf.coef_[0], clf.intercept_[0], X, y, C=1 / (1e-4 * X.shape[0])), rel=1e-12)


def test_lam_is_C_over_n():
    X, y = _noisy()
    lam = 0.02
    a = SVC(lam=lam, solver="qp").fit(X, y)
    b = SVC(C=1 / (lam * len(y)), solver="qp").fit(X, y)
    assert a.C_ == pytest.approx(1 / (lam * len(y)))
    np.testing.assert_allclose(a.coef_, b.coef_)
    y_pm = np.where(y == 1, 1.0, -1.0)
    w, w0 = a.coef_[0], a.intercept_[0]
    J_lam = svm_objective(w, w0, X, y_pm, lam=lam)
    assert a.objective_ == pytest.approx(J_lam / lam, rel=1e-12)


def test_one_vs_rest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = np.argmax(X @ rng.normal(size=(3, 3)), axis=1)
    clf = SVC(C=0.5, solver="qp").fit(X, y)
    assert clf.coef_.shape == (3, 3) and clf.decision_function(X).shape == (90, 3)
    assert clf.margin_.shape == (3,) and clf.dual_coef_.shape[0] == 3
    for k in range(3):
        one = SVC(C=0.5, solver="qp").fit(X, np.where(y == k, 1, 0))
        np.testing.assert_allclose(clf.coef_[k], one.coef_[0], atol=1e-6)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(clf.decision_function(X), axis=1))


def test_auto_solver_and_verbose(capsys):
    X, y = _noisy()
    assert SVC().fit(X, y).solver_ == "dcd"
    assert SVC(kernel="rbf").fit(sp.csr_matrix(X), y).solver_ == "qp"
    assert SVC(C=np.inf).fit(*_separable()).solver_ == "qp"
    clf = SVC(verbose=True, random_state=0).fit(sp.csr_matrix(X), y)
    assert clf.solver_ == "dcd"
    assert "solver='auto' -> 'dcd'" in capsys.readouterr().out
    assert "dual coordinate descent, which certifies its duality gap" in clf.solver_reason_


def test_tie_predicts_positive_class():
    X = np.array([[-1.0], [1.0]])
    clf = SVC(C=np.inf).fit(X, ["neg", "pos"])
    assert clf.predict([[0.0]]).tolist() == ["pos"]


@pytest.mark.parametrize("params, match", [
    ({"C": 0.0}, "'C' must be a float > 0"),
    ({"C": -1.0}, "'C' must be a float > 0"),
    ({"lam": 0.0}, "'lam' must be a float > 0"),
    ({"lam": 0.1, "C": 2.0}, "either C or lam, not both"),
    ({"solver": "lbfgs"}, "'solver' must be one of 'auto', 'qp', 'dcd', 'smo'; got 'lbfgs'"),
    ({"loss": "log"}, "'loss' must be one of 'hinge', 'squared_hinge'; got 'log'"),
    ({"kernel": "sigmoid"}, "'kernel' must be 'linear', 'poly', 'rbf' or a callable"),
    ({"kernel": "rbf", "solver": "dcd"}, "'solver' must be 'qp' or 'auto' for a non-linear"),
    ({"C": np.inf, "solver": "dcd"}, "'solver' must be 'qp' or 'auto' for the hard margin"),
    ({"tol": 0}, "'tol' must be a float > 0"),
    ({"max_iter": 0}, "'max_iter' must be an int >= 1"),
])
def test_bad_parameters(params, match):
    X, y = _noisy(n=20)
    with pytest.raises(ValueError, match=match):
        SVC(**params).fit(X, y)
