"""SVC(solver="smo"): the QP's optimum and LIBSVM's model, weights, and solver="auto"."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC as LibSVM

from halfspaces import SVC, load
from halfspaces.linear import svm


def _noisy(n=90, d=3, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    score = np.sin(3.0 * X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
def test_smo_model_is_libsvm_model(fmt):
    X, y = _noisy()
    ref = LibSVM(C=3.0, kernel="rbf", gamma=0.7, tol=1e-10).fit(X, y)
    clf = SVC(C=3.0, kernel="rbf", gamma=0.7, solver="smo", tol=1e-8).fit(fmt(X), y)
    assert clf.solver_ == "smo"
    order = np.argsort(ref.support_)  # LIBSVM lists them class by class
    np.testing.assert_array_equal(clf.support_, ref.support_[order])
    np.testing.assert_allclose(clf.dual_coef_, ref.dual_coef_[:, order], atol=1e-5)
    np.testing.assert_allclose(clf.intercept_, ref.intercept_, atol=1e-5)
    Xt = np.random.default_rng(9).uniform(-1, 1, size=(40, 3))
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt),
                               atol=1e-5)
    np.testing.assert_array_equal(clf.predict(Xt), ref.predict(Xt))


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear", "callable"])
def test_smo_objective_is_the_qp_objective(kernel):
    X, y = _noisy(n=60, seed=1)
    k = (lambda A, B: (A @ B.T + 1.0) ** 2) if kernel == "callable" else kernel
    qp = SVC(C=0.8, kernel=k, solver="qp").fit(X, y)
    smo = SVC(C=0.8, kernel=k, solver="smo").fit(X, y)
    assert smo.solver_ == "smo"
    assert smo.objective_ == pytest.approx(qp.objective_, rel=2e-6)
    assert 0.0 <= smo.duality_gap_ <= 1e-6 * smo.objective_
    assert smo.margin_ == pytest.approx(qp.margin_, rel=1e-3)
    if kernel == "linear":
        np.testing.assert_allclose(smo.coef_, qp.coef_, atol=1e-3)
    else:
        assert not hasattr(smo, "coef_")
    np.testing.assert_allclose(smo.decision_function(X), qp.decision_function(X), atol=1e-3)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_smo_one_vs_rest(fit_intercept):
    X, y = _noisy(n=90, seed=2, classes=3)
    qp = SVC(kernel="rbf", gamma=1.0, solver="qp", fit_intercept=fit_intercept).fit(X, y)
    smo = SVC(kernel="rbf", gamma=1.0, solver="smo", fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(smo.objective_, qp.objective_, rtol=2e-6)
    np.testing.assert_allclose(smo.decision_function(X), qp.decision_function(X), atol=1e-3)


def test_smo_weights_and_class_weight_are_libsvm_s():
    X, y = _noisy(n=80, seed=3)
    s = np.random.default_rng(1).uniform(0.3, 2.0, size=len(y))
    cw = {0: 0.5, 1: 2.5}
    ref = LibSVM(C=1.0, kernel="rbf", gamma=1.0, tol=1e-10, class_weight=cw).fit(
        X, y, sample_weight=s)
    clf = SVC(C=1.0, kernel="rbf", gamma=1.0, solver="smo", tol=1e-8, class_weight=cw).fit(
        X, y, sample_weight=s)
    np.testing.assert_array_equal(clf.support_, np.sort(ref.support_))
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X),
                               atol=1e-5)
    # a weight of 0 leaves the row out: support_ indexes the rows given (scikit-learn's
    # indexes the rows of positive weight)
    s[::7] = 0.0
    ref = LibSVM(C=1.0, kernel="rbf", gamma=1.0, tol=1e-10).fit(X, y, sample_weight=s)
    clf = SVC(C=1.0, kernel="rbf", gamma=1.0, solver="smo", tol=1e-8).fit(
        X, y, sample_weight=s)
    np.testing.assert_array_equal(clf.support_, np.flatnonzero(s)[np.sort(ref.support_)])


def test_auto_picks_smo_past_the_crossover(monkeypatch):
    X, y = _noisy(n=60, seed=4)
    assert SVC(kernel="rbf").fit(X, y).solver_ == "qp"
    monkeypatch.setattr(svm, "_AUTO_SMO_MIN_SAMPLES", 50)
    assert SVC(kernel="rbf").fit(X, y).solver_ == "smo"
    # the hard margin and the squared hinge stay with the QP
    assert SVC(kernel="rbf", loss="squared_hinge").fit(X, y).solver_ == "qp"
    assert SVC(kernel="linear").fit(X, y).solver_ == "dcd"


@pytest.mark.parametrize("params", [{"C": np.inf}, {"loss": "squared_hinge"}])
def test_smo_refuses_what_it_does_not_solve(params):
    X, y = _noisy(n=20)
    with pytest.raises(ValueError, match="solver"):
        SVC(kernel="rbf", solver="smo", **params).fit(X, y)


def test_cache_size_is_validated():
    X, y = _noisy(n=20)
    with pytest.raises(ValueError, match="cache_size"):
        SVC(kernel="rbf", solver="smo", cache_size=0).fit(X, y)


def test_smo_model_survives_save_and_load(tmp_path):
    X, y = _noisy(n=50, seed=5)
    clf = SVC(kernel="rbf", solver="smo", cache_size=1.0).fit(X, y)
    path = tmp_path / "svc.npz"
    clf.save(path)
    back = load(path)
    assert back.solver_ == "smo" and back.cache_size == 1.0
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))


def test_smo_counts_epochs_of_n_steps(monkeypatch):
    from halfspaces.solvers import smo

    X, y = _noisy(n=80, seed=6)
    steps = []
    solve = smo.smo_svm

    def spy(*args, **kwargs):
        res = solve(*args, **kwargs)
        steps.append(res.n_iter)
        return res

    monkeypatch.setattr(svm, "smo_svm", spy)
    clf = SVC(kernel="rbf", solver="smo").fit(X, y)
    assert clf.n_iter_ == -(-steps[0] // 80) < clf.max_iter
    # max_iter bounds the epochs: one epoch is too few here, and says so
    with pytest.warns(UserWarning, match="SMO did not reach"):
        one = SVC(kernel="rbf", solver="smo", max_iter=1, tol=1e-10).fit(X, y)
    assert one.n_iter_ == 1
