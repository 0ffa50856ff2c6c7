"""Example weights in LPSeparator: the weighted least-violation LP, and weight 0 as the row
removed (issue 12).

Oracles: the relaxation ``min sum_i s_i xi_i  s.t.  y_i(<w,x_i>+b) >= 1 - xi_i, xi_i >= 0``
written here from the formula and solved by ``scipy.optimize.linprog`` (its optimal value:
LP vertices are not unique, so the objective values are compared, not ``coef_``); the same
data with each row repeated ``k`` times; the data with the rows of weight 0 removed; a
certificate checker from the definition; scikit-learn's sample-weight equivalence checks.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
)

import halfspaces
from halfspaces import LPSeparator, NotSeparableError
from halfspaces.exceptions import NotSeparableWarning


def _noisy(n=30, d=3, seed=0, n_classes=2):
    """Labels of a halfspace (OvR: of the nearest of ``n_classes`` directions), 20% flipped:
    not separable."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3)
    if n_classes == 2:
        y = np.where(X @ rng.normal(size=d) + 0.3 > 0, 1, -1)
        flip = rng.random(n) < 0.2
        y[flip] = -y[flip]
    else:
        y = np.argmax(X @ rng.normal(size=(d, n_classes)), axis=1)
        flip = rng.random(n) < 0.2
        y[flip] = rng.integers(0, n_classes, flip.sum())
    return X, y


def relaxation_value(X, y_pm, s, fit_intercept):
    """min sum_i s_i xi_i over (w, b, xi), w and b free, xi >= 0, as linprog solves it."""
    n, d = X.shape
    nb = int(fit_intercept)
    # y_i(<w,x_i> + b) + xi_i >= 1   <=>   -y_i x_i.w - y_i b - xi_i <= -1
    A = np.hstack([-y_pm[:, None] * X, -y_pm[:, None] * np.ones((n, nb)), -np.eye(n)])
    c = np.concatenate([np.zeros(d + nb), s])
    bounds = [(None, None)] * (d + nb) + [(0, None)] * n
    res = linprog(c, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    assert res.status == 0
    return res.fun


def weighted_hinge(scores, y_pm, s):
    """Our objective, from the fitted scores: sum_i s_i max(0, 1 - y_i f(x_i))."""
    return float(np.sum(s * np.maximum(0.0, 1.0 - y_pm * scores)))


def fit_quietly(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)
        return est.fit(X, y, **kw)


def assert_certificate(X, y_pm, alpha, fit_intercept):
    """alpha >= 0, sum > 0, sum_i alpha_i y_i x_i = 0 (and sum_i alpha_i y_i = 0)."""
    assert np.all(alpha >= 0.0) and alpha.sum() > 0.0
    scale = max(np.abs(X).max(), 1.0) * alpha.sum()
    assert np.abs((alpha * y_pm) @ X).max() <= 1e-8 * scale
    if fit_intercept:
        assert abs((alpha * y_pm).sum()) <= 1e-8 * scale


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_relaxation_minimises_the_weighted_hinge_sum(fit_intercept, sparse):
    X, y = _noisy()
    s = np.random.default_rng(1).uniform(0.1, 3.0, size=len(y))
    clf = fit_quietly(LPSeparator(fit_intercept=fit_intercept),
                      sp.csr_matrix(X) if sparse else X, y, sample_weight=s)
    assert not clf.separable_[0]
    ours = weighted_hinge(clf.decision_function(X), y, s)
    assert ours == pytest.approx(relaxation_value(X, y, s, fit_intercept), rel=1e-7, abs=1e-9)
    # the weights matter: the unweighted optimum is worse in the weighted objective
    plain = fit_quietly(LPSeparator(fit_intercept=fit_intercept), X, y)
    assert weighted_hinge(plain.decision_function(X), y, s) > ours + 1e-6


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_one_vs_rest_gives_each_problem_the_same_weights(n_jobs):
    X, y = _noisy(n=36, n_classes=3, seed=2)
    s = np.random.default_rng(3).uniform(0.2, 2.0, size=len(y))
    s[[4, 9]] = 0.0
    clf = fit_quietly(LPSeparator(n_jobs=n_jobs), X, y, sample_weight=s)
    scores = clf.decision_function(X)
    kept = s > 0
    for k, c in enumerate(clf.classes_):
        y_k = np.where(y == c, 1.0, -1.0)
        ref = relaxation_value(X[kept], y_k[kept], s[kept], True)
        if clf.separable_[k]:
            assert ref == pytest.approx(0.0, abs=1e-9)
        assert weighted_hinge(scores[:, k], y_k, s) == pytest.approx(ref, rel=1e-7, abs=1e-9)
    one = fit_quietly(LPSeparator(), X, y, sample_weight=s)
    np.testing.assert_array_equal(clf.coef_, one.coef_)
    np.testing.assert_array_equal(clf.intercept_, one.intercept_)
    assert (clf.certificates_ != one.certificates_).nnz == 0


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_integer_weights_are_repeated_rows(fit_intercept):
    X, y = _noisy(seed=5)
    s = np.random.default_rng(5).integers(0, 4, size=len(y)).astype(float)  # zeros too
    rows = np.repeat(np.arange(len(y)), s.astype(int))
    weighted = fit_quietly(LPSeparator(fit_intercept=fit_intercept), X, y, sample_weight=s)
    repeated = fit_quietly(LPSeparator(fit_intercept=fit_intercept), X[rows], y[rows])
    assert not weighted.separable_[0] and not repeated.separable_[0]
    assert weighted_hinge(weighted.decision_function(X), y, s) == pytest.approx(
        weighted_hinge(repeated.decision_function(X[rows]), y[rows], 1.0), rel=1e-7, abs=1e-9)


def test_positive_weights_do_not_change_the_separating_lp():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 4))
    y = np.where(X @ [1.0, -2.0, 0.5, 0.0] + 0.2 > 0, "yes", "no")  # separable
    s = rng.uniform(0.1, 5.0, size=40)
    plain = LPSeparator().fit(X, y)
    weighted = LPSeparator().fit(X, y, sample_weight=s)
    balanced = LPSeparator(class_weight="balanced").fit(X, y)
    for clf in (weighted, balanced):
        assert clf.separable_[0]
        np.testing.assert_array_equal(clf.coef_, plain.coef_)
        np.testing.assert_array_equal(clf.intercept_, plain.intercept_)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("on_infeasible", ["least_violation", "raise"])
def test_a_weight_of_zero_is_the_row_removed(sparse, on_infeasible):
    X, y = _noisy(seed=7)
    s = np.random.default_rng(8).uniform(0.5, 2.0, size=len(y))
    # weight 0 on the rows of the unweighted certificate, so that it must move elsewhere
    first = fit_quietly(LPSeparator(), X, y).certificates_.toarray()[0]
    zero = np.flatnonzero(first)[:2]
    s[zero] = 0.0
    kept = np.flatnonzero(s)
    fmt = sp.csr_matrix if sparse else np.asarray
    if on_infeasible == "raise":
        with pytest.raises(NotSeparableError) as weighted:
            LPSeparator(on_infeasible="raise").fit(fmt(X), y, sample_weight=s)
        with pytest.raises(NotSeparableError) as removed:
            LPSeparator(on_infeasible="raise").fit(fmt(X[kept]), y[kept])
        alpha = weighted.value.certificate
        assert alpha.shape == (len(y),) and np.array_equal(alpha[kept],
                                                           removed.value.certificate)
        np.testing.assert_array_equal(weighted.value.rows, kept[removed.value.rows])
        rows = ", ".join(str(i) for i in weighted.value.rows)
        assert f"puts weight on rows [{rows}]" in str(weighted.value)
    else:
        with pytest.warns(NotSeparableWarning) as caught:
            weighted = LPSeparator().fit(fmt(X), y, sample_weight=s)
        removed = fit_quietly(LPSeparator(), fmt(X[kept]), y[kept], sample_weight=s[kept])
        np.testing.assert_array_equal(weighted.coef_, removed.coef_)
        np.testing.assert_array_equal(weighted.intercept_, removed.intercept_)
        alpha = weighted.certificates_.toarray()[0]
        assert weighted.certificates_.shape == (1, len(y))
        np.testing.assert_array_equal(alpha[kept], removed.certificates_.toarray()[0])
        rows = ", ".join(str(i) for i in np.flatnonzero(alpha))
        assert f"puts weight on rows [{rows}]" in str(caught[0].message)
    assert np.all(alpha[zero] == 0.0)
    assert_certificate(X, y, alpha, True)


@pytest.mark.parametrize("class_weight", ["balanced", {-1: 3.0}])
def test_class_weight_multiplies_sample_weight(class_weight):
    X, y = _noisy(seed=9)
    s = np.random.default_rng(10).uniform(0.2, 2.0, size=len(y))
    if class_weight == "balanced":  # S / (n_classes S_c), S_c the class's total weight
        factor = {c: s.sum() / (2 * s[y == c].sum()) for c in (-1, 1)}
    else:
        factor = {-1: 3.0, 1: 1.0}
    by_hand = s * np.array([factor[c] for c in y])
    clf = fit_quietly(LPSeparator(class_weight=class_weight), X, y, sample_weight=s)
    assert weighted_hinge(clf.decision_function(X), y, by_hand) == pytest.approx(
        relaxation_value(X, y, by_hand, True), rel=1e-7, abs=1e-9)


def test_class_weight_saves_and_loads(tmp_path):
    X, y = _noisy(seed=11)
    clf = fit_quietly(LPSeparator(class_weight={1: 2.0}), X, y)
    clf.save(tmp_path / "m.hs")
    loaded = halfspaces.load(tmp_path / "m.hs")
    assert loaded.get_params()["class_weight"] == {1: 2.0}
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


# The checks' data (15 rows, 30 features) is separable for every one-vs-rest problem, so
# they test the separating LP (and weight 0 as the row removed); the relaxation is tested
# above. LPSeparator() also runs them in tests/test_common.py.
@pytest.mark.parametrize("estimator", [LPSeparator(fit_intercept=False),
                                       LPSeparator(on_infeasible="raise")], ids=repr)
@pytest.mark.parametrize("check", [check_sample_weight_equivalence_on_dense_data,
                                   check_sample_weight_equivalence_on_sparse_data])
def test_sklearn_sample_weight_equivalence(estimator, check):
    check("LPSeparator", estimator)


@pytest.mark.parametrize("class_weight, message", [
    ({1: -1.0}, r"'class_weight' must be a dict \{label: weight >= 0\}; got \{1: -1.0\}"),
    ("bal", r"'class_weight' must be one of None, 'balanced' or a dict"),
    ({7: 1.0}, r"LPSeparator.fit: class_weight names the label 7, which is not among the"
               r" classes \[0, 1\]"),
])
def test_bad_class_weight_is_named(class_weight, message):
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        LPSeparator(class_weight=class_weight).fit(X, y)
