"""WeightedMajorityClassifier: a NumPy reference of the weight update, the Littlestone-Warmuth
bounds on noisy labels, the randomized variant's reproducibility, and scikit-learn's checks."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from realizable import CONSTANTS
from sklearn.utils.estimator_checks import parametrize_with_checks
from strategies import compiled_game, overflows

from halfspaces.experts import CoordinateStump, HalvingClassifier, WeightedMajorityClassifier


def reference_weighted_majority(P, y, beta, u=None):
    """w_i = 1; vote (W+ - W-)/W; predict + if >= 0 (or if u_t < W+/W); w_i *= beta if h_i errs."""
    w = np.ones(P.shape[1])
    scores, mistakes, wrong_mass = [], [], []
    for t in range(len(y)):
        positive, total = w[P[t] == 1].sum(), w.sum()
        score = (2 * positive - total) / total
        scores.append(score)
        wrong_mass.append((total - positive) / total if y[t] > 0 else positive / total)
        if u is None:
            mistakes.append(y[t] * score <= 0)
        else:
            mistakes.append((1.0 if u[t] < positive / total else -1.0) != y[t])
        w = np.where(P[t] != y[t], beta * w, w)
    return w, np.array(scores), np.array(mistakes), np.array(wrong_mass)


def noisy_experts(seed, n, N, noise):
    """N random experts; labels are expert 0's predictions with a fraction ``noise`` flipped."""
    rng = np.random.default_rng(seed)
    P = np.where(rng.random((n, N)) < 0.5, -1.0, 1.0)
    y = P[:, 0] * np.where(rng.random(n) < noise, -1.0, 1.0)
    return P, y


def test_equals_the_numpy_reference_exactly():
    P, y = noisy_experts(0, 40, 9, 0.2)
    clf = WeightedMajorityClassifier("precomputed", beta=0.5)
    scores = compiled_game(clf, P, y)
    w, ref_scores, ref_mistakes, ref_wrong = reference_weighted_majority(P, y, 0.5)
    # beta = 1/2: every weight and every sum is a dyadic rational, so equality is exact.
    np.testing.assert_array_equal(scores, ref_scores)
    assert clf.n_mistakes_ == ref_mistakes.sum()
    np.testing.assert_array_equal(clf.expert_mistakes_, np.sum(P != y[:, None], axis=0))
    np.testing.assert_array_equal(clf.weights_, w / w.sum())
    np.testing.assert_allclose(clf.log_weights_, np.log(w), rtol=1e-14)
    assert clf.expected_mistakes_ == pytest.approx(ref_wrong.sum(), rel=1e-14)
    np.testing.assert_array_equal(clf.decision_function(P), P @ (w / w.sum()))


@pytest.mark.parametrize("beta", [0.1, 0.37, 0.9])
def test_matches_the_reference_for_other_beta(beta):
    P, y = noisy_experts(1, 60, 7, 0.3)
    clf = WeightedMajorityClassifier("precomputed", beta=beta)
    scores = compiled_game(clf, P, y)
    w, ref_scores, ref_mistakes, _ = reference_weighted_majority(P, y, beta)
    np.testing.assert_allclose(scores, ref_scores, rtol=1e-12, atol=1e-12)
    clear = np.abs(ref_scores) > 1e-9
    np.testing.assert_array_equal((y * scores <= 0)[clear], ref_mistakes[clear])
    np.testing.assert_allclose(clf.weights_, w / w.sum(), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 120), N=st.integers(1, 40),
       noise=st.floats(0.0, 0.5), beta=st.floats(0.01, 0.99))
def test_littlestone_warmuth_bounds_hold_on_noisy_labels(seed, n, N, noise, beta):
    P, y = noisy_experts(seed, n, N, noise)
    m_star = np.sum(P != y[:, None], axis=0).min()
    numerator = math.log(N) + m_star * math.log(1 / beta)
    det = WeightedMajorityClassifier("precomputed", beta=beta).fit(P, y) if len(set(y)) > 1 \
        else WeightedMajorityClassifier("precomputed", beta=beta).partial_fit(P, y, [-1, 1])
    assert det.n_mistakes_ <= numerator / math.log(2 / (1 + beta)) + 1e-9
    rand = WeightedMajorityClassifier("precomputed", beta=beta, randomized=True, random_state=0)
    rand.partial_fit(P, y, classes=[-1.0, 1.0])
    assert rand.expected_mistakes_ <= numerator / (1 - beta) + 1e-9
    assert det.mistake_bound() == pytest.approx(numerator / math.log(2 / (1 + beta)))
    assert rand.mistake_bound() == pytest.approx(numerator / (1 - beta))


def test_randomized_is_reproducible_and_draws_from_random_state():
    P, y = noisy_experts(2, 300, 6, 0.25)
    runs = [WeightedMajorityClassifier("precomputed", randomized=True, random_state=seed)
            .fit(P, y) for seed in (7, 7, 8)]
    assert runs[0].n_mistakes_ == runs[1].n_mistakes_
    u = np.random.RandomState(7).random_sample(300)
    _, _, ref_mistakes, ref_wrong = reference_weighted_majority(P, y, 0.5, u=u)
    assert runs[0].n_mistakes_ == ref_mistakes.sum()
    assert runs[0].expected_mistakes_ == pytest.approx(ref_wrong.sum())
    u8 = np.random.RandomState(8).random_sample(300)
    assert runs[2].n_mistakes_ == reference_weighted_majority(P, y, 0.5, u=u8)[2].sum()
    # The weights do not depend on the draws.
    np.testing.assert_array_equal(runs[0].weights_, runs[2].weights_)
    one_by_one = WeightedMajorityClassifier("precomputed", randomized=True, random_state=7)
    for p_t, y_t in zip(P, y, strict=True):
        one_by_one.learn_one(p_t, y_t, classes=[-1.0, 1.0])
    assert one_by_one.n_mistakes_ == runs[0].n_mistakes_


def test_eta_is_beta_in_hedge_form():
    P, y = noisy_experts(3, 80, 5, 0.2)
    by_eta = WeightedMajorityClassifier("precomputed", eta=0.3).fit(P, y)
    assert by_eta.beta_ == math.exp(-0.3)
    by_beta = WeightedMajorityClassifier("precomputed", beta=math.exp(-0.3)).fit(P, y)
    np.testing.assert_array_equal(by_eta.weights_, by_beta.weights_)
    assert by_eta.n_mistakes_ == by_beta.n_mistakes_


def test_beta_zero_is_halving_on_realizable_data():
    rng = np.random.default_rng(4)
    P = np.where(rng.random((50, 16)) < 0.5, -1.0, 1.0)
    y = P[:, 5].copy()
    wm = WeightedMajorityClassifier("precomputed", beta=0.0)
    halving = HalvingClassifier("precomputed")
    np.testing.assert_array_equal(compiled_game(wm, P, y), compiled_game(halving, P, y))
    np.testing.assert_array_equal(wm.weights_ > 0, halving.version_space_)


def test_long_sequences_do_not_underflow():
    P, y = noisy_experts(5, 20000, 4, 0.3)  # every expert errs thousands of times
    clf = WeightedMajorityClassifier("precomputed", beta=0.5).fit(P, y)
    assert clf.expert_mistakes_.min() > 1000
    assert np.all(np.isfinite(clf.log_weights_)) and clf.weights_.sum() == pytest.approx(1.0)
    assert np.argmax(clf.weights_) == 0
    assert np.all(np.abs(clf.decision_function(P[:10])) <= 1.0)


def test_halfspace_experts_and_labels():
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    X = np.random.default_rng(6).normal(size=(30, 2))
    y = np.where(X[:, 1] >= 0, "up", "down")  # expert 1, exactly
    clf = WeightedMajorityClassifier(W).fit(X, y)
    assert np.argmax(clf.weights_) == 1 and clf.expert_mistakes_[1] == 0
    assert clf.predict_one(np.array([0.0, 2.0])) == "up"
    assert -1.0 <= clf.score_one(np.array([0.0, -2.0])) < 0.0


def test_save_and_load_keep_the_weights_and_the_random_stream(tmp_path):
    import halfspaces

    H = [CoordinateStump(0, 0.0, 1), CoordinateStump(1, 0.5, -1), CoordinateStump(-1, 0.0, 1)]
    X = np.random.default_rng(7).normal(size=(60, 3))
    y = np.where(X[:, 0] >= 0, 1, 0)
    clf = WeightedMajorityClassifier(H, randomized=True, random_state=3).fit(X[:30], y[:30])
    clf.save(tmp_path / "wm")
    loaded = halfspaces.load(tmp_path / "wm")
    np.testing.assert_array_equal(loaded.weights_, clf.weights_)
    clf.partial_fit(X[30:], y[30:])
    loaded.partial_fit(X[30:], y[30:])
    assert loaded.n_mistakes_ == clf.n_mistakes_
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


@pytest.mark.parametrize("params, match", [
    ({"beta": 1.0}, "'beta' must be a float >= 0 and < 1"),
    ({"beta": -0.5}, "'beta' must be a float >= 0 and < 1"),
    ({"eta": 0.0}, "'eta' must be a float > 0"),
    ({"eta": 0.5, "beta": 0.3}, "'beta' must be left at its default 0.5 when eta is given"),
    ({"randomized": "yes"}, "'randomized' must be a bool"),
])
def test_bad_parameters_get_clear_errors(params, match):
    with pytest.raises(ValueError, match=match):
        WeightedMajorityClassifier("precomputed", **params).fit(np.ones((2, 2)), [0, 1])


def test_multiclass_is_refused_clearly():
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        WeightedMajorityClassifier(np.eye(2)).fit(np.eye(3)[:, :2], [0, 1, 2])


STUMPS = [CoordinateStump(f, t, s) for f in (0, -1) for t in (-1.0, -0.5, 0.0, 0.5, 1.0)
          for s in (1, -1)]


# WeightedMajorityClassifier(STUMPS + CONSTANTS), the default, is checked in
# tests/test_common.py.
@parametrize_with_checks([WeightedMajorityClassifier(STUMPS + CONSTANTS, randomized=True,
                                                     random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@overflows
def test_an_overflowing_halfspace_margin_is_refused_with_its_row_and_hypothesis():
    # h_0's margin on row 2 is 2e308 + 2e308 = inf, whose sign need not be the true one
    import scipy.sparse as sp

    from halfspaces.exceptions import NumericalError

    W = np.array([[2.0, 2.0], [0.0, -1.0]])
    X = np.array([[1.0, 1.0], [-1.0, 0.0], [1e308, 1e308]])
    match = (r"^WeightedMajorityClassifier: the margin <w_0, x> \+ offset_0 of hypothesis 0"
             r" became non-finite \(inf or nan\) at row 2: ")
    for data in (X, sp.csr_matrix(X)):
        with pytest.raises(NumericalError, match=match):
            WeightedMajorityClassifier(W).fit(data, [1, -1, 1])
    clf = WeightedMajorityClassifier(W).fit(X[:2], [1, -1])
    with pytest.raises(NumericalError, match=match):
        clf.decision_function(X)
