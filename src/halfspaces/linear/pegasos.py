"""Pegasos: primal estimated sub-gradient solver for the SVM (Shalev-Shwartz et al. 2007, 2011).

Labels y_t in {-1,+1}. Objective (the lam form of the notes):

    J(w, b) = lam/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (<w, x_i> + b))

Step t (batch A_t of k examples drawn from the data; k = 1 is plain Pegasos):

    A_t^+     = {i in A_t : y_i (<w_t, x_i> + b_t) < 1}                (margin violators)
    eta_t     = 1/(lam t)  ("pegasos"),  1/t ("notes"),  eta0 ("constant"),
                1/(lam (t + t0))  ("offset", Bottou's schedule)
    w_{t+1/2} = (1 - eta_t lam) w_t + eta_t/k sum_{i in A_t^+} y_i x_i
    b_{t+1}   = b_t + rho eta_t/k sum_{i in A_t^+} y_i                (only with fit_intercept;
                                                                    rho = intercept_decay)
    w_{t+1}   = min(1, 1/(sqrt(lam) ||w_{t+1/2}||)) w_{t+1/2}        (only with projection)

The kernels store w = a v: the shrink (1 - eta lam) and the projection multiply the scalar a
(O(1)), a violator adds (eta y / (k a)) x to v (O(nnz(x))), and ||w||^2 is tracked with the
update (so the projection is O(1) too). When |a| < 1e-6 (or a = 0: the first step of the
"pegasos" schedule zeroes w), v is rescaled to a v and a reset to 1.

Averaging (uniform weights c_s = 1, or c_s = s) keeps sum_s c_s w_s = S v - u without touching
all of w each step: S is the running sum of c_s a_s and u += S_{t-1} dv_t for each sparse
change dv_t of v (renormalising folds S v into u and restarts S at 0).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state
from sklearn.utils.extmath import safe_sparse_dot

from .._labels import check_classes, encode_pm
from .._online import OnlineClassifier
from .._primitives import dot_csr, dot_dense, prefetch_csr_row, prefetch_dense_row, shuffle
from .._validation import check_choice, check_scalar, param_error, validate_X_y
from ..exceptions import NumericalError
from ..losses import svm_objective

# Indices into the per-problem state vector ``st`` (float64[6]).
_A, _SQNORM, _B, _S, _BSUM, _NAVG = range(6)
# Indices into the hyper-parameter vector ``hp`` (float64[8]); hp[_FIT_B] is the factor of
# the intercept's step (0: no intercept).
_LAM, _ETA0, _T0, _SCHEDULE, _FIT_B, _PROJECT, _AVG_START, _AVG_WEIGHTED = range(8)
_SCHEDULES = {"pegasos": 0, "notes": 1, "constant": 2, "offset": 3}
_RENORM_BELOW = 1e-6  # averaging loses about eps / a of relative precision


@njit(cache=True)
def _step_size(hp, t):
    """eta_t of the schedule coded in hp[_SCHEDULE]."""
    schedule = hp[_SCHEDULE]
    if schedule == 0.0:
        return 1.0 / (hp[_LAM] * t)
    if schedule == 1.0:
        return 1.0 / t
    if schedule == 2.0:
        return hp[_ETA0]
    return 1.0 / (hp[_LAM] * (t + hp[_T0]))


@njit(cache=True)
def _end_step(hp, st, t):
    """Projection onto the ball of radius 1/sqrt(lam), then the averaging sums (the end of a
    step, for the kernelized form; the primal kernels inline it on local scalars)."""
    lam = hp[_LAM]
    if hp[_PROJECT] != 0.0 and st[_SQNORM] * lam > 1.0:
        factor = 1.0 / math.sqrt(lam * st[_SQNORM])
        st[_A] *= factor
        st[_SQNORM] *= factor * factor
    if t > hp[_AVG_START]:
        # Uniform weights, or weights t - t_start (later iterates count more).
        weight = t - hp[_AVG_START] if hp[_AVG_WEIGHTED] != 0.0 else 1.0
        st[_S] += weight * st[_A]
        st[_BSUM] += weight * st[_B]
        st[_NAVG] += weight


@njit(cache=True)
def _fold(v, u, a, S):
    """Renormalise: v <- a v (so a becomes 1) and u <- u - S v (so S becomes 0), keeping
    w = a v and sum_s c_s w_s = S v - u; returns the exact ||w||^2."""
    if u.shape[0] > 0:
        for j in range(v.shape[0]):
            u[j] -= S * v[j]
    sq = 0.0
    for j in range(v.shape[0]):
        v[j] *= a
        sq += v[j] * v[j]
    return sq


# The kernels below keep the state in local scalars (a, ||w||^2, b, S, ...) and write it back
# to ``st`` at the end of the pass: stores into v could alias st, which would otherwise force
# a reload of the state after every coordinate update. Arguments:
#   X : float[n, d] C-contiguous (or data, indices, indptr of a CSR matrix); y : float64[n]
#   in {-1,+1}; v, u : float64[d] (u empty without averaging); st : float64[6] state (a,
#   ||w||^2, b, S, sum c_s b_s, sum c_s); order : uint64[m] (or int64); t : steps done before
#   this pass; hp : float64[8]; scores : float64[n] receives each row's score before its step
#   (empty: not recorded); sq_norms : float64[n], ||x_i||^2 (the O(1) update of ||w||^2).
# Each returns (mistakes, bad): the mistakes (y score <= 0 before the step) and -1, or the
# row whose score was inf or nan, where the pass stopped (nan <= 0 is false: never counted).
# The next row is prefetched while the current one is used: rows come in a random order the
# hardware cannot guess.


@njit(cache=True)
def _pegasos_epoch(X, y, v, u, st, order, t, hp, scores, sq_norms):
    """One pass of plain Pegasos (k = 1) over rows ``X[order]``."""
    d = X.shape[1]
    m = order.shape[0]
    lam, b_rate = hp[_LAM], hp[_FIT_B]
    project, avg_start, weighted = hp[_PROJECT] != 0.0, hp[_AVG_START], hp[_AVG_WEIGHTED] != 0.0
    averaging, record = u.shape[0] > 0, scores.shape[0] > 0
    a, sqnorm, b, S, bsum, navg = st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG]
    mistakes, bad = 0, -1
    for p in range(m):
        if p + 1 < m:
            prefetch_dense_row(X, order[p + 1])
        i = order[p]
        t += 1
        wx = a * dot_dense(v, X[i])  # <w_t, x_i>
        score = wx + b
        if not abs(score) < np.inf:  # inf or nan (nan <= 0 is false: never a mistake)
            bad = i
            break
        if record:
            scores[i] = score
        if y[i] * score <= 0.0:  # a tie counts as a mistake
            mistakes += 1
        eta = _step_size(hp, t)
        shrink = 1.0 - eta * lam
        a *= shrink  # w <- (1 - eta lam) w  is  a <- (1 - eta lam) a
        sqnorm *= shrink * shrink
        if abs(a) < _RENORM_BELOW:
            sqnorm = _fold(v, u, a, S)
            a, S = 1.0, 0.0
        if y[i] * score < 1.0:  # w += eta y x  is  v += (eta y / a) x
            c = eta * y[i] / a
            for j in range(d):
                v[j] += c * X[i, j]
            if averaging and S != 0.0:  # S = 0 (before the average starts): u unchanged
                cs = S * c
                for j in range(d):
                    u[j] += cs * X[i, j]
            # ||w + eta y x||^2 = ||w||^2 + 2 eta y <w, x> + eta^2 ||x||^2  (w shrunk)
            sqnorm += 2.0 * eta * y[i] * shrink * wx + eta * eta * sq_norms[i]
            b += b_rate * eta * y[i]
        if project and sqnorm * lam > 1.0:  # onto the ball of radius 1/sqrt(lam)
            factor = 1.0 / math.sqrt(lam * sqnorm)
            a *= factor
            sqnorm *= factor * factor
        if t > avg_start:  # uniform weights, or t - t_start
            weight = t - avg_start if weighted else 1.0
            S += weight * a
            bsum += weight * b
            navg += weight
    st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG] = a, sqnorm, b, S, bsum, navg
    return mistakes, bad


@njit(cache=True)
def _pegasos_epoch_csr(data, indices, indptr, y, v, u, st, order, t, hp, scores, sq_norms):
    """The same pass for CSR input: O(nnz) per step."""
    m = order.shape[0]
    lam, b_rate = hp[_LAM], hp[_FIT_B]
    project, avg_start, weighted = hp[_PROJECT] != 0.0, hp[_AVG_START], hp[_AVG_WEIGHTED] != 0.0
    averaging, record = u.shape[0] > 0, scores.shape[0] > 0
    a, sqnorm, b, S, bsum, navg = st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG]
    mistakes, bad = 0, -1
    for p in range(m):
        if p + 1 < m:
            r = order[p + 1]
            prefetch_csr_row(data, indices, indptr[r], indptr[r + 1])
        i = order[p]
        t += 1
        wx = a * dot_csr(v, data, indices, indptr[i], indptr[i + 1])
        score = wx + b
        if not abs(score) < np.inf:  # inf or nan
            bad = i
            break
        if record:
            scores[i] = score
        if y[i] * score <= 0.0:
            mistakes += 1
        eta = _step_size(hp, t)
        shrink = 1.0 - eta * lam
        a *= shrink
        sqnorm *= shrink * shrink
        if abs(a) < _RENORM_BELOW:
            sqnorm = _fold(v, u, a, S)
            a, S = 1.0, 0.0
        if y[i] * score < 1.0:
            c = eta * y[i] / a
            cs = S * c
            row = range(np.uint64(indptr[i]), np.uint64(indptr[i + 1]))  # see dot_csr
            if averaging and cs != 0.0:  # one sweep over the row updates v and u
                for q in row:
                    j, x = np.uint64(indices[q]), data[q]
                    v[j] += c * x
                    u[j] += cs * x
            else:
                for q in row:
                    v[np.uint64(indices[q])] += c * data[q]
            sqnorm += 2.0 * eta * y[i] * shrink * wx + eta * eta * sq_norms[i]
            b += b_rate * eta * y[i]
        if project and sqnorm * lam > 1.0:
            factor = 1.0 / math.sqrt(lam * sqnorm)
            a *= factor
            sqnorm *= factor * factor
        if t > avg_start:
            weight = t - avg_start if weighted else 1.0
            S += weight * a
            bsum += weight * b
            navg += weight
    st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG] = a, sqnorm, b, S, bsum, navg
    return mistakes, bad


@njit(cache=True)
def _minibatch_epoch(X, y, v, u, st, order, t, k, hp, scores):
    """One pass of mini-batch Pegasos over rows ``X[order]`` in batches of ``k``: every
    margin of a batch is taken with w_t, then the violators' mean sub-gradient step."""
    d = X.shape[1]
    m = order.shape[0]
    lam, b_rate = hp[_LAM], hp[_FIT_B]
    project, avg_start, weighted = hp[_PROJECT] != 0.0, hp[_AVG_START], hp[_AVG_WEIGHTED] != 0.0
    averaging, record = u.shape[0] > 0, scores.shape[0] > 0
    a, sqnorm, b, S, bsum, navg = st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG]
    violators = np.empty(k, dtype=order.dtype)
    mistakes, bad = 0, -1
    for lo in range(0, m, k):
        hi = min(lo + k, m)
        t += 1
        n_viol = 0
        for p in range(lo, hi):
            i = order[p]
            score = a * dot_dense(v, X[i]) + b
            if not abs(score) < np.inf:  # inf or nan
                bad = i
                break
            if record:
                scores[i] = score
            if y[i] * score <= 0.0:
                mistakes += 1
            if y[i] * score < 1.0:
                violators[n_viol] = i
                n_viol += 1
        if bad >= 0:
            break
        eta = _step_size(hp, t)
        shrink = 1.0 - eta * lam
        a *= shrink  # w <- (1 - eta lam) w  is  a <- (1 - eta lam) a
        sqnorm *= shrink * shrink
        if abs(a) < _RENORM_BELOW:
            sqnorm = _fold(v, u, a, S)
            a, S = 1.0, 0.0
        step = eta / (hi - lo)
        for q in range(n_viol):
            i = violators[q]
            c = step * y[i] / a  # w += step y x  is  v += (step y / a) x
            dsq = 0.0  # ||v + c x||^2 - ||v||^2, exact as <w, x_i> moved within the batch
            for j in range(d):
                delta = c * X[i, j]
                dsq += delta * (2.0 * v[j] + delta)
                v[j] += delta
            sqnorm += a * a * dsq
            if averaging and S != 0.0:
                cs = S * c
                for j in range(d):
                    u[j] += cs * X[i, j]
            b += b_rate * step * y[i]
        if project and sqnorm * lam > 1.0:  # onto the ball of radius 1/sqrt(lam)
            factor = 1.0 / math.sqrt(lam * sqnorm)
            a *= factor
            sqnorm *= factor * factor
        if t > avg_start:  # uniform weights, or t - t_start
            weight = t - avg_start if weighted else 1.0
            S += weight * a
            bsum += weight * b
            navg += weight
    st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG] = a, sqnorm, b, S, bsum, navg
    return mistakes, bad


@njit(cache=True)
def _minibatch_epoch_csr(data, indices, indptr, y, v, u, st, order, t, k, hp, scores):
    """The same mini-batch pass for CSR input."""
    m = order.shape[0]
    lam, b_rate = hp[_LAM], hp[_FIT_B]
    project, avg_start, weighted = hp[_PROJECT] != 0.0, hp[_AVG_START], hp[_AVG_WEIGHTED] != 0.0
    averaging, record = u.shape[0] > 0, scores.shape[0] > 0
    a, sqnorm, b, S, bsum, navg = st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG]
    violators = np.empty(k, dtype=order.dtype)
    mistakes, bad = 0, -1
    for lo in range(0, m, k):
        hi = min(lo + k, m)
        t += 1
        n_viol = 0
        for p in range(lo, hi):
            i = order[p]
            score = a * dot_csr(v, data, indices, indptr[i], indptr[i + 1]) + b
            if not abs(score) < np.inf:  # inf or nan
                bad = i
                break
            if record:
                scores[i] = score
            if y[i] * score <= 0.0:
                mistakes += 1
            if y[i] * score < 1.0:
                violators[n_viol] = i
                n_viol += 1
        if bad >= 0:
            break
        eta = _step_size(hp, t)
        shrink = 1.0 - eta * lam
        a *= shrink  # w <- (1 - eta lam) w  is  a <- (1 - eta lam) a
        sqnorm *= shrink * shrink
        if abs(a) < _RENORM_BELOW:
            sqnorm = _fold(v, u, a, S)
            a, S = 1.0, 0.0
        step = eta / (hi - lo)
        for r in range(n_viol):
            i = violators[r]
            c = step * y[i] / a
            cs = S * c
            dsq = 0.0
            for q in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                j = np.uint64(indices[q])
                delta = c * data[q]
                dsq += delta * (2.0 * v[j] + delta)
                v[j] += delta
                if averaging and cs != 0.0:
                    u[j] += cs * data[q]
            sqnorm += a * a * dsq
            b += b_rate * step * y[i]
        if project and sqnorm * lam > 1.0:  # onto the ball of radius 1/sqrt(lam)
            factor = 1.0 / math.sqrt(lam * sqnorm)
            a *= factor
            sqnorm *= factor * factor
        if t > avg_start:  # uniform weights, or t - t_start
            weight = t - avg_start if weighted else 1.0
            S += weight * a
            bsum += weight * b
            navg += weight
    st[_A], st[_SQNORM], st[_B], st[_S], st[_BSUM], st[_NAVG] = a, sqnorm, b, S, bsum, navg
    return mistakes, bad


def _epoch(X, y, v, u, st, order, t, k, hp, scores, sq_norms) -> tuple[int, int]:
    """One pass over ``X[order]`` by the kernel for this input format and batch size:
    ``(mistakes, row)``, ``row`` the first row whose score was inf or nan (the pass stopped
    there), or -1."""
    if sp.issparse(X):
        csr = (X.data, X.indices, X.indptr, y, v, u, st, order, t)
        if k == 1:
            return _pegasos_epoch_csr(*csr, hp, scores, sq_norms)
        return _minibatch_epoch_csr(*csr, k, hp, scores)
    if k == 1:
        return _pegasos_epoch(X, y, v, u, st, order, t, hp, scores, sq_norms)
    return _minibatch_epoch(X, y, v, u, st, order, t, k, hp, scores)


_ETA0_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)  # multiples of 1 / mean ||x||^2
_CALIBRATION_SIZE = 1000
_SUFFIX_FRACTION = 0.1  # average="suffix" averages the last tenth of the steps of a fit
_MIN_INTERCEPT_DECAY = 0.03  # scikit-learn's SGD uses 0.01 on all sparse input; see the class


def _suffix_skip(T: int) -> int:
    """Steps of a fit of T steps before the suffix average starts: T - ceil(T / 10)."""
    return T - math.ceil(T * _SUFFIX_FRACTION)


def _row_stats(X) -> tuple[NDArray[np.float64], float]:
    """(||x_i||^2 of each row, fraction of non-zero entries) of X in one O(nnz) pass."""
    n, d = X.shape
    if sp.issparse(X):
        if not X.has_canonical_format:  # duplicate entries add up before squaring
            X = X.copy()
            X.sum_duplicates()
        return _sq_norms_csr(X.data, X.indptr), X.nnz / max(n * d, 1)
    return _sq_norms_dense(X), np.count_nonzero(X) / max(n * d, 1)


@njit(cache=True)
def _sq_norms_csr(data, indptr):
    """||x_i||^2 of each CSR row."""
    out = np.empty(indptr.shape[0] - 1)
    for i in range(out.shape[0]):
        s = 0.0
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):  # see dot_csr
            s += float(data[p]) * float(data[p])
        out[i] = s
    return out


@njit(cache=True)
def _sq_norms_dense(X):
    """||x_i||^2 of each row of a C-contiguous X."""
    out = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i] += float(X[i, j]) * float(X[i, j])
    return out


def _calibrate_eta0(X, y: NDArray, hp: NDArray, k: int, sample: NDArray, t0_auto: bool,
                    averaging: bool) -> float:
    """Pick eta0 by one pass over a small sample for each candidate (Bottou's heuristic).

    Candidates are ``c / mean ||x||^2`` for ``c`` in ``_ETA0_GRID``; the one with the lowest
    objective J on the sample wins and half of it is returned (a sample favours slightly
    larger steps than the full data, where more steps follow).
    """
    Xs, ys = X[sample], y[sample]
    sq_norms = _row_stats(Xs)[0]
    r2 = float(np.mean(sq_norms))
    if not r2 > 0:
        return 1.0
    order = np.arange(sample.size, dtype=np.int64)
    scores = np.empty(0)
    best, best_eta0 = np.inf, 1.0 / r2
    for c in _ETA0_GRID:
        eta0 = c / r2
        hp_c = hp.copy()
        hp_c[_ETA0] = eta0
        if t0_auto:
            hp_c[_T0] = 1.0 / (hp[_LAM] * eta0)
        v, st = np.zeros((1, X.shape[1])), np.zeros((1, 6))
        u = np.zeros((1, X.shape[1] if averaging else 0))
        st[0, _A] = 1.0
        if _epoch(Xs, ys, v[0], u[0], st[0], order, 0, k, hp_c, scores, sq_norms)[1] >= 0:
            continue  # this step size overflows the weights
        w, b = _predictor(v, u, st, averaging)
        J = svm_objective(w[0], b[0], Xs, ys, lam=hp[_LAM])
        if J < best:
            best, best_eta0 = J, eta0
    return best_eta0 / 2.0


def _predictor(v: NDArray, u: NDArray, st: NDArray, averaging: bool) -> tuple[NDArray, NDArray]:
    """The predictor (w, b) of every problem from the state: averaged or last iterate.

    ``v, u`` : (n_models, dim); ``st`` : (n_models, 6). Used by the primal and the kernel
    form (where ``dim`` is the number of training examples and w is in the dual).
    """
    last_w = st[:, _A, None] * v
    if not averaging:
        return last_w, st[:, _B].copy()
    navg = st[:, _NAVG]
    started = navg > 0
    safe = np.where(started, navg, 1.0)
    avg_w = (st[:, _S, None] * v - u) / safe[:, None]
    w = np.where(started[:, None], avg_w, last_w)
    b = np.where(started, st[:, _BSUM] / safe, st[:, _B])
    return w, b


def _primal_only(est) -> bool:
    """``partial_fit`` exists only for the primal model (a kernel model is fitted at once)."""
    if est.kernel is not None:
        raise AttributeError(
            "PegasosSVC.partial_fit: a kernel model keeps one coefficient per training"
            f" example and is fitted in one call; got kernel={est.kernel!r}. Use fit, or"
            " kernel=None for streams."
        )
    return True


class PegasosSVC(OnlineClassifier):
    """Linear (or kernel) SVM trained by Pegasos stochastic sub-gradient steps.

    Minimizes the lam form of the soft-margin SVM objective
    ``J(w, b) = lam/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (<w, x_i> + b))``
    with one (mini-batch) sub-gradient step per sampled batch, in O(nnz) per example on
    sparse input.

    Parameters
    ----------
    lam : float, default=1e-4
        lambda, the regularization of the objective (``C = 1/(lam n)`` in the C form). Finite,
        and large enough that the steps ``1/lam`` and ``t0 = 1/(lam eta0)`` are finite (a
        ValueError otherwise: ``lam = 5e-324`` would make them inf).
    max_iter : int, default=10
        Epochs of ``fit``: each is ``ceil(n / batch_size)`` steps.
    n_iter : int or None, default=None
        Number of steps ``T`` of ``fit``, as in the paper; overrides ``max_iter``.
    batch_size : int, default=1
        ``k`` of mini-batch Pegasos: the sub-gradient is averaged over ``k`` examples whose
        margins are all computed with ``w_t``. The last batch of an epoch may be smaller.
    learning_rate : {"offset", "pegasos", "notes", "constant"}, default="offset"
        The step size: ``"pegasos"`` is the paper's ``1/(lam t)``; ``"notes"`` is ``1/t`` (the
        6.036 lecture notes); ``"constant"`` is ``eta0``; ``"offset"`` is
        ``1/(lam (t + t0)) = eta0 / (1 + lam eta0 t)`` (Bottou 2010): about ``eta0`` for the
        first ``t0`` steps, then the paper's ``1/(lam t)``.
    eta0 : float, "auto" or "calibrate", default="auto"
        The first step of ``"offset"`` and the step of ``"constant"``. ``"auto"`` is
        ``1 / (2 mean ||x||^2)`` over the training rows: a step of ``1 / ||x||^2`` moves the
        margin ``y <w, x>`` of a violator by exactly 1 (the passive-aggressive step), halved
        because later steps repeat it; it is deterministic and matches the kernel models'
        ``1 / (2 mean k(x, x))``. ``"calibrate"`` is Bottou's heuristic: one pass over a
        sample of 1000 examples (drawn with ``random_state``) for each of
        ``c / mean ||x||^2``, ``c`` in (0.1, 0.3, 1, 3, 10); the candidate with the lowest
        objective on the sample, halved (noisy: its pick can change with the seed; kernel
        models treat it as "auto").
    t0 : float or "auto", default="auto"
        The offset of ``"offset"``; ``"auto"`` is ``1 / (lam eta0)``.
    projection : bool, default=True
        Project ``w`` onto the ball of radius ``1/sqrt(lam)`` (which contains the optimum)
        after each step. ``b`` is not projected.
    fit_intercept : bool, default=True
        Learn an unregularized offset ``b``:
        ``b <- b + intercept_decay * eta_t/k sum_{A_t^+} y_i``. The paper's analysis has no
        offset; use ``fit_intercept=False`` for it.
    intercept_decay : float or "auto", default="auto"
        Factor of the step of ``b`` relative to that of ``w`` (``1.0``: the same step).
        ``"auto"`` is the fraction of non-zero entries of ``X``, at least 0.03
        (``intercept_decay_``): ``b`` is the weight of a feature present in every row, so on
        sparse data it is updated ``1 / density`` times as often as an average coordinate of
        ``w`` and, with imbalanced classes, the full step makes it oscillate (on w8a and
        reuters it converged 1.3 to 2.5 times slower). The floor: on reuters (density 0.005)
        0.03 reached 1% of the optimum in 30 epochs, scikit-learn's 0.01 in 37 and 0.003
        not in 80. Dense data get 1, and so do kernel models other than
        ``kernel="linear"``.
    average : bool, int, "weighted" or "suffix", default="suffix"
        Return an average of the iterates ``w_{t+1}`` (and ``b_{t+1}``) instead of the last
        iterate: ``True`` is the uniform (Polyak-Ruppert) average over every step, an int
        ``s`` the uniform average over the steps ``t > s``, ``"weighted"`` the average with
        weights ``t`` (Lacoste-Julien, Schmidt and Bach 2012), which forgets the poor early
        iterates at rate ``1/T^2``, ``"suffix"`` the uniform average of the last tenth of
        the ``T`` steps of each ``fit`` call (steps ``t > t_start + T - ceil(T/10)``; the
        alpha-suffix average of Rakhlin, Shamir and Sridharan 2012), which drops them
        altogether (a ``fit`` stopped by ``tol`` before
        that step returns the last iterate). ``partial_fit`` keeps adding to the running
        suffix average (to the average over all its steps before any ``fit``).
    kernel : None, "linear", "poly", "rbf" or callable, default=None
        ``None`` runs the primal algorithm above. Any kernel runs kernelized Pegasos (see
        :mod:`halfspaces.kernel.kernel_pegasos`): ``w = sum_j beta_j phi(x_j)``, the same steps
        in the dual. It stores the ``n x n`` Gram matrix, so it is meant for small ``n``.
    gamma : float, "scale" or "auto", default="scale"
        Width of the "rbf" and "poly" kernels (as scikit-learn's SVC).
    degree : int, default=3
    coef0 : float, default=0.0
    sampling : {"permutation", "uniform", "cyclic"}, default="permutation"
        How ``fit`` picks the examples: a fresh random permutation each epoch (the practical
        variant: every example once per epoch), i.i.d. uniform draws with replacement (the
        paper's ``i_t``), or the data order (deterministic). ``partial_fit`` always uses the
        given order.
    random_state : int, RandomState or None, default=None
        Seed of the sampling.
    tol : float or None, default=None
        When set, ``fit`` evaluates ``J`` after each epoch and stops once it fails to decrease
        by ``tol * J`` below the best value so far.
    record_objective : bool, default=False
        Record ``J`` of the returned predictor after each ``fit`` epoch in
        ``objective_history_``.
    warm_start : bool, default=False
        ``fit`` continues from the current state, step counter ``t_`` and ``eta0_`` (primal
        models; a kernel model always starts afresh).

    Raises
    ------
    NumericalError
        When a row's ``||x||^2`` overflows float64 (features of 1e154 or more), or a score or
        the weights of a pass become inf or nan (e.g. a constant step ``eta0 = 1e300``):
        ``row`` names the row where the score overflowed, or the last row of the pass.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The (averaged) weights; not set for a kernel model.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of labels
    t_ : int, steps taken (the ``t`` of the schedule)
    eta0_ : float, the ``eta0`` used (resolved when ``eta0`` is "auto" or "calibrate")
    intercept_decay_ : float, the ``intercept_decay`` used
    n_iter_ : int, epochs run (``fit``) plus ``partial_fit`` calls
    n_mistakes_ : int, examples with ``y score <= 0`` before their step
    objective_history_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        Only with ``record_objective=True`` or ``tol``.
    support_, support_vectors_, dual_coef_, alpha_ : kernel models only
        ``w_k = sum_j dual_coef_[k, j] phi(support_vectors_[j])``; ``alpha_[k, i]`` counts the
        steps in which example ``i`` violated the margin (the paper's alpha).

    Notes
    -----
    .. math::

        w_{t+1} = \\Pi_{B(1/\\sqrt\\lambda)}\\Big[(1 - \\eta_t\\lambda) w_t
        + \\frac{\\eta_t}{k} \\sum_{i \\in A_t,\\; y_i(\\langle w_t, x_i\\rangle + b_t) < 1}
        y_i x_i\\Big]

    where :math:`\\lambda` is ``lam``, :math:`k` is ``batch_size`` and :math:`\\eta_t` is
    given by ``learning_rate``.

    Why the defaults (``benchmarks/bench_pegasos.py``: epochs until the objective is within
    1% of the exact optimum, median of 3 seeds, at C = 1, i.e. lam = 1/n; a9a, w8a, reuters,
    then the generated 1,000,000 x 100,000 sparse set): scikit-learn's
    ``SGDClassifier(learning_rate="optimal")`` needs more than 80, 32, 34 and 9 epochs (with
    the intercept: more than 80, more than 80, 30 and 9); the paper's ``1/(lam t)``, whose
    first steps have length ``1/lam``, more than 80, 30, 36 and 9 (with the intercept it does
    not get within 1% in 80 epochs on the three real sets). A nearly constant first step
    (``"offset"`` with ``eta0 = 1/(2 mean ||x||^2)``, hence a large ``t0``) with the suffix
    average of the last tenth of the steps (the defaults) needs 10, 12, 27 and 7 (with the
    intercept: 10, 38, 23 and 7). Averaging the last quarter instead is level within noise
    (10, 12, 28; with the intercept 10, 41, 23); the tenth is kept because it was one epoch
    ahead on reuters, the slowest case, at lam = 1e-4 (36 against 37 epochs; with the
    intercept 31 against 32), while the quarter was one ahead on a9a there (4 against 5).
    The ``t``-weighted average is slower (10, 17, 40), the uniform one slower still (12, 31,
    more than 80), and so is the last iterate (more than 80, 16, 36). Mini-batches do not
    reduce the number of examples processed (batch 8: 2, 70, 66 epochs).
    ``learning_rate="pegasos", average=False`` is the paper's algorithm.

    References
    ----------
    Shalev-Shwartz, Singer, Srebro, Cotter (2011), "Pegasos: primal estimated sub-gradient
    solver for SVM", Math. Programming 127(1). Bottou (2010), "Large-scale machine learning
    with stochastic gradient descent". Lacoste-Julien, Schmidt, Bach (2012), "A simpler
    approach to obtaining an O(1/t) convergence rate for the projected stochastic subgradient
    method". Rakhlin, Shamir, Sridharan (2012), "Making gradient descent optimal for strongly
    convex stochastic optimization", ICML.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    >>> clf = PegasosSVC(lam=0.01, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> paper = PegasosSVC(lam=0.01, learning_rate="pegasos", average=False, n_iter=500,
    ...                    fit_intercept=False, random_state=0).fit(X, y)
    >>> paper.t_, bool(np.linalg.norm(paper.coef_) <= 1 / np.sqrt(0.01))
    (500, True)
    """

    def __init__(self, lam: float = 1e-4, *, max_iter: int = 10, n_iter: int | None = None,
                 batch_size: int = 1, learning_rate: str = "offset", eta0="auto",
                 t0="auto", projection: bool = True, fit_intercept: bool = True,
                 intercept_decay="auto", average="suffix", kernel=None, gamma="scale",
                 degree: int = 3, coef0: float = 0.0, sampling: str = "permutation",
                 random_state=None, tol: float | None = None,
                 record_objective: bool = False, warm_start: bool = False):
        self.lam = lam
        self.max_iter = max_iter
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.t0 = t0
        self.projection = projection
        self.fit_intercept = fit_intercept
        self.intercept_decay = intercept_decay
        self.average = average
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.sampling = sampling
        self.random_state = random_state
        self.tol = tol
        self.record_objective = record_objective
        self.warm_start = warm_start

    # -- parameters ------------------------------------------------------------------------
    def _check_params(self) -> None:
        super()._check_params()
        name = "PegasosSVC"
        check_scalar(name, "lam", self.lam, low=0, low_inclusive=False,
                     meaning="lambda in the Pegasos objective",
                     hint="Try a small positive value such as 1e-4.")
        if np.isinf(self.lam):  # inf passes "> 0", and every step would be w <- -inf w
            raise param_error(name, "lam", "a finite float > 0", self.lam,
                              "Try a small positive value such as 1e-4.")
        check_scalar(name, "n_iter", self.n_iter, kind=numbers.Integral, low=1,
                     allow_none=True, meaning="number of steps T",
                     hint="Leave it None to run max_iter epochs.")
        check_scalar(name, "batch_size", self.batch_size, kind=numbers.Integral, low=1,
                     meaning="k of mini-batch Pegasos", hint="Use 1 for plain Pegasos.")
        check_choice(name, "learning_rate", self.learning_rate, tuple(_SCHEDULES))
        if not (isinstance(self.eta0, str) and self.eta0 in ("auto", "calibrate")):
            check_scalar(name, "eta0", self.eta0, low=0, low_inclusive=False,
                         meaning="first step size, 'auto' or 'calibrate'")
            if np.isinf(self.eta0):
                raise param_error(name, "eta0", "a finite float > 0, 'auto' or 'calibrate'",
                                  self.eta0)
        if not (isinstance(self.intercept_decay, str) and self.intercept_decay == "auto"):
            check_scalar(name, "intercept_decay", self.intercept_decay, low=0,
                         low_inclusive=False, meaning="factor of the intercept's step, or 'auto'",
                         hint="Use 1.0 for the same step as w.")
        if not (isinstance(self.t0, str) and self.t0 == "auto"):
            check_scalar(name, "t0", self.t0, low=0, meaning="offset of the schedule, or 'auto'")
            if np.isinf(self.t0):  # every step 1/(lam (t + t0)) would be 0
                raise param_error(name, "t0", "a finite float >= 0 or 'auto'", self.t0)
        for flag in ("projection", "fit_intercept", "record_objective", "warm_start"):
            check_scalar(name, flag, getattr(self, flag), kind=(bool, np.bool_))
        if not isinstance(self.average, (bool, np.bool_, str)) or (
                isinstance(self.average, str) and self.average not in ("weighted", "suffix")):
            check_scalar(name, "average", self.average, kind=numbers.Integral, low=0,
                         meaning="True/False, 'weighted', 'suffix', or the step after which"
                                 " to average")
        check_choice(name, "sampling", self.sampling, ("permutation", "uniform", "cyclic"))
        check_scalar(name, "tol", self.tol, low=0, allow_none=True)
        if self.kernel is not None:
            from ..kernels import check_kernel_params

            check_kernel_params(name, self.kernel, self.gamma, self.degree, self.coef0)

    def _hyper(self, eta0: float) -> NDArray[np.float64]:
        lam = float(self.lam)
        # The schedules divide by lam (eta_1 = 1/lam) and by lam eta0 (t0): a lam so small
        # that these overflow (5e-324) would give inf steps, or zero ones (t0 = inf).
        if not (lam * eta0 > 0.0 and 1.0 / lam < np.inf and 1.0 / (lam * eta0) < np.inf):
            raise param_error("PegasosSVC", "lam", "large enough that the steps 1/lam and"
                              f" t0 = 1/(lam eta0) are finite floats (eta0_ = {eta0:g})",
                              self.lam, "Use lam >= 1e-12 (C = 1/(lam n)); weaker"
                              " regularization than that is none at all in float64.")
        t0 = 1.0 / (lam * eta0) if isinstance(self.t0, str) else float(self.t0)
        weighted = isinstance(self.average, str) and self.average == "weighted"
        if isinstance(self.average, (bool, np.bool_)):
            avg_start = 0.0 if self.average else np.inf
        elif weighted:
            avg_start = 0.0
        elif isinstance(self.average, str):  # "suffix": set by fit (0 before any fit)
            avg_start = getattr(self, "_suffix_start", 0.0)
        else:
            avg_start = float(self.average)
        return np.array([lam, eta0, t0, float(_SCHEDULES[self.learning_rate]),
                         float(bool(self.fit_intercept)) * self._intercept_rate(),
                         float(bool(self.projection)),
                         avg_start, float(weighted)])

    def _intercept_rate(self) -> float:
        """The factor of the intercept's step (``intercept_decay``, resolved on the data)."""
        return getattr(self, "intercept_decay_", 1.0)

    def _resolve_intercept_decay(self, density: float) -> float:
        if isinstance(self.intercept_decay, str):
            return max(density, _MIN_INTERCEPT_DECAY)
        return float(self.intercept_decay)

    def _resolve_eta0(self, X, y_rows: list, rng, sq_norms: NDArray) -> float:
        """``eta0`` as given, ``1 / (2 mean ||x||^2)`` ("auto"), or calibrated on a sample."""
        if not (isinstance(self.eta0, str)):
            return float(self.eta0)
        uses_eta0 = self.learning_rate == "constant" or (
            self.learning_rate == "offset" and isinstance(self.t0, str))
        if not uses_eta0 or X.shape[0] == 0:
            return 1.0
        if self.eta0 == "auto":
            r2 = float(np.mean(sq_norms))
            return 0.5 / r2 if r2 > 0 else 1.0
        n = X.shape[0]
        sample = np.sort(rng.choice(n, size=min(n, _CALIBRATION_SIZE), replace=False))
        hp = self._hyper(1.0)
        return _calibrate_eta0(X, y_rows[0], hp, int(self.batch_size), sample,
                               isinstance(self.t0, str), self._averaging)

    @property
    def _averaging(self) -> bool:
        return not (isinstance(self.average, (bool, np.bool_)) and not self.average)

    # -- hooks of OnlineClassifier ---------------------------------------------------------
    def _init_state(self, X, n_models: int) -> None:
        d = X.shape[1]
        self._v = np.zeros((n_models, d))
        self._u = np.zeros((n_models, d if self._averaging else 0))
        self._st = np.zeros((n_models, 6))
        self._st[:, _A] = 1.0
        self.coef_ = np.zeros((n_models, d))
        self.intercept_ = np.zeros(n_models)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              sq_norms: NDArray) -> int:
        # unsigned row numbers: numba skips the negative-index test on order[p] (as dot_csr)
        order = np.ascontiguousarray(order, dtype=np.int64).view(np.uint64)
        v, u, st = self._v[k], self._u[k], self._st[k]
        mistakes, bad = _epoch(X, y, v, u, st, order, self.t_, int(self.batch_size), self._hp,
                               scores, sq_norms)
        if bad >= 0:
            raise NumericalError("PegasosSVC", int(bad), "the score <w, x_i> + b")
        # The tracked ||w||^2 drifts by rounding; resynchronise once per pass (O(d)). The
        # state is checked once per pass too: a score checks only the weights of its row.
        with np.errstate(over="ignore"):  # an overflow is reported just below
            st[_SQNORM] = st[_A] ** 2 * dot_dense(v, v)
        if not (np.isfinite(st).all() and np.isfinite(dot_dense(u, u))):
            raise NumericalError("PegasosSVC", int(order[-1]),
                                 "the weights at the end of the pass (last row)")
        return mistakes

    def _start(self, X, classes: NDArray) -> None:
        self.__dict__.pop("eta0_", None)
        self.__dict__.pop("intercept_decay_", None)
        self.__dict__.pop("_suffix_start", None)
        super()._start(X, classes)

    def _total_steps(self, n: int) -> int:
        """Steps ``T`` of one ``fit`` call on n examples."""
        if self.n_iter is not None:
            return int(self.n_iter)
        return int(self.max_iter) * -(-n // int(self.batch_size))

    def _start_suffix(self, n: int) -> None:
        """``average="suffix"``: average the last tenth of this fit's steps (fresh sums)."""
        if isinstance(self.average, str) and self.average == "suffix":
            self._suffix_start = float(self.t_ + _suffix_skip(self._total_steps(n)))
            self._st[:, [_S, _BSUM, _NAVG]] = 0.0  # the empty sum: S v - u = 0
            self._u[:] = 0.0

    def _ensure_schedule(self, X, y_pm: NDArray, stats: tuple, rng=None) -> None:
        """Resolve ``eta0_`` on the first data seen, then the compiled hyper-parameters.

        ``stats`` is ``_row_stats(X)``: (||x_i||^2 of each row, density of X).
        """
        bad = np.flatnonzero(~np.isfinite(stats[0]))
        if bad.size:  # a step would be 0 / inf: eta0 "auto" = 1 / (2 mean ||x||^2) = 0
            raise NumericalError("PegasosSVC", int(bad[0]), "||x_i||^2, the row's squared norm,")
        if not hasattr(self, "eta0_"):
            rng = check_random_state(self.random_state) if rng is None else rng
            self.intercept_decay_ = self._resolve_intercept_decay(stats[1])
            self.eta0_ = self._resolve_eta0(X, self._y_rows(y_pm), rng, stats[0])
        self._hp = self._hyper(self.eta0_)

    def _run_pass(self, X, y_pm: NDArray, order: NDArray, stats: tuple | None = None) -> int:
        """One pass; ``fit`` gives the ``stats`` of its data and has resolved the schedule."""
        if stats is None:  # partial_fit, learn_one: this call's data
            stats = _row_stats(X)
            self._ensure_schedule(X, y_pm, stats)
        scores = np.empty(0)  # fit and partial_fit do not need the scores: skip the writes
        mistakes = 0
        for k, y_k in enumerate(self._y_rows(y_pm)):
            mistakes += self._pass(k, X, y_k, order, scores, stats[0])
        self.t_ += -(-order.size // int(self.batch_size))
        return mistakes

    def _sync(self) -> None:
        self.coef_, self.intercept_ = _predictor(self._v, self._u, self._st, self._averaging)

    def _decision(self, X) -> NDArray[np.float64]:
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _play(self, X, y_pm: NDArray) -> NDArray[np.float64]:
        stats = _row_stats(X)
        self._ensure_schedule(X, y_pm, stats)
        scores = np.empty(X.shape[0], dtype=np.float64)
        order = np.arange(X.shape[0])
        mistakes = self._pass(0, X, y_pm, order, scores, stats[0])
        self.t_ += -(-order.size // int(self.batch_size))
        self.n_mistakes_ += mistakes
        self._sync()
        return scores

    # -- sampling --------------------------------------------------------------------------
    def _orders(self, rng, n: int):
        """The index sequences of ``fit``, one array per kernel call (about one epoch each).

        Permutations reshuffle one buffer in place (each yielded array is used before the
        next is drawn). With ``n_iter`` the epochs (permutations, uniform draws or the data
        order) are concatenated into one stream of ``n_iter * batch_size`` indices, cut into
        calls of a whole number of batches.
        """
        rng_state = np.array([rng.randint(0, 2**63 - 1, dtype=np.int64)
                              if self.sampling == "permutation" else 0], dtype=np.uint64)
        if self.n_iter is None:
            order = np.arange(n, dtype=np.int64)
            for _ in range(self.max_iter):
                yield self._draw(rng, rng_state, order)
            return
        k = int(self.batch_size)
        remaining = int(self.n_iter) * k
        chunk = -(-n // k) * k
        buffer = np.empty(0, dtype=np.int64)
        while remaining > 0:
            while buffer.size < min(chunk, remaining):
                epoch = self._draw(rng, rng_state, np.arange(n, dtype=np.int64))
                buffer = np.concatenate([buffer, epoch])
            size = min(chunk, remaining)
            yield buffer[:size]
            buffer = buffer[size:]
            remaining -= size

    def _draw(self, rng, rng_state: NDArray[np.uint64], order: NDArray[np.int64]):
        """One epoch of indices: ``order`` shuffled in place ("permutation"), i.i.d. uniform
        draws ("uniform") or ``order`` as it is ("cyclic", given as ``arange(n)``)."""
        if self.sampling == "uniform":
            return rng.randint(0, order.size, size=order.size).astype(np.int64)
        if self.sampling == "permutation":
            shuffle(order, rng_state)
        return order

    # -- objective -------------------------------------------------------------------------
    def _objectives(self, X, y_pm: NDArray) -> NDArray[np.float64]:
        """J(w_k, b_k) = 1/n sum hinge + lam/2 ||w_k||^2 of each binary problem k."""
        return np.array([svm_objective(self.coef_[k], self.intercept_[k], X, y_k,
                                       lam=float(self.lam))
                         for k, y_k in enumerate(self._y_rows(y_pm))])

    # -- scikit-learn API ------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike):
        """Run ``max_iter`` epochs (or ``n_iter`` steps) of Pegasos on ``(X, y)``."""
        self._check_params()
        if self.kernel is not None:
            from ..kernel.kernel_pegasos import fit_kernel_pegasos

            return fit_kernel_pegasos(self, X, y)
        warm = bool(self.warm_start) and hasattr(self, "classes_") and hasattr(self, "_v")
        X, y = validate_X_y(self, X, y, reset=not warm)
        classes = check_classes("PegasosSVC", y, None)
        if not (warm and np.array_equal(classes, self.classes_)
                and self._v.shape[1] == X.shape[1]):
            self._start(X, classes)
        y_pm = encode_pm(y, self.classes_)
        rng = check_random_state(self.random_state)
        self._start_suffix(X.shape[0])
        stats = _row_stats(X)  # once per fit: every epoch reads the row norms
        self._ensure_schedule(X, y_pm, stats, rng)
        track = self.record_objective or self.tol is not None
        history = []
        best = np.inf
        for order in self._orders(rng, X.shape[0]):
            mistakes = self._run_pass(X, y_pm, order, stats)
            self.mistakes_per_epoch_.append(mistakes)
            self.n_mistakes_ += mistakes
            self.n_iter_ += 1
            if track:
                self._sync()
                J = self._objectives(X, y_pm)
                history.append(J[0] if J.size == 1 else J)
                total = float(J.sum())
                if self.tol is not None and total > best - self.tol * abs(best):
                    break
                best = min(best, total)
        self._sync()
        if track:
            self.objective_history_ = np.array(history)
        return self

    @property
    def partial_fit(self):
        """One pass over ``X`` in the given order, continuing the schedule at ``t_``.

        ``partial_fit(X, y, classes=None)``: ``classes`` is required on the first call. Only
        for ``kernel=None`` (``hasattr(est, "partial_fit")`` is False for a kernel model).
        """
        _primal_only(self)
        return self._partial_fit

    def _partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None):
        if not hasattr(self, "classes_"):
            self._check_params()
        super().partial_fit(X, y, classes=classes)
        self._sync()
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores ``<w, x> + b``: ``(n,)`` for two classes, ``(n, n_classes)`` for OvR."""
        if self.kernel is not None and hasattr(self, "dual_coef_"):
            from ..kernel.kernel_pegasos import kernel_decision

            return kernel_decision(self, X)
        return super().decision_function(X)
