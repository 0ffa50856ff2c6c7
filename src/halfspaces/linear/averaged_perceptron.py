"""Averaged perceptron (Freund & Schapire 1999; Collins 2002). Labels y_t in {-1,+1}.

    The perceptron runs as usual:   w_1 = 0, b_1 = 0,
        mistake if y_t (<w_t, x_t> + b_t) <= 0  =>  w_{t+1} = w_t + y_t x_t,  b_{t+1} = b_t + y_t
    and the model it returns after T rounds is the average of the weights after each round:
        w_avg = (1/T) sum_{t=1..T} w_{t+1},    b_avg = (1/T) sum_{t=1..T} b_{t+1}
    computed in O(nnz) per pass with the counter trick (c = rounds before this one):
        on a mistake at round c+1:  u <- u + c y_t x_t,  beta <- beta + c y_t
        w_avg = w - u / c,  b_avg = b - beta / c       (c = T after T rounds)
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from .._primitives import (
    FINITE,
    SCORE_NOT_FINITE,
    UPDATE_NOT_FINITE,
    PassResult,
    check_pass,
    dot_csr,
    dot_dense,
    prefetch_dense_row,
)
from .perceptron import _PREFETCH_ROWS, Perceptron, linear_scores

# Overflow. The running perceptron's w cannot overflow unseen: its score is checked, and
# _perceptron_epoch explains why that suffices. But no score reads u, and c y_t x_t grows
# with the round c, so u is checked: in a dense pass once at its end (a u_j once inf stays
# inf, so the last update is one after which u is not finite), in a CSR pass at each update
# on the entries written (a row touches only its own; an end-of-pass check would cost O(d)
# per learn_one).


@njit(cache=True)
def _finite(v):
    """Whether every entry of the vector v is finite."""
    for j in range(v.shape[0]):
        if not math.isfinite(v[j]):
            return False
    return True


@njit(cache=True)
def _update_csr(w, u, y_t, cy, data, indices, start, end):
    """w <- w + y_t x_t and u <- u + c y_t x_t for the CSR row x_t = (data, indices)[start:end];
    returns whether the entries of u written are finite (they were before, so an overflow
    gives inf, never nan).
    """
    largest = 0.0
    for p in range(np.uint64(start), np.uint64(end)):
        j = np.uint64(indices[p])
        w[j] += y_t * data[p]
        u_j = u[j] + cy * data[p]
        u[j] = u_j
        largest = max(largest, abs(u_j))
    return math.isfinite(largest)


@njit(cache=True)
def _averaged_epoch(X, y, w, u, b, fit_intercept, c, order, scores):
    """One pass over rows X[order]; updates w, u, b = [b, beta] in place.

    X : float64 or float32[n, d], C-contiguous; w, u : float64[d]; c : float, rounds before
    this pass. ``scores[t]`` receives the running perceptron's score of row t. Returns
    (mistakes, status, row) as ``_perceptron_epoch`` does.
    """
    n_mistakes = 0
    last = -1  # the row of the last update
    d = X.shape[1]
    n = order.shape[0]
    for i in range(n):
        if i + _PREFETCH_ROWS < n:
            prefetch_dense_row(X, order[i + _PREFETCH_ROWS])
        t = order[i]
        x_t, y_t = X[t], y[t]
        score = dot_dense(w, x_t) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan
            return PassResult(n_mistakes, SCORE_NOT_FINITE, t)
        if y_t * score <= 0.0:  # mistake (a tie counts)
            cy = c * y_t
            for j in range(d):
                w[j] += y_t * x_t[j]  # w <- w + y_t x_t
                u[j] += cy * x_t[j]  # u <- u + c y_t x_t
            if fit_intercept:
                b[0] += y_t
                b[1] += cy
            n_mistakes += 1
            last = t
        c += 1.0
    if last >= 0 and not _finite(u):  # see "Overflow" above
        return PassResult(n_mistakes, UPDATE_NOT_FINITE, last)
    return PassResult(n_mistakes, FINITE, -1)


@njit(cache=True)
def _averaged_epoch_csr(data, indices, indptr, y, w, u, b, fit_intercept, c, order, scores):
    """The same pass for CSR input; O(nnz) per pass. Each update checks the u it writes."""
    n_mistakes = 0
    for t in order:
        start, end, y_t = indptr[t], indptr[t + 1], y[t]
        score = dot_csr(w, data, indices, start, end) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan
            return PassResult(n_mistakes, SCORE_NOT_FINITE, t)
        if y_t * score <= 0.0:  # mistake (a tie counts)
            cy = c * y_t
            if not _update_csr(w, u, y_t, cy, data, indices, start, end):
                return PassResult(n_mistakes + 1, UPDATE_NOT_FINITE, t)
            if fit_intercept:
                b[0] += y_t
                b[1] += cy
            n_mistakes += 1
        c += 1.0
    return PassResult(n_mistakes, FINITE, -1)


@njit(cache=True)
def _dot_dense_avg(w, u, inv_c, x):
    """<w - u inv_c, x>, summed exactly as ``dot_dense`` sums the materialised average."""
    d = x.shape[0]
    m = d - d % 8
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for j in range(0, m, 8):
        s0 += (w[j] - u[j] * inv_c) * x[j]
        s1 += (w[j + 1] - u[j + 1] * inv_c) * x[j + 1]
        s2 += (w[j + 2] - u[j + 2] * inv_c) * x[j + 2]
        s3 += (w[j + 3] - u[j + 3] * inv_c) * x[j + 3]
        s4 += (w[j + 4] - u[j + 4] * inv_c) * x[j + 4]
        s5 += (w[j + 5] - u[j + 5] * inv_c) * x[j + 5]
        s6 += (w[j + 6] - u[j + 6] * inv_c) * x[j + 6]
        s7 += (w[j + 7] - u[j + 7] * inv_c) * x[j + 7]
    for j in range(m, d):
        s0 += (w[j] - u[j] * inv_c) * x[j]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(cache=True)
def _dot_csr_avg(w, u, inv_c, data, indices, start, end):
    """<w - u inv_c, x> for a CSR row, summed exactly as ``dot_csr``."""
    start, end = np.uint64(start), np.uint64(end)  # unsigned positions, as in dot_csr
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    m = end - (end - start) % four
    s0 = s1 = s2 = s3 = 0.0
    for p in range(start, m, four):
        j0, j1 = np.uint64(indices[p]), np.uint64(indices[p + one])
        j2, j3 = np.uint64(indices[p + two]), np.uint64(indices[p + three])
        s0 += (w[j0] - u[j0] * inv_c) * data[p]
        s1 += (w[j1] - u[j1] * inv_c) * data[p + one]
        s2 += (w[j2] - u[j2] * inv_c) * data[p + two]
        s3 += (w[j3] - u[j3] * inv_c) * data[p + three]
    for p in range(m, end):
        s0 += (w[np.uint64(indices[p])] - u[np.uint64(indices[p])] * inv_c) * data[p]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def _averaged_play(X, y, w, u, b, fit_intercept, c, scores):
    """The online game in order: scores[t] is the *averaged* predictor's score before round
    t (what ``score_one`` returns), the update is the running perceptron's. Returns
    (mistakes, status, row) as ``_averaged_epoch`` does; both scores are checked."""
    n_mistakes = 0
    last = -1
    d = X.shape[1]
    for t in range(X.shape[0]):
        x_t, y_t = X[t], y[t]
        if c == 0.0:  # no round yet: the average is the starting point w_1 = 0
            scores[t] = dot_dense(w, x_t) + b[0]
        else:
            inv_c = 1.0 / c
            scores[t] = _dot_dense_avg(w, u, inv_c, x_t) + (b[0] - b[1] * inv_c)
        score = dot_dense(w, x_t) + b[0]
        if not (math.isfinite(score) and math.isfinite(scores[t])):
            return PassResult(n_mistakes, SCORE_NOT_FINITE, t)
        if y_t * score <= 0.0:
            cy = c * y_t
            for j in range(d):
                w[j] += y_t * x_t[j]
                u[j] += cy * x_t[j]
            if fit_intercept:
                b[0] += y_t
                b[1] += cy
            n_mistakes += 1
            last = t
        c += 1.0
    if last >= 0 and not _finite(u):
        return PassResult(n_mistakes, UPDATE_NOT_FINITE, last)
    return PassResult(n_mistakes, FINITE, -1)


@njit(cache=True)
def _averaged_play_csr(data, indices, indptr, y, w, u, b, fit_intercept, c, scores):
    """``_averaged_play`` for CSR input."""
    n_mistakes = 0
    for t in range(indptr.shape[0] - 1):
        start, end, y_t = indptr[t], indptr[t + 1], y[t]
        if c == 0.0:
            scores[t] = dot_csr(w, data, indices, start, end) + b[0]
        else:
            inv_c = 1.0 / c
            scores[t] = (_dot_csr_avg(w, u, inv_c, data, indices, start, end)
                         + (b[0] - b[1] * inv_c))
        score = dot_csr(w, data, indices, start, end) + b[0]
        if not (math.isfinite(score) and math.isfinite(scores[t])):
            return PassResult(n_mistakes, SCORE_NOT_FINITE, t)
        if y_t * score <= 0.0:
            cy = c * y_t
            if not _update_csr(w, u, y_t, cy, data, indices, start, end):
                return PassResult(n_mistakes + 1, UPDATE_NOT_FINITE, t)
            if fit_intercept:
                b[0] += y_t
                b[1] += cy
            n_mistakes += 1
        c += 1.0
    return PassResult(n_mistakes, FINITE, -1)


class AveragedPerceptron(Perceptron):
    """The averaged perceptron: the perceptron's updates, the average of its weights as model.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset: the running perceptron updates ``b <- b + y_t`` on each mistake and
        ``intercept_`` is its average, like ``coef_``.
    max_iter : int, default=100
        Most passes ``fit`` makes; it stops earlier after a pass in which the running
        perceptron makes no mistake (then ``converged_`` is True).
    shuffle : bool, default=False
        Visit the rows of each ``fit`` pass in a random order drawn from ``random_state``.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        Continue ``fit`` from the current state (the average keeps running over all rounds).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The averaged weights :math:`\\bar w_T`; zero before any round.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The averaged offset :math:`\\bar b_T`.
    current_coef_, current_intercept_ : ndarray
        The running perceptron's :math:`w_{T+1}, b_{T+1}` (what the update rule tests).
    weighted_coef_sum_, weighted_intercept_sum_ : ndarray
        The :math:`u, \\beta` of the counter trick below.
    classes_, n_mistakes_, mistakes_per_epoch_, converged_, n_iter_, t_
        As for :class:`~halfspaces.linear.Perceptron`; mistakes are the running
        perceptron's (the updates), and ``t_`` is the :math:`T` of the average.

    Notes
    -----
    Rounds are counted over every pass (``fit`` epochs and ``partial_fit`` calls alike),
    and the average is over every round :math:`t = 1..T` of the weights *after* round
    :math:`t` (Collins 2002; Daume's "A Course in Machine Learning" gives the same trick):

    .. math::

        \\bar w_T = \\frac1T \\sum_{t=1}^{T} w_{t+1}
                 = w_{T+1} - \\frac1T \\sum_{t \\in M} (t-1)\\, y_t x_t ,
        \\qquad \\bar b_T = b_{T+1} - \\frac1T \\sum_{t \\in M} (t-1)\\, y_t

    where :math:`M` is the set of mistake rounds. The sum is kept as
    :math:`u` (``weighted_coef_sum_``) and :math:`\\beta`, updated only on mistakes, so a pass
    costs :math:`O(\\mathrm{nnz})` plus :math:`O(d)` once at its end. (Daume's version
    divides by :math:`T+1` and so also averages in :math:`w_1 = 0`; here it is :math:`T`.)

    **The online game** (:func:`halfspaces.online.play`, ``score_one``/``predict_one``) is
    played by the *averaged* predictor: the score of round :math:`t` is
    :math:`\\langle \\bar w_{t-1}, x_t\\rangle + \\bar b_{t-1}` (zero at :math:`t=1`), while
    the update is decided by the running perceptron, as in training. The compiled pass and
    the one-example loop give bit-identical scores. ``n_mistakes_`` counts updates.

    References
    ----------
    Freund & Schapire (1999), "Large margin classification using the perceptron algorithm";
    Collins (2002), "Discriminative training methods for hidden Markov models".

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> clf = AveragedPerceptron(fit_intercept=False).partial_fit(X, y, classes=[-1, 1])
    >>> clf.current_coef_   # w after the pass: mistakes on rows 0 and 1
    array([[1., 1.]])
    >>> clf.coef_           # (w_2 + w_3 + w_4 + w_5) / 4 = ([1,0] + 3 [1,1]) / 4
    array([[1.  , 0.75]])
    """

    def _init_state(self, X, n_models: int) -> None:
        d = X.shape[1]
        self.coef_ = np.zeros((n_models, d), dtype=np.float64)
        self.intercept_ = np.zeros(n_models, dtype=np.float64)
        self.current_coef_ = np.zeros((n_models, d), dtype=np.float64)
        self.current_intercept_ = np.zeros(n_models, dtype=np.float64)
        self.weighted_coef_sum_ = np.zeros((n_models, d), dtype=np.float64)
        self.weighted_intercept_sum_ = np.zeros(n_models, dtype=np.float64)

    def _average(self, k: int, c: float) -> None:
        """Materialise coef_[k], intercept_[k] after c rounds (same ops as the play kernel)."""
        if c == 0:
            self.coef_[k] = self.current_coef_[k]
            self.intercept_[k] = self.current_intercept_[k]
            return
        inv_c = 1.0 / c
        self.coef_[k] = self.current_coef_[k] - self.weighted_coef_sum_[k] * inv_c
        self.intercept_[k] = self.current_intercept_[k] - self.weighted_intercept_sum_[k] * inv_c

    def _state(self, k: int):
        b = np.array([self.current_intercept_[k], self.weighted_intercept_sum_[k]])
        return self.current_coef_[k], self.weighted_coef_sum_[k], b

    def _store(self, k: int, b: NDArray, c: float) -> None:
        self.current_intercept_[k], self.weighted_intercept_sum_[k] = b
        self._average(k, c)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray) -> int:
        w, u, b = self._state(k)
        c = float(self.t_)  # every binary problem sees every row: t_ counts its rounds
        fit_b = bool(self.fit_intercept)
        if sp.issparse(X):
            result = _averaged_epoch_csr(X.data, X.indices, X.indptr, y, w, u,
                                                        b, fit_b, c, order, scores)
        else:
            result = _averaged_epoch(X, y, w, u, b, fit_b, c, order, scores)
        mistakes = check_pass(type(self).__name__, result)
        self._store(k, b, c + order.size)
        return mistakes

    def _play(self, X, y_pm: NDArray) -> NDArray[np.float64]:
        """The game in one compiled pass; scores are the averaged predictor's (see Notes)."""
        scores = np.empty(X.shape[0], dtype=np.float64)
        w, u, b = self._state(0)
        c = float(self.t_)
        fit_b = bool(self.fit_intercept)
        if sp.issparse(X):
            result = _averaged_play_csr(X.data, X.indices, X.indptr, y_pm, w, u,
                                                       b, fit_b, c, scores)
        else:
            result = _averaged_play(X, y_pm, w, u, b, fit_b, c, scores)
        mistakes = check_pass(type(self).__name__, result)
        self._store(0, b, c + X.shape[0])
        self.t_ += X.shape[0]
        self.n_mistakes_ += mistakes
        return scores

    def _decision(self, X) -> NDArray[np.float64]:
        return linear_scores(X, self.coef_, self.intercept_, type(self).__name__)
