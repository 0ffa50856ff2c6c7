"""The Crammer-Singer multi-class SVM by dual coordinate descent (Keerthi, Sundararajan,
Chang, Hsieh, Lin 2008; the method of LIBLINEAR's ``-s 4``).

Classes ``m = 0 .. k-1``, labels ``y_i``, one weight vector ``w_m`` per class, no offset::

    min_W  1/2 sum_m ||w_m||^2 + sum_i C_i max_m (e_i^m + w_m.x_i - w_{y_i}.x_i),
    e_i^m = 0 if m = y_i else 1       (the term m = y_i keeps the loss >= 0)

Dual, one vector ``alpha_i`` in R^k per example, ``w_m = sum_i alpha_i^m x_i``::

    max_alpha  sum_i alpha_i^{y_i} - 1/2 sum_m ||w_m||^2,
    sum_m alpha_i^m = 0,   alpha_i^m <= C_i^m,   C_i^m = C_i if m = y_i else 0.

A step solves the sub-problem of one example exactly, the others fixed. With
``G^m = w_m.x_i + e_i^m``, ``A = ||x_i||^2`` and ``B^m = G^m - A alpha_i^m``::

    min_a  sum_m (A/2 (a^m)^2 + B^m a^m)   s.t.  sum_m a^m = 0,  a^m <= C_i^m
    a^m = min(C_i^m, (beta - B^m) / A),

where ``beta`` makes ``sum_m a^m = 0``: with ``D^m = B^m + A C_i^m`` sorted decreasingly,
the unsaturated set is the first ``r`` of them and ``beta = (D^1 + ... + D^r - A C_i) / r``,
``r`` the largest count with ``beta < D^r`` as it grows. Example ``i`` is optimal when
``max_m G^m - min_{m: alpha_i^m < C_i^m} G^m`` is 0 (its violation); a pass over the rows in
a random order repeats until the largest violation of a pass is at most ``tol'``; then the
duality gap is checked, as in :mod:`halfspaces.solvers.dcd`: converged when it is at most
``0.01 tol`` times the primal, else ``tol' <- tol' / 10`` and the passes go on.

Between two passes the run's state (``W``, ``alpha``, the last order, the generator, the
passes, ``tol'``; :func:`state_arrays`, checked by :func:`check_state`) resumes the run bit
for bit (checkpoints). User guide: the Crammer-Singer section of docs/guide/svc.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._checkpoint import check_solver_arrays
from .._primitives import (
    CSR,
    matvec,
    product_rows,
    row_axpy,
    row_dot_dense_order,
    row_sqnorms,
    shuffle,
    sparse_product_rows,
)
from .._validation import check_row_norms
from ..exceptions import NumericalError

__all__ = ["CSResult", "check_state", "crammer_singer", "cs_objectives", "state_arrays"]

_GAP_PER_TOL = 0.01  # converged when P - D <= _GAP_PER_TOL * tol * P


@njit(cache=True, nogil=True)
def _cs_pass(X, y, W, alpha, sq_norms, C, order):
    """One pass over the rows in ``order``: the exact step on each ``alpha_i``; returns the
    largest violation seen before the steps and the last row that stepped (-1: none).

    X : float[n, d] C-contiguous or the CSR tuple of ``product_rows`` (scores summed in
    the dense rows' order for both, so both give the same bits); y : int64[n] in 0..k-1;
    W : float[k, d]
    and alpha : float[n, k] (updated in place); sq_norms, C : float[n] (``C_i``).
    """
    k = W.shape[0]
    G, B = np.empty(k), np.empty(k)
    worst, last = 0.0, np.int64(-1)
    for i in order:
        A, yi, Ci = sq_norms[i], y[i], C[i]
        if A == 0.0:  # a zero row moves no w_m: its alpha_i stays 0
            continue
        gmax, gmin = -np.inf, np.inf
        for m in range(k):
            G[m] = row_dot_dense_order(X, i, W[m]) + (0.0 if m == yi else 1.0)
            gmax = max(gmax, G[m])
            if alpha[i, m] < (Ci if m == yi else 0.0):
                gmin = min(gmin, G[m])
        worst = max(worst, gmax - gmin)
        if not gmax - gmin > 1e-12:
            continue
        for m in range(k):
            B[m] = G[m] - A * alpha[i, m]
        D = B.copy()
        D[yi] += A * Ci
        D = -np.sort(-D)
        beta, r = D[0] - A * Ci, 1
        while r < k and beta < r * D[r]:
            beta += D[r]
            r += 1
        beta /= r
        for m in range(k):
            new = min(Ci if m == yi else 0.0, (beta - B[m]) / A)
            if new != alpha[i, m]:
                row_axpy(X, i, new - alpha[i, m], W[m])  # w_m <- w_m + delta x_i
                alpha[i, m] = new
                last = i
    return worst, last


@dataclass
class CSResult:
    """``W`` (one row per class), the dual ``alpha`` (n x k), passes, convergence, and the
    primal and dual objectives (their difference bounds the primal's error)."""

    W: NDArray[np.float64]
    alpha: NDArray[np.float64]
    n_iter: int
    converged: bool
    primal: float
    dual: float


def cs_objectives(X, y: NDArray, W: NDArray, alpha: NDArray, C: NDArray) -> tuple[float, float]:
    """``(P, D)``: the primal at ``W`` and the dual at ``alpha`` (feasible by construction).

    ``X`` dense, sparse or ``product_rows``'s; the scores are summed as the steps sum them
    (the same bits for a dense row and its CSR copy)."""
    rows = X if isinstance(X, CSR) else sparse_product_rows(X)
    scores = np.empty((len(y), W.shape[0]))
    for m in range(W.shape[0]):
        column = np.empty(len(y))
        matvec(rows, np.ascontiguousarray(W[m]), column)
        scores[:, m] = column
    rows = np.arange(len(y))
    margins = scores + 1.0 - scores[rows, y][:, None]
    margins[rows, y] = 0.0
    half = 0.5 * float((W * W).sum())
    return half + float((C * margins.max(axis=1)).sum()), float(alpha[rows, y].sum()) - half


def crammer_singer(X, y: NDArray, n_classes: int, C: float, *, tol: float = 1e-4,
                   max_iter: int = 1000, seed: int = 0, sample_weight: NDArray | None = None,
                   owner: str = "crammer_singer", checkpoint=None,
                   resume: dict | None = None) -> CSResult:
    """Solve the Crammer-Singer SVM on dense (C-contiguous) or CSR ``X``, ``y`` in
    ``0 .. n_classes - 1``, ``C_i = C s_i``; ``max_iter`` passes at most, each over the rows
    in a random order (``seed``); converged when the duality gap is at most ``0.01 tol``
    times the primal (see the module docstring).

    Checkpoints: ``checkpoint(passes, state)`` is called after every pass that more passes
    follow; ``state()`` gives the run's state as arrays (:func:`state_arrays`). A run given
    those as ``resume`` (checked by :func:`check_state`) goes on from there with the passes,
    and the result, of the run that wrote them."""
    n, d = X.shape
    check_row_norms(owner, X)  # names a row whose ||x_i||^2 overflows
    rows = product_rows(X)  # dense rows for the steps' vector sums
    products = rows if isinstance(rows, CSR) else sparse_product_rows(X)  # the objectives'
    sq_norms = np.empty(n)
    row_sqnorms(products, sq_norms)  # in row order: the same bits for both layouts
    Ci = np.full(n, float(C)) if sample_weight is None else float(C) * sample_weight
    y = np.ascontiguousarray(y, dtype=np.int64)
    W, alpha = np.zeros((n_classes, d)), np.zeros((n, n_classes))
    order, rng_state = np.arange(n, dtype=np.int64), np.array([seed], dtype=np.uint64)
    converged, n_iter, tol_pass = False, 0, tol
    if resume is not None:
        for name, into in (("W", W), ("alpha", alpha), ("order", order), ("rng", rng_state)):
            into[:] = resume[name]
        n_iter, tol_pass = int(resume["n_iter"][0]), float(resume["tol"][0])
    primal = dual = float("nan")
    while n_iter < max_iter and not converged:
        shuffle(order, rng_state)
        violation, last = _cs_pass(rows, y, W, alpha, sq_norms, Ci, order)
        n_iter += 1
        if not np.isfinite(W).all():  # finite before the pass: a step of it overflowed
            raise NumericalError(owner, int(last), "the weights")
        if violation <= tol_pass or n_iter == max_iter:
            primal, dual = cs_objectives(products, y, W, alpha, Ci)
            converged = primal - dual <= _GAP_PER_TOL * tol * abs(primal)
            tol_pass *= 0.1  # the violations met tol' but the gap did not: go on
        if checkpoint is not None and n_iter < max_iter and not converged:
            checkpoint(n_iter, lambda n_iter=n_iter, tol_pass=tol_pass: state_arrays(
                W, alpha, order, rng_state, n_iter, tol_pass))
    return CSResult(W, alpha, n_iter, converged, primal, dual)


def state_arrays(W: NDArray, alpha: NDArray, order: NDArray, rng_state: NDArray,
                 n_iter: int, tol_pass: float) -> dict:
    """The state of a run between two passes, as copies of arrays by name: ``W``, ``alpha``,
    ``order`` (the last pass's), ``rng`` (the generator), ``n_iter`` (int64, the passes
    made) and ``tol`` (float64, ``tol'``)."""
    return {"W": W.copy(), "alpha": alpha.copy(), "order": order.copy(),
            "rng": rng_state.copy(), "n_iter": np.array([n_iter], dtype=np.int64),
            "tol": np.array([tol_pass])}


def check_state(arrays: dict, y: NDArray, n_classes: int, d: int, C, max_iter: int) -> None:
    """Refuse (ValueError, naming the array) a run's state (:func:`state_arrays`) that this
    problem (labels ``y`` in ``0 .. n_classes - 1``, ``d`` features, ``C_i`` the constants,
    ``max_iter`` passes) cannot go on from."""
    n = len(y)
    wanted = {"W": ("f8", (n_classes, d)), "alpha": ("f8", (n, n_classes)),
              "order": ("i8", (n,)), "rng": ("u8", (1,)), "n_iter": ("i8", (1,)),
              "tol": ("f8", (1,))}
    check_solver_arrays(arrays, wanted)
    alpha = arrays["alpha"]
    # alpha_i^m <= C_i^m: C_i for the example's class, 0 for the others
    box = np.where(np.arange(n_classes) == np.asarray(y)[:, None],
                   np.broadcast_to(np.asarray(C, dtype=np.float64), (n,))[:, None], 0.0)
    problems = (
        ("W", not np.isfinite(arrays["W"]).all(), "not finite"),
        ("alpha", not (np.isfinite(alpha).all() and (alpha <= box).all()),
         "outside alpha_i^m <= C_i^m (C_i for the class of example i, 0 for the others)"),
        ("order", not np.array_equal(np.sort(arrays["order"]), np.arange(n)),
         "not a permutation of the rows"),
        ("n_iter", not 0 < arrays["n_iter"][0] < max_iter,
         f"not a number of passes from 1 to max_iter - 1 = {max_iter - 1}"),
        ("tol", not 0.0 < arrays["tol"][0] < np.inf, "not a finite tol' > 0"))
    for name, bad, what in problems:
        if bad:
            raise ValueError(f"the solver state {name!r} is {what}")
