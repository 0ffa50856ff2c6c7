"""Sequential minimal optimization for the kernel SVM, with second-order working-set selection
(Platt 1998; Fan, Chen and Lin 2005; Chang and Lin, LIBSVM).

The dual of the soft-margin SVM, as a minimization, ``y_i in {-1, +1}``::

    min_alpha  f(alpha) = 1/2 alpha^T Q alpha - sum_i alpha_i,   Q_ij = y_i y_j K_ij,
    0 <= alpha_i <= C_i,   sum_i y_i alpha_i = 0   (the offset b; no such row without one)

with gradient ``G = Q alpha - 1``, kept up to date. With ``v_t = -y_t G_t``,
``I_up = {t : alpha_t < C_t, y_t = 1 or alpha_t > 0, y_t = -1}`` (where ``y_t alpha_t`` can
grow) and ``I_low`` (where it can shrink), the KKT conditions are ``m <= M``,
``m = max_{I_up} v``, ``M = min_{I_low} v``. Each step takes the pair

    i = argmax_{t in I_up} v_t,
    j = argmin_{t in I_low, v_t < v_i} -(v_i - v_t)^2 / a_it,   a_it = K_ii + K_tt - 2 K_it

(``a_it <= 0`` taken as 1e-12) and moves ``alpha_i += y_i s``, ``alpha_j -= y_j s``, keeping
``sum y alpha``, with the Newton step ``s = (v_i - v_j) / a_ij`` clipped to the box.
Without an offset the dual is the box alone and each step moves one ``alpha_i``: the one
whose clipped Newton step ``alpha_i <- clip(alpha_i - G_i / K_ii)`` decreases ``f`` most.

**Kernel columns** are computed on demand and kept in a least-recently-used cache of at most
``cache_size`` MB (at least two columns). **Shrinking** as LIBSVM: every ``min(n, 1000)``
steps, a bounded ``alpha_t`` that cannot move toward the KKT gap leaves the active set;
``G_bar_t = sum_{alpha_j = C_j} C_j Q_tj`` rebuilds the left rows' gradients when
``m - M <= 10 eps`` and before the run ends.

**Stopping.** A round runs until ``m - M <= eps``; then the duality gap ``P(alpha, b) -
D(alpha)`` (``b`` minimizing the primal, :func:`best_offset`) is checked: converged when it
is at most ``gap_rtol P``, else ``eps <- eps / 10`` (from LIBSVM's 1e-3) and it goes on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._dispatch import resolved
from .._memory import check_allocation
from .._primitives import (
    product_rows,
    row_as_dense,
    row_clear,
    row_dot,
    row_sqnorm,
    row_sqnorms,
)

__all__ = ["KERNEL_KINDS", "SMOResult", "best_offset", "cache_columns", "smo_svm"]

KERNEL_KINDS = {"linear": 0, "poly": 1, "rbf": 2, "precomputed": 3}
_PRECOMPUTED = 3
_TAU = 1e-12  # the curvature used when a_ij <= 0
_START_EPS = 1e-3  # the first round's m - M, as LIBSVM's default tol
_MIN_EPS = 1e-12  # below this the rounds stop (rounding)
_MB = 1 << 20


class KernelRows(NamedTuple):
    """``k(x_i, x_j)`` from the rows: ``X`` (dense or :class:`~halfspaces._primitives.CSR`),
    their ``sq = ||x_i||^2``, the kind (``KERNEL_KINDS``), its parameters, and for the
    precomputed kind the Gram matrix ``gram`` (else an empty 2-D array)."""

    X: object
    sq: NDArray[np.float64]
    kind: int
    gamma: float
    degree: int
    coef0: float
    gram: NDArray[np.float64]


class ColumnCache(NamedTuple):
    """Least-recently-used kernel columns: ``cols[s]`` holds column ``owner[s]`` (``-1``:
    empty), over every row (``every``: their indices) when ``full[s]``, else over the
    active rows of the shrinking epoch ``epoch[s]``; ``slot[i]`` is the slot of column
    ``i`` or ``-1``; ``clock[0]`` counts the reads, ``clock[1]`` is the shrinking epoch,
    ``clock[2]`` counts the columns computed."""

    cols: NDArray[np.float64]
    every: NDArray[np.int64]
    owner: NDArray[np.int64]
    full: NDArray[np.bool_]
    epoch: NDArray[np.int64]
    used: NDArray[np.int64]
    slot: NDArray[np.int64]
    clock: NDArray[np.int64]


class SMOState(NamedTuple):
    """The iterate: ``alpha``, ``G = Q alpha - 1``, ``G_bar`` (see the module docstring),
    ``active[:n_active[0]]`` the active rows, ``n_active[0]``, and ``steps[0]`` taken."""

    alpha: NDArray[np.float64]
    G: NDArray[np.float64]
    G_bar: NDArray[np.float64]
    active: NDArray[np.int64]
    n_active: NDArray[np.int64]
    steps: NDArray[np.int64]


@dataclass
class SMOResult:
    """``alpha`` of the dual, the offset ``theta_0``, the decision values ``g`` (without the
    offset) on the training rows, steps, convergence, the primal objective at
    ``(alpha, theta_0)``, the dual objective, the primal's loss term ``sum_i C_i
    hinge_i`` (the rest is ``1/2 ||theta||^2``), the kernel columns computed and the
    bytes the cache held."""

    alpha: NDArray[np.float64]
    theta_0: float
    g: NDArray[np.float64]
    n_iter: int
    converged: bool
    primal: float
    dual: float
    hinge: float
    columns: int
    cache_bytes: int


def cache_columns(cache_size: float, n: int) -> int:
    """How many float64 columns of ``n`` rows fit in ``cache_size`` MB (at least two)."""
    return int(max(2, min(n, cache_size * _MB // (8 * max(n, 1)))))


# -- kernel columns --------------------------------------------------------------------------

def _dense_dots(X, i, targets, count, out, work):
    xi = X[i]
    for p in range(count):
        r = targets[p]
        x = X[r]
        s = 0.0
        for k in range(x.shape[0]):  # one short chain: LLVM unrolls and vectorizes it
            s += xi[k] * x[k]
        out[r] = s


def _csr_dots(X, i, targets, count, out, work):
    xi = row_as_dense(X, i, work)
    for p in range(count):
        r = targets[p]
        out[r] = row_dot(X, r, xi)
    row_clear(X, i, work)


@resolved(array=_dense_dots, CSR=_csr_dots)
def row_dots(X, i, targets, count, out, work):
    """``out[r] = <x_i, x_r>`` for ``r`` in ``targets[:count]`` (``work``: zeros, one per
    column, where a CSR row is scattered)."""


@njit(cache=True)
def _fill(rows, i, targets, count, col, work):
    """``col[r] = k(x_i, x_r)`` for ``r`` in ``targets[:count]``."""
    if rows.kind == _PRECOMPUTED:
        for p in range(count):
            col[targets[p]] = rows.gram[i, targets[p]]
        return
    row_dots(rows.X, i, targets, count, col, work)
    if rows.kind == 1:
        for p in range(count):
            r = targets[p]
            col[r] = (rows.gamma * col[r] + rows.coef0) ** rows.degree
    elif rows.kind == 2:
        sq, g = rows.sq, rows.gamma
        for p in range(count):
            r = targets[p]
            col[r] = math.exp(-g * max(sq[i] + sq[r] - 2.0 * col[r], 0.0))


@njit(cache=True)
def _column(rows, cache, state, i, full, work):
    """Column ``i`` of ``K`` from the cache (computed on a miss, into the least recently
    used slot), over every row when ``full``, else at least over the active rows."""
    cache.clock[0] += 1
    s = cache.slot[i]
    if s >= 0 and (cache.full[s] or (not full and cache.epoch[s] == cache.clock[1])):
        cache.used[s] = cache.clock[0]
        return cache.cols[s]
    if s < 0:
        s = np.argmin(cache.used)
        if cache.owner[s] >= 0:
            cache.slot[cache.owner[s]] = -1
        cache.owner[s], cache.slot[i] = i, s
    cache.used[s] = cache.clock[0]
    n_active = state.n_active[0]
    n = state.alpha.shape[0]
    everything = full or n_active == n
    col = cache.cols[s]
    if everything:
        _fill(rows, i, cache.every, n, col, work)
    else:
        _fill(rows, i, state.active, n_active, col, work)
    cache.full[s], cache.epoch[s] = everything, cache.clock[1]
    cache.clock[2] += 1
    return col


@njit(cache=True)
def kernel_diagonal(rows, n):
    """``K_ii`` for every row."""
    out = np.empty(n)
    for i in range(n):
        if rows.kind == _PRECOMPUTED:
            out[i] = rows.gram[i, i]
        elif rows.kind == 2:
            out[i] = 1.0
        else:
            d = row_sqnorm(rows.X, i)
            out[i] = d if rows.kind == 0 else (rows.gamma * d + rows.coef0) ** rows.degree
    return out


# -- the steps -------------------------------------------------------------------------------

@njit(cache=True)
def _in_up(a, y, C):
    return a < C if y > 0 else a > 0.0


@njit(cache=True)
def _in_low(a, y, C):
    return a > 0.0 if y > 0 else a < C


@njit(cache=True)
def _violation(state, y, C):
    """``(m, M, i)``: ``max_{I_up} v``, ``min_{I_low} v`` over the active rows, and the
    maximizer ``i`` (``-1`` when ``I_up`` is empty)."""
    m, M, i = -np.inf, np.inf, -1
    for p in range(state.n_active[0]):
        t = state.active[p]
        v = -y[t] * state.G[t]
        if _in_up(state.alpha[t], y[t], C[t]) and v > m:
            m, i = v, t
        if _in_low(state.alpha[t], y[t], C[t]) and v < M:
            M = v
    return m, M, i


@njit(cache=True)
def _second_order_j(state, y, C, QD, i, m, Ki):
    """The ``j`` of the pair (module docstring), ``-1`` when none decreases ``f``."""
    j, best = -1, np.inf
    for p in range(state.n_active[0]):
        t = state.active[p]
        if not _in_low(state.alpha[t], y[t], C[t]):
            continue
        b = m + y[t] * state.G[t]  # v_i - v_t
        if b > 0.0:
            a = QD[i] + QD[t] - 2.0 * Ki[t]
            gain = -b * b / (a if a > 0.0 else _TAU)
            if gain < best:
                j, best = t, gain
    return j


@njit(cache=True)
def _track_upper(state, y, C, t, was_upper, rows, cache, work):
    """Keep ``G_bar`` when ``alpha_t`` reaches or leaves its upper bound."""
    upper = state.alpha[t] >= C[t]
    if upper == was_upper:
        return
    Kt = _column(rows, cache, state, t, True, work)
    c = C[t] * y[t] if upper else -C[t] * y[t]
    for k in range(state.alpha.shape[0]):
        state.G_bar[k] += c * y[k] * Kt[k]


@njit(cache=True)
def _pair_step(rows, cache, state, y, C, QD, eps, work, shrinking):
    """One step on a pair; False when ``m - M <= eps`` on the active rows."""
    m, M, i = _violation(state, y, C)
    if i < 0 or m - M <= eps:
        return False
    Ki = _column(rows, cache, state, i, False, work)
    j = _second_order_j(state, y, C, QD, i, m, Ki)
    if j < 0:
        return False
    Kj = _column(rows, cache, state, j, False, work)
    Ki = _column(rows, cache, state, i, False, work)  # still cached: two slots at least
    a = QD[i] + QD[j] - 2.0 * Ki[j]
    s = (m + y[j] * state.G[j]) / (a if a > 0.0 else _TAU)
    ai, aj = state.alpha[i], state.alpha[j]
    cap_i = C[i] - ai if y[i] > 0 else ai  # alpha_i + y_i s in [0, C_i]
    cap_j = aj if y[j] > 0 else C[j] - aj  # alpha_j - y_j s in [0, C_j]
    s = min(s, cap_i, cap_j)
    # a step that reaches a bound puts alpha exactly on it
    if s < cap_i:
        state.alpha[i] = min(max(ai + y[i] * s, 0.0), C[i])
    else:
        state.alpha[i] = C[i] if y[i] > 0 else 0.0
    if s < cap_j:
        state.alpha[j] = min(max(aj - y[j] * s, 0.0), C[j])
    else:
        state.alpha[j] = 0.0 if y[j] > 0 else C[j]
    for p in range(state.n_active[0]):
        t = state.active[p]
        state.G[t] += y[t] * s * (Ki[t] - Kj[t])
    if shrinking:
        _track_upper(state, y, C, i, ai >= C[i], rows, cache, work)
        _track_upper(state, y, C, j, aj >= C[j], rows, cache, work)
    return True


@njit(cache=True)
def _box_step(rows, cache, state, y, C, QD, eps, work, shrinking):
    """One step on one ``alpha_i`` (no offset); False when every projected gradient is at
    most ``eps``."""
    i, best, worst = -1, -1.0, 0.0
    for p in range(state.n_active[0]):
        t = state.active[p]
        g, a = state.G[t], state.alpha[t]
        pg = min(g, 0.0) if a <= 0.0 else (max(g, 0.0) if a >= C[t] else g)
        worst = max(worst, abs(pg))
        if pg != 0.0:
            new = min(max(a - g / max(QD[t], _TAU), 0.0), C[t])
            gain = -(new - a) * (g + 0.5 * QD[t] * (new - a))
            if gain > best:
                i, best = t, gain
    if i < 0 or worst <= eps:
        return False
    Ki = _column(rows, cache, state, i, False, work)
    a = state.alpha[i]
    state.alpha[i] = min(max(a - state.G[i] / max(QD[i], _TAU), 0.0), C[i])
    delta = (state.alpha[i] - a) * y[i]
    for p in range(state.n_active[0]):
        t = state.active[p]
        state.G[t] += y[t] * delta * Ki[t]
    if shrinking:
        _track_upper(state, y, C, i, a >= C[i], rows, cache, work)
    return True


# -- shrinking -------------------------------------------------------------------------------

@njit(cache=True)
def _shrinkable(a, yt, Ct, v, m, M):
    """A bounded ``alpha_t`` that only ``I_low`` holds with ``v_t > m``, or only ``I_up``
    with ``v_t < M``."""
    if a >= Ct:
        return v > m if yt > 0 else v < M
    if a <= 0.0:
        return v < M if yt > 0 else v > m
    return False


@njit(cache=True)
def _reconstruct(rows, cache, state, y, C, work):
    """Gradients of the inactive rows from ``G_bar`` and the free ``alpha``s; every row
    active again."""
    n = state.alpha.shape[0]
    n_active = state.n_active[0]
    if n_active == n:
        return
    inactive = np.ones(n, dtype=np.bool_)
    for p in range(n_active):
        inactive[state.active[p]] = False
    rest = np.flatnonzero(inactive)
    for t in rest:
        state.G[t] = state.G_bar[t] - 1.0
    for p in range(n_active):
        j = state.active[p]
        a = state.alpha[j]
        if 0.0 < a < C[j]:
            Kj = _column(rows, cache, state, j, True, work)
            for t in rest:
                state.G[t] += a * y[j] * y[t] * Kj[t]
    state.active[:] = np.arange(n)
    state.n_active[0] = n
    cache.clock[1] += 1  # columns over the old active rows are stale


@njit(cache=True)
def _shrink(rows, cache, state, y, C, eps, unshrunk, work):
    """Drop the shrinkable rows (for the pair steps); returns whether the one early
    reconstruction has happened."""
    m, M = -np.inf, np.inf
    for p in range(state.n_active[0]):
        t = state.active[p]
        v = -y[t] * state.G[t]
        if _in_up(state.alpha[t], y[t], C[t]):
            m = max(m, v)
        if _in_low(state.alpha[t], y[t], C[t]):
            M = min(M, v)
    if not unshrunk and m - M <= 10.0 * eps:
        _reconstruct(rows, cache, state, y, C, work)
        unshrunk = True
    kept = 0
    for p in range(state.n_active[0]):
        t = state.active[p]
        if not _shrinkable(state.alpha[t], y[t], C[t], -y[t] * state.G[t], m, M):
            state.active[kept] = t
            kept += 1
    state.n_active[0] = kept
    return unshrunk


@njit(cache=True)
def _box_shrink(state, C):
    """Drop bounded rows whose gradient holds them at the bound (no offset)."""
    kept = 0
    for p in range(state.n_active[0]):
        t = state.active[p]
        a, g = state.alpha[t], state.G[t]
        if not ((a <= 0.0 and g > 0.0) or (a >= C[t] and g < 0.0)):
            state.active[kept] = t
            kept += 1
    state.n_active[0] = kept


@njit(cache=True)
def _step(rows, cache, state, y, C, QD, eps, work, equality, shrinking):
    """A pair step (with an offset) or a single step (without); False when none is left."""
    if equality:
        return _pair_step(rows, cache, state, y, C, QD, eps, work, shrinking)
    return _box_step(rows, cache, state, y, C, QD, eps, work, shrinking)


@njit(cache=True)
def smo_round(rows, cache, state, y, C, QD, eps, max_steps, equality, shrinking, work):
    """Steps until the KKT violation is at most ``eps`` over every row or ``max_steps`` in
    all; returns whether it reached ``eps``. Leaves every row active with its gradient.
    ``work``: zeros, one per column of ``X`` (a CSR row is scattered into it)."""
    n = state.alpha.shape[0]
    every = min(n, 1000)
    countdown = every
    unshrunk = False
    while state.steps[0] < max_steps:
        if shrinking:
            countdown -= 1
            if countdown == 0:
                countdown = every
                if equality:
                    unshrunk = _shrink(rows, cache, state, y, C, eps, unshrunk, work)
                else:
                    _box_shrink(state, C)
        if not _step(rows, cache, state, y, C, QD, eps, work, equality, shrinking):
            if state.n_active[0] == n:
                return True
            _reconstruct(rows, cache, state, y, C, work)  # met on the active rows: all?
            if not _step(rows, cache, state, y, C, QD, eps, work, equality, shrinking):
                return True
            countdown = 1
        state.steps[0] += 1
    _reconstruct(rows, cache, state, y, C, work)
    return False


# -- the driver ------------------------------------------------------------------------------

def best_offset(g: NDArray, y: NDArray, C: NDArray, hint: float) -> tuple[float, float]:
    """``(b, hinge)``: the offset minimizing ``sum_i C_i max(0, 1 - y_i (g_i + b))``,
    the one closest to ``hint`` where a whole interval does, and that sum.

    The sum is convex and piecewise linear in ``b`` with kinks ``y_i - g_i``; its slope
    rises from ``-sum_{y_i > 0} C_i`` by ``C_i`` at each kink.
    """
    kinks = y - g
    order = np.argsort(kinks, kind="stable")
    k, c = kinks[order], C[order]
    slope = -C[y > 0].sum() + np.cumsum(c)  # after each kink
    scale = C.sum() * 1e-12
    first = int(np.searchsorted(slope, -scale))  # the first kink with slope >= 0
    if first >= k.size:
        b = float(k[-1]) if k.size else 0.0
    else:
        lo = float(k[first])
        hi = float(k[first + 1]) if abs(slope[first]) <= scale and first + 1 < k.size else lo
        b = min(max(hint, lo), hi)
    return b, float((C * np.maximum(0.0, 1.0 - y * (g + b))).sum())


def smo_svm(X, y: NDArray, C: float, *, kernel: str, gamma: float = 1.0, degree: int = 3,
            coef0: float = 0.0, fit_intercept: bool = True, gap_rtol: float = 1e-6,
            max_steps: int = 10_000_000, cache_size: float = 200.0, shrinking: bool = True,
            sample_weight: NDArray | None = None, gram: NDArray | None = None,
            verbose: bool = False, owner: str = "smo_svm") -> SMOResult:
    """Solve the dual of the kernel SVM by SMO (module docstring) on the rows of ``X`` (dense
    or a SciPy CSR matrix) or, with ``kernel="precomputed"``, on the Gram matrix ``gram``.

    ``C_i = C s_i`` with ``sample_weight`` (``s_i > 0``). Converged when the duality gap is
    at most ``gap_rtol`` times the primal objective; ``max_steps`` bounds the steps.
    ``owner`` names the caller in the error raised when the cache would not fit in memory.
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.shape[0]
    Ci = np.full(n, float(C)) if sample_weight is None else \
        float(C) * np.asarray(sample_weight, dtype=np.float64)
    empty = np.zeros((0, 0))
    if kernel == "precomputed":
        X_rows, sq = np.zeros((n, 0)), np.zeros(n)
        G_rows = np.ascontiguousarray(gram, dtype=np.float64)
    else:
        X_rows = product_rows(X)
        sq = np.empty(n)
        row_sqnorms(X_rows, sq)
        G_rows = empty
    rows = KernelRows(X_rows, np.ascontiguousarray(sq, dtype=np.float64),
                      KERNEL_KINDS[kernel], float(gamma), int(degree), float(coef0), G_rows)
    n_slots = cache_columns(cache_size, n)
    check_allocation(owner, 8 * n * (n_slots + 12), f"the SMO state and its kernel cache of"
                     f" {n_slots} columns of {n} rows",
                     f"Give a smaller cache_size (now {cache_size:g} MB).")
    cache = ColumnCache(np.empty((n_slots, n)), np.arange(n, dtype=np.int64),
                        np.full(n_slots, -1, dtype=np.int64),
                        np.zeros(n_slots, dtype=np.bool_), np.zeros(n_slots, dtype=np.int64),
                        np.zeros(n_slots, dtype=np.int64), np.full(n, -1, dtype=np.int64),
                        np.zeros(3, dtype=np.int64))
    state = SMOState(np.zeros(n), -np.ones(n), np.zeros(n), np.arange(n, dtype=np.int64),
                     np.array([n], dtype=np.int64), np.zeros(1, dtype=np.int64))
    QD = kernel_diagonal(rows, n)
    work = np.zeros(0 if kernel == "precomputed" else X.shape[1])
    eps, converged = _START_EPS, False
    while True:
        met = smo_round(rows, cache, state, y, Ci, QD, eps, max_steps, bool(fit_intercept),
                        bool(shrinking), work)
        theta_0, primal, dual, hinge = _objectives(state, y, Ci, bool(fit_intercept))
        gap = primal - dual
        if verbose:
            print(f"SMO: eps={eps:.0e}, {state.steps[0]} steps, primal {primal:.10g},"
                  f" relative gap {gap / max(abs(primal), 1e-300):.2e},"
                  f" {cache.clock[2]} columns computed")
        if gap <= gap_rtol * abs(primal):
            converged = True
            break
        if not met or eps <= _MIN_EPS:
            break
        eps /= 10.0
    g = y * (state.G + 1.0)
    return SMOResult(state.alpha, theta_0, g, int(state.steps[0]), converged, primal, dual,
                     hinge, int(cache.clock[2]), int(cache.cols.nbytes))


def _objectives(state: SMOState, y: NDArray, C: NDArray, equality: bool):
    """``(b, P, D, L)``: the offset (0 without one), the primal objective at ``(alpha, b)``,
    the dual objective ``sum alpha - 1/2 alpha^T Q alpha`` (``Q alpha = G + 1``) and the
    primal's loss term ``L``."""
    alpha, G = state.alpha, state.G
    quad = max(float(alpha @ (G + 1.0)), 0.0)  # alpha^T Q alpha = ||theta||^2
    dual = float(alpha.sum()) - 0.5 * quad
    g = y * (G + 1.0)
    if equality:
        free = (alpha > 0.0) & (alpha < C)
        hint = -float(np.mean(y[free] * G[free])) if free.any() else 0.0
        b, hinge = best_offset(g, y, C, hint)
    else:
        b, hinge = 0.0, float((C * np.maximum(0.0, 1.0 - y * g)).sum())
    return b, 0.5 * quad + hinge, dual, hinge
