"""Adversaries for the online game: sequences chosen to make the learner err.

``TightNovikoffAdversary(k)`` shows that Novikoff's bound cannot be improved. In round t it
shows the basis vector ``x_t = R e_t`` of R^k and answers the opposite of the prediction:

    x_t = R e_t,     y_t = -p_t,     t = 1, ..., k.

Every round is a mistake, for *any* deterministic learner. Afterwards the unit vector
``u = sum_t y_t e_t / sqrt(k)`` has ``y_t <u, x_t> = R / sqrt(k)`` on every round: the
sequence has radius R and margin gamma = R / sqrt(k), so ``(R/gamma)^2 = k`` mistakes were
forced, exactly the bound.

``GreedyOrderAdversary(X, y)`` serves a fixed labelled dataset in an order chosen against
the learner: each round it looks for an unseen row that the learner currently gets wrong
and shows it (the first such row by index), else the first unseen row. On separable data
the perceptron still makes at most ``(R/gamma)^2`` mistakes, as the theorem holds for every
order.

Both follow the adversary protocol of :func:`halfspaces.online.play`.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_array

from ._validation import check_scalar, param_error

__all__ = ["GreedyOrderAdversary", "TightNovikoffAdversary"]


class TightNovikoffAdversary:
    """Forces ``k = (R/gamma)^2`` mistakes on any deterministic learner.

    Parameters
    ----------
    n_rounds : int >= 1
        ``k``: the dimension, the number of rounds and the number of forced mistakes.
    radius : float > 0, default=1.0
        ``R``: the examples are ``R e_t``.

    Attributes
    ----------
    n_features : int
        ``k`` (the learner works in R^k).
    classes : tuple
        ``(-1, 1)``; the label is the opposite of a prediction in {-1, +1} (a prediction
        that is not +1 gets the label +1).
    margin : float
        ``R / sqrt(k)``, the margin of :attr:`separator_` on the realized sequence.
    labels_ : ndarray of shape (rounds played,)
        The labels chosen so far.
    separator_ : ndarray of shape (k,)
        The unit vector ``u = sum_t y_t e_t / sqrt(k)`` of the rounds played.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> from halfspaces.online import play
    >>> adv = TightNovikoffAdversary(16)
    >>> t = play(Perceptron(fit_intercept=False), adv)
    >>> t.n_mistakes, adv.margin
    (16, 0.25)
    >>> print(t.against_bound((1.0 / adv.margin) ** 2, "(R/gamma)^2"))
    16 mistakes <= 16 = (R/gamma)^2: holds (slack 0)
    """

    classes = (-1, 1)

    def __init__(self, n_rounds: int, radius: float = 1.0):
        check_scalar("TightNovikoffAdversary", "n_rounds", n_rounds, kind=numbers.Integral,
                     low=1, meaning="k, the dimension and number of forced mistakes")
        check_scalar("TightNovikoffAdversary", "radius", radius, low=0.0,
                     low_inclusive=False, meaning="R, the norm of every example")
        self.n_rounds = int(n_rounds)
        self.n_features = self.n_rounds
        self.radius = float(radius)
        self.margin = self.radius / float(np.sqrt(self.n_rounds))
        self.labels_ = np.zeros(0)

    def start(self, predict) -> None:
        """Forget the labels of an earlier game."""
        self.labels_ = np.zeros(0)

    def choose_x(self, t: int, transcript) -> NDArray[np.float64]:
        """``R e_t``."""
        if t >= self.n_rounds:
            raise param_error("TightNovikoffAdversary", "t", f"< n_rounds={self.n_rounds}", t,
                              "Play at most n_rounds rounds.")
        x = np.zeros(self.n_rounds)
        x[t] = self.radius
        return x

    def choose_y(self, t: int, x, prediction) -> int:
        """The opposite of the prediction."""
        y = -1 if prediction == 1 else 1
        self.labels_ = np.append(self.labels_, y)
        return y

    @property
    def separator_(self) -> NDArray[np.float64]:
        u = np.zeros(self.n_rounds)
        u[: self.labels_.size] = self.labels_ / np.sqrt(self.n_rounds)
        return u


class GreedyOrderAdversary:
    """Serves a labelled dataset, each round picking an unseen row the learner gets wrong.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two distinct labels.

    Attributes
    ----------
    n_rounds : int
        ``n_samples``: every row is shown once.
    n_features : int
    classes : ndarray of the two labels
    order_ : ndarray of shape (rounds played,)
        The row shown in each round.
    forced_ : ndarray of shape (rounds played,), bool
        Whether that row was predicted wrongly when it was chosen.

    Notes
    -----
    Each round asks the learner for its current predictions on all unseen rows, so a game
    costs ``O(n^2 d)``: meant for datasets of a few thousand rows. Rows are compared by
    predicted label, so a tie that the learner predicts as the true (positive) label is not
    sought out, though the game still counts it as a mistake.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> from halfspaces.online import play
    >>> from halfspaces.datasets import make_separable
    >>> X, y = make_separable(60, 4, margin=0.1, random_state=0)
    >>> adv = GreedyOrderAdversary(X, y)
    >>> t = play(Perceptron(fit_intercept=False), adv)
    >>> sorted(adv.order_.tolist()) == list(range(60))
    True
    """

    def __init__(self, X: ArrayLike, y: ArrayLike):
        X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32],
                        input_name="X")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise param_error("GreedyOrderAdversary", "y", f"one label per row of X"
                              f" ({X.shape[0]})", f"an array of shape {y.shape}")
        self.classes = np.unique(y)
        if self.classes.size != 2:
            raise param_error("GreedyOrderAdversary", "y", "exactly two distinct labels",
                              self.classes.tolist())
        self.X, self.y = X, y
        self.n_rounds, self.n_features = X.shape
        self.start(None)

    def start(self, predict) -> None:
        """Remember the learner's ``predict`` and forget an earlier game."""
        self._predict = predict
        self._unseen = np.ones(self.n_rounds, dtype=bool)
        self.order_ = np.zeros(0, dtype=np.intp)
        self.forced_ = np.zeros(0, dtype=bool)

    def choose_x(self, t: int, transcript):
        """The first unseen row the learner now gets wrong, else the first unseen row."""
        if self._predict is None:
            raise param_error("GreedyOrderAdversary", "predict", "bound by play() before"
                              " round 0", None, "Use play(learner, adversary).")
        candidates = np.flatnonzero(self._unseen)
        if candidates.size == 0:
            raise param_error("GreedyOrderAdversary", "t", f"< n_rounds={self.n_rounds}", t,
                              "Every row has been shown.")
        wrong = np.asarray(self._predict(self.X[candidates])) != self.y[candidates]
        forced = bool(wrong.any())
        i = int(candidates[np.argmax(wrong)] if forced else candidates[0])
        self._unseen[i] = False
        self.order_ = np.append(self.order_, i)
        self.forced_ = np.append(self.forced_, forced)
        return self.X[i] if sp.issparse(self.X) else self.X[i].copy()

    def choose_y(self, t: int, x, prediction):
        """The true label of the row shown."""
        return self.y[self.order_[-1]]
