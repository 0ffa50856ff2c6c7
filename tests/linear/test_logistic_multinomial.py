"""Multinomial logistic regression: the softmax objective of LogisticRegression.

References: a NumPy softmax objective and gradient written from the formula; scikit-learn's
``LogisticRegression`` (lbfgs, multinomial: the same objective with ``lam = 1/(C S)``) on
digits scaled to [0, 1] and on iris scaled to [0, 1], with sample weights and
``class_weight="balanced"``; a file round trip.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.datasets import load_digits, load_iris
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import LogisticRegression, load
from halfspaces.linear._multinomial import softmax_objective


def _numpy_objective(W, b, X, y, lam, s):
    """J = 1/S sum_i s_i (logsumexp(z_i) - z_{i y_i}) + lam/2 ||W||^2 and its gradient."""
    Z = X @ W.T + b
    P = np.exp(Z - logsumexp(Z, axis=1, keepdims=True))
    R = s[:, None] * (P - np.eye(W.shape[0])[y])
    S = s.sum()
    J = (s * (logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])).sum() / S
    return J + 0.5 * lam * (W * W).sum(), R.T @ X / S + lam * W, R.sum(axis=0) / S


def _digits(n=None):
    X, y = load_digits(return_X_y=True)
    return X[:n] / 16.0, y[:n]


def _iris():
    X, y = load_iris(return_X_y=True)
    return (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0)), y


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_objective_and_gradient_equal_the_numpy_reference(sparse, weighted):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5)) * (rng.random((40, 5)) < 0.6)
    y = rng.integers(0, 4, size=40)
    W, b = rng.normal(size=(4, 5)) * 3, rng.normal(size=4)
    s = rng.uniform(0, 2, size=40) if weighted else np.ones(40)
    s[:3] = 0.0 if weighted else 1.0
    theta = np.concatenate([W.ravel(), b])
    J, grad = softmax_objective(theta, sp.csr_matrix(X) if sparse else X, y.astype(np.int64),
                                4, 0.1, True, s if weighted else None)
    J_ref, G_ref, g_b_ref = _numpy_objective(W, b, X, y, 0.1, s)
    assert J == pytest.approx(J_ref, rel=1e-13)
    np.testing.assert_allclose(grad[:20].reshape(4, 5), G_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad[20:], g_b_ref, rtol=1e-12, atol=1e-14)
    J0, grad0 = softmax_objective(theta[:20], X, y.astype(np.int64), 4, 0.1, False)
    J0_ref, G0_ref, _ = _numpy_objective(W, np.zeros(4), X, y, 0.1, np.ones(40))
    assert J0 == pytest.approx(J0_ref, rel=1e-13)
    np.testing.assert_allclose(grad0.reshape(4, 5), G0_ref, rtol=1e-12, atol=1e-14)


def test_huge_scores_do_not_overflow():
    X = np.array([[1e3, 0.0], [0.0, 1e3], [-1e3, -1e3]])
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    J, grad = softmax_objective(np.concatenate([W.ravel(), np.zeros(3)]), X,
                                np.array([1, 0, 2]), 3, 0.0, True)
    assert np.isfinite(J) and np.isfinite(grad).all() and J > 500


# iris in every combination; digits (10 classes, 64 features: slow without the JIT) in two
CASES = [("iris", cw, weighted, b) for cw in (None, "balanced") for weighted in (False, True)
         for b in (True, False)] + [("digits", None, False, True),
                                    ("digits", "balanced", True, False)]


@pytest.mark.parametrize(("name", "class_weight", "weighted", "fit_intercept"), CASES)
def test_equal_to_sklearn_multinomial(name, class_weight, weighted, fit_intercept):
    X, y = _digits(100) if name == "digits" else _iris()
    s = None
    if weighted:
        s = np.random.default_rng(1).uniform(0, 3, size=len(y))
        s[::7] = 0.0
    params = dict(C=0.7, class_weight=class_weight, fit_intercept=fit_intercept)
    ours = LogisticRegression(**params).fit(X if name == "iris" else sp.csr_matrix(X), y,
                                            sample_weight=s)
    ref = SkLogisticRegression(**params).fit(X, y, sample_weight=s)
    assert ours.multi_class_ == "multinomial" and ours.coef_.shape == (len(ref.classes_), 64
                                                                       if name == "digits"
                                                                       else 4)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=0, atol=1e-6)
    assert abs(ours.intercept_.sum()) < 1e-10
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    # objective_ is J (lam form, lam = 1/(C S)) at the solution, by the NumPy reference
    w = np.ones(len(y)) if s is None else s
    if class_weight == "balanced":
        w = w * (w.sum() / (3 if name == "iris" else 10)
                 / np.bincount(y, weights=w)[y])
    J_ref = _numpy_objective(ours.coef_, ours.intercept_, X, y, 1.0 / (0.7 * w.sum()), w)[0]
    assert ours.objective_ == pytest.approx(J_ref, rel=1e-12)


@pytest.mark.jit_only
def test_equal_to_sklearn_on_all_of_digits():
    X, y = _digits()
    ours, ref = LogisticRegression().fit(X, y), SkLogisticRegression().fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=0, atol=1e-6)
    assert (ours.predict(X) == ref.predict(X)).all()


def test_probabilities_are_the_softmax_of_the_scores():
    X, y = _iris()
    clf = LogisticRegression(C=10.0).fit(X, y)
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    Z = clf.decision_function(X)
    np.testing.assert_allclose(p, np.exp(Z - logsumexp(Z, axis=1, keepdims=True)),
                               rtol=1e-12)
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(p), rtol=1e-10, atol=1e-12)
    assert (clf.classes_[p.argmax(axis=1)] == clf.predict(X)).all()


def test_dense_and_sparse_input_give_the_same_model():
    """Dense rows by BLAS products, CSR rows by the compiled row pass: the same optimum."""
    X, y = _iris()
    dense = LogisticRegression(tol=1e-8).fit(X, y)
    sparse = LogisticRegression(tol=1e-8).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dense.intercept_, sparse.intercept_, rtol=0, atol=1e-8)


def test_ovr_is_kept_by_multi_class():
    """multi_class='ovr': one binary problem per class, each the binary fit of its class."""
    X, y = _iris()
    ovr = LogisticRegression(multi_class="ovr").fit(X, y)
    assert ovr.multi_class_ == "ovr" and ovr.objective_.shape == (3,)
    for k in range(3):
        binary = LogisticRegression().fit(X, np.where(y == k, 1, 0))
        np.testing.assert_allclose(ovr.coef_[k], binary.coef_[0], rtol=1e-10, atol=1e-12)
    p = ovr.predict_proba(X)
    q = 1.0 / (1.0 + np.exp(-ovr.decision_function(X)))
    np.testing.assert_allclose(p, q / q.sum(axis=1, keepdims=True), rtol=1e-12)
    assert LogisticRegression(solver="sgd", max_iter=3, random_state=0).fit(
        X, y).multi_class_ == "ovr"


def test_binary_data_is_the_binary_problem_either_way():
    X, y = _iris()
    keep = y > 0
    a = LogisticRegression(multi_class="multinomial").fit(X[keep], y[keep])
    b = LogisticRegression(multi_class="ovr").fit(X[keep], y[keep])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.coef_.shape == (1, 4)


def test_saved_and_loaded_model_predicts_the_same(tmp_path):
    X, y = _iris()
    clf = LogisticRegression(C=2.0).fit(X, y)
    path = tmp_path / "multinomial.hsm"
    clf.save(path)
    again = load(path)
    assert again.multi_class_ == "multinomial"
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


def test_warm_start_continues_to_the_same_optimum():
    X, y = _iris()
    cold = LogisticRegression(tol=1e-8, max_iter=500).fit(X, y)
    warm = LogisticRegression(tol=1e-8, max_iter=500, warm_start=True)
    warm.fit(X, y)
    warm.set_params(C=1.0).fit(X, y)
    np.testing.assert_allclose(warm.coef_, cold.coef_, atol=1e-5)


def test_sgd_and_partial_fit_refuse_an_explicit_multinomial():
    X, y = _iris()
    with pytest.raises(ValueError, match=r"'multi_class' must be 'auto' or 'ovr' with"
                                         r" solver='sgd'"):
        LogisticRegression(multi_class="multinomial", solver="sgd").fit(X, y)
    with pytest.raises(ValueError, match=r"partial_fit: the SGD steps are one-vs-rest"):
        LogisticRegression(multi_class="multinomial").partial_fit(X, y, classes=[0, 1, 2])
    clf = LogisticRegression().fit(X, y)  # "auto": SGD steps continue one-vs-rest
    clf.partial_fit(X[:10], y[:10])
    assert clf.multi_class_ == "ovr"


def test_max_iter_warns_at_the_callers_line():
    from sklearn.exceptions import ConvergenceWarning

    X, y = _iris()
    with pytest.warns(ConvergenceWarning, match=r"stopped after max_iter=2") as record:
        LogisticRegression(max_iter=2).fit(X, y)
    assert record[0].filename == __file__
