"""is_linearly_separable and max_margin_separator against independent references.

References: a Farkas-certificate checker written from the definition (below), sklearn's SVC
with a huge C, the Perceptron's convergence theorem, the KKT conditions of the hard-margin QP
(solved for alpha by NNLS), and the convex-hull characterisation of the margin (SLSQP).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize, nnls
from sklearn.svm import SVC

from halfspaces import NotSeparableError, Perceptron
from halfspaces.theory import SeparabilityResult, is_linearly_separable, max_margin_separator

XOR_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
XOR_Y = np.array([1.0, 1.0, -1.0, -1.0])


def assert_certificate(X, y, alpha, fit_intercept, rtol=1e-8):
    """Farkas certificate from the definition: alpha >= 0, sum > 0, the sums vanish."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    alpha = np.asarray(alpha)
    assert alpha.shape == (X.shape[0],)
    assert np.all(alpha >= 0.0)
    assert alpha.sum() > 0.0
    scale = max(np.abs(X).max(), 1.0) * alpha.sum()
    assert np.abs((alpha * y) @ X).max() <= rtol * scale
    if fit_intercept:
        assert abs((alpha * y).sum()) <= rtol * scale


def assert_separator(X, y, w, b):
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    assert np.min(y * (X @ w + b)) >= 1.0 - 1e-9


# -- is_linearly_separable --------------------------------------------------------------------
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_xor_is_certified_not_separable(fit_intercept, sparse):
    X = sp.csr_matrix(XOR_X) if sparse else XOR_X
    res = is_linearly_separable(X, XOR_Y, fit_intercept=fit_intercept)
    assert isinstance(res, SeparabilityResult)
    assert not res and res.separable is False and res.w is None
    assert_certificate(XOR_X, XOR_Y, res.certificate, fit_intercept)
    np.testing.assert_array_equal(res.rows, np.flatnonzero(res.certificate > 0))


def test_xor_lifted_is_separable():
    # adding the product feature x1*x2 makes XOR separable
    X = np.column_stack([XOR_X, XOR_X[:, 0] * XOR_X[:, 1]])
    res = is_linearly_separable(X, XOR_Y)
    assert res and res.certificate is None
    assert_separator(X, XOR_Y, res.w, res.b)


def test_origin_point_is_never_separable_through_the_origin():
    X = np.array([[1.0, 2.0], [0.0, 0.0], [-1.0, 3.0]])
    y = np.array([1.0, -1.0, -1.0])
    res = is_linearly_separable(X, y, fit_intercept=False)
    assert not res
    np.testing.assert_array_equal(res.rows, [1])
    # ... but with an offset it is
    assert is_linearly_separable(X, y, fit_intercept=True)


def random_problem(draw_seed, n, d):
    rng = np.random.default_rng(draw_seed)
    return rng.normal(size=(n, d)), rng.choice([-1.0, 1.0], size=n)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 14), d=st.integers(1, 4),
       fit_intercept=st.booleans(), integer=st.booleans(), sparse=st.booleans(),
       scale=st.sampled_from([1e-3, 1.0, 1e3]))
def test_answer_is_proved_either_way(seed, n, d, fit_intercept, integer, sparse, scale):
    """Whatever the data, the answer carries a proof that checks from the definition."""
    X, y = random_problem(seed, n, d)
    if integer:  # small integers: duplicates, collinear points, zero rows
        X = np.round(2 * X)
    X = scale * X
    res = is_linearly_separable(sp.csr_matrix(X) if sparse else X, y, fit_intercept)
    if res:
        assert_separator(X, y, res.w, res.b)
        if not fit_intercept:
            assert res.b == 0.0
    else:
        assert_certificate(X, y, res.certificate, fit_intercept)
        assert res.certificate.sum() == pytest.approx(1.0)
        # Caratheodory: a vertex certificate uses at most d + 2 rows
        assert res.rows.size <= d + 1 + int(fit_intercept)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), d=st.integers(1, 4),
       fit_intercept=st.booleans())
def test_contradictory_duplicate_is_certified(seed, n, d, fit_intercept):
    """A point repeated with the opposite label can never be separated."""
    X, y = random_problem(seed, n, d)
    X = np.vstack([X, X[:1]])
    y = np.concatenate([y, -y[:1]])
    res = is_linearly_separable(X, y, fit_intercept)
    assert not res
    assert_certificate(X, y, res.certificate, fit_intercept)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
@pytest.mark.parametrize("seed", range(25))
def test_agrees_with_svc_and_perceptron(seed):
    """Separable iff a huge-C linear SVC reaches zero training error iff the Perceptron
    converges (Novikoff); checked on small random planar data with random labels."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 12))
    X = rng.normal(size=(n, 2))
    y = rng.choice([-1, 1], n)
    y[:2] = [-1, 1]
    ours = bool(is_linearly_separable(X, y))
    svc = SVC(kernel="linear", C=1e4).fit(X, y)
    assert ours == bool(np.all(y * svc.decision_function(X) > 0))
    assert ours == bool(Perceptron(max_iter=2000).fit(X, y).converged_)


def test_separable_by_construction_agrees_with_perceptron():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 6))
    u = rng.normal(size=6)
    s = X @ u + 0.5
    keep = np.abs(s) > 0.3
    X, y = X[keep], np.sign(s[keep])
    res = is_linearly_separable(X, y)
    assert res
    assert_separator(X, y, res.w, res.b)
    assert Perceptron(max_iter=5000).fit(X, y).converged_


def test_any_two_labels():
    res = is_linearly_separable(XOR_X, np.array(["b", "b", "a", "a"]))
    assert not res
    # "b" > "a" so "b" is +1: the certificate is the same as with XOR_Y
    assert_certificate(XOR_X, XOR_Y, res.certificate, True)
    res = is_linearly_separable(XOR_X[:3], [5, 5, 2])
    assert res
    assert_separator(XOR_X[:3], np.array([1.0, 1.0, -1.0]), res.w, res.b)


def test_bad_input_messages():
    with pytest.raises(ValueError, match=r"is_linearly_separable: y must hold labels in "
                                         r"\{-1, \+1\} or exactly two distinct labels; got 3"):
        is_linearly_separable(XOR_X, [0, 1, 2, 2])
    with pytest.raises(ValueError, match=r"one label per row of X \(4\); got shape \(3,\)"):
        is_linearly_separable(XOR_X, [1, -1, 1])
    with pytest.raises(ValueError, match=r"'fit_intercept' must be a bool; got 'yes'"):
        is_linearly_separable(XOR_X, XOR_Y, fit_intercept="yes")
    with pytest.raises(ValueError, match="NaN"):
        is_linearly_separable(np.array([[np.nan, 0.0], [1.0, 1.0]]), [1, -1])


# -- max_margin_separator -------------------------------------------------------------------
def separable_data(seed, n=40, d=3, gap=0.2, fit_intercept=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    s = X @ u + (0.3 if fit_intercept else 0.0)
    keep = np.abs(s) > gap
    return X[keep], np.sign(s[keep])


def hull_margin(X, y, fit_intercept):
    """Independent characterisation: half the distance between the two classes' convex hulls
    (with an offset), or the distance from 0 to conv{y_i x_i} (through the origin)."""
    Z = X * y[:, None]
    n = len(y)
    if fit_intercept:
        pos, neg = y > 0, y < 0
        cons = [{"type": "eq", "fun": lambda a: a[pos].sum() - 1.0},
                {"type": "eq", "fun": lambda a: a[neg].sum() - 1.0}]
        a0 = np.where(pos, 1.0 / pos.sum(), 1.0 / neg.sum())
    else:
        cons = [{"type": "eq", "fun": lambda a: a.sum() - 1.0}]
        a0 = np.full(n, 1.0 / n)
    res = minimize(lambda a: 0.5 * np.sum((a @ Z) ** 2), a0, jac=lambda a: Z @ (a @ Z),
                   bounds=[(0.0, None)] * n, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 1000})
    dist = np.linalg.norm(res.x @ Z)
    return dist / 2.0 if fit_intercept else dist


def test_max_margin_closed_form():
    # two points: the perpendicular bisector, margin = half their distance
    X = np.array([[1.0, 1.0], [4.0, 5.0]])
    w, b, margin = max_margin_separator(X, [-1, 1])
    assert margin == pytest.approx(2.5, rel=1e-9)
    np.testing.assert_allclose(w, np.array([3.0, 4.0]) / 12.5, rtol=1e-7)
    assert b == pytest.approx(-(3.0 * 2.5 + 4.0 * 3.0) / 12.5, rel=1e-7)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_max_margin_matches_svc_kkt_and_hulls(seed, fit_intercept, scale):
    X, y = separable_data(seed, fit_intercept=fit_intercept)
    X = scale * X
    w, b, margin = max_margin_separator(X, y, fit_intercept=fit_intercept)
    f = y * (X @ w + b)
    assert f.min() == pytest.approx(1.0, abs=1e-12)
    assert margin == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-12)
    if not fit_intercept:
        assert b == 0.0

    # (1) KKT: w = sum_{active} alpha_i y_i x_i with alpha >= 0 (and sum alpha_i y_i = 0):
    # sufficient for optimality of the convex QP; then margin = 1/sqrt(sum alpha).
    active = np.flatnonzero(f <= 1.0 + 1e-6)
    A = (X[active] * y[active, None]).T
    rhs = w
    if fit_intercept:
        A, rhs = np.vstack([A, y[active]]), np.append(w, 0.0)
    alpha, resid = nnls(A, rhs)
    assert resid <= 1e-6 * np.linalg.norm(w)
    assert margin == pytest.approx(1.0 / np.sqrt(alpha.sum()), rel=1e-5)

    # (2) the geometry: half the distance between the class hulls (distance to 0's hull)
    assert margin == pytest.approx(hull_margin(X / scale, y, fit_intercept) * scale, rel=1e-5)

    # (3) sklearn's SVC with a huge C (offset only: it always fits an intercept)
    if fit_intercept and scale == 1.0:
        svc = SVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
        assert margin == pytest.approx(1.0 / np.linalg.norm(svc.coef_), rel=1e-4)
        np.testing.assert_allclose(w, svc.coef_.ravel(), rtol=1e-3, atol=1e-4)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), fit_intercept=st.booleans(),
       scale=st.sampled_from([1e-3, 1.0, 1e3]))
def test_max_margin_beats_every_other_separator(seed, d, fit_intercept, scale):
    """The max-margin is at least the geometric margin of the LP's and the Perceptron's
    separators, and at most half the distance between any two opposite points."""
    X, y = separable_data(seed, n=20, d=d, gap=0.1, fit_intercept=fit_intercept)
    X = scale * X
    assume(len(np.unique(y)) == 2)
    w, b, margin = max_margin_separator(X, y, fit_intercept=fit_intercept)
    res = is_linearly_separable(X, y, fit_intercept)
    lp_margin = np.min(y * (X @ res.w + res.b)) / np.linalg.norm(res.w)
    assert margin >= lp_margin * (1 - 1e-7)
    p = Perceptron(fit_intercept=fit_intercept, max_iter=10000).fit(X, y)
    if p.converged_:
        wp, bp = p.coef_.ravel(), p.intercept_[0]
        assert margin >= np.min(y * (X @ wp + bp)) / np.linalg.norm(wp) * (1 - 1e-7)
    if fit_intercept:
        gaps = np.linalg.norm(X[y > 0][:, None, :] - X[y < 0][None, :, :], axis=2)
        assert margin <= gaps.min() / 2 * (1 + 1e-7)


def test_max_margin_sparse_equals_dense():
    X, y = separable_data(4)
    w, b, m = max_margin_separator(X, y)
    ws, bs, ms = max_margin_separator(sp.csr_matrix(X), y)
    assert ms == pytest.approx(m, rel=1e-6)
    np.testing.assert_allclose(ws, w, rtol=1e-5, atol=1e-7)


def test_max_margin_raises_with_certificate():
    with pytest.raises(NotSeparableError,
                       match=r"max_margin_separator: the data is not linearly separable with"
                             r" an offset: .* rows \[0, 1, 2, 3\] \(4 rows\)") as info:
        max_margin_separator(XOR_X, XOR_Y)
    assert_certificate(XOR_X, XOR_Y, info.value.certificate, True)
    np.testing.assert_array_equal(info.value.rows, [0, 1, 2, 3])


def test_max_margin_one_class_is_infinite():
    w, b, margin = max_margin_separator(XOR_X, [1, 1, 1, 1])
    assert margin == np.inf and np.all(w == 0.0) and b == pytest.approx(1.0)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.uint32, np.int64])
def test_integer_input_does_not_overflow(dtype):
    """Entries whose squares overflow the dtype: the answer is that of the float64 data.
    For a = (v, 2v) labelled +1 and b = (2v, v) labelled -1 both constraints of the QP
    through the origin are active: w = (-1, 1) / v, so the max margin is v / sqrt(2)."""
    v = 16000 if dtype == np.int16 else 50000
    X = np.array([[v, 2 * v], [2 * v, v]], dtype=dtype)
    y = np.array([1.0, -1.0])
    for Xin in (X, sp.csr_matrix(X)):
        assert is_linearly_separable(Xin, y, fit_intercept=False)
        w, b, margin = max_margin_separator(Xin, y, fit_intercept=False)
        assert margin == pytest.approx(v / np.sqrt(2.0), rel=1e-6)
        np.testing.assert_allclose(w, [-1.0 / v, 1.0 / v], rtol=1e-6)
