"""VotedPerceptron against Freund & Schapire's algorithm written out with dense vectors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import strategies as shared
from hypothesis import given, settings
from strategies import MATRIX_FORMATS, as_format, dense64, make_noisy, pm

from halfspaces.linear.perceptron import Perceptron
from halfspaces.linear.voted_perceptron import VotedPerceptron


def reference_voted(X, y, fit_intercept, max_iter, stop_when_clean=True):
    """The paper's training loop: keep every vector v_k (dense) and its survival count c_k."""
    V, B, C, per_epoch = [np.zeros(X.shape[1])], [0.0], [0], []
    for _ in range(max_iter):
        mistakes = 0
        for t in range(len(y)):
            if y[t] * (X[t] @ V[-1] + B[-1]) <= 0:  # a tie is a mistake
                V.append(V[-1] + y[t] * X[t])
                B.append(B[-1] + y[t] if fit_intercept else B[-1])
                C.append(1)
                mistakes += 1
            else:
                C[-1] += 1
        per_epoch.append(mistakes)
        if mistakes == 0 and stop_when_clean:
            break
    return V, B, C, per_epoch


def reference_vote(V, B, C, x):
    """sum_k c_k sign(<v_k, x> + b_k), each vector voting +1 on a score >= 0."""
    return float(sum(c * (1 if x @ v + b >= 0 else -1) for v, b, c in zip(V, B, C, strict=True)))


@shared.stops_at_max_iter
@pytest.mark.parametrize("fmt", sorted(MATRIX_FORMATS))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_counts_and_votes_equal_the_paper(fmt, fit_intercept):
    X0, y = make_noisy(70, 6, seed=1, noise=1.0, integer=True)
    X0[np.random.default_rng(2).random(X0.shape) < 0.3] = 0.0
    X = as_format(X0, fmt)
    clf = VotedPerceptron(fit_intercept=fit_intercept, max_iter=3, shuffle=False).fit(X, y)
    V, B, C, per_epoch = reference_voted(X0, pm(y, 1), fit_intercept, 3)
    assert clf.mistakes_per_epoch_ == per_epoch
    np.testing.assert_array_equal(clf.vote_counts_, C)
    assert clf.vote_counts_.sum() == clf.t_ == 70 * len(per_epoch)
    np.testing.assert_array_equal(clf.current_coef_[0], V[-1])
    assert clf.current_intercept_[0] == B[-1]
    X_test = np.random.default_rng(3).integers(-3, 4, size=(40, 6)).astype(float)
    expected = [reference_vote(V, B, C, x) for x in X_test]
    np.testing.assert_array_equal(clf.decision_function(as_format(X_test, fmt)), expected)
    np.testing.assert_array_equal(clf.predict(X_test), np.where(np.array(expected) >= 0, 1, 0))


def test_float_data_and_repeated_partial_fit():
    X, y = make_noisy(120, 8, seed=5, noise=1.0)
    clf = VotedPerceptron()
    for part in np.array_split(np.arange(120), 4):
        clf.partial_fit(X[part], y[part], classes=[0, 1])
    V, B, C, _ = reference_voted(X, pm(y, 1), True, 1)
    np.testing.assert_array_equal(clf.vote_counts_, C)
    X_test = np.random.default_rng(6).standard_normal((30, 8))
    np.testing.assert_array_equal(clf.decision_function(X_test),
                                  [reference_vote(V, B, C, x) for x in X_test])


@shared.stops_at_max_iter
@settings(max_examples=25, deadline=None)
@given(shared.labelled_data(integer_valued=True, max_samples=30))
def test_multiclass_is_one_vs_rest_of_the_paper(data):
    X, y = data
    clf = VotedPerceptron(max_iter=3, shuffle=False).fit(X, y)
    positives = clf.classes_[1:] if clf.classes_.size == 2 else clf.classes_
    votes = clf.decision_function(X).reshape(len(y), -1)
    for k, label in enumerate(positives):
        # one-vs-rest shares the epochs: a problem already separated keeps counting
        V, B, C, _ = reference_voted(X, pm(y, label), True, clf.n_iter_, stop_when_clean=False)
        lo, hi = clf.mistake_ptr_[k], clf.mistake_ptr_[k + 1]
        np.testing.assert_array_equal(clf.vote_counts_[lo + k : hi + k + 1], C)
        np.testing.assert_array_equal(votes[:, k], [reference_vote(V, B, C, x) for x in X])


@shared.stops_at_max_iter
def test_running_perceptron_is_the_perceptron():
    X, y = make_noisy(150, 5, seed=9, noise=1.0)
    voted = VotedPerceptron(max_iter=4, shuffle=True, random_state=3).fit(X, y)
    ref = Perceptron(max_iter=4, shuffle=True, random_state=3).fit(X, y)
    np.testing.assert_array_equal(voted.current_coef_, ref.coef_)
    assert voted.mistakes_per_epoch_ == ref.mistakes_per_epoch_
    assert voted.mistake_ptr_[-1] == ref.n_mistakes_


@pytest.mark.parametrize("fmt", ["dense-f64", "dense-f32", "csr-f64-i32", "csr-f32-i64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_game_is_played_by_the_vote_in_both_paths(fmt, fit_intercept):
    X0, y = make_noisy(45, 4, seed=2, noise=1.0)
    X0[np.random.default_rng(1).random(X0.shape) < 0.25] = 0.0
    X = as_format(X0, fmt)
    slow_scores, slow_preds = shared.play_one_by_one(
        VotedPerceptron(fit_intercept=fit_intercept), X, y, [0, 1])
    fast = VotedPerceptron(fit_intercept=fit_intercept)
    fast_scores = shared.compiled_game(fast, X, pm(y, 1), classes=[0, 1])
    np.testing.assert_array_equal(fast_scores, slow_scores)
    np.testing.assert_array_equal(np.where(fast_scores >= 0, 1, 0), slow_preds)
    Xd, yd = dense64(X), pm(y, 1)
    expected = [reference_vote(*reference_voted(Xd[:t], yd[:t], fit_intercept, 1)[:3], Xd[t])
                for t in range(len(y))]
    np.testing.assert_array_equal(fast_scores, expected)
    slow = VotedPerceptron(fit_intercept=fit_intercept).partial_fit(X, y, classes=[0, 1])
    for name in ("vote_counts_", "mistake_data_", "mistake_indices_", "mistake_indptr_",
                 "mistake_y_", "mistake_b_", "current_coef_"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))
    assert fast.n_mistakes_ == slow.n_mistakes_


def test_a_second_game_continues_the_first():
    X, y = make_noisy(60, 3, seed=4, noise=1.0)
    one = VotedPerceptron()
    one._prepare_online([0, 1], 3)
    first = one._play(X[:30], pm(y[:30], 1))
    second = one._play(X[30:], pm(y[30:], 1))
    whole = VotedPerceptron()
    whole._prepare_online([0, 1], 3)
    np.testing.assert_array_equal(np.concatenate([first, second]), whole._play(X, pm(y, 1)))
    np.testing.assert_array_equal(one.vote_counts_, whole.vote_counts_)


@shared.stops_at_max_iter
def test_sparse_storage_is_the_mistake_rows_not_dense_vectors():
    rng = np.random.default_rng(0)
    n, d = 300, 1_000_000
    X = sp.random(n, d, density=8 / d, format="csr", random_state=rng, dtype=np.float64)
    y = rng.integers(0, 2, n)
    clf = VotedPerceptron(max_iter=2).fit(X, y)
    n_vectors = clf.vote_counts_.size
    assert n_vectors > 50
    stored = sum(getattr(clf, name).nbytes for name in
                 ("mistake_data_", "mistake_indices_", "mistake_indptr_", "mistake_y_",
                  "mistake_b_", "vote_counts_", "mistake_ptr_"))
    assert stored <= 40 * (X.nnz * 2 + n_vectors)  # O(nnz), nowhere near n_vectors * d
    assert clf.mistake_indices_.dtype == np.int32


def test_bad_parameter_is_reported():
    with pytest.raises(ValueError, match=r"VotedPerceptron: 'max_iter' must be an int >= 1 "
                                         r"\(number of epochs\); got -1"):
        VotedPerceptron(max_iter=-1).fit(np.eye(2), [0, 1])


# -- numerical trouble and non-convergence ------------------------------------------------
def voted_not_finite(what, row):
    return shared.not_finite("VotedPerceptron", what, row)


@shared.overflows
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f64-i64"])
def test_a_vote_on_a_non_finite_score_is_refused(fmt):
    # the vectors are 0, (2, 2): on (1e308, 1e308) the second scores 4e308 = inf
    from halfspaces.exceptions import NumericalError

    clf = VotedPerceptron(fit_intercept=False).fit(np.array([[2.0, 2.0], [-2.0, -2.0]]), [1, -1])
    with pytest.raises(NumericalError, match=voted_not_finite("the score of a voting vector", 1)):
        clf.decision_function(as_format(np.array([[1.0, 1.0], [1e308, 1e308]]), fmt))


def test_fit_warns_when_max_iter_ends_without_a_clean_pass():
    X, y = shared.XOR_X, shared.XOR_Y
    per_epoch = reference_voted(X, y, True, 5)[-1]
    assert len(per_epoch) == 5
    shared.fit_warns_without_a_clean_pass(VotedPerceptron(shuffle=False), X, y, per_epoch)
