"""Finite classes of halfspaces for the experts learners (Halving, Weighted Majority).

Each class is a set of ``N`` halfspaces ``h_i(x) = sign(<w_i, x> + offset_i)`` in the form
the learners take (``hypotheses=W``, ``offsets=b``):

    random   N directions w_i with standard normal entries, through the origin (b_i = 0)
    stumps   decision stumps s (x_j - theta): w_i = s e_j, offset_i = -s theta, for every
             feature j, both signs s = +-1, and thresholds theta halfway between consecutive
             distinct values of x_j (at most N in all)

A class of random halfspaces is seeded by ``random_state``; the stumps are a function of the
training features alone.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_choice, check_scalar, param_error

__all__ = ["Hypotheses", "make_hypotheses"]

# N x d weights of one class: 400 MB of float64, beyond which a class is refused.
MAX_ENTRIES = 50_000_000


class Hypotheses(NamedTuple):
    """A class of ``N`` halfspaces: pass it as ``HalvingClassifier(**H._asdict())``."""

    hypotheses: NDArray[np.float64]  # (N, d) weights w_i
    offsets: NDArray[np.float64] | None  # (N,) offsets, None for halfspaces through the origin


def make_hypotheses(X: ArrayLike, kind: str = "random", n_hypotheses: int = 1024,
                    random_state: Any = None) -> Hypotheses:
    """A finite class of halfspaces in the feature space of ``X`` (see the module docstring).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training features: their dimension ``d`` (and, for stumps, their values).
    kind : {"random", "stumps"}, default="random"
    n_hypotheses : int >= 1, default=1024
        ``N`` for ``"random"``; the most stumps for ``"stumps"`` (at least one threshold per
        feature and sign, so ``2 d`` when ``N < 2 d``).
    random_state : int, Generator or None, default=None
        Seed of the random directions.

    Returns
    -------
    Hypotheses
        ``(hypotheses, offsets)``; ``offsets`` is None for ``"random"``.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 3.0]])
    >>> H = make_hypotheses(X, "stumps", n_hypotheses=8)
    >>> H.hypotheses[:2].tolist(), H.offsets[:2].tolist()
    ([[1.0, 0.0], [1.0, 0.0]], [-1.0, -3.0])
    >>> make_hypotheses(X, n_hypotheses=5, random_state=0).hypotheses.shape
    (5, 2)
    """
    import scipy.sparse as sp

    owner = "make_hypotheses"
    check_choice(owner, "kind", kind, ("random", "stumps"))
    check_scalar(owner, "n_hypotheses", n_hypotheses, kind=numbers.Integral, low=1,
                 meaning="N, the size of the class")
    n_rows, d = X.shape
    if n_hypotheses * d > MAX_ENTRIES:
        raise param_error(owner, "n_hypotheses", f"at most {MAX_ENTRIES // max(d, 1):,} in {d}"
                          " dimensions", n_hypotheses, f"That is {n_hypotheses * d:,} weights,"
                          f" more than {MAX_ENTRIES:,}; use fewer hypotheses.")
    if kind == "random":
        rng = np.random.default_rng(random_state)
        return Hypotheses(rng.standard_normal((n_hypotheses, d)), None)
    columns = X.tocsc() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    per_feature = max(1, n_hypotheses // (2 * d))
    W, offsets = [], []
    for j in range(d):
        cuts = _thresholds(_column_values(columns, j, n_rows), per_feature)
        for sign in (1.0, -1.0):
            for theta in cuts:
                w = np.zeros(d)
                w[j] = sign
                W.append(w)
                offsets.append(-sign * theta)
    return Hypotheses(np.asarray(W), np.asarray(offsets))


def _column_values(columns, j: int, n_rows: int) -> NDArray[np.float64]:
    """The distinct values of feature ``j`` (a CSC column counts its implicit zeros)."""
    import scipy.sparse as sp

    if not sp.issparse(columns):
        return np.unique(columns[:, j])
    stored = columns.data[columns.indptr[j]:columns.indptr[j + 1]]
    return np.unique(np.append(stored, 0.0) if stored.size < n_rows else stored)


def _thresholds(values: NDArray[np.float64], most: int) -> NDArray[np.float64]:
    """Midpoints of consecutive distinct values (the value itself when there is one),
    thinned evenly to at most ``most``."""
    cuts = (values[:-1] + values[1:]) / 2 if values.size > 1 else values
    if cuts.size > most:
        cuts = cuts[np.linspace(0, cuts.size - 1, most).round().astype(int)]
    return cuts
