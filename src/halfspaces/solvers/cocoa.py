"""The local subproblem of CoCoA+ (Ma, Smith, Jaggi, Jordan, Richtarik, Takac 2015) for the SVM.

The dual of the linear SVM without offset, in the minimization form of
:mod:`halfspaces.solvers.dcd` (``y_i in {-1, +1}``)::

    min_alpha  f(alpha) = 1/2 ||w(alpha)||^2 + sum_i (D/2 alpha_i^2 - alpha_i),
    w(alpha) = sum_i alpha_i y_i x_i,   0 <= alpha_i <= U,
    hinge: U = C, D = 0;   squared hinge: U = inf, D = 1/(2C).

The rows are split over K machines; machine k holds the rows P_k and their alpha_[k], and
every machine knows the shared ``w = w(alpha)``. One CoCoA+ round: each machine
approximately solves its **local subproblem** for a change ``dalpha`` of its own
coordinates,

    min_dalpha  G_k(dalpha) = w.dw + sigma'/2 ||dw||^2
                              + sum_{i in P_k} (D/2 (alpha_i + dalpha_i)^2 - (alpha_i + dalpha_i)),
    dw = sum_{i in P_k} dalpha_i y_i x_i,   0 <= alpha_i + dalpha_i <= U,

and the updates are **added**: ``alpha <- alpha + dalpha``, ``w <- w + sum_k dw_k``
(aggregation parameter gamma = 1). Since ``||sum_k dw_k||^2 <= K sum_k ||dw_k||^2``, the sum
of the local objectives bounds the change of ``f`` from above when ``sigma' = K`` (the
"safe" scaling): every round decreases ``f``, whatever the local solvers return.

The local solver is dual coordinate descent on ``G_k`` (Hsieh et al. 2008), started at
``dalpha = 0`` from the current ``w``. It keeps ``v = w + sigma' dw``, so a step costs
O(nnz(x_i)):

    G   = y_i v.x_i - 1 + D (alpha_i + dalpha_i)              (partial derivative of G_k)
    Q   = sigma' ||x_i||^2 + D
    new = min(max(alpha_i + dalpha_i - G / Q, 0), U)
    delta = new - (alpha_i + dalpha_i):  dalpha_i += delta,  dw += delta y_i x_i,
                                         v += sigma' delta y_i x_i

With ``K = 1`` and ``sigma' = 1``, ``v = w + dw`` is the current ``w`` and the step is
exactly the DCD step: one machine runs plain dual coordinate descent.

**The offset.** A distributed dual method cannot keep ``sum_i alpha_i y_i = 0`` (it
couples every machine's coordinates), so the offset is a constant feature of value
``beta`` (``bias``; 0 means no offset): ``x~_i = (x_i, beta)``, and the last entry of ``w``
is the weight ``w_0`` of that feature, the offset being ``b = beta w_0``. The objective then
regularizes the offset, as LIBLINEAR does: ``1/2 (||w||^2 + (b/beta)^2)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from .._primitives import as_rows, row_axpy, row_dot

__all__ = ["LocalUpdate", "cocoa_local_solve", "hinge_terms"]


class LocalParams(NamedTuple):
    """The constants of the local steps."""

    U: float        # upper bound of alpha_i: C (hinge), inf (squared hinge)
    Dii: float      # D: 0 (hinge), 1/(2C) (squared hinge)
    sigma: float    # sigma'
    bias: float     # beta, the value of the constant feature (0: no offset)


class LocalArrays(NamedTuple):
    """y and Q_i (read); dalpha, v and dw (updated in place); v, dw have d + 1 entries, the
    last one the constant feature's weight (used only when ``bias != 0``)."""

    y: NDArray[np.float64]
    QD: NDArray[np.float64]        # sigma' ||x~_i||^2 + D
    alpha: NDArray[np.float64]
    dalpha: NDArray[np.float64]
    v: NDArray[np.float64]
    dw: NDArray[np.float64]


@njit(cache=True)
def _local_pass(X, a, p, order):
    """One pass of the local coordinate steps over rows ``X[order]``: X is float[n, d]
    C-contiguous, or the CSR tuple of ``_primitives.as_rows``; O(nnz(x_i)) per step."""
    d = a.v.shape[0] - 1
    v, dw = a.v[:d], a.dw[:d]
    for i in order:
        ai = a.alpha[i] + a.dalpha[i]
        G = a.y[i] * (row_dot(X, i, v) + p.bias * a.v[d]) - 1.0 + p.Dii * ai
        delta = min(max(ai - G / a.QD[i], 0.0), p.U) - ai
        if delta != 0.0:
            a.dalpha[i] += delta
            c = delta * a.y[i]
            row_axpy(X, i, c, dw)  # dw <- dw + delta y_i x_i
            row_axpy(X, i, p.sigma * c, v)  # v <- v + sigma' delta y_i x_i
            a.dw[d] += c * p.bias
            a.v[d] += p.sigma * c * p.bias


@dataclass
class LocalUpdate:
    """``delta_alpha`` (this machine's rows) and ``delta_w = sum_i delta_alpha_i y_i x~_i``."""

    delta_alpha: NDArray[np.float64]
    delta_w: NDArray[np.float64]


def _sq_norms(X) -> NDArray[np.float64]:
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def cocoa_local_solve(X, y: NDArray, alpha: NDArray, w: NDArray, *, C: float,
                      loss: str = "hinge", sigma: float = 1.0, bias: float = 0.0,
                      n_passes: int = 1, rng: np.random.Generator) -> LocalUpdate:
    """Approximately solve the CoCoA+ local subproblem by ``n_passes`` coordinate passes.

    Parameters
    ----------
    X : ndarray (C-contiguous) or CSR matrix of shape (n, d)
        This machine's rows.
    y : float64 array of shape (n,), in {-1, +1}
    alpha : float64 array of shape (n,)
        This machine's current dual coordinates (feasible: ``0 <= alpha_i <= U``).
    w : float64 array of shape (d + 1,)
        The shared ``w(alpha)`` over all machines; the last entry is the weight of the
        constant feature ``bias`` (ignored when ``bias == 0``).
    C : float > 0
    loss : {"hinge", "squared_hinge"}
    sigma : float >= 1
        ``sigma'``, the scaling of the quadratic term; ``K`` (the number of machines) is
        CoCoA+'s safe choice when the updates are added.
    bias : float
        Value of the constant feature (0: no offset).
    n_passes : int
        Passes over the rows, each in a fresh random order drawn from ``rng``.

    Returns
    -------
    LocalUpdate
        ``delta_alpha`` of shape (n,) and ``delta_w`` of shape (d + 1,).
    """
    U, Dii = (float(C), 0.0) if loss == "hinge" else (np.inf, 1.0 / (2.0 * C))
    y = np.ascontiguousarray(y, dtype=np.float64)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    # A zero row (and no bias) has Q = 0: guard the division as DCD does (alpha_i -> U).
    QD = np.maximum(sigma * (_sq_norms(X) + bias * bias) + Dii, 1e-12)
    dalpha = np.zeros_like(alpha)
    v = np.array(w, dtype=np.float64)
    dw = np.zeros_like(v)
    arrays = LocalArrays(y, QD, alpha, dalpha, v, dw)
    params = LocalParams(U, Dii, float(sigma), float(bias))
    for _ in range(n_passes):
        _local_pass(as_rows(X), arrays, params, rng.permutation(y.shape[0]))
    return LocalUpdate(dalpha, dw)


def hinge_terms(X, y: NDArray, alpha: NDArray, w: NDArray, *, loss: str = "hinge",
                bias: float = 0.0) -> tuple[float, float, float]:
    """This machine's share of the primal and dual objectives at ``(w, alpha)``.

    Returns ``(sum_i loss(y_i w.x~_i), sum_i alpha_i, sum_i alpha_i^2)``; with the shared
    ``||w||^2`` these give the primal ``1/2 ||w||^2 + C sum loss`` and the dual
    ``sum alpha - 1/2 ||w||^2 - D/2 sum alpha^2`` over all machines.
    """
    d = X.shape[1]
    z = y * (np.asarray(X @ w[:d]).ravel() + bias * w[d])
    slack = np.maximum(0.0, 1.0 - z)
    total = float(slack.sum()) if loss == "hinge" else float(slack @ slack)
    return total, float(alpha.sum()), float(alpha @ alpha)
