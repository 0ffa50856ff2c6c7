"""Kernelized Pegasos: the linear kernel against the primal, alpha counts against the paper's
kernel algorithm in NumPy, and an RBF objective against scikit-learn's exact SVC."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_moons
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from halfspaces import KernelPegasosSVC, PegasosSVC


def _data(n=40, seed=0):
    X, y = make_classification(n_samples=n, n_features=4, n_informative=3, n_redundant=0,
                               flip_y=0.1, random_state=seed)
    return X, y


@pytest.mark.parametrize("params", [
    {"learning_rate": "pegasos", "average": False},
    {"learning_rate": "pegasos", "average": True, "fit_intercept": False},
    {"learning_rate": "offset", "eta0": 0.2, "average": "weighted", "batch_size": 3},
    {"learning_rate": "offset", "average": "suffix", "intercept_decay": 0.3},
    {"learning_rate": "constant", "eta0": 0.05, "average": 10, "sampling": "uniform"},
    {"learning_rate": "notes", "projection": False, "average": False, "n_iter": 70},
])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_equals_primal(params, sparse):
    X, y = _data()
    Xf = sp.csr_matrix(X) if sparse else X
    primal = PegasosSVC(0.05, max_iter=4, random_state=3, **params).fit(Xf, y)
    dual = KernelPegasosSVC(0.05, max_iter=4, random_state=3, kernel="linear",
                            **params).fit(Xf, y)
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(dual.predict(X), primal.predict(X))
    np.testing.assert_allclose(dual.dual_coef_ @ dual.support_vectors_, primal.coef_,
                               rtol=1e-10, atol=1e-10)
    assert dual.t_ == primal.t_ and dual.n_mistakes_ == primal.n_mistakes_


def reference_kernel_pegasos(K, y, order, lam):
    """Kernelized Pegasos with alpha counts (Shalev-Shwartz et al. 2011, Fig. 3).

    w_t = 1/(lam (t-1)) sum_j alpha_j y_j phi(x_j), which is the primal iterate of the
    1/(lam t) schedule (Fig. 3 prints the scale as 1/(lam t)); w_1 = 0.
    """
    alpha = np.zeros(len(y), dtype=np.int64)
    for t, i in enumerate(order, start=1):
        score = 0.0 if t == 1 else (alpha * y) @ K[:, i] / (lam * (t - 1))
        if y[i] * score < 1:
            alpha[i] += 1
    return alpha


def test_alpha_counts_match_the_papers_algorithm():
    X, y01 = _data(n=30, seed=1)
    y = np.where(y01 == 1, 1.0, -1.0)
    lam, T = 0.1, 75
    est = KernelPegasosSVC(lam, n_iter=T, kernel="rbf", gamma=0.5, learning_rate="pegasos",
                     projection=False, average=False, fit_intercept=False,
                     sampling="uniform", random_state=4).fit(X, y)
    order = np.random.RandomState(4).randint(0, 30, size=30 * 3)[:T]
    alpha = reference_kernel_pegasos(rbf_kernel(X, gamma=0.5), y, order, lam)
    np.testing.assert_array_equal(est.alpha_[0], alpha)
    # w_{T+1} = 1/(lam T) sum_j alpha_j y_j phi(x_j)
    expected = (alpha * y / (lam * T))[est.support_]
    np.testing.assert_allclose(est.dual_coef_[0], expected, rtol=1e-12)
    np.testing.assert_array_equal(est.support_, np.flatnonzero(alpha))


def _svm_J_kernel(K, coef, b, y, lam):
    f = K @ coef + b
    return np.maximum(0, 1 - y * f).mean() + lam / 2 * coef @ K @ coef


def test_rbf_objective_close_to_exact_svc():
    X, y01 = make_moons(n_samples=150, noise=0.25, random_state=0)
    y = np.where(y01 == 1, 1.0, -1.0)
    lam, gamma = 0.01, 1.0
    K = rbf_kernel(X, gamma=gamma)
    exact = SVC(C=1 / (lam * len(y)), kernel="rbf", gamma=gamma, tol=1e-8).fit(X, y)
    coef = np.zeros(len(y))
    coef[exact.support_] = exact.dual_coef_[0]
    J_opt = _svm_J_kernel(K, coef, exact.intercept_[0], y, lam)
    est = KernelPegasosSVC(lam, max_iter=100, kernel="rbf", gamma=gamma, random_state=0,
                     record_objective=True).fit(X, y)
    coef = np.zeros(len(y))
    coef[est.support_] = est.dual_coef_[0]
    J = _svm_J_kernel(K, coef, est.intercept_[0], y, lam)
    assert est.objective_history_[-1] == pytest.approx(J, rel=1e-10)
    assert J_opt * (1 - 1e-6) <= J <= 1.02 * J_opt
    assert (est.predict(X) == exact.predict(X)).mean() > 0.95


def test_multiclass_kernel_one_vs_rest():
    X, y = make_classification(n_samples=60, n_features=5, n_informative=4, n_redundant=0,
                               n_classes=3,
                               random_state=0)
    est = KernelPegasosSVC(0.05, kernel="poly", degree=2, max_iter=5, random_state=0).fit(X, y)
    assert est.decision_function(X).shape == (60, 3)
    assert est.dual_coef_.shape == (3, est.support_.size)
    assert est.alpha_.shape == (3, 60)
    assert est.score(X, y) > 0.6


def test_callable_kernel_equals_named_kernel():
    X, y = _data()
    named = KernelPegasosSVC(0.1, kernel="rbf", gamma=0.3, random_state=0).fit(X, y)
    func = KernelPegasosSVC(0.1, kernel=lambda A, B: rbf_kernel(A, B, gamma=0.3),
                            random_state=0).fit(X, y)
    np.testing.assert_allclose(func.decision_function(X), named.decision_function(X),
                               rtol=1e-12)


def test_kernel_model_has_no_partial_fit():
    est = KernelPegasosSVC(kernel="rbf")
    assert not hasattr(est, "partial_fit")
    with pytest.raises(AttributeError, match="a kernel model keeps one coefficient"):
        est.partial_fit(*_data())


@pytest.mark.parametrize("params, match", [
    ({"gamma": -1.0}, "'gamma' must be a float > 0"),
    ({"kernel": "sigmoid"}, "'kernel' must be 'linear', 'poly', 'rbf' or a callable"),
])
def test_kernel_parameter_errors(params, match):
    with pytest.raises(ValueError, match=match):
        KernelPegasosSVC(**params).fit(*_data())


def test_auto_intercept_decay_is_the_feature_density():
    X, y = _data(n=30, seed=2)
    X[:, :2] = 0.0  # half of the input entries are zero
    Xs = sp.csr_matrix(X)
    linear = KernelPegasosSVC(0.05, max_iter=1, kernel="linear").fit(Xs, y)
    rbf = KernelPegasosSVC(0.05, max_iter=1, kernel="rbf").fit(Xs, y)
    assert linear.intercept_decay_ == pytest.approx(np.mean(X != 0), rel=1e-12)
    assert rbf.intercept_decay_ == 1.0  # an RBF feature map is dense


@pytest.mark.parametrize("batch_size", [1, 4])
def test_gram_blocks_give_the_whole_grams_model(batch_size):
    """With a cache_size too small for the n x n Gram matrix each pass computes blocks of its
    rows: the same steps, up to the rounding of the kernel values (and of the renormalising
    that has no matrix to recompute ||w||^2 from)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(70, 3))
    y = np.where(X[:, 0] ** 2 + X[:, 1] > 0.5, 1, -1)
    s = rng.uniform(0.5, 2.0, size=70)
    kw = dict(lam=0.05, gamma=0.5, max_iter=4, batch_size=batch_size, random_state=0,
              tol=1e-9, record_objective=True)
    whole = KernelPegasosSVC(**kw).fit(X, y, sample_weight=s)
    small = 16 * 70 * 9 / 2**20  # MB: 9 rows a block, rounded down to whole batches
    blocked = KernelPegasosSVC(**kw, cache_size=small).fit(X, y, sample_weight=s)
    np.testing.assert_array_equal(blocked.alpha_, whole.alpha_)
    np.testing.assert_allclose(blocked.dual_coef_, whole.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(blocked.objective_history_, whole.objective_history_,
                               rtol=1e-9)
    np.testing.assert_allclose(blocked.decision_function(X), whole.decision_function(X),
                               rtol=1e-9, atol=1e-12)
    assert blocked._block_rows(70, batch_size) == 9 // batch_size * batch_size


@pytest.mark.parametrize("cache_size", [200.0, 16 * 40 * 5 / 2**20], ids=["whole", "blocks"])
def test_a_non_finite_kernel_value_names_its_row_in_the_data_given(cache_size):
    """Row 7's kernel value k(x_7, x_7) overflows: named as row 7 of the X given, whether the
    Gram matrix is whole or computed in blocks (its diagonal first), with a row of weight 0
    left out before the fit."""
    from strategies import not_finite

    from halfspaces import NumericalError

    rng = np.random.default_rng(3)
    X = rng.normal(size=(41, 2))
    X[7] *= 1e80  # (<x_7, x_7> + 1)^3 overflows; (<x_7, x_j> + 1)^3 does not
    y = np.where(X[:, 0] > 0, 1, -1)
    s = np.ones(41)
    s[2] = 0.0  # the fit's rows are 0, 1, 3, ...: its row 6 is row 7 of X
    est = KernelPegasosSVC(kernel="poly", gamma=1.0, degree=3, coef0=1.0, max_iter=1,
                           random_state=0, cache_size=cache_size)
    with pytest.raises(NumericalError, match=not_finite("KernelPegasosSVC",
                                                        r"the kernel k\(x_i, x_j\)", 7)):
        est.fit(X, y, sample_weight=s)
