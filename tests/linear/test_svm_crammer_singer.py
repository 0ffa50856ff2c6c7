"""SVC(multi_class="crammer_singer"): the Crammer-Singer SVM, against LIBLINEAR and a QP."""

from __future__ import annotations

import clarabel
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from halfspaces import SVC, cli, load
from halfspaces.datasets import dump_svmlight


def _data(n=90, d=5, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X[:, :k] + 0.7 * rng.normal(size=(n, k)), axis=1)
    return X, y


def _cs_primal(W, X, y, C):
    """1/2 sum_m ||w_m||^2 + sum_i C_i max_m (e_i^m + w_m.x_i - w_{y_i}.x_i), from the math."""
    total = 0.5 * float((W * W).sum())
    for i, (x, c) in enumerate(zip(X, np.broadcast_to(C, len(y)), strict=True)):
        total += c * max((m != y[i]) + W[m] @ x - W[y[i]] @ x for m in range(len(W)))
    return total


def _cs_qp(X, y, k, C):
    """The primal as a QP (Clarabel): variables (W, xi), xi_i >= e_i^m + (w_m - w_{y_i}).x_i."""
    n, d = X.shape
    C = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    P = sp.block_diag([sp.identity(k * d), sp.csc_matrix((n, n))], format="csc")
    q = np.concatenate([np.zeros(k * d), C])
    A = np.zeros((n * k, k * d + n))
    b = np.zeros(n * k)
    for i in range(n):
        for m in range(k):
            row = i * k + m
            A[row, m * d:(m + 1) * d] += X[i]
            A[row, y[i] * d:(y[i] + 1) * d] -= X[i]
            A[row, k * d + i] = -1.0
            b[row] = -float(m != y[i])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    solution = clarabel.DefaultSolver(P, q, sp.csc_matrix(A), b,
                                      [clarabel.NonnegativeConeT(n * k)], settings).solve()
    return solution.obj_val


@pytest.mark.parametrize("sparse", [False, True])
def test_the_objective_of_liblinear_s4(sparse):
    """scikit-learn's LinearSVC(multi_class="crammer_singer") runs LIBLINEAR's -s 4 solver."""
    X, y = _data()
    Z = sp.csr_matrix(X) if sparse else X
    ours = SVC(C=0.1, multi_class="crammer_singer", fit_intercept=False, random_state=0)
    ours.fit(Z, y)
    theirs = LinearSVC(C=0.1, multi_class="crammer_singer", fit_intercept=False, tol=1e-10,
                       max_iter=100_000).fit(Z, y)
    assert ours.objective_ == pytest.approx(_cs_primal(ours.coef_, X, y, 0.1), rel=1e-12)
    assert ours.objective_ == pytest.approx(_cs_primal(theirs.coef_, X, y, 0.1), rel=1e-4)
    assert ours.duality_gap_ <= 1e-6 * ours.objective_
    np.testing.assert_array_equal(ours.predict(Z), np.argmax(X @ ours.coef_.T, axis=1))


def test_the_qp_optimum_with_weights():
    X, y = _data(n=60, k=3, seed=1)
    s = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    svc = SVC(C=0.2, multi_class="crammer_singer", fit_intercept=False, tol=1e-5,
              random_state=0).fit(X, y, sample_weight=s)
    assert svc.objective_ == pytest.approx(_cs_qp(X, y, 3, 0.2 * s), rel=1e-6)
    assert svc.objective_ == pytest.approx(_cs_primal(svc.coef_, X, y, 0.2 * s), rel=1e-12)


def test_dense_and_csr_take_the_same_steps():
    X, y = _data(seed=3)
    dense = SVC(C=0.1, multi_class="crammer_singer", fit_intercept=False, random_state=0)
    csr = SVC(C=0.1, multi_class="crammer_singer", fit_intercept=False, random_state=0)
    np.testing.assert_allclose(dense.fit(X, y).coef_, csr.fit(sp.csr_matrix(X), y).coef_,
                               rtol=0, atol=1e-12)
    # dual_coef_: alpha_i^m on the support, summing to 0 over the classes
    np.testing.assert_allclose(dense.dual_coef_.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(dense.dual_coef_ @ X[dense.support_], dense.coef_, atol=1e-10)


def test_two_classes_are_the_binary_svm():
    X, y = _data(k=2, seed=4)
    cs = SVC(C=0.1, multi_class="crammer_singer", fit_intercept=False, solver="dcd",
             random_state=0).fit(X, y)
    ovr = SVC(C=0.1, fit_intercept=False, solver="dcd", random_state=0).fit(X, y)
    assert cs.coef_.tobytes() == ovr.coef_.tobytes()


@pytest.mark.parametrize("params, message", [
    ({}, r"'fit_intercept' must be False with multi_class='crammer_singer'.*constant feature"),
    ({"fit_intercept": False, "kernel": "rbf"}, r"'kernel' must be 'linear' with"),
    ({"fit_intercept": False, "loss": "squared_hinge"}, r"'loss' must be 'hinge' with"),
    ({"fit_intercept": False, "solver": "qp"}, r"'solver' must be 'auto' or 'dcd' with"),
    ({"fit_intercept": False, "C": np.inf}, r"'C' must be finite with"),
    ({"multi_class": "ovo"}, r"'multi_class' must be one of 'ovr', 'crammer_singer'; got 'ovo'"),
])
def test_settings_it_cannot_take_are_named(params, message):
    X, y = _data(n=20)
    with pytest.raises(ValueError, match=message):
        SVC(**{"multi_class": "crammer_singer", **params}).fit(X, y)


def test_saved_and_trained_from_the_command_line(tmp_path, capsys):
    X, y = _data(n=40)
    data = tmp_path / "d.svm"
    dump_svmlight(X, y, data)
    model = tmp_path / "m.hs"
    code = cli.main(["train", str(data), "--algo", "svm", "--set", "multi_class=crammer_singer",
                     "--no-fit-intercept", "--C", "0.1", "--random-state", "0",
                     "-o", str(model)])
    assert code == 0, capsys.readouterr().err
    back = load(model)
    ref = SVC(C=0.1, multi_class="crammer_singer", fit_intercept=False,
              random_state=0).fit(X, y)
    assert back.get_params()["multi_class"] == "crammer_singer"
    np.testing.assert_allclose(back.coef_, ref.coef_, atol=1e-12)
