"""Contracts every perceptron-family estimator keeps, checked the same way for each.

The per-algorithm files hold the oracle tests (a NumPy reference of each update rule);
this file holds what the shared online shell promises: the compiled online game and the
round-by-round protocol give identical transcripts, ``warm_start`` continues the epochs
exactly, and a saved model reloads and keeps learning exactly as the original.
"""

from __future__ import annotations

import numpy as np
import pytest
from strategies import OneByOne, as_format

import halfspaces
from halfspaces import AveragedPerceptron, Perceptron, VotedPerceptron
from halfspaces.online import play

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


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_warm_start_continues_the_epochs(cls):
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((80, 4)), rng.integers(0, 2, 80)  # noise: never converges
    once = cls(max_iter=5).fit(X, y)
    twice = cls(max_iter=2, warm_start=True).fit(X, y)
    twice.set_params(max_iter=3).fit(X, y)
    assert twice.mistakes_per_epoch_ == once.mistakes_per_epoch_
    np.testing.assert_array_equal(twice.decision_function(X), once.decision_function(X))


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
