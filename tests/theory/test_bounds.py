"""Mistake bounds: formulas, exact integer Halving bound, and the theorems on real runs."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces import Perceptron
from halfspaces.datasets import make_separable
from halfspaces.online import play
from halfspaces.theory import (
    halving_mistake_bound,
    margin_one_mistake_bound,
    online_to_batch_bound,
    perceptron_mistake_bound,
    weighted_majority_mistake_bound,
)


def test_formulas():
    assert perceptron_mistake_bound(2.0, 0.25) == 64.0
    assert perceptron_mistake_bound(0.0, 0.5) == 0.0
    assert margin_one_mistake_bound(1.5, 2.0) == 9.0
    # margin-one form = Novikoff with gamma = 1/||w*||
    assert margin_one_mistake_bound(3.0, 4.0) == pytest.approx(perceptron_mistake_bound(3.0,
                                                                                      0.25))
    for n, m, beta in [(10, 3, 0.5), (1, 0, 0.1), (1000, 17.5, 0.9)]:
        ref = (math.log(n) + m * math.log(1 / beta)) / math.log(2 / (1 + beta))
        assert weighted_majority_mistake_bound(n, m, beta) == pytest.approx(ref, rel=1e-15)
    assert online_to_batch_bound(1.0, 0.1, 30) == pytest.approx(70.0)


def exact_floor_log2(n):
    m = 0
    while 2 ** (m + 1) <= n:
        m += 1
    return m


@given(st.integers(1, 2**80))
def test_halving_bound_is_exact_floor_log2(n):
    assert halving_mistake_bound(n) == exact_floor_log2(n)


def test_halving_bound_where_float_log2_rounds_up():
    n = 2**53 - 1  # math.log2 rounds this to 53.0
    assert math.floor(math.log2(n)) == 53
    assert halving_mistake_bound(n) == 52
    assert isinstance(halving_mistake_bound(np.int64(8)), int)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), d=st.integers(1, 10), margin=st.floats(0.02, 0.5))
def test_novikoff_and_online_to_batch_on_perceptron_runs(seed, d, margin):
    X, y, u = make_separable(120, d, margin=margin, random_state=seed, return_separator=True)
    R = np.sqrt((X**2).sum(axis=1)).max()
    gamma = (y * (X @ u)).min()
    clf = Perceptron(fit_intercept=False, max_iter=10_000).fit(X, y)
    assert clf.converged_
    assert clf.n_mistakes_ <= perceptron_mistake_bound(R, gamma)
    assert clf.n_mistakes_ <= margin_one_mistake_bound(R, np.linalg.norm(u / gamma))
    learner = Perceptron(fit_intercept=False)
    train = play(learner, X[:80], y[:80])
    test = play(learner, X[80:], y[80:])
    assert test.n_mistakes <= online_to_batch_bound(R, gamma, train.n_mistakes)


def test_errors():
    with pytest.raises(ValueError, match="'margin' must be a float > 0"):
        perceptron_mistake_bound(1.0, 0.0)
    with pytest.raises(ValueError, match="'radius' must be a float >= 0"):
        perceptron_mistake_bound(-1.0, 0.5)
    with pytest.raises(ValueError, match="'margin' must be finite"):
        perceptron_mistake_bound(1.0, np.inf)
    with pytest.raises(ValueError, match="'w_norm' must be a float > 0"):
        margin_one_mistake_bound(1.0, 0)
    with pytest.raises(ValueError, match="'n_hypotheses' must be an int >= 1"):
        halving_mistake_bound(0)
    with pytest.raises(ValueError, match="'n_hypotheses' must be an int"):
        halving_mistake_bound(4.0)
    with pytest.raises(ValueError, match="'beta' must be a float > 0 and < 1"):
        weighted_majority_mistake_bound(4, 1, 1.0)
    with pytest.raises(ValueError, match="'best_mistakes' must be a float >= 0"):
        weighted_majority_mistake_bound(4, -1, 0.5)
    with pytest.raises(ValueError, match=r"'train_mistakes' must be <= \(R/gamma\)\^2 = 4"):
        online_to_batch_bound(1.0, 0.5, 5)
    with pytest.raises(ValueError, match="'train_mistakes' must be an int >= 0"):
        online_to_batch_bound(1.0, 0.5, -1)
