"""Example weights in SVC and LogisticRegression: ``C_i = C s_i`` and weighted log-losses (and
the checks of `_weights.example_weights` that every weighted learner shares).

Oracles: the same problem with each row repeated ``s_i`` times (solved by the QP), LIBSVM
(scikit-learn's SVC, which takes per-example C the same way), scikit-learn's
LogisticRegression, and scikit-learn's own sample-weight equivalence checks.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.svm import SVC as SkSVC
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
)

import halfspaces
from halfspaces import (
    SVC,
    AveragedPerceptron,
    LogisticRegression,
    LPSeparator,
    PegasosSVC,
    Perceptron,
)
from halfspaces.solvers.qp import svm_primal_qp


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, 0)
    s = rng.integers(0, 4, size=n).astype(float)  # zeros included
    return X, y, s


def _repeated(X, y, s):
    rows = np.repeat(np.arange(len(y)), s.astype(int))
    return X[rows], y[rows]


@pytest.mark.parametrize("solver", ["qp", "dcd"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_integer_weights_are_repeated_rows(solver, loss, fit_intercept):
    X, y, s = _data()
    kw = dict(C=0.7, loss=loss, fit_intercept=fit_intercept)
    weighted = SVC(solver=solver, random_state=0, **kw).fit(X, y, sample_weight=s)
    repeated = SVC(solver="qp", **kw).fit(*_repeated(X, y, s))
    # DCD certifies its objective to 0.01 tol = 1e-6 relatively; the QP to 1e-9
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=2e-6)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=2e-3)
    assert weighted.duality_gap_ <= 1e-6 * weighted.objective_


def test_lam_form_counts_the_weights():
    X, y, s = _data()
    weighted = SVC(lam=0.05, solver="qp").fit(X, y, sample_weight=s)
    assert weighted.C_ == pytest.approx(1.0 / (0.05 * s.sum()))
    repeated = SVC(lam=0.05, solver="qp").fit(*_repeated(X, y, s))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-7)


def test_per_example_C_as_libsvm():
    X, y, _ = _data(n=30)
    s = np.random.default_rng(1).uniform(0.1, 3.0, size=30)
    ours = SVC(C=0.5, solver="qp").fit(X, y, sample_weight=s)
    libsvm = SkSVC(kernel="linear", C=0.5, tol=1e-10).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.coef_, libsvm.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, libsvm.intercept_, atol=1e-6)
    rbf = SVC(C=0.5, kernel="rbf", gamma=0.3).fit(X, y, sample_weight=s)
    libsvm = SkSVC(kernel="rbf", gamma=0.3, C=0.5, tol=1e-10).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(rbf.decision_function(X), libsvm.decision_function(X),
                               atol=1e-6)


def test_zero_weight_is_the_row_left_out_and_support_indexes_the_rows_given():
    X, y, s = _data()
    s[s == 0] = 0.0
    kept = np.flatnonzero(s)
    for sparse in (False, True):
        Xs = sp.csr_matrix(X) if sparse else X
        weighted = SVC(solver="qp").fit(Xs, y, sample_weight=(s > 0).astype(float))
        left_out = SVC(solver="qp").fit(X[kept], y[kept])
        np.testing.assert_allclose(weighted.coef_, left_out.coef_, atol=1e-9)
        np.testing.assert_array_equal(weighted.support_, kept[left_out.support_])
        assert np.all(s[weighted.support_] > 0)


# SVC() and LogisticRegression() also run them in tests/test_common.py (SVC() on sparse
# data solves by DCD, a declared failure there).
@pytest.mark.parametrize("estimator", [SVC(solver="qp"), SVC(solver="qp",
                                       loss="squared_hinge", fit_intercept=False),
                                       SVC(kernel="rbf"),
                                       LogisticRegression(fit_intercept=False)], ids=repr)
@pytest.mark.parametrize("check", [check_sample_weight_equivalence_on_dense_data,
                                   check_sample_weight_equivalence_on_sparse_data])
def test_sklearn_sample_weight_equivalence(estimator, check):
    check(type(estimator).__name__, estimator)


@pytest.mark.parametrize("sparse", [False, True])
def test_logistic_weights_as_sklearn(sparse):
    X, y, _ = _data(n=60)
    s = np.random.default_rng(2).uniform(0.0, 3.0, size=60)
    s[:5] = 0.0
    Xs = sp.csr_matrix(X) if sparse else X
    ours = LogisticRegression(C=0.5, tol=1e-10, max_iter=1000).fit(Xs, y, sample_weight=s)
    ref = SkLogisticRegression(C=0.5, tol=1e-12, max_iter=10000).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-7)
    # the lam form divides by S = sum s_i: lam = 1/(C S) is the same problem
    lam = LogisticRegression(lam=1.0 / (0.5 * s.sum()), tol=1e-10, max_iter=1000)
    np.testing.assert_allclose(lam.fit(Xs, y, sample_weight=s).coef_, ref.coef_, atol=1e-7)


@pytest.mark.parametrize("cls", [SVC, LogisticRegression, LPSeparator])
@pytest.mark.parametrize("weights, message", [
    (-np.ones(6), r"'sample_weight' must be finite and >= 0; got -1.0 at example 0"),
    (np.array([1, 1, np.nan, 1, 1, 1.0]), r"'sample_weight' must be finite and >= 0; got"
                                          r" nan at example 2"),
    (np.ones(5), r"'sample_weight' must have one entry per example of X \(6\); got"
                 r" shape \(5,\)"),
    (np.zeros(6), r"every example weight \(sample_weight\) is zero"),
    (np.full(6, 1e308), r"the example weights \(sample_weight\) sum past the largest float64"
                        r" \(1.8e\+308\); divide them by a common factor"),
    ("heavy", r"'sample_weight' must be None or one number >= 0 per example \(6\)"),
])
def test_bad_weights_are_named(cls, weights, message):
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.fit: {message}"):
        cls().fit(X, y, sample_weight=weights)


def test_a_class_without_weight_is_an_error_for_the_svm():
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"SVC.fit: class 1 has no example with a positive"
                                         r" weight"):
        SVC().fit(X, y, sample_weight=(y == 0).astype(float))


@pytest.mark.parametrize("class_weight", ["balanced", {True: 0.5, False: 3.0}])
def test_class_weight_as_sklearn(class_weight):
    X, _, _ = _data(n=60)
    y = np.arange(60) % 3 == 0  # unbalanced: 20 True, 40 False
    s = np.random.default_rng(4).uniform(0.2, 2.0, size=60)
    ours = LogisticRegression(C=0.5, tol=1e-10, max_iter=1000, class_weight=class_weight)
    ref = SkLogisticRegression(C=0.5, tol=1e-12, max_iter=10000, class_weight=class_weight)
    np.testing.assert_allclose(ours.fit(X, y, sample_weight=s).coef_,
                               ref.fit(X, y, sample_weight=s).coef_, atol=1e-7)
    # LIBSVM counts "balanced" without sample_weight (LogisticRegression and we with it)
    s = None if class_weight == "balanced" else s
    svc = SVC(C=0.5, class_weight=class_weight, solver="qp").fit(X, y, sample_weight=s)
    libsvm = SkSVC(kernel="linear", C=0.5, tol=1e-10, class_weight=class_weight)
    np.testing.assert_allclose(svc.coef_, libsvm.fit(X, y, sample_weight=s).coef_, atol=1e-6)


def test_balanced_is_the_class_totals_and_saves(tmp_path):
    X, _, _ = _data(n=30)
    y = np.array(["a", "b", "c"])[np.arange(30) % 5 % 3]  # 12 a, 12 b, 6 c
    s = np.linspace(0.5, 2.0, 30)
    totals = {c: s[y == c].sum() for c in "abc"}
    by_hand = s * np.array([s.sum() / (3 * totals[c]) for c in y])
    balanced = SVC(solver="qp", class_weight="balanced").fit(X, y, sample_weight=s)
    np.testing.assert_allclose(balanced.coef_,
                               SVC(solver="qp").fit(X, y, sample_weight=by_hand).coef_,
                               atol=1e-7)
    clf = SVC(class_weight={"a": 2.0, "c": 0.5}).fit(X, y)
    clf.save(tmp_path / "m.hs")
    assert halfspaces.load(tmp_path / "m.hs").get_params()["class_weight"] == {"a": 2.0,
                                                                               "c": 0.5}


@pytest.mark.parametrize("class_weight, message", [
    ({1: -1.0}, r"'class_weight' must be a dict \{label: weight >= 0\}; got \{1: -1.0\}"
                r" \(the weight of 1 is -1.0\)"),
    ("bal", r"'class_weight' must be one of None, 'balanced' or a dict"),
    ({7: 1.0}, r"LogisticRegression.fit: class_weight names the label 7, which is not among"
               r" the classes \[0, 1\]"),
])
def test_bad_class_weight_is_named(class_weight, message):
    X, y, _ = _data(n=10)
    with pytest.raises(ValueError, match=message):
        LogisticRegression(class_weight=class_weight).fit(X, y)


@pytest.mark.parametrize("make", [Perceptron, AveragedPerceptron, PegasosSVC,
                                  lambda: LogisticRegression(solver="sgd")])
def test_weights_summing_past_float64_are_refused_before_the_pass(make):
    # before: an overflow warning, then a pass that "overflowed the features or the step"
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 0, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"\.fit: the example weights \(sample_weight\)"
                                             r" sum past the largest float64"):
            make().fit(X, y, sample_weight=np.full(6, 1e308))


@pytest.mark.parametrize("kernel", ["linear", "poly"])  # poly of degree 1: the Gram route
def test_the_hard_margin_certificate_names_the_rows_as_given_when_some_weigh_zero(kernel):
    """C = inf on data that no halfspace separates, with rows of weight 0 (left out): the
    certificate is over the rows as given and names them, never a weight-0 row; it proves
    the rows it names non-separable (sum_i alpha_i y_i x_i = 0, sum_i alpha_i y_i = 0)."""
    from halfspaces import NotSeparableError

    # XOR-like: no line separates rows 2..5; rows 0 and 1 weigh 0
    X = np.array([[9.0, 9.0], [-9.0, 7.0], [1.0, 1.0], [-1.0, -1.0], [1.0, -1.0],
                  [-1.0, 1.0]])
    y = np.array([1, 1, 1, 1, -1, -1])
    s = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    with pytest.raises(NotSeparableError) as caught:
        SVC(C=np.inf, kernel=kernel, degree=1, coef0=0.0, gamma=1.0).fit(X, y,
                                                                          sample_weight=s)
    err = caught.value
    assert err.certificate.shape == (6,) and (err.certificate[:2] == 0).all()
    assert err.rows.min() >= 2
    rows = ", ".join(str(i) for i in err.rows)
    assert f"puts weight on rows [{rows}]" in str(err)
    y_pm = np.where(y == 1, 1.0, -1.0)
    a = err.certificate * y_pm
    np.testing.assert_allclose(a @ X, 0.0, atol=1e-8)
    assert abs(a.sum()) < 1e-8


def _one_heavy_row(weight, n=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    s = np.ones(n)
    s[3] = weight
    return X, y, s


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("weight", [1e12, 1e20, 1e300])
@pytest.mark.parametrize("solver", ["qp", "auto", "dcd"])
def test_a_weight_near_the_float_range_is_solved(weight, solver):
    # With C_3 = 1e20 the interior point declared the soft margin infeasible (then a
    # TypeError), with 1e300 it stopped with an infinite objective (accuracy 0.6), and at
    # 1e12 it returned a wrong "DualInfeasible" answer. Reference: the QP with the heavy
    # row's weight capped at 1e4, where its multiplier stays below the cap, so the bound
    # alpha_3 <= C_3 is inactive and that optimum is the optimum for every larger C_3.
    X, y, s = _one_heavy_row(weight)
    capped = s.copy()
    capped[3] = 1e4
    ref = svm_primal_qp(X, y, 1.0, sample_weight=capped)
    assert ref.status == "solved" and ref.alpha[3] < 0.5 * 1e4
    scores = X @ ref.theta + ref.theta_0
    best = 0.5 * ref.theta @ ref.theta + capped @ np.maximum(0.0, 1.0 - y * scores)
    clf = SVC(solver=solver).fit(X, y, sample_weight=s)
    assert np.isfinite(clf.objective_) and np.isfinite(clf.duality_gap_)
    assert clf.objective_ == pytest.approx(best, rel=1e-3)
    assert clf.duality_gap_ <= 1e-3 * clf.objective_
    np.testing.assert_array_equal(clf.predict(X), np.where(scores >= 0, 1.0, -1.0))
