"""The max margin of separable data with badly scaled columns, and the fallback when the QP
fails: the margin is never larger than the maximum, so no bound is smaller than the truth.

On the UCI breast-cancer set (30 unscaled features, 1e-3 to 4e3) Clarabel called the
hard-margin QP of the first 256 rows, with a constant column, infeasible although the LP
separates them, and ``halfspaces play`` died. ``badly_scaled_separable`` has the same
pathology (columns times 1e-2 to 1e4, margin 1e-3): before the fix the seeds below raised
RuntimeError (Clarabel's "PrimalInfeasible", or a QP "separator" with a negative margin).

References: the KKT conditions of the QP solved by NNLS (no solver in common with the code),
the separating LP's own separator (its margin computed here from its ``w, b``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import badly_scaled_separable, hard_margin_kkt

from halfspaces.exceptions import InexactMarginWarning
from halfspaces.solvers import qp
from halfspaces.solvers.qp import QPResult
from halfspaces.theory import (
    bounds_report,
    data_radius,
    is_linearly_separable,
    max_margin_separator,
    perceptron_bound,
)

SEEDS = [0, 2, 12, 25]  # Clarabel failed on all of them before (both settings)


def _lp_margin(X, y, fit_intercept):
    res = is_linearly_separable(X, y, fit_intercept)
    return np.min(y * (X @ res.w + res.b)) / np.linalg.norm(res.w)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_badly_scaled_columns_give_the_certified_max_margin(seed, fit_intercept, sparse):
    X, y = badly_scaled_separable(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InexactMarginWarning)
        w, b, margin = max_margin_separator(sp.csr_matrix(X) if sparse else X, y,
                                            fit_intercept=fit_intercept)
    assert np.min(y * (X @ w + b)) == pytest.approx(1.0, abs=1e-9)
    assert margin == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-12)
    residual, kkt_margin = hard_margin_kkt(X, y, w, b, fit_intercept)
    assert residual <= 1e-7
    assert margin == pytest.approx(kkt_margin, rel=1e-6)
    assert margin >= _lp_margin(X, y, fit_intercept) * (1 - 1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_perceptron_bound_on_badly_scaled_points_x_1(seed):
    X, y = badly_scaled_separable(seed)
    res = perceptron_bound(X, y, fit_intercept=True)
    assert res.exact and res.separable and res.augmented
    Z = np.column_stack([X, np.ones(len(y))])
    residual, gamma = hard_margin_kkt(Z, y, res.separator, 0.0, False)
    assert residual <= 1e-7
    assert res.bound == pytest.approx((data_radius(Z) / gamma) ** 2, rel=1e-6)


# -- the fallback: Clarabel fails (simulated), the LP's separator is used and said so --------
def _failing(status):
    def svm_primal_qp(X, y, C, **kwargs):
        return QPResult(status, None, None, 0.0, 200)
    return svm_primal_qp


def _unproven(X, y, C, **kwargs):
    """Clarabel's answer without its multipliers: right, but with no duality proof."""
    res = _REAL(X, y, C, **kwargs)
    res.alpha = np.zeros_like(res.alpha)
    return res


def _wrong_way(X, y, C, **kwargs):
    """Clarabel's answer pointing the wrong way: misclassifies every row."""
    res = _REAL(X, y, C, **kwargs)
    res.theta, res.theta_0 = -res.theta, -res.theta_0
    return res


_REAL = qp.svm_primal_qp


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("fake, why, used", [
    (_failing("MaxIterations"), r"stopped with status 'MaxIterations'", "LP"),
    (_failing("PrimalInfeasible"), r"stopped with status 'PrimalInfeasible'", "LP"),
    (_wrong_way, r"gave no separator", "LP"),
    # the better verified one: the QP's (the maximum), or the LP's where it ties
    (_unproven, r"stopped at a relative duality gap of 1\.0e\+00 \(above 1e-06\)", "(QP|LP)"),
])
def test_a_failed_qp_falls_back_to_a_verified_separator(monkeypatch, fit_intercept, fake, why,
                                                        used):
    X, y = badly_scaled_separable(3)
    _, _, true_margin = max_margin_separator(X, y, fit_intercept=fit_intercept)
    monkeypatch.setattr(qp, "svm_primal_qp", fake)
    with pytest.warns(InexactMarginWarning,
                      match=rf"max_margin_separator: the hard-margin QP \(Clarabel\) {why} on"
                            rf" data that the separating LP proves separable; using the"
                            rf" {used}'s verified separator, whose margin [-+.e\d]+ is a lower"
                            r" bound of the maximum margin"):
        w, b, margin = max_margin_separator(X, y, fit_intercept=fit_intercept)
    assert np.min(y * (X @ w + b)) == pytest.approx(1.0, abs=1e-9)
    assert margin == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-12)
    assert margin <= true_margin * (1 + 1e-9)
    expected = _lp_margin(X, y, fit_intercept) if used == "LP" else true_margin
    assert margin == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_perceptron_bound_from_the_lp_is_larger_and_flagged(monkeypatch, fit_intercept):
    X, y = badly_scaled_separable(3)
    true = perceptron_bound(X, y, fit_intercept=fit_intercept)
    assert true.exact
    monkeypatch.setattr(qp, "svm_primal_qp", _failing("InsufficientProgress"))
    with pytest.warns(InexactMarginWarning, match=r"^perceptron_bound: .* 'InsufficientProgress'"):
        res = perceptron_bound(X, y, fit_intercept=fit_intercept)
    assert not res.exact and res.separable
    Z = np.column_stack([X, np.ones(len(y))]) if fit_intercept else X
    gamma_lp = _lp_margin(Z, y, False)
    assert res.margin == pytest.approx(gamma_lp, rel=1e-9)
    assert res.bound == pytest.approx((data_radius(Z) / gamma_lp) ** 2, rel=1e-9)
    assert res.bound >= true.bound * (1 - 1e-9)
    with pytest.warns(InexactMarginWarning):
        report = bounds_report(X, y, fit_intercept=fit_intercept)
    assert not report.exact and not report.perceptron.exact
    assert report.max_margin == pytest.approx(_lp_margin(X, y, fit_intercept), rel=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_an_unproven_qp_answer_is_kept_where_better_than_the_lps_but_flagged(monkeypatch,
                                                                           fit_intercept):
    # Two points: the max margin is ||x|| = sqrt(1.25) (w along x), the L1-minimal LP
    # separator is w = (1, 0) with margin 1.
    X, y = np.array([[1.0, 0.5], [-1.0, -0.5]]), np.array([1.0, -1.0])
    assert _lp_margin(X, y, fit_intercept) == pytest.approx(1.0, rel=1e-9)
    monkeypatch.setattr(qp, "svm_primal_qp", _unproven)
    with pytest.warns(InexactMarginWarning, match=r"duality gap of 1\.0e\+00 .* using the QP's"):
        w, b, margin = max_margin_separator(X, y, fit_intercept=fit_intercept)
    assert margin == pytest.approx(np.sqrt(1.25), rel=1e-7)
    np.testing.assert_allclose(w, np.array([1.0, 0.5]) / 1.25, rtol=1e-7)
