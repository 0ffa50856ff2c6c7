"""Perceptron (Rosenblatt 1958). Labels y_t in {-1,+1}, w_1 = 0, b_1 = 0.

    Mistake if y_t (<w_t, x_t> + b_t) <= 0      (a tie counts as a mistake)
    Update     w_{t+1} = w_t + y_t x_t,   b_{t+1} = b_t + y_t   (b only with fit_intercept)
    Novikoff:  ||x_t|| <= R and y_t <u, x_t> >= gamma, ||u|| = 1  =>  mistakes <= (R/gamma)^2

The dot products (``halfspaces._primitives``) are the only hot loop; see there for their
summation order. A dense epoch also prefetches the rows ahead of the one it reads.

Every score in this module and in the averaged/voted perceptrons is ``dot(w, x) + b``
computed by these helpers, in ``fit``, ``partial_fit``, ``decision_function`` and the online
game alike, so the score a learner reports for ``x_t`` is bit for bit the one its update
rule tested.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from .._online import OnlineClassifier
from .._primitives import (
    FINITE,
    SCORE_NOT_FINITE,
    PassResult,
    check_pass,
    dot_csr,
    dot_dense,
    prefetch_dense_row,
)
from .._validation import check_scalar
from ..exceptions import NumericalError

_PREFETCH_ROWS = 2  # how many rows ahead the dense epoch asks the cache for


@njit(cache=True)
def _perceptron_epoch(X, y, w, b, fit_intercept, order, scores):
    """One pass over rows X[order]; updates w (and b[0]) in place.

    X : float64 or float32[n_samples, n_features], C-contiguous; y : float64[n] in {-1,+1};
    w : float64[n_features]; b : float64[1]; scores : float64[n] receives each row's score
    before its update. Returns (mistakes, status, row): status is FINITE, or
    SCORE_NOT_FINITE when row ``row``'s score is inf or nan (the pass stops there).

    Only the score needs a check: if the update w_j + y_t x_tj overflowed, both |w_j| and
    |x_tj| would exceed half the float spacing at the overflow limit (about 1e292), so their
    product, a term of the score, would have overflowed first. (b only counts mistakes.)
    """
    n_mistakes = 0
    d = X.shape[1]
    n = order.shape[0]
    for i in range(n):
        if i + _PREFETCH_ROWS < n:
            prefetch_dense_row(X, order[i + _PREFETCH_ROWS])
        t = order[i]
        x_t, y_t = X[t], y[t]
        score = dot_dense(w, x_t) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan: nan <= 0 is false, never a mistake
            return PassResult(n_mistakes, SCORE_NOT_FINITE, t)
        if y_t * score <= 0.0:  # mistake (a tie counts: Novikoff's proof needs it)
            for j in range(d):
                w[j] += y_t * x_t[j]  # w <- w + y_t x_t
            if fit_intercept:
                b[0] += y_t  # b <- b + y_t
            n_mistakes += 1
    return PassResult(n_mistakes, FINITE, -1)


@njit(cache=True)
def _perceptron_epoch_csr(data, indices, indptr, y, w, b, fit_intercept, order, scores):
    """The same pass for CSR input (data, indices, indptr as given); O(nnz) per pass."""
    n_mistakes = 0
    for t in order:
        start, end, y_t = indptr[t], indptr[t + 1], y[t]
        score = dot_csr(w, data, indices, start, end) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan
            return PassResult(n_mistakes, SCORE_NOT_FINITE, t)
        if y_t * score <= 0.0:  # mistake (a tie counts)
            for p in range(np.uint64(start), np.uint64(end)):  # see dot_csr
                w[np.uint64(indices[p])] += y_t * data[p]  # w <- w + y_t x_t
            if fit_intercept:
                b[0] += y_t
            n_mistakes += 1
    return PassResult(n_mistakes, FINITE, -1)


@njit(cache=True)
def _linear_scores(X, W, B, out):
    """out[i, k] = <W[k], X[i]> + B[k] for dense X, summed exactly as in the epochs.

    Returns the first row whose score is inf or nan (it stops there), or -1.
    """
    for i in range(X.shape[0]):
        for k in range(W.shape[0]):
            out[i, k] = score = dot_dense(W[k], X[i]) + B[k]
            if not math.isfinite(score):
                return i
    return -1


@njit(cache=True)
def _linear_scores_csr(data, indices, indptr, W, B, out):
    """``_linear_scores`` for CSR X."""
    for i in range(indptr.shape[0] - 1):
        for k in range(W.shape[0]):
            out[i, k] = score = dot_csr(W[k], data, indices, indptr[i], indptr[i + 1]) + B[k]
            if not math.isfinite(score):
                return i
    return -1


def linear_scores(X, coef: NDArray, intercept: NDArray, owner: str) -> NDArray[np.float64]:
    """Scores of validated ``X`` under each row of ``coef``; ``(n,)`` or ``(n, n_models)``.

    Raises NumericalError when a score overflows to inf or nan.
    """
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    intercept = np.ascontiguousarray(intercept, dtype=np.float64)
    out = np.empty((X.shape[0], coef.shape[0]), dtype=np.float64)
    if sp.issparse(X):
        row = _linear_scores_csr(X.data, X.indices, X.indptr, coef, intercept, out)
    else:
        row = _linear_scores(X, coef, intercept, out)
    if row >= 0:
        raise NumericalError(owner, row, "the score")
    return out.ravel() if coef.shape[0] == 1 else out


def perceptron_pass(X, y: NDArray, w: NDArray, b: NDArray, fit_intercept: bool,
                    order: NDArray, scores: NDArray, owner: str = "Perceptron") -> int:
    """Dispatch one perceptron pass to the dense or CSR kernel (state updated in place).

    Returns the mistakes; raises NumericalError (naming ``owner``) when a score is not
    finite.
    """
    if sp.issparse(X):
        result = _perceptron_epoch_csr(X.data, X.indices, X.indptr, y, w, b,
                                                      fit_intercept, order, scores)
    else:
        result = _perceptron_epoch(X, y, w, b, fit_intercept, order, scores)
    return check_pass(owner, result)


class Perceptron(OnlineClassifier):
    """The perceptron: online mistake-driven updates, or cycled until the data is separated.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset ``b`` updated as ``b <- b + y_t`` on each mistake (the notes' form).
        With ``fit_intercept=False`` the separator goes through the origin, the setting of
        Novikoff's theorem.
    max_iter : int, default=100
        Most passes (epochs) ``fit`` makes; it stops earlier after a pass with no mistake.
    shuffle : bool, default=False
        Visit the rows of each ``fit`` pass in a random order drawn from ``random_state``.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        Continue ``fit`` from the current weights instead of starting from zero.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of labels
    n_mistakes_ : int, mistakes over every pass so far
    mistakes_per_epoch_ : list of int, mistakes of each ``fit`` pass
    converged_ : bool, whether the last ``fit`` ended with a pass making no mistake
    n_iter_ : int, passes made;  t_ : int, rounds (examples) seen

    Notes
    -----
    .. math::

        \\hat y_t = \\operatorname{sign}(\\langle w_t, x_t\\rangle + b_t), \\qquad
        y_t(\\langle w_t, x_t\\rangle + b_t) \\le 0 \\Rightarrow
        w_{t+1} = w_t + y_t x_t,\\; b_{t+1} = b_t + y_t .

    Weights are float64 whatever the data's dtype; float32/float64 data and int32/int64
    CSR indices are used as given, without a converting copy. One pass costs
    :math:`O(\\mathrm{nnz})` (one dot product per row, one more per mistake).
    A score that overflows to inf or nan (features near the float64 limit) stops the pass
    with a :class:`~halfspaces.exceptions.NumericalError` naming the row; a ``fit`` that
    ends after ``max_iter`` passes without a clean one warns with a ``ConvergenceWarning``.

    References
    ----------
    Rosenblatt (1958); Novikoff (1962), "On convergence proofs on perceptrons".

    Examples
    --------
    >>> from halfspaces.datasets import make_separable
    >>> from halfspaces.theory import data_radius, perceptron_mistake_bound
    >>> X, y = make_separable(n_samples=40, margin=0.2, random_state=0)
    >>> clf = Perceptron(fit_intercept=False).fit(X, y)
    >>> bool(clf.converged_), clf.score(X, y)
    (True, 1.0)
    >>> clf.n_mistakes_ <= perceptron_mistake_bound(data_radius(X), 0.2)
    True
    """

    def __init__(self, *, fit_intercept: bool = True, max_iter: int = 100, shuffle: bool = False,
                 random_state=None, warm_start: bool = False):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start

    def _check_params(self) -> None:
        super()._check_params()
        name = type(self).__name__
        check_scalar(name, "fit_intercept", self.fit_intercept, kind=(bool, np.bool_))
        check_scalar(name, "shuffle", self.shuffle, kind=(bool, np.bool_))
        check_scalar(name, "warm_start", self.warm_start, kind=(bool, np.bool_))

    def _init_state(self, X, n_models: int) -> None:
        self.coef_ = np.zeros((n_models, X.shape[1]), dtype=np.float64)
        self.intercept_ = np.zeros(n_models, dtype=np.float64)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray) -> int:
        return perceptron_pass(X, y, self.coef_[k], self.intercept_[k : k + 1],
                               bool(self.fit_intercept), order, scores, type(self).__name__)

    def _decision(self, X) -> NDArray[np.float64]:
        return linear_scores(X, self.coef_, self.intercept_, type(self).__name__)
