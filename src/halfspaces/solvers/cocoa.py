"""The local subproblem of CoCoA+ (Ma, Smith, Jaggi, Jordan, Richtarik, Takac 2015) for the SVM.

The dual of the linear SVM without offset, in the minimization form of
:mod:`halfspaces.solvers.dcd` (``y_i in {-1, +1}``)::

    min_alpha  f(alpha) = 1/2 ||w(alpha)||^2 + sum_i (D/2 alpha_i^2 - alpha_i),
    w(alpha) = sum_i alpha_i y_i x_i,   0 <= alpha_i <= U,
    hinge: U = C, D = 0;   squared hinge: U = inf, D = 1/(2C).

The rows are split over K machines. One round: each machine k approximately solves, for a
change ``dalpha`` of its own coordinates P_k, the **local subproblem**

    min_dalpha  G_k(dalpha) = w.dw + sigma'/2 ||dw||^2
                              + sum_{i in P_k} (D/2 (alpha_i + dalpha_i)^2 - (alpha_i + dalpha_i)),
    dw = sum_{i in P_k} dalpha_i y_i x_i,   0 <= alpha_i + dalpha_i <= U,

by dual coordinate descent, and the updates are **added** (``w <- w + sum_k dw_k``). With the
safe ``sigma' = K`` every round decreases ``f``, whatever the local solvers return; with
``K = 1`` and ``sigma' = 1`` it is plain dual coordinate descent.

The unregularized offset is handled as in :mod:`halfspaces.solvers.dcd`, by the
proximal-point method: the SVM without offset on ``(x_i, sqrt(rho))`` around a centre ``nu``
that moves to the current offset (:func:`move_centre`). Guarantee: ``alpha`` scaled to be
dual feasible gives a true lower bound of the optimum from a few scalars per machine
(:class:`ShardTerms`), so ``P(w, b) - D(a) <= tol P(w, b)`` certifies the objective to
``tol``, relatively (:func:`certify`). The derivation, and the choice of ``rho``, are in the
documentation's page on scaling the Dask backend (docs/scaling.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from .._primitives import as_rows, row_axpy, row_dot

__all__ = ["Certificate", "LocalUpdate", "ShardTerms", "certify", "cocoa_local_solve",
           "move_centre", "row_sq_norms", "shard_terms", "top_second_moment"]


class LocalParams(NamedTuple):
    """The constants of the local steps."""

    U: float        # upper bound of alpha_i: C (hinge), inf (squared hinge)
    Dii: float      # D: 0 (hinge), 1/(2C) (squared hinge)
    sigma: float    # sigma'
    bias: float     # beta, the value of the constant feature (0: no offset)
    nu: float       # the fixed offset added to every score (the proximal centre)


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
    C-contiguous, or the CSR tuple of ``_primitives.as_rows``; O(nnz(x_i)) per step.
    Returns the pass's violation of the optimality conditions, ``max PG - min PG`` of the
    projected partial derivatives met (LIBLINEAR's stopping measure)."""
    d = a.v.shape[0] - 1
    v, dw = a.v[:d], a.dw[:d]
    pg_max, pg_min = -np.inf, np.inf
    for i in order:
        ai = a.alpha[i] + a.dalpha[i]
        G = a.y[i] * (row_dot(X, i, v) + p.nu + p.bias * a.v[d]) - 1.0 + p.Dii * ai
        PG = min(G, 0.0) if ai <= 0.0 else (max(G, 0.0) if ai >= p.U else G)
        pg_max, pg_min = max(pg_max, PG), min(pg_min, PG)
        delta = min(max(ai - G / a.QD[i], 0.0), p.U) - ai
        if delta != 0.0:
            a.dalpha[i] += delta
            c = delta * a.y[i]
            row_axpy(X, i, c, dw)  # dw <- dw + delta y_i x_i
            row_axpy(X, i, p.sigma * c, v)  # v <- v + sigma' delta y_i x_i
            a.dw[d] += c * p.bias
            a.v[d] += p.sigma * c * p.bias
    return pg_max - pg_min if order.shape[0] else 0.0


@dataclass
class LocalUpdate:
    """``delta_alpha`` (this machine's rows) and ``delta_w = sum_i delta_alpha_i y_i x~_i``."""

    delta_alpha: NDArray[np.float64]
    delta_w: NDArray[np.float64]


def row_sq_norms(X) -> NDArray[np.float64]:
    """``||x_i||^2`` of every row of a dense or CSR ``X``."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def cocoa_local_solve(X, y: NDArray, alpha: NDArray, w: NDArray, *, C: float,
                      loss: str = "hinge", sigma: float = 1.0, bias: float = 0.0,
                      nu: float = 0.0, n_passes: int = 1, theta: float = 0.0,
                      rng: np.random.Generator,
                      sq_norms: NDArray | None = None) -> LocalUpdate:
    """Approximately solve the CoCoA+ local subproblem by at most ``n_passes`` coordinate
    passes, fewer once it is solved to the relative accuracy ``theta``.

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
        Value of the constant feature, ``sqrt(rho)`` (0: no offset).
    nu : float
        The centre of the proximal step on the offset, added to every score (0 without
        offset).
    n_passes : int
        Most passes over the rows, each in a fresh random order drawn from ``rng``.
    theta : float in [0, 1)
        Stop after the first pass whose violation of the local optimality conditions
        (``max PG - min PG`` of the projected partial derivatives) is at most ``theta``
        times the first pass's: the local subproblem solved to a fixed relative accuracy,
        CoCoA+'s Theta-approximate local solver. 0: ``n_passes`` passes (fewer only where
        a pass finds the local optimum exactly).
    rng : numpy.random.Generator
    sq_norms : float64 array of shape (n,) or None
        The rows' ``||x_i||^2`` (:func:`row_sq_norms`), kept by a caller that solves the
        same rows every round; None computes them.

    Returns
    -------
    LocalUpdate
        ``delta_alpha`` of shape (n,) and ``delta_w`` of shape (d + 1,).
    """
    U, Dii = (float(C), 0.0) if loss == "hinge" else (np.inf, 1.0 / (2.0 * C))
    y = np.ascontiguousarray(y, dtype=np.float64)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    # A zero row (and no bias) has Q = 0: guard the division as DCD does (alpha_i -> U).
    sq_norms = row_sq_norms(X) if sq_norms is None else sq_norms
    QD = np.maximum(sigma * (sq_norms + bias * bias) + Dii, 1e-12)
    dalpha = np.zeros_like(alpha)
    v = np.array(w, dtype=np.float64)
    dw = np.zeros_like(v)
    arrays = LocalArrays(y, QD, alpha, dalpha, v, dw)
    params = LocalParams(U, Dii, float(sigma), float(bias), float(nu))
    rows, first = as_rows(X), None
    for _ in range(n_passes):
        violation = _local_pass(rows, arrays, params, rng.permutation(y.shape[0]))
        first = violation if first is None else first
        if violation <= theta * first:
            break
    return LocalUpdate(dalpha, dw)


class ShardTerms(NamedTuple):
    """One machine's sums at ``(w, alpha)``, over its rows (floats, or one per problem).

    With the shared ``||w||^2`` they give the primal objective and a lower bound of the
    optimum (:func:`certify`); they add up over machines.
    """

    loss: float  # sum_i loss(y_i (w.x_i + b))
    alpha_pos: float  # sum of alpha_i over y_i = +1
    alpha_neg: float  # sum of alpha_i over y_i = -1
    wx_pos: float  # sum of alpha_i w.x_i over y_i = +1 (w without the constant feature)
    wx_neg: float  # sum of alpha_i w.x_i over y_i = -1
    alpha_sq: float  # sum of alpha_i^2


def shard_terms(X, y: NDArray, alpha: NDArray, w: NDArray, *, loss: str = "hinge",
                bias: float = 0.0, nu: float = 0.0) -> ShardTerms:
    """This machine's :class:`ShardTerms` at ``(w, alpha)``: one mat-vec.

    The score of row ``i`` is ``w.x_i + b`` with ``b = nu + bias w_0`` (``w_0 = w[-1]``).
    """
    d = X.shape[1]
    wx = np.asarray(X @ w[:d], dtype=np.float64).ravel()
    slack = np.maximum(0.0, 1.0 - y * (wx + nu + bias * w[d]))
    pos = y > 0
    a_pos, a_neg = alpha[pos], alpha[~pos]
    return ShardTerms(float(slack.sum() if loss == "hinge" else slack @ slack),
                      float(a_pos.sum()), float(a_neg.sum()), float(a_pos @ wx[pos]),
                      float(a_neg @ wx[~pos]), float(alpha @ alpha))


@dataclass
class Certificate:
    """The primal objective, a lower bound of the optimum, and the proximal step's gap.

    ``primal - dual >= primal - P* >= 0`` bounds the error of the objective. ``inner_gap``
    is the duality gap of the proximal subproblem around ``nu`` (equal to ``primal - dual``
    without offset). Floats, or arrays with one entry per problem.
    """

    primal: NDArray[np.float64]
    dual: NDArray[np.float64]
    inner_gap: NDArray[np.float64]


def certify(terms: ShardTerms, w: NDArray, nu, *, C: float, loss: str, bias: float,
            radius: float) -> Certificate:
    """The :class:`Certificate` of ``(w, alpha)`` from the summed :class:`ShardTerms`.

    ``w`` is ``(d + 1,)`` or ``(K, d + 1)`` (one row per problem, ``terms`` and ``nu`` then
    hold ``K`` values); ``radius`` is ``R = max_i ||x_i||``, used only with an offset
    (``bias > 0``). See the module docstring for the bound.
    """
    Dii = 0.0 if loss == "hinge" else 1.0 / (2.0 * C)
    w = np.asarray(w, dtype=np.float64)
    w_sq = np.einsum("...j,...j->...", w[..., :-1], w[..., :-1])
    primal = 0.5 * w_sq + C * np.asarray(terms.loss)
    asum = np.asarray(terms.alpha_pos) + np.asarray(terms.alpha_neg)
    dual = asum - 0.5 * w_sq - 0.5 * Dii * np.asarray(terms.alpha_sq)  # D(alpha)
    if bias == 0.0:
        return Certificate(primal, dual, primal - dual)
    s = np.asarray(terms.alpha_pos) - np.asarray(terms.alpha_neg)
    w0 = w[..., -1]
    inner_primal = primal + 0.5 * w0 * w0
    inner_dual = dual - nu * s - 0.5 * w0 * w0
    # scaling the larger class by t: (1 - t) w.w_class, with (1 - t) = |s| / (its alpha sum)
    pos = s >= 0
    larger = np.where(pos, terms.alpha_pos, terms.alpha_neg)
    wx = np.where(pos, -np.asarray(terms.wx_pos), np.asarray(terms.wx_neg))
    shift = np.abs(s) / np.where(larger > 0, larger, 1.0) * wx
    feasible = dual - np.abs(s) - shift - 0.5 * s * s * radius * radius
    return Certificate(primal, feasible, inner_primal - inner_dual)


def top_second_moment(X, n_iter: int = 5) -> float:
    """An estimate from below of ``max_{||v|| = 1} mean_i (v.x_i)^2``, the largest eigenvalue
    of ``X^T X / n``: ``n_iter`` power iterations from the mean row (the top direction of
    un-centred data), then the Rayleigh quotient. Two mat-vecs per iteration.
    """
    n = X.shape[0]
    v = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    if not v.any():
        v = np.ones(X.shape[1])
    top = 0.0
    for _ in range(n_iter):
        norm = float(np.sqrt(v @ v))
        if n == 0 or norm == 0.0:  # X v = 0: the rows are orthogonal to v (or all zero)
            break
        u = np.asarray(X @ (v / norm), dtype=np.float64).ravel()
        top = float(u @ u) / n
        v = np.asarray(X.T @ u, dtype=np.float64).ravel()
    return top


def move_centre(nu, w: NDArray, certificate: Certificate, bias: float, last_step):
    """The next proximal centre and the step that moved it: ``(nu, step)``.

    The centre moves where the subproblem's gap is at most half the certified gap (solving
    it further would not close the certificate), and stays elsewhere: an inexact proximal
    point method that cannot stall, since on a solved subproblem the gap tends to 0 while
    the certified gap of a non-optimal point does not. The plain step is ``nu <- b``, by
    ``b - nu = bias w_0 = rho s``; as in :mod:`halfspaces.solvers.dcd` it is extrapolated
    by ``1 / (1 - q)``, ``q`` the ratio of this plain step to the last one (``last_step``,
    0 before the first), clipped to ``[0, 0.4]``: a relaxed proximal-point step (Eckstein
    and Bertsekas 1992: relaxation factors in ``[1, 5/3]``, inside ``(0, 2)``), the secant
    step when the steps shrink geometrically. ``step`` is the plain step where the centre
    moved, ``last_step`` elsewhere.
    """
    c = certificate
    step = bias * np.asarray(w)[..., -1]
    ratio = np.divide(step, last_step, out=np.zeros_like(step), where=last_step != 0)
    relaxed = step / (1.0 - np.clip(ratio, 0.0, 0.4))
    move = c.inner_gap <= 0.5 * (c.primal - c.dual)
    return np.where(move, nu + relaxed, nu), np.where(move, step, last_step)
