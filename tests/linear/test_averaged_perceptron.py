"""AveragedPerceptron against a naive reference that literally sums w_t every round."""

from __future__ import annotations

import numpy as np
import pytest
import strategies as shared
from hypothesis import given, settings
from strategies import MATRIX_FORMATS, as_format, dense64, make_noisy, pm

from halfspaces.linear.averaged_perceptron import AveragedPerceptron
from halfspaces.linear.perceptron import Perceptron


def reference_averaged(X, y, fit_intercept, max_iter, w=None, b=0.0, sums=None,
                       stop_when_clean=True):
    """Perceptron epochs; after *every* round add the current (w, b) to the running sums.

    Returns the average over all rounds so far, the running (w, b), the sums and the
    mistakes per epoch. ``sums`` = (sum_w, sum_b, T) continues an earlier run.
    """
    d = X.shape[1]
    w = np.zeros(d) if w is None else w
    sum_w, sum_b, T = sums if sums is not None else (np.zeros(d), 0.0, 0)
    per_epoch = []
    for _ in range(max_iter):
        mistakes = 0
        for t in range(len(y)):
            if y[t] * (X[t] @ w + b) <= 0:
                w = w + y[t] * X[t]
                b = b + y[t] if fit_intercept else b
                mistakes += 1
            sum_w, sum_b, T = sum_w + w, sum_b + b, T + 1  # weights after round T
        per_epoch.append(mistakes)
        if mistakes == 0 and stop_when_clean:
            break
    return sum_w / T, sum_b / T, (w, b), (sum_w, sum_b, T), per_epoch


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@shared.stops_at_max_iter
@pytest.mark.parametrize("fmt", sorted(MATRIX_FORMATS))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_fit_equals_the_naive_average(fmt, fit_intercept):
    X0, y = make_noisy(90, 7, seed=3)
    X0[np.random.default_rng(0).random(X0.shape) < 0.3] = 0.0
    X = as_format(X0, fmt)
    clf = AveragedPerceptron(fit_intercept=fit_intercept, max_iter=6, shuffle=False).fit(X, y)
    avg_w, avg_b, (w, b), _, per_epoch = reference_averaged(dense64(X), pm(y, 1),
                                                            fit_intercept, 6)
    assert clf.mistakes_per_epoch_ == per_epoch and clf.t_ == 90 * len(per_epoch)
    close(clf.coef_[0], avg_w)
    close(clf.intercept_[0], avg_b)
    close(clf.current_coef_[0], w)
    close(clf.current_intercept_[0], b)


def test_average_runs_over_partial_fit_calls_and_converged_epochs():
    rng = np.random.default_rng(5)
    X = rng.integers(-2, 3, size=(40, 4)).astype(float)
    y = np.where(X @ np.array([1.0, -2.0, 0.5, 1.0]) + 0.25 >= 0, 1, -1)
    clf = AveragedPerceptron()
    sums, state = None, (None, 0.0)
    for lo in (0, 15, 31):
        part = slice(lo, lo + 15)
        clf.partial_fit(X[part], y[part], classes=[-1, 1])
        avg_w, avg_b, state, sums, _ = reference_averaged(X[part], y[part], True, 1, *state,
                                                          sums=sums)
        close(clf.coef_[0], avg_w)
        close(clf.intercept_[0], avg_b)
    # fit (from zero) keeps averaging through the final mistake-free epoch too
    clf = AveragedPerceptron(max_iter=100, shuffle=False).fit(X, y)
    avg_w, avg_b, _, _, per_epoch = reference_averaged(X, y, True, 100)
    assert clf.converged_ and per_epoch[-1] == 0
    close(clf.coef_[0], avg_w)
    close(clf.intercept_[0], avg_b)


@shared.stops_at_max_iter
@settings(max_examples=30, deadline=None)
@given(shared.labelled_data(integer_valued=True))
def test_multiclass_is_one_vs_rest_of_the_naive_average(data):
    X, y = data
    clf = AveragedPerceptron(max_iter=3, shuffle=False).fit(X, y)
    positives = clf.classes_[1:] if clf.classes_.size == 2 else clf.classes_
    for k, label in enumerate(positives):
        # one-vs-rest shares the epochs: a problem already separated keeps averaging
        avg_w, avg_b, *_ = reference_averaged(X, pm(y, label), True, clf.n_iter_,
                                              stop_when_clean=False)
        close(clf.coef_[k], avg_w)
        close(clf.intercept_[k], avg_b)


@shared.stops_at_max_iter
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f32-i64"])
def test_running_perceptron_is_the_perceptron(fmt):
    X0, y = make_noisy(200, 6, seed=8)
    X = as_format(X0, fmt)
    avg = AveragedPerceptron(max_iter=4, shuffle=True, random_state=1).fit(X, y)
    ref = Perceptron(max_iter=4, shuffle=True, random_state=1).fit(X, y)
    np.testing.assert_array_equal(avg.current_coef_, ref.coef_)
    np.testing.assert_array_equal(avg.current_intercept_, ref.intercept_)
    assert avg.mistakes_per_epoch_ == ref.mistakes_per_epoch_


@pytest.mark.parametrize("fmt", ["dense-f64", "dense-f32", "csr-f64-i32", "csr-f32-i64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_game_is_played_by_the_average_in_both_paths(fmt, fit_intercept):
    X0, y = make_noisy(50, 5, seed=4)
    X = as_format(X0, fmt)
    slow_scores, slow_preds = shared.play_one_by_one(
        AveragedPerceptron(fit_intercept=fit_intercept), X, y, [0, 1])
    fast = AveragedPerceptron(fit_intercept=fit_intercept)
    fast_scores = shared.compiled_game(fast, X, pm(y, 1), classes=[0, 1])
    np.testing.assert_array_equal(fast_scores, slow_scores)  # bit for bit
    np.testing.assert_array_equal(np.where(fast_scores >= 0, 1, 0), slow_preds)
    # round t's score is the average of the weights after rounds 1..t-1 (0 at t = 1)
    Xd, yd = dense64(X), pm(y, 1)
    expected = [0.0]
    for t in range(1, len(y)):
        avg_w, avg_b, *_ = reference_averaged(Xd[:t], yd[:t], fit_intercept, 1)
        expected.append(Xd[t] @ avg_w + avg_b)
    np.testing.assert_allclose(fast_scores, expected, rtol=1e-10, atol=1e-12)
    slow = AveragedPerceptron(fit_intercept=fit_intercept).partial_fit(X, y, classes=[0, 1])
    np.testing.assert_array_equal(fast.coef_, slow.coef_)
    assert fast.n_mistakes_ == slow.n_mistakes_ and fast.t_ == slow.t_ == len(y)


def test_decision_uses_the_average():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    y = np.array([1, 1, -1, -1])
    clf = AveragedPerceptron(fit_intercept=False).partial_fit(X, y, classes=[-1, 1])
    # w after rounds 1..4: [1,0], [1,1], [1,1], [1,1] -> average [1, 0.75]
    np.testing.assert_array_equal(clf.coef_, [[1.0, 0.75]])
    np.testing.assert_array_equal(clf.decision_function(np.array([[0.0, 1.0], [-1.0, 1.0]])),
                                  [0.75, -0.25])


def test_bad_parameter_is_reported():
    with pytest.raises(ValueError, match=r"AveragedPerceptron: 'warm_start' must be a bool; "
                                         r"got 'no'"):
        AveragedPerceptron(warm_start="no").fit(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match=r"AveragedPerceptron.partial_fit: 'classes' is "
                                         r"required on the first call"):
        AveragedPerceptron().partial_fit(np.eye(2), [0, 1])


# -- numerical trouble and non-convergence ------------------------------------------------
def averaged_not_finite(what, row):
    return shared.not_finite("AveragedPerceptron", what, row)


@shared.overflows
@pytest.mark.parametrize("fmt, trailing_rows", [("dense-f64", 0), ("csr-f64-i32", 3),
                                                ("csr-f64-i64", 3)])
def test_an_overflowing_average_stops_at_the_update_that_overflowed(fmt, trailing_rows):
    # 20 zero rows are ties (mistakes that change nothing); row 20 adds c y_t x_t =
    # 20 * 1e307 to u, which overflows although every score is 0. A dense pass checks u
    # at its end (so row 20 is the last row there); a CSR pass at each update.
    from halfspaces.exceptions import NumericalError
    from halfspaces.online import play

    with np.errstate(over="ignore"):
        assert np.isinf(np.float64(20.0) * np.float64(1e307))
    X0 = np.zeros((21 + trailing_rows, 1))
    X0[20, 0] = 1e307
    X, y = as_format(X0, fmt), np.ones(len(X0))
    y[0] = -1  # two classes; row 0 is a tie either way
    match = averaged_not_finite("the weights after the update", 20)
    for run in (lambda: AveragedPerceptron(fit_intercept=False, shuffle=False).fit(X, y),
                lambda: play(AveragedPerceptron(fit_intercept=False), X, y)):
        with pytest.raises(NumericalError, match=match) as info:
            run()
        assert info.value.row == 20


@shared.overflows
def test_decision_function_names_the_row_whose_score_overflows():
    from halfspaces.exceptions import NumericalError

    clf = AveragedPerceptron().fit(np.array([[2.0, 2.0], [-2.0, -2.0]]), [1, -1])
    with pytest.raises(NumericalError, match=averaged_not_finite("the score", 2)):
        clf.decision_function(np.array([[1.0, 1.0], [0.0, 1.0], [1e308, 1e308]]))


def test_fit_warns_when_max_iter_ends_without_a_clean_pass():
    X, y = shared.XOR_X, shared.XOR_Y
    per_epoch = reference_averaged(X, y, True, 5)[-1]
    assert len(per_epoch) == 5
    shared.fit_warns_without_a_clean_pass(AveragedPerceptron(shuffle=False), X, y, per_epoch)
