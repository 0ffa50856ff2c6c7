"""Example weights in Weighted Majority: an expert's mistake on a row of weight ``s_t`` counts
``s_t`` mistakes (``w_i <- beta^(s_t) w_i``); a row of weight 0 is no round.

Oracles: a NumPy reference written from the weighted rule, the same rows repeated ``k``
times (an integer weight ``k`` is ``k`` copies, exactly, for the experts' weights), and the
data with the weight-0 rows removed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import halfspaces
from halfspaces.experts import CoordinateStump, WeightedMajorityClassifier


def _data(n=50, N=9, seed=0, noise=0.25):
    rng = np.random.default_rng(seed)
    P = np.where(rng.random((n, N)) < 0.5, -1.0, 1.0)
    y = P[:, 0] * np.where(rng.random(n) < noise, -1.0, 1.0)
    s = rng.integers(0, 4, size=n).astype(float)
    s[:4] = [0.0, 2.5, 0.5, 1.25]
    return P, y, s


def reference(P, y, s, beta):
    """(weighted mistakes m_i, learner mistakes, expected mistakes, rounds) of Weighted
    Majority over the rows of positive weight: vote with w_i = beta^(m_i), then m_i += s_t
    for each expert that errs."""
    m = np.zeros(P.shape[1])
    mistakes, expected, rounds = 0, 0.0, 0
    for t in np.flatnonzero(s > 0):
        w = beta ** (m - m.min())
        positive, total = w[P[t] > 0].sum(), w.sum()
        mistakes += int(y[t] * (2 * positive - total) / total <= 0)
        expected += (total - positive) / total if y[t] > 0 else positive / total
        m += s[t] * (P[t] != y[t])
        rounds += 1
    return m, mistakes, expected, rounds


@pytest.mark.parametrize("beta", [0.5, 0.37, 0.9])
def test_a_mistake_counts_its_weight(beta):
    P, y, s = _data()
    clf = WeightedMajorityClassifier("precomputed", beta=beta).fit(P, y, sample_weight=s)
    m, mistakes, expected, rounds = reference(P, y, s, beta)
    np.testing.assert_array_equal(clf.expert_mistakes_, m)  # sums of quarters: exact
    assert clf.expert_mistakes_.dtype == np.float64  # fractional weights: real counts
    assert clf.n_mistakes_ == mistakes and clf.t_ == rounds
    assert clf.expected_mistakes_ == pytest.approx(expected, rel=1e-12)
    w = beta**m
    np.testing.assert_allclose(clf.weights_, w / w.sum(), rtol=1e-12)
    np.testing.assert_allclose(clf.log_weights_, m * math.log(beta), rtol=1e-14)
    np.testing.assert_allclose(clf.decision_function(P), P @ (w / w.sum()), atol=1e-12)
    one = WeightedMajorityClassifier("precomputed", beta=beta)
    one.partial_fit(P, y, classes=[-1, 1], sample_weight=s)
    np.testing.assert_array_equal(one.expert_mistakes_, m)


@pytest.mark.parametrize("beta", [0.5, 0.37, 0.0])
def test_an_integer_weight_k_is_the_row_repeated_k_times(beta):
    P, y, s = _data(seed=1)
    s = np.rint(s)  # 0..3
    weighted = WeightedMajorityClassifier("precomputed", beta=beta).fit(P, y, sample_weight=s)
    repeated = WeightedMajorityClassifier("precomputed", beta=beta).fit(
        np.repeat(P, s.astype(int), axis=0), np.repeat(y, s.astype(int)))
    assert weighted.expert_mistakes_.dtype == np.int64  # integer weights: integer counts
    np.testing.assert_array_equal(weighted.expert_mistakes_, repeated.expert_mistakes_)
    np.testing.assert_array_equal(weighted.weights_, repeated.weights_)
    np.testing.assert_array_equal(weighted.log_weights_, repeated.log_weights_)
    np.testing.assert_array_equal(weighted.decision_function(P), repeated.decision_function(P))


def test_weight_zero_is_the_row_left_out_and_unit_weights_change_nothing():
    rng = np.random.default_rng(2)
    H = [CoordinateStump(j, 0.0, sign) for j in range(3) for sign in (1, -1)]
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 1] + 0.5 * rng.normal(size=40) >= 0, "b", "a")
    s = rng.integers(0, 3, size=40).astype(float)
    s[5] = 0.75
    kept = s > 0
    weighted = WeightedMajorityClassifier(H, beta=0.3).fit(X, y, sample_weight=s)
    left_out = WeightedMajorityClassifier(H, beta=0.3).fit(X[kept], y[kept],
                                                           sample_weight=s[kept])
    for name in ("expert_mistakes_", "weights_", "log_weights_"):
        np.testing.assert_array_equal(getattr(weighted, name), getattr(left_out, name))
    assert (weighted.n_mistakes_, weighted.t_, weighted.expected_mistakes_) == (
        left_out.n_mistakes_, left_out.t_, left_out.expected_mistakes_)
    plain = WeightedMajorityClassifier(H, beta=0.3).fit(X, y)
    ones = WeightedMajorityClassifier(H, beta=0.3).fit(X, y, sample_weight=np.ones(40))
    for name in ("expert_mistakes_", "weights_", "log_weights_"):
        np.testing.assert_array_equal(getattr(ones, name), getattr(plain, name))
        assert getattr(ones, name).dtype == getattr(plain, name).dtype
    assert ones.expected_mistakes_ == plain.expected_mistakes_
    np.testing.assert_array_equal(ones.decision_function(X), plain.decision_function(X))


def test_fractional_counts_after_integer_ones_continue_exactly():
    P, y, s = _data(seed=3)
    s = np.rint(s)
    s[-10:] = 0.5
    whole = WeightedMajorityClassifier("precomputed", beta=0.5).fit(P, y, sample_weight=s)
    parts = WeightedMajorityClassifier("precomputed", beta=0.5).fit(
        P[:-10], y[:-10], sample_weight=s[:-10])
    assert parts.expert_mistakes_.dtype == np.int64
    parts.partial_fit(P[-10:], y[-10:], sample_weight=s[-10:])
    assert parts.expert_mistakes_.dtype == np.float64
    np.testing.assert_array_equal(parts.expert_mistakes_, whole.expert_mistakes_)
    np.testing.assert_array_equal(parts.weights_, whole.weights_)


def test_the_vote_does_not_underflow_with_real_counts():
    # Expert 0 is right on every round, the others on none: their weighted mistakes grow to
    # 4e5, so beta^m underflows, and beyond the table of powers (2^16) the relative weight
    # is the power of a real exponent.
    n, N = 4000, 5
    y = np.where(np.arange(n) % 3 == 0, 1.0, -1.0)
    P = np.column_stack([y] + [-y] * (N - 1))
    s = np.full(n, 100.25)
    for beta in (0.5, 0.9999999):
        clf = WeightedMajorityClassifier("precomputed", beta=beta).fit(P, y, sample_weight=s)
        assert clf.expert_mistakes_.tolist() == [0.0] + [n * 100.25] * (N - 1)
        assert np.isfinite(clf.weights_).all() and np.argmax(clf.weights_) == 0
        rel = beta ** (n * 100.25)
        np.testing.assert_allclose(clf.weights_[1:], rel / (1 + (N - 1) * rel), rtol=1e-9)
        np.testing.assert_allclose(clf.decision_function(P[:6]), y[:6] * (1 - (N - 1) * rel)
                                   / (1 + (N - 1) * rel), rtol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_the_bounds_hold_for_weights_of_at_least_one(seed):
    P, y, _ = _data(n=120, N=16, seed=seed, noise=0.3)
    s = 1.0 + np.random.default_rng(seed).random(120) * 3
    for randomized in (False, True):
        clf = WeightedMajorityClassifier("precomputed", beta=0.6, randomized=randomized,
                                         random_state=seed).fit(P, y, sample_weight=s)
        m_star = (s[:, None] * (P != y[:, None])).sum(axis=0).min()
        numerator = math.log(16) + m_star * math.log(1 / 0.6)
        if randomized:
            assert clf.expected_mistakes_ <= numerator / (1 - 0.6) + 1e-9
        else:
            assert clf.n_mistakes_ <= numerator / math.log(2 / 1.6) + 1e-9
        assert clf.mistake_bound() == pytest.approx(
            numerator / ((1 - 0.6) if randomized else math.log(2 / 1.6)))


def test_real_counts_round_trip_through_a_model_file(tmp_path):
    P, y, s = _data(seed=4)
    clf = WeightedMajorityClassifier("precomputed", beta=0.4, randomized=True,
                                     random_state=0).fit(P[:30], y[:30], sample_weight=s[:30])
    clf.save(tmp_path / "wm")
    loaded = halfspaces.load(tmp_path / "wm")
    assert loaded.expert_mistakes_.dtype == np.float64
    np.testing.assert_array_equal(loaded.expert_mistakes_, clf.expert_mistakes_)
    for est in (clf, loaded):
        est.partial_fit(P[30:], y[30:], sample_weight=s[30:])
    np.testing.assert_array_equal(loaded.expert_mistakes_, clf.expert_mistakes_)
    assert loaded.expected_mistakes_ == clf.expected_mistakes_
    np.testing.assert_array_equal(loaded.decision_function(P), clf.decision_function(P))


@pytest.mark.parametrize("weights, match", [
    ([1, 1, -1, 1, 1, 1], r"'sample_weight' must be finite and >= 0; got -1.0 at example 2"),
    ([1, np.nan, 1, 1, 1, 1], r"'sample_weight' must be finite and >= 0; got nan at example 1"),
    ([1, 1, 1], r"'sample_weight' must have one entry per example of X \(6\); got shape"),
    ([0] * 6, r"every example weight \(sample_weight\) is zero"),
])
def test_bad_weights_are_refused(weights, match):
    P, y, _ = _data(n=6)
    with pytest.raises(ValueError, match=r"WeightedMajorityClassifier.fit: " + match):
        WeightedMajorityClassifier("precomputed").fit(P, y, sample_weight=weights)


@pytest.mark.filterwarnings("ignore:overflow encountered in reduce")  # _weights' sum check
def test_weights_whose_counts_would_overflow_are_refused():
    P, y, _ = _data(n=6)
    # in one call the weights' sum overflows first (every weighted learner refuses that)
    with pytest.raises(ValueError, match=r"WeightedMajorityClassifier.fit: the example weights"
                                         r" \(sample_weight\) sum past the largest float64"):
        WeightedMajorityClassifier("precomputed").fit(P, y, sample_weight=np.full(6, 1e308))
    # across partial_fit calls, each block's sum is finite and the counts overflow
    wm = WeightedMajorityClassifier("precomputed")
    wm.partial_fit(P[:3], y[:3], classes=[-1.0, 1.0], sample_weight=np.full(3, 5e307))
    with pytest.raises(ValueError, match=r"WeightedMajorityClassifier: the weighted mistake"
                                         r" counts would overflow float64 \(sample_weight sums"
                                         r" to 1.5e\+308\); scale sample_weight down"):
        wm.partial_fit(P[3:], y[3:], sample_weight=np.full(3, 5e307))


# -- class_weight: a round of class c weighs class_weight[c] times its sample_weight ------------

def _wm(**params):
    return WeightedMajorityClassifier("precomputed", beta=0.6, randomized=True,
                                      random_state=0, **params)


def _same_experts(a, b):
    np.testing.assert_array_equal(a.expert_mistakes_, b.expert_mistakes_)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert (a.n_mistakes_, a.t_, a.expected_mistakes_) == (b.n_mistakes_, b.t_,
                                                           b.expected_mistakes_)


@pytest.mark.parametrize("class_weight", [{1.0: 3.0}, {-1.0: 0.5, 1.0: 0.25}])
def test_a_class_weight_is_that_weight_on_the_class_rows(class_weight):
    P, y, s = _data(seed=5)
    factors = np.array([class_weight.get(label, 1.0) for label in y])
    for sample_weight in (None, s):
        by_class = _wm(class_weight=class_weight).fit(P, y, sample_weight=sample_weight)
        by_row = _wm().fit(P, y, sample_weight=factors if sample_weight is None
                           else sample_weight * factors)
        _same_experts(by_class, by_row)
    # partial_fit: a dict applies to each block
    by_class, by_row = _wm(class_weight=class_weight), _wm()
    for block in (slice(0, 20), slice(20, None)):
        by_class.partial_fit(P[block], y[block], classes=[-1.0, 1.0], sample_weight=s[block])
        by_row.partial_fit(P[block], y[block], classes=[-1.0, 1.0],
                           sample_weight=s[block] * factors[block])
    _same_experts(by_class, by_row)


def test_balanced_is_scikit_learns_compute_class_weight_and_refused_by_partial_fit():
    from sklearn.utils.class_weight import compute_class_weight

    P, y, _ = _data(seed=6, n=40)
    y[:25] = 1.0  # unbalanced
    classes = np.array([-1.0, 1.0])
    weights = compute_class_weight("balanced", classes=classes, y=y)
    _same_experts(_wm(class_weight="balanced").fit(P, y),
                  _wm().fit(P, y, sample_weight=np.where(y > 0, weights[1], weights[0])))
    with pytest.raises(ValueError, match=r"^WeightedMajorityClassifier\.partial_fit:"
                                         r" 'class_weight' must be None or a dict .* got"
                                         r" 'balanced'\. Compute them on a sample of the"
                                         r" labels"):
        _wm(class_weight="balanced").partial_fit(P, y, classes=classes)
    with pytest.raises(ValueError, match=r"^WeightedMajorityClassifier\.fit: class_weight"
                                         r" names the label 0, which is not among the"
                                         r" classes \[-1\.0, 1\.0\]"):
        _wm(class_weight={0: 1.0}).fit(P, y)
