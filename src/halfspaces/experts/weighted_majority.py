"""Weighted Majority (Littlestone & Warmuth 1994) and its randomized form (WMR / Hedge).

Experts h_1..h_N, labels in {-1,+1}, weights w_{1,i} = 1, 0 <= beta < 1 (beta = e^{-eta}).

    Vote        W_t^+ = sum_{i: h_i(x_t)=+1} w_{t,i},  W_t^- likewise,  W_t = W_t^+ + W_t^-
                score_t = (W_t^+ - W_t^-) / W_t  in [-1, 1]
    Predict     deterministic:  y_hat_t = +1 if score_t >= 0   (mistake if y_t score_t <= 0)
                randomized:     y_hat_t = +1 with probability p_t = W_t^+ / W_t
    Update      w_{t+1,i} = beta * w_{t,i}  if h_i(x_t) != y_t   (every round, every expert)
                so  log w_{t,i} = m_{t,i} log beta,  m_{t,i} = mistakes of expert i so far.
    Bounds      m* = min_i m_{T,i}:
                deterministic  M    <= (ln N + m* ln(1/beta)) / ln(2 / (1 + beta))
                randomized     E[M] <= (ln N + m* ln(1/beta)) / (1 - beta)
                              = (ln N + eta m*) / (1 - e^{-eta})   with beta = e^{-eta}.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._base import check_random_state
from .._file_specs import Seed
from .._online import keep_params
from .._specs import NONE, POSITIVE, Bool, Float, OneOf
from .._validation import param_error
from .._weights import CLASS_WEIGHT
from ._hypotheses import HYPOTHESES, HYPOTHESIS_OFFSETS, ExpertsClassifier

# Powers beta^k are tabulated up to this k (or up to the first that underflows to 0).
_TABLE_SIZE = 2**16


@njit(cache=True)
def _powers(beta, size):
    """table[k] = beta**k for k < size, cut after the first 0.0 (underflow)."""
    table = np.empty(size)
    for k in range(size):
        table[k] = beta**k
        if table[k] == 0.0:
            return table[: k + 1]
    return table


@njit(cache=True)
def _relative_weight(k, beta, table, underflows):
    """beta**k for k = m_i - min_j m_j >= 0: from the table for an integer count, beta**k
    (a power of a real exponent) for a real one (counts made real by fractional weights)."""
    if k < table.shape[0]:
        if k == int(k):
            return table[int(k)]
    elif underflows:  # beyond the table's first 0.0
        return 0.0
    return beta**k


@njit(cache=True)
def _weighted_majority_pass(P, y, s, expert_mistakes, beta, table, positive, total):
    """One pass over the rounds t (rows of P): the vote, then the update; updates
    ``expert_mistakes`` (the m_i) in place.

    P : int8[n, N] in {-1,+1}; y : float64[n] in {-1,+1}; s : the weights s_t > 0 of the
    rounds (the dtype of expert_mistakes), or None for 1; expert_mistakes : int64[N], or
    float64[N] once a weight was fractional; table : float64[K], table[k] = beta**k (from
    ``_powers``). positive, total : float64[n] receive W_t^+ and W_t before round t's
    update, in units of the heaviest weight.
    """
    N = P.shape[1]
    underflows = table[table.shape[0] - 1] == 0.0
    for t in range(P.shape[0]):
        m_min = expert_mistakes.min()
        W = W_plus = 0.0
        for i in range(N):
            # w_i / max_j w_j = beta^(m_i - m_min): no underflow of every weight at once
            w = _relative_weight(expert_mistakes[i] - m_min, beta, table, underflows)
            W += w
            if P[t, i] > 0:
                W_plus += w
        positive[t], total[t] = W_plus, W
        for i in range(N):
            if P[t, i] != y[t]:
                if s is None:
                    expert_mistakes[i] += 1  # w_i <- beta w_i
                else:
                    expert_mistakes[i] += s[t]  # w_i <- beta^(s_t) w_i


def _beta_or_eta(estimator) -> None:
    """``eta`` is ``beta = exp(-eta)`` in Hedge's words: give one of them."""
    if estimator.eta is not None and estimator.beta != 0.5:
        beta = estimator.beta
        raise param_error(type(estimator).__name__, "beta", "left at its default 0.5 when eta"
                          " is given", beta, f"beta = exp(-eta); pass only one of them, e.g."
                          f" eta={-math.log(beta) if beta > 0 else 'None'}.")


class WeightedMajorityClassifier(ExpertsClassifier):
    """Weighted Majority over a finite set of experts; Hedge-style randomized with ``randomized``.

    Parameters
    ----------
    hypotheses : array of shape (N, d), list of N callables, or "precomputed"
        The experts, in the forms :class:`~halfspaces.experts.HalvingClassifier` accepts.
    beta : float in [0, 1), default=0.5
        Multiplier of an expert's weight on each of its mistakes. ``beta=0`` is Halving.
    randomized : bool, default=False
        Predict ``+1`` with probability equal to the weight fraction voting ``+1`` (WMR,
        Hedge on the 0-1 loss). The draws come from ``random_state``.
    eta : float > 0 or None, default=None
        Hedge's learning rate; when given the multiplier is ``exp(-eta)`` (``beta`` is the
        same parameter, so leave it at its default).
    random_state : int, RandomState or None, default=None
        Seed of the randomized predictions (unused when ``randomized=False``).
    offsets : array of shape (N,) or None, default=None
        Offsets of halfspace experts.
    class_weight : None, "balanced" or dict, default=None
        The weight of each class, scikit-learn's meaning: a round of label ``c`` weighs
        ``class_weight[c]`` times its ``sample_weight`` (see the Notes): a mistake on it
        counts that many mistakes. ``"balanced"`` gives class ``c`` the weight
        ``n / (2 n_c)`` over the rows of ``fit`` (``partial_fit`` refuses it: one block does
        not show the class frequencies of the stream; pass a dict).

    Attributes
    ----------
    expert_mistakes_ : ndarray of shape (N,), mistakes ``m_i`` of each expert
        int64, or float64 once a fractional ``sample_weight`` has been learned (the
        weighted mistakes are then real numbers); the values are exact either way.
    log_weights_ : ndarray of float64, shape (N,), ``m_i log(beta)`` (weights start at 1)
    weights_ : ndarray of float64, shape (N,), the normalized weights (summing to 1)
    beta_ : float, the multiplier used
    n_hypotheses_ : int, ``N``
    n_mistakes_ : int
        Mistakes of the learner: ``y_t score_t <= 0`` (deterministic), or the realized
        mistakes of the random predictions (randomized).
    expected_mistakes_ : float
        Sum over rounds of the weight fraction on the wrong label, the expected mistakes of
        the randomized prediction (what the randomized bound bounds).
    classes_, t_, n_iter_, mistakes_per_epoch_ : as in every online learner

    Notes
    -----
    .. math::

        w_{t+1,i} = \\beta^{[h_i(x_t) \\ne y_t]} w_{t,i}, \\qquad
        M \\le \\frac{\\ln N + m^\\ast \\ln(1/\\beta)}{\\ln\\frac{2}{1+\\beta}}, \\qquad
        \\mathbb{E}[M_{\\text{rand}}] \\le \\frac{\\ln N + m^\\ast \\ln(1/\\beta)}{1-\\beta}
        = \\frac{\\ln N + \\eta m^\\ast}{1 - e^{-\\eta}}

    where ``m*`` is the fewest mistakes of any expert. The first bound is Littlestone and
    Warmuth's (a counted mistake, a tie included, leaves at most ``(1+beta)/2`` of the total
    weight); the second is their WMR bound, the 0-1-loss case of Freund and Schapire's
    Hedge. Weights are kept as integer mistake counts, ``log w_i = m_i log beta``, and the
    vote uses ``beta^(m_i - min_j m_j)`` (from a table of powers), so long sequences never
    underflow.
    ``decision_function`` is the deterministic vote margin ``(W^+ - W^-)/W``; ``predict``
    is the weighted majority (the randomization is applied only to the rounds of the online
    pass). ``fit`` makes one online pass in the given order, from weights 1.

    ``sample_weight`` (``fit``, ``partial_fit``): a mistake of expert ``i`` on a row of
    weight ``s_t`` counts ``s_t`` mistakes, ``w_i <- beta^(s_t) w_i``, so an integer weight
    ``k`` is the row repeated ``k`` times, exactly, as far as the experts' weights (and so
    the model) go; a row of weight 0 is no round (not predicted, not learned, not in
    ``t_``). ``n_mistakes_`` and ``expected_mistakes_`` still count the rounds of positive
    weight (a weighted round is voted on once), and ``m*`` in :meth:`mistake_bound` is the
    best expert's weighted mistakes: both bounds keep holding when every positive weight is
    at least 1 (a wrong vote of weight ``s >= 1`` still removes at least the share of the
    total weight that one mistake removes). ``class_weight`` multiplies these weights (the
    round's weight is ``sample_weight`` times its class's weight): a cost-sensitive Weighted
    Majority, whose experts pay more for mistakes on the classes that weigh more.

    References
    ----------
    Littlestone & Warmuth (1994), "The weighted majority algorithm"; Freund & Schapire
    (1997), "A decision-theoretic generalization of on-line learning".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> P = np.where(rng.random((200, 8)) < 0.5, -1.0, 1.0)   # 8 experts' predictions
    >>> y = P[:, 3].copy(); y[::10] *= -1                     # expert 3 errs on 10% of rounds
    >>> clf = WeightedMajorityClassifier("precomputed").fit(P, y)
    >>> int(clf.expert_mistakes_.min()), int(np.argmax(clf.weights_))
    (20, 3)
    >>> clf.n_mistakes_ <= clf.mistake_bound()
    True
    """

    _parameter_constraints = {
        "hypotheses": HYPOTHESES,
        "beta": Float(low=0, high=1, high_open=True).about(
            "weight multiplier on an expert's mistake", "Try beta=0.5."),
        "randomized": Bool(),
        "eta": OneOf(POSITIVE, NONE).about("Hedge learning rate, beta = exp(-eta)",
                                           "Try eta=0.5."),
        "random_state": Seed(), "offsets": HYPOTHESIS_OFFSETS, "class_weight": CLASS_WEIGHT}
    _parameter_rules = ExpertsClassifier._parameter_rules + (_beta_or_eta,)

    _takes_sample_weight = True

    def __init__(self, hypotheses, beta: float = 0.5, randomized: bool = False, eta=None,
                 random_state=None, offsets=None, class_weight=None):
        keep_params(self, locals())

    # A cache recomputed on demand, not model state.
    _persist_exclude = ("_powers",)

    def _init_experts(self, n_hypotheses: int) -> None:
        self._powers = None
        self.beta_ = math.exp(-self.eta) if self.eta is not None else float(self.beta)
        self.expert_mistakes_ = np.zeros(n_hypotheses, dtype=np.int64)
        self.expected_mistakes_ = 0.0
        self._rng = check_random_state(self.random_state)
        self._set_weights()

    def _set_weights(self) -> None:
        m = self.expert_mistakes_
        with np.errstate(divide="ignore", invalid="ignore"):
            log_beta = math.log(self.beta_) if self.beta_ > 0 else -np.inf
            # 0 * log(0) would be nan: an expert without mistakes keeps log-weight 0.
            self.log_weights_ = np.where(m > 0, m * log_beta, 0.0)
        rel = self.beta_ ** (m - m.min()).astype(np.float64)
        self.weights_ = rel / rel.sum()

    def _learn_block(self, P, y, scores, start: int, mistakes_before: int,
                     s: NDArray | None = None) -> int:
        u = self._rng.random(P.shape[0]) if self.randomized else None
        table = getattr(self, "_powers", None)
        if table is None:
            table = self._powers = _powers(self.beta_, _TABLE_SIZE)
        if s is not None:  # integer weights keep integer counts; a fractional one makes them real
            with np.errstate(over="ignore"):  # an overflow is refused just below
                total = float(s.sum())
            most = float(self.expert_mistakes_.max()) + total
            if not np.isfinite(most):
                raise ValueError(f"{type(self).__name__}: the weighted mistake counts would"
                                 f" overflow float64 (sample_weight sums to {total:g});"
                                 " scale sample_weight down.")
            if self.expert_mistakes_.dtype == np.int64 and most <= 2.0**53 and np.all(
                    s == np.rint(s)):
                s = s.astype(np.int64)
            else:
                self.expert_mistakes_ = self.expert_mistakes_.astype(np.float64)
        positive, total = np.empty(P.shape[0]), np.empty(P.shape[0])
        _weighted_majority_pass(P, y, s, self.expert_mistakes_, self.beta_, table, positive,
                                total)
        scores[:] = (2.0 * positive - total) / total
        if self.randomized:  # +1 with probability W^+ / W
            mistakes = np.count_nonzero(np.where(u < positive / total, 1.0, -1.0) != y)
        else:
            mistakes = np.count_nonzero(y * scores <= 0.0)  # a tie counts
        wrong = np.where(y > 0, (total - positive) / total, positive / total)
        self.expected_mistakes_ += float(wrong.sum())
        self._set_weights()
        return int(mistakes)

    def _vote(self, P) -> NDArray[np.float64]:
        return P @ self.weights_

    def mistake_bound(self) -> float:
        """The bound for the mistakes so far, with ``m*`` the best expert's mistakes so far.

        Deterministic: ``(ln N + m* ln(1/beta)) / ln(2/(1+beta))``; randomized (a bound on
        ``expected_mistakes_``): ``(ln N + m* ln(1/beta)) / (1 - beta)``.
        """
        if not hasattr(self, "expert_mistakes_"):
            raise ValueError(f"{type(self).__name__}.mistake_bound: m* is known only after"
                             " fit; call fit first.")
        N, m_star, beta = self.n_hypotheses_, self.expert_mistakes_.min().item(), self.beta_
        if beta == 0.0:
            if m_star > 0:
                return math.inf
            numerator = math.log(N)
        else:
            numerator = math.log(N) + m_star * math.log(1.0 / beta)
        if self.randomized:
            return numerator / (1.0 - beta)
        return numerator / math.log(2.0 / (1.0 + beta))

