"""PegasosSVC against a NumPy reference of the paper's step, an exact QP optimum and sklearn."""

from __future__ import annotations

import re

import clarabel
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from halfspaces import PegasosSVC


def _data(n=60, d=5, seed=0, flip_y=0.1):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=3, n_redundant=0,
                               flip_y=flip_y, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def reference_pegasos(X, y, order, lam, k, eta, project, fit_b, average=None, b_decay=1.0):
    """The paper's mini-batch step on a plain vector w (no a*v), in NumPy; the offset b takes
    ``b_decay`` times the step of w.

    Returns the last iterate, or the (uniform / t-weighted) average of the iterates.
    """
    w, b = np.zeros(X.shape[1]), 0.0
    sum_w, sum_b, total = np.zeros_like(w), 0.0, 0.0
    T = -(-len(order) // k)
    for t, lo in enumerate(range(0, len(order), k), start=1):
        A = order[lo:lo + k]
        viol = [i for i in A if y[i] * (X[i] @ w + b) < 1]
        e = eta(t)
        w = (1 - e * lam) * w + e / len(A) * sum((y[i] * X[i] for i in viol), np.zeros_like(w))
        if fit_b:
            b += b_decay * e / len(A) * sum(y[i] for i in viol)
        if project and np.linalg.norm(w) > 1 / np.sqrt(lam):
            w = w / (np.sqrt(lam) * np.linalg.norm(w))
        weight = {"uniform": 1.0, "weighted": float(t),
                  "suffix": float(t > T - -(-T // 10))}.get(average, 0.0)  # last tenth
        sum_w, sum_b, total = sum_w + weight * w, sum_b + weight * b, total + weight
    return (w, b) if average is None else (sum_w / total, sum_b / total)


SCHEDULES = {
    "pegasos": ({}, lambda lam: lambda t: 1 / (lam * t)),
    "notes": ({}, lambda lam: lambda t: 1 / t),
    "constant": ({"eta0": 0.3}, lambda lam: lambda t: 0.3),
    "offset": ({"t0": 7.0}, lambda lam: lambda t: 1 / (lam * (t + 7.0))),
}


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("batch_size", [1, 4])
@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("fit_intercept, decay", [(False, "auto"), (True, 1.0), (True, 0.3),
                                                  (True, "auto")])
def test_steps_match_numpy_reference(sparse, batch_size, schedule, fit_intercept, decay):
    X, y = _data(n=23)
    X[np.arange(23) % 3 == 0, 1:4] = 0.0  # density 0.8: "auto" differs from 1
    lam = 0.05
    extra, eta = SCHEDULES[schedule]
    est = PegasosSVC(lam, n_iter=11, batch_size=batch_size, learning_rate=schedule,
                     sampling="cyclic", average=False, fit_intercept=fit_intercept,
                     intercept_decay=decay, **extra)
    est.fit(sp.csr_matrix(X) if sparse else X, y)
    order = np.tile(np.arange(23), 3)[: 11 * batch_size]
    # "auto": the fraction of non-zero entries of X, at least 0.03 (the documented rule)
    b_decay = max(np.count_nonzero(X) / X.size, 0.03) if decay == "auto" else decay
    w, b = reference_pegasos(X, y, order, lam, batch_size, eta(lam), True, fit_intercept,
                             b_decay=b_decay)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-12, abs=1e-12)
    assert est.t_ == 11


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("average", ["uniform", "weighted", "suffix"])
def test_averaged_iterate_matches_reference_across_renormalisation(sparse, average):
    # lam * eta0 = 0.99 shrinks a by 100x per step: the a*v form renormalises every few
    # steps, and the averaging sums must survive it.
    X, y = _data(n=17, seed=3)
    lam, eta0 = 1.0, 0.99
    est = PegasosSVC(lam, n_iter=40, learning_rate="constant", eta0=eta0, sampling="cyclic",
                     average=True if average == "uniform" else average, intercept_decay=1.0)
    est.fit(sp.csr_matrix(X) if sparse else X, y)
    order = np.tile(np.arange(17), 3)[:40]
    w, b = reference_pegasos(X, y, order, lam, 1, lambda t: eta0, True, True, average)
    # sum_s w_s = S v - u cancels about 1/a_min = 1e6 in relative precision.
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-9, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-9, abs=1e-12)


def test_suffix_average_restarts_with_each_fit():
    # warm_start: the second fit averages the last tenth of its own 30 steps (t = 58..60).
    X, y = _data(n=15, seed=2)
    est = PegasosSVC(0.1, n_iter=30, average="suffix", sampling="cyclic", eta0=0.2,
                     learning_rate="constant", warm_start=True, intercept_decay=1.0)
    est.fit(X, y).fit(X, y)
    eta = lambda t: 0.2  # noqa: E731
    iterates = [reference_pegasos(X, y, np.tile(np.arange(15), 4)[:T], 0.1, 1, eta, True, True)
                for T in range(58, 61)]
    np.testing.assert_allclose(est.coef_[0], np.mean([w for w, _ in iterates], axis=0),
                               rtol=1e-10)
    assert est.intercept_[0] == pytest.approx(np.mean([b for _, b in iterates]), rel=1e-10)


def test_average_int_starts_after_that_step():
    X, y = _data(n=20)
    est = PegasosSVC(0.1, n_iter=20, average=5, sampling="cyclic", learning_rate="pegasos")
    est.fit(X, y)
    eta = lambda t: 1 / (0.1 * t)  # noqa: E731
    iterates = [reference_pegasos(X, y, np.arange(T), 0.1, 1, eta, True, True)
                for T in range(6, 21)]
    np.testing.assert_allclose(est.coef_[0], np.mean([w for w, _ in iterates], axis=0),
                               rtol=1e-10)


def qp_svm_objective(X, y, lam):
    """min_w lam/2 ||w||^2 + 1/n sum hinge(y w.x), solved exactly as a QP with Clarabel."""
    n, d = X.shape
    C = 1.0 / (lam * n)
    P = sp.csc_matrix(sp.block_diag([sp.eye(d), sp.csc_matrix((n, n))]))
    q = np.concatenate([np.zeros(d), C * np.ones(n)])
    A = sp.csc_matrix(sp.vstack([sp.hstack([-(y[:, None] * X), -sp.eye(n)]),
                                 sp.hstack([sp.csc_matrix((n, d)), -sp.eye(n)])]))
    b = np.concatenate([-np.ones(n), np.zeros(n)])
    settings_ = clarabel.DefaultSettings()
    settings_.verbose = False
    sol = clarabel.DefaultSolver(P, q, A, b, [clarabel.NonnegativeConeT(2 * n)], settings_)
    w = np.array(sol.solve().x)[:d]
    return lam / 2 * w @ w + np.maximum(0, 1 - y * (X @ w)).mean()


def svm_J(w, b, X, y, lam):
    return lam / 2 * w @ w + np.maximum(0, 1 - y * (X @ w + b)).mean()


@pytest.fixture(scope="module")
def noisy():
    X, y = _data(n=400, d=10, seed=1, flip_y=0.15)
    return X, y, qp_svm_objective(X, y, 0.01)


def test_qp_reference_agrees_with_liblinear(noisy):
    X, y, J_opt = noisy
    svc = LinearSVC(C=1 / (0.01 * 400), loss="hinge", fit_intercept=False, tol=1e-10,
                    max_iter=100_000).fit(X, y)
    assert svm_J(svc.coef_[0], 0.0, X, y, 0.01) == pytest.approx(J_opt, rel=1e-5)


@pytest.mark.parametrize("params", [
    {},                                                   # defaults
    {"learning_rate": "pegasos", "average": False},       # the paper's algorithm
    {"batch_size": 8},
    {"sampling": "uniform"},
])
def test_reaches_one_percent_of_optimum(noisy, params):
    X, y, J_opt = noisy
    est = PegasosSVC(0.01, max_iter=60, fit_intercept=False, random_state=0,
                     record_objective=True, **params).fit(X, y)
    J = svm_J(est.coef_[0], 0.0, X, y, 0.01)
    assert J <= 1.01 * J_opt
    assert est.objective_history_[-1] == pytest.approx(J, rel=1e-12)
    assert J >= J_opt * (1 - 1e-6)  # nobody beats the exact optimum


@pytest.mark.parametrize("sparse", [False, True])
def test_eta0_auto_is_half_the_inverse_mean_squared_norm(sparse):
    X, y = _data(n=50, d=6, seed=4)
    X = X * np.arange(1, 51)[:, None] ** 0.5  # rows of very different norms
    X[:, :5][X[:, :5] < 0.5] = 0.0
    est = PegasosSVC(0.01, max_iter=1).fit(sp.csr_matrix(X) if sparse else X, y)
    assert est.eta0_ == pytest.approx(1.0 / (2.0 * np.mean(np.sum(X ** 2, axis=1))), rel=1e-12)
    density = np.mean(X != 0)
    assert 0.03 < density < 0.9 and est.intercept_decay_ == pytest.approx(density, rel=1e-12)
    calibrated = PegasosSVC(0.01, max_iter=1, eta0="calibrate", random_state=0).fit(X, y)
    r2 = np.mean(np.sum(X ** 2, axis=1))  # the grid c / mean ||x||^2, halved
    assert any(calibrated.eta0_ == pytest.approx(c / r2 / 2, rel=1e-12)
               for c in (0.1, 0.3, 1.0, 3.0, 10.0))


def qp_svm_objective_with_offset(X, y, lam):
    """min_{w,b} lam/2 ||w||^2 + 1/n sum hinge(y (w.x + b)), b free, as a Clarabel QP."""
    n, d = X.shape
    P = sp.csc_matrix(sp.block_diag([sp.eye(d), sp.csc_matrix((n + 1, n + 1))]))
    q = np.concatenate([np.zeros(d + 1), np.ones(n) / (lam * n)])
    A = sp.csc_matrix(sp.vstack([sp.hstack([-(y[:, None] * X), -y[:, None], -sp.eye(n)]),
                                 sp.hstack([sp.csc_matrix((n, d + 1)), -sp.eye(n)])]))
    rhs = np.concatenate([-np.ones(n), np.zeros(n)])
    settings_ = clarabel.DefaultSettings()
    settings_.verbose = False
    x = np.array(clarabel.DefaultSolver(P, q, A, rhs, [clarabel.NonnegativeConeT(2 * n)],
                                        settings_).solve().x)
    return svm_J(x[:d], x[d], X, y, lam)


@pytest.mark.parametrize("sparse", [False, True])
def test_imbalanced_offset_reaches_one_percent_of_exact_optimum(sparse):
    # 10% positives: the optimal offset b (unregularized) is far from 0, as on w8a / reuters.
    X, y = make_classification(n_samples=500, n_features=8, weights=[0.9], flip_y=0.05,
                               random_state=5)
    y = np.where(y == 1, 1.0, -1.0)
    lam = 0.01
    J_opt = qp_svm_objective_with_offset(X, y, lam)
    est = PegasosSVC(lam, max_iter=60, random_state=0).fit(sp.csr_matrix(X) if sparse else X, y)
    J = svm_J(est.coef_[0], est.intercept_[0], X, y, lam)
    assert J_opt * (1 - 1e-6) <= J <= 1.01 * J_opt


def test_sparse_and_dense_fits_are_identical(noisy):
    X, y, _ = noisy
    dense = PegasosSVC(0.01, max_iter=3, random_state=2).fit(X, y)
    sparse = PegasosSVC(0.01, max_iter=3, random_state=2).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dense.intercept_, sparse.intercept_, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), log_lam=st.floats(-4, 1),
       schedule=st.sampled_from(["pegasos", "notes", "offset", "constant"]),
       batch_size=st.integers(1, 5))
def test_projection_keeps_w_in_the_ball(seed, log_lam, schedule, batch_size):
    lam = 10.0 ** log_lam
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=rng.uniform(0.1, 10), size=(30, 4))
    y = rng.choice([0, 1], size=30)
    y[:2] = [0, 1]
    est = PegasosSVC(lam, learning_rate=schedule, eta0=1.0, average=False,
                     batch_size=batch_size, random_state=seed)
    for _ in range(5):
        est.partial_fit(X, y, classes=[0, 1])
        assert np.linalg.norm(est.coef_[0]) <= (1 + 1e-9) / np.sqrt(lam)


def test_partial_fit_continues_the_schedule():
    X, y = _data(n=30)
    one = PegasosSVC(0.1, max_iter=2, sampling="cyclic", learning_rate="pegasos",
                     average=False).fit(X, y)
    two = PegasosSVC(0.1, learning_rate="pegasos", average=False)
    two.partial_fit(X, y, classes=[-1.0, 1.0]).partial_fit(X, y)
    np.testing.assert_allclose(one.coef_, two.coef_, rtol=1e-12)
    assert two.t_ == 60 and two.n_iter_ == 2


def test_warm_start_continues_t():
    X, y = _data(n=30)
    est = PegasosSVC(0.1, max_iter=2, warm_start=True, random_state=0).fit(X, y)
    est.fit(X, y)
    assert est.t_ == 120


def test_n_iter_counts_steps():
    X, y = _data(n=30)
    est = PegasosSVC(0.1, n_iter=75, batch_size=2, random_state=0).fit(X, y)
    assert est.t_ == 75


def test_same_seed_same_result():
    X, y = _data(n=50)
    a = PegasosSVC(0.01, sampling="uniform", random_state=5).fit(X, y)
    b = PegasosSVC(0.01, sampling="uniform", random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_permutation_sampling_is_reproducible_and_visits_every_row_each_epoch():
    X, y = _data(n=31)
    runs = [PegasosSVC(0.01, max_iter=3, random_state=s).fit(X, y) for s in (7, 7, 8)]
    np.testing.assert_array_equal(runs[0].coef_, runs[1].coef_)
    assert not np.array_equal(runs[0].coef_, runs[2].coef_)
    est = PegasosSVC(0.01, max_iter=4, random_state=3)
    epochs = list(est._orders(np.random.RandomState(3), 31))
    orders = [e.copy() for e in est._orders(np.random.RandomState(3), 31)]
    assert len(epochs) == 4 and all(sorted(o) == list(range(31)) for o in orders)
    assert len({tuple(o) for o in orders}) == 4  # a fresh shuffle each epoch


def test_shuffle_draws_every_permutation_uniformly():
    from scipy.stats import chisquare

    from halfspaces._primitives import shuffle as _shuffle

    state = np.array([12345], dtype=np.uint64)
    order = np.arange(4, dtype=np.int64)
    counts: dict = {}
    for _ in range(24_000):  # each epoch reshuffles the previous order in place
        _shuffle(order, state)
        counts[tuple(order)] = counts.get(tuple(order), 0) + 1
    assert len(counts) == 24  # 4! permutations, about 1000 each
    assert chisquare(list(counts.values())).pvalue > 1e-3  # fixed seed: not flaky


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_stats_are_the_squared_row_norms_and_the_density(dtype):
    from halfspaces.linear._pegasos_base import row_stats as _row_stats

    rng = np.random.default_rng(0)
    dense = (rng.random((9, 7)) * (rng.random((9, 7)) < 0.4)).astype(dtype)
    dense[3] = 0.0  # an empty row
    expected = (dense.astype(np.float64) ** 2).sum(axis=1)
    for X in (dense, sp.csr_matrix(dense)):
        norms, density = _row_stats(X)
        np.testing.assert_allclose(norms, expected, rtol=1e-6 if dtype == np.float32 else 1e-14)
        assert density == np.count_nonzero(dense) / dense.size
    dup = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([0, 0, 1]), np.array([0, 3, 3])),
                        shape=(2, 4))  # duplicate (0, 0) entries add up before squaring
    assert not dup.has_canonical_format
    np.testing.assert_allclose(_row_stats(dup)[0], [9.0 + 9.0, 0.0])


def test_multiclass_one_vs_rest_matches_binary_problems():
    X, y = make_classification(n_samples=90, n_features=6, n_informative=4, n_classes=3,
                               random_state=0)
    est = PegasosSVC(0.05, max_iter=4, sampling="cyclic", eta0=0.1).fit(X, y)
    assert est.coef_.shape == (3, 6)
    for k in range(3):
        binary = PegasosSVC(0.05, max_iter=4, sampling="cyclic", eta0=0.1).fit(X, y == k)
        np.testing.assert_allclose(est.coef_[k], binary.coef_[0], rtol=1e-12)
    assert est.decision_function(X).shape == (90, 3)
    assert set(est.predict(X)) <= {0, 1, 2}


def test_tol_stops_early_and_records():
    X, y = _data(n=200)
    est = PegasosSVC(0.01, max_iter=200, tol=1e-2, random_state=0).fit(X, y)
    assert est.n_iter_ < 200
    assert len(est.objective_history_) == est.n_iter_


def test_learn_one_equals_one_partial_fit_pass():
    X, y = _data(n=20)
    one_by_one = PegasosSVC(0.1, eta0=0.5, average=False)
    for x_t, y_t in zip(X, y, strict=True):
        one_by_one.learn_one(x_t, y_t, classes=[-1.0, 1.0])
    batch = PegasosSVC(0.1, eta0=0.5, average=False).partial_fit(X, y, classes=[-1.0, 1.0])
    np.testing.assert_allclose(one_by_one.coef_, batch.coef_, rtol=1e-12)
    assert one_by_one.t_ == 20
    assert one_by_one.predict_one(X[0]) == batch.predict(X[:1])[0]


def test_lam_error_message():
    msg = ("PegasosSVC: 'lam' must be a float > 0 (lambda in the Pegasos objective); got -0.1."
           " Try a small positive value such as 1e-4.")
    with pytest.raises(ValueError, match=re.escape(msg)):
        PegasosSVC(lam=-0.1).fit(*_data())


@pytest.mark.parametrize("params, match", [
    ({"batch_size": 0}, "'batch_size' must be an int >= 1"),
    ({"learning_rate": "fast"}, "'learning_rate' must be one of 'pegasos'"),
    ({"average": -1}, "'average' must be an int >= 0"),
    ({"average": "median"}, "'average' must be"),
    ({"n_iter": 0}, "'n_iter' must be an int >= 1"),
    ({"eta0": 0.0}, "'eta0' must be a float > 0"),
    ({"eta0": "best"}, "'eta0' must be a float > 0"),
    ({"intercept_decay": 0.0}, "'intercept_decay' must be a float > 0"),
    ({"intercept_decay": "fast"}, "'intercept_decay' must be a float > 0"),
    ({"sampling": "random"}, "'sampling' must be one of"),
])
def test_parameter_errors(params, match):
    with pytest.raises(ValueError, match=match):
        PegasosSVC(**params).fit(*_data())


@pytest.mark.parametrize("learn", [lambda est, X, y: est.fit(X, y),
                                   lambda est, X, y: est.partial_fit(X, y, classes=[0, 1])])
def test_a_kernel_points_to_kernel_pegasos(learn):
    msg = ("PegasosSVC: 'kernel' must be None (PegasosSVC is the linear, primal algorithm);"
           " got 'rbf'. Use KernelPegasosSVC(kernel='rbf') for kernelized Pegasos.")
    with pytest.raises(ValueError, match=re.escape(msg)):
        learn(PegasosSVC(kernel="rbf"), *_data())


def test_partial_fit_needs_classes():
    with pytest.raises(ValueError, match="'classes' is required on the first call"):
        PegasosSVC().partial_fit(*_data())


# PegasosSVC() and KernelPegasosSVC() (kernel="rbf"), the defaults, are checked in
# tests/test_common.py (which asserts that the sample-weight equivalence checks fail as
# expected: a weight k is one longer step, not k copies; test_pegasos_weights.py tests that).
@parametrize_with_checks([PegasosSVC(learning_rate="pegasos", average=False, batch_size=4)],
                         expected_failed_checks=lambda est: est._expected_failed_checks())
def test_sklearn_compatible(estimator, check):
    check(estimator)
