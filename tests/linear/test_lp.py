"""LPSeparator: margins, L1 optimality (LP duality), certificates, OvR, errors, sklearn checks.

References: the LP dual of each LP written here from the formulas and solved separately
(strong duality gives the optimal value), and a certificate checker from the definition.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from halfspaces import LPSeparator, NotSeparableError
from halfspaces.exceptions import NotSeparableWarning
from halfspaces.solvers.lp import describe_rows

XOR_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
XOR_Y = np.array([1, 1, -1, -1])


def assert_certificate(X, y, alpha, fit_intercept, rtol=1e-8):
    """alpha >= 0, sum > 0, sum_i alpha_i y_i x_i = 0 (and sum_i alpha_i y_i = 0)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    assert np.all(alpha >= 0.0) and alpha.sum() > 0.0
    assert np.abs((alpha * y) @ X).max() <= rtol * np.abs(X).max() * alpha.sum()
    if fit_intercept:
        assert abs((alpha * y).sum()) <= rtol * alpha.sum()


def separable(seed, n=120, d=5, gap=0.2, offset=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    u = rng.normal(size=d)
    s = X @ (u / np.linalg.norm(u)) + offset
    keep = np.abs(s) > gap
    return X[keep], np.sign(s[keep])


def l1_dual_value(X, y, fit_intercept):
    """Dual of min ||w||_1 s.t. y_i(<w,x_i>+b) >= 1:
    max sum alpha  s.t.  -1 <= sum_i alpha_i y_i x_ij <= 1,  [sum alpha_i y_i = 0],  alpha >= 0."""
    Z = (X * y[:, None]).T
    res = linprog(-np.ones(len(y)), A_ub=np.vstack([Z, -Z]), b_ub=np.ones(2 * X.shape[1]),
                  A_eq=y[None, :] if fit_intercept else None,
                  b_eq=[0.0] if fit_intercept else None, bounds=(0, None), method="highs-ipm")
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_separates_with_margin_one_and_minimal_l1(fit_intercept, sparse):
    X, y = separable(0, offset=0.4 if fit_intercept else 0.0)
    clf = LPSeparator(fit_intercept=fit_intercept).fit(sp.csr_matrix(X) if sparse else X, y)
    w, b = clf.coef_.ravel(), clf.intercept_[0]
    assert np.min(y * (X @ w + b)) >= 1.0 - 1e-9
    assert clf.score(X, y) == 1.0 and clf.separable_.all()
    if not fit_intercept:
        assert b == 0.0
    # strong LP duality: ||w||_1 equals the optimum of the dual LP
    assert np.abs(w).sum() == pytest.approx(l1_dual_value(X, y, fit_intercept), rel=1e-7)


def test_dense_and_csr_agree():
    X, y = separable(1, n=60, d=8)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
    Xd = Xs.toarray()
    a = LPSeparator().fit(Xd, y)
    b = LPSeparator().fit(Xs, y)
    np.testing.assert_allclose(a.decision_function(Xd), b.decision_function(Xs), atol=1e-8)


def test_float32_input():
    X, y = separable(2)
    clf = LPSeparator().fit(X.astype(np.float32), y)
    assert clf.coef_.dtype == np.float64
    assert clf.score(X.astype(np.float32), y) == 1.0


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_xor_raises_with_verified_certificate(sparse, fit_intercept):
    X = sp.csr_matrix(XOR_X) if sparse else XOR_X
    offset = "with an offset" if fit_intercept else "through the origin"
    with pytest.raises(NotSeparableError,
                       match=rf"LPSeparator: the data is not linearly separable {offset}:"
                             r" the Farkas certificate alpha >= 0 .* puts weight on rows"
                             r" \[.*\] \(\d rows?\).*on_infeasible='least_violation'") as info:
        LPSeparator(fit_intercept=fit_intercept, on_infeasible="raise").fit(X, XOR_Y)
    err = info.value
    assert isinstance(err, ValueError)
    assert_certificate(XOR_X, XOR_Y, err.certificate, fit_intercept)
    np.testing.assert_array_equal(err.rows, np.flatnonzero(err.certificate > 0))
    assert str(err.rows.tolist())[1:-1] in str(err)


def test_random_nonseparable_certificate_names_its_rows():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 12))
    y = rng.choice([-1.0, 1.0], 200)
    with pytest.raises(NotSeparableError) as info:
        LPSeparator(on_infeasible="raise").fit(X, y)
    err = info.value
    assert_certificate(X, y, err.certificate, True)
    assert 1 <= err.rows.size <= 12 + 2  # a vertex: Caratheodory
    assert describe_rows(err.rows) in str(err)


def test_describe_rows():
    assert describe_rows(np.array([3])) == "rows [3] (1 row)"
    assert describe_rows(np.array([0, 4, 9])) == "rows [0, 4, 9] (3 rows)"
    assert (describe_rows(np.arange(14))
            == "rows [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] and 4 more (14 rows)")


def test_least_violation_is_the_hinge_lp_optimum():
    """Dual of min sum xi: max sum alpha s.t. 0 <= alpha <= 1, sum alpha_i y_i x_i = 0,
    sum alpha_i y_i = 0; the total hinge loss of the fit equals it (strong duality)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 3))
    y = np.sign(X[:, 0] + 0.5 * rng.normal(size=80))
    with pytest.warns(NotSeparableWarning):
        clf = LPSeparator().fit(X, y)  # the default on_infeasible
    assert not clf.separable_[0]
    hinge = np.maximum(0.0, 1.0 - y * clf.decision_function(X)).sum()
    Z = (X * y[:, None]).T
    dual = linprog(-np.ones(80), A_eq=np.vstack([Z, y]), b_eq=np.zeros(4), bounds=(0, 1),
                   method="highs-ipm")
    assert hinge == pytest.approx(-dual.fun, rel=1e-7)
    assert clf.score(X, y) > 0.7


def test_least_violation_equals_raise_on_separable_data():
    X, y = separable(3)
    a = LPSeparator(on_infeasible="raise").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # separable: no NotSeparableWarning
        b = LPSeparator().fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert b.separable_.all() and b.certificates_.shape == (1, len(y))
    assert b.certificates_.nnz == 0


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_default_warns_and_keeps_the_certificate_of_raise(sparse, fit_intercept):
    """The default answers non-separable data with the least-violation fit, a warning naming
    the certificate's rows, and the same verified certificate that "raise" puts on its error."""
    X = sp.csr_matrix(XOR_X) if sparse else XOR_X
    offset = "with an offset" if fit_intercept else "through the origin"
    with pytest.warns(NotSeparableWarning,
                      match=rf"LPSeparator: the data is not linearly separable {offset}: the"
                            r" Farkas certificate certificates_\[0\] puts weight on rows"
                            r" \[.*\] \(\d rows?\)\. So fit returned the least-violation"
                            r" hyperplane .* Pass on_infeasible='raise'") as caught:
        clf = LPSeparator(fit_intercept=fit_intercept).fit(X, XOR_Y)
    assert len(caught) == 1
    assert not clf.separable_[0] and clf.certificates_.shape == (1, 4)
    alpha = clf.certificates_.toarray()[0]
    assert_certificate(XOR_X, XOR_Y, alpha, fit_intercept)
    assert str(np.flatnonzero(alpha).tolist())[1:-1] in str(caught[0].message)
    with pytest.raises(NotSeparableError) as info:
        LPSeparator(fit_intercept=fit_intercept, on_infeasible="raise").fit(X, XOR_Y)
    np.testing.assert_array_equal(alpha, info.value.certificate)
    # the least-violation optimum on XOR is sum_i hinge_i = 4, with or without the offset:
    # alpha = (1, 1, 1, 1) is feasible in the dual (see the test above) with value 4, and
    # w = 0, b = 0 attains it
    hinge = np.maximum(0.0, 1.0 - XOR_Y * clf.decision_function(XOR_X)).sum()
    assert hinge == pytest.approx(4.0, abs=1e-7)


def test_default_when_no_certificate_can_be_verified(monkeypatch):
    import halfspaces.linear.lp as lp

    monkeypatch.setattr(lp, "farkas_certificate", lambda *a: None)
    with pytest.warns(NotSeparableWarning,
                      match=r"LPSeparator: the data is not linearly separable with an offset"
                            r" by HiGHS, but no Farkas certificate could be verified \(the data"
                            r" is numerically at the boundary of separability\)\. So fit"):
        clf = LPSeparator().fit(XOR_X, XOR_Y)
    assert not clf.separable_[0] and clf.certificates_.nnz == 0


def test_one_vs_rest_separable():
    centers = np.array([[0.0, 5.0], [5.0, -3.0], [-5.0, -3.0]])
    rng = np.random.default_rng(0)
    X = np.vstack([c + rng.normal(scale=0.7, size=(20, 2)) for c in centers])
    y = np.repeat(np.array(["a", "b", "c"]), 20)
    clf = LPSeparator().fit(X, y)
    assert clf.coef_.shape == (3, 2) and clf.intercept_.shape == (3,)
    scores = clf.decision_function(X)
    for k, label in enumerate(clf.classes_):
        y_k = np.where(y == label, 1.0, -1.0)
        assert np.min(y_k * scores[:, k]) >= 1.0 - 1e-9
    assert clf.score(X, y) == 1.0


def test_one_vs_rest_names_the_class():
    X = np.array([[-2.0], [-1.0], [0.0], [0.1], [1.0], [2.0]])
    y = np.array(["lo", "lo", "mid", "mid", "hi", "hi"])
    # classes_ = ['hi', 'lo', 'mid']: 'hi' and 'lo' vs the rest are separable, 'mid' is not
    with pytest.raises(NotSeparableError,
                       match=r"LPSeparator: class 'mid' vs the rest is not linearly") as e:
        LPSeparator(on_infeasible="raise").fit(X, y)
    assert_certificate(X, np.where(y == "mid", 1, -1), e.value.certificate, True)
    with pytest.warns(NotSeparableWarning, match=r"^LPSeparator: class 'mid' vs the rest is not"
                                                 r" linearly .* certificates_\[2\] puts weight"):
        clf = LPSeparator().fit(X, y)
    np.testing.assert_array_equal(clf.separable_, [True, True, False])  # classes hi, lo, mid
    alphas = clf.certificates_.toarray()
    assert not alphas[:2].any()
    np.testing.assert_array_equal(alphas[2], e.value.certificate)


@pytest.mark.parametrize("params, match", [
    ({"on_infeasible": "ignore"},
     r"LPSeparator: 'on_infeasible' must be one of 'least_violation', 'raise'; got 'ignore'"),
    ({"fit_intercept": 1}, r"LPSeparator: 'fit_intercept' must be a bool; got 1"),
])
def test_bad_params(params, match):
    with pytest.raises(ValueError, match=match):
        LPSeparator(**params).fit(XOR_X[:3], [1, 1, -1])


def test_one_class_message():
    with pytest.raises(ValueError, match="needs samples of at least 2 classes"):
        LPSeparator().fit(XOR_X, [1, 1, 1, 1])


def test_save_load_roundtrip(tmp_path):
    from halfspaces import load

    X, y = separable(6)
    clf = LPSeparator().fit(sp.csr_matrix(X), y)
    clf.save(tmp_path / "lp")
    back = load(tmp_path / "lp")
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(back.separable_, clf.separable_)
    with pytest.warns(NotSeparableWarning):
        clf = LPSeparator().fit(sp.csr_matrix(XOR_X), XOR_Y)
    clf.save(tmp_path / "xor")
    back = load(tmp_path / "xor")
    assert sp.issparse(back.certificates_)
    np.testing.assert_array_equal(back.certificates_.toarray(), clf.certificates_.toarray())


def test_certificate_residual_rejects_non_certificates():
    from halfspaces.solvers.lp import certificate_residual

    y = XOR_Y.astype(float)
    assert certificate_residual(XOR_X, y, np.full(4, 0.25)) == 0.0
    assert certificate_residual(XOR_X, y, np.array([0.5, -0.1, 0.3, 0.3])) == np.inf
    assert certificate_residual(XOR_X, y, np.zeros(4)) == np.inf
    assert certificate_residual(XOR_X, y, np.array([1.0, 0, 0, 0])) == 1.0  # |sum a_i y_i|


def test_solver_failure_becomes_a_clear_error(monkeypatch):
    from scipy.optimize import OptimizeResult

    import halfspaces.solvers.lp as lp

    monkeypatch.setattr(lp, "linprog", lambda *a, **k: OptimizeResult(
        status=4, message="Numerical difficulties encountered.", x=None))
    with pytest.raises(RuntimeError, match=r"HiGHS could not solve the separating LP"
                                           r" \(numerical difficulties: .*\)\. Rescale"):
        LPSeparator().fit(XOR_X[:3], [1, 1, -1])


def _wide(n_features, n_used=50, n=20, seed=0):
    """20 sparse rows whose 3 non-zeros each fall in ``n_used`` columns spread over
    ``n_features``; also those columns, and the dense ``n x n_used`` matrix they make."""
    rng = np.random.default_rng(seed)
    used = np.linspace(0, n_features - 1, n_used).astype(int)
    picks = np.sort(rng.choice(n_used, size=(n, 3)), axis=1)
    values = rng.standard_normal(3 * n)
    X = sp.csr_matrix((values, used[picks].ravel(), np.arange(0, 3 * n + 1, 3)),
                      shape=(n, n_features))
    y = np.where(rng.random(n) < 0.5, -1, 1)
    dense = np.zeros((n, n_used))
    np.add.at(dense, (np.repeat(np.arange(n), 3), picks.ravel()), values)
    return X, y, used, dense


@pytest.mark.parametrize("on_infeasible", ["least_violation", "raise"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_empty_columns_change_nothing(seed, on_infeasible):
    # The LP over 200,000 columns of which 50 hold a non-zero is the LP over those 50:
    # the same separator (zero on the empty columns), the same certificate.
    X, y, used, dense = _wide(200_000, seed=seed)
    small = LPSeparator(on_infeasible=on_infeasible)
    wide = LPSeparator(on_infeasible=on_infeasible)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)
        try:
            small.fit(dense, y)
        except NotSeparableError as err:
            with pytest.raises(NotSeparableError) as wide_err:
                wide.fit(X, y)
            np.testing.assert_allclose(wide_err.value.certificate, err.certificate,
                                       atol=1e-12)
            return
        wide.fit(X, y)
    expected = np.zeros((1, X.shape[1]))
    expected[:, used] = small.coef_
    np.testing.assert_allclose(wide.coef_, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(wide.intercept_, small.intercept_, rtol=1e-9, atol=1e-12)
    assert np.array_equal(wide.separable_, small.separable_)
    np.testing.assert_allclose(wide.certificates_.toarray(), small.certificates_.toarray(),
                               atol=1e-12)


def test_memory_follows_the_non_zeros_not_the_columns():
    # 60 non-zeros over 200,000 columns: the fit holds a few vectors of n_features (coef_
    # and the solution mapped back), never a matrix block per column of the LP.
    import tracemalloc

    X, y, _, _ = _wide(200_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)
        LPSeparator().fit(*_wide(100)[:2])  # imports and caches before measuring
        tracemalloc.start()
        try:
            LPSeparator().fit(X, y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak <= 4 * 8 * X.shape[1]
