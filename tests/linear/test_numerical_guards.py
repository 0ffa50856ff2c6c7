"""Right or refused (issue 8): bad regularization constants, data whose squares overflow, and
passes whose scores or weights overflow stop with a clear error instead of a NaN model.

The oracle for each overflow is arithmetic on the example itself: with a constant step
``eta`` and ``w_1 = 0``, the first violator gives ``w_2 = eta y_1 x_1`` (Pegasos; logistic SGD
takes half of it), so the next row's score ``eta y_1 <x_1, x_2>`` is computed here by hand.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import SVC, KernelPegasosSVC, LogisticRegression, NumericalError, PegasosSVC
from halfspaces.cli import main
from halfspaces.datasets import make_separable

# Interpreted kernels (NUMBA_DISABLE_JIT=1) compute with NumPy scalars, which warn on the
# overflows these tests provoke; compiled ones do not.
pytestmark = [pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")]

X, Y = make_separable(n_samples=40, n_features=3, margin=0.2, random_state=0)
# <x_0, x_1> = 1e11: a step of 1e300 on row 0 makes row 1's score 1e311 > 1.8e308 = inf
OVERFLOW_X = np.array([[10.0, 0.0], [1e10, 0.0], [1.0, 1.0]])
OVERFLOW_Y = np.array([1, -1, 1])
CONSTANT = {"learning_rate": "constant", "eta0": 1e300, "sampling": "cyclic", "max_iter": 1}


@pytest.mark.parametrize("make", [lambda lam: PegasosSVC(lam=lam),
                                  lambda lam: KernelPegasosSVC(lam=lam, kernel="rbf"),
                                  lambda lam: SVC(lam=lam),
                                  lambda lam: LogisticRegression(lam=lam)],
                         ids=["pegasos", "kernel_pegasos", "svc", "logistic"])
@pytest.mark.parametrize("lam", [np.inf, np.nan, -1.0])
def test_lam_must_be_finite_and_positive(make, lam):
    with pytest.raises(ValueError, match=r": 'lam' must be a finite float > 0"
                       if np.isinf(lam) else r": 'lam' must be a float > 0"):
        make(lam).fit(X, Y)


@pytest.mark.parametrize("make, what", [
    (lambda: PegasosSVC(lam=5e-324), r"'lam' must be large enough that the steps 1/lam"),
    (lambda: PegasosSVC(lam=1e-320), r"'lam' must be large enough that the steps 1/lam"),
    (lambda: KernelPegasosSVC(lam=5e-324, kernel="rbf"), r"'lam' must be large enough"),
    (lambda: SVC(lam=5e-324), r"'lam' must be large enough that C = 1/\(lam n\) is finite"
                              r" \(n = 40\)"),
    (lambda: LogisticRegression(C=5e-324), r"'C' must be large enough that lam = 1/\(C n\)"),
    (lambda: LogisticRegression(C=np.inf), r"'C' must be a finite float > 0"),
    (lambda: PegasosSVC(learning_rate="constant", eta0=np.inf), r"'eta0' must be a finite"),
    (lambda: PegasosSVC(t0=np.inf), r"'t0' must be a finite float >= 0"),
], ids=["pegasos_denormal", "pegasos_1e-320", "kernel_pegasos", "svc", "logistic_C",
        "logistic_C_inf", "pegasos_eta0_inf", "pegasos_t0_inf"])
def test_constants_that_overflow_are_refused(make, what):
    # 1/(lam eta0) or 1/(lam n) would be inf: a ZeroDivisionError, inf steps, zero steps
    # (t0 = inf), the hard margin in disguise (C = inf) or nan gradients (lam = inf).
    with pytest.raises(ValueError, match=what):
        make().fit(X, Y)


@pytest.mark.parametrize("fit", [
    lambda X, y: PegasosSVC().fit(X, y),
    lambda X, y: PegasosSVC().partial_fit(X, y, classes=[-1, 1]),
    lambda X, y: KernelPegasosSVC(kernel="linear").fit(X, y),
    lambda X, y: SVC(solver="dcd").fit(X, y),
    lambda X, y: SVC(solver="qp").fit(X, y),
    lambda X, y: SVC(kernel="rbf").fit(X, y),
    lambda X, y: LogisticRegression().fit(X, y),
    lambda X, y: LogisticRegression().partial_fit(X, y, classes=[-1, 1]),
], ids=["pegasos", "pegasos_partial", "kernel_pegasos", "svc_dcd", "svc_qp", "svc_rbf",
        "logistic", "logistic_partial"])
@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
def test_features_whose_squares_overflow_name_the_row(fit, fmt):
    Xb = X.copy()
    Xb[7] *= 1e200  # (1e200)^2 = inf in float64
    with pytest.raises(NumericalError, match=r"at row 7: .* Scale the features") as info:
        fit(fmt(Xb), Y)
    assert info.value.row == 7


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("make, row", [
    (lambda: PegasosSVC(**CONSTANT), 1),
    (lambda: PegasosSVC(batch_size=2, **CONSTANT), 2),  # rows 0, 1 share w_1; row 2 sees w_2
])
def test_pegasos_stops_at_the_row_whose_score_overflows(make, row, fmt):
    with pytest.raises(NumericalError, match=rf"PegasosSVC: the score .* at row {row}:"):
        make().fit(fmt(OVERFLOW_X), OVERFLOW_Y)


def test_kernel_pegasos_stops_at_the_row_whose_score_overflows():
    with pytest.raises(NumericalError, match=r"PegasosSVC: the score .* at row 1:"):
        KernelPegasosSVC(kernel="linear", **CONSTANT).fit(OVERFLOW_X, OVERFLOW_Y)


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
def test_logistic_sgd_stops_at_the_row_whose_score_overflows(fmt):
    # lam eta0 t ~ 1e-10: eta_1 = eta0 / (1 + lam eta0) ~ 1e300, w_2 = eta_1 / 2 * x_0
    clf = LogisticRegression(lam=1e-310, eta0=1e300)
    with pytest.raises(NumericalError, match=r"LogisticRegression: the score .* at row 1:"):
        clf.partial_fit(fmt(OVERFLOW_X), OVERFLOW_Y, classes=[-1, 1])


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("make", [
    lambda: PegasosSVC(learning_rate="constant", eta0=1e300),
    lambda: LogisticRegression(lam=1e-310, eta0=1e300),
], ids=["pegasos", "logistic"])
def test_weights_that_overflow_on_the_last_row_are_caught_at_the_end_of_the_pass(make, fmt):
    # one row: its score (0) is finite, its step 1e300 * 1e10 is not; no later score sees it
    with pytest.raises(NumericalError, match=r"the weights at the end of the pass .* row 0"):
        make().partial_fit(fmt(OVERFLOW_X[1:2]), [1], classes=[-1, 1])


def test_kernel_pegasos_weights_that_overflow_on_the_last_row():
    # K = diag(1e20, 1): row 0's step makes ||w||^2 = (1e300)^2 1e20 = inf, row 1 is
    # orthogonal to it (score 0), so only the end-of-pass check sees it
    Xk = np.array([[1e10, 0.0], [0.0, 1.0]])
    with pytest.raises(NumericalError, match=r"the weights at the end of the pass .* row 1"):
        KernelPegasosSVC(kernel="linear", **CONSTANT).fit(Xk, [1, -1])


def test_dcd_stops_at_a_non_finite_score():
    # Finite data and C keep DCD's steps bounded (|G / Qbar_ii|, alpha <= C), so the guard is
    # checked on the compiled run directly: a weight that is already inf makes the score of
    # the first row visited inf (G = y score - 1 = -inf, a step), and the run stops there
    # with status SCORE_NOT_FINITE naming that row.
    from halfspaces._primitives import SCORE_NOT_FINITE
    from halfspaces.solvers.dcd import DCDArrays, DCDParams, DCDState, _dcd_run

    Xd, y = np.array([[1.0], [2.0]]), np.array([-1.0, -1.0])
    active = np.array([1, 0], dtype=np.int64)
    arrays = DCDArrays(y, np.array([1.0, 4.0]), np.empty(0), np.zeros(2), np.array([np.inf]),
                       active, np.zeros(1, dtype=np.uint64))
    params = DCDParams(1.0, 0.0, 1.0, 0.0, 0.0, 1e-4, 1e9, False, False, False)
    state = DCDState(2, 0, 0, 0, np.inf, -np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    _, trouble = _dcd_run(Xd, arrays, params, state, 10)
    assert trouble.status == SCORE_NOT_FINITE
    assert trouble.row == active[0]  # the first row the shuffled pass visited


def test_cli_names_the_option(tmp_path, capsys):
    from halfspaces.datasets import dump_svmlight

    path = tmp_path / "d.svm"
    dump_svmlight(X, Y, path)
    assert main(["train", str(path), "--algo", "pegasos", "--lam", "inf",
                 "-o", str(tmp_path / "m")]) == 1
    assert ("PegasosSVC: option --lam: 'lam' must be a finite float > 0; got inf."
            in capsys.readouterr().err)
    assert not (tmp_path / "m").exists()


