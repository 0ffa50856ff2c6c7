"""The theory of one data set in one record: radius, separability, margins, bounds, VC dimension.

    radius         R = max_i ||x_i||
    separable      some (w, b) has y_i (<w, x_i> + b) > 0 for every i (by LP), or the rows
                   of a Farkas certificate that none does
    max margin     gamma = max_{||w|| = 1} min_i y_i (<w, x_i> + b)  (the hard-margin SVM)
    perceptron     Novikoff's (R/gamma)^2 and the margin-one R^2 ||w*||^2 in the perceptron's
                   own setting (with an offset: R' and gamma' of the points (x, 1)),
                   from :func:`~halfspaces.theory.perceptron_bound`
    VC dimension   d + 1 for halfspaces with an offset in R^d, d through the origin

:func:`bounds_report` is what the command line's ``bound``, ``play`` and ``plot mistakes``
and the demo print.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .bounds import PerceptronBound, perceptron_bound

__all__ = ["BoundsReport", "bounds_report"]


@dataclass(frozen=True)
class BoundsReport:
    """What :func:`bounds_report` found.

    Attributes
    ----------
    n_samples, n_features : int
    fit_intercept : bool
        Halfspaces with an offset ``b`` (True) or through the origin.
    radius : float
        ``R = max_i ||x_i||`` of the points themselves.
    separable : bool
        Whether a halfspace (in the ``fit_intercept`` setting) separates the data strictly.
    vc_dimension : int
        ``d + 1`` with an offset, ``d`` through the origin.
    perceptron : PerceptronBound
        Novikoff's bound in the perceptron's setting (``radius``, ``margin``, ``bound``,
        ``margin_one_bound``; ``augmented`` with an offset).
    max_margin : float or None
        The SVM's margin ``gamma`` of ``(w, b)`` with ``||w|| = 1``, if separable (None also
        when ``svm_margin=False`` with an offset).
    w, b : the max-margin separator, scaled so that ``min_i y_i (<w, x_i> + b) = 1``
        (``b = 0`` through the origin), or None
    certificate_rows : ndarray of int or None
        If not separable, rows of a Farkas certificate: already not separable on their own.
    certificate : ndarray of shape (n_samples,) or None
        If not separable, the certificate: ``alpha >= 0`` with ``sum_i alpha_i y_i x_i = 0``
        (and ``sum_i alpha_i y_i = 0`` with an offset).
    exact : bool
        False when ``max_margin`` is only the margin of a verified separator (the LP's),
        a lower bound of the maximum, because the QP could not be solved to a certified
        optimum (see :func:`~halfspaces.theory.max_margin_separator`); ``perceptron.exact``
        says the same of the perceptron's margin and bound.
    """

    n_samples: int
    n_features: int
    fit_intercept: bool
    radius: float
    separable: bool
    vc_dimension: int
    perceptron: PerceptronBound
    max_margin: float | None = None
    w: NDArray[np.float64] | None = None
    b: float | None = None
    certificate_rows: NDArray[np.intp] | None = None
    certificate: NDArray[np.float64] | None = None
    exact: bool = True

    @property
    def novikoff_bound(self) -> float | None:
        """The perceptron's mistake bound ``(R/gamma)^2`` in its setting, if separable."""
        return self.perceptron.bound


def _two_classes(y: ArrayLike) -> NDArray[np.float64]:
    y = np.asarray(y)
    labels = np.unique(y)
    if labels.size != 2:
        raise ValueError(f"bounds_report: needs exactly two classes for margins and bounds;"
                         f" got {labels.size} ({labels.tolist()[:5]}). Test one class against"
                         " the rest, e.g. y == k.")
    return np.where(y == labels[1], 1.0, -1.0)


def bounds_report(X: ArrayLike, y: ArrayLike, *, fit_intercept: bool = True,
                  svm_margin: bool = True) -> BoundsReport:
    """Radius, separability (with a certificate), max margin, mistake bounds, VC dimension.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), exactly two distinct labels
        The larger one, in sorted order, is +1.
    fit_intercept : bool, default=True
        Halfspaces with an offset, as a perceptron with ``fit_intercept=True`` learns them.
    svm_margin : bool, default=True
        With an offset, also solve the max-margin QP in ``R^d`` (the SVM's ``gamma``, ``w``,
        ``b``); False skips it when only the perceptron's bound is wanted. Through the origin
        it is the perceptron's own margin, always reported.

    Returns
    -------
    BoundsReport

    Examples
    --------
    >>> r = bounds_report(np.array([[3.0], [4.0]]), [-1, 1])
    >>> r.separable, r.radius, round(r.max_margin, 6), r.vc_dimension
    (True, 4.0, 0.5, 2)
    >>> round(r.novikoff_bound, 6)  # (R'/gamma')^2 of the points (x, 1): 17 * 53
    901.0
    >>> bounds_report(np.array([[3.0], [4.0]]), [-1, 1], fit_intercept=False).certificate_rows
    array([0, 1])
    """
    from .margins import data_radius
    from .separability import _check_X_y, max_margin

    y_pm = _two_classes(y)
    res = perceptron_bound(X, y_pm, fit_intercept=fit_intercept)
    d = int(np.shape(X)[1])
    common = dict(n_samples=int(y_pm.shape[0]), n_features=d, fit_intercept=bool(fit_intercept),
                  radius=float(data_radius(X)), separable=res.separable,
                  vc_dimension=d + 1 if fit_intercept else d, perceptron=res)
    if not res.separable:
        return BoundsReport(**common, certificate_rows=np.asarray(res.certificate_rows),
                            certificate=res.certificate)
    if not fit_intercept:  # the perceptron's gamma is the max margin, already solved
        return BoundsReport(**common, max_margin=res.margin, w=res.separator, b=0.0,
                            exact=res.exact)
    if not svm_margin:
        return BoundsReport(**common)
    X, _ = _check_X_y("bounds_report", X, y_pm, True)
    w, b, margin, exact = max_margin(X, y_pm, True, owner="bounds_report")
    return BoundsReport(**common, max_margin=float(margin), w=np.ravel(w), b=float(b),
                        exact=exact)
