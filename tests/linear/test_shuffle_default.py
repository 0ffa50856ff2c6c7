"""fit shuffles by default (issue 13, section 3); partial_fit and the game keep the given order;
a fitted model below the majority class on its own training data says so."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from strategies import make_noisy, pm, stops_at_max_iter

from halfspaces import AveragedPerceptron, KernelPerceptron, Perceptron, VotedPerceptron
from halfspaces.datasets import make_separable
from halfspaces.online import play

# Every fit below runs to max_iter on data that is not separable.
pytestmark = stops_at_max_iter


def drifting_file(n=400, seed=0):
    """A file in time order whose distribution drifts: its first half is a cloud around (2, -1)
    labelled by x1 - 0.3 x0 > -0.7, its second half a cloud around (-2.5, -3.5) labelled by
    0.7 x0 - 0.7 x1 > 2.2. About 88% of the rows are -1; one halfspace fits both halves far
    better than that (a shuffled averaged perceptron is right on about 92%)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n // 2, 2)) + (2.0, -1.0)
    B = rng.normal(size=(n - n // 2, 2)) + (-2.5, -3.5)
    y = np.concatenate([np.where(A[:, 1] - 0.3 * A[:, 0] > -0.7, 1, -1),
                        np.where(0.7 * B[:, 0] - 0.7 * B[:, 1] > 2.2, 1, -1)])
    return np.vstack([A, B]), y


def majority(y):
    return np.unique(y, return_counts=True)[1].max() / len(y)


def reference_fit(X, y, max_iter, seed):
    """The perceptron with an offset, each epoch in the order RandomState(seed).permutation
    draws anew (scikit-learn's shuffle): its weights, offset and mistakes per epoch."""
    rng = np.random.RandomState(seed)
    w, b, per_epoch = np.zeros(X.shape[1]), 0.0, []
    for _ in range(max_iter):
        mistakes = 0
        for t in rng.permutation(len(y)):
            if y[t] * (X[t] @ w + b) <= 0:
                w, b, mistakes = w + y[t] * X[t], b + y[t], mistakes + 1
        per_epoch.append(mistakes)
    return w, b, per_epoch


def in_order_pass(X, y):
    """One perceptron pass in the given order: the scores before each update, w and b."""
    w, b, scores = np.zeros(X.shape[1]), 0.0, []
    for t in range(len(y)):
        scores.append(X[t] @ w + b)
        if y[t] * scores[-1] <= 0:
            w, b = w + y[t] * X[t], b + y[t]
    return np.array(scores), w, b


@pytest.mark.parametrize("cls", [AveragedPerceptron, VotedPerceptron])
@pytest.mark.parametrize("data_seed", [0, 1])
def test_default_fit_beats_the_majority_on_a_file_in_time_order(cls, data_seed):
    X, y = drifting_file(seed=data_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the in-order fit warns (tested below)
        in_order = cls(shuffle=False, max_iter=10).fit(X, y).score(X, y)
    assert in_order < majority(y)  # the file's order is what makes the old default fail
    for seed in range(3):
        assert cls(max_iter=10, random_state=seed).fit(X, y).score(X, y) > majority(y) + 0.01


@pytest.mark.parametrize("make", [
    lambda seed: Perceptron(max_iter=5, random_state=seed),
    lambda seed: AveragedPerceptron(max_iter=5, random_state=seed),
    lambda seed: VotedPerceptron(max_iter=5, random_state=seed),
    lambda seed: KernelPerceptron(kernel="linear", max_iter=5, random_state=seed),
])
def test_fit_reshuffles_every_epoch_from_random_state(make):
    X, y = make_noisy(40, 3, seed=4)
    _, _, per_epoch = reference_fit(X, pm(y, 1), 5, seed=7)
    clf = make(7).fit(X, y)
    assert clf.mistakes_per_epoch_ == per_epoch


def test_default_fit_equals_the_shuffled_reference():
    X, y = make_noisy(40, 3, seed=4)
    w, b, _ = reference_fit(X, pm(y, 1), 5, seed=2)
    clf = Perceptron(max_iter=5, random_state=2).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron,
                                 lambda: KernelPerceptron(kernel="linear")])
def test_partial_fit_and_the_game_keep_the_given_order(cls):
    X, y = drifting_file(n=60, seed=3)
    scores, w, b = in_order_pass(X, y)
    learner = cls().partial_fit(X, y, classes=[-1, 1])
    assert learner.n_mistakes_ == np.sum(y * scores <= 0)
    player = cls()
    game = play(player, X, y, classes=[-1, 1])
    assert player.n_mistakes_ == np.sum(y * scores <= 0)  # the running perceptron's updates
    if type(learner) is Perceptron:
        np.testing.assert_allclose(game.scores, scores, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(learner.coef_[0], w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(learner.intercept_[0], b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", [lambda: AveragedPerceptron(shuffle=False, max_iter=10),
                                  lambda: Perceptron(shuffle=False, max_iter=10),
                                  lambda: KernelPerceptron(kernel="linear", shuffle=False,
                                                           max_iter=10)])
def test_a_model_below_the_majority_on_its_training_data_warns(make):
    X, y = drifting_file()
    with pytest.warns(UserWarning, match=r"right on (0\.\d{3}) of its training rows, below the"
                      r" (0\.\d{3}) of always predicting the majority class\. .*shuffle=True"
                      ) as record:
        clf = make().fit(X, y)
    text = next(str(w.message) for w in record if "below the" in str(w.message))
    accuracy = text.split("right on ")[1].split(" of")[0]
    share = text.split("below the ")[1].split(" of")[0]
    assert accuracy == f"{clf.score(X, y):.3f}" and share == f"{majority(y):.3f}"
    assert float(accuracy) < float(share)


def test_a_shuffled_fit_warns_exactly_when_below_the_majority_and_gives_no_hint():
    # Three copies of one point, labelled +1, -1, -1, one pass through the origin: the last
    # row visited decides the model, and a pass ending on the +1 row leaves w = 0, which
    # predicts +1 everywhere (1/3 right, below the majority's 2/3).
    X, y = np.ones((3, 1)), np.array([1, -1, -1])
    warned = []
    for seed in range(10):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            clf = Perceptron(fit_intercept=False, max_iter=1, random_state=seed).fit(X, y)
        below = [w for w in record if "below the 0.667" in str(w.message)]
        assert bool(below) == (clf.score(X, y) < majority(y))
        assert all("shuffle" not in str(w.message) for w in below)
        warned.append(bool(below))
    assert any(warned) and not all(warned)


def test_a_model_at_or_above_the_majority_does_not_warn():
    X, y, cls = *drifting_file(), AveragedPerceptron
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert cls(max_iter=10, random_state=0).fit(X, y).score(X, y) >= majority(y)
    assert not [w for w in record if "majority" in str(w.message)]


@pytest.mark.parametrize("cls", [Perceptron, lambda: KernelPerceptron(kernel="linear")])
def test_a_clean_pass_needs_no_prediction_pass(cls, monkeypatch):
    X, y = make_separable(n_samples=50, margin=0.2, random_state=1)
    clf = cls()
    calls = []
    original = type(clf)._decision
    monkeypatch.setattr(type(clf), "_decision", lambda self, Z: calls.append(1) or original(
        self, Z))
    clf.fit(X, y)
    assert clf.converged_ and not calls
    assert clf.score(X, y) == 1.0  # why none is needed: the running perceptron is all right
