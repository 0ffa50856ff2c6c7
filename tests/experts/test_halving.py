"""HalvingClassifier: the log2 N mistake bound, the exact version space, a NumPy reference,
the three hypothesis forms and the not-realizable error (scikit-learn's checks:
tests/test_common.py and test_halving_checks.py)."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import compiled_game, overflows

from halfspaces.exceptions import NotRealizableError
from halfspaces.experts import HalvingClassifier


def reference_halving(P, y):
    """The notes' algorithm: predict the majority of V (ties +1), then keep h with h(x_t) = y_t."""
    V = np.ones(P.shape[1], dtype=bool)
    scores, mistakes = [], []
    for t in range(len(y)):
        votes = P[t, V]
        score = (np.sum(votes == 1) - np.sum(votes == -1)) / V.sum()
        scores.append(score)
        mistakes.append(y[t] * score <= 0)
        V = V & (P[t] == y[t])
        assert V.any(), "reference used on non-realizable data"
    return V, np.array(scores), np.array(mistakes)


@st.composite
def realizable_class(draw):
    """N random hypotheses' predictions on n rows; the labels are those of one of them."""
    n = draw(st.integers(1, 40))
    N = draw(st.integers(1, 64))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    P = np.where(rng.random((n, N)) < draw(st.floats(0.1, 0.9)), 1.0, -1.0)
    target = draw(st.integers(0, N - 1))
    return P, P[:, target].copy()


@settings(max_examples=80, deadline=None)
@given(realizable_class())
def test_mistakes_at_most_log2_N_and_version_space_is_exactly_the_consistent_set(data):
    P, y = data
    clf = HalvingClassifier("precomputed")
    scores = compiled_game(clf, P, y)
    mistakes = int(np.sum(y * scores <= 0))
    assert mistakes == clf.n_mistakes_
    assert mistakes <= math.floor(math.log2(P.shape[1]))
    np.testing.assert_array_equal(clf.version_space_, np.all(P == y[:, None], axis=0))
    V, ref_scores, ref_mistakes = reference_halving(P, y)
    np.testing.assert_array_equal(scores, ref_scores)
    np.testing.assert_array_equal(y * scores <= 0, ref_mistakes)


def test_three_hypothesis_forms_agree():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(30, 3))
    b = rng.normal(size=30)
    X = rng.normal(size=(80, 3))
    margins = X @ W.T + b
    P = np.where(margins >= 0, 1.0, -1.0)  # sign(0) = +1
    y = np.where(P[:, 7] > 0, "yes", "no")  # classes_ = ["no", "yes"]: +1 is "yes"
    functions = [lambda Z, w=w, c=c: np.where(Z @ w + c >= 0, 1, -1)
                 for w, c in zip(W, b, strict=True)]
    by_array = HalvingClassifier(W, offsets=b).fit(X, y)
    by_callables = HalvingClassifier(functions).fit(X, y)
    by_matrix = HalvingClassifier("precomputed").fit(P, y)
    V, _, ref_mistakes = reference_halving(P, np.where(y == "yes", 1.0, -1.0))
    for clf in (by_array, by_callables, by_matrix):
        np.testing.assert_array_equal(clf.version_space_, V)
        assert clf.n_mistakes_ == ref_mistakes.sum()
        assert clf.n_iter_ == 1 and clf.t_ == 80
    X_new = rng.normal(size=(20, 3))
    P_new = np.where(X_new @ W.T + b >= 0, 1.0, -1.0)
    expected = np.where(P_new[:, V].sum(1) >= 0, "yes", "no")  # ties go positive
    np.testing.assert_array_equal(by_array.predict(X_new), expected)
    np.testing.assert_array_equal(by_callables.predict(X_new), expected)
    np.testing.assert_array_equal(by_matrix.predict(P_new), expected)
    np.testing.assert_array_equal(by_array.decision_function(X_new),
                                  P_new[:, V].sum(1) / V.sum())
    np.testing.assert_array_equal(by_array.predict(sp.csr_matrix(X_new)), expected)


def test_one_pass_suffices_and_ties_go_positive():
    P = np.array([[1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0], [-1.0, 1.0, 1.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0])  # h_0 is consistent; rounds 1 and 2 are 2-2 and 1-1 ties
    clf = HalvingClassifier("precomputed").fit(P, y)
    assert clf.mistakes_per_epoch_ == [2] and clf.n_mistakes_ == 2  # a tie counts
    assert clf.version_space_.tolist() == [True, False, False, False]
    clf.partial_fit(P, y)  # a second pass changes nothing and makes no mistake
    assert clf.n_mistakes_ == 2 and clf.version_space_.tolist() == [True, False, False, False]
    tie = HalvingClassifier("precomputed").partial_fit(P[:1], y[:1], classes=[-1.0, 1.0])
    assert tie.decision_function(np.array([[1.0, 1.0, -1.0, -1.0]]))[0] == 0.0
    assert tie.predict(np.array([[1.0, 1.0, -1.0, -1.0]]))[0] == 1.0


def test_not_realizable_names_the_round_and_keeps_the_rounds_before():
    P = np.array([[1.0, 1.0, -1.0], [1.0, -1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, 1.0])  # rounds 1, 2 remove h_2, h_1; round 3 would remove h_0
    clf = HalvingClassifier("precomputed")
    clf.partial_fit(P[:1], y[:1], classes=[-1.0, 1.0])
    with pytest.raises(NotRealizableError, match=(
            r"HalvingClassifier: all 3 hypotheses were eliminated at t=3, so the data is not"
            r" realizable by this class\. Enlarge the hypothesis class or use"
            r" WeightedMajorityClassifier for noisy data\.")) as info:
        clf.partial_fit(P[1:], y[1:])
    assert isinstance(info.value, ValueError) and info.value.round == 3
    assert clf.version_space_.tolist() == [True, False, False]
    assert clf.t_ == 2
    with pytest.raises(NotRealizableError, match="eliminated at t=3"):
        HalvingClassifier("precomputed").fit(P, y)


def test_online_protocol_and_mistake_bound():
    W = np.eye(3)
    clf = HalvingClassifier(W)
    assert clf.mistake_bound() == 1
    x = np.array([0.5, -1.0, 2.0])
    clf.learn_one(x, "b", classes=["a", "b"])
    assert clf.version_space_.tolist() == [True, False, True]
    assert clf.predict_one(np.array([-1.0, 0.0, 1.0])) == "b"  # tie 1 vs 1 goes positive
    assert clf.score_one(np.array([-1.0, 0.0, -1.0])) == -1.0


def test_save_and_load(tmp_path):
    import halfspaces

    W = np.random.default_rng(8).normal(size=(12, 2))
    X = np.random.default_rng(9).normal(size=(25, 2))
    y = np.where(X @ W[4] >= 0, 1, -1)
    clf = HalvingClassifier(W).fit(X, y)
    clf.save(tmp_path / "halving")
    loaded = halfspaces.load(tmp_path / "halving")
    np.testing.assert_array_equal(loaded.version_space_, clf.version_space_)
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


@pytest.mark.parametrize("hypotheses, offsets, match", [
    ("all", None, "'hypotheses' must be an array, a list of callables or 'precomputed'"),
    (np.zeros((0, 2)), None, r"'hypotheses' must be a finite \(N, d\) array with N >= 1"),
    (np.ones((3, 2)), np.ones(2), r"'offsets' must be a finite array of shape \(3,\)"),
    ("precomputed", np.ones(2), "'offsets' must be None with hypotheses='precomputed'"),
])
def test_bad_hypotheses_get_clear_errors(hypotheses, offsets, match):
    with pytest.raises(ValueError, match=match):
        HalvingClassifier(hypotheses, offsets=offsets).fit(np.ones((2, 2)), [0, 1])


def test_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="X has 3 features but the hypotheses are halfspaces"
                                         " in dimension 2"):
        HalvingClassifier(np.ones((4, 2))).fit(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match=r"must contain only -1 and \+1; got values \[0\.5\]"):
        HalvingClassifier("precomputed").fit(np.array([[1.0, 0.5], [1.0, -1.0]]), [0, 1])
    with pytest.raises(ValueError, match=r"hypothesis 0 .* must return an array of shape \(2,\)"
                                         r" with values in \{-1, \+1\}"):
        HalvingClassifier([lambda X: np.zeros(len(X))]).fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        HalvingClassifier(np.eye(2)).fit(np.eye(3)[:, :2], [0, 1, 2])


@overflows
def test_an_overflowing_halfspace_margin_is_refused_with_its_row_and_hypothesis():
    # h_1's margin on row 1 is 2e308 - 2e308 = inf - inf = nan: its sign says nothing
    from halfspaces.exceptions import NumericalError

    W = np.array([[1.0, 0.0], [2.0, 2.0]])
    X = np.array([[1.0, 1.0], [1e308, -1e308], [-1.0, 0.0]])
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(W[1, 0] * X[1, 0] + W[1, 1] * X[1, 1])
    match = (r"^HalvingClassifier: the margin <w_1, x> \+ offset_1 of hypothesis 1 became"
             r" non-finite \(inf or nan\) at row 1: ")
    with pytest.raises(NumericalError, match=match):
        HalvingClassifier(W).fit(X, [1, 1, -1])
    clf = HalvingClassifier(W).fit(X[[0, 2]], [1, -1])
    with pytest.raises(NumericalError, match=match):
        clf.predict(X)
