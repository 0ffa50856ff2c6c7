"""Dual coordinate descent for the linear SVM (Hsieh, Chang, Lin, Keerthi, Sundararajan 2008).

Dual of the linear SVM without offset, ``y_i in {-1, +1}``::

    min_alpha  f(alpha) = 1/2 alpha^T Qbar alpha - sum_i alpha_i,   0 <= alpha_i <= U,
    Qbar = Q + D,  Q_ij = y_i y_j x_i.x_j,
    hinge: U = C, D_ii = 0;   squared hinge: U = inf, D_ii = 1/(2C).

Keeping ``w = sum_i alpha_i y_i x_i`` makes one coordinate step cost O(nnz(x_i)):

    G   = y_i w.x_i - 1 + D_ii alpha_i                      (partial derivative)
    alpha_i <- min(max(alpha_i - G / Qbar_ii, 0), U),   w <- w + (alpha_i - alpha_i_old) y_i x_i

Each outer iteration visits a random permutation of the active rows, shrinking as LIBLINEAR
does; the loop runs in one compiled call whose state is a :class:`DCDState`, so it can stop
after any outer iteration and resume with identical iterates. Dense and CSR rows are summed
in the same order everywhere, so both give the same model, bit for bit.

The unregularized offset ``theta_0`` adds ``sum_i alpha_i y_i = 0``, kept exactly by the
method of multipliers (a proximal term ``(b - nu)^2 / (2 rho)`` driven to the exact optimum;
LIBLINEAR's regularized bias is ``nu = 0`` held fixed). With an offset the rows are centred
implicitly (the same optimum, well conditioned); without one the stiff mean direction is
split off by the same proximal method.

Guarantee: the run stops when the duality gap ``P(theta, theta_0) - D(alpha)`` (``alpha``
made feasible) is at most ``0.01 tol P``; LIBLINEAR's rule, ``max PG - min PG <= tol``, only
decides when the gap is checked. The work grows with ``C max_i ||x_i||^2``: where DCD does
not certify its gap in ``max_iter`` epochs, ``SVC(solver="auto")`` solves the QP; with few
features it hands over early (``give_up_after``) to the low-rank interior point
(:mod:`.lowrank_ipm`), whose Newton steps do not depend on ``C``. Guide: docs/guide/svc.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._primitives import (
    CSR,
    FINITE,
    PREFETCH_ROWS,
    SCORE_NOT_FINITE,
    WEIGHTS_NOT_FINITE,
    PassResult,
    check_pass,
    dot_dense,
    example_weight,
    matvec,
    n_rows,
    prefetch_wanted,
    product_rows,
    rmatvec,
    row_axpy,
    row_dot_dense_order,
    row_prefetch,
    row_sqnorms,
    shuffle,
    sparse_product_rows,
)
from .._progress import Callback, Progress
from .._validation import check_row_norms
from .dcd_state import (
    CONVERGED,
    RUNNING,
    Checkpoint,
    DCDArrays,
    DCDParams,
    DCDState,
    check_state,
    restore_state,
    state_arrays,
    state_shapes,
)

__all__ = ["DCDParams", "DCDResult", "DCDState", "check_state", "dcd_svm", "feasible_dual",
           "primal_dual", "state_arrays", "state_shapes"]

_GAP_PER_TOL = 0.01  # converged also needs P - D <= _GAP_PER_TOL * tol * P
_FIRST_CHECK, _CHECK_GROWTH = 10, 1.5  # the gap is also checked at epochs 10, 15, 22, ...
_FIRST_WARM_CHECK = 2  # and at epochs 2, 3, 4, 6, ... after a warm start
_SPLIT_BELOW = 1.0  # no offset: split off the mean direction when kappa is below this
# give_up_after: only a run this far from its target gap, after this part of those epochs
# (early gaps, and those near the target, stall and then drop)
_FAR, _SPENT = 100.0, 0.125


@njit(cache=True)
def _projected_gradient(G, alpha_i, U, st):
    """(PG, kept): the projected gradient of coordinate i, and False when the row is shrunk
    (alpha_i = 0 with G > PGmax_old, or alpha_i = U with G < PGmin_old stays optimal)."""
    if alpha_i == 0.0:
        if G > st.PGmax_old:
            return 0.0, False
        return (G if G < 0.0 else 0.0), True
    if alpha_i == U:
        if G < st.PGmin_old:
            return 0.0, False
        return (G if G > 0.0 else 0.0), True
    return G, True


@njit(cache=True)
def _dcd_pass(X, a, p, st):
    """One outer iteration: the active rows in a random order, a coordinate step on each
    whose projected gradient is not 0; shrunk rows collect behind the kept ones.

    Returns (state, PGmax, PGmin, last, status): the extreme projected gradients of the kept
    rows, the last row whose step changed w (-1: none), and FINITE or SCORE_NOT_FINITE: an
    inf score stops the pass at its row (``last``) where a step would use it; a nan one
    leaves PG = 0 or nan, no step (the weights it came from are checked at the end of the
    call).
    """
    n_active = st.n_active
    shuffle(a.active[:n_active], a.rng_state)
    b, s, wmu, beta, c = st.b, st.s, st.wmu, st.beta, st.c
    PGmax, PGmin, n_kept, last = -np.inf, np.inf, 0, np.int64(-1)
    order = a.active[:n_active]
    for k in range(n_active):
        if prefetch_wanted(order, k):  # shuffled rows: ask the cache for a row ahead
            row_prefetch(X, order[k + PREFETCH_ROWS])
        i = np.uint64(a.active[k])  # unsigned: numba skips the negative-index test
        score = row_dot_dense_order(X, i, a.w)
        if p.offset:  # (w - s mu).(x_i - mu) + b, the score of the centred row
            score += b - wmu - s * (a.e[i] - p.M)
        elif p.split:  # w.x_i with the m-component c of the proximal step for beta
            score += (c - beta) * a.e[i]
        s_i = example_weight(a.s, i)
        G = a.y[i] * score - 1.0 + p.Dii / s_i * a.alpha[i]
        PG, kept = _projected_gradient(G, a.alpha[i], p.U * s_i, st)
        if not kept:
            continue
        a.active[k] = a.active[n_kept]
        a.active[n_kept] = i
        n_kept += 1
        if PG > PGmax:
            PGmax = PG
        if PG < PGmin:
            PGmin = PG
        if PG > 1e-12 or PG < -1e-12:
            if not abs(score) < np.inf:
                return st, PGmax, PGmin, np.int64(i), SCORE_NOT_FINITE
            old = a.alpha[i]
            a.alpha[i] = min(max(old - G / a.QD[i], 0.0), p.U * s_i)
            delta = (a.alpha[i] - old) * a.y[i]
            row_axpy(X, i, delta, a.w)  # w <- w + (alpha_i - alpha_i_old) y_i x_i
            if p.offset:
                s += delta
                wmu += delta * a.e[i]
                b += p.rho * delta
            elif p.split:
                beta += delta * a.e[i]
                c += p.rho * delta * a.e[i]
            last = np.int64(i)
    st = DCDState(n_kept, st.n_outer + 1, st.visits + n_active, st.status, st.PGmax_old,
                  st.PGmin_old, b, s, wmu, beta, c, st.r_prev)
    return st, PGmax, PGmin, last, FINITE


@njit(cache=True)
def _after_pass(st, p, PGmax, PGmin, n):
    """The proximal update, convergence to tol' and the shrinking thresholds after an outer
    iteration whose kept rows had projected gradients in [PGmin, PGmax]."""
    gap = PGmax - PGmin
    # the residual of the proximal step, and the largest score change its next step makes
    resid = st.s if p.offset else st.c - st.beta
    viol = p.rho * abs(resid) * (1.0 if p.offset else p.e_max)
    b, c, r_prev, status, restart = st.b, st.c, st.r_prev, st.status, False
    if viol > p.tol and not gap > max(p.tol, viol):
        # Inexact proximal point: move the prox centre (nu, or c_k) as soon as the inner
        # problem is solved to the accuracy of the current residual. Extrapolated step:
        # if the last update shrank the residual by a factor q in (0, 1), the plain steps
        # would shrink it geometrically; step 1 / (1 - q) times the plain one (the secant
        # step for a residual linear in the centre), with q capped at 0.5.
        q = min(max(resid / r_prev if r_prev != 0.0 else 0.0, 0.0), 0.5)
        if p.offset:
            b += p.rho * st.s / (1.0 - q)
        else:
            c += p.rho * (st.beta - c) / (1.0 - q)
        r_prev, restart = resid, True
    elif not gap > p.tol:  # also true when every row was shrunk (PGmax = -inf)
        if st.n_active == n and viol <= p.tol:
            status = CONVERGED
        restart = True  # converged on the shrunk rows: check every row again
    n_active, PGmax_old, PGmin_old = st.n_active, st.PGmax_old, st.PGmin_old
    if restart:  # the shrunk rows sit behind the kept ones in active
        n_active, PGmax_old, PGmin_old = n, np.inf, -np.inf
    elif p.shrinking:
        PGmax_old = PGmax if PGmax > 0.0 else np.inf
        PGmin_old = PGmin if PGmin < 0.0 else -np.inf
    return DCDState(n_active, st.n_outer, st.visits, status, PGmax_old, PGmin_old, b, st.s,
                    st.wmu, st.beta, c, r_prev)


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def _dcd_run(X, a, p, st, max_outer):
    """Outer iterations until convergence to tol', a non-finite score, the work budget
    ``p.budget`` or ``max_outer`` of them; returns the state and a ``PassResult`` (no
    mistakes counted; SCORE_NOT_FINITE at the row whose score was inf, WEIGHTS_NOT_FINITE
    at the last row that stepped). The arrays of ``a`` are updated in place, so that calls
    can be chained.

    X : float[n, d] C-contiguous, or the CSR tuple of ``product_rows``; a : DCDArrays;
    p : DCDParams; st : DCDState.
    """
    last = np.int64(-1)
    for _ in range(max_outer):
        if st.status != RUNNING or st.visits >= p.budget:
            break
        st, PGmax, PGmin, stepped, status = _dcd_pass(X, a, p, st)
        if status != FINITE:
            return st, PassResult(0, status, stepped)
        if stepped >= 0:
            last = stepped
        st = _after_pass(st, p, PGmax, PGmin, a.alpha.shape[0])
    # the weights, once per call; they were finite before it, so a non-finite one comes
    # from a step of this call: name the last row that stepped
    for j in range(a.w.shape[0]):
        if not abs(a.w[j]) < np.inf:
            return st, PassResult(0, WEIGHTS_NOT_FINITE, last)
    return st, PassResult(0, FINITE, np.int64(-1))


@dataclass
class DCDResult:
    """``theta``, ``theta_0``, ``alpha`` of the dual, epochs, convergence, and the objectives.

    ``primal`` and ``dual`` are the primal objective at ``(theta, theta_0)`` and the dual
    objective at ``alpha`` made exactly feasible (a lower bound of the optimum), from the last
    check (``nan`` if none was made).
    """

    theta: NDArray[np.float64]
    theta_0: float
    alpha: NDArray[np.float64]
    n_iter: int
    converged: bool
    primal: float = float("nan")
    dual: float = float("nan")


def feasible_dual(alpha: NDArray, y: NDArray, U: float | NDArray,
                  fit_intercept: bool) -> NDArray:
    """Project ``alpha`` onto ``{0 <= alpha <= U, sum alpha_i y_i = 0}`` by scaling one class
    (``U`` one bound, or one per example).

    Solvers satisfy the constraints only to their tolerance; the projected point gives a dual
    value that is a true lower bound of the primal optimum (weak duality).
    """
    a = np.clip(alpha, 0.0, U)
    if fit_intercept:
        pos, neg = a[y > 0].sum(), a[y < 0].sum()
        if pos > neg:
            a[y > 0] *= neg / pos
        elif neg > pos:
            a[y < 0] *= pos / neg
    return a


def _matvec(rows, theta: NDArray) -> NDArray:
    """``X theta``, each row summed as a coordinate step sums its score (the same bits for
    a dense row and its CSR copy)."""
    out = np.empty(n_rows(rows))
    matvec(rows, np.ascontiguousarray(theta, dtype=np.float64), out)
    return out


def _dot(u: NDArray, v: NDArray) -> float:
    """``u.v`` of two float64 vectors, compiled: NumPy's ``@`` calls the BLAS, whose
    threads wait on each other for every product of a few thousand entries on a busy
    machine."""
    return float(dot_dense(np.ascontiguousarray(u, dtype=np.float64),
                           np.ascontiguousarray(v, dtype=np.float64)))


def _rmatvec(rows, v: NDArray, d: int) -> NDArray:
    """``X^T v``, the rows times ``v_i`` added in turn (the same bits for both layouts)."""
    out = np.zeros(d)
    rmatvec(rows, np.ascontiguousarray(v, dtype=np.float64), out)
    return out


def primal_dual(X, y: NDArray, C: float, loss: str, fit_intercept: bool, alpha: NDArray,
                theta: NDArray, theta_0: float,
                sample_weight: NDArray | None = None) -> tuple[float, float, NDArray]:
    """``(P, D, z)``: the C-form primal objective at ``(theta, theta_0)``, the dual objective at
    ``feasible_dual(alpha)`` and the agreements ``z_i = y_i (theta.x_i + theta_0)``; with
    ``sample_weight``, the problem with ``C_i = C s_i``.

    ``P - D >= 0`` is the duality gap (weak duality): it bounds ``P - P*``. ``C = inf`` is the
    hard margin, whose primal is ``1/2 ||theta||^2`` (``theta`` feasible to the solver's
    tolerance). Two compiled mat-vecs (``X`` dense, sparse, or ``product_rows``'s already),
    summed alike for a dense row and its CSR copy, so both give the same bits and decisions.
    """
    hard = np.isinf(C)
    Ci = C if sample_weight is None or hard else C * sample_weight
    a = feasible_dual(alpha, y, Ci if loss == "hinge" else np.inf, fit_intercept)
    rows = X if isinstance(X, CSR) else sparse_product_rows(X)
    scores, w_a = _matvec(rows, theta), _rmatvec(rows, a * y, len(theta))
    z = y * (scores + theta_0)
    primal = 0.5 * _dot(theta, theta)
    if not hard:
        slack = np.maximum(0.0, 1.0 - z)
        terms = slack if loss == "hinge" else slack * slack
        primal += (C * float(terms.sum()) if sample_weight is None
                   else float((Ci * terms).sum()))
    dual = float(a.sum()) - 0.5 * _dot(w_a, w_a)
    if loss == "squared_hinge" and not hard:
        dual -= (_dot(a, a) / (4.0 * C) if sample_weight is None
                 else float((a * a / Ci).sum()) / 4.0)
    return primal, dual, z


def _curvatures(rows, d: int, sq_norms: NDArray, fit_intercept: bool, Dii: float):
    """``(QD, e, rho, mu, m)`` of the problem that is solved (see the module docstring): with
    an offset the centred rows, ``e_i = mu.x_i`` and rho; without one the unit mean direction
    ``m`` split off when it is stiff (``e_i = m.x_i``, kappa as rho; else ``m`` is None).
    ``rows``: ``sparse_product_rows(X)`` (its products sum alike for both layouts)."""
    n = n_rows(rows)
    mu = _rmatvec(rows, np.ones(n), d) / max(n, 1)
    M = _dot(mu, mu)
    if fit_intercept:
        # The centred problem: w.x + b = w.(x - mu) + (b + w.mu), same ||w||, same optimum.
        e = _matvec(rows, mu)
        centred = np.maximum(sq_norms - 2.0 * e + M, 0.0)
        # rho: the weight of the offset coordinate. Any rho > 0 gives the same optimum; a
        # tenth of a typical ||x_i - mu||^2 was the fastest of the values we tried.
        rho = 0.1 * float(max(np.mean(centred), 1e-12))
        return centred + Dii + rho, e, rho, mu, None
    if M > 0.0:
        m = mu / np.sqrt(M)
        e_m = _matvec(rows, m)
        across = np.maximum(sq_norms - e_m * e_m, 0.0)
        # kappa: the weight of the m-component in the inner problem, a tenth of the rest
        kappa = 0.1 * float(np.mean(across)) / float(np.mean(e_m * e_m))
        if kappa < _SPLIT_BELOW:
            return across + kappa * e_m * e_m + Dii, e_m, kappa, mu, m
    return sq_norms + Dii, np.empty(0), 1.0, mu, None


def _setup(X, y: NDArray, C: float, loss: str, fit_intercept: bool, tol: float,
           shrinking: bool, rng, owner: str, sample_weight: NDArray | None = None,
           products=None):
    """``(rows, products, arrays, params, mu, m)``: what the compiled run reads, the rows of
    the mat-vecs (``sparse_product_rows``: a dense ``X`` as CSR, the same bits; ``products``
    when the caller has made them), and what turns its ``w`` into ``theta`` (see
    ``_primal_solution``)."""
    n, d = X.shape
    U, Dii = (float(C), 0.0) if loss == "hinge" else (np.inf, 1.0 / (2.0 * C))
    s = sample_weight
    check_row_norms(owner, X)  # names a row whose ||x_i||^2 overflows
    rows = product_rows(X)  # dense rows for the steps' vector sums
    if isinstance(rows, CSR):
        products = rows
    elif products is None:
        products = sparse_product_rows(X)
    sq_norms = np.empty(n)
    row_sqnorms(products, sq_norms)  # in row order: the same bits for both layouts
    QD, e, rho, mu, m = _curvatures(products, d, sq_norms, fit_intercept,
                                    Dii if s is None else Dii / s)
    QD = np.maximum(QD, 1e-12)  # a zero row with no offset: alpha_i -> U
    seed = rng if isinstance(rng, (int, np.integer)) else rng.randint(0, 2**31 - 1)
    rng_state = np.array([seed], dtype=np.uint64)
    arrays = DCDArrays(y, QD, e, np.zeros(n), np.zeros(d), np.arange(n, dtype=np.int64),
                       rng_state, None if s is None else np.ascontiguousarray(s, np.float64))
    params = DCDParams(U, Dii, rho, _dot(mu, mu), float(np.max(np.abs(e))) if e.size else 0.0,
                       tol, 0.0, bool(shrinking), bool(fit_intercept), m is not None)
    return rows, products, arrays, params, mu, m


def dcd_svm(X, y: NDArray, C: float, *, loss: str = "hinge", fit_intercept: bool = True,
            tol: float = 1e-4, max_iter: int = 1000, shrinking: bool = True,
            rng: np.random.RandomState | int | None = None, verbose: bool = False,
            owner: str = "dcd_svm", sample_weight: NDArray | None = None,
            alpha0: NDArray | None = None, theta_0: float = 0.0, C0: float | None = None,
            callback: Callback | None = None, checkpoint: Checkpoint | None = None,
            resume: dict | None = None, products=None,
            give_up_after: float = np.inf) -> DCDResult:
    """Run dual coordinate descent on dense (C-contiguous) or CSR ``X``, ``y`` in {-1,+1}.

    ``sample_weight`` (``s_i > 0``, or None for all 1) gives example ``i`` the constant
    ``C_i = C s_i``: the box ``0 <= alpha_i <= C s_i`` (hinge) or ``D_ii = 1/(2 C s_i)``
    (squared hinge); a weight of 0 is the row left out, which is the caller's to do.

    ``max_iter`` bounds the epochs (``n`` row visits each; ``n_iter`` is their number,
    rounded up, at most ``max_iter``). Converged means a duality gap of at most
    ``0.01 tol P``, checked when ``max PG - min PG <= tol'`` over all rows with the proximal
    residual's score change at most ``tol'`` (``tol'`` starts at ``tol`` and is divided by 10
    while the gap is not met) and at epochs 10, 15, 22, ... (see the module docstring). CSR
    data is read as float64 values with its own int32 or int64 indices (no copy for float64
    data). A row whose ``||x_i||^2`` or score is not finite raises
    :class:`~halfspaces.exceptions.NumericalError` naming ``owner`` and the row.
    ``callback`` hears a :class:`~halfspaces._progress.Progress` after every epoch (one
    compiled call each, with the same iterates), with the relative duality gap where it is
    checked.

    ``rng`` draws the seed of the row permutations (an int is that seed).

    Warm start: ``alpha0`` (clipped to the box ``[0, C_i]`` of this ``C``) and the offset
    ``theta_0`` of an earlier solution are where the run starts (see ``_warm_state``). Given
    ``C0``, the ``C`` that ``alpha0`` solved, the start is the better, by the dual objective,
    of ``alpha0`` clipped and ``alpha0 C / C0`` clipped (Chu, Ho, Lin 2015 scale the dual
    solution along a path of ``C``: the rows at their bound, where noisy data puts most,
    stay there; clipping suits nearly separable data, whose ``alpha`` settle as ``C``
    grows).

    Checkpoints: ``checkpoint(epochs, state)`` is called after every epoch (the compiled
    calls stop at the epochs' ends, as for ``callback``); ``state()`` gives the run's state
    as arrays (:func:`state_arrays`: alpha, w, the active set, the generator, the counters,
    the shrinking thresholds, the offset's sums, ``tol'`` and the next gap check). A run
    given those arrays as ``resume`` (checked by :func:`check_state`) continues from there
    with the iterates, and the result, of the run that wrote them.

    ``products``: ``sparse_product_rows(X)`` when the caller made it (one copy of a dense
    ``X`` for all the problems of a fit), else it is made here.

    ``give_up_after``: epochs. The run stops, unconverged, at a gap check after an eighth
    of them where the relative gap is still 100 times its target and the gaps of the last
    two checks, extrapolated geometrically, reach it only after this many epochs: a caller
    with a method whose cost is known (the interior point, at large ``C``) switches early
    instead of waiting out ``max_iter``.
    """
    n = X.shape[0]
    y = np.ascontiguousarray(y, dtype=np.float64)
    rng = np.random.RandomState(0) if rng is None else rng
    rows, products, a, p, mu, m = _setup(X, y, C, loss, fit_intercept, tol, shrinking, rng,
                                         owner, sample_weight, products)
    st = DCDState(n, 0, 0, RUNNING, np.inf, -np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if alpha0 is not None and resume is None:
        if C0 is not None and 0.0 < C0 < np.inf and C0 != C:
            alpha0 = _better_start(products, a, p, mu, alpha0, C / C0)
        st = _warm_state(products, a, p, st, mu, m, alpha0, theta_0)
    # One compiled call runs every outer iteration up to the next check (verbose: one per
    # call, to print progress); p.budget is where the current call stops.
    chunk = 1 if verbose else np.iinfo(np.int64).max
    # a warm start may begin near the optimum: its first gap check comes early
    budget = float(max_iter) * n
    check_at = (_FIRST_CHECK if alpha0 is None else _FIRST_WARM_CHECK) * n
    if resume is not None:
        p, st, check_at = restore_state(resume, a, p)
    by_epoch = callback is not None or checkpoint is not None
    last_check = (0.0, np.inf)  # (epochs, relative gap) at the last gap check
    while True:
        stop = min(budget, check_at)
        while st.status == RUNNING and st.visits < stop:
            # a callback hears of every epoch: the call stops at the next one's end
            p = p._replace(budget=stop if not by_epoch else min(stop, (st.visits // n + 1) * n))
            epochs = st.visits // n
            st, trouble = _dcd_run(rows, a, p, st, chunk)
            check_pass(owner, trouble, "the score y_i (theta.x_i + theta_0) or the weights")
            if checkpoint is not None and st.visits // n > epochs:
                checkpoint(int(st.visits // n),
                           lambda st=st, p=p, check_at=check_at: state_arrays(a, p, st, check_at))
            if verbose:
                print(f"dcd: iter {st.n_outer} (epoch {st.visits / n:.2f}): active"
                      f" {st.n_active}, b {st.b:.6g}, sum alpha y {st.s:.3g}")
            if callback is not None:
                callback(_progress(st, n, max_iter, tol, None))
        theta, theta_0 = _primal_solution(a.w, mu, m, st, fit_intercept)
        primal, dual, _ = primal_dual(products, y, C, loss, fit_intercept, a.alpha, theta,
                                      theta_0, sample_weight)
        converged = primal - dual <= _GAP_PER_TOL * tol * abs(primal)
        if callback is not None:
            callback(_progress(st, n, max_iter, tol, (primal, dual)))
        if converged or st.visits >= budget:
            break
        gap, target = (primal - dual) / abs(primal), _GAP_PER_TOL * tol
        if (gap > _FAR * target and st.visits >= _SPENT * give_up_after * n
                and _epochs_needed(last_check, (st.visits / n, gap), target) > give_up_after):
            break
        last_check = (st.visits / n, gap)
        if st.status == CONVERGED:  # the projected gradients met tol' but the gap did not
            p, st = p._replace(tol=p.tol * 0.1), st._replace(status=RUNNING)
            if verbose:
                print(f"dcd: duality gap {primal - dual:.3g} > {_GAP_PER_TOL:g} tol P;"
                      f" projected-gradient tolerance now {p.tol:.3g}")
        else:
            check_at *= _CHECK_GROWTH
    # epochs = row visits / n, rounded up; the last outer iteration may end past the budget
    n_iter = min(int(-(-st.visits // n)), int(max_iter))
    return DCDResult(theta, theta_0, a.alpha, n_iter, converged, primal, dual)



def _epochs_needed(before: tuple[float, float], now: tuple[float, float],
                   target: float) -> float:
    """The epochs at which the relative gap reaches ``target`` if it keeps shrinking at the
    geometric rate between two checks ``(epochs, gap)``; ``now``'s epochs when the rate is
    not known (no earlier check, or a gap that did not shrink)."""
    (e0, g0), (e1, g1) = before, now
    if not (target < g1 < g0 < np.inf and e1 > e0):
        return e1
    return e1 + (e1 - e0) * np.log(g1 / target) / np.log(g0 / g1)


def _progress(st: DCDState, n: int, max_iter: int, tol: float, objectives) -> Progress:
    """The report of the epochs done, with the relative gap ``(P - D) / P`` of ``objectives
    = (P, D)`` when it was just computed."""
    primal, dual = objectives or (None, None)
    gap = None if primal is None else (primal - dual) / max(abs(primal), np.finfo(float).tiny)
    return Progress("dcd", int(min(st.visits // n, max_iter)), int(max_iter), gap,
                    _GAP_PER_TOL * tol, "relative duality gap", primal)


def _warm_state(rows, a: DCDArrays, p: DCDParams, st: DCDState, mu: NDArray,
                m: NDArray | None, alpha0: NDArray, theta_0: float) -> DCDState:
    """Start from ``alpha0`` clipped to the box ``[0, U_i]`` (a feasible point of the dual,
    whatever ``C`` it came from; the squared hinge has no upper bound), with ``w`` and the
    sums the steps keep made to match. With an offset, the multiplier ``nu`` starts where
    the earlier solution's offset puts it (``b = theta_0 + theta.mu`` at an optimum, where
    ``s = 0``); without one, the proximal copy ``c`` of ``beta`` starts at ``beta``."""
    U = p.U if a.s is None else p.U * a.s
    a.alpha[:] = np.clip(alpha0, 0.0, U)
    a.w[:] = _rmatvec(rows, a.alpha * a.y, a.w.shape[0])
    if p.offset:
        s = _dot(a.alpha, a.y)
        wmu = _dot(a.w, mu)
        nu = float(theta_0) + wmu - s * p.M  # theta_0 + theta.mu, theta = w - s mu
        return st._replace(b=nu + p.rho * s, s=s, wmu=wmu)
    if p.split:
        beta = _dot(a.w, m)
        return st._replace(beta=beta, c=beta)
    return st


def _better_start(rows, a: DCDArrays, p: DCDParams, mu: NDArray, alpha0: NDArray,
                  scale: float) -> NDArray:
    """``alpha0`` or ``scale alpha0``, clipped to the box, whichever has the larger dual
    objective ``sum_i alpha_i - 1/2 ||theta||^2 - 1/2 sum_i D_ii alpha_i^2`` (``theta =
    sum_i alpha_i y_i (x_i - mu)`` with an offset, the problem the steps solve)."""
    U = p.U if a.s is None else p.U * a.s
    Dii = p.Dii if a.s is None else p.Dii / a.s
    best, best_dual = alpha0, -np.inf
    for candidate in (np.clip(alpha0, 0.0, U), np.clip(alpha0 * scale, 0.0, U)):
        theta = _rmatvec(rows, candidate * a.y, a.w.shape[0])
        if p.offset:
            theta = theta - _dot(candidate, a.y) * mu
        dual = candidate.sum() - 0.5 * _dot(theta, theta) \
            - 0.5 * float(np.sum(Dii * candidate * candidate))
        if dual > best_dual:
            best, best_dual = candidate, dual
    return best


def _primal_solution(w: NDArray, mu: NDArray, m: NDArray | None, st: DCDState,
                     fit_intercept: bool) -> tuple[NDArray, float]:
    """``(theta, theta_0)``, the primal iterate the coordinate steps see: with an offset, the
    centred problem's ``theta = w - s mu`` and ``theta_0 = b - theta.mu``; without one,
    ``w`` with its ``m``-component ``beta`` replaced by its proximal copy ``c``."""
    if not fit_intercept:
        return (w, 0.0) if m is None else (w + (st.c - st.beta) * m, 0.0)
    theta = w - st.s * mu
    return theta, float(st.b - _dot(theta, mu))
