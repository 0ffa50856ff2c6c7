"""Averaged perceptron (Freund & Schapire 1999; Collins 2002). Labels y_t in {-1,+1}.

    The perceptron runs as usual:   w_1 = 0, b_1 = 0,
        mistake if y_t (<w_t, x_t> + b_t) <= 0  =>  w_{t+1} = w_t + y_t x_t,  b_{t+1} = b_t + y_t
    and the model it returns after T rounds is the average of the weights after each round:
        w_avg = (1/T) sum_{t=1..T} w_{t+1},    b_avg = (1/T) sum_{t=1..T} b_{t+1}
    computed in O(nnz) per pass with the counter trick (c = rounds before this one):
        on a mistake at round c+1:  u <- u + c y_t x_t,  beta <- beta + c y_t
        w_avg = w - u / c,  b_avg = b - beta / c       (c = T after T rounds)
    Example weights s_t (``sample_weight`` times ``class_weight``): the update is s_t y_t x_t
    (u gains c s_t y_t x_t);
    a row of weight 0 is no round (T counts the rows of positive weight), so with
    shuffle=False it is the row left out, exactly.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._primitives import (
    FINITE,
    PREFETCH_ROWS,
    SCORE_NOT_FINITE,
    UPDATE_NOT_FINITE,
    Difference,
    PassResult,
    example_weight,
    n_rows,
    prefetch_wanted,
    row_axpy_pair,
    row_dot,
    row_prefetch,
)
from .perceptron import Perceptron


class AveragedState(NamedTuple):
    """One binary problem's state: the running perceptron's w, and the counter trick's u;
    b = [b, beta]."""

    w: np.ndarray
    u: np.ndarray
    b: np.ndarray


@njit(cache=True, inline="always")  # inlined: a call per mistake slowed the CSR pass
def _update(X, t, y_t, s, fit_intercept, c):
    """A mistake at round c + 1 on row t: w <- w + y_t x_t, u <- u + c y_t x_t (and b, beta).

    Returns whether the entries of u it wrote are finite: no score reads u, and c y_t x_t
    grows with the round c, so u can overflow unseen. (The perceptron's epoch says why w
    cannot.)
    """
    cy = c * y_t
    if fit_intercept:
        s.b[0] += y_t  # b <- b + y_t
        s.b[1] += cy  # beta <- beta + c y_t
    return row_axpy_pair(X, t, y_t, s.w, cy, s.u)  # w <- w + y_t x_t,  u <- u + c y_t x_t


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def _averaged_epoch(X, y, s, fit_intercept, c, order, scores, sw):
    """One pass over rows X[order] from round c + 1 on; updates the AveragedState s in place.

    X : dense float32/float64[n, d] or CSR rows (``_primitives.as_rows``); c : float, the
    rounds before this pass. ``scores[t]`` receives the running perceptron's score of row
    t. sw : the example weights or None (all 1): the update is scaled by sw[t], and a row of
    weight 0 is no round. Returns a PassResult.
    """
    w, b = s.w, s.b  # read once: a read per row is an atomic reference-count pair
    mistakes = 0
    for i in range(order.shape[0]):
        if prefetch_wanted(order, i):  # shuffled rows: ask the cache for a row ahead
            row_prefetch(X, order[i + PREFETCH_ROWS])
        t = order[i]
        score = row_dot(X, t, w) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan
            return PassResult(mistakes, SCORE_NOT_FINITE, t)
        s_t = example_weight(sw, t)
        if s_t == 0.0:  # not a round: the average is over the rows of positive weight
            continue
        if y[t] * score <= 0.0:  # the running perceptron's mistake (a tie counts)
            mistakes += 1
            if not _update(X, t, s_t * y[t], s, fit_intercept, c):
                return PassResult(mistakes, UPDATE_NOT_FINITE, t)
        c += 1.0
    return PassResult(mistakes, FINITE, -1)


@njit(cache=True)
def _averaged_play(X, y, s, fit_intercept, c, scores):
    """The online game in order: scores[t] is the *averaged* predictor's score before round
    t (what ``score_one`` returns), the update is the running perceptron's. Returns a
    PassResult as ``_averaged_epoch`` does; both scores are checked."""
    w, u, b = s
    mistakes = 0
    for t in range(n_rows(X)):
        score = row_dot(X, t, w) + b[0]
        if c == 0.0:  # no round yet: the average is the starting point w_1 = 0
            scores[t] = score
        else:  # <w - u/c, x_t> + b - beta/c, the average as coef_ materialises it
            inv_c = 1.0 / c
            scores[t] = row_dot(X, t, Difference(w, u, inv_c)) + (b[0] - b[1] * inv_c)
        if not (math.isfinite(score) and math.isfinite(scores[t])):
            return PassResult(mistakes, SCORE_NOT_FINITE, t)
        if y[t] * score <= 0.0:
            mistakes += 1
            if not _update(X, t, y[t], s, fit_intercept, c):
                return PassResult(mistakes, UPDATE_NOT_FINITE, t)
        c += 1.0
    return PassResult(mistakes, FINITE, -1)


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
    shuffle, random_state
        As for :class:`~halfspaces.linear.Perceptron`: the order of the rows in each ``fit``
        pass.
    warm_start : bool, default=False
        Continue ``fit`` from the current state (the average keeps running over all rounds).
    probability, ensemble, early_stopping, validation_fraction, n_iter_no_change, n_jobs, \
class_weight
        As for :class:`~halfspaces.linear.Perceptron` (``n_jobs``: the classes' passes in
        threads, the same model for every value; ``class_weight``: each row's update scaled
        by its class's weight).

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

    _clean_pass_is_exact = False  # the running perceptron's clean pass says little of the average

    _per_feature = ("coef_", "current_coef_", "weighted_coef_sum_")

    def _init_state(self, X, n_models: int) -> None:
        d = X.shape[1]
        self.coef_ = np.zeros((n_models, d), dtype=np.float64)
        self.intercept_ = np.zeros(n_models, dtype=np.float64)
        self.current_coef_ = np.zeros((n_models, d), dtype=np.float64)
        self.current_intercept_ = np.zeros(n_models, dtype=np.float64)
        self.weighted_coef_sum_ = np.zeros((n_models, d), dtype=np.float64)
        self.weighted_intercept_sum_ = np.zeros(n_models, dtype=np.float64)

    def _average(self, k: int, c: float) -> None:
        """Materialise coef_[k], intercept_[k] after c rounds (the play pass's arithmetic)."""
        if c == 0:
            self.coef_[k] = self.current_coef_[k]
            self.intercept_[k] = self.current_intercept_[k]
            return
        inv_c = 1.0 / c
        self.coef_[k] = self.current_coef_[k] - self.weighted_coef_sum_[k] * inv_c
        self.intercept_[k] = self.current_intercept_[k] - self.weighted_intercept_sum_[k] * inv_c

    def _state(self, k: int) -> AveragedState:
        b = np.array([self.current_intercept_[k], self.weighted_intercept_sum_[k]])
        return AveragedState(self.current_coef_[k], self.weighted_coef_sum_[k], b)

    def _store(self, k: int, s: AveragedState, c: float) -> None:
        self.current_intercept_[k], self.weighted_intercept_sum_[k] = s.b
        self._average(k, c)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              sw: NDArray | None = None) -> int:
        s, c = self._state(k), float(self.t_)  # every problem sees every row: t_ counts rounds
        mistakes = self._compiled(_averaged_epoch, X, y, s, bool(self.fit_intercept), c, order,
                                  scores, sw)
        self._store(k, s, c + (order.size if sw is None else np.count_nonzero(sw[order])))
        return mistakes

    def _play_pass(self, X, y_pm: NDArray, scores: NDArray) -> int:
        """The game in one compiled pass; scores are the averaged predictor's (see Notes)."""
        s, c = self._state(0), float(self.t_)
        mistakes = self._compiled(_averaged_play, X, y_pm, s, bool(self.fit_intercept), c,
                                  scores)
        self._store(0, s, c + X.shape[0])
        return mistakes
