"""SVC(warm_start=True): DCD restarts from the previous dual variables, same optimum."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import SVC
from halfspaces.solvers.dcd import dcd_svm
from halfspaces.solvers.qp import svm_primal_qp


def _noisy(n=120, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 0.5
    y = np.where(X[:, 0] - X[:, 1] + 0.8 * rng.normal(size=n) > 0.5, 1, -1)
    return X, y


def _optimum(X, y, C, loss="hinge", fit_intercept=True, s=None):
    """The primal SVM objective at the QP's solution (Clarabel, interior point)."""
    qp = svm_primal_qp(X, y.astype(float), C, loss=loss, fit_intercept=fit_intercept,
                       sample_weight=s)
    z = y * (X @ qp.theta + qp.theta_0)
    slack = np.maximum(0.0, 1.0 - z)
    loss_i = slack if loss == "hinge" else slack * slack
    return 0.5 * qp.theta @ qp.theta + C * float(((1.0 if s is None else s) * loss_i).sum())


def _bag_of_words(n=150, d=100, words=20, seed=0):
    """Word counts, two topics that share half their words (as benchmarks/bench_ovr_threads)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(2, size=n)
    lengths = rng.poisson(words, size=n)
    own = rng.random(lengths.sum()) < 0.5
    cols = np.where(own, np.repeat(y, lengths) * (d // 2) + rng.integers(d // 2, size=own.size),
                    rng.integers(d, size=own.size))
    X = sp.csr_matrix((np.ones(cols.size), (np.repeat(np.arange(n), lengths), cols)),
                      shape=(n, d))
    X.sum_duplicates()
    return X, 2 * y - 1


def test_a_c_path_costs_a_fraction_of_the_cold_solves():
    X, y = _bag_of_words()
    warm = SVC(solver="dcd", warm_start=True, random_state=0)
    warm_epochs = cold_epochs = 0
    for C in np.logspace(-2, 1, 10):
        warm.set_params(C=C).fit(X, y)
        cold = SVC(C=C, solver="dcd", random_state=0).fit(X, y)
        warm_epochs += warm.n_iter_
        cold_epochs += cold.n_iter_
        assert warm.objective_ == pytest.approx(cold.objective_, rel=2e-6)
    assert warm_epochs < 0.6 * cold_epochs


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_each_warm_fit_of_a_path_is_the_qp_optimum(loss, fit_intercept):
    X, y = _noisy()
    warm = SVC(solver="dcd", loss=loss, fit_intercept=fit_intercept, warm_start=True,
               random_state=0)
    for C in (0.01, 0.1, 0.03):
        warm.set_params(C=C).fit(X, y)
        assert warm.objective_ == pytest.approx(_optimum(X, y, C, loss, fit_intercept),
                                                rel=1e-5)


def test_a_refit_at_the_optimum_stops_at_the_first_check():
    X, y = _noisy(seed=1)
    svc = SVC(C=0.5, solver="dcd", warm_start=True, random_state=0).fit(X, y)
    cold_epochs = svc.n_iter_
    svc.fit(X, y)
    assert svc.n_iter_ <= 2 < cold_epochs
    assert svc.objective_ == pytest.approx(_optimum(X, y, 0.5), rel=1e-6)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dcd_from_any_start_reaches_the_qp_optimum(sparse, fit_intercept):
    """Starting points outside the box (clipped to it) and weighted boxes C_i = C s_i."""
    X, y = _noisy(seed=2)
    rng = np.random.default_rng(0)
    s = rng.uniform(0.5, 2.0, size=len(y))
    C = 0.3
    alpha0 = rng.uniform(-1.0, 3.0, size=len(y))
    Z = sp.csr_matrix(X) if sparse else X
    res = dcd_svm(Z, y.astype(float), C, fit_intercept=fit_intercept, tol=1e-5,
                  sample_weight=s, alpha0=alpha0, theta_0=5.0)
    assert res.converged
    assert np.all((res.alpha >= 0) & (res.alpha <= C * s))
    assert res.primal == pytest.approx(_optimum(X, y, C, "hinge", fit_intercept, s), rel=1e-6)


def test_multiclass_warm_start_in_threads_is_the_path_of_one_thread():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 5))
    y = np.argmax(X[:, :3] + 0.5 * rng.normal(size=(90, 3)), axis=1)
    fits = {}
    for n_jobs in (1, 2):
        svc = SVC(solver="dcd", warm_start=True, random_state=0, n_jobs=n_jobs)
        for C in (0.1, 1.0):
            svc.set_params(C=C).fit(X, y)
        fits[n_jobs] = svc
    assert fits[1].coef_.tobytes() == fits[2].coef_.tobytes()
    for k, c in enumerate(fits[1].classes_):
        y_k = np.where(y == c, 1, -1)
        assert fits[2].objective_[k] == pytest.approx(_optimum(X, y_k, 1.0), rel=1e-5)


def test_no_warm_start_on_other_classes_or_without_the_flag():
    X, y = _noisy(n=60, seed=4)
    fresh = SVC(C=0.5, solver="dcd", random_state=0).fit(X[:50], y[:50])
    svc = SVC(C=0.1, solver="dcd", warm_start=True, random_state=0)
    svc.fit(X[:50], np.where(y[:50] > 0, 2, 1)).set_params(C=0.5).fit(X[:50], y[:50])
    assert svc.coef_.tobytes() == fresh.coef_.tobytes()
    svc.set_params(C=0.1).fit(X[:50], y[:50]).set_params(C=0.5).fit(X[:50], y[:50])
    assert svc.coef_.tobytes() != fresh.coef_.tobytes()  # the same classes: a warm start
    cold = SVC(C=0.1, solver="dcd", random_state=0).fit(X[:50], y[:50])
    cold.set_params(C=0.5).fit(X[:50], y[:50])
    assert cold.coef_.tobytes() == fresh.coef_.tobytes()


def test_warm_start_must_be_a_bool():
    X, y = _noisy(n=20)
    with pytest.raises(ValueError, match="SVC: 'warm_start' must be a bool"):
        SVC(warm_start="yes").fit(X, y)


def test_the_start_is_the_previous_alpha_scaled_to_the_new_c():
    """With C this small every alpha_i sits at its bound C (every row inside the margin),
    so the previous solution scaled by C_new / C_old is the new optimum: the refit stops at
    its first check (the previous alpha, clipped but not scaled, is not optimal)."""
    X, y = _noisy(seed=3)
    svc = SVC(C=1e-4, solver="dcd", fit_intercept=False, warm_start=True,
              random_state=0).fit(X, y)
    assert np.all(np.abs(svc.dual_coef_) == pytest.approx(1e-4))
    svc.set_params(C=2e-4).fit(X, y)
    assert svc.n_iter_ <= 2
    assert svc.objective_ == pytest.approx(_optimum(X, y, 2e-4, fit_intercept=False),
                                           rel=1e-6)
