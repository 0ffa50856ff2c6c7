"""VotedPerceptron(max_vectors=B): the oldest vectors beyond B vote as their average.

The reference is Freund & Schapire's training loop with dense vectors, then the budget's
rule read from the docstring: the last B vectors vote one by one, the others as one voter,
sign(sum_k c_k (<v_k, x> + b_k)), weighted by sum_k c_k. Integer data keeps every sum exact,
so the comparisons are exact whatever the order of the additions.
"""

from __future__ import annotations

import numpy as np
import pytest
import strategies as shared
from helpers import voted_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import as_format, compiled_game, make_noisy, pm

from halfspaces import load
from halfspaces.linear.voted_perceptron import VotedPerceptron


def reference_budget_scores(X, y, fit_intercept, max_iter, budget, X_test):
    """The vote of the last ``budget`` vectors of the paper's loop, plus their elders'
    average's vote weighted by the rounds those elders survived."""
    V, B, C = [np.zeros(X.shape[1])], [0.0], [0]
    for _ in range(max_iter):
        mistakes = 0
        for t in range(len(y)):
            if y[t] * (X[t] @ V[-1] + B[-1]) <= 0:
                V.append(V[-1] + y[t] * X[t])
                B.append(B[-1] + (y[t] if fit_intercept else 0.0))
                C.append(1)
                mistakes += 1
            else:
                C[-1] += 1
        if mistakes == 0:
            break
    scores, old = voted_scores(X_test, V, B, C, budget)
    return scores, len(V) - old


@shared.stops_at_max_iter
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f32-i64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("budget", [1, 2, 7, None])
def test_vote_equals_the_reference(fmt, fit_intercept, budget):
    X0, y = make_noisy(60, 5, seed=4, noise=1.0, integer=True)
    X0[np.random.default_rng(5).random(X0.shape) < 0.3] = 0.0
    clf = VotedPerceptron(fit_intercept=fit_intercept, max_iter=3, shuffle=False,
                          max_vectors=budget).fit(as_format(X0, fmt), y)
    X_test = np.random.default_rng(6).integers(-3, 4, size=(40, 5)).astype(float)
    expected, n_kept = reference_budget_scores(X0, pm(y, 1), fit_intercept, 3, budget, X_test)
    np.testing.assert_array_equal(clf.decision_function(as_format(X_test, fmt)), expected)
    assert clf.vote_counts_.size == n_kept and clf.mistake_y_.size == n_kept - 1
    assert clf.vote_counts_.sum() + clf.merged_count_[0] == clf.t_  # no round lost


@settings(max_examples=30, deadline=None)
@given(cuts=st.lists(st.integers(1, 79), max_size=6, unique=True),
       budget=st.integers(1, 6), n_classes=st.sampled_from([2, 3]))
def test_the_model_does_not_depend_on_how_the_stream_is_split(cuts, budget, n_classes):
    X, y = make_noisy(80, 4, seed=7, noise=1.0, integer=True)
    y = y if n_classes == 2 else np.arange(80) % 3
    classes = np.unique(y)
    whole = VotedPerceptron(max_vectors=budget).partial_fit(X, y, classes=classes)
    split = VotedPerceptron(max_vectors=budget)
    for part in np.split(np.arange(80), sorted(cuts)):
        split.partial_fit(X[part], y[part], classes=classes)
        n_models = split.mistake_ptr_.size - 1
        assert np.all(np.diff(split.mistake_ptr_) <= budget - 1)  # bounded after each call
        assert split.vote_counts_.size <= n_models * budget
    for name in ("vote_counts_", "mistake_data_", "mistake_indices_", "mistake_ptr_",
                 "base_coef_", "base_intercept_", "merged_coef_", "merged_intercept_",
                 "merged_count_", "current_coef_"):
        np.testing.assert_array_equal(getattr(split, name), getattr(whole, name), name)
    X_test = np.random.default_rng(8).integers(-3, 4, size=(20, 4)).astype(float)
    np.testing.assert_array_equal(split.decision_function(X_test),
                                  whole.decision_function(X_test))


def test_on_real_values_the_split_changes_only_the_rounding_of_the_merged_sums():
    """Real-valued data: a stream split in calls merges its old vectors a call at a time,
    the same terms grouped otherwise than one call's merge: the merged sums agree to
    rounding (not always bit for bit: the docstring says so), and the kept vectors, their
    counts and the running perceptron exactly."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 6))
    y = np.where(X @ rng.normal(size=6) + rng.normal(size=300) > 0, 1.0, -1.0)
    whole = VotedPerceptron(max_vectors=4).partial_fit(X, y, classes=[-1.0, 1.0])
    split = VotedPerceptron(max_vectors=4)
    for part in np.array_split(np.arange(300), 17):
        split.partial_fit(X[part], y[part], classes=[-1.0, 1.0])
    for name in ("vote_counts_", "mistake_data_", "mistake_ptr_", "merged_count_",
                 "current_coef_"):
        np.testing.assert_array_equal(getattr(split, name), getattr(whole, name), name)
    for name in ("base_coef_", "merged_coef_", "merged_intercept_"):
        np.testing.assert_allclose(getattr(split, name), getattr(whole, name), rtol=1e-13,
                                   atol=1e-12, err_msg=name)


def test_after_a_game_the_model_is_the_stream_model():
    """The game's update is the running perceptron's, so the vectors kept and merged after
    it are those of partial_fit on the same rows; its scores are the vote (within budget
    but for the vectors the game itself makes)."""
    X, y = make_noisy(60, 4, seed=11, noise=1.0, integer=True)
    game = VotedPerceptron(max_vectors=3)
    scores = compiled_game(game, X, pm(y, 1))
    stream = VotedPerceptron(max_vectors=3).partial_fit(X, pm(y, 1), classes=[-1.0, 1.0])
    for name in ("vote_counts_", "mistake_data_", "merged_coef_", "merged_count_"):
        np.testing.assert_array_equal(getattr(game, name), getattr(stream, name), name)
    assert scores[0] == 0.0 and np.all(np.abs(scores) <= np.arange(60))  # a vote of t rounds


@shared.stops_at_max_iter
def test_without_a_budget_nothing_is_merged():
    X, y = make_noisy(50, 4, seed=9, noise=1.0)
    clf = VotedPerceptron(max_iter=2).fit(X, y)
    assert clf.base_coef_.shape == (1, 0) and clf.merged_count_[0] == 0.0
    assert clf.vote_counts_.size == clf.n_mistakes_ + 1


@shared.stops_at_max_iter
def test_a_budgeted_model_round_trips(tmp_path):
    X, y = make_noisy(50, 4, seed=10, noise=1.0)
    clf = VotedPerceptron(max_iter=2, max_vectors=3).fit(X, y)
    clf.save(tmp_path / "m.npz")
    loaded = load(tmp_path / "m.npz")
    assert loaded.max_vectors == 3 and loaded.merged_count_[0] > 0
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3"])
def test_a_bad_budget_is_reported(bad):
    X, y = make_noisy(10, 2, seed=0)
    with pytest.raises(ValueError, match=r"VotedPerceptron: 'max_vectors' must be"):
        VotedPerceptron(max_vectors=bad).fit(X, y)
