"""Kernel functions k(x, x') and their Gram matrices, named as scikit-learn's SVC names them.

    linear  k(x, z) = <x, z>
    poly    k(x, z) = (gamma <x, z> + coef0)^degree
    rbf     k(x, z) = exp(-gamma ||x - z||^2)
    a callable k(X, Z) -> (n_X, n_Z) Gram matrix

The Gram matrices come from scikit-learn's ``pairwise_kernels`` (dense and sparse input);
this module declares the kernel's parameters (``KERNEL_PARAMS``) and resolves
``gamma="scale"`` as SVC does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ._memory import check_allocation
from ._specs import POSITIVE, Callable, Choice, Float, Int, OneOf

KERNELS = ("linear", "poly", "rbf")


class Kernel(OneOf):
    """``kernel``: 'linear', 'poly', 'rbf', or (live only) a callable (X, Z) -> Gram matrix."""

    hint = "A callable takes (X, Z) and returns the Gram matrix."

    def __init__(self):
        super().__init__(Choice(*KERNELS), Callable())

    def describe(self, value=None) -> str:
        return ", ".join(map(repr, KERNELS)) + " or a callable"


#: The kernel's parameters, as SVC, KernelPerceptron and KernelPegasosSVC declare them.
KERNEL_PARAMS = {"kernel": Kernel(),
                 "gamma": OneOf(POSITIVE, Choice("scale", "auto")).about("kernel width"),
                 "degree": Int(low=0), "coef0": Float()}

#: ``cache_size``: the MB of kernel values a kernel method holds at once (SVC's name).
CACHE_SIZE = POSITIVE.about("kernel cache in MB", "Try cache_size=200.")


def resolve_gamma(gamma: Any, X, sample_weight: NDArray | None = None) -> float:
    """``'scale'`` is 1 / (n_features * X.var()), ``'auto'`` is 1 / n_features (as SVC);
    with ``sample_weight``, the variance weighs row ``i`` by ``s_i`` (as ``s_i`` copies)."""
    if gamma == "scale":
        if sample_weight is not None:
            total = float(np.sum(sample_weight)) * X.shape[1]
            sq = X.multiply(X) if sp.issparse(X) else np.square(X)
            mean = float(np.sum(X.T @ sample_weight)) / total
            var = float(np.sum(sq.T @ sample_weight)) / total - mean**2
        elif sp.issparse(X):
            var = X.multiply(X).mean() - X.mean() ** 2
        else:
            var = np.asarray(X).var()
        return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    if gamma == "auto":
        return 1.0 / X.shape[1]
    return float(gamma)


#: Bytes per entry of a Gram matrix while it is computed: the result and one temporary of
#: its size (the squared distances of the rbf kernel, the products of the others).
GRAM_BYTES_PER_ENTRY = 16


def gram(X, Z, kernel: Any, gamma: float, degree: int, coef0: float, *,
         owner: str = "gram", fix: str = "Use fewer rows.") -> NDArray[np.float64]:
    """The Gram matrix ``K[i, j] = k(X[i], Z[j])`` as a C-contiguous float64 array.

    Refused (:class:`~halfspaces.exceptions.MemoryBudgetError`, naming ``owner`` and
    suggesting ``fix``) when it would not fit in the memory available.
    """
    from sklearn.metrics.pairwise import pairwise_kernels  # only where a kernel is used

    check_allocation(owner, GRAM_BYTES_PER_ENTRY * X.shape[0] * Z.shape[0],
                     f"the {X.shape[0]} x {Z.shape[0]} kernel (Gram) matrix", fix)
    if callable(kernel):
        K = kernel(X, Z)
    elif kernel == "linear":
        K = pairwise_kernels(X, Z, metric="linear")
    elif kernel == "poly":
        K = pairwise_kernels(X, Z, metric="poly", gamma=gamma, degree=degree, coef0=coef0)
    else:
        K = pairwise_kernels(X, Z, metric="rbf", gamma=gamma)
    K = K.toarray() if sp.issparse(K) else np.asarray(K)
    return np.ascontiguousarray(K, dtype=np.float64)
