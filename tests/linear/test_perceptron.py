"""Perceptron against a NumPy reference written from the notes, scikit-learn, and Novikoff."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from strategies import (
    MATRIX_FORMATS,
    as_format,
    compiled_game,
    dense64,
    fit_warns_without_a_clean_pass,
    labelled_data,
    make_noisy,
    make_planted,
    not_finite,
    overflows,
    play_one_by_one,
    pm,
    separable_through_origin,
    stops_at_max_iter,
)

from halfspaces.linear.perceptron import Perceptron

ROOT = Path(__file__).resolve().parents[2]

def reference_pass(X, y, w, b, fit_intercept, order):
    """The notes, literally: a mistake is y (w.x + b) <= 0, then w += y x, b += y."""
    mistakes = 0
    for t in order:
        if y[t] * (X[t] @ w + b) <= 0:
            w = w + y[t] * X[t]
            b = b + y[t] if fit_intercept else b
            mistakes += 1
    return w, b, mistakes


def reference_fit(X, y, fit_intercept, max_iter, seed=None):
    """Epochs until one has no mistake; shuffled by RandomState(seed).permutation if seed."""
    rng = np.random.RandomState(seed) if seed is not None else None
    w, b, per_epoch = np.zeros(X.shape[1]), 0.0, []
    for _ in range(max_iter):
        order = rng.permutation(len(y)) if rng is not None else range(len(y))
        w, b, m = reference_pass(X, y, w, b, fit_intercept, order)
        per_epoch.append(m)
        if m == 0:
            break
    return w, b, per_epoch


@pytest.mark.parametrize("fmt", sorted(MATRIX_FORMATS))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_one_pass_matches_reference_exactly_on_integer_data(fmt, fit_intercept):
    rng = np.random.default_rng(3)
    X0 = rng.integers(-3, 4, size=(80, 11)).astype(np.float64)
    X0[rng.random(X0.shape) < 0.4] = 0.0
    y = rng.choice([-1, 1], size=80)
    clf = Perceptron(fit_intercept=fit_intercept).partial_fit(as_format(X0, fmt), y,
                                                              classes=[-1, 1])
    w, b, m = reference_pass(X0, y, np.zeros(11), 0.0, fit_intercept, range(80))
    np.testing.assert_array_equal(clf.coef_[0], w)  # integer sums: exact in any order
    assert clf.intercept_[0] == b
    assert clf.n_mistakes_ == m > 0


@stops_at_max_iter
@pytest.mark.parametrize("fmt", sorted(MATRIX_FORMATS))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_fit_matches_reference_on_float_data(fmt, fit_intercept):
    rng = np.random.default_rng(7)
    X0 = rng.standard_normal((120, 9))
    X0[rng.random(X0.shape) < 0.3] = 0.0
    y = np.where(X0 @ rng.standard_normal(9) + 0.3 >= 0, 1, -1)
    X = as_format(X0, fmt)
    clf = Perceptron(fit_intercept=fit_intercept, max_iter=50, shuffle=False).fit(X, y)
    w, b, per_epoch = reference_fit(dense64(X), y, fit_intercept, 50)
    assert clf.mistakes_per_epoch_ == per_epoch
    assert clf.n_mistakes_ == sum(per_epoch)
    assert clf.converged_ == (per_epoch[-1] == 0)
    assert clf.n_iter_ == len(per_epoch)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12, atol=1e-12)


@stops_at_max_iter
def test_dense_and_csr_give_the_same_model():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((300, 17))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = rng.integers(0, 2, 300)
    fits = [Perceptron(max_iter=5, shuffle=False).fit(as_format(X, f), y)
            for f in sorted(MATRIX_FORMATS) if "f64" in f]
    for clf in fits[1:]:
        assert clf.mistakes_per_epoch_ == fits[0].mistakes_per_epoch_
        np.testing.assert_allclose(clf.coef_, fits[0].coef_, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(clf.predict(X), fits[0].predict(X))


@stops_at_max_iter
def test_shuffled_fit_follows_random_state():
    X, y = make_noisy(200, 6, seed=2)
    clf = Perceptron(shuffle=True, random_state=5, max_iter=7).fit(X, y)
    w, b, per_epoch = reference_fit(X, pm(y, 1), True, 7, seed=5)
    assert clf.mistakes_per_epoch_ == per_epoch
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    again = Perceptron(shuffle=True, random_state=5, max_iter=7).fit(X, y)
    np.testing.assert_array_equal(again.coef_, clf.coef_)
    assert Perceptron(shuffle=True, random_state=6, max_iter=7).fit(X, y).mistakes_per_epoch_ \
        != per_epoch


@stops_at_max_iter
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f32-i64"])
def test_multiclass_is_one_vs_rest_of_the_reference(fmt):
    rng = np.random.default_rng(4)
    X0 = rng.standard_normal((150, 5))
    y = np.array(["a", "b", "c"])[np.argmax(X0[:, :3] + 0.3 * rng.standard_normal((150, 3)),
                                            axis=1)]
    X = as_format(X0, fmt)
    clf = Perceptron(max_iter=4, shuffle=False).fit(X, y)
    assert list(clf.classes_) == ["a", "b", "c"]
    total = []
    for k, label in enumerate(clf.classes_):
        w, b, per_epoch = reference_fit(dense64(X), pm(y, label), True, 4)
        np.testing.assert_allclose(clf.coef_[k], w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(clf.intercept_[k], b, rtol=1e-12, atol=1e-12)
        total.append(per_epoch + [0] * (4 - len(per_epoch)))
    # every binary problem shares the epoch loop: it stops when all make no mistake
    assert clf.mistakes_per_epoch_ == list(np.sum(total, axis=0)[: clf.n_iter_])
    scores = dense64(X) @ clf.coef_.T + clf.intercept_
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(scores, axis=1)])


@pytest.mark.parametrize("fit_intercept, fmt", [(True, "dense-f64"), (False, "dense-f64"),
                                                (False, "csr-f64-i32"), (False, "csr-f64-i64")])
def test_one_epoch_equals_sklearn(fit_intercept, fmt):
    # sklearn updates a sparse model's intercept with a 0.01 decay, so sparse compares
    # without intercept; sklearn also counts a tie as a mistake (hinge threshold 0).
    # float64 data only: on float32 data sklearn keeps float32 weights, we keep float64;
    # sklearn refuses int64 indices, so it gets the int32 copy of the same matrix.
    rng = np.random.default_rng(0)
    X0 = rng.standard_normal((400, 12))
    X0[rng.random(X0.shape) < 0.3] = 0.0
    y = rng.integers(0, 3, 400)
    X = as_format(X0, fmt)
    ours = Perceptron(fit_intercept=fit_intercept).partial_fit(X, y, classes=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = SkPerceptron(eta0=1, penalty=None, shuffle=False, tol=None, max_iter=1,
                           fit_intercept=fit_intercept).fit(as_format(X0, fmt[:7] + "-i32")
                                                            if sp.issparse(X) else X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@settings(max_examples=60, deadline=None)
@given(separable_through_origin())
def test_novikoff_bound_holds(sample):
    bound = (sample.radius / sample.gamma) ** 2  # Novikoff: mistakes <= (R / gamma)^2
    clf = Perceptron(fit_intercept=False, max_iter=int(bound) + 2).fit(sample.X, sample.y)
    assert clf.converged_
    assert clf.n_mistakes_ <= bound
    assert np.all(sample.y * (sample.X @ clf.coef_[0]) > 0)


@settings(max_examples=25, deadline=None)
@given(separable_through_origin(), st.integers(0, 1000))
def test_novikoff_bound_holds_for_any_order(sample, seed):
    bound = (sample.radius / sample.gamma) ** 2
    clf = Perceptron(fit_intercept=False, shuffle=True, random_state=seed,
                     max_iter=int(bound) + 2).fit(sample.X, sample.y)
    assert clf.converged_ and clf.n_mistakes_ <= bound


@settings(max_examples=30, deadline=None)
@given(labelled_data(integer_valued=True))
def test_partial_fit_chunks_equal_one_pass(data):
    X, y = data
    classes = np.unique(y)
    whole = Perceptron().partial_fit(X, y, classes=classes)
    parts = Perceptron()
    for chunk in np.array_split(np.arange(len(y)), 3):
        if chunk.size == 0:
            continue
        parts.partial_fit(X[chunk], y[chunk], classes=classes)
    np.testing.assert_array_equal(parts.coef_, whole.coef_)
    assert parts.n_mistakes_ == whole.n_mistakes_ and parts.t_ == whole.t_ == len(y)


@pytest.mark.parametrize("fmt", ["dense-f64", "dense-f32", "csr-f64-i32", "csr-f32-i64"])
def test_compiled_game_equals_one_example_loop(fmt):
    X0, y = make_noisy(60, 5, seed=9)
    X = as_format(X0, fmt)
    slow_scores, slow_preds = play_one_by_one(Perceptron(), X, y, [0, 1])
    fast = Perceptron()
    fast_scores = compiled_game(fast, X, pm(y, 1), classes=[0, 1])
    np.testing.assert_array_equal(fast_scores, slow_scores)
    np.testing.assert_array_equal(np.where(fast_scores >= 0, 1, 0), slow_preds)
    slow = Perceptron().partial_fit(X, y, classes=[0, 1])
    np.testing.assert_array_equal(fast.coef_, slow.coef_)
    assert fast.n_mistakes_ == slow.n_mistakes_ == np.sum(pm(y, 1) * fast_scores <= 0)


@stops_at_max_iter
@pytest.mark.parametrize("fmt", ["dense-f32", "dense-f64", "csr-f32-i64", "csr-f64-i32"])
def test_input_reaches_the_compiled_pass_without_a_converting_copy(fmt, monkeypatch):
    import halfspaces.linear.perceptron as module

    seen = []
    epoch = module._perceptron_epoch
    monkeypatch.setattr(module, "_perceptron_epoch", lambda *a: seen.append(a[0]) or epoch(*a))
    X0, y = make_noisy(50, 4, seed=1)
    X = as_format(X0, fmt)
    Perceptron(max_iter=3).fit(X, y)
    assert seen
    for rows in seen:
        if sp.issparse(X):
            assert np.shares_memory(rows.data, X.data) and rows.data.dtype == X.data.dtype
            assert np.shares_memory(rows.indices, X.indices)
            assert rows.indices.dtype == X.indices.dtype
        else:
            assert np.shares_memory(rows, X) and rows.dtype == X.dtype


# -- errors -------------------------------------------------------------------------------
def test_partial_fit_needs_classes_first():
    with pytest.raises(ValueError, match=r"Perceptron.partial_fit: 'classes' is required"):
        Perceptron().partial_fit(np.eye(2), [0, 1])


@pytest.mark.parametrize("params, match", [
    ({"max_iter": 0}, r"Perceptron: 'max_iter' must be an int >= 1 \(number of epochs\); got 0"),
    ({"max_iter": 2.5}, r"'max_iter' must be an int >= 1 .*got 2.5"),
    ({"fit_intercept": "yes"}, r"Perceptron: 'fit_intercept' must be a bool; got 'yes'"),
    ({"shuffle": 1}, r"Perceptron: 'shuffle' must be a bool; got 1"),
])
def test_bad_parameters_are_reported(params, match):
    with pytest.raises(ValueError, match=match):
        Perceptron(**params).fit(np.eye(2), [0, 1])


def test_bad_data_is_reported():
    with pytest.raises(ValueError, match=r"X has 3 rows but y has 2 labels"):
        Perceptron().fit(np.eye(3), [0, 1])
    with pytest.raises(ValueError, match=r"needs samples of at least 2 classes"):
        Perceptron().fit(np.eye(3), [1, 1, 1])
    clf = Perceptron().partial_fit(np.eye(2), [0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=r"y contains labels \[2\] that are not in classes"):
        clf.partial_fit(np.eye(2), [0, 2])


# -- the benchmark runs (no timing is asserted in tests) -------------------------------------
@pytest.mark.jit_only  # a benchmark's runs, interpreted, would time nothing of use
def test_benchmark_quick_mode_runs():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_perceptron.py"),
                             "--quick"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ratio" in result.stdout


# -- numerical trouble and non-convergence ------------------------------------------------
# Row 0 is a tie, hence a mistake: w = (1e308, 1e308), b = 1. Row 1's score is then
# -1e308 * 1e308 + 1e308 * 1e308 + 1 = -inf + inf = nan, and nan <= 0 is false: before the
# check the pass counted no mistake there and fit reported convergence.
OVERFLOW_X = np.array([[1e308, 1e308], [-1e308, 1e308]] * 50)
OVERFLOW_Y = np.array([1, -1] * 50)


def score_not_finite(row):
    return not_finite("Perceptron", "the score", row)


def test_the_overflow_example_is_nan_in_float64():
    x0, x1 = OVERFLOW_X[0], OVERFLOW_X[1]
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(x1[0] * x0[0] + x1[1] * x0[1] + 1.0)


@overflows
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f64-i32"])
def test_a_non_finite_score_stops_fit_partial_fit_and_the_game_at_its_row(fmt):
    from halfspaces.exceptions import NumericalError
    from halfspaces.online import play

    X = as_format(OVERFLOW_X, fmt)
    with pytest.raises(NumericalError, match=score_not_finite(1)) as info:
        Perceptron(shuffle=False).fit(X, OVERFLOW_Y)
    assert info.value.row == 1
    with pytest.raises(NumericalError, match=score_not_finite(1)):
        Perceptron().partial_fit(X, OVERFLOW_Y, classes=[-1, 1])
    with pytest.raises(NumericalError, match=score_not_finite(1)):
        play(Perceptron(), X, OVERFLOW_Y)
    # shuffled, the pass meets the overflow at the second row it visits, whichever it is
    order = np.random.RandomState(3).permutation(len(OVERFLOW_Y))
    with pytest.raises(NumericalError, match=score_not_finite(order[1])):
        Perceptron(shuffle=True, random_state=3).fit(X, OVERFLOW_Y)


@overflows
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f64-i64"])
def test_decision_function_names_the_row_whose_score_overflows(fmt):
    from halfspaces.exceptions import NumericalError

    clf = Perceptron().fit(np.array([[2.0, 2.0], [-2.0, -2.0]]), [1, -1])
    X = as_format(np.array([[1.0, 1.0], [1e308, 1e308], [1.0, 0.0]]), fmt)
    with np.errstate(over="ignore"):
        assert not np.isfinite(dense64(X) @ clf.coef_[0]).all()  # 2e308 + 2e308 = inf
    with pytest.raises(NumericalError, match=score_not_finite(1)):
        clf.decision_function(X)
    with pytest.raises(NumericalError, match=score_not_finite(1)):
        clf.predict(X)


def test_fit_warns_when_max_iter_ends_without_a_clean_pass():
    X, y = make_noisy(60, 4, seed=2)  # noisy labels: no pass is free of mistakes
    _, _, per_epoch = reference_fit(X, pm(y, 1), True, 7)
    assert len(per_epoch) == 7
    clf = fit_warns_without_a_clean_pass(Perceptron(shuffle=False), X, y, per_epoch)
    assert clf.mistakes_per_epoch_ == per_epoch
    # a small margin that 2 passes do not reach: separable, and still a warning
    sample = make_planted(40, 3, 1e-3, seed=0)
    _, _, per_epoch = reference_fit(sample.X, sample.y, False, 2)
    fit_warns_without_a_clean_pass(Perceptron(fit_intercept=False, shuffle=False), sample.X,
                                   sample.y, per_epoch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converging: no warning
        clf = Perceptron(fit_intercept=False, max_iter=10_000).fit(sample.X, sample.y)
    assert clf.converged_
