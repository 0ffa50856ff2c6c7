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
microseconds dominated the short passes; its state lives in two records (``_STATE``,
``_PARAMS``), so the loop can stop after any outer iteration (``verbose``, the gap checks)
and resume with identical iterates.

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
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from .._primitives import splitmix64
from .._validation import check_row_norms
from ..exceptions import NumericalError

__all__ = ["DCDResult", "dcd_svm", "feasible_dual", "primal_dual"]

#: The state of a run, carried between kernel calls (one record).
_STATE = np.dtype([
    ("n_active", np.int64), ("n_outer", np.int64), ("visits", np.int64),
    ("status", np.int64),  # 0 running, 1 converged to tol', 2 a non-finite score or weight
    ("bad_row", np.int64),  # the row where status 2 was found
    ("PGmax_old", np.float64), ("PGmin_old", np.float64),  # shrinking thresholds
    ("b", np.float64), ("s", np.float64), ("wmu", np.float64),  # offset: b, sum a y, w.mu
    ("beta", np.float64), ("c", np.float64),  # no offset: m.w and its proximal copy
    ("r_prev", np.float64),  # the proximal residual (s, or c - beta) at the last update
])
#: The fixed parameters of a run (one record).
_PARAMS = np.dtype([
    ("U", np.float64), ("Dii", np.float64), ("rho", np.float64), ("M", np.float64),
    ("e_max", np.float64), ("tol", np.float64), ("budget", np.float64),
    ("shrinking", np.bool_), ("offset", np.bool_), ("split", np.bool_),
])
_GAP_PER_TOL = 0.01  # converged also needs P - D <= _GAP_PER_TOL * tol * P
_FIRST_CHECK, _CHECK_GROWTH = 10, 1.5  # the gap is also checked at epochs 10, 15, 22, ...
_SPLIT_BELOW = 1.0  # no offset: split off the mean direction when kappa is below this


@njit(cache=True)
def _dcd_run(dense, X, data, indices, indptr, y, QD, e, alpha, w, active, state, params,
             rng_state, max_outer):
    """Outer iterations of DCD until convergence, a non-finite score, the work budget, or
    ``max_outer`` of them.

    dense : bool, rows from ``X`` (float[n, d], C-contiguous) if True, else from the CSR
    arrays ``data, indices, indptr``; y : float64[n] in {-1,+1}; QD : float64[n], Qbar_ii;
    e : float64[n], ``mu.x_i`` (offset) or ``m.x_i`` (no offset; empty when the mean direction
    is not split off); alpha : float64[n]; w : float64[d], ``sum_i alpha_i y_i x_i`` over the
    raw rows; active : int64[n], a permutation whose first ``n_active`` entries are the
    active rows; state : one ``_STATE`` record, params : one ``_PARAMS`` record;
    rng_state : uint64[1]. Everything is updated in place, so that calls can be chained.
    """
    d = w.shape[0]
    n = alpha.shape[0]
    st, prm = state[0], params[0]
    U, Dii, rho, M, tol = prm["U"], prm["Dii"], prm["rho"], prm["M"], prm["tol"]
    e_max, budget, shrinking = prm["e_max"], prm["budget"], prm["shrinking"]
    offset, split = prm["offset"], prm["split"]
    n_active, n_outer, visits, status = st["n_active"], st["n_outer"], st["visits"], st["status"]
    PGmax_old, PGmin_old, r_prev = st["PGmax_old"], st["PGmin_old"], st["r_prev"]
    b, s, wmu, beta, c = st["b"], st["s"], st["wmu"], st["beta"], st["c"]
    last = -1  # the last row whose step changed w
    for _ in range(max_outer):
        if status != 0 or visits >= budget:
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
            score = 0.0
            if dense:
                for j in range(d):
                    score += w[j] * X[i, j]
            else:
                start, stop = np.uint64(indptr[i]), np.uint64(indptr[i + np.uint64(1)])
                for pos in range(start, stop):
                    score += w[np.uint64(indices[pos])] * data[pos]
            if offset:  # (w - s mu).(x_i - mu) + b, the score of the centred row
                score += b - wmu - s * (e[i] - M)
            elif split:  # w.x_i with the m-component c of the proximal step for beta
                score += (c - beta) * e[i]
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
                # An inf score would step here; checked only here (a nan one leaves PG = 0
                # or nan, no step: the weights it came from are checked at the end).
                if not abs(score) < np.inf:
                    status, st["bad_row"] = 2, i
                    break
                old = alpha[i]
                new = min(max(old - G / QD[i], 0.0), U)
                alpha[i] = new
                delta = (new - old) * y[i]
                if dense:
                    for j in range(d):
                        w[j] += delta * X[i, j]
                else:
                    for pos in range(start, stop):
                        w[np.uint64(indices[pos])] += delta * data[pos]
                if offset:
                    s += delta
                    wmu += delta * e[i]
                    b += rho * delta
                elif split:
                    beta += delta * e[i]
                    c += rho * delta * e[i]
                last = i
        if status != 0:
            break
        visits += n_active
        n_outer += 1
        n_active = n_kept
        gap = PGmax - PGmin
        # the residual of the proximal step, and the largest score change its next step makes
        resid = s if offset else c - beta
        viol = rho * abs(resid) * (1.0 if offset else e_max)
        restart = False
        if viol > tol and not gap > max(tol, viol):
            # Inexact proximal point: move the prox centre (nu, or c_k) as soon as the inner
            # problem is solved to the accuracy of the current residual. Extrapolated step:
            # if the last update shrank the residual by a factor q in (0, 1), the plain
            # steps would shrink it geometrically; step 1 / (1 - q) times the plain one
            # (the secant step for a residual linear in the centre), with q capped at 0.5.
            q = resid / r_prev if r_prev != 0.0 else 0.0
            q = min(max(q, 0.0), 0.5)
            if offset:
                b += rho * s / (1.0 - q)
            else:
                c += rho * (beta - c) / (1.0 - q)
            r_prev = resid
            restart = True
        elif not gap > tol:  # also true when every row was shrunk (PGmax = -inf)
            if n_active == n and viol <= tol:
                status = 1
            restart = True  # converged on the shrunk rows: check every row again
        if restart:
            n_active = n  # the shrunk rows sit behind the kept ones in active
            PGmax_old, PGmin_old = np.inf, -np.inf
        elif shrinking:
            PGmax_old = PGmax if PGmax > 0.0 else np.inf
            PGmin_old = PGmin if PGmin < 0.0 else -np.inf
    if status == 0 or status == 1:  # the weights, once per call; they were finite before it,
        # so a non-finite one comes from a step of this call: name the last row that stepped
        for j in range(d):
            if not abs(w[j]) < np.inf:
                status, st["bad_row"] = 2, last
                break
    st["n_active"], st["n_outer"], st["visits"], st["status"] = n_active, n_outer, visits, status
    st["PGmax_old"], st["PGmin_old"], st["r_prev"] = PGmax_old, PGmin_old, r_prev
    st["b"], st["s"], st["wmu"], st["beta"], st["c"] = b, s, wmu, beta, c


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


def feasible_dual(alpha: NDArray, y: NDArray, U: float, fit_intercept: bool) -> NDArray:
    """Project ``alpha`` onto ``{0 <= alpha <= U, sum alpha_i y_i = 0}`` by scaling one class.

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


def primal_dual(X, y: NDArray, C: float, loss: str, fit_intercept: bool, alpha: NDArray,
                theta: NDArray, theta_0: float) -> tuple[float, float, NDArray]:
    """``(P, D, z)``: the C-form primal objective at ``(theta, theta_0)``, the dual objective at
    ``feasible_dual(alpha)`` and the agreements ``z_i = y_i (theta.x_i + theta_0)``.

    ``P - D >= 0`` is the duality gap (weak duality): it bounds ``P - P*``. ``C = inf`` is the
    hard margin, whose primal is ``1/2 ||theta||^2`` (``theta`` feasible to the solver's
    tolerance). Two mat-vecs.
    """
    z = y * (np.asarray(X @ theta, dtype=np.float64).ravel() + theta_0)
    primal = 0.5 * float(theta @ theta)
    hard = np.isinf(C)
    if not hard:
        slack = np.maximum(0.0, 1.0 - z)
        primal += C * float((slack if loss == "hinge" else slack * slack).sum())
    a = feasible_dual(alpha, y, C if loss == "hinge" else np.inf, fit_intercept)
    w_a = np.asarray(X.T @ (a * y), dtype=np.float64).ravel()
    dual = float(a.sum()) - 0.5 * float(w_a @ w_a)
    if loss == "squared_hinge" and not hard:
        dual -= float(a @ a) / (4.0 * C)
    return primal, dual, z


def dcd_svm(X, y: NDArray, C: float, *, loss: str = "hinge", fit_intercept: bool = True,
            tol: float = 1e-4, max_iter: int = 1000, shrinking: bool = True,
            rng: np.random.RandomState | None = None, verbose: bool = False,
            owner: str = "dcd_svm") -> DCDResult:
    """Run dual coordinate descent on dense (C-contiguous) or CSR ``X``, ``y`` in {-1,+1}.

    ``max_iter`` bounds the epochs (``n`` row visits each; ``n_iter`` is their number,
    rounded up, at most ``max_iter``). Converged means a duality gap of at most
    ``0.01 tol P``, checked when ``max PG - min PG <= tol'`` over all rows with the proximal
    residual's score change at most ``tol'`` (``tol'`` starts at ``tol`` and is divided by 10
    while the gap is not met) and at epochs 10, 15, 22, ... (see the module docstring). CSR
    data is read as float64 values with its own int32 or int64 indices (no copy for float64
    data). A row whose ``||x_i||^2`` or score is not finite raises
    :class:`~halfspaces.exceptions.NumericalError` naming ``owner`` and the row.
    """
    n, d = X.shape
    y = np.ascontiguousarray(y, dtype=np.float64)
    rng = np.random.RandomState(0) if rng is None else rng
    if loss == "hinge":
        U, Dii = float(C), 0.0
    else:
        U, Dii = np.inf, 1.0 / (2.0 * C)
    csr = sp.issparse(X)
    sq_norms = check_row_norms(owner, X)
    if csr:
        mu = np.asarray(X.sum(axis=0, dtype=np.float64)).ravel() / max(n, 1)
    else:
        mu = X.mean(axis=0, dtype=np.float64)
    M = float(mu @ mu)
    e_dir = None  # no offset: the unit mean direction m when it is split off
    params = np.zeros(1, dtype=_PARAMS)
    prm = params[0]
    if fit_intercept:
        # The centred problem: w.x + b = w.(x - mu) + (b + w.mu), same ||w||, same optimum.
        e = np.asarray(X @ mu, dtype=np.float64).ravel()
        centred = np.maximum(sq_norms - 2.0 * e + M, 0.0)
        # rho: the weight of the offset coordinate. Any rho > 0 gives the same optimum; a
        # tenth of a typical ||x_i - mu||^2 was the fastest of the values we tried.
        rho = 0.1 * float(max(np.mean(centred), 1e-12))
        QD = centred + Dii + rho
    else:
        e, rho, QD = np.empty(0), 1.0, sq_norms + Dii
        if M > 0.0:
            m = mu / np.sqrt(M)
            e_m = np.asarray(X @ m, dtype=np.float64).ravel()
            across = np.maximum(sq_norms - e_m * e_m, 0.0)
            # kappa: the weight of the m-component in the inner problem, a tenth of the rest
            kappa = 0.1 * float(np.mean(across)) / float(np.mean(e_m * e_m))
            if kappa < _SPLIT_BELOW:
                e, rho, QD, e_dir = e_m, kappa, across + kappa * e_m * e_m + Dii, m
    QD = np.maximum(QD, 1e-12)  # a zero row with no offset: alpha_i -> U
    prm["U"], prm["Dii"], prm["rho"], prm["M"], prm["tol"] = U, Dii, rho, M, tol
    prm["e_max"] = float(np.max(np.abs(e))) if e.size else 0.0
    prm["shrinking"], prm["offset"], prm["split"] = shrinking, fit_intercept, e_dir is not None
    state = np.zeros(1, dtype=_STATE)
    state[0]["n_active"], state[0]["PGmax_old"], state[0]["PGmin_old"] = n, np.inf, -np.inf
    alpha = np.zeros(n)
    w = np.zeros(d)
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
    # One kernel call runs every outer iteration up to the next check (verbose: one per call,
    # to print progress); prm["budget"] is where the current call stops.
    chunk = 1 if verbose else np.iinfo(np.int64).max
    st = state[0]
    budget, check_at = float(max_iter) * n, _FIRST_CHECK * n
    converged, primal, dual = False, float("nan"), float("nan")
    while True:
        prm["budget"] = min(budget, check_at)
        while st["status"] == 0 and st["visits"] < prm["budget"]:
            _dcd_run(not csr, Xd, data, indices, indptr, y, QD, e, alpha, w, active, state,
                     params, rng_state, chunk)
            if verbose:
                print(f"dcd: iter {st['n_outer']} (epoch {st['visits'] / n:.2f}): active"
                      f" {st['n_active']}, b {st['b']:.6g}, sum alpha y {st['s']:.3g}")
        if st["status"] == 2:
            raise NumericalError(owner, int(st["bad_row"]),
                                 "the score y_i (theta.x_i + theta_0) or the weights")
        theta, theta_0 = _primal_solution(w, mu, e_dir, st, fit_intercept)
        primal, dual, _ = primal_dual(X, y, C, loss, fit_intercept, alpha, theta, theta_0)
        if primal - dual <= _GAP_PER_TOL * tol * abs(primal):
            converged = True
            break
        if st["visits"] >= budget:
            break
        if st["status"] == 1:  # the projected gradients met tol' but the gap did not
            prm["tol"] *= 0.1
            st["status"] = 0
            if verbose:
                print(f"dcd: duality gap {primal - dual:.3g} > {_GAP_PER_TOL:g} tol P;"
                      f" projected-gradient tolerance now {prm['tol']:.3g}")
        else:
            check_at *= _CHECK_GROWTH
    # epochs = row visits / n, rounded up; the last outer iteration may end past the budget
    n_iter = min(int(-(-st["visits"] // n)), int(max_iter))
    return DCDResult(theta, theta_0, alpha, n_iter, converged, primal, dual)


def _primal_solution(w: NDArray, mu: NDArray, m: NDArray | None, st,
                     fit_intercept: bool) -> tuple[NDArray, float]:
    """``(theta, theta_0)``, the primal iterate the coordinate steps see: with an offset, the
    centred problem's ``theta = w - s mu`` and ``theta_0 = b - theta.mu``; without one,
    ``w`` with its ``m``-component ``beta`` replaced by its proximal copy ``c``."""
    if not fit_intercept:
        return (w, 0.0) if m is None else (w + (st["c"] - st["beta"]) * m, 0.0)
    theta = w - st["s"] * mu
    return theta, float(st["b"] - theta @ mu)
