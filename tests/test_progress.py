"""Progress reports of the iterative solvers (halfspaces._progress), and the estimate of the
iterations left, against hand computations and against the solvers' own stopping rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import separable

from halfspaces import SVC, LogisticRegression
from halfspaces._progress import iterations_left, listener, listening
from halfspaces.solvers.dcd import dcd_svm, primal_dual
from halfspaces.solvers.qp import svm_primal_qp

# -- the extrapolation, by hand -------------------------------------------------------------


def test_iterations_left_extrapolates_the_log_linear_decrease():
    # 1e-2 at 10, 1e-4 at 20: a factor 100 per 10 iterations; 1e-6 is reached at 30.
    left, extrapolated = iterations_left([(10, 1e-2), (20, 1e-4)], 1e-6, 20, 1000)
    assert extrapolated and left == pytest.approx(10.0)
    # five iterations later, five are left
    assert iterations_left([(10, 1e-2), (20, 1e-4)], 1e-6, 25, 1000)[0] == pytest.approx(5.0)


def test_iterations_left_takes_its_rate_over_the_later_half_of_the_run():
    # The last point is (20, 1e-4); the first from iteration 10 on is (10, 1e-1): a factor
    # 1000 in 10 iterations. From 1e-4 to 1e-6 (a factor 100): 10 * log(100) / log(1000) =
    # 20/3 iterations. (The last two points alone would say 2 * 2/2 = 2.)
    points = [(2, 1.0), (10, 1e-1), (18, 1e-2), (20, 1e-4)]
    left, extrapolated = iterations_left(points, 1e-6, 20, 1000)
    assert extrapolated and left == pytest.approx(20 / 3)


def test_iterations_left_is_max_iter_bound_when_it_cannot_extrapolate():
    assert iterations_left([(10, 1e-2), (20, 1e-4)], 1e-6, 20, 25) == (5, False)  # capped
    assert iterations_left([(10, 1e-3), (20, 1e-2)], 1e-6, 20, 1000) == (980, False)  # rose
    assert iterations_left([(10, 1e-3)], 1e-6, 12, 1000) == (988, False)  # one point
    assert iterations_left([], 1e-6, 0, 50) == (50, False)
    assert iterations_left([(10, 1e-3), (20, 0.0)], 1e-6, 20, 50) == (30, False)  # 0: no log
    assert iterations_left([(10, 1e-3), (20, 1e-7)], 1e-6, 20, 50) == (0.0, True)  # reached


# -- the solvers' reports --------------------------------------------------------------------


def test_dcd_reports_every_epoch_and_its_gap_without_changing_the_iterates():
    X, y = separable(n=60, d=3, seed=1)
    y = np.where(np.arange(60) % 7 == 0, -y, y)  # some noise: a few dozen epochs
    plain = dcd_svm(X, y, 10.0, tol=1e-6, rng=np.random.RandomState(0))
    reports = []
    heard = dcd_svm(X, y, 10.0, tol=1e-6, rng=np.random.RandomState(0),
                    callback=reports.append)
    assert np.array_equal(plain.theta, heard.theta) and plain.theta_0 == heard.theta_0
    assert np.array_equal(plain.alpha, heard.alpha) and plain.n_iter == heard.n_iter
    # every epoch done (the last may end part-way through an epoch, which n_iter counts)
    epochs = sorted({r.iteration for r in reports})
    assert epochs == list(range(1, epochs[-1] + 1))
    assert heard.n_iter - 1 <= epochs[-1] <= heard.n_iter
    assert all(r.solver == "dcd" and r.max_iter == 1000 and r.target == 1e-8 for r in reports)
    gaps = [r for r in reports if r.measure is not None]
    assert gaps[0].iteration == 10  # the first check
    primal, dual, _ = primal_dual(X, y, 10.0, "hinge", True, heard.alpha, heard.theta,
                                  heard.theta_0)
    assert gaps[-1].measure == pytest.approx((primal - dual) / primal, rel=1e-9, abs=1e-15)
    assert gaps[-1].objective == pytest.approx(primal) and gaps[-1].measure <= 1e-8


def test_the_qp_reports_each_interior_point_iteration():
    X, y = separable(n=40, d=2, seed=2)
    reports = []
    res = svm_primal_qp(X, y, 1.0, callback=reports.append)
    assert res.status == "solved"
    assert [r.iteration for r in reports] == list(range(res.n_iter + 1))
    # Clarabel stops when the gap and the residuals are at most tol: the last report says so
    assert reports[-1].measure <= reports[-1].target == 1e-9 < reports[0].measure


def test_lbfgs_reports_its_gradient_norm_as_a_numpy_reference_computes_it():
    X, y = separable(n=80, d=4, seed=3)
    lam = 1e-2
    reports = []
    with listening(reports.append):
        clf = LogisticRegression(lam=lam, tol=1e-6).fit(X, y)
    assert listener() is None  # only inside the context
    assert [r.iteration for r in reports] == list(range(1, clf.n_iter_ + 1))
    # the gradient of J at the solution, from the formula (labels in {-1, +1})
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    w, b = clf.coef_[0], clf.intercept_[0]
    z = X @ w + b
    g = -y_pm / (1.0 + np.exp(y_pm * z))
    grad = np.concatenate([X.T @ g / len(y) + lam * w, [g.mean()]])
    J = np.mean(np.log1p(np.exp(-y_pm * z))) + lam / 2 * w @ w
    last = reports[-1]
    assert last.solver == "lbfgs" and last.target == 1e-6 and last.max_iter == 100
    assert last.measure == pytest.approx(np.abs(grad).max(), rel=1e-6, abs=1e-12)
    assert last.objective == pytest.approx(J, rel=1e-12)


def test_svc_sends_its_solvers_reports_to_the_listener():
    X, y = separable(n=50, d=2, seed=4)
    for solver, unit_max in (("dcd", 500), ("qp", 70)):
        reports = []
        with listening(reports.append):
            SVC(solver=solver, max_iter=unit_max, random_state=0).fit(X, y)
        assert reports and {r.solver for r in reports} == {solver}
        assert all(r.max_iter == unit_max for r in reports)
        assert all(r.measure is None or math.isfinite(r.measure) for r in reports)
