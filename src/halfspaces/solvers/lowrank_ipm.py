"""The linear SVM's dual by a primal-dual interior point whose Newton systems are solved in
the feature space (Ferris and Munson 2002; Fine and Scheinberg 2001).

Dual of the hinge-loss SVM, ``Z = diag(y) X`` (``n x d``), ``Q = Z Z^T``, ``U_i = C s_i``::

    min_alpha  1/2 alpha^T Q alpha - sum_i alpha_i,   0 <= alpha_i <= U_i
               (and y^T alpha = 0 with an offset, whose multiplier is theta_0).

Mehrotra's predictor-corrector on this box QP: each Newton step solves
``(Q + D) dalpha = r`` with ``D`` diagonal (the barrier's curvature), which the
Sherman-Morrison-Woodbury identity turns into one ``d x d`` Cholesky factorization of
``I + Z^T D^{-1} Z``; with the offset, a second right-hand side ``y`` and a scalar Schur
complement. A step costs ``O(sum_i nnz(x_i)^2 + d^3)``, whatever ``C``: where dual
coordinate descent needs thousands of epochs (large ``C``, noisy rows at their bound), the
interior point takes a few dozen steps. So it suits few features (``d`` in the hundreds).

It stops when the duality gap of ``theta = Z^T alpha`` and ``alpha`` (made exactly feasible,
:func:`~halfspaces.solvers.dcd.primal_dual`) is at most ``gap_tol P``: the certificate that
every solver of the linear SVM gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numba import njit
from numpy.typing import NDArray

from .._primitives import dot_dense, matvec, product_rows, rmatvec, sparse_product_rows
from .dcd import primal_dual

__all__ = ["IPMResult", "svm_lowrank_ipm"]

_STEP_BACK = 0.99  # fraction of the way to the boundary a step goes
_STALL = 4  # steps without a smaller gap after which the run stops with its best iterate


@dataclass
class IPMResult:
    """``theta``, ``theta_0``, ``alpha``, the Newton steps taken, whether the gap was met."""

    theta: NDArray[np.float64]
    theta_0: float
    alpha: NDArray[np.float64]
    n_iter: int
    converged: bool


@njit(cache=True)
def _csr_gram(data, indices, indptr, v, M):
    """``M += sum_i v_i x_i x_i^T`` over the CSR rows (upper triangle, then mirrored)."""
    for i in range(indptr.shape[0] - 1):
        start, end, vi = indptr[i], indptr[i + 1], v[i]
        for p in range(start, end):
            a = vi * data[p]
            j = indices[p]
            for q in range(p, end):
                M[j, indices[q]] += a * data[q]
    d = M.shape[0]
    for j in range(d):
        for k in range(j + 1, d):
            M[k, j] = M[j, k] = M[j, k] + M[k, j]


def _normal_matrix(X, v: NDArray, d: int) -> NDArray:
    """``I + X^T diag(v) X`` (``d x d``, dense) for ``v >= 0``; ``X`` dense or the CSR of
    ``product_rows``."""
    if isinstance(X, np.ndarray):
        M = X.T @ (X * v[:, None])
    else:
        M = np.zeros((d, d))
        _csr_gram(X.data, X.indices, X.indptr, v, M)
    M[np.diag_indices_from(M)] += 1.0
    return M


def _max_step(x: NDArray, dx: NDArray) -> float:
    """The largest ``t <= 1`` with ``x + t dx >= 0`` (``x > 0``)."""
    neg = dx < 0.0
    return min(1.0, float(np.min(-x[neg] / dx[neg]))) if neg.any() else 1.0


def svm_lowrank_ipm(X, y: NDArray, C: float, *, fit_intercept: bool = True,
                    gap_tol: float = 1e-6, max_iter: int = 100,
                    sample_weight: NDArray | None = None) -> IPMResult:
    """Solve the hinge-loss SVM (``C`` form, finite ``C``) on dense or CSR ``X``, ``y`` in
    {-1, +1}, to a relative duality gap of ``gap_tol`` (checked by
    :func:`~halfspaces.solvers.dcd.primal_dual`) or ``max_iter`` Newton steps; where
    rounding stalls it first (the result not ``converged``), its best iterate is returned,
    a good warm start for dual coordinate descent."""
    n, d = X.shape
    y = np.ascontiguousarray(y, dtype=np.float64)
    U = np.full(n, float(C)) if sample_weight is None else float(C) * np.asarray(
        sample_weight, dtype=np.float64)
    rows = product_rows(X)
    products = sparse_product_rows(X) if isinstance(rows, np.ndarray) else rows

    def Zt(v):  # Z^T v = X^T (y v)
        out = np.zeros(d)
        rmatvec(products, np.ascontiguousarray(y * v), out)
        return out

    def Zv(w):  # Z w = y (X w)
        out = np.empty(n)
        matvec(products, np.ascontiguousarray(w), out)
        return y * out

    # t = U - alpha kept as its own variable: near the bound U - alpha cancels
    alpha, t = 0.5 * U, 0.5 * U
    z, v = np.ones(n), np.ones(n)  # multipliers of alpha >= 0 and alpha <= U
    b, it, best = 0.0, 0, (np.inf, None)
    for it in range(1, max_iter + 1):
        theta = Zt(alpha)
        primal, dual, _ = primal_dual(products, y, C, "hinge", fit_intercept, alpha, theta, b,
                                      sample_weight)
        gap = (primal - dual) / abs(primal)
        if gap < best[0]:
            best = (gap, (theta, b, np.clip(alpha, 0.0, U), it))
        # met; or nan, or no better for _STALL steps: the Newton systems' rounding
        if not gap > gap_tol or it - best[1][3] >= _STALL:
            break
        r_dual = Zv(theta) - 1.0 + b * y - z + v
        r_eq = dot_dense(y, alpha) if fit_intercept else 0.0
        r_box = alpha + t - U
        mu = (dot_dense(alpha, z) + dot_dense(t, v)) / (2 * n)
        Dg = z / alpha + v / t
        inv = 1.0 / Dg
        chol = scipy.linalg.cho_factor(_normal_matrix(rows, inv, d), check_finite=False)

        def solve(r, inv=inv, chol=chol, Dg=Dg):
            """(Q + D)^{-1} r by Sherman-Morrison-Woodbury, with one step of refinement."""
            u = inv * r
            u -= inv * Zv(scipy.linalg.cho_solve(chol, Zt(u), check_finite=False))
            e = inv * (r - Zv(Zt(u)) - Dg * u)
            return u + e - inv * Zv(scipy.linalg.cho_solve(chol, Zt(e), check_finite=False))

        Ky = solve(y) if fit_intercept else None

        def newton(rc1, rc2, Ky=Ky, solve=solve, alpha=alpha, t=t, z=z, v=v, r_dual=r_dual,
                   r_eq=r_eq, r_box=r_box):
            """The step of (alpha, b, z, v, t) whose complementarity targets are rc1, rc2."""
            da = solve(-r_dual + rc1 / alpha - (rc2 + v * r_box) / t)
            db = 0.0
            if fit_intercept:  # y^T dalpha = -r_eq
                db = (dot_dense(y, da) + r_eq) / dot_dense(y, Ky)
                da = da - db * Ky
            dt = -da - r_box
            return da, db, (rc1 - z * da) / alpha, (rc2 - v * dt) / t, dt

        # predictor (affine scaling), then the corrector with Mehrotra's centring
        da, db, dz, dv, dt = newton(-alpha * z, -t * v)
        step_p = min(_max_step(alpha, da), _max_step(t, dt))
        step_d = min(_max_step(z, dz), _max_step(v, dv))
        mu_aff = (dot_dense(alpha + step_p * da, z + step_d * dz)
                  + dot_dense(t + step_p * dt, v + step_d * dv)) / (2 * n)
        sigma = (mu_aff / mu) ** 3
        da, db, dz, dv, dt = newton(sigma * mu - alpha * z - da * dz,
                                    sigma * mu - t * v - dt * dv)
        step_p = _STEP_BACK * min(_max_step(alpha, da), _max_step(t, dt))
        step_d = _STEP_BACK * min(_max_step(z, dz), _max_step(v, dv))
        alpha, t = alpha + step_p * da, t + step_p * dt
        z, v, b = z + step_d * dz, v + step_d * dv, b + step_d * db
    gap, (theta, b, alpha, it) = best
    return IPMResult(theta, b, alpha, it, bool(gap <= gap_tol))
