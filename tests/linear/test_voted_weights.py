"""Example weights in the voted perceptron: the update scaled by ``s_t``, and each round adds
``s_t`` to the vote of the vector current after it; weight 0 skips the row.

Oracle: Freund & Schapire's training loop with dense vectors, weighted as the docstring
says, then the budget's rule (the last B vectors vote one by one, the others as the sign of
their count-weighted average). Small-integer data and weights in halves keep every sum
exact, so the comparisons are exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import voted_scores
from strategies import as_format, make_noisy, pm, stops_at_max_iter

from halfspaces import load
from halfspaces.linear.voted_perceptron import VotedPerceptron


def _data(n=50, seed=4):
    X, y = make_noisy(n, 5, seed=seed, noise=1.0, integer=True)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.3] = 0.0
    s = rng.choice([0.0, 0.5, 1.0, 2.5, 3.0], size=n)
    return X, y, s


def reference(X, y, s, fit_intercept, max_iter, budget, X_test):
    """(votes on X_test, counts, final vector, mistakes, rounds) of the weighted loop."""
    V, B, C = [np.zeros(X.shape[1])], [0.0], [0.0]
    mistakes = rounds = 0
    for _ in range(max_iter):
        made = 0
        for t in np.flatnonzero(s > 0):
            rounds += 1
            if y[t] * (X[t] @ V[-1] + B[-1]) <= 0:
                V.append(V[-1] + s[t] * y[t] * X[t])
                B.append(B[-1] + (s[t] * y[t] if fit_intercept else 0.0))
                C.append(s[t])
                made += 1
            else:
                C[-1] += s[t]
        mistakes += made
        if made == 0:
            break
    votes, old = voted_scores(X_test, V, B, C, budget)
    return votes, np.array(C[old:]), V[-1], mistakes, rounds


@stops_at_max_iter
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f32-i64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("budget", [1, 4, None])
def test_weighted_vote_equals_the_reference(fmt, fit_intercept, budget):
    X, y, s = _data()
    clf = VotedPerceptron(fit_intercept=fit_intercept, max_iter=3, shuffle=False,
                          max_vectors=budget).fit(as_format(X, fmt), y, sample_weight=s)
    votes, counts, w, mistakes, rounds = reference(X, pm(y, 1), s, fit_intercept, 3, budget,
                                                   X)
    np.testing.assert_array_equal(clf.decision_function(X), votes)
    np.testing.assert_array_equal(clf.vote_counts_, counts)
    np.testing.assert_array_equal(clf.current_coef_[0], w)
    assert clf.n_mistakes_ == mistakes and clf.t_ == rounds
    assert clf.vote_counts_.sum() + clf.merged_count_.sum() == s.sum() * clf.n_iter_


@pytest.mark.parametrize("budget", [2, None])
def test_partial_fit_takes_the_weights_too(budget):
    X, y, s = _data(seed=5)
    clf = VotedPerceptron(max_vectors=budget)
    clf.partial_fit(X[:20], y[:20], classes=[0, 1], sample_weight=s[:20])
    clf.partial_fit(X[20:], y[20:], sample_weight=s[20:])
    votes, counts, w, mistakes, rounds = reference(X, pm(y, 1), s, True, 1, budget, X)
    np.testing.assert_array_equal(clf.decision_function(X), votes)
    np.testing.assert_array_equal(clf.vote_counts_, counts)
    assert clf.n_mistakes_ == mistakes and clf.t_ == rounds


@stops_at_max_iter
def test_weight_zero_is_the_row_left_out_and_unit_weights_change_nothing():
    X, y, s = _data(seed=6)
    kept = s > 0
    weighted = VotedPerceptron(max_iter=4, shuffle=False).fit(X, y, sample_weight=s)
    left_out = VotedPerceptron(max_iter=4, shuffle=False).fit(X[kept], y[kept],
                                                              sample_weight=s[kept])
    plain = VotedPerceptron(max_iter=4, random_state=0).fit(X, y)
    ones = VotedPerceptron(max_iter=4, random_state=0).fit(X, y, sample_weight=np.ones(50))
    for a, b in ((weighted, left_out), (ones, plain)):
        for name in ("vote_counts_", "mistake_y_", "mistake_b_", "mistake_data_",
                     "current_coef_", "current_intercept_"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert a.mistakes_per_epoch_ == b.mistakes_per_epoch_ and a.t_ == b.t_


@stops_at_max_iter
def test_a_weighted_model_round_trips_through_a_file(tmp_path):
    X, y, s = _data(seed=7)
    clf = VotedPerceptron(max_iter=2, max_vectors=3).fit(X, y, sample_weight=s)
    clf.save(tmp_path / "voted")
    loaded = load(tmp_path / "voted")
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    for est in (clf, loaded):
        est.partial_fit(X, y, sample_weight=s)
    np.testing.assert_array_equal(loaded.vote_counts_, clf.vote_counts_)
    np.testing.assert_array_equal(loaded.merged_coef_, clf.merged_coef_)


def test_bad_weights_are_refused():
    X, y, _ = _data(n=6)
    with pytest.raises(ValueError, match=r"VotedPerceptron.fit: 'sample_weight' must be finite"
                                         r" and >= 0; got nan at example 3"):
        VotedPerceptron().fit(X, y, sample_weight=[1, 1, 1, np.nan, 1, 1])
    with pytest.raises(ValueError, match=r"VotedPerceptron.partial_fit: 'sample_weight' must"
                                         r" have one entry per example of X \(6\)"):
        VotedPerceptron().partial_fit(X, y, classes=[0, 1], sample_weight=[1.0, 2.0])
