"""The SVM as a quadratic program, solved by the interior-point solver Clarabel.

Labels ``y_i in {-1, +1}``, ``C = 1/(lam n)``, the offset ``theta_0`` unregularized.

Primal (soft margin, hinge loss; hard margin: ``C = inf``, no slacks)::

    min_{theta, theta_0, xi}  1/2 ||theta||^2 + C sum_i xi_i
    s.t.  y_i (theta.x_i + theta_0) >= 1 - xi_i,   xi_i >= 0

(squared hinge: ``C sum_i xi_i^2`` and no ``xi_i >= 0``, which is then never binding).
Example weights ``s_i > 0`` make the constant ``C_i = C s_i`` per example: ``sum_i C_i xi_i``
in the primal, ``alpha_i <= C_i`` (squared hinge: ``alpha_i^2/(4 C_i)``) in the dual.

Dual, with ``Q_ij = y_i y_j k(x_i, x_j)``::

    max_alpha  sum_i alpha_i - 1/2 alpha^T Q alpha       (squared hinge: - sum_i alpha_i^2/(4C))
    s.t.  0 <= alpha_i <= C   (hinge; no upper bound for squared hinge or C = inf)
          sum_i alpha_i y_i = 0                           (only with an offset)

The two are linked by ``theta = sum_i alpha_i y_i x_i``. Clarabel solves
``min 1/2 x^T P x + q^T x  s.t.  A x + s = b, s in K`` and returns the multipliers ``z`` of
the constraints: for the primal, ``z`` of the margin constraints *is* ``alpha``; for the dual,
``z`` of the equality ``y^T alpha = 0`` *is* the offset ``theta_0``. When the hard-margin
problem is infeasible Clarabel returns a Farkas certificate, which would be the certificate of
non-separability: ``alpha >= 0``, not all zero, ``sum_i alpha_i y_i x_i = 0`` (and
``sum_i alpha_i y_i = 0`` with an offset). An interior point's certificate is approximate
(relative residual 5e-7 on 50,000 noisy rows, where it also puts weight on every row), so it
is checked as the LP's is (:func:`halfspaces.solvers.lp.certificate_residual` at most
``CERTIFICATE_RTOL``) before the status says ``"infeasible"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import clarabel
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from .._progress import Callback, Progress
from .lp import CERTIFICATE_RTOL, certificate_residual

__all__ = ["QPResult", "svm_primal_qp", "svm_dual_qp"]


@dataclass
class QPResult:
    """What a QP solve returns.

    ``status`` is ``"solved"``, ``"infeasible"`` (hard margin on non-separable data; then
    ``certificate`` holds the Farkas vector over the rows, verified: its relative
    ``residual`` is at most ``CERTIFICATE_RTOL``) or Clarabel's status name when it stopped
    early or its certificate failed the check (``certificate`` and ``residual`` are then
    kept for inspection). ``theta`` is ``None`` for the dual (kernel) problem.
    """

    status: str
    alpha: NDArray[np.float64] | None
    theta: NDArray[np.float64] | None
    theta_0: float
    n_iter: int
    certificate: NDArray[np.float64] | None = None
    residual: float = float("nan")


_SOLVED = ("Solved", "AlmostSolved")


def _settings(max_iter: int, tol: float, verbose: bool) -> clarabel.DefaultSettings:
    settings = clarabel.DefaultSettings()
    settings.verbose = bool(verbose)
    settings.max_iter = int(max_iter)
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = float(tol)
    settings.presolve_enable = False  # keep a row-for-row map from constraints to duals
    return settings


def _report_iterations(solver, callback: Callback | None, max_iter: int, tol: float) -> None:
    """Send each interior-point iteration to ``callback``: Clarabel stops when the duality
    gap (absolute or relative) and both residuals are at most ``tol``, so the measure is the
    largest of them. (``set_termination_callback`` came with Clarabel 0.10.)"""
    if callback is None or not hasattr(solver, "set_termination_callback"):
        return

    def report(info) -> bool:
        measure = max(min(info.gap_abs, info.gap_rel), info.res_primal, info.res_dual)
        callback(Progress("qp", int(info.iterations), int(max_iter), float(measure), tol,
                          "max(gap, residuals)", float(info.cost_primal)))
        return False  # never stops the solver

    solver.set_termination_callback(report)


def _clean_certificate(v: NDArray) -> NDArray[np.float64]:
    """Scale a Farkas vector to max 1 and zero its numerically-zero entries."""
    v = np.maximum(np.asarray(v, dtype=np.float64), 0.0)
    top = v.max() if v.size else 0.0
    if top <= 0:
        return v
    v = v / top
    v[v < 1e-9] = 0.0
    return v


def _infeasible(status: str, X, y: NDArray, v: NDArray, fit_intercept: bool,
                n_iter: int) -> QPResult:
    """The QPResult of a Farkas vector ``v``: ``"infeasible"`` only when it checks out."""
    certificate = _clean_certificate(v)
    residual = certificate_residual(X, y, certificate, fit_intercept)
    verified = residual <= CERTIFICATE_RTOL
    return QPResult("infeasible" if verified else status, None, None, 0.0, n_iter,
                    certificate, residual)


def _primal_constraints(X, y: NDArray, fit_intercept: bool, slack: bool, xi_nonneg: bool):
    """``(A, b, cones)`` of ``A x + s = b, s >= 0`` for the primal variables
    ``x = (theta, theta_0, xi)``: the margin rows ``-y_i (theta.x_i + theta_0) - xi_i <= -1``
    (``xi`` only with ``slack``), then ``-xi_i <= 0`` (``xi_nonneg``)."""
    n, d = X.shape
    blocks = [-sp.diags(y) @ sp.csr_matrix(X)]
    if fit_intercept:
        blocks.append(sp.csr_matrix(-y[:, None]))
    if slack:
        blocks.append(-sp.identity(n, format="csr"))
    rows, rhs, cones = [sp.hstack(blocks, format="csr")], [-np.ones(n)], [
        clarabel.NonnegativeConeT(n)]
    if xi_nonneg:
        n_b = 1 if fit_intercept else 0
        rows.append(sp.hstack([sp.csr_matrix((n, d + n_b)), -sp.identity(n, format="csr")],
                              format="csr"))
        rhs.append(np.zeros(n))
        cones.append(clarabel.NonnegativeConeT(n))
    return sp.vstack(rows, format="csc"), np.concatenate(rhs), cones


def svm_primal_qp(X, y: NDArray, C: float, *, fit_intercept: bool = True,
                  loss: str = "hinge", max_iter: int = 200, tol: float = 1e-9,
                  verbose: bool = False, col_scale: NDArray | None = None,
                  sample_weight: NDArray | None = None,
                  callback: Callback | None = None) -> QPResult:
    """Solve the primal SVM QP for a linear kernel (dense or sparse ``X``, ``y`` in {-1,+1}),
    with ``C_i = C s_i`` when ``sample_weight`` (``s_i > 0``) is given.

    Variables ``x = (theta [d], theta_0 [1 if fit_intercept], xi [n unless C = inf])``.
    Returns ``theta``, ``theta_0`` and ``alpha`` (the multipliers of the margin constraints).

    ``col_scale`` (positive, one per column) solves in ``u`` with ``theta = col_scale * u``:
    ``1/2 u^T D^2 u`` subject to the margin constraints on the columns ``X D``, where
    ``D = diag(col_scale)``. This is the same problem (the same optimum ``theta``, the same
    multipliers ``alpha``), but with columns of comparable size when ``col_scale`` is one
    over each column's largest ``|x_ij|``; ``theta`` is returned mapped back.
    ``callback`` hears a :class:`~halfspaces._progress.Progress` after each iteration.
    """
    if col_scale is not None:
        D = np.asarray(col_scale, dtype=np.float64)
        X = X @ sp.diags(D) if sp.issparse(X) else X * D
    n, d = X.shape
    y = np.asarray(y, dtype=np.float64)
    hard = np.isinf(C)
    n_b = 1 if fit_intercept else 0
    n_xi = 0 if hard else n
    m = d + n_b + n_xi

    p_diag = np.zeros(m)
    p_diag[:d] = 1.0 if col_scale is None else D**2
    q = np.zeros(m)
    if not hard:
        Ci = C if sample_weight is None else C * np.asarray(sample_weight, dtype=np.float64)
        if loss == "hinge":
            q[d + n_b:] = Ci
        else:  # squared hinge: C xi^2 = 1/2 (2C) xi^2
            p_diag[d + n_b:] = 2.0 * Ci
    P = sp.diags(p_diag, format="csc")

    A, b, cones = _primal_constraints(X, y, fit_intercept, slack=not hard,
                                      xi_nonneg=not hard and loss == "hinge")
    solver = clarabel.DefaultSolver(P, q, A, b, cones, _settings(max_iter, tol, verbose))
    _report_iterations(solver, callback, max_iter, tol)
    sol = solver.solve()
    status = str(sol.status).split(".")[-1]
    if status in ("PrimalInfeasible", "AlmostPrimalInfeasible"):
        # Farkas: z >= 0, A^T z = 0, b^T z < 0, i.e. sum z_i y_i x_i = 0 (and sum z_i y_i = 0).
        return _infeasible(status, X, y, np.asarray(sol.z)[:n], fit_intercept, sol.iterations)
    x = np.asarray(sol.x)
    alpha = np.asarray(sol.z)[:n].copy()
    theta = x[:d].copy() if col_scale is None else D * x[:d]
    theta_0 = float(x[d]) if fit_intercept else 0.0
    return QPResult("solved" if status in _SOLVED else status, alpha, theta, theta_0,
                    sol.iterations)


def svm_dual_qp(K: NDArray, y: NDArray, C: float, *, fit_intercept: bool = True,
                loss: str = "hinge", max_iter: int = 200, tol: float = 1e-10,
                verbose: bool = False, sample_weight: NDArray | None = None,
                callback: Callback | None = None) -> QPResult:
    """Solve the dual SVM QP from a Gram matrix ``K`` (``n x n``, float64) and ``y`` in {-1,+1},
    with ``C_i = C s_i`` when ``sample_weight`` (``s_i > 0``) is given.

    ``tol`` is 1e-10, not the primal's 1e-9: ``theta_0`` comes from a multiplier, and at
    1e-9 the decision values of a poly kernel were off by 7e-8, which repeated rows and
    integer weights must not be (scikit-learn's sample-weight check, ``rtol=1e-7``); the
    same iterations or one more (200 and 1000 rows, rbf and poly).

    Returns ``alpha`` and ``theta_0`` (the multiplier of ``sum alpha_i y_i = 0``, or 0).
    ``callback`` hears a :class:`~halfspaces._progress.Progress` after each iteration.
    """
    n = K.shape[0]
    y = np.asarray(y, dtype=np.float64)
    hard = np.isinf(C)
    Q = (y[:, None] * K) * y[None, :]
    Ci = C if sample_weight is None else C * np.asarray(sample_weight, dtype=np.float64)
    if loss == "squared_hinge" and not hard:
        Q[np.diag_indices(n)] += 1.0 / (2.0 * Ci)
    P = sp.triu(sp.csc_matrix(Q), format="csc")
    q = -np.ones(n)

    rows, rhs, cones = [], [], []
    if fit_intercept:
        rows.append(sp.csr_matrix(y[None, :]))
        rhs.append(np.zeros(1))
        cones.append(clarabel.ZeroConeT(1))
    rows.append(-sp.identity(n, format="csr"))
    rhs.append(np.zeros(n))
    cones.append(clarabel.NonnegativeConeT(n))
    if loss == "hinge" and not hard:
        rows.append(sp.identity(n, format="csr"))
        rhs.append(np.broadcast_to(np.asarray(Ci, dtype=np.float64), (n,)))
        cones.append(clarabel.NonnegativeConeT(n))
    A = sp.vstack(rows, format="csc")
    b = np.concatenate(rhs)

    solver = clarabel.DefaultSolver(P, q, A, b, cones, _settings(max_iter, tol, verbose))
    _report_iterations(solver, callback, max_iter, tol)
    sol = solver.solve()
    status = str(sol.status).split(".")[-1]
    if status in ("DualInfeasible", "AlmostDualInfeasible"):
        # An unbounded ray alpha >= 0 with Q alpha = 0, y^T alpha = 0, sum alpha > 0:
        # sum alpha_i y_i phi(x_i) = 0, the certificate that no separator exists; for a
        # positive semi-definite K that is K (alpha * y) = 0, checked as for the rows of X.
        return _infeasible(status, K, y, np.asarray(sol.x), fit_intercept, sol.iterations)
    alpha = np.asarray(sol.x).copy()
    theta_0 = float(np.asarray(sol.z)[0]) if fit_intercept else 0.0
    return QPResult("solved" if status in _SOLVED else status, alpha, None, theta_0,
                    sol.iterations)
