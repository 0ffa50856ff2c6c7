"""Adversaries: the tightness construction and the greedy order, checked independently."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces import Perceptron
from halfspaces.adversaries import GreedyOrderAdversary, TightNovikoffAdversary
from halfspaces.datasets import make_separable
from halfspaces.online import play


class ToyPerceptron:
    """A River-style perceptron written here, without scores (mistake = p != y)."""

    def __init__(self):
        self.w = None

    def predict_one(self, x):
        if self.w is None:
            self.w = np.zeros_like(x)
        return 1 if self.w @ x >= 0 else -1

    def learn_one(self, x, y):
        if self.predict_one(x) != y:
            self.w = self.w + y * x


class AlwaysPositive:
    """The laziest deterministic learner."""

    def predict_one(self, x):
        return 1

    def learn_one(self, x, y):
        pass


def realized_margin_and_radius(X, y, u):
    X = np.asarray(X)
    return (y * (X @ u)).min() / np.linalg.norm(u), np.sqrt((X**2).sum(axis=1)).max()


@pytest.mark.parametrize("k", [1, 2, 7, 50])
@pytest.mark.parametrize("make_learner", [
    lambda: Perceptron(fit_intercept=False),
    lambda: Perceptron(fit_intercept=True),
    ToyPerceptron,
    AlwaysPositive,
], ids=["perceptron", "perceptron-b", "toy", "constant"])
def test_tight_adversary_forces_k_mistakes_with_radius_1_margin_1_over_sqrt_k(k, make_learner):
    adversary = TightNovikoffAdversary(k)
    t = play(make_learner(), adversary)
    assert t.n_rounds == k
    assert t.n_mistakes == k  # every round
    assert np.all(t.predictions != t.labels)
    y = np.asarray(t.labels, dtype=float)
    u = adversary.separator_
    assert np.linalg.norm(u) == pytest.approx(1.0, abs=1e-15)
    margin, radius = realized_margin_and_radius(t.X, y, u)
    assert radius == 1.0
    assert margin == pytest.approx(1 / np.sqrt(k), abs=1e-15)
    assert adversary.margin == pytest.approx(1 / np.sqrt(k), abs=1e-15)
    # (R/gamma)^2 = k: the perceptron's bound is met with equality.
    assert t.against_bound((radius / margin) ** 2 + 1e-9).holds
    assert t.n_mistakes == round((radius / margin) ** 2)


def test_tight_adversary_radius_and_restart():
    adversary = TightNovikoffAdversary(9, radius=3.0)
    play(Perceptron(fit_intercept=False), adversary)
    t = play(ToyPerceptron(), adversary)  # start() forgets the first game
    margin, radius = realized_margin_and_radius(t.X, np.asarray(t.labels, float),
                                                adversary.separator_)
    assert (radius, margin) == (pytest.approx(3.0), pytest.approx(1.0))
    assert adversary.labels_.size == 9 and t.n_mistakes == 9


def reference_greedy_perceptron(X, y):
    """The greedy order written from its definition, with a NumPy perceptron (no offset)."""
    w = np.zeros(X.shape[1])
    unseen = list(range(len(y)))
    order, mistakes = [], []
    for _ in range(len(y)):
        wrong = [i for i in unseen if (1 if X[i] @ w >= 0 else -1) != y[i]]
        i = wrong[0] if wrong else unseen[0]
        unseen.remove(i)
        order.append(i)
        mistakes.append(y[i] * (X[i] @ w) <= 0)
        if mistakes[-1]:
            w = w + y[i] * X[i]
    return np.array(order), np.array(mistakes)


@pytest.mark.parametrize("sparse", [False, True])
def test_greedy_order_matches_reference(sparse):
    X, y = make_separable(80, 4, margin=0.05, random_state=3)
    order, mistakes = reference_greedy_perceptron(X, y)
    adversary = GreedyOrderAdversary(sp.csr_matrix(X) if sparse else X, y)
    t = play(Perceptron(fit_intercept=False), adversary)
    np.testing.assert_array_equal(adversary.order_, order)
    np.testing.assert_array_equal(t.mistakes, mistakes)
    np.testing.assert_array_equal(t.labels, y[order])
    assert sorted(order.tolist()) == list(range(80))
    # A forced round is always a mistake.
    assert np.all(t.mistakes[adversary.forced_])
    # Replaying the served order as a fixed sequence gives the same game.
    replay = play(Perceptron(fit_intercept=False), X[order], y[order])
    np.testing.assert_array_equal(replay.mistakes, t.mistakes)
    np.testing.assert_allclose(replay.scores, t.scores, rtol=1e-12, atol=1e-15)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), margin=st.floats(0.1, 0.5))
def test_greedy_order_cannot_beat_novikoff(seed, margin):
    X, y, u = make_separable(40, 3, margin=margin, random_state=seed, return_separator=True)
    t = play(Perceptron(fit_intercept=False), GreedyOrderAdversary(X, y))
    gamma, R = realized_margin_and_radius(X, y, u)
    assert t.n_mistakes <= (R / gamma) ** 2


def test_greedy_order_with_string_labels_and_generic_learner():
    X, y_pm = make_separable(30, 2, margin=0.2, random_state=0)
    y = np.where(y_pm == 1, "pos", "neg")
    adversary = GreedyOrderAdversary(X, y)
    t = play(Perceptron(fit_intercept=False), adversary)
    assert t.classes.tolist() == ["neg", "pos"]
    assert set(t.labels.tolist()) <= {"neg", "pos"}


def test_adversary_errors():
    with pytest.raises(ValueError, match="'n_rounds' must be an int >= 1"):
        TightNovikoffAdversary(0)
    with pytest.raises(ValueError, match="'radius' must be a float > 0"):
        TightNovikoffAdversary(3, radius=-1.0)
    with pytest.raises(ValueError, match="'t' must be < n_rounds=2"):
        play(Perceptron(), TightNovikoffAdversary(2), rounds=3)
    X = np.eye(3)
    with pytest.raises(ValueError, match="exactly two distinct labels"):
        GreedyOrderAdversary(X, [0, 1, 2])
    with pytest.raises(ValueError, match="one label per row"):
        GreedyOrderAdversary(X, [0, 1])
    with pytest.raises(ValueError, match="bound by play"):
        GreedyOrderAdversary(X, [0, 1, 1]).choose_x(0, None)
