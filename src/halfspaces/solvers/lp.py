"""Linear programs of halfspace learning, solved by HiGHS through :func:`scipy.optimize.linprog`.

Labels are ``y_i in {-1, +1}``; ``X`` is a dense float64 array or a CSR matrix. Three LPs:

Separating LP (ERM in the realizable case; the L1 objective makes it bounded and the
separator sparse)::

    min  ||w||_1    s.t.  y_i (<w, x_i> + b) >= 1   for every i        (w = u - v, u, v >= 0)

Farkas alternative (exactly one of the two systems has a solution)::

    find alpha >= 0,  sum_i alpha_i = 1,  sum_i alpha_i y_i x_i = 0  [, sum_i alpha_i y_i = 0]

Least violation (the LP relaxation of ERM: the sum of hinge losses, no regulariser; with
example weights ``s_i > 0`` the weighted sum, ``s_i = 1`` without)::

    min  sum_i s_i xi_i    s.t.  y_i (<w, x_i> + b) >= 1 - xi_i,  xi_i >= 0

The bracketed offset parts are present when ``fit_intercept`` is true. Only the relaxation
takes weights: whether a separator or a certificate exists does not depend on them (a caller
leaves the rows of weight 0 out of every LP, as :class:`~halfspaces.LPSeparator` does).
Certificates come from solving the alternative LP explicitly (never from solver-internal
rays), are polished on their support and verified numerically before anyone sees them.
Every LP is solved on the non-empty columns of ``X``, each divided by a power of two that
brings its largest ``|x_ij|`` into ``[0.5, 1)`` (exact, and HiGHS' tolerances are absolute),
and its ``w`` mapped back; a separator is returned only when each row's margin exceeds the
rounding error bound of computing it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import linprog

from ..exceptions import NotSeparableError

#: Relative residual (:func:`certificate_residual`: each column of ``sum_i alpha_i y_i x_i``
#: over that column's ``max_i |x_ij|``, and ``|sum_i alpha_i y_i|``, per unit of
#: ``sum_i alpha_i``) below which a certificate is accepted, at every scale of the data.
CERTIFICATE_RTOL = 1e-8

_STATUS = {
    1: "iteration limit reached",
    2: "the problem is infeasible",
    3: "the problem is unbounded",
    4: "numerical difficulties",
}


def _linprog(what: str, c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None):
    """Call HiGHS; return the solution vector, or None when HiGHS proves infeasibility.

    Any other failure becomes a RuntimeError that names the LP and says what to try.
    """
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                  method="highs")
    if res.status == 0:
        return res.x
    if res.status == 2:
        return None
    reason = _STATUS.get(res.status, f"status {res.status}")
    raise RuntimeError(
        f"HiGHS could not solve the {what} ({reason}: {res.message.strip()}). Rescale the"
        " features (e.g. sklearn's StandardScaler or MaxAbsScaler) and remove duplicate"
        " or constant columns, then try again."
    )


def _signed_rows(X, y: NDArray[np.float64]):
    """The matrix whose row i is ``y_i x_i`` (CSR for sparse ``X``)."""
    if sp.issparse(X):
        return sp.csr_matrix(sp.diags(y) @ X)
    return X * y[:, None]


class Scaled(NamedTuple):
    """The columns ``cols`` of ``X`` that hold a non-zero, column ``j`` times ``2^-e_j``.

    Each column of ``Z`` has ``max_i |z_ij|`` in ``[0.5, 1)``; multiplying by a power of two
    is exact, so the LPs on ``Z`` are the LPs on ``X`` with ``w_j = 2^-e_j w'_j`` (and
    ``w_j = 0`` on an empty column), in the range where HiGHS' absolute tolerances mean
    what they say, at any scale of the data; their work follows the non-zeros, not
    ``n_features``.
    """

    Z: object
    cols: NDArray[np.intp]
    e: NDArray[np.int64]
    n_features: int

    def weights(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``w`` over the columns of ``X`` from the ``w'`` of ``Z``."""
        full = np.zeros(self.n_features)
        full[self.cols] = np.ldexp(w, -self.e)
        return full


def scaled_columns(X) -> Scaled:
    """:class:`Scaled` of a dense array or a CSR matrix ``X``."""
    n, d = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.eliminate_zeros()
        cols, at = np.unique(X.indices, return_inverse=True)
        top = np.zeros(cols.size)
        np.maximum.at(top, at, np.abs(X.data))
        e = np.frexp(top)[1].astype(np.int64)
        Z = sp.csr_matrix((np.ldexp(X.data, -e[at]), at, X.indptr), shape=(n, cols.size))
        return Scaled(Z, cols, e, d)
    top = np.max(np.abs(X), axis=0) if n else np.zeros(d)
    cols = np.flatnonzero(top > 0.0)
    e = np.frexp(top[cols])[1].astype(np.int64)
    return Scaled(np.ldexp(X[:, cols], -e), cols, e, d)


def scale_exponent(X) -> int:
    """The ``e`` with ``max |x_ij| 2^-e`` in ``[0.5, 1)`` (0 for zero data)."""
    data = X.data if sp.issparse(X) else X
    top = float(np.max(np.abs(data))) if data.size else 0.0
    return math.frexp(top)[1] if 0.0 < top < np.inf else 0


def times_power_of_two(X, e: int):
    """``X 2^e``, exact (a copy; CSR stays CSR)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.data = np.ldexp(X.data, e)
        return X
    return np.ldexp(X, e)


def verified_margin(X, y: NDArray[np.float64], w: NDArray[np.float64], b: float):
    """``min_i y_i (<w, x_i> + b)`` when every row's margin is positive beyond the rounding
    error bound of computing it in floating point, else None.

    The computed ``<w, x_i> + b`` is within ``(d + 2) eps (|w|.|x_i| + |b|)`` of the exact
    value (Higham's bound for a dot product), so a margin above that bound proves the row is
    strictly on its side, at any scale of ``X``.
    """
    if not (np.all(np.isfinite(w)) and math.isfinite(b)):
        return None
    margins = y * (np.asarray(X @ w).ravel() + b)
    size = np.asarray(abs(X) @ np.abs(w)).ravel() + abs(b)
    bound = (X.shape[1] + 2) * np.finfo(np.float64).eps * size
    if margins.size and not np.all(margins > bound):
        return None
    return float(margins.min()) if margins.size else 1.0


def certificate_residual(X, y: NDArray[np.float64], alpha: NDArray[np.float64],
                         fit_intercept: bool = True) -> float:
    """Relative residual of a Farkas certificate; ``inf`` when ``alpha`` is not one.

    .. math::

        r(\\alpha) = \\frac{1}{\\sum_i \\alpha_i} \\max\\Big(\\max_j
        \\frac{|\\sum_i \\alpha_i y_i x_{ij}|}{\\max_i |x_{ij}|},\\;
        \\big|\\sum_i \\alpha_i y_i\\big|\\Big)

    over the columns that hold a non-zero: each column is judged at its own scale (the
    offset's column of ones at 1), so the test is the same at every scale of the data and
    of each feature, as separability is. The second term is present only with
    ``fit_intercept``. ``alpha`` must be ``>= 0`` with a positive sum, otherwise the
    residual is ``inf``.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    total = float(alpha.sum())
    if alpha.shape != y.shape or np.any(alpha < 0.0) or not 0.0 < total < np.inf:
        return float("inf")
    ay = alpha / total * y
    Z = scaled_columns(X).Z
    top = np.asarray(abs(Z).max(axis=0).toarray() if sp.issparse(Z) else np.abs(Z).max(axis=0)
                     if Z.shape[0] else np.ones(Z.shape[1])).ravel()
    v = np.asarray(Z.T @ ay).ravel() / top
    r = float(np.max(np.abs(v))) if v.size else 0.0
    if fit_intercept:
        r = max(r, abs(float(ay.sum())))
    return r


def separating_hyperplane(X, y: NDArray[np.float64], fit_intercept: bool = True):
    """Solve the separating LP; return ``(w, b)`` with ``min_i y_i(<w,x_i>+b) >= 1``, or None.

    ``None`` means HiGHS proved the LP infeasible (the data is not strictly separable), or
    its answer failed :func:`verified_margin`. The LP runs on :func:`scaled_columns` with
    the objective ``||w||_1`` written in its variables (weights ``2^-e_j``, those below
    ``2^-40`` of the largest raised to it). The returned ``(w, b)`` is rescaled so that the
    smallest functional margin is at least one in floating point (HiGHS meets constraints
    to about 1e-7 only); ``b`` is 0.0 without an offset.
    """
    n = X.shape[0]
    scaled = scaled_columns(X)
    Z, d = scaled.Z, scaled.cols.size
    YX = _signed_rows(Z, y)
    if sp.issparse(Z):
        blocks = [-YX, YX] + ([sp.csr_matrix(-y[:, None])] if fit_intercept else [])
        A_ub = sp.hstack(blocks, format="csc")
    else:
        blocks = [-YX, YX] + ([-y[:, None]] if fit_intercept else [])
        A_ub = np.hstack(blocks)
    cost = np.ldexp(1.0, np.minimum(scaled.e.min() - scaled.e, 0)) if d else np.ones(0)
    cost = np.maximum(cost, 2.0**-40)
    c = np.concatenate([cost, cost, np.zeros(int(fit_intercept))])
    if c.size == 0:  # all-zero data through the origin: every margin is 0
        return None
    bounds = [(0.0, None)] * (2 * d) + [(None, None)] * int(fit_intercept)
    sol = _linprog("separating LP", c, A_ub=A_ub, b_ub=-np.ones(n), bounds=bounds)
    if sol is None:
        return None
    w = sol[:d] - sol[d : 2 * d]
    b = float(sol[2 * d]) if fit_intercept else 0.0
    low = verified_margin(Z, y, w, b)
    if low is None:
        return None  # HiGHS' answer does not provably separate: let the Farkas LP decide
    if low < 1.0:
        w, b = w / low, b / low
    w = scaled.weights(w)
    return (w, b) if np.all(np.isfinite(w)) else None


def farkas_certificate(X, y: NDArray[np.float64], fit_intercept: bool = True):
    """Solve the Farkas alternative LP; return a verified ``alpha`` (sum 1), or None.

    The LP is solved by HiGHS' simplex on :func:`scaled_columns` (the same alternative), so
    ``alpha`` is a vertex: by Caratheodory it puts weight on at most ``d + 2`` rows
    (``d + 1`` without an offset). It is then polished on its support (the exact null
    vector of the support's columns, when that is positive), tiny entries are zeroed, and
    it is returned only if :func:`certificate_residual` is at most ``CERTIFICATE_RTOL``.
    """
    n = X.shape[0]
    YX = _signed_rows(scaled_columns(X).Z, y)
    rows = [YX.T] + ([y[None, :]] if fit_intercept else [])
    if sp.issparse(X):
        M = sp.vstack([sp.csr_matrix(r) for r in rows], format="csr")
        A_eq = sp.vstack([M, sp.csr_matrix(np.ones((1, n)))], format="csc")
    else:
        M = np.vstack(rows)
        A_eq = np.vstack([M, np.ones((1, n))])
    b_eq = np.zeros(A_eq.shape[0])
    b_eq[-1] = 1.0
    alpha = _linprog("Farkas certificate LP", np.zeros(n), A_eq=A_eq, b_eq=b_eq,
                     bounds=[(0.0, None)] * n)
    if alpha is None:
        return None
    alpha = _clean(alpha)
    if alpha is None:
        return None
    alpha = _polish(M, alpha, X, y, fit_intercept)
    if certificate_residual(X, y, alpha, fit_intercept) > CERTIFICATE_RTOL:
        return None
    return alpha


def _clean(alpha: NDArray[np.float64]):
    """Zero the entries below 1e-12 of the largest (and any negative ones); sum to one."""
    top = float(np.max(alpha)) if alpha.size else 0.0
    if not top > 0.0:
        return None
    alpha = np.where(alpha > 1e-12 * top, alpha, 0.0)
    return alpha / alpha.sum()


def _polish(M, alpha, X, y, fit_intercept):
    """Replace ``alpha`` on its support S by the null vector of ``M[:, S]`` if that is better.

    At a simplex vertex the columns of ``[M; 1]`` on S are independent, so ``M[:, S]`` has a
    one-dimensional null space; when its generator is positive it is the exact certificate.
    """
    S = np.flatnonzero(alpha)
    if S.size * M.shape[0] > 5_000_000:
        return alpha  # too large to densify; the LP answer is verified as it is
    MS = M[:, S].toarray() if sp.issparse(M) else M[:, S]
    _, _, vt = np.linalg.svd(MS, full_matrices=True)
    v = vt[-1]
    v = v if v.sum() > 0 else -v
    if not np.all(v > 0):
        return alpha
    polished = np.zeros_like(alpha)
    polished[S] = v / v.sum()
    if (certificate_residual(X, y, polished, fit_intercept)
            <= certificate_residual(X, y, alpha, fit_intercept)):
        return polished
    return alpha


def least_violation_hyperplane(X, y: NDArray[np.float64], fit_intercept: bool = True,
                               sample_weight: NDArray[np.float64] | None = None):
    """Solve the least-violation LP; return ``(w, b, xi)``.

    Minimises the total slack ``sum_i s_i xi_i`` (the sum of hinge losses
    ``max(0, 1 - y_i(<w,x_i>+b))`` weighted by ``sample_weight``, ``s_i > 0``, all 1 when
    None; unregularised): zero exactly when the data is separable. Solved on
    :func:`scaled_columns`.
    """
    n = X.shape[0]
    scaled = scaled_columns(X)
    d = scaled.cols.size
    YX = _signed_rows(scaled.Z, y)
    eye = sp.identity(n, format="csr")
    off = [sp.csr_matrix(-y[:, None])] if fit_intercept else []
    A_ub = sp.hstack([sp.csr_matrix(-YX), sp.csr_matrix(YX)] + off + [-eye], format="csc")
    s = np.ones(n) if sample_weight is None else sample_weight
    c = np.concatenate([np.zeros(2 * d + int(fit_intercept)), s])
    bounds = ([(0.0, None)] * (2 * d) + [(None, None)] * int(fit_intercept)
              + [(0.0, None)] * n)
    sol = _linprog("least-violation LP", c, A_ub=A_ub, b_ub=-np.ones(n), bounds=bounds)
    if sol is None:  # pragma: no cover - xi large enough is always feasible
        raise RuntimeError("HiGHS reported the least-violation LP infeasible, which it is not.")
    w = scaled.weights(sol[:d] - sol[d : 2 * d])
    b = float(sol[2 * d]) if fit_intercept else 0.0
    xi = np.maximum(0.0, 1.0 - y * (np.asarray(X @ w).ravel() + b))
    return w, b, xi


def describe_rows(rows: NDArray[np.intp], first: int = 10) -> str:
    """``'rows [0, 3, 5] (3 rows)'`` or ``'rows [0, 1, ...] and 12 more (22 rows)'``."""
    shown = ", ".join(str(int(i)) for i in rows[:first])
    more = f" and {rows.size - first} more" if rows.size > first else ""
    return f"rows [{shown}]{more} ({rows.size} row{'s' if rows.size != 1 else ''})"


def separate_or_certify(X, y: NDArray[np.float64], fit_intercept: bool = True, *,
                        owner: str = "halfspaces", problem: str = "the data", hint: str = "",
                        features: str = "x_i"):
    """Return ``(w, b)`` from the separating LP, or raise NotSeparableError with a certificate.

    ``owner`` and ``problem`` name the caller and the binary problem in the message; ``hint``
    is appended (how to fix it). ``features`` names the rows in the message: a kernel's Gram
    matrix ``K`` passed as ``X`` certifies ``sum_i alpha_i y_i phi(x_i) = 0`` (``K`` is
    positive semi-definite, so ``K (alpha * y) = 0`` exactly when that vector is zero).
    """
    sep = separating_hyperplane(X, y, fit_intercept)
    if sep is not None:
        return sep
    alpha = farkas_certificate(X, y, fit_intercept)
    if alpha is None:
        raise RuntimeError(
            f"{owner}: HiGHS found no separator for {problem}, but the Farkas certificate LP"
            " gave no verified certificate either (the data is numerically at the boundary"
            " of separability). Rescale the features or remove near-duplicate rows."
        )
    raise not_separable_error(alpha, fit_intercept, owner=owner, problem=problem, hint=hint,
                              residual=certificate_residual(X, y, alpha, fit_intercept),
                              features=features)


def over_rows(alpha: NDArray[np.float64], kept: NDArray[np.intp], n: int
              ) -> NDArray[np.float64]:
    """A certificate ``alpha`` over the ``kept`` rows of ``n`` (those of positive weight) as a
    vector over all ``n`` rows."""
    full = np.zeros(n)
    full[kept] = alpha
    return full


def error_over_rows(err: NotSeparableError, kept: NDArray[np.intp], n: int
                    ) -> NotSeparableError:
    """``err``, raised on the ``kept`` rows of ``n``, with its certificate and the rows its
    message names over all ``n`` rows (the data as given)."""
    message = str(err).replace(describe_rows(err.rows), describe_rows(kept[err.rows]), 1)
    return NotSeparableError(message, over_rows(err.certificate, kept, n),
                             residual=err.residual)


def not_separable_error(alpha: NDArray[np.float64], fit_intercept: bool, *, owner: str,
                        problem: str, hint: str = "", residual: float | None = None,
                        features: str = "x_i") -> NotSeparableError:
    """Build the NotSeparableError naming the rows of the certificate ``alpha`` (and its
    relative ``residual``, see :func:`certificate_residual`, when given)."""
    rows = np.flatnonzero(alpha > 0)
    offset = " with an offset" if fit_intercept else " through the origin"
    sums = f"sum_i alpha_i y_i {features} = 0" + (
        " and sum_i alpha_i y_i = 0" if fit_intercept else "")
    checked = "" if residual is None else f"; relative residual {residual:.1e}"
    message = (
        f"{owner}: {problem} is not linearly separable{offset}: the Farkas certificate"
        f" alpha >= 0 with {sums} puts weight on {describe_rows(rows)} (see .certificate"
        f"{checked})."
    )
    if hint:
        message += f" {hint}"
    return NotSeparableError(message, alpha, residual=residual)
