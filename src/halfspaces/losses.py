"""Losses on agreements and the regularized objectives built from them.

The agreement of a labelled example under the halfspace ``(theta, theta_0)`` is

    z = y (theta.x + theta_0),   y in {-1, +1}

and the losses are functions of ``z`` alone:

    zero-one   L(z) = 1 if z <= 0 else 0          (a tie counts as a mistake)
    hinge      L(z) = max(0, 1 - z)
    squared    L(z) = max(0, 1 - z)^2               (the L2-SVM loss)
    logistic   L(z) = log(1 + exp(-z))

The SVM objective comes in the two forms of the notes, with ``C = 1 / (lam n)``:

    lam form   J_lam(theta, theta_0) = 1/n sum_i L(z_i) + lam/2 ||theta||^2
    C form     J_C(theta, theta_0)   = 1/2 ||theta||^2 + C sum_i L(z_i)

so that ``J_C = J_lam / lam = n C J_lam``: the two forms have the same minimizers. The offset
``theta_0`` is never regularized.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "zero_one",
    "hinge",
    "squared_hinge",
    "logistic",
    "agreements",
    "svm_objective",
    "logistic_objective",
]


def zero_one(z: ArrayLike) -> NDArray[np.float64]:
    """Zero-one loss ``1[z <= 0]`` of agreements ``z`` (a tie counts as a mistake).

    Examples
    --------
    >>> zero_one([-1.0, 0.0, 2.0])
    array([1., 1., 0.])
    """
    return (np.asarray(z, dtype=np.float64) <= 0.0).astype(np.float64)


def hinge(z: ArrayLike) -> NDArray[np.float64]:
    """Hinge loss ``max(0, 1 - z)``.

    Examples
    --------
    >>> hinge([-1.0, 0.5, 2.0])
    array([2. , 0.5, 0. ])
    """
    return np.maximum(0.0, 1.0 - np.asarray(z, dtype=np.float64))


def squared_hinge(z: ArrayLike) -> NDArray[np.float64]:
    """Squared hinge loss ``max(0, 1 - z)^2`` (the loss of the L2-SVM).

    Examples
    --------
    >>> squared_hinge([-1.0, 0.5, 2.0])
    array([4.  , 0.25, 0.  ])
    """
    return hinge(z) ** 2


def logistic(z: ArrayLike) -> NDArray[np.float64]:
    """Logistic loss ``log(1 + exp(-z))``, computed as ``logaddexp(0, -z)`` (no overflow).

    Examples
    --------
    >>> logistic([0.0, 1000.0, -1000.0]).round(6).tolist()
    [0.693147, 0.0, 1000.0]
    """
    return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64))


_LOSSES = {"hinge": hinge, "squared_hinge": squared_hinge, "logistic": logistic,
           "zero_one": zero_one}


def agreements(theta: ArrayLike, theta_0: float, X, y: ArrayLike) -> NDArray[np.float64]:
    """``z_i = y_i (theta.x_i + theta_0)`` for dense or sparse ``X``; ``y`` in {-1, +1}."""
    theta = np.asarray(theta, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if X.shape[1] != theta.shape[0]:
        raise ValueError(
            f"X has {X.shape[1]} features but theta has {theta.shape[0]} entries; they must"
            " match."
        )
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; they must match."
        )
    if not np.all(np.abs(y) == 1.0):
        raise ValueError(
            f"y must contain only -1 and +1; got values {np.unique(y)[:5].tolist()}."
            " Encode labels first, e.g. y = np.where(y == positive, 1, -1)."
        )
    scores = X @ theta if sp.issparse(X) else np.asarray(X, dtype=np.float64) @ theta
    return y * (np.asarray(scores).ravel() + float(theta_0))


def _objective(loss: str, theta, theta_0, X, y, lam, C) -> float:
    if (lam is None) == (C is None):
        raise ValueError(
            f"pass exactly one of lam (1/n sum loss + lam/2 ||theta||^2) or C"
            f" (1/2 ||theta||^2 + C sum loss); got lam={lam!r}, C={C!r}."
        )
    z = agreements(theta, theta_0, X, y)
    total_loss = float(np.sum(_LOSSES[loss](z)))
    sq_norm = float(np.dot(np.ravel(theta), np.ravel(theta)))
    if lam is not None:
        if not lam > 0:
            raise ValueError(f"'lam' must be a float > 0; got {lam!r}.")
        return total_loss / z.shape[0] + 0.5 * lam * sq_norm
    if not C > 0:
        raise ValueError(f"'C' must be a float > 0; got {C!r}.")
    if np.isinf(C):
        # Hard margin: the objective is 1/2 ||theta||^2 on the feasible set, +inf outside it.
        return 0.5 * sq_norm if total_loss == 0.0 else float("inf")
    return 0.5 * sq_norm + C * total_loss


def svm_objective(theta: ArrayLike, theta_0: float, X, y: ArrayLike, lam: float | None = None,
                  C: float | None = None, *, loss: str = "hinge") -> float:
    """The regularized SVM objective in the lam form or the C form (exactly one is given).

    Parameters
    ----------
    theta : array of shape (n_features,)
    theta_0 : float, the (unregularized) offset.
    X : array or sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,) with values in {-1, +1}
    lam : float > 0, optional
        lambda of the lam form.
    C : float > 0, optional
        The SVM constant of the C form; ``np.inf`` gives the hard-margin objective
        (``1/2 ||theta||^2`` if every agreement is >= 1, ``inf`` otherwise).
    loss : {"hinge", "squared_hinge"}, default="hinge"

    Returns
    -------
    float

    Notes
    -----
    .. math::

        J_\\lambda(\\theta, \\theta_0) = \\frac1n \\sum_{i=1}^n L(y_i(\\theta\\cdot x_i
        + \\theta_0)) + \\frac\\lambda2 \\|\\theta\\|^2, \\qquad
        J_C = \\frac12\\|\\theta\\|^2 + C \\sum_{i=1}^n L(y_i(\\theta\\cdot x_i + \\theta_0)),

    and with :math:`C = 1/(\\lambda n)`, :math:`J_C = J_\\lambda / \\lambda`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]]); y = np.array([1.0, -1.0])
    >>> svm_objective(np.array([1.0, -1.0]), 0.0, X, y, C=1.0)
    1.0
    >>> svm_objective(np.array([0.5, 0.0]), 0.0, X, y, lam=1.0)
    0.875
    """
    if loss not in ("hinge", "squared_hinge"):
        raise ValueError(f"'loss' must be 'hinge' or 'squared_hinge'; got {loss!r}.")
    return _objective(loss, theta, theta_0, X, y, lam, C)


def logistic_objective(theta: ArrayLike, theta_0: float, X, y: ArrayLike,
                       lam: float | None = None, C: float | None = None) -> float:
    """Regularized logistic loss, in the lam form or the C form (exactly one is given).

    .. math::

        J_\\lambda = \\frac1n \\sum_i \\log(1 + e^{-y_i(\\theta\\cdot x_i + \\theta_0)})
        + \\frac\\lambda2\\|\\theta\\|^2, \\qquad
        J_C = \\frac12\\|\\theta\\|^2 + C \\sum_i \\log(1 + e^{-y_i(\\theta\\cdot x_i
        + \\theta_0)}).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [-1.0]]); y = np.array([1.0, -1.0])
    >>> round(logistic_objective(np.array([0.0]), 0.0, X, y, lam=1.0), 6)
    0.693147
    """
    if C is not None and np.isinf(C):
        raise ValueError("'C' must be finite for the logistic objective; got inf.")
    return _objective("logistic", theta, theta_0, X, y, lam, C)
