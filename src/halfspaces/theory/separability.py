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

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._validation import check_scalar, check_X
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
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or any two labels (the larger one, in sorted order, is +1).
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

    Notes
    -----
    .. math::

        \\min_{w, b} \\tfrac12 \\|w\\|^2 \\quad\\text{s.t.}\\quad
        y_i(\\langle w, x_i\\rangle + b) \\ge 1, \\qquad
        \\gamma = \\frac{1}{\\|w^\\star\\|}
        = \\max_{\\|u\\| = 1,\\, c}\\; \\min_i y_i(\\langle u, x_i\\rangle + c).

    Separability is decided first by the LPs of :func:`is_linearly_separable`; the QP is
    then solved by Clarabel (interior point, through
    :func:`halfspaces.solvers.qp.svm_primal_qp` with ``C = inf``) on ``X / max|x_ij|``, and
    its answer mapped back and rescaled so that the smallest functional margin is exactly
    one.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [3.0, 1.0]])
    >>> w, b, margin = max_margin_separator(X, [-1, 1, 1])
    >>> np.round(w, 6) + 0.0, round(b, 6), round(margin, 6)
    (array([1., 0.]), -1.0, 1.0)
    """
    from ..solvers.qp import svm_primal_qp

    owner = "max_margin_separator"
    X, y = _check_X_y(owner, X, y, fit_intercept)
    fit_b = bool(fit_intercept)
    separate_or_certify(X, y, fit_b, owner=owner, problem="the data",
                        hint="The max-margin separator exists only for separable data;"
                             " use a soft-margin SVC for the rest.")
    if fit_b and np.all(y == y[0]):  # one class: the hyperplane can recede to infinity
        return np.zeros(X.shape[1]), float(y[0]), float("inf")
    # Clarabel's tolerances are absolute: solve on X / s (s = max |x_ij|), whose optimal
    # objective is of order one, and map back (w = w' / s, b = b'), an exact equivalence.
    s = float(np.max(np.abs(X.data if sp.issparse(X) else X)))
    s = s if s > 0.0 else 1.0
    res = svm_primal_qp(X / s, y, np.inf, fit_intercept=fit_b)
    if res.status != "solved":
        raise RuntimeError(
            f"{owner}: Clarabel stopped with status {res.status!r} on the hard-margin QP of"
            " separable data. Rescale the features (e.g. StandardScaler) and try again."
        )
    w, b = np.asarray(res.theta, dtype=np.float64) / s, float(res.theta_0)
    low = float(np.min(y * (np.asarray(X @ w).ravel() + b)))
    if not low > 0.0:  # pragma: no cover - the LP said separable
        raise RuntimeError(f"{owner}: the QP solution does not separate the data (min margin"
                           f" {low:g}); rescale the features and try again.")
    w, b = w / low, b / low
    norm = float(np.linalg.norm(w))
    margin = 1.0 / norm if norm > 0.0 else float("inf")
    return w, b, margin
