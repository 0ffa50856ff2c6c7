"""The low-rank interior point reaches the QP's optimum (Clarabel on the primal), certified
by the duality gap; DCD hands over to it early at large C, and without it (shrinking on or
off) reaches the same optimum."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import SolverFallbackWarning
from halfspaces._primitives import product_rows
from halfspaces.linear.svm import SVC
from halfspaces.solvers.dcd import dcd_svm, primal_dual
from halfspaces.solvers.lowrank_ipm import svm_lowrank_ipm
from halfspaces.solvers.qp import svm_primal_qp


def _noisy(n=40, d=4, seed=0, sparse=False):
    """Overlapping classes: at large C most rows sit at their bound, where DCD is slow."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 1.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    if sparse:
        X[rng.random(size=X.shape) < 0.4] = 0.0
        return sp.csr_matrix(X), y
    return X, y


def _objective(X, y, C, s, theta, theta_0):
    """The primal in NumPy: 1/2 ||theta||^2 + sum_i C s_i max(0, 1 - y_i (theta.x_i + b))."""
    z = y * (np.asarray(X @ theta).ravel() + theta_0)
    return 0.5 * theta @ theta + C * np.sum((1.0 if s is None else s) * np.maximum(0.0, 1 - z))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_interior_point_is_the_qp_optimum_with_a_certified_gap(sparse, fit_intercept,
                                                                   weighted):
    X, y = _noisy(sparse=sparse)
    s = np.random.default_rng(1).uniform(0.5, 2.0, size=y.size) if weighted else None
    C = 100.0
    res = svm_lowrank_ipm(X, y, C, fit_intercept=fit_intercept, gap_tol=1e-8,
                          sample_weight=s)
    qp = svm_primal_qp(X, y, C, fit_intercept=fit_intercept, sample_weight=s)
    assert res.converged
    primal, dual, _ = primal_dual(product_rows(X), y, C, "hinge", fit_intercept, res.alpha,
                                  res.theta, res.theta_0, s)
    assert primal - dual <= 1e-8 * primal
    assert primal == pytest.approx(_objective(X, y, C, s, res.theta, res.theta_0), rel=1e-12)
    assert primal == pytest.approx(_objective(X, y, C, s, qp.theta, qp.theta_0), rel=1e-7)
    assert np.all((res.alpha >= 0.0) & (res.alpha <= C * (1.0 if s is None else s)))


def test_dcd_gives_up_early_only_when_asked():
    X, y = _noisy()
    patient = dcd_svm(X, y, 1000.0, fit_intercept=False, max_iter=100, rng=0)
    hasty = dcd_svm(X, y, 1000.0, fit_intercept=False, max_iter=100, rng=0, give_up_after=50)
    assert not patient.converged and patient.n_iter == 100
    assert not hasty.converged and 50 / 8 <= hasty.n_iter < 100
    # an easy problem converges whatever the patience
    easy = dcd_svm(X, y, 0.01, fit_intercept=False, rng=0, give_up_after=1)
    assert easy.converged


def test_auto_at_large_c_switches_to_the_interior_point_and_says_so():
    X, y = _noisy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = SVC(C=1000.0, fit_intercept=False, random_state=0).fit(X, y)
    qp = SVC(C=1000.0, fit_intercept=False, solver="qp").fit(X, y)
    assert auto.solver_ == "qp" and "low-rank interior point" in auto.solver_reason_
    assert any(w.category is SolverFallbackWarning for w in caught)
    assert auto.objective_ == pytest.approx(qp.objective_, rel=1e-6)
    assert auto.duality_gap_ <= 1e-6 * auto.objective_


def test_dcd_with_and_without_shrinking_is_the_qp_optimum(fit_intercept=False):
    X, y = _noisy(sparse=True)
    qp = svm_primal_qp(X, y, 0.1, fit_intercept=fit_intercept)
    for shrinking in (True, False):
        res = dcd_svm(X, y, 0.1, fit_intercept=fit_intercept, shrinking=shrinking, rng=0)
        assert res.converged
        assert res.primal == pytest.approx(_objective(X, y, 0.1, None, qp.theta, qp.theta_0),
                                           rel=1e-6)


def test_where_the_interior_point_stops_short_dcd_from_its_iterate_certifies(monkeypatch):
    from halfspaces.linear import svm

    X, y = _noisy(n=24, d=3)
    short = []

    def six_steps(*args, **kwargs):
        res = svm_lowrank_ipm(*args, **{**kwargs, "max_iter": 6})
        short.append(res.converged)
        return res

    def no_clarabel(*args, **kwargs):
        raise AssertionError("DCD from the interior point's iterate certifies without it")

    monkeypatch.setattr(svm, "svm_lowrank_ipm", six_steps)
    monkeypatch.setattr(svm, "svm_primal_qp", no_clarabel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SolverFallbackWarning)
        auto = SVC(C=100.0, fit_intercept=False, random_state=0).fit(X, y)
    qp = svm_primal_qp(X, y, 100.0, fit_intercept=False)
    assert short == [False]
    assert auto.duality_gap_ <= 1e-6 * auto.objective_
    assert auto.objective_ == pytest.approx(_objective(X, y, 100.0, None, qp.theta, 0.0),
                                            rel=1e-6)
