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
``-/+inf`` and every row is visited again; a pass over all rows with ``max PG - min PG <=
tol`` then leads to the duality-gap check that decides convergence (see **Stopping**).

Work is counted in **epochs** of ``n`` row visits: once shrinking has left a small active
set, thousands of cheap outer iterations may be needed (LIBLINEAR counts these, so its
1000-iteration default stops early on a9a with ``C = 1/(1e-4 n)``; ours converges in 40 to
80 epochs). The whole loop (permutations included, from a splitmix64 generator seeded by the
caller's ``RandomState``) runs in one compiled call, since per-call overhead of tens of
microseconds dominated the short passes; its state is a :class:`DCDState` returned by each
call, so the loop can stop after any outer iteration (``verbose``, the gap checks) and
resume with identical iterates.

**Dense and sparse input give the same bits.** A dense row and its CSR copy are summed in
the same order everywhere: the scores by ``row_dot_dense_order`` (the dense rows' 8 partial
sums by column, for CSR rows too), ``||x_i||^2``, the mean row, ``e_i`` and the gap's two
mat-vecs by the compiled ``row_sqnorms``, ``rmatvec`` and ``matvec``; the updates are
elementwise. So every step, shrinking decision, gap check and stop is the same, and so is
the model (with the same seed). The CSR scores cost a little more than a sum by stored
position (one vector addition per stored value, in one chain); the pass hides it, and more,
by asking the cache for the row two visits ahead (rows are visited shuffled). a9a, ``SVC(
solver="dcd")`` defaults (70 epochs), process CPU seconds of ``fit``, median of 21
alternating fits on a shared 2-core AMD EPYC, before -> now: CSR 0.188 -> 0.190, dense
0.481 -> 0.328 (the prefetch, and compiled mat-vecs in place of NumPy's).

**Non-finite numbers.** A score that is inf stops the run at its row (checked where a step
would use it, so the epoch pays nothing measurable: a9a per-epoch CPU time with and without
the checks, alternating over 30 to 40 seeds, 0.99 to 1.04 times, within the noise of the
machine); a nan score takes no step, and the weights it came from are checked once at the
end of each compiled call. Either is raised as :class:`~halfspaces.exceptions.NumericalError`
naming the row. Rows whose ``||x_i||^2`` overflows are refused before the run.

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

We take ``rho = 0.1 mean_i ||x_i - mu||^2``: larger ``rho`` damps every step (``Qbar_ii``
grows) and couples the coordinates, smaller ``rho`` needs more multiplier updates (tried:
``rho`` from 0.01 to 1 times the mean, updating more or less eagerly, and keeping the shrunk
set across multiplier updates; none was better on a9a, w8a and Reuters). After a multiplier
update every row is visited again (``b`` moved, so shrunk rows may violate again).

**Centring** (with an offset). ``w.x + b = w.(x - mu) + (b + w.mu)`` with the same ``||w||``,
so the problem on the centred rows ``x_i - mu`` (``mu`` the mean row) has the same optimum,
and that is the one solved. Without it, features far from zero make ``Q`` nearly
``||mu||^2 y y^T`` plus the informative part: every ``Qbar_ii`` is about ``||mu||^2``, each
step moves ``alpha_i`` by a ``1/||mu||^2`` sliver, and 3000 rows from N(50, 1) stopped at
``max_iter = 1000`` epochs with three times the optimal objective. The rows are centred
implicitly (CSR stays sparse, dense is not copied): ``w`` is kept as ``sum_i alpha_i y_i x_i``
over the raw rows, the centred weight is ``w - s mu``, and with ``e_i = mu.x_i`` (one mat-vec
before the run) and ``w.mu`` (updated with each step)

    (w - s mu).(x_i - mu) = w.x_i - w.mu - s (e_i - ||mu||^2),

an O(1) addition to the O(nnz(x_i)) step. ``theta = w - s mu``, ``theta_0 = b - theta.mu``.

**The mean direction** (without an offset). Centring is not exact there: the rows' mean is
part of the model (``theta.mu`` acts as an offset that costs ``||theta||^2``). With the unit
mean direction ``m = mu/||mu||``, ``e_i = m.x_i`` and ``beta = m.w``, the dual objective is
``1/2 ||w - beta m||^2 + 1/2 beta^2 - sum alpha``, and the stiff part is ``1/2 beta^2``
(curvature ``e_i^2`` along ``alpha_i``, large for un-centred data). It is treated by the
proximal-point method as the offset is: ``1/2 beta^2 = max_c (c beta - c^2/2)``, the inner
problem (prox centre ``c_k``, step ``rho``) is

    min_alpha 1/2 ||w - beta m||^2 + kappa/2 (beta + c_k/rho)^2 - sum alpha,
    kappa = rho / (1 + rho),

whose coordinate step sees ``score_i = w.x_i + (c - beta) e_i`` with ``c = kappa beta +
(1 - kappa) c_k`` (updated with ``beta`` at each step) and ``Qbar_ii = ||x_i||^2 - (1 - kappa)
e_i^2 + D_ii``; the prox update is ``c <- c + kappa (beta - c) / (1 - q)`` (extrapolated as
above) when the projected-gradient gap falls below the score change it makes,
``kappa |beta - c| max_i |e_i|``. ``kappa`` is chosen as ``rho`` is, so that the stiff part
weighs a tenth of the rest: ``kappa = 0.1 mean_i (||x_i||^2 - e_i^2) / mean_i e_i^2``; when
that is 1 or more the mean is not stiff and the split is skipped (plain DCD). The primal
iterate is ``theta = w + (c - beta) m``, the weight the steps see.

Measured (``C = 1``, tol 1e-4, 3000 x 20, epochs to convergence, before -> now): rows from
N(50, 1) 1000 (not converged, objective 1.7 times the optimum) -> 231 with an offset,
1000 -> 63 without; rows near 1e3 1000 -> 72 and 1000 -> 172; rank-3 correlated columns
without offset 1000 -> 114. The mean of sparse 0/1 features is large too (a9a:
``||mu||^2 = 6.2`` against ``mean ||x_i - mu||^2 = 7.7``), so the benchmark sets gain
or stay level (median epochs of 3 seeds, before -> now; process CPU seconds in brackets,
same process, alternating; ``lam``: ``C = 1/(1e-4 n)``)::

    tol 1e-4              offset                   no offset
    a9a,  C = 1      111 -> 69  (0.22 -> 0.14)   104 -> 69  (0.18 -> 0.15)
    a9a,  lam        134 -> 51  (0.23 -> 0.10)   151 -> 51  (0.20 -> 0.10)
    w8a,  C = 1      220 -> 231 (0.39 -> 0.47)   393 -> 114 (0.52 -> 0.22)
    w8a,  lam        145 -> 171 (0.24 -> 0.32)    62 -> 34  (0.11 -> 0.08)
    reuters, C = 1    23 -> 28  (0.019 -> 0.028) 268 -> 268 (0.19 -> 0.20)
    reuters, lam      53 -> 77  (0.055 -> 0.084) 520 -> 533 (0.37 -> 0.39)

(tol 1e-3: a9a 102 -> 70 and 85 -> 51, w8a 189 -> 198 and 158 -> 76, Reuters 20 -> 23 and
56 -> 56.) Where it is slower, it is the stricter stop (Reuters' old stops had relative gaps
up to 2e-6 at tol 1e-4, 2e-5 at tol 1e-3) and its gap checks (two mat-vecs, about an epoch
each on Reuters), not the centring: with centring switched off, w8a and Reuters with an
offset took the same epochs within the spread of 5 seeds, a9a 1.5 times more.

**Stopping.** ``max PG - min PG <= tol`` (LIBLINEAR's rule, in units of the margin) does
not bound the objective's error relatively: each row may add ``C |PG_i|`` to the duality
gap, which is large against the objective when the ``alpha_i`` are small compared with ``C``
(nearly separable data: on 300 x 400 Gaussian rows it stopped 1.8e-3 above the optimum at
tol 1e-4); and on rank-deficient data (squared hinge on rank-3 columns) the ``alpha`` did not
meet it in 1000 epochs while ``theta`` was exact to 1e-11. So the run is converged when the
duality gap ``P(theta, theta_0) - D(alpha)`` (``alpha`` made exactly feasible; two mat-vecs)
is at most ``0.01 tol P``, which certifies the objective to ``0.01 tol`` relatively (1e-6 at
the default tol, the accuracy the tests hold the QP to). The gap is checked whenever the
projected gradients meet ``tol'`` on every row (``tol'`` starts at ``tol``; when the gap is
not met yet, ``tol' <- tol' / 10`` and the run goes on) and at epochs 10, 15, 22, 33, ...
(growing by half; doubling cost a9a, w8a and Reuters up to 1.5 times the epochs, as a run
overshot the epoch where the gap was met). On a9a the projected-gradient rule alone gave
relative gaps of about 1e-7 at tol 1e-4; on Reuters (offset, ``C = 1/(1e-4 n)``) 2e-6, where
the gap rule costs more epochs than LIBLINEAR's rule would (see the table below).

**What DCD cannot do.** Its work grows with the effective ``C max_i ||x_i||^2``: at
``C = 100`` on 3000 x 20 Gaussian rows, or with half the columns 1000 times the others, it
does not converge in 1000 epochs (nor does LIBLINEAR's DCD, which recommends scaling the
features). ``SVC(solver="auto")`` then solves the QP instead when it fits in memory.
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
            resume: dict | None = None, products=None) -> DCDResult:
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
