"""KernelPerceptron against the primal Perceptron, a NumPy reference of the dual update,
XOR-like data, and scikit-learn's estimator checks."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import run_sklearn_check
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks
from strategies import (
    XOR_X,
    XOR_Y,
    compiled_game,
    fit_warns_without_a_clean_pass,
    not_finite,
    overflows,
    stops_at_max_iter,
)

from halfspaces.kernel import KernelPerceptron
from halfspaces.linear.perceptron import Perceptron


def reference_dual_perceptron(K, y, epochs, fit_intercept):
    """The notes' dual update, written directly: alpha_t += 1 (and b += y_t) on y_t f(x_t) <= 0."""
    n = len(y)
    alpha, b, per_epoch, round_mistakes = np.zeros(n), 0.0, [], []
    for _ in range(epochs):
        m = 0
        for t in range(n):
            f = np.sum(alpha * y * K[:, t]) + b
            mistake = y[t] * f <= 0
            round_mistakes.append(bool(mistake))
            if mistake:
                alpha[t] += 1
                b += y[t] if fit_intercept else 0.0
                m += 1
        per_epoch.append(m)
        if m == 0:
            break
    return alpha, b, per_epoch, round_mistakes


def rbf(X, Z, gamma):
    sq = (X**2).sum(1)[:, None] + (Z**2).sum(1)[None, :] - 2 * X @ Z.T
    return np.exp(-gamma * sq)


# Small integer features: every dot product and sum is exact in float64, so the primal and the
# dual perceptron see bit-identical scores, ties included (which then must count as mistakes).
int_data = st.integers(2, 25).flatmap(
    lambda n: st.tuples(
        arrays(np.float64, (n, 3), elements=st.integers(-3, 3).map(float)),
        arrays(np.float64, (n,), elements=st.sampled_from([-1.0, 1.0])),
    )
)


@settings(max_examples=60, deadline=None)
@given(data=int_data, fit_intercept=st.booleans())
def test_linear_kernel_makes_the_perceptrons_mistakes_round_by_round(data, fit_intercept):
    X, y = data
    dual = compiled_game(KernelPerceptron(kernel="linear", fit_intercept=fit_intercept), X, y)
    primal = compiled_game(Perceptron(fit_intercept=fit_intercept), X, y)
    np.testing.assert_array_equal(y * dual <= 0, y * primal <= 0)
    np.testing.assert_array_equal(dual, primal)


@stops_at_max_iter
@settings(max_examples=40, deadline=None)
@given(data=int_data, fit_intercept=st.booleans(), shuffle=st.booleans())
def test_linear_kernel_fit_matches_perceptron_fit(data, fit_intercept, shuffle):
    X, y = data
    if np.unique(y).size < 2:
        y = y.copy()
        y[0] = -y[0]
    params = dict(fit_intercept=fit_intercept, max_iter=6, shuffle=shuffle, random_state=3)
    dual = KernelPerceptron(kernel="linear", **params).fit(X, y)
    primal = Perceptron(**params).fit(X, y)
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_
    assert dual.converged_ == primal.converged_
    # w = sum_i alpha_i y_i x_i and b = sum of the y of the mistakes
    np.testing.assert_array_equal(dual.dual_coef_ @ dual.support_vectors_, primal.coef_)
    np.testing.assert_array_equal(dual.intercept_, primal.intercept_)
    np.testing.assert_array_equal(dual.decision_function(X), primal.decision_function(X))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_rbf_fit_equals_numpy_reference(fit_intercept):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    y = np.where(np.linalg.norm(X, axis=1) > 1.5, 1.0, -1.0)
    clf = KernelPerceptron(kernel="rbf", gamma=0.7, fit_intercept=fit_intercept,
                           max_iter=30, shuffle=False).fit(X, y)
    alpha, b, per_epoch, _ = reference_dual_perceptron(rbf(X, X, 0.7), y, 30, fit_intercept)
    assert clf.mistakes_per_epoch_ == per_epoch
    np.testing.assert_array_equal(clf.support_, np.flatnonzero(alpha))
    np.testing.assert_array_equal(clf.alpha_[0], alpha[alpha > 0])
    np.testing.assert_array_equal(clf.dual_coef_[0], (alpha * y)[alpha > 0])
    np.testing.assert_array_equal(clf.support_vectors_, X[alpha > 0])
    assert clf.intercept_[0] == b
    expected = rbf(X, X, 0.7).T @ (alpha * y) + b
    np.testing.assert_allclose(clf.decision_function(X), expected, atol=1e-10)


def test_partial_fit_equals_one_reference_pass_and_grows_the_support_set():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    K = (X @ X.T + 1.0) ** 2
    alpha, b, _, rounds = reference_dual_perceptron(K, y, 1, True)
    clf = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    sizes = []
    for start in range(0, 40, 7):
        clf.partial_fit(X[start : start + 7], y[start : start + 7], classes=[-1, 1])
        sizes.append(clf.support_vectors_.shape[0])
    assert sizes == sorted(sizes) and sizes[-1] == np.count_nonzero(alpha)
    assert clf.n_mistakes_ == sum(rounds)
    np.testing.assert_array_equal(clf.support_, np.flatnonzero(alpha))
    np.testing.assert_array_equal(clf.dual_coef_[0], (alpha * y)[alpha > 0])
    assert clf.intercept_[0] == b
    one = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    for x_t, y_t in zip(X, y, strict=True):
        one.learn_one(x_t, y_t, classes=[-1, 1])
    np.testing.assert_array_equal(one.support_, clf.support_)
    np.testing.assert_allclose(one.decision_function(X), clf.decision_function(X))
    assert one.score_one(X[0]) == pytest.approx(clf.decision_function(X[:1])[0])
    assert one.predict_one(X[0]) == clf.predict(X[:1])[0]


@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 2.0}),
                                            ("poly", {"degree": 2}),
                                            ("poly", {"degree": 3})])
def test_xor_is_separated_by_nonlinear_kernels(kernel, params):
    rng = np.random.default_rng(0)
    centers = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    X = np.repeat(centers, 15, axis=0) + 0.15 * rng.normal(size=(60, 2))
    y = np.repeat(["a", "a", "b", "b"], 15)
    with pytest.warns(ConvergenceWarning, match=r"^Perceptron: fit stopped after max_iter=50"):
        linear = Perceptron(max_iter=50).fit(X, y)
    assert not linear.converged_  # XOR is not linearly separable
    clf = KernelPerceptron(kernel=kernel, max_iter=50, **params).fit(X, y)
    assert clf.converged_ and clf.mistakes_per_epoch_[-1] == 0
    assert clf.score(X, y) == 1.0
    assert set(clf.predict(X)) == {"a", "b"}


@stops_at_max_iter
def test_one_vs_rest_matches_perceptron():
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(45, 3)).astype(float)
    y = rng.integers(0, 3, size=45)
    dual = KernelPerceptron(kernel="linear", max_iter=5, shuffle=False).fit(X, y)
    primal = Perceptron(max_iter=5, shuffle=False).fit(X, y)
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_
    assert dual.dual_coef_.shape == (3, dual.support_vectors_.shape[0])
    np.testing.assert_array_equal(dual.decision_function(X), primal.decision_function(X))
    np.testing.assert_array_equal(dual.predict(X), primal.predict(X))
    dual.partial_fit(X, y)
    primal.partial_fit(X, y)
    np.testing.assert_array_equal(dual.decision_function(X), primal.decision_function(X))


def test_gram_blocks_give_the_same_model():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] ** 2 + X[:, 1] > 0.5, 1, -1)
    full = KernelPerceptron(gamma=0.5, shuffle=True, random_state=0).fit(X, y)
    online = KernelPerceptron(gamma=0.5).partial_fit(X, y, classes=[-1, 1])
    small = 16 * 60 * 7 / 2**20  # MB: 7 rows per block, no full Gram
    blocked = KernelPerceptron(gamma=0.5, shuffle=True, random_state=0,
                               cache_size=small).fit(X, y)
    online_blocked = KernelPerceptron(gamma=0.5, cache_size=small).partial_fit(
        X, y, classes=[-1, 1])
    assert blocked.mistakes_per_epoch_ == full.mistakes_per_epoch_
    np.testing.assert_array_equal(blocked.dual_coef_, full.dual_coef_)
    np.testing.assert_allclose(blocked.decision_function(X), full.decision_function(X))
    np.testing.assert_array_equal(online_blocked.support_, online.support_)
    np.testing.assert_array_equal(online_blocked.dual_coef_, online.dual_coef_)


def test_sparse_input_gives_the_dense_model():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 6)) * (rng.random((40, 6)) < 0.4)
    y = np.where(X.sum(1) > 0, 1, -1)
    dense = KernelPerceptron(gamma=0.3, shuffle=False).fit(X, y)
    sparse = KernelPerceptron(gamma=0.3, shuffle=False).fit(sp.csr_matrix(X), y)
    assert sparse.mistakes_per_epoch_ == dense.mistakes_per_epoch_
    assert sp.issparse(sparse.support_vectors_)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X))
    dense.partial_fit(X[::-1], y[::-1])
    sparse.partial_fit(sp.csr_matrix(X[::-1]), y[::-1])
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X))


def test_online_game_matches_round_by_round_protocol_and_save_load(tmp_path):
    import halfspaces
    from halfspaces.online import play

    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, "same", "diff")
    transcript = play(KernelPerceptron(kernel="rbf", gamma=1.5), X, y)
    stepwise = KernelPerceptron(kernel="rbf", gamma=1.5)
    scores = []
    for x_t, y_t in zip(X, y, strict=True):
        if scores:
            scores.append(stepwise.score_one(x_t))
        else:
            scores.append(0.0)  # nothing learned yet: f = b = 0
        stepwise.learn_one(x_t, y_t, classes=["diff", "same"])
    np.testing.assert_allclose(transcript.scores, scores, atol=1e-12)
    stepwise.save(tmp_path / "kp")
    loaded = halfspaces.load(tmp_path / "kp")
    np.testing.assert_array_equal(loaded.decision_function(X), stepwise.decision_function(X))
    np.testing.assert_array_equal(loaded.support_vectors_, stepwise.support_vectors_)


def test_gamma_scale_and_callable_kernel():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    clf = KernelPerceptron(kernel="rbf", shuffle=False).fit(X, y)
    assert clf.gamma_ == pytest.approx(1.0 / (4 * X.var()))
    custom = KernelPerceptron(kernel=lambda A, B: rbf(A, B, clf.gamma_),
                              shuffle=False).fit(X, y)
    assert custom.mistakes_per_epoch_ == clf.mistakes_per_epoch_
    np.testing.assert_allclose(custom.decision_function(X), clf.decision_function(X))


@pytest.mark.parametrize("params, match", [
    ({"kernel": "sigmoid"}, "'kernel' must be 'linear', 'poly', 'rbf' or a callable; got"),
    ({"gamma": -1.0}, "'gamma' must be a float > 0"),
    ({"degree": 1.5}, "'degree' must be an int >= 0"),
    ({"max_iter": 0}, "'max_iter' must be an int >= 1"),
    ({"fit_intercept": "yes"}, "'fit_intercept' must be a bool"),
    ({"kernel": lambda A, B: np.ones((2, 2))}, r"must return the \(10, 10\) Gram matrix"),
])
def test_bad_parameters_get_clear_errors(params, match):
    X = np.random.default_rng(0).normal(size=(10, 2))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=match):
        KernelPerceptron(**params).fit(X, y)


def test_partial_fit_requires_classes_first():
    with pytest.raises(ValueError, match="'classes' is required on the first call"):
        KernelPerceptron().partial_fit(np.zeros((2, 2)), [0, 1])


# KernelPerceptron(), the default, is checked in tests/test_common.py.
@stops_at_max_iter
@parametrize_with_checks([KernelPerceptron(kernel="linear", shuffle=True, random_state=0)])
def test_sklearn_compatible(estimator, check):
    run_sklearn_check(estimator, check)


# -- numerical trouble and non-convergence ------------------------------------------------
def score_not_finite(row):
    return not_finite("KernelPerceptron", "the score", row)


@overflows
def test_an_overflowing_gram_value_stops_at_its_row():
    # alpha_0 = 1 and b = 1 after the tie of row 0; row 1's score is
    # k(x_0, x_1) + 1 = (-1e240 + 1)^3 + 1 = -inf
    from halfspaces.exceptions import NumericalError

    with np.errstate(over="ignore"):
        assert np.isneginf((np.float64(-1e240) + 1.0) ** 3 + 1.0)
    X = np.array([[1e120], [-1e120]] * 3)
    y = np.array([1, -1] * 3)
    params = {"kernel": "poly", "gamma": 1.0, "degree": 3}
    with pytest.raises(NumericalError, match=score_not_finite(1)):
        KernelPerceptron(**params, shuffle=False).fit(X, y)
    with pytest.raises(NumericalError, match=score_not_finite(1)):
        KernelPerceptron(**params).partial_fit(X, y, classes=[-1, 1])
    clf = KernelPerceptron(**params).fit(np.array([[1.0], [-1.0]]), [1, -1])
    with pytest.raises(NumericalError, match=score_not_finite(2)):
        clf.decision_function(np.array([[1.0], [2.0], [1e120]]))


def test_fit_warns_when_max_iter_ends_without_a_clean_pass():
    per_epoch = reference_dual_perceptron(XOR_X @ XOR_X.T, XOR_Y, 5, True)[2]
    assert len(per_epoch) == 5
    fit_warns_without_a_clean_pass(KernelPerceptron(kernel="linear", shuffle=False), XOR_X,
                                   XOR_Y, per_epoch)
