"""Perceptron (Rosenblatt 1958). Labels y_t in {-1,+1}, w_1 = 0, b_1 = 0.

    Mistake if y_t (<w_t, x_t> + b_t) <= 0      (a tie counts as a mistake)
    Update     w_{t+1} = w_t + y_t x_t,   b_{t+1} = b_t + y_t   (b only with fit_intercept)
    Novikoff:  ||x_t|| <= R and y_t <u, x_t> >= gamma, ||u|| = 1  =>  mistakes <= (R/gamma)^2
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray
from sklearn.utils.extmath import safe_sparse_dot

from .._online import OnlineClassifier
from .._validation import check_scalar


@njit(cache=True)
def _perceptron_epoch(X, y, w, b, fit_intercept, order, scores):
    """One pass over rows X[order]; updates w (and b[0]) in place; returns the mistakes.

    X : float64 or float32[n_samples, n_features], C-contiguous; y : float64[n] in {-1,+1};
    w : float64[n_features]; b : float64[1]; scores : float64[n] receives y-free scores.
    """
    n_mistakes = 0
    d = X.shape[1]
    for t in order:
        score = b[0]
        for j in range(d):
            score += w[j] * X[t, j]
        scores[t] = score
        if y[t] * score <= 0.0:  # mistake (a tie counts)
            for j in range(d):
                w[j] += y[t] * X[t, j]  # w <- w + y_t x_t
            if fit_intercept:
                b[0] += y[t]  # b <- b + y_t
            n_mistakes += 1
    return n_mistakes


@njit(cache=True)
def _perceptron_epoch_csr(data, indices, indptr, y, w, b, fit_intercept, order, scores):
    """The same pass for CSR input (data, indices, indptr); O(nnz) per pass."""
    n_mistakes = 0
    for t in order:
        score = b[0]
        for p in range(indptr[t], indptr[t + 1]):
            score += w[indices[p]] * data[p]
        scores[t] = score
        if y[t] * score <= 0.0:  # mistake (a tie counts)
            for p in range(indptr[t], indptr[t + 1]):
                w[indices[p]] += y[t] * data[p]  # w <- w + y_t x_t
            if fit_intercept:
                b[0] += y[t]
            n_mistakes += 1
    return n_mistakes


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
        check_scalar("Perceptron", "fit_intercept", self.fit_intercept, kind=(bool, np.bool_))

    def _init_state(self, X, n_models: int) -> None:
        self.coef_ = np.zeros((n_models, X.shape[1]), dtype=np.float64)
        self.intercept_ = np.zeros(n_models, dtype=np.float64)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray) -> int:
        w, b = self.coef_[k], self.intercept_[k : k + 1]
        fit_b = bool(self.fit_intercept)
        if sp.issparse(X):
            return _perceptron_epoch_csr(X.data, X.indices, X.indptr, y, w, b, fit_b, order,
                                         scores)
        return _perceptron_epoch(X, y, w, b, fit_b, order, scores)

    def _decision(self, X) -> NDArray[np.float64]:
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

