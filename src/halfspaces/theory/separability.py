"""Linear separability, decided and certified, and the max-margin (hard-margin SVM) separator.

Labels ``y_i in {-1, +1}``. The data is *linearly separable* when some ``(w, b)`` has
``y_i (<w, x_i> + b) > 0`` for every ``i`` (strictly: a point on the hyperplane is a
mistake); rescaling turns this into ``y_i (<w, x_i> + b) >= 1``. By Farkas' lemma exactly one
of these holds:

    (w, b) with y_i (<w, x_i> + b) >= 1 for all i
    alpha >= 0, alpha != 0 with sum_i alpha_i y_i x_i = 0  (and sum_i alpha_i y_i = 0 with b)

The first is found by the separating LP, the second by the Farkas LP
(:mod:`halfspaces.solvers.lp`). The max-margin separator is the hard-margin SVM QP
(:func:`halfspaces.solvers.qp.svm_primal_qp` with ``C = inf``, solved by Clarabel).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._validation import check_scalar, check_X
from ..exceptions import InexactMarginWarning
from ..solvers.lp import farkas_certificate, separate_or_certify, separating_hyperplane

__all__ = ["SeparabilityResult", "is_linearly_separable", "max_margin_separator"]


@dataclass(frozen=True)
class SeparabilityResult:
    """The answer of :func:`is_linearly_separable`, with its proof either way.

    Attributes
    ----------
    separable : bool
        Whether some halfspace classifies every row correctly (strictly).
    w : ndarray of shape (n_features,) or None
        A separator with ``min_i y_i (<w, x_i> + b) >= 1`` (the L1-minimal one), if separable.
    b : float or None
        Its offset (0.0 when ``fit_intercept=False``), if separable.
    certificate : ndarray of shape (n_samples,) or None
        If not separable, ``alpha >= 0`` with ``sum(alpha) = 1``,
        ``sum_i alpha_i y_i x_i = 0`` (and ``sum_i alpha_i y_i = 0`` with an offset).
    rows : ndarray of int or None
        The rows where ``alpha > 0``: a subset of the data that is already not separable.

    ``bool(result)`` is ``result.separable``.
    """

    separable: bool
    w: NDArray[np.float64] | None = None
    b: float | None = None
    certificate: NDArray[np.float64] | None = None
    rows: NDArray[np.intp] | None = None

    def __bool__(self) -> bool:
        return bool(self.separable)


def _pm_labels(owner: str, y: ArrayLike, n: int) -> NDArray[np.float64]:
    """Labels as float {-1, +1}: kept if already in {-1, +1}, else two labels, sorted."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"{owner}: y must be a 1-D array with one label per row of X ({n}); got shape"
            f" {y.shape}."
        )
    labels = np.unique(y)
    if y.dtype.kind in "biuf" and np.all(np.isin(labels, (-1, 1))):
        return y.astype(np.float64)
    if labels.size != 2:
        raise ValueError(
            f"{owner}: y must hold labels in {{-1, +1}} or exactly two distinct labels; got"
            f" {labels.size} distinct labels {labels.tolist()[:5]}. For more classes, test"
            " each class against the rest."
        )
    return np.where(y == labels[1], 1.0, -1.0)


def _check_X_y(owner: str, X: ArrayLike, y: ArrayLike, fit_intercept):
    check_scalar(owner, "fit_intercept", fit_intercept, kind=(bool, np.bool_))
    X = check_X(owner, X, accept_sparse="csr", dtype=np.float64, order="C",
                ensure_min_samples=1)
    return X, _pm_labels(owner, y, X.shape[0])


def is_linearly_separable(X: ArrayLike, y: ArrayLike,
                          fit_intercept: bool = True) -> SeparabilityResult:
    """Decide whether a halfspace separates ``(X, y)``, returning a separator or a proof.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two labels (the larger one, in sorted order, is +1).
    fit_intercept : bool, default=True
        Allow an offset ``b``; with False the hyperplane must pass through the origin.

    Returns
    -------
    SeparabilityResult
        Truthy when separable; holds ``w, b`` or the Farkas ``certificate`` and its ``rows``.

    Notes
    -----
    Exactly one of the two systems has a solution (Farkas' lemma):

    .. math::

        \\exists (w, b):\\; y_i(\\langle w, x_i\\rangle + b) \\ge 1 \\;\\forall i
        \\qquad\\text{or}\\qquad
        \\exists \\alpha \\ge 0,\\, \\alpha \\ne 0:\\;
        \\sum_i \\alpha_i y_i x_i = 0,\\; \\sum_i \\alpha_i y_i = 0 .

    (Without an offset, drop ``b`` and the second sum.) The second system proves
    non-separability: for any :math:`(w, b)`,
    :math:`\\sum_i \\alpha_i y_i(\\langle w, x_i\\rangle + b) = 0`, so some row with
    :math:`\\alpha_i > 0` has a non-positive functional margin. Both systems are solved as
    LPs by HiGHS; the separator is the L1-minimal one and the certificate a vertex of the
    Farkas polytope (at most ``d + 2`` rows), verified to a relative residual of
    ``1e-8`` of the data scale.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> res = is_linearly_separable(X, [1, 1, -1, -1])      # XOR
    >>> bool(res), res.rows, res.certificate
    (False, array([0, 1, 2, 3]), array([0.25, 0.25, 0.25, 0.25]))
    >>> res = is_linearly_separable(X, [1, 1, 1, -1])
    >>> bool(res), res.w, res.b
    (True, array([-2.,  2.]), 1.0)
    """
    owner = "is_linearly_separable"
    X, y = _check_X_y(owner, X, y, fit_intercept)
    fit_b = bool(fit_intercept)
    sep = separating_hyperplane(X, y, fit_b)
    if sep is not None:
        w, b = sep
        return SeparabilityResult(True, w, float(b))
    alpha = farkas_certificate(X, y, fit_b)
    if alpha is None:
        raise RuntimeError(
            f"{owner}: HiGHS found no separator, but the Farkas certificate LP gave no verified"
            " certificate either (the data is numerically at the boundary of separability)."
            " Rescale the features or remove near-duplicate rows."
        )
    return SeparabilityResult(False, certificate=alpha, rows=np.flatnonzero(alpha > 0))


def max_margin_separator(X: ArrayLike, y: ArrayLike,
                         fit_intercept: bool = True) -> tuple[NDArray[np.float64], float, float]:
    """The hard-margin SVM: the separator of largest geometric margin, and that margin.

    Parameters
    ----------
    X, y
        As for :func:`is_linearly_separable`.
    fit_intercept : bool, default=True
        Allow an (unregularized) offset ``b``.

    Returns
    -------
    w : ndarray of shape (n_features,)
        The SVM's weight vector, scaled so that ``min_i y_i (<w, x_i> + b) = 1``.
    b : float
        Its offset (0.0 when ``fit_intercept=False``).
    margin : float
        The geometric margin ``1 / ||w||``: the distance from the hyperplane to the closest
        point. ``(w / ||w||, b / ||w||)`` is the unit-norm form, whose smallest functional
        margin is ``margin``. ``inf`` when ``w = 0`` (one class only, with an offset).

    Raises
    ------
    NotSeparableError
        When no halfspace separates the data; ``certificate`` is the Farkas vector.

    Warns
    -----
    InexactMarginWarning
        When the QP could not be solved to a certified optimum: ``(w, b)`` is then the
        separating LP's separator and ``margin`` its margin, a lower bound of the maximum.

    Notes
    -----
    .. math::

        \\min_{w, b} \\tfrac12 \\|w\\|^2 \\quad\\text{s.t.}\\quad
        y_i(\\langle w, x_i\\rangle + b) \\ge 1, \\qquad
        \\gamma = \\frac{1}{\\|w^\\star\\|}
        = \\max_{\\|u\\| = 1,\\, c}\\; \\min_i y_i(\\langle u, x_i\\rangle + c).

    Separability is decided first by the LPs of :func:`is_linearly_separable`; the QP is
    then solved by Clarabel (interior point, through
    :func:`halfspaces.solvers.qp.svm_primal_qp` with ``C = inf``) in the variables
    ``u = w / D``, ``D = diag(1 / max_i |x_ij|)``: the same problem, ``min u^T D^2 u``
    subject to ``y_i (<u, D x_i> + b) >= 1``, on columns of comparable size (unscaled
    features, from 1e-3 to 1e4, otherwise make the solver declare separable data
    infeasible). Its answer is mapped back, rescaled so that the smallest functional margin
    on the data is exactly one, and checked against the dual: with the solver's multipliers
    ``alpha >= 0`` (with ``sum_i alpha_i y_i = 0`` restored for the offset), weak duality gives

    .. math::

        g(\\alpha) = \\sum_i \\alpha_i
        - \\tfrac12 \\Big\\|\\sum_i \\alpha_i y_i x_i\\Big\\|^2
        \\le \\tfrac12 \\|w^\\star\\|^2 \\le \\tfrac12 \\|w\\|^2 ,

    and the QP's answer is the maximum when the relative gap is at most ``GAP_RTOL``. Of it
    and the LP's separator (both verified), the one of larger margin is returned: the margin
    of an actual separator, never more than the maximum. When the gap is larger, or the
    solver fails, an :class:`~halfspaces.exceptions.InexactMarginWarning` says that this
    margin is only a lower bound of the maximum.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [3.0, 1.0]])
    >>> w, b, margin = max_margin_separator(X, [-1, 1, 1])
    >>> np.round(w, 6) + 0.0, round(b, 6), round(margin, 6)
    (array([1., 0.]), -1.0, 1.0)
    """
    owner = "max_margin_separator"
    X, y = _check_X_y(owner, X, y, fit_intercept)
    w, b, margin, _ = max_margin(X, y, bool(fit_intercept), owner=owner)
    return w, b, margin


#: Relative duality gap ``(p - g) / p`` below which the QP's answer is the maximum margin
#: (``exact``): the true maximum is then at most ``1 / sqrt(1 - GAP_RTOL)`` times it.
GAP_RTOL = 1e-6


def _normalized(X, y: NDArray[np.float64], w: NDArray[np.float64], b: float):
    """``(w, b) / min_i y_i (<w, x_i> + b)``, or None when that minimum is not positive
    (or not finite)."""
    low = float(np.min(y * (np.asarray(X @ w).ravel() + b)))
    return (w / low, b / low) if 0.0 < low < np.inf else None


def _relative_gap(X, y: NDArray[np.float64], alpha: NDArray[np.float64],
                  w: NDArray[np.float64], fit_b: bool) -> float:
    """``(p - g(alpha)) / p`` for ``p = ||w||^2 / 2`` (``w`` feasible) and the dual function
    ``g`` at ``alpha`` clipped to ``>= 0`` (with ``fit_b``, the larger class's weights scaled
    down so that ``sum_i alpha_i y_i = 0``, where ``g`` is finite)."""
    alpha = np.maximum(np.asarray(alpha, dtype=np.float64), 0.0)
    if fit_b:
        pos, neg = float(alpha[y > 0].sum()), float(alpha[y < 0].sum())
        if not (pos > 0.0 and neg > 0.0):
            return 1.0
        alpha = alpha * np.where(y > 0, min(pos, neg) / pos, min(pos, neg) / neg)
    v = np.asarray(X.T @ (alpha * y)).ravel()
    p = 0.5 * float(w @ w)
    return (p - (float(alpha.sum()) - 0.5 * float(v @ v))) / p


def max_margin(X, y: NDArray[np.float64], fit_b: bool, *, owner: str):
    """``(w, b, margin, exact)`` of :func:`max_margin_separator` on checked ``X`` and labels
    ``y`` in {-1, +1}; ``exact`` is False (with an ``InexactMarginWarning``) when ``margin``
    is only a verified lower bound of the maximum margin."""
    from ..solvers.qp import svm_primal_qp

    sep = separate_or_certify(X, y, fit_b, owner=owner, problem="the data",
                              hint="The max-margin separator exists only for separable data;"
                                   " use a soft-margin SVC for the rest.")
    if fit_b and np.all(y == y[0]):  # one class: the hyperplane can recede to infinity
        return np.zeros(X.shape[1]), float(y[0]), float("inf"), True
    # Clarabel's tolerances are absolute. Solve on X t, t = ||w_LP||, whose optimal objective
    # ||w*||^2 / t^2 is at most one (and the multipliers alpha t^2 of order one), with every
    # column scaled to max |x_ij| = 1 (an exact change of variables, mapped back by
    # svm_primal_qp); then w = t w'.
    t = float(np.linalg.norm(sep[0]))
    Xt = X * t
    top = np.asarray(abs(Xt).max(axis=0).toarray() if sp.issparse(X) else np.abs(Xt).max(axis=0),
                     dtype=np.float64).ravel()
    res = svm_primal_qp(Xt, y, np.inf, fit_intercept=fit_b,
                        col_scale=1.0 / np.where(top > 0.0, top, 1.0))
    qp, gap = None, float("nan")
    if res.status == "solved":
        qp = _normalized(X, y, t * np.asarray(res.theta, dtype=np.float64), float(res.theta_0))
    if qp is not None:  # the relative gap is the same on X t with w / t
        gap = _relative_gap(Xt, y, res.alpha, qp[0] / t, fit_b)
    exact = gap <= GAP_RTOL
    # The LP's separator is verified too: keep the one of larger margin (smaller norm). With
    # a small gap both are within it of the maximum (the LP's can win by rounding).
    lp = _normalized(X, y, *sep)
    best = qp if qp is not None and qp[0] @ qp[0] <= lp[0] @ lp[0] else lp
    w, b = best
    norm = float(np.linalg.norm(w))
    margin = 1.0 / norm if norm > 0.0 else float("inf")
    if not exact:
        why = (f"stopped with status {res.status!r}" if res.status != "solved" else
               "gave no separator" if qp is None else
               f"stopped at a relative duality gap of {gap:.1e} (above {GAP_RTOL:g})")
        warnings.warn(InexactMarginWarning(
            f"{owner}: the hard-margin QP (Clarabel) {why} on data that the separating LP"
            f" proves separable; using the {'QP' if best is qp else 'LP'}'s verified separator,"
            f" whose margin {margin:.6g} is a lower bound of the maximum margin (a mistake"
            " bound (R/margin)^2 from it is valid, only looser). Standardizing the features"
            " may let the QP finish."), stacklevel=3)
    return w, float(b), margin, exact
