"""SVC's default solver on awkward linear problems, against the QP (Clarabel) as the oracle.

``solver="auto"`` runs dual coordinate descent on linear problems of any size. DCD used to stop at
``max_iter`` far from the optimum, with only a ConvergenceWarning, on un-centred or badly
scaled features (issue 8: 3000 x 20 rows from N(50, 1), objective 922 against the QP's 302).
Now the default solver must reach the QP's objective to 1e-6 on every shape, DCD itself
where it can (``solver_ == "dcd"``), the QP otherwise (``solver_ == "qp"``).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numba import config as numba_config
from sklearn.exceptions import ConvergenceWarning

from halfspaces import SolverFallbackWarning, load
from halfspaces.linear import svm
from halfspaces.linear.svm import SVC
from halfspaces.losses import svm_objective

# Interpreted kernels (NUMBA_DISABLE_JIT=1) are ~100x slower: smaller problems, same shapes.
N, D = (60, 6) if numba_config.DISABLE_JIT else (400, 12)


def _labels(rng, X, noise=0.3):
    """Labels of a random direction through the centred data, with a little noise."""
    z = (X - X.mean(axis=0)) @ rng.normal(size=X.shape[1])
    return np.where(z / z.std() + noise * rng.normal(size=X.shape[0]) > 0, 1.0, -1.0)


def _shape(name, seed=0):
    rng = np.random.default_rng(seed)
    if name == "uncentred":  # the issue's data: every feature near 50
        X = rng.normal(50.0, 1.0, size=(N, D))
    elif name == "near_1e3":
        X = 1e3 + rng.normal(size=(N, D))
    elif name == "mixed_scales":  # half of the columns 1000 times the others
        X = rng.normal(size=(N, D)) * np.where(np.arange(D) < D // 2, 1e3, 1.0)
    elif name == "correlated":  # rank 3 plus a little noise
        X = rng.normal(size=(N, 3)) @ rng.normal(size=(3, D)) + 0.01 * rng.normal(size=(N, D))
    elif name == "n_much_less_than_d":
        X = rng.normal(size=(N // 8, 8 * D))
    elif name == "n_much_more_than_d":
        X = rng.normal(size=(8 * N, 3)) + 2.0
    else:  # sparse 0/1 features present in 30% of the rows (a9a-like: un-centred, CSR)
        X = sp.random(N, 4 * D, density=0.3, format="csr", random_state=seed,
                      data_rvs=np.ones)
        return X, _labels(rng, X.toarray())
    return X, _labels(rng, X)


SHAPES = ["uncentred", "near_1e3", "mixed_scales", "correlated", "n_much_less_than_d",
          "n_much_more_than_d", "sparse_binary"]


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("name", SHAPES)
def test_default_solver_reaches_the_qp_objective(name, fit_intercept):
    X, y = _shape(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", ConvergenceWarning)
        auto = SVC(fit_intercept=fit_intercept, random_state=0).fit(X, y)
    qp = SVC(fit_intercept=fit_intercept, solver="qp").fit(X, y)
    j_auto = svm_objective(auto.coef_[0], auto.intercept_[0], X, y, C=1.0)
    j_qp = svm_objective(qp.coef_[0], qp.intercept_[0], X, y, C=1.0)
    assert abs(j_auto - j_qp) <= 1e-6 * j_qp
    assert auto.duality_gap_ <= 1e-6 * auto.objective_
    # DCD converges on every shape but the mixed scales (C ||x||^2 ~ 1e6: the QP takes over,
    # and says so)
    assert auto.solver_ == ("qp" if name == "mixed_scales" else "dcd")
    fallbacks = [w for w in caught if w.category is SolverFallbackWarning]
    assert len(fallbacks) == (name == "mixed_scales")
    assert ("did not certify its duality gap" in auto.solver_reason_) == (
        name == "mixed_scales")


def test_the_issue_example_at_full_size():
    # 3000 x 20 (fewer columns interpreted) from N(50, 1), C = 1
    rng = np.random.default_rng(8)
    n, d = 3000, (3 if numba_config.DISABLE_JIT else 20)
    X = rng.normal(50.0, 1.0, size=(n, d))
    y = _labels(rng, X, noise=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        auto = SVC(random_state=0).fit(X, y)
    qp = SVC(solver="qp").fit(X, y)
    assert auto.solver_ == "dcd"
    assert auto.objective_ == pytest.approx(qp.objective_, rel=1e-6)
    assert auto.score(X, y) == pytest.approx(qp.score(X, y), abs=1 / n)


def test_without_room_for_the_qp_the_warning_gives_the_gap(monkeypatch):
    monkeypatch.setattr(svm, "_QP_MAX_ENTRIES", 0)
    X, y = _shape("mixed_scales")
    with pytest.warns(ConvergenceWarning, match=r"did not reach tol=0.0001 in max_iter=50"
                      r" epochs; its objective is within a relative duality gap of"):
        clf = SVC(max_iter=50, random_state=0).fit(X, y)
    assert clf.solver_ == "dcd" and clf.duality_gap_ > 1e-6 * clf.objective_


def test_the_fallback_to_the_qp_is_said_as_a_warning_and_a_reason(tmp_path):
    X, y = _shape("mixed_scales")
    with pytest.warns(SolverFallbackWarning, match=r"SVC: solver='auto': dual coordinate"
                      r" descent did not certify its duality gap within max_iter=50 epochs"
                      r" \(relative gap .*, wanted 1e-06\), so the low-rank interior point"
                      r" solved the problem: exact, certified. To keep dual coordinate descent,"
                      r" increase max_iter") as record:
        clf = SVC(max_iter=50, random_state=0).fit(X, y)
    assert record[0].filename == __file__  # at the caller's line
    assert clf.solver_ == "qp" and clf.solver_reason_.startswith("solver='auto': dual")
    qp = SVC(max_iter=50, solver="qp").fit(X, y)
    assert clf.objective_ == pytest.approx(qp.objective_, rel=1e-6)
    assert clf.duality_gap_ <= 1e-6 * clf.objective_
    assert qp.solver_reason_ == "solver='qp' was given"
    clf.save(tmp_path / "svc.hsm")
    assert load(tmp_path / "svc.hsm").solver_reason_ == clf.solver_reason_


@pytest.mark.parametrize("multi_class", ["ovr", "crammer_singer"])
def test_auto_solves_small_dense_many_class_problems_by_dcd(multi_class):
    """Ten classes, few dense rows (as digits): DCD, each problem certified to the QP's
    objective (one-vs-rest), or Crammer-Singer's own solver."""
    rng = np.random.default_rng(3)
    y = np.arange(N) % 10  # every class present at both sizes
    X = np.abs(rng.normal(size=(10, D))[y] + 0.3 * rng.normal(size=(N, D)))
    fit_b = multi_class == "ovr"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = SVC(C=1.0 if fit_b else 0.01, multi_class=multi_class, fit_intercept=fit_b,
                   random_state=0).fit(X, y)
    assert auto.solver_ == "dcd" and "dual coordinate descent" in auto.solver_reason_
    if multi_class == "ovr":
        qp = SVC(solver="qp").fit(X, y)
        np.testing.assert_allclose(auto.objective_, qp.objective_, rtol=1e-6)
    else:
        assert auto.solver_reason_.startswith("multi_class='crammer_singer'")
        assert auto.duality_gap_ <= 1e-6 * auto.objective_
