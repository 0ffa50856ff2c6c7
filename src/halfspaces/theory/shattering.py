"""Shattering by halfspaces and the VC dimension ``d + 1`` (Radon's theorem).

A set of ``m`` points is *shattered* when every labelling ``y in {-1, +1}^m`` is linearly
separable. Labelling ``y`` is separable iff ``-y`` is (negate ``(w, b)``), so only the
``2^(m-1)`` labellings with ``y_1 = +1`` need checking.

    VCdim(halfspaces in R^d with an offset) = d + 1:
      d + 1 affinely independent points are shattered (solve [X 1] (w, b) = y exactly);
      no d + 2 points are (Radon: they split into I, J with conv(I) and conv(J) meeting).
    Through the origin the VC dimension is d (linear instead of affine independence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_array

from .._validation import check_choice, check_scalar
from ..solvers.lp import certificate_residual, farkas_certificate, separating_hyperplane

__all__ = ["RadonPartition", "ShatterResult", "radon_partition", "shatters"]

#: Most points ``shatters(method="lp")`` accepts: it solves up to ``2^(m-1)`` LPs.
MAX_POINTS_LP = 20


@dataclass(frozen=True)
class ShatterResult:
    """The answer of :func:`shatters`.

    Attributes
    ----------
    shattered : bool
        Whether every labelling of the points is linearly separable.
    failing_labelling : ndarray of float in {-1, +1}, shape (m,), or None
        A labelling no halfspace realizes (None when shattered).
    certificate : ndarray of shape (m,) or None
        Its Farkas certificate: ``alpha >= 0``, ``sum(alpha) = 1``,
        ``sum_i alpha_i y_i x_i = 0`` (and ``sum_i alpha_i y_i = 0`` with an offset).
    n_labellings_checked : int
        How many labellings were decided by an LP (0 for ``method="rank"``).

    ``bool(result)`` is ``result.shattered``.
    """

    shattered: bool
    failing_labelling: NDArray[np.float64] | None
    certificate: NDArray[np.float64] | None
    n_labellings_checked: int

    def __bool__(self) -> bool:
        return bool(self.shattered)


class RadonPartition(NamedTuple):
    """A Radon partition: ``point`` lies in the convex hulls of both index sets.

    ``weights`` is the affine dependence ``lambda`` (``sum_i lambda_i x_i = 0``,
    ``sum_i lambda_i = 0``) scaled so that its positive part sums to one; ``positive`` are
    the rows with ``lambda_i >= 0``, ``negative`` those with ``lambda_i < 0``, and
    ``labels`` is ``+1`` on ``positive``, ``-1`` on ``negative``: a labelling no halfspace
    realizes.
    """

    positive: NDArray[np.intp]
    negative: NDArray[np.intp]
    point: NDArray[np.float64]
    weights: NDArray[np.float64]
    labels: NDArray[np.float64]


def _check_points(owner: str, points: ArrayLike) -> NDArray[np.float64]:
    return check_array(points, dtype=np.float64, ensure_min_samples=0, input_name="points")


def _dependence(A: NDArray[np.float64]):
    """A unit null vector ``lam`` of ``A.T`` (``lam @ A = 0``), or None if ``A`` has full row rank.

    ``A`` is ``(m, k)``; rank is decided by the SVD with NumPy's default tolerance.
    """
    m, k = A.shape
    _, s, vt = np.linalg.svd(A.T, full_matrices=True)  # A.T = U S Vt, Vt: (m, m)
    tol = (s.max() if s.size else 0.0) * max(m, k) * np.finfo(np.float64).eps
    rank = int(np.sum(s > tol))
    if rank == m:
        return None
    return vt[-1]


def _labelling(lam: NDArray[np.float64]):
    """Labels sign(lam) (numerical zeros -> +1) and the certificate |lam| / sum |lam|."""
    lam = np.where(np.abs(lam) > 1e-12 * np.abs(lam).max(), lam, 0.0)
    return np.where(lam >= 0, 1.0, -1.0), np.abs(lam) / np.abs(lam).sum()


def radon_partition(points: ArrayLike) -> RadonPartition:
    """Split affinely dependent points (any ``m >= d + 2`` in ``R^d``) as Radon's theorem does.

    Parameters
    ----------
    points : array-like of shape (m, d)

    Returns
    -------
    RadonPartition
        ``positive``, ``negative`` (index arrays), ``point`` (in both convex hulls),
        ``weights`` and ``labels``.

    Raises
    ------
    ValueError
        When the points are affinely independent (then they are shattered, and no Radon
        partition exists).

    Notes
    -----
    Solve the affine dependence by the SVD of the ``(d + 1) x m`` matrix below (its null
    space is nontrivial when ``m >= d + 2``):

    .. math::

        \\sum_i \\lambda_i x_i = 0, \\quad \\sum_i \\lambda_i = 0, \\quad \\lambda \\ne 0,
        \\qquad
        p = \\sum_{\\lambda_i > 0} \\frac{\\lambda_i}{s} x_i
          = \\sum_{\\lambda_j < 0} \\frac{-\\lambda_j}{s} x_j, \\quad
        s = \\sum_{\\lambda_i > 0} \\lambda_i .

    With ``y_i = sign(lambda_i)`` the vector ``alpha = |lambda|`` satisfies
    ``sum_i alpha_i y_i x_i = 0`` and ``sum_i alpha_i y_i = 0``: the Farkas certificate
    that the labelling is not linearly separable.

    Examples
    --------
    >>> import numpy as np
    >>> square = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> part = radon_partition(square)          # the two diagonals cross at (1/2, 1/2)
    >>> sorted(map(sorted, (part.positive.tolist(), part.negative.tolist())))
    [[0, 1], [2, 3]]
    >>> part.point.round(12) + 0.0
    array([0.5, 0.5])
    """
    X = _check_points("radon_partition", points)
    m, d = X.shape
    lam = _dependence(np.hstack([X, np.ones((m, 1))]))
    if lam is None:
        raise ValueError(
            f"radon_partition: the {m} points in R^{d} are affinely independent, so no Radon"
            f" partition exists (they are shattered by halfspaces); Radon's theorem needs"
            f" m >= d + 2 = {d + 2} points, or affinely dependent ones."
        )
    labels, alpha = _labelling(lam)
    weights = labels * alpha
    weights = weights / weights[weights > 0].sum()
    positive, negative = np.flatnonzero(labels > 0), np.flatnonzero(labels < 0)
    point = np.clip(weights, 0.0, None) @ X
    return RadonPartition(positive, negative, point, weights, labels)


def shatters(points: ArrayLike, fit_intercept: bool = True, *,
             method: str = "lp") -> ShatterResult:
    """Check whether halfspaces shatter ``points`` (realize every labelling).

    Parameters
    ----------
    points : array-like of shape (m, d)
    fit_intercept : bool, default=True
        Halfspaces with an offset (VC dimension ``d + 1``); False: through the origin
        (VC dimension ``d``).
    method : {"lp", "rank"}, default="lp"
        ``"lp"`` applies the definition: it decides the ``2^(m-1)`` labellings with
        ``y_1 = +1`` one LP each (:func:`is_linearly_separable`'s LPs), stopping at the
        first that fails (``m <= 20``). ``"rank"`` uses the theorem instead: the points are
        shattered iff ``[X, 1]`` (``X`` without an offset) has full row rank ``m``;
        otherwise the dependence gives the failing labelling (Radon's).

    Returns
    -------
    ShatterResult
        Truthy when shattered; otherwise holds a failing labelling and its certificate.

    Notes
    -----
    Labellings are visited in binary order of the bits ``[y_2 .. y_m] == -1`` (the
    all-positive labelling first). Since ``y`` is separable iff ``-y`` is, the labellings
    with ``y_1 = -1`` need no LP. Each failure is proved by the Farkas certificate

    .. math::

        \\alpha \\ge 0,\\; \\textstyle\\sum_i \\alpha_i = 1,\\;
        \\sum_i \\alpha_i y_i x_i = 0,\\; \\sum_i \\alpha_i y_i = 0 .

    Examples
    --------
    ``d + 1 = 3`` points in general position in the plane are shattered; no ``d + 2 = 4``
    points are (here the Radon labelling of the square: the two diagonals):

    >>> import numpy as np
    >>> triangle = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> res = shatters(triangle)
    >>> bool(res), res.n_labellings_checked
    (True, 4)
    >>> square = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> res = shatters(square)
    >>> bool(res), res.failing_labelling, res.certificate
    (False, array([ 1.,  1., -1., -1.]), array([0.25, 0.25, 0.25, 0.25]))
    >>> bool(shatters(triangle, fit_intercept=False))   # VCdim through the origin is d = 2
    False
    """
    owner = "shatters"
    check_scalar(owner, "fit_intercept", fit_intercept, kind=(bool, np.bool_))
    check_choice(owner, "method", method, ("lp", "rank"))
    X = _check_points(owner, points)
    m = X.shape[0]
    fit_b = bool(fit_intercept)
    if m == 0:
        return ShatterResult(True, None, None, 0)
    if method == "rank":
        A = np.hstack([X, np.ones((m, 1))]) if fit_b else X
        lam = _dependence(A)
        if lam is None:
            return ShatterResult(True, None, None, 0)
        labels, alpha = _labelling(lam)
        if certificate_residual(X, labels, alpha, fit_b) > 1e-8:  # pragma: no cover
            raise RuntimeError(f"{owner}: the dependence of the points is numerically"
                               " unreliable; rescale the points and try again.")
        return ShatterResult(False, labels, alpha, 0)
    if m > MAX_POINTS_LP:
        raise ValueError(
            f"{owner}: method='lp' solves up to 2^(m-1) LPs and accepts at most"
            f" {MAX_POINTS_LP} points; got m={m}. Use method='rank' (the exact rank test)."
        )
    bits = np.arange(m - 1)
    for k in range(2 ** (m - 1)):
        y = np.ones(m)
        y[1:] = np.where((k >> bits) & 1, -1.0, 1.0)
        if separating_hyperplane(X, y, fit_b) is not None:
            continue
        alpha = farkas_certificate(X, y, fit_b)
        if alpha is None:
            raise RuntimeError(
                f"{owner}: labelling {y.astype(int).tolist()} has no LP separator but no"
                " verified Farkas certificate either (points numerically degenerate)."
                " Rescale the points and try again."
            )
        return ShatterResult(False, y, alpha, k + 1)
    return ShatterResult(True, None, None, 2 ** (m - 1))
