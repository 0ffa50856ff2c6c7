"""The compiled passes of Pegasos (:mod:`halfspaces.linear.pegasos` gives the rule): plain
(k = 1) and mini-batch, and the pieces of one step that the kernel form
(:mod:`halfspaces.kernel.kernel_pegasos`) shares.

The passes store w = a v: the shrink (1 - eta lam) and the projection multiply the scalar a
(O(1)), a violator adds (eta y / (k a)) x to v (O(nnz(x))), and ||w||^2 is tracked with the
update (so the projection is O(1) too). When |a| < 1e-6 (or a = 0: the first step of the
"pegasos" schedule zeroes w), v is rescaled to a v and a reset to 1.

Averaging (uniform weights c_s = 1, or c_s = s) keeps sum_s c_s w_s = S v - u without touching
all of w each step: S is the running sum of c_s a_s and u += S_{t-1} dv_t for each sparse
change dv_t of v (renormalising folds S v into u and restarts S at 0).

The state of a pass is a :class:`PegasosState` (scalars) and :class:`PegasosVectors` (v, u),
its hyper-parameters a :class:`PegasosParams`; a pass returns the state after it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._primitives import (
    FINITE,
    SCORE_NOT_FINITE,
    PassResult,
    as_rows,
    example_weight,
    row_axpy,
    row_axpy2,
    row_axpy_sqchange,
    row_dot,
    row_prefetch,
)
from ._pegasos_base import PegasosParams, PegasosState, PegasosVectors, step_size

__all__ = ["RENORM_BELOW", "end_step", "minibatch_epoch", "moved", "next_step",
           "pegasos_epoch", "run_epoch", "shrink"]

# -- one step, in pieces shared by every pass ---------------------------------------------------

RENORM_BELOW = 1e-6  # averaging loses about eps / a of relative precision


@njit(cache=True)
def next_step(st):
    """t <- t + 1."""
    return PegasosState(st.t + 1, st.a, st.sqnorm, st.b, st.S, st.bsum, st.csum)


@njit(cache=True)
def shrink(st, factor):
    """w <- factor w, i.e. a <- factor a (O(1))."""
    return PegasosState(st.t, st.a * factor, st.sqnorm * (factor * factor), st.b, st.S,
                        st.bsum, st.csum)


@njit(cache=True)
def moved(st, dsq, db):
    """The state after a violator's step moved ||w||^2 by ``dsq`` and b by ``db``."""
    return PegasosState(st.t, st.a, st.sqnorm + dsq, st.b + db, st.S, st.bsum, st.csum)


@njit(cache=True)
def end_step(st, p):
    """Projection onto the ball of radius 1/sqrt(lam), then the averaging sums."""
    t, a, sqnorm = st.t, st.a, st.sqnorm
    if p.project and sqnorm * p.lam > 1.0:
        factor = 1.0 / math.sqrt(p.lam * sqnorm)
        a *= factor
        sqnorm *= factor * factor
    S, bsum, csum = st.S, st.bsum, st.csum
    if t > p.avg_start:  # uniform weights, or t - t_start (later iterates count more)
        weight = t - p.avg_start if p.weighted else 1.0
        S += weight * a
        bsum += weight * st.b
        csum += weight
    return PegasosState(t, a, sqnorm, st.b, S, bsum, csum)


@njit(cache=True)
def _fold(w, st):
    """Renormalise: v <- a v (a becomes 1), u <- u - S v (S becomes 0): the same w and
    sum_s c_s w_s, with the exact ||w||^2."""
    v, u = w.v, w.u
    if u.shape[0] > 0:
        for j in range(v.shape[0]):
            u[j] -= st.S * v[j]
    sq = 0.0
    for j in range(v.shape[0]):
        v[j] *= st.a
        sq += v[j] * v[j]
    return PegasosState(st.t, 1.0, sq, st.b, 0.0, st.bsum, st.csum)


# -- the passes ------------------------------------------------------------------------------------
# data : the tuple (X, y, sq_norms, s), unpacked once before the loop (a tuple read inside
# the loop would cost reference counts per row). X : float[n, d] C-contiguous, or the CSR
# tuple of _primitives.as_rows; y : float64[n] in {-1,+1}; sq_norms : float64[n],
# ||x_i||^2 (plain pass only); order : uint64[m] rows to visit; p : PegasosParams; w :
# PegasosVectors (updated in place); st : PegasosState before the pass; scores : float64[n]
# receives each row's score before its step (empty: not recorded).
# Each returns the state after it and a PassResult: the mistakes (y score <= 0 before the
# step) and FINITE, or SCORE_NOT_FINITE and the row whose score was inf or nan, where the pass
# stopped (nan <= 0 is false: never a mistake). The plain pass prefetches the next row: rows
# come in an order the hardware cannot guess. s : float64[n] example weights > 0, or None (all
# 1: resolved when the pass compiles, so that path is the plain one): a violator's step is
# scaled by s_i (the caller leaves rows of weight 0 out of the data).


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def pegasos_epoch(data, order, p, w, st, scores):
    """One pass of plain Pegasos (k = 1) over rows ``X[order]``."""
    X, y, sq_norms, s = data
    m, record = order.shape[0], scores.shape[0] > 0
    mistakes = 0
    for q in range(m):
        if q + 1 < m:
            row_prefetch(X, order[q + 1])
        i = order[q]
        st = next_step(st)
        wx = st.a * row_dot(X, i, w.v)  # <w_t, x_i>
        score = wx + st.b
        if not abs(score) < np.inf:
            return st, PassResult(mistakes, SCORE_NOT_FINITE, np.int64(i))
        if record:
            scores[i] = score
        if y[i] * score <= 0.0:  # a tie counts as a mistake
            mistakes += 1
        eta = step_size(p.rate, st.t)
        f = 1.0 - eta * p.lam
        st = shrink(st, f)  # w <- (1 - eta lam) w
        if abs(st.a) < RENORM_BELOW:
            st = _fold(w, st)
        if y[i] * score < 1.0:  # w += e y x  is  v += (e y / a) x, e = eta s_i
            e = eta * example_weight(s, i)
            c = e * y[i] / st.a
            if w.u.shape[0] > 0 and st.S != 0.0:  # u += S dv (one sweep over the row)
                row_axpy2(X, i, c, w.v, st.S * c, w.u)
            else:  # S = 0 (no average yet): u unchanged
                row_axpy(X, i, c, w.v)
            # ||w + e y x||^2 = ||w||^2 + 2 e y <w, x> + e^2 ||x||^2  (w shrunk)
            dsq = 2.0 * e * y[i] * f * wx + e * e * sq_norms[i]
            st = moved(st, dsq, p.b_rate * e * y[i])
        st = end_step(st, p)
    return st, PassResult(mistakes, FINITE, -1)


@njit(cache=True, nogil=True)
def minibatch_epoch(data, order, p, w, st, scores):
    """One pass of mini-batch Pegasos over rows ``X[order]`` in batches of k: every margin of
    a batch is taken with w_t, then the violators' mean sub-gradient step."""
    X, y, _, s = data
    m, k, record = order.shape[0], p.batch_size, scores.shape[0] > 0
    violators = np.empty(k, dtype=order.dtype)
    mistakes = 0
    for lo in range(0, m, k):
        hi = min(lo + k, m)
        st = next_step(st)
        n_viol = 0
        for q in range(lo, hi):
            i = order[q]
            score = st.a * row_dot(X, i, w.v) + st.b
            if not abs(score) < np.inf:
                return st, PassResult(mistakes, SCORE_NOT_FINITE, np.int64(i))
            if record:
                scores[i] = score
            if y[i] * score <= 0.0:
                mistakes += 1
            if y[i] * score < 1.0:
                violators[n_viol] = i
                n_viol += 1
        eta = step_size(p.rate, st.t)
        st = shrink(st, 1.0 - eta * p.lam)
        if abs(st.a) < RENORM_BELOW:
            st = _fold(w, st)
        step = eta / (hi - lo)
        for r in range(n_viol):
            i = violators[r]
            e = step * example_weight(s, i)
            c = e * y[i] / st.a  # w += e y x  is  v += (e y / a) x, e = step s_i
            # exact as <w, x_i> moved within the batch: ||w||^2 changes by a^2 that of ||v||^2
            dsq = st.a * st.a * row_axpy_sqchange(X, i, c, w.v)
            if w.u.shape[0] > 0 and st.S != 0.0:
                row_axpy(X, i, st.S * c, w.u)
            st = moved(st, dsq, p.b_rate * e * y[i])
        st = end_step(st, p)
    return st, PassResult(mistakes, FINITE, -1)


def run_epoch(X, y, order, p: PegasosParams, w: PegasosVectors, st: PegasosState,
              scores: NDArray, sq_norms: NDArray, s: NDArray | None = None
              ) -> tuple[PegasosState, PassResult]:
    """The pass for ``p.batch_size`` over validated ``X`` (dense or CSR), each violator's
    step scaled by its weight in ``s`` (None: all 1; no weight 0)."""
    epoch = pegasos_epoch if p.batch_size == 1 else minibatch_epoch
    return epoch((as_rows(X), y, sq_norms, s), order, p, w, st, scores)
