"""Mistake bounds: formulas, exact integer Halving bound, and the theorems on real runs."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.svm import SVC
from strategies import separable_through_origin, separable_with_offset

from halfspaces import AveragedPerceptron, Perceptron, VotedPerceptron
from halfspaces.datasets import make_separable
from halfspaces.online import play
from halfspaces.theory import (
    PerceptronBound,
    halving_mistake_bound,
    margin_one_mistake_bound,
    online_to_batch_bound,
    perceptron_bound,
    perceptron_mistake_bound,
    weighted_majority_mistake_bound,
)

# Issue 8: (label, x1, x2). A perceptron with an offset made 3,061 mistakes here, while
# (R/gamma)^2 with the SVM's margin of (w, b) in R^2 is 727.
ISSUE_8 = np.array([[1, -4.951, -2.566], [1, -4.848, -3.076], [1, -4.737, -2.278],
                    [1, -4.483, -3.149], [-1, -5.442, -3.114], [1, -4.876, -3.852],
                    [1, -4.989, -3.384]])
PERCEPTRONS = (Perceptron, AveragedPerceptron, VotedPerceptron)


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


def min_norm_separator(Z, y):
    """The hard-margin QP through the origin, exactly, for a few points: min ||v|| s.t.
    y_i <v, z_i> >= 1. The optimum is the min-norm solution of y_i <v, z_i> = 1 on its
    active set (at most dim rows, Caratheodory), so try every such set."""
    best = None
    for k in range(1, Z.shape[1] + 1):
        for S in map(list, itertools.combinations(range(len(y)), k)):
            v = np.linalg.lstsq(y[S, None] * Z[S], np.ones(k), rcond=None)[0]
            if (np.allclose(y[S] * (Z[S] @ v), 1.0) and np.all(y * (Z @ v) >= 1.0 - 1e-12)
                    and (best is None or v @ v < best @ best)):
                best = v
    return best


def test_perceptron_bound_with_offset_is_novikoff_on_the_points_x_1():
    y, X = ISSUE_8[:, 0], ISSUE_8[:, 1:]
    Z = np.hstack([X, np.ones((len(y), 1))])
    res = perceptron_bound(X, y, fit_intercept=True)
    assert isinstance(res, PerceptronBound) and res.augmented and res.separable
    R_aug = np.sqrt((Z ** 2).sum(axis=1).max())
    v = min_norm_separator(Z, y)
    gamma_aug = 1.0 / np.linalg.norm(v)
    assert res.radius == pytest.approx(R_aug, rel=1e-14)
    assert res.margin == pytest.approx(gamma_aug, rel=1e-5)
    assert res.bound == pytest.approx((R_aug / gamma_aug) ** 2, rel=1e-4)
    assert res.margin_one_bound == pytest.approx(res.bound, rel=1e-12)
    assert np.min(y * (Z @ res.separator)) == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(res.separator, v, rtol=1e-4)
    for cls in PERCEPTRONS:
        clf = cls(max_iter=int(res.bound) + 2).fit(X, y)
        assert clf.converged_ and clf.n_mistakes_ <= res.bound
    # The SVM's margin of (w, b) with ||w|| = 1 in R^2, with R = max ||x||, is no bound for
    # this perceptron; gamma' lies between gamma / sqrt(1 + b^2) and gamma (the docstring).
    svm = SVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    gamma = 1.0 / np.linalg.norm(svm.coef_)
    b = svm.intercept_[0] * gamma
    assert clf.n_mistakes_ > (np.sqrt((X ** 2).sum(axis=1).max()) / gamma) ** 2
    assert gamma / np.sqrt(1 + b ** 2) * (1 - 1e-6) <= res.margin <= gamma * (1 + 1e-6)


def test_perceptron_bound_through_the_origin_and_not_separable():
    X, y = make_separable(8, 2, margin=0.2, random_state=3)
    res = perceptron_bound(X, y, fit_intercept=False)
    assert not res.augmented and res.separable
    v = min_norm_separator(X, y)
    assert res.radius == pytest.approx(np.sqrt((X ** 2).sum(axis=1).max()), rel=1e-14)
    assert res.margin == pytest.approx(1.0 / np.linalg.norm(v), rel=1e-5)
    assert res.bound == pytest.approx((X ** 2).sum(axis=1).max() * (v @ v), rel=1e-4)
    # Through the origin the issue's points are not separable: the certificate's rows
    # carry alpha >= 0, not all zero, with sum_i alpha_i y_i x_i = 0 (independent LP).
    y, X = ISSUE_8[:, 0], ISSUE_8[:, 1:]
    res = perceptron_bound(X, y, fit_intercept=False)
    assert not res.separable and res.bound is None and res.margin is None
    rows = res.certificate_rows
    A = (y[rows, None] * X[rows]).T
    lp = linprog(np.zeros(rows.size), A_eq=np.vstack([A, np.ones(rows.size)]),
                 b_eq=[0.0, 0.0, 1.0], bounds=[(0, None)] * rows.size)
    assert lp.status == 0
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    res = perceptron_bound(X, [1, 1, -1, -1], fit_intercept=True)
    assert not res.separable and res.certificate_rows.tolist() == [0, 1, 2, 3]
    assert res.radius == pytest.approx(np.sqrt(3.0))
    with pytest.raises(ValueError, match="'fit_intercept' must be a bool"):
        perceptron_bound(X, [1, 1, -1, -1], fit_intercept="yes")


def _perceptron_mistakes(cls, X, y, fit_intercept, bound):
    """Mistakes of the underlying perceptron: fit cycling to convergence, then one game in
    file order. Enough epochs to converge: each one before the last makes a mistake."""
    clf = cls(fit_intercept=fit_intercept, max_iter=int(bound) + 2).fit(X, y)
    assert clf.converged_
    learner = cls(fit_intercept=fit_intercept)
    play(learner, X, y)
    return clf.n_mistakes_, learner.n_mistakes_


@settings(max_examples=40, deadline=None)
@given(fit_intercept=st.booleans(), data=st.data())
def test_no_perceptron_exceeds_its_bound(fit_intercept, data):
    if fit_intercept:
        X, y = data.draw(separable_with_offset())
    else:
        sample = data.draw(separable_through_origin(max_samples=30, max_features=4))
        X, y = sample.X, sample.y
    res = perceptron_bound(X, y, fit_intercept=fit_intercept)
    assert res.separable and res.augmented == fit_intercept
    for cls in PERCEPTRONS:
        fitted, played = _perceptron_mistakes(cls, X, y, fit_intercept, res.bound)
        assert fitted <= res.bound and played <= res.bound
