"""Contracts every estimator keeps, checked the same way for each.

First scikit-learn's estimator checks (``check_estimator``) on every public estimator with
its default parameters; the expert learners need a hypothesis class, and get the 20
coordinate stumps of :data:`realizable.STUMPS` (their only required argument). Halving is
specified only on labels that its class realizes, so it runs the checks with the target
concept added to the class (see ``tests/realizable.py``); any check an estimator declares as
an expected failure (``_expected_failed_checks``) must fail, and for its declared reason.

Then what the shared online shell of the perceptron family promises: the compiled online
game and the round-by-round protocol give identical transcripts, ``warm_start`` continues
the epochs exactly, and a saved model reloads and keeps learning exactly as the original.
The per-algorithm files hold the oracle tests (a NumPy reference of each update rule).
"""

from __future__ import annotations

import numpy as np
import pytest
from realizable import (
    CONSTANTS,
    STUMPS,
    TAUGHT,
    TaughtHalving,
    caused_by,
    forget,
    labels_not_a_function_of_x,
    target,
)
from sklearn.utils.estimator_checks import parametrize_with_checks
from strategies import OneByOne, as_format, not_finite, overflows

import halfspaces
from halfspaces import (
    SVC,
    SVCCV,
    AveragedPerceptron,
    KernelPegasosSVC,
    KernelPerceptron,
    LogisticRegression,
    LPSeparator,
    NotRealizableError,
    NumericalError,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
)
from halfspaces.experts import WeightedMajorityClassifier
from halfspaces.online import play

DEFAULTS = [Perceptron(), AveragedPerceptron(), VotedPerceptron(), KernelPerceptron(),
            TaughtHalving(STUMPS + [target]), WeightedMajorityClassifier(STUMPS + CONSTANTS),
            PegasosSVC(), KernelPegasosSVC(), SVC(), LogisticRegression(), LPSeparator()]


@parametrize_with_checks(DEFAULTS)
@pytest.mark.filterwarnings("ignore::halfspaces.NotSeparableWarning")  # most check data
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # ditto
def test_sklearn_compatible(estimator, check):
    _run_check(estimator, check)


# SVCCV fits |Cs| x folds SVCs and refits one in each check: two values on three folds keep
# the checks to seconds, and they run compiled only (each fit's passes are SVC's, which the
# interpreted run checks above).
@parametrize_with_checks([SVCCV(Cs=(0.1, 1.0), cv=3)])
@pytest.mark.filterwarnings("ignore::halfspaces.NotSeparableWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.jit_only
def test_sklearn_compatible_svccv(estimator, check):
    _run_check(estimator, check)


def _run_check(estimator, check):
    forget()
    name = getattr(check, "func", check).__name__
    expected = getattr(estimator, "_expected_failed_checks", dict)()
    if name not in expected:
        check(estimator)
        return
    if name.startswith("check_sample_weight_equivalence"):  # weights are not copies there
        with pytest.raises(AssertionError, match="not equivalent to fitting with removed"):
            check(estimator)
        return
    if name == "check_class_weight_classifiers":  # PegasosSVC: n_iter=100 is 100 steps
        with pytest.raises(AssertionError):
            check(estimator)
        return
    # Declared by HalvingClassifier: it must fail, by NotRealizableError, on the
    # labels it was taught last, and those must be ones that no hypothesis realizes.
    with pytest.raises(Exception) as info:
        check(estimator)
    assert caused_by(info.value, NotRealizableError), expected[name]
    assert labels_not_a_function_of_x(*TAUGHT[-1]), expected[name]


# The state that must survive a save/load for partial_fit to continue identically.
STATE = {
    Perceptron: ("coef_", "intercept_"),
    AveragedPerceptron: ("coef_", "intercept_", "current_coef_", "weighted_coef_sum_"),
    VotedPerceptron: ("vote_counts_", "mistake_data_", "mistake_ptr_", "current_coef_"),
}
ESTIMATORS = list(STATE)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f32-i64"])
def test_online_play_gives_identical_transcripts_on_both_paths(cls, fmt):
    rng = np.random.default_rng(12)
    X = as_format(np.where(rng.random((40, 5)) < 0.3, 0.0, rng.standard_normal((40, 5))), fmt)
    y = rng.choice(["no", "yes"], 40)
    compiled = play(cls(), X, y)
    generic = play(OneByOne(cls(), np.array(["no", "yes"]), 5), X, y)
    np.testing.assert_array_equal(compiled.scores, generic.scores)
    np.testing.assert_array_equal(compiled.predictions, generic.predictions)
    np.testing.assert_array_equal(compiled.mistakes, generic.mistakes)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_warm_start_continues_the_epochs(cls):
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((80, 4)), rng.integers(0, 2, 80)  # noise: never converges
    once = cls(max_iter=5, shuffle=False).fit(X, y)
    twice = cls(max_iter=2, warm_start=True, shuffle=False).fit(X, y)
    twice.set_params(max_iter=3).fit(X, y)
    assert twice.mistakes_per_epoch_ == once.mistakes_per_epoch_
    np.testing.assert_array_equal(twice.decision_function(X), once.decision_function(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_save_load_round_trip_and_continue(cls, tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((90, 5)), rng.integers(0, 3, 90)
    est = cls(max_iter=2).fit(X, y)
    est.save(tmp_path / "model.npz")
    loaded = halfspaces.load(tmp_path / "model.npz")
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    est.partial_fit(X, y)
    loaded.partial_fit(X, y)
    for name in STATE[cls]:
        np.testing.assert_array_equal(getattr(loaded, name), getattr(est, name))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_learn_one_row_by_row_equals_one_partial_fit(cls):
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((60, 4)), rng.choice(["a", "b"], 60)
    by_rows = cls().partial_fit(X[:1], y[:1], classes=["a", "b"])
    for x_t, y_t in zip(X[1:], y[1:], strict=True):
        assert by_rows.predict_one(x_t) == by_rows.predict(x_t[None, :])[0]
        assert by_rows.score_one(x_t) == by_rows.decision_function(x_t[None, :])[0]
        by_rows.learn_one(x_t, y_t)
    batch = cls().partial_fit(X[:1], y[:1], classes=["a", "b"]).partial_fit(X[1:], y[1:])
    assert by_rows.n_mistakes_ == batch.n_mistakes_ and by_rows.t_ == batch.t_
    np.testing.assert_array_equal(by_rows.decision_function(X), batch.decision_function(X))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_learn_one_errors_are_the_full_paths(cls):
    est = cls().partial_fit(np.eye(3), ["a", "b", "a"], classes=["a", "b"])
    with pytest.raises(ValueError, match=r"labels \['c'\] that are not in classes"):
        est.learn_one(np.ones(3), "c")
    with pytest.raises(ValueError, match="3 features"):
        est.learn_one(np.ones(4), "a")
    with pytest.raises(ValueError, match="NaN"):
        est.score_one(np.array([1.0, np.nan, 0.0]))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_learn_one_on_csr_rows_equals_one_csr_partial_fit(cls):
    import scipy.sparse as sp

    rng = np.random.default_rng(4)
    X = sp.csr_matrix(np.where(rng.random((50, 6)) < 0.5, 0.0, rng.standard_normal((50, 6))))
    y = rng.choice([0, 1], 50)
    by_rows = cls().partial_fit(X[:1], y[:1], classes=[0, 1])
    for t in range(1, 50):
        assert by_rows.score_one(X[t]) == by_rows.decision_function(X[t])[0]
        by_rows.learn_one(X[t], y[t])
    batch = cls().partial_fit(X[:1], y[:1], classes=[0, 1]).partial_fit(X[1:], y[1:])
    assert by_rows.n_mistakes_ == batch.n_mistakes_
    np.testing.assert_array_equal(by_rows.decision_function(X), batch.decision_function(X))


@overflows
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("fmt", ["dense-f64", "csr-f64-i32"])
def test_a_non_finite_running_score_stops_fit_partial_fit_and_the_game_at_its_row(cls, fmt):
    # w = (1e308, 1e308) after the tie of row 0; row 1 scores -inf + inf = nan
    X = as_format(np.array([[1e308, 1e308], [-1e308, 1e308]] * 5), fmt)
    y = np.array([1, -1] * 5)
    for run in (lambda: cls(shuffle=False).fit(X, y),
                lambda: cls().partial_fit(X, y, classes=[-1, 1]),
                lambda: play(cls(), X, y)):
        with pytest.raises(NumericalError, match=not_finite(cls.__name__, "the score", 1)):
            run()
