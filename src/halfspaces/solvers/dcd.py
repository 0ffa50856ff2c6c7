"""Dual coordinate descent for the linear SVM (Hsieh, Chang, Lin, Keerthi, Sundararajan 2008).

Dual of the linear SVM without offset, ``y_i in {-1, +1}``::

    min_alpha  f(alpha) = 1/2 alpha^T Qbar alpha - sum_i alpha_i,   0 <= alpha_i <= U,
    Qbar = Q + D,  Q_ij = y_i y_j x_i.x_j,
    hinge: U = C, D_ii = 0;   squared hinge: U = inf, D_ii = 1/(2C).

Keeping ``w = sum_i alpha_i y_i x_i`` makes one coordinate step cost O(nnz(x_i)):

    G   = y_i w.x_i - 1 + D_ii alpha_i                      (partial derivative)
    PG  = min(G, 0) if alpha_i = 0;  max(G, 0) if alpha_i = U;  G otherwise
    alpha_i <- min(max(alpha_i - G / Qbar_ii, 0), U),   w <- w + (alpha_i - alpha_i_old) y_i x_i

Each outer iteration visits a random permutation of the active rows. Shrinking (as
LIBLINEAR): a row with ``alpha_i = 0`` and ``G > PGmax_old`` (the largest PG of the previous
outer iteration, ``inf`` if that was <= 0), or ``alpha_i = U`` and ``G < PGmin_old``, leaves
the active set. When ``max PG - min PG <= tol`` on the active set, the thresholds are reset to
``-/+inf`` and every row is visited again; the solver stops only when a pass over all rows
has ``max PG - min PG <= tol``.

Work is counted in **epochs** of ``n`` row visits: once shrinking has left a small active
set, thousands of cheap outer iterations may be needed (LIBLINEAR counts these, so its
1000-iteration default stops early on a9a with ``C = 1/(1e-4 n)``; ours converges in about
150 epochs). The whole loop (permutations included, from a splitmix64 generator seeded by the
caller's ``RandomState``) runs in one compiled call, since per-call overhead of tens of
microseconds dominated the short passes; its state lives in arrays, so the loop can stop
after any outer iteration (``verbose``) and resume with identical iterates.

**The offset** (unregularized ``theta_0 = b``, as in the notes). With an offset the dual gains
the constraint ``sum_i alpha_i y_i = 0``, which single-coordinate steps cannot keep. We handle
it exactly by the method of multipliers on that constraint: minimize

    f(alpha) + nu s + rho/2 s^2,    s = sum_i alpha_i y_i,

by the same coordinate steps, updating ``nu <- nu + rho s / (1 - q)`` whenever the
projected-gradient gap falls below ``rho |s|`` (an inexact method of multipliers), until
``rho |s| <= tol``. ``q = s / s_prev``, clipped to ``[0, 0.5]``, is how much the previous
update shrank ``s``: the plain step (``q = 0``) shrinks ``s`` geometrically, by about 0.7 per
update on a9a; the extrapolated step is the secant step for ``s`` linear in ``nu``, at most
twice the plain one (it saved 10 to 20% of the epochs on a9a).
The coordinate step sees ``b = nu + rho s``, so it is the step above with
``G = y_i (w.x_i + b) - 1 + D_ii alpha_i``, ``Qbar_ii = ||x_i||^2 + D_ii + rho`` and
``b <- b + rho (alpha_i - alpha_i_old) y_i``; the multiplier update moves ``b`` as ``nu``.
In primal terms each inner problem is the SVM with the proximal term
``(b - nu)^2 / (2 rho)`` (LIBLINEAR's regularized bias is the case ``nu = 0`` held fixed), and
the proximal-point iteration drives it to the exact unregularized optimum.

We take ``rho = 0.1 mean_i ||x_i||^2``: larger ``rho`` damps every step (``Qbar_ii`` grows)
and couples the coordinates, smaller ``rho`` needs more multiplier updates. On a9a, w8a and
Reuters the offset costs 0.3 to 1.3 times the epochs of the problem without offset (tried:
``rho`` from 0.01 to 1 times the mean, updating more or less eagerly, and keeping the shrunk
set across multiplier updates; none was better on all three). After a multiplier update
every row is visited again (``b`` moved, so shrunk rows may violate again): on a9a about
half of the epochs are these full passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from .._random import splitmix64

__all__ = ["DCDResult", "dcd_svm"]


@njit(cache=True)
def _dcd_run(dense, X, data, indices, indptr, y, QD, alpha, w, bs, active, istate, fstate,
             rng_state, max_outer):
    """Outer iterations of DCD until convergence, the work budget, or ``max_outer`` of them.

    dense : bool, rows from ``X`` (float[n, d], C-contiguous) if True, else from the CSR
    arrays ``data, indices, indptr``; y : float64[n] in {-1,+1}; QD : float64[n], Qbar_ii;
    alpha : float64[n]; w : float64[d]; bs : float64[2] = (b, s = sum alpha_i y_i);
    active : int64[n], a permutation whose first ``n_active`` entries are the active rows;
    istate : int64[4] = (n_active, outer iterations, rows visited, converged),
    fstate : float64[9] = (U, D_ii, rho, PGmax_old, PGmin_old, tol, row-visit budget,
    shrinking 0/1, s at the last multiplier update),
    rng_state : uint64[1]. Everything is updated in place, so that calls can be chained.
    """
    n = alpha.shape[0]
    d = w.shape[0]
    U, Dii, rho, tol, budget = fstate[0], fstate[1], fstate[2], fstate[5], fstate[6]
    shrinking = fstate[7] != 0.0
    n_active, n_outer, visits = istate[0], istate[1], istate[2]
    PGmax_old, PGmin_old, s_prev = fstate[3], fstate[4], fstate[8]
    b, s = bs[0], bs[1]
    for _ in range(max_outer):
        if istate[3] != 0 or visits >= budget:
            break
        for k in range(n_active - 1):  # Fisher-Yates shuffle of the active rows
            # a uniform integer in [0, n_active - k) from the top 32 bits (n < 2^32)
            r = (splitmix64(rng_state) >> np.uint64(32)) * np.uint64(n_active - k)
            j = k + np.int64(r >> np.uint64(32))
            active[k], active[j] = active[j], active[k]
        PGmax, PGmin = -np.inf, np.inf
        n_kept = 0
        for k in range(n_active):
            i = np.uint64(active[k])  # unsigned: numba skips the negative-index test
            if dense:
                score = b
                for j in range(d):
                    score += w[j] * X[i, j]
            else:
                start, stop = np.uint64(indptr[i]), np.uint64(indptr[i + np.uint64(1)])
                score = b
                for p in range(start, stop):
                    score += w[np.uint64(indices[p])] * data[p]
            G = y[i] * score - 1.0 + Dii * alpha[i]
            PG = 0.0
            if alpha[i] == 0.0:
                if G > PGmax_old:
                    continue  # shrink: alpha_i = 0 stays optimal
                if G < 0.0:
                    PG = G
            elif alpha[i] == U:
                if G < PGmin_old:
                    continue  # shrink: alpha_i = U stays optimal
                if G > 0.0:
                    PG = G
            else:
                PG = G
            active[k] = active[n_kept]  # swap: shrunk rows collect behind the kept ones
            active[n_kept] = i
            n_kept += 1
            if PG > PGmax:
                PGmax = PG
            if PG < PGmin:
                PGmin = PG
            if PG > 1e-12 or PG < -1e-12:
                old = alpha[i]
                new = min(max(old - G / QD[i], 0.0), U)
                alpha[i] = new
                delta = (new - old) * y[i]
                if dense:
                    for j in range(d):
                        w[j] += delta * X[i, j]
                else:
                    for p in range(start, stop):
                        w[np.uint64(indices[p])] += delta * data[p]
                b += rho * delta
                s += delta
        visits += n_active
        n_outer += 1
        n_active = n_kept
        gap, viol = PGmax - PGmin, rho * abs(s)
        restart = False
        if viol > tol and not gap > max(tol, viol):
            # Inexact method of multipliers: move nu (and b = nu + rho s with it) as soon as
            # the inner problem is solved to the accuracy of the current infeasibility.
            # Extrapolated step: if the last update shrank s by a factor q in (0, 1), the
            # plain steps would shrink it geometrically; step rho / (1 - q) (the secant step
            # for s linear in nu), with q capped at 0.5 (at most twice the plain step).
            q = s / s_prev if s_prev != 0.0 else 0.0
            q = min(max(q, 0.0), 0.5)
            b += rho * s / (1.0 - q)
            s_prev = s
            restart = True
        elif not gap > tol:  # also true when every row was shrunk (PGmax = -inf)
            if n_active == n and viol <= tol:
                istate[3] = 1
            restart = True  # converged on the shrunk rows: check every row again
        if restart:
            n_active = n  # the shrunk rows sit behind the kept ones in active
            PGmax_old, PGmin_old = np.inf, -np.inf
        elif shrinking:
            PGmax_old = PGmax if PGmax > 0.0 else np.inf
            PGmin_old = PGmin if PGmin < 0.0 else -np.inf
    istate[0], istate[1], istate[2] = n_active, n_outer, visits
    fstate[3], fstate[4], fstate[8] = PGmax_old, PGmin_old, s_prev
    bs[0], bs[1] = b, s


@dataclass
class DCDResult:
    """``theta``, ``theta_0``, ``alpha`` of the dual, outer iterations, convergence flag."""

    theta: NDArray[np.float64]
    theta_0: float
    alpha: NDArray[np.float64]
    n_iter: int
    converged: bool


def dcd_svm(X, y: NDArray, C: float, *, loss: str = "hinge", fit_intercept: bool = True,
            tol: float = 1e-4, max_iter: int = 1000, shrinking: bool = True,
            rng: np.random.RandomState | None = None, verbose: bool = False) -> DCDResult:
    """Run dual coordinate descent on dense (C-contiguous) or CSR ``X``, ``y`` in {-1,+1}.

    ``max_iter`` bounds the epochs (``n`` row visits each; ``n_iter`` is their number,
    rounded up, at most ``max_iter``); ``tol`` bounds ``max PG - min PG`` over all rows and,
    with an offset, ``rho |sum_i alpha_i y_i|``. CSR data is read as float64 values with its
    own int32 or int64 indices (no copy for float64 data).
    """
    n, d = X.shape
    y = np.ascontiguousarray(y, dtype=np.float64)
    rng = np.random.RandomState(0) if rng is None else rng
    if loss == "hinge":
        U, Dii = float(C), 0.0
    else:
        U, Dii = np.inf, 1.0 / (2.0 * C)
    csr = sp.issparse(X)
    if csr:
        squares = sp.csr_matrix((np.square(X.data, dtype=np.float64), X.indices, X.indptr),
                                shape=X.shape)
        sq_norms = np.asarray(squares @ np.ones(d)).ravel()
    else:
        sq_norms = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    # rho: the weight of the offset coordinate. Any rho > 0 gives the same optimum; a tenth of
    # a typical ||x_i||^2 was the fastest of the values we tried on a9a and Gaussian data.
    rho = 0.1 * float(max(np.mean(sq_norms), 1e-12)) if fit_intercept else 0.0
    QD = np.maximum(sq_norms + Dii + rho, 1e-12)  # a zero row with no offset: alpha_i -> U
    alpha = np.zeros(n)
    w = np.zeros(d)
    bs = np.zeros(2)
    # (U, D_ii, rho, PGmax_old, PGmin_old, tol, row-visit budget = max_iter epochs, shrinking,
    #  s at the last multiplier update)
    fstate = np.array([U, Dii, rho, np.inf, -np.inf, tol, float(max_iter) * n,
                       1.0 if shrinking else 0.0, 0.0])
    istate = np.array([n, 0, 0, 0], dtype=np.int64)  # n_active, outer its, visits, converged
    rng_state = np.array([rng.randint(0, 2**31 - 1)], dtype=np.uint64)
    active = np.arange(n, dtype=np.int64)
    if csr:
        data = np.ascontiguousarray(X.data, dtype=np.float64)
        indices, indptr = X.indices, X.indptr
        if indices.dtype != indptr.dtype:
            indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
        Xd = np.empty((0, 0))
    else:
        data, indices, indptr, Xd = np.empty(0), np.empty(0, np.int32), np.empty(0, np.int32), X
    # One kernel call runs every outer iteration (verbose: one per call, to print progress).
    chunk = 1 if verbose else np.iinfo(np.int64).max
    while not istate[3] and istate[2] < fstate[6]:
        _dcd_run(not csr, Xd, data, indices, indptr, y, QD, alpha, w, bs, active, istate,
                 fstate, rng_state, chunk)
        if verbose:
            print(f"dcd: iter {istate[1]} (epoch {istate[2] / n:.2f}): active {istate[0]},"
                  f" b {bs[0]:.6g}, sum alpha y {bs[1]:.3g}")
    converged = bool(istate[3])
    # epochs = row visits / n, rounded up; the last outer iteration may end past the budget
    n_iter = min(int(-(-istate[2] // n)), int(max_iter))
    # b is the offset the last coordinate steps saw (b = nu + rho s, and s ~ 0 at the end).
    return DCDResult(w, float(bs[0]), alpha, n_iter, converged)
