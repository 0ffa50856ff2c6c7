"""online.iter_play: the progressive table of the online game, against one play() of the
whole sequence and a perceptron written here from the notes."""

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import AveragedPerceptron, Perceptron, online
from halfspaces.online import iter_play, play


def _data(n=70, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(float)
    y = np.where(X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=n) > 0, "a", "b")
    return X, y


class NumpyPerceptron:
    """The generic protocol: a perceptron through the origin, labels 'a' (-1) and 'b' (+1)."""

    def __init__(self, d):
        self.w = np.zeros(d)

    def predict_one(self, x):
        return "b" if self.w @ x >= 0 else "a"

    def learn_one(self, x, y):
        y_pm = 1.0 if y == "b" else -1.0
        if y_pm * (self.w @ x) <= 0:
            self.w = self.w + y_pm * x


def _expected_rows(transcript):
    cumulative = np.cumsum(transcript.mistakes)
    n, rows, last = len(cumulative), [], (0, 0)
    for t in [*[2**k for k in range(n.bit_length()) if 2**k < n], n]:
        m = int(cumulative[t - 1])
        rows.append((t, m, m / t, (m - last[1]) / (t - last[0]), transcript.labels[t - 1],
                     transcript.predictions[t - 1]))
        last = (t, m)
    return rows


@pytest.mark.parametrize("make", [lambda: Perceptron(fit_intercept=False), AveragedPerceptron,
                                  lambda: NumpyPerceptron(3)])
def test_rows_at_powers_of_two_match_one_play_of_the_whole_sequence(make):
    X, y = _data()
    once, learner = make(), make()
    whole = play(once, X, y)
    rows = list(iter_play(learner, X, y))
    assert [r.examples for r in rows] == [1, 2, 4, 8, 16, 32, 64, 70]
    assert [tuple(r) for r in rows] == _expected_rows(whole)
    # The learner ends where one play of the whole sequence ends.
    np.testing.assert_array_equal(getattr(learner, "coef_", getattr(learner, "w", None)),
                                  getattr(once, "coef_", getattr(once, "w", None)))


def test_mistakes_are_the_perceptron_rule_on_sparse_rows():
    X, y = _data(seed=1)
    w, mistakes = np.zeros(3), []
    for x_t, label in zip(X, y, strict=True):
        y_t = 1.0 if label == "b" else -1.0
        mistakes.append(y_t * (w @ x_t) <= 0)
        if mistakes[-1]:
            w = w + y_t * x_t
    rows = list(iter_play(Perceptron(fit_intercept=False), sp.csr_matrix(X), y))
    assert [r.mistakes for r in rows] == [sum(mistakes[:r.examples]) for r in rows]


def test_progress_is_called_for_every_round_in_blocks(monkeypatch):
    X, y = _data(n=20, seed=2)
    monkeypatch.setattr(online, "_PROGRESS_BLOCK", 3)
    calls = []
    rows = list(iter_play(Perceptron(), X, y, progress=calls.append))
    whole = play(Perceptron(), X, y)
    assert sum(calls) == 20 and max(calls) <= 3
    assert [tuple(r) for r in rows] == _expected_rows(whole)


def test_labels_must_match_the_rows():
    X, y = _data(n=10)
    with pytest.raises(ValueError, match=r"'y' must be one label per row of X \(10\)"):
        list(iter_play(Perceptron(), X, y[:9]))
