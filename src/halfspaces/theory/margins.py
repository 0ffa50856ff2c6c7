"""Margins and radius of a labelled sample with respect to a halfspace.

For a halfspace ``(w, b)`` and an example ``(x_i, y_i)`` with ``y_i in {-1, +1}``:

    functional margin  y_i (<w, x_i> + b)                       (positive: classified right)
    geometric margin   min_i y_i (<w, x_i> + b) / ||w||          (signed distance to the plane
                                                                   of the closest example)
    radius             R = max_i ||x_i||                         (of the ball around the origin)

These are the quantities of Novikoff's theorem: if ``||x_i|| <= R`` and some unit ``u`` has
``y_i <u, x_i> >= gamma > 0`` for every ``i``, the perceptron makes at most ``(R/gamma)^2``
mistakes. Pure NumPy/SciPy; ``X`` may be dense or any SciPy sparse matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.extmath import safe_sparse_dot

from .._validation import check_X, param_error


def _as_X(owner: str, X: ArrayLike):
    # Everything is computed in float64: squares and dot products of integer (or float32)
    # entries overflow in their own dtype (50000**2 wraps around in int32).
    if sp.issparse(X):
        if X.dtype.kind not in "fiub":
            raise param_error(owner, "X", "a numeric matrix", X.dtype)
        return sp.csr_matrix(check_X(owner, X, accept_sparse="csr", dtype=np.float64))
    X = np.asarray(X)
    if X.ndim != 2 or X.dtype.kind not in "fiub":
        raise param_error(owner, "X", "a 2-D numeric array of shape (n_samples, n_features)",
                          f"an array of shape {X.shape} and dtype {X.dtype}")
    return X.astype(np.float64, copy=False)


def _as_w(owner: str, w: ArrayLike, n_features: int) -> NDArray[np.float64]:
    w = np.asarray(w, dtype=np.float64)
    if w.ndim == 2 and w.shape[0] == 1:  # an estimator's coef_ of shape (1, d)
        w = w[0]
    if w.ndim != 1 or w.shape[0] != n_features:
        raise param_error(owner, "w", f"a vector of length n_features={n_features}",
                          f"an array of shape {w.shape}",
                          "Pass clf.coef_[0] (or clf.coef_ for a binary estimator).")
    return w


def _as_y(owner: str, y: ArrayLike, n_samples: int) -> NDArray[np.float64]:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise param_error(owner, "y", f"a 1-D label vector of length {n_samples}",
                          f"an array of shape {y.shape}")
    bad = ~np.isin(y, (-1, 1))
    if bad.any():
        raise param_error(owner, "y", "labels in {-1, +1}", np.unique(y[bad])[:5].tolist(),
                          "Encode two labels as -1/+1 first, e.g. np.where(y == pos, 1, -1).")
    return y.astype(np.float64)


def functional_margins(w: ArrayLike, X: ArrayLike, y: ArrayLike, b: float = 0.0
                       ) -> NDArray[np.float64]:
    """Functional margins ``y_i (<w, x_i> + b)`` of every example.

    Parameters
    ----------
    w : array-like of shape (n_features,) or (1, n_features)
        Normal vector of the halfspace (an estimator's ``coef_`` is accepted).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1} (other encodings are refused rather than guessed).
    b : float, default=0.0
        Offset of the halfspace.

    Returns
    -------
    margins : ndarray of shape (n_samples,)
        Positive where the example is on its correct side, ``<= 0`` for a mistake.

    Notes
    -----
    .. math::  \\hat\\gamma_i = y_i(\\langle w, x_i\\rangle + b)

    Examples
    --------
    >>> functional_margins([1.0, 0.0], [[2.0, 5.0], [-1.0, 3.0]], [1, -1], b=0.5)
    array([2.5, 0.5])
    """
    owner = "functional_margins"
    X = _as_X(owner, X)
    w = _as_w(owner, w, X.shape[1])
    y = _as_y(owner, y, X.shape[0])
    b = float(b)
    if not np.isfinite(b):
        raise param_error(owner, "b", "a finite float", b)
    scores = np.asarray(safe_sparse_dot(X, w, dense_output=True), dtype=np.float64).ravel()
    return y * (scores + b)


def geometric_margin(w: ArrayLike, X: ArrayLike, y: ArrayLike, b: float = 0.0) -> float:
    """Geometric margin of a sample: the smallest signed distance to the hyperplane.

    Parameters
    ----------
    w : array-like of shape (n_features,) or (1, n_features)
        Normal vector, not zero.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    b : float, default=0.0
        Offset.

    Returns
    -------
    gamma : float
        ``min_i y_i (<w, x_i> + b) / ||w||``; positive exactly when ``(w, b)`` separates the
        sample, and then it is the margin that Novikoff's bound uses (for ``b = 0``).
        It is unchanged when ``(w, b)`` is rescaled by any ``c > 0``.

    Notes
    -----
    .. math::  \\gamma = \\min_i \\frac{y_i(\\langle w, x_i\\rangle + b)}{\\lVert w \\rVert}

    Examples
    --------
    >>> geometric_margin([3.0, 4.0], [[1.0, 1.0], [-1.0, 0.0]], [1, -1])
    0.6
    """
    owner = "geometric_margin"
    X = _as_X(owner, X)
    w = _as_w(owner, w, X.shape[1])
    norm = float(np.linalg.norm(w))
    if not norm > 0.0 or not np.isfinite(norm):
        raise param_error(owner, "w", "a finite nonzero vector (the margin divides by ||w||)",
                          f"||w|| = {norm}")
    if X.shape[0] == 0:
        raise param_error(owner, "X", "a sample with at least one row", "0 rows")
    return float(np.min(functional_margins(w, X, y, b)) / norm)


def data_radius(X: ArrayLike) -> float:
    """Radius of the data: the largest Euclidean norm of a row, ``R = max_i ||x_i||``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    R : float
        0.0 for a sample with no rows.

    Examples
    --------
    >>> data_radius([[3.0, 4.0], [1.0, 0.0]])
    5.0
    """
    X = _as_X("data_radius", X)
    if X.shape[0] == 0:
        return 0.0
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        return float(np.sqrt(sq.max()))
    return float(np.sqrt(np.einsum("ij,ij->i", X, X).max()))
