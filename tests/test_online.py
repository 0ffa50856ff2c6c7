"""The online game: play() against a NumPy reference, the generic protocol, transcripts."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces import Perceptron
from halfspaces.online import BoundCheck, Transcript, play


def reference_perceptron_game(X, y_pm, fit_intercept):
    """The game written from the notes: score, mistake if y*score <= 0, then w += y x."""
    w, b = np.zeros(X.shape[1]), 0.0
    scores, mistakes = [], []
    for x_t, y_t in zip(X, y_pm, strict=True):
        s = float(w @ x_t + b)
        scores.append(s)
        mistakes.append(y_t * s <= 0)
        if y_t * s <= 0:
            w = w + y_t * x_t
            b = b + y_t if fit_intercept else b
    return np.array(scores), np.array(mistakes), w, b


def integer_data(seed, n=120, d=6):
    """Small-integer features: every dot product is exact, so scores compare bit for bit."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(float)
    y = np.where(X @ rng.integers(-2, 3, size=d) + rng.integers(-1, 2, size=n) >= 0, 1, -1)
    return X, y


class Forwarder:
    """A plain object: play() cannot see that a halfspaces estimator is behind it."""

    def __init__(self, inner, n_features):
        inner._prepare_online([-1, 1], n_features)  # what play() does before round 0
        self.inner = inner

    def predict_one(self, x):
        return self.inner.predict_one(x)

    def score_one(self, x):
        return self.inner.score_one(x)

    def learn_one(self, x, y):
        self.inner.learn_one(x, y)


class ToyRiverLearner:
    """River-style learner without scores: predicts the label seen most often so far."""

    def __init__(self):
        self.counts = {}
        self.row_types = set()

    def predict_one(self, x):
        self.row_types.add((type(x).__name__, getattr(x, "shape", None)))
        if not self.counts:
            return "a"
        return max(sorted(self.counts), key=self.counts.get)

    def learn_one(self, x, y):
        self.counts[y] = self.counts.get(y, 0) + 1


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_perceptron_game_matches_reference(fit_intercept, sparse):
    X, y = integer_data(0)
    scores, mistakes, w, b = reference_perceptron_game(X, y, fit_intercept)
    clf = Perceptron(fit_intercept=fit_intercept)
    t = play(clf, sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_array_equal(t.scores, scores)
    np.testing.assert_array_equal(t.mistakes, mistakes)
    np.testing.assert_array_equal(t.predictions, np.where(scores >= 0, 1, -1))
    np.testing.assert_array_equal(t.labels, y)
    # The learner passed in is the one that learned.
    np.testing.assert_array_equal(clf.coef_[0], w)
    assert clf.intercept_[0] == b
    assert clf.n_mistakes_ == t.n_mistakes == mistakes.sum()
    assert t.n_rounds == len(t) == X.shape[0]


@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_and_generic_paths_give_identical_transcripts(sparse):
    X, y = integer_data(1)
    Xin = sp.csr_matrix(X) if sparse else X
    fast = play(Perceptron(), Xin, y)
    wrapped = Forwarder(Perceptron(), X.shape[1])
    slow = play(wrapped, Xin, y)
    for field in ("predictions", "labels", "scores", "mistakes", "classes"):
        np.testing.assert_array_equal(getattr(fast, field), getattr(slow, field))
    assert slow.learner == "Forwarder" and fast.learner == "Perceptron"


def test_generic_path_on_float_data_agrees():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((200, 5))
    y = np.where(X @ rng.standard_normal(5) > 0, 1, -1)
    fast = play(Perceptron(), X, y)
    slow = play(Forwarder(Perceptron(), 5), X, y)
    np.testing.assert_array_equal(fast.mistakes, slow.mistakes)
    np.testing.assert_allclose(fast.scores, slow.scores, rtol=1e-12, atol=1e-12)


def test_river_style_learner_without_scores():
    y = np.array(["b", "b", "a", "b", "a", "a", "a", "b"])
    X = np.arange(16.0).reshape(8, 2)
    learner = ToyRiverLearner()
    t = play(learner, X, y)
    # Hand-run of the same rule.
    counts, expected = {}, []
    for label in y:
        expected.append("a" if not counts else max(sorted(counts), key=counts.get))
        counts[label] = counts.get(label, 0) + 1
    np.testing.assert_array_equal(t.predictions, expected)
    np.testing.assert_array_equal(t.mistakes, np.array(expected) != y)
    assert np.isnan(t.scores).all()
    assert t.classes.tolist() == ["a", "b"]
    assert learner.row_types == {("ndarray", (2,))}  # dense X: 1-D rows


def test_generic_learner_gets_csr_rows_for_sparse_X():
    learner = ToyRiverLearner()
    play(learner, sp.csr_matrix(np.eye(4)), np.array(["a", "b", "a", "b"]))
    assert learner.row_types == {("csr_matrix", (1, 4))}


def test_any_two_labels_and_explicit_classes():
    X, y_pm = integer_data(3, n=40)
    y = np.where(y_pm == 1, "spam", "ham")
    t = play(Perceptron(), X, y)
    ref = play(Perceptron(), X, y_pm)
    np.testing.assert_array_equal(t.mistakes, ref.mistakes)
    np.testing.assert_array_equal(t.predictions, np.where(ref.predictions == 1, "spam", "ham"))
    # classes given although y holds only one of them
    one = play(Perceptron(), X[:5], np.full(5, "ham"), classes=["ham", "spam"])
    assert one.classes.tolist() == ["ham", "spam"]


def test_fitted_learner_continues_and_keeps_n_features():
    X, y = integer_data(4, n=60)
    clf = Perceptron().fit(X[:30], y[:30])
    w0, b0 = clf.coef_[0].copy(), clf.intercept_[0]
    t = play(clf, X[30:], y[30:])
    assert clf.n_features_in_ == 6
    assert t.scores[0] == X[30] @ w0 + b0
    # A fitted learner plays with its own classes, even on a one-class piece.
    assert play(clf, X[:2], np.ones(2)).classes.tolist() == [-1, 1]
    with pytest.raises(ValueError, match="features"):
        play(clf, X[:, :3], y)
    with pytest.raises(ValueError, match=r"labels among classes=\[-1, 1\]; got \[2\]"):
        play(clf, X, np.where(y == 1, 2, 1))
    with pytest.raises(ValueError, match=r"the learner's classes_ \[-1, 1\]"):
        play(clf, X, np.where(y == 1, 2, 1), classes=[1, 2])


def test_transcript_reporting():
    X, y = integer_data(5)
    t = play(Perceptron(), X, y)
    np.testing.assert_array_equal(t.cumulative_mistakes, np.cumsum(t.mistakes))
    assert t.cumulative_mistakes[-1] == t.n_mistakes
    np.testing.assert_array_equal(t.mistake_rounds, np.flatnonzero(t.mistakes))
    assert t.mistake_rate == t.n_mistakes / len(y)
    ok = t.against_bound(t.n_mistakes, "exact")
    assert ok.holds and bool(ok) and ok.slack == 0
    assert str(ok).startswith(f"{t.n_mistakes} mistakes <= ")
    bad = t.against_bound(t.n_mistakes - 1)
    assert not bad.holds and "VIOLATED" in str(bad)
    assert isinstance(bad, BoundCheck)
    assert f"mistakes: {t.n_mistakes}" in t.summary()
    assert repr(t) == (f"Transcript(learner='Perceptron', rounds={len(y)},"
                       f" mistakes={t.n_mistakes}, classes=[-1, 1])")
    assert isinstance(t.X, np.ndarray) and t.X.shape == X.shape
    with pytest.raises(ValueError, match="'bound' must be a real number"):
        t.against_bound("ten")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), d=st.integers(1, 8), margin=st.floats(0.05, 0.6))
def test_novikoff_holds_for_every_game(seed, d, margin):
    from halfspaces.datasets import make_separable

    X, y, u = make_separable(60, d, margin=margin, random_state=seed, return_separator=True)
    t = play(Perceptron(fit_intercept=False), X, y)
    R = np.sqrt((X**2).sum(axis=1).max())
    gamma = (y * (X @ u)).min()
    assert t.n_mistakes <= (R / gamma) ** 2


class Alternator:
    """A toy adversary: x_t = (1, t), label +1 on even rounds."""

    n_features = 2

    def choose_x(self, t, transcript):
        assert isinstance(transcript, Transcript) and transcript.n_rounds == t
        return np.array([1.0, float(t)])

    def choose_y(self, t, x, prediction):
        return 1 if t % 2 == 0 else -1


def test_play_against_adversary_matches_fixed_sequence():
    t = play(Perceptron(), Alternator(), rounds=12)
    fixed = play(Perceptron(), t.X, t.labels, classes=(-1, 1))
    for field in ("predictions", "labels", "scores", "mistakes"):
        np.testing.assert_array_equal(getattr(t, field), getattr(fixed, field))
    assert t.X.shape == (12, 2)


@pytest.mark.parametrize("sparse", [False, True])
def test_adversary_with_only_the_two_documented_methods(sparse):
    """choose_x(t, transcript) and choose_y(t, x, prediction), nothing else: the dimension
    comes from the first x, or from the learner when it is fitted."""
    X, y = integer_data(11, n=40, d=5)

    class Minimal:
        def choose_x(self, t, transcript):
            return sp.csr_matrix(X[t : t + 1]) if sparse else X[t]

        def choose_y(self, t, x, prediction):
            return y[t]

    for fit_intercept in (True, False):
        t = play(Perceptron(fit_intercept=fit_intercept), Minimal(), rounds=40)
        scores, mistakes, _, _ = reference_perceptron_game(X, y, fit_intercept)
        np.testing.assert_array_equal(t.scores, scores)
        np.testing.assert_array_equal(t.mistakes, mistakes)
    fitted = Perceptron().fit(X[:20], y[:20])
    w, b = fitted.coef_[0].copy(), fitted.intercept_[0]
    t = play(fitted, Minimal(), rounds=3)
    np.testing.assert_array_equal(t.scores[:1], [X[0] @ w + b])
    assert fitted.n_features_in_ == 5


def test_adversary_without_n_features_may_ask_for_predictions_in_round_0():
    X, y = integer_data(12, n=10, d=3)

    class Greedy:
        def start(self, predict):
            self.predict = predict

        def choose_x(self, t, transcript):
            wrong = self.predict(X) != y  # the learner's current predictions
            return X[np.argmax(wrong)]

        def choose_y(self, t, x, prediction):
            return y[np.flatnonzero((X == x).all(axis=1))[0]]

    learner = Perceptron(fit_intercept=False)
    t = play(learner, Greedy(), rounds=6)
    assert learner.n_features_in_ == 3 and t.X.shape == (6, 3)
    # A fresh perceptron scores 0 everywhere and predicts +1: round 0 shows the first -1 row.
    np.testing.assert_array_equal(t.X[0], X[np.argmax(y == -1)])


def test_errors():
    X, y = integer_data(6, n=10)
    with pytest.raises(ValueError, match="exactly two labels"):
        play(Perceptron(), X, np.arange(10) % 3)
    with pytest.raises(ValueError, match="'y' must be the labels"):
        play(Perceptron(), X)
    with pytest.raises(ValueError, match="'rounds' must be None for a fixed sequence"):
        play(Perceptron(), X, y, rounds=3)
    with pytest.raises(ValueError, match="one label per row"):
        play(ToyRiverLearner(), X, y[:5])
    with pytest.raises(ValueError, match="predict_one"):
        play(object(), X, y)
    half = type("Half", (), {"choose_x": lambda self, t, tr: np.ones(2)})()
    with pytest.raises(ValueError, match="It lacks choose_y"):
        play(Perceptron(), half, rounds=2)
    with pytest.raises(ValueError, match="'rounds' must be given"):
        play(Perceptron(), Alternator())
    grows = type("Grows", (), {"choose_x": lambda self, t, tr: np.ones(2 + t),
                               "choose_y": lambda self, t, x, p: 1})()
    with pytest.raises(ValueError, match=r"'adversary' must be an adversary whose every x has"
                                         r" n_features=2 entries .*got '3 entries in round 1"
                                         r" from Grows'"):
        play(Perceptron(), grows, rounds=2)
    with pytest.raises(ValueError, match="labels among classes"):
        play(Perceptron(), X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="'y' must be None when playing against an adversary"):
        play(Perceptron(), Alternator(), y, rounds=2)
