"""The online binary prediction game.

Each round ``t = 1, 2, ..., T`` the environment shows an example ``x_t``, the learner
predicts a label ``p_t`` (from a score ``s_t``: ``p_t = classes[1]`` when ``s_t >= 0``), then
the environment reveals the true label ``y_t`` and the learner updates.

A round is a **mistake** when ``y_t s_t <= 0`` with ``y_t`` encoded in {-1, +1} (a tie counts
as a mistake, as Novikoff's proof needs); for a learner that gives no score, when
``p_t != y_t``. The environment is either a fixed sequence ``(X, y)`` or an adaptive
*adversary* that picks ``x_t`` knowing the transcript so far and picks ``y_t`` knowing the
prediction.

The learner protocol (River style)::

    predict_one(x) -> label         required
    learn_one(x, y)                 required (updates the learner in place)
    score_one(x) -> float           optional; > 0 means classes[1]

Rows reach a generic learner as a 1-D float ndarray (dense) or a 1 x n_features CSR matrix
(sparse). The library's own online estimators play a fixed sequence in one compiled pass,
with the same result as the round-by-round protocol.

The adversary protocol::

    choose_x(t, transcript) -> x    the example of round t (0-based), given the rounds so far
    choose_y(t, x, prediction) -> y the true label, chosen after seeing the prediction
    start(predict)                  optional; called before round 0 with the learner's
                                    current predict(X) -> labels (it does not learn)
    n_rounds, n_features, classes   optional: defaults for play's rounds, the dimension
                                    (else the length of the first x) and classes (-1, 1)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_array

from ._labels import decode_scores, encode_pm
from ._online import OnlineClassifier
from ._validation import check_scalar, check_X, param_error, validate_X

__all__ = ["Adversary", "BoundCheck", "OnlineLearner", "ProgressRow", "Transcript", "iter_play",
           "play"]


@runtime_checkable
class OnlineLearner(Protocol):
    """Anything that predicts one example and then learns from it."""

    def predict_one(self, x: Any) -> Any: ...

    def learn_one(self, x: Any, y: Any) -> Any: ...


@runtime_checkable
class Adversary(Protocol):
    """An environment that adapts to the learner (see the module docstring)."""

    def choose_x(self, t: int, transcript: Transcript) -> Any: ...

    def choose_y(self, t: int, x: Any, prediction: Any) -> Any: ...


@dataclass(frozen=True)
class BoundCheck:
    """Mistakes of a transcript next to a mistake bound; true when the bound holds.

    Examples
    --------
    >>> check = BoundCheck(mistakes=7, bound=25.0, name="(R/gamma)^2")
    >>> print(check)
    7 mistakes <= 25 = (R/gamma)^2: holds (slack 18)
    >>> bool(check), check.holds
    (True, True)
    """

    mistakes: int
    bound: float
    name: str = "bound"

    @property
    def holds(self) -> bool:
        """Whether ``mistakes <= bound``."""
        return self.mistakes <= self.bound

    @property
    def slack(self) -> float:
        """``bound - mistakes`` (negative when the bound is violated)."""
        return self.bound - self.mistakes

    def __bool__(self) -> bool:
        return self.holds

    def __str__(self) -> str:
        if self.holds:
            return (f"{self.mistakes} mistakes <= {self.bound:.6g} = {self.name}: holds"
                    f" (slack {self.slack:.6g})")
        return f"{self.mistakes} mistakes > {self.bound:.6g} = {self.name}: VIOLATED"


@dataclass(repr=False)
class Transcript:
    """Round-by-round record of one online game.

    Attributes
    ----------
    predictions : ndarray of shape (T,)
        The learner's prediction in each round, before it saw the label.
    labels : ndarray of shape (T,)
        The true labels ``y_t``.
    scores : ndarray of shape (T,), float64
        The learner's score before its update (``NaN`` for a learner without ``score_one``).
    mistakes : ndarray of shape (T,), bool
        ``y_t * score_t <= 0`` with ``y_t`` in {-1, +1} (a tie is a mistake); ``p_t != y_t``
        where there is no score.
    classes : ndarray of shape (2,)
        The two labels; ``classes[1]`` is the positive class (+1).
    learner : str
        The learner's class name.
    X : ndarray or csr_matrix of shape (T, n_features) or None
        The examples in the order shown (the input ``X``, or the adversary's choices
        stacked). ``None`` in the partial transcript an adversary sees during the game.
    """

    predictions: NDArray
    labels: NDArray
    scores: NDArray[np.float64]
    mistakes: NDArray[np.bool_]
    classes: NDArray
    learner: str = ""
    X: Any = field(default=None)

    @property
    def n_rounds(self) -> int:
        """Number of rounds played, ``T``."""
        return int(self.labels.shape[0])

    def __len__(self) -> int:
        return self.n_rounds

    @property
    def n_mistakes(self) -> int:
        """Total mistakes ``M``."""
        return int(np.count_nonzero(self.mistakes))

    @property
    def cumulative_mistakes(self) -> NDArray[np.intp]:
        """Mistakes made up to and including each round."""
        return np.cumsum(self.mistakes, dtype=np.intp)

    @property
    def mistake_rate(self) -> float:
        """``M / T`` (0.0 for an empty game)."""
        return self.n_mistakes / self.n_rounds if self.n_rounds else 0.0

    @property
    def mistake_rounds(self) -> NDArray[np.intp]:
        """0-based indices of the rounds with a mistake."""
        return np.flatnonzero(self.mistakes)

    def against_bound(self, bound: float, name: str = "bound") -> BoundCheck:
        """Compare the number of mistakes with a mistake bound, e.g. ``(R/gamma)^2``.

        Examples
        --------
        >>> from halfspaces import Perceptron
        >>> from halfspaces.datasets import make_separable
        >>> from halfspaces.theory import data_radius, perceptron_mistake_bound
        >>> X, y = make_separable(200, 5, margin=0.1, random_state=0)
        >>> t = play(Perceptron(fit_intercept=False), X, y)
        >>> t.against_bound(perceptron_mistake_bound(data_radius(X), 0.1)).holds
        True
        """
        if isinstance(bound, (bool, np.bool_)) or not isinstance(bound, numbers.Real):
            raise param_error("Transcript.against_bound", "bound", "a real number", bound)
        return BoundCheck(self.n_mistakes, float(bound), name)

    def summary(self) -> str:
        """A few lines a person can read: rounds, mistakes, rate, where mistakes happened."""
        lines = [
            f"online game: {self.learner or 'learner'}, {self.n_rounds} rounds,"
            f" classes {self.classes.tolist()}",
            f"  mistakes: {self.n_mistakes} ({100 * self.mistake_rate:.2f}% of rounds)",
        ]
        if self.n_mistakes:
            rounds = self.mistake_rounds
            lines.append(f"  first mistake in round {rounds[0] + 1},"
                         f" last in round {rounds[-1] + 1}")
            half = self.n_rounds // 2
            lines.append(f"  mistakes in the first half: {int(self.mistakes[:half].sum())},"
                         f" second half: {int(self.mistakes[half:].sum())}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Transcript(learner={self.learner!r}, rounds={self.n_rounds},"
                f" mistakes={self.n_mistakes}, classes={self.classes.tolist()})")


# -- helpers -----------------------------------------------------------------------------

def _two_classes(y: NDArray, classes: ArrayLike | None) -> NDArray:
    given = classes is not None
    classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
    if classes.size != 2:
        source = "classes" if given else "the labels y"
        raise param_error("play", "classes", "exactly two labels (the game is binary)",
                          classes.tolist(), f"They came from {source}. For more classes,"
                          " play one label against the rest.")
    unseen = np.setdiff1d(y, classes)
    if unseen.size:
        raise param_error("play", "y", f"labels among classes={classes.tolist()}",
                          unseen[:5].tolist())
    return classes


def _check_labels(X, y) -> NDArray:
    y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
    if y.ndim != 1:
        raise param_error("play", "y", "a 1-D array of labels", f"shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise param_error("play", "y", f"one label per row of X ({X.shape[0]})",
                          f"{y.shape[0]} labels")
    return y


def _check_learner(learner) -> None:
    missing = [m for m in ("predict_one", "learn_one") if not callable(getattr(learner, m,
                                                                                 None))]
    if missing:
        raise param_error("play", "learner", "an object with predict_one(x) and learn_one(x, y)",
                          type(learner).__name__, f"It lacks {', '.join(missing)}.")


def _prepare_builtin(learner: OnlineClassifier, classes: NDArray, n_features: int) -> None:
    if hasattr(learner, "classes_") and not np.array_equal(learner.classes_, classes):
        raise param_error("play", "classes", f"the learner's classes_ {learner.classes_.tolist()}",
                          classes.tolist(), "Play with the classes the learner was fitted on,"
                          " or pass a fresh learner.")
    learner._prepare_online(classes, n_features)


def _as_row(x, owner: str = "play"):
    """Normalize an example to a dense 1-D float64 array or a 1 x d CSR row."""
    if sp.issparse(x):
        x = sp.csr_matrix(x)
        if x.shape[0] != 1:
            raise param_error(owner, "x", "one example (a 1 x n_features sparse row)",
                              f"shape {x.shape}")
        return x
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 2 and x.shape[0] == 1:
        x = x[0]
    if x.ndim != 1:
        raise param_error(owner, "x", "one example (a 1-D array)", f"shape {x.shape}")
    return x


def _predict_rows(learner) -> Callable[[Any], NDArray]:
    """The learner's current predictions on the rows of X, without learning."""
    if isinstance(learner, OnlineClassifier):
        return learner.predict

    def predict(X):
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            return np.asarray([learner.predict_one(X[i]) for i in range(X.shape[0])])
        X = np.asarray(X, dtype=np.float64)
        return np.asarray([learner.predict_one(row) for row in np.atleast_2d(X)])

    return predict


class _Rounds:
    """Preallocated per-round arrays shared by the generic loops."""

    def __init__(self, T: int, classes: NDArray, learner):
        self.classes = classes
        self.pred = np.empty(T, dtype=object)  # whatever predict_one returns, untruncated
        self.lab = np.empty(T, dtype=classes.dtype)
        self.scores = np.full(T, np.nan)
        self.mistakes = np.zeros(T, dtype=bool)
        self.learner = learner
        self.name = type(learner).__name__
        self.has_score = callable(getattr(learner, "score_one", None))

    def play_round(self, t: int, x, choose_y: Callable[[Any], Any]) -> None:
        learner = self.learner
        score = float(learner.score_one(x)) if self.has_score else np.nan
        prediction = learner.predict_one(x)
        y_t = choose_y(prediction)
        if not (y_t == self.classes[0] or y_t == self.classes[1]):
            raise param_error("play", "y", f"a label among classes={self.classes.tolist()}",
                              y_t, f"Round {t} produced it.")
        learner.learn_one(x, y_t)
        self.pred[t], self.lab[t] = prediction, y_t
        self.scores[t] = score
        if self.has_score:
            y_pm = 1.0 if y_t == self.classes[1] else -1.0
            self.mistakes[t] = y_pm * score <= 0.0  # a tie is a mistake
        else:
            self.mistakes[t] = prediction != y_t

    def transcript(self, T: int, X=None, *, final: bool = False) -> Transcript:
        # Partial transcripts (seen by an adversary each round) are O(1) views; the final
        # one gives the predictions their natural dtype.
        pred = np.asarray(self.pred[:T].tolist()) if final and T else self.pred[:T]
        return Transcript(pred, self.lab[:T], self.scores[:T], self.mistakes[:T],
                          self.classes, self.name, X)


def _rows(X):
    """Yield rows as the generic protocol hands them over (dense 1-D, or 1 x d CSR)."""
    if sp.issparse(X):
        d = X.shape[1]
        for t in range(X.shape[0]):
            s, e = X.indptr[t], X.indptr[t + 1]
            yield sp.csr_matrix((X.data[s:e], X.indices[s:e], np.array([0, e - s])),
                                shape=(1, d))
    else:
        yield from X


def _play_sequence(learner, X, y, classes) -> Transcript:
    if isinstance(learner, OnlineClassifier):
        fitted = hasattr(learner, "classes_")
        X = validate_X(learner, X, reset=not fitted)
        y = _check_labels(X, y)
        if classes is None and fitted:
            classes = learner.classes_
        classes = _two_classes(y, classes)
        _prepare_builtin(learner, classes, X.shape[1])
        y_pm = encode_pm(y, classes)
        scores = learner._play(X, y_pm)
        return Transcript(decode_scores(scores, classes), y, scores, y_pm * scores <= 0.0,
                          classes, type(learner).__name__, X)
    X = check_X("play", X, accept_sparse="csr", dtype=[np.float64, np.float32])
    y = _check_labels(X, y)
    classes = _two_classes(y, classes)
    rounds = _Rounds(X.shape[0], classes, learner)
    rounds.lab = y  # the labels keep their given dtype
    for t, x in enumerate(_rows(X)):
        rounds.play_round(t, x, lambda _p, t=t: y[t])
    return rounds.transcript(X.shape[0], X, final=True)


def _check_dimension(learner: OnlineClassifier, classes: NDArray, x, t: int, name: str) -> None:
    """Start the estimator on the first x's length if needed; refuse an x of another length."""
    if not hasattr(learner, "classes_"):
        _prepare_builtin(learner, classes, x.shape[-1])
    if x.shape[-1] != learner.n_features_in_:
        raise param_error("play", "adversary", f"an adversary whose every x has n_features="
                          f"{learner.n_features_in_} entries (the learner's dimension)",
                          f"{x.shape[-1]} entries in round {t} from {name}",
                          "The dimension is the adversary's n_features, else the fitted"
                          " learner's n_features_in_, else the length of the first x.")


def _adversary_game(adversary, rounds, classes) -> tuple[int, NDArray]:
    """The number of rounds and the two labels of a game against ``adversary``, checked:
    the arguments given, else the adversary's ``n_rounds`` and ``classes``."""
    for method in ("choose_x", "choose_y"):
        if not callable(getattr(adversary, method, None)):
            raise param_error("play", "adversary", "an object with choose_x(t, transcript)"
                              " and choose_y(t, x, prediction)", type(adversary).__name__,
                              f"It lacks {method}.")
    if rounds is None:
        rounds = getattr(adversary, "n_rounds", None)
        if rounds is None:
            raise param_error("play", "rounds", "given when the adversary has no n_rounds",
                              None, "Pass rounds=T.")
    check_scalar("play", "rounds", rounds, kind=numbers.Integral, low=0,
                 meaning="number of rounds T")
    if classes is None:
        classes = getattr(adversary, "classes", (-1, 1))
    classes = np.unique(np.asarray(classes))
    if classes.size != 2:
        raise param_error("play", "classes", "exactly two labels (the game is binary)",
                          classes.tolist())
    return int(rounds), classes


def _play_adversary(learner, adversary, rounds, classes) -> Transcript:
    rounds, classes = _adversary_game(adversary, rounds, classes)
    builtin = isinstance(learner, OnlineClassifier)
    n_features = getattr(adversary, "n_features", None)
    if builtin and hasattr(learner, "classes_"):
        _prepare_builtin(learner, classes, learner.n_features_in_)  # checks the classes
    elif builtin and n_features is not None:
        _prepare_builtin(learner, classes, int(n_features))
    # Otherwise a halfspaces estimator is started on the length of the first x shown (or of
    # the rows that start's predict is asked about first): n_features is optional.
    if callable(getattr(adversary, "start", None)):
        predict = _predict_rows(learner)
        if builtin and not hasattr(learner, "classes_"):
            def predict(X, predict=predict):
                _prepare_builtin(learner, classes, (X if sp.issparse(X) else np.asarray(X))
                                 .shape[-1])
                return predict(X)
        adversary.start(predict)
    state = _Rounds(rounds, classes, learner)
    shown = []
    for t in range(rounds):
        x = _as_row(adversary.choose_x(t, state.transcript(t)))
        if builtin:
            _check_dimension(learner, classes, x, t, type(adversary).__name__)
        shown.append(x)
        state.play_round(t, x, lambda p, t=t, x=x: adversary.choose_y(t, x, p))
    if not shown:
        X = None
    elif any(sp.issparse(x) for x in shown):
        X = sp.vstack([sp.csr_matrix(x) for x in shown], format="csr")
    else:
        X = np.vstack(shown)
    return state.transcript(rounds, X, final=True)


def play(learner, X, y: ArrayLike | None = None, *, classes: ArrayLike | None = None,
         rounds: int | None = None) -> Transcript:
    """Play the online binary prediction game and return its transcript.

    Parameters
    ----------
    learner : OnlineClassifier or object with ``predict_one`` and ``learn_one``
        The learner; it is updated in place (it is the one that learns). A halfspaces
        estimator that is not fitted yet is started on ``classes`` (against an adversary, in
        the dimension of its ``n_features`` attribute if it has one, else of the first
        ``x`` it shows); a fitted one continues from its current state.
    X : {array-like, sparse matrix} of shape (T, n_features), or an adversary
        A fixed sequence of examples (CSR for sparse data), or an object with
        ``choose_x(t, transcript)`` and ``choose_y(t, x, prediction)``.
    y : array-like of shape (T,), optional
        The labels of a fixed sequence (any two labels).
    classes : array-like of two labels, optional
        Defaults to ``np.unique(y)`` for a fixed sequence (``classes_`` for a fitted
        halfspaces estimator) and to the adversary's ``classes`` attribute, else
        ``(-1, 1)``, for an adversary. Exactly two.
    rounds : int, optional
        Number of rounds against an adversary (default: its ``n_rounds``).

    Returns
    -------
    transcript : Transcript

    Notes
    -----
    For a halfspaces estimator on a fixed sequence the whole game runs in the estimator's
    compiled pass (``_prepare_online`` then ``_play``); any other learner, and every
    game against an adversary, goes round by round through ``score_one`` (if present),
    ``predict_one`` and ``learn_one``. Both give the same transcript. Rows reach a generic
    learner as a dense 1-D ndarray (dense ``X``) or a 1 x n_features CSR matrix (sparse
    ``X``). The mistake rule is

    .. math::  \\text{mistake}_t = [\\, y_t\\, s_t \\le 0 \\,], \\qquad y_t \\in \\{-1, +1\\}.

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import Perceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> y = np.array([1, -1, 1, -1])
    >>> t = play(Perceptron(fit_intercept=False), X, y)
    >>> t.scores.tolist()
    [0.0, 0.0, 0.0, -2.0]
    >>> t.mistakes.tolist(), t.n_mistakes
    ([True, True, True, False], 3)

    The third round is a tie (score 0 with ``y = +1``) and therefore a mistake.
    """
    if callable(getattr(X, "choose_x", None)):
        if y is not None:
            raise param_error("play", "y", "None when playing against an adversary", "labels",
                              "The adversary chooses the labels.")
        _check_learner(learner)
        return _play_adversary(learner, X, rounds, classes)
    if rounds is not None:
        raise param_error("play", "rounds", "None for a fixed sequence (it has len(X) rounds)",
                          rounds, "Slice X and y to play fewer rounds.")
    if y is None:
        raise param_error("play", "y", "the labels of the sequence X", None,
                          "Pass play(learner, X, y), or an adversary instead of X.")
    _check_learner(learner)
    return _play_sequence(learner, X, y, classes)


# -- the progressive table ---------------------------------------------------------------

_PROGRESS_BLOCK = 65536  # rounds between two calls of iter_play's progress callback


class ProgressRow(NamedTuple):
    """One row of the progressive table of :func:`iter_play`."""

    examples: int  # t, the rounds played so far
    mistakes: int  # M_t, the mistakes so far
    average_loss: float  # M_t / t, the zero-one loss averaged over the rounds so far
    since_last: float  # mistakes per round since the previous row
    label: Any  # y_t of the row's last round
    prediction: Any  # the learner's prediction in that round, before it saw y_t
    score: float = float("nan")  # its score then (0: a tie, a mistake); NaN without one


def _checkpoints(n: int) -> list[int]:
    """1, 2, 4, 8, ... below ``n``, then ``n``: where Vowpal Wabbit prints a row."""
    points, t = [], 1
    while t < n:
        points.append(t)
        t *= 2
    return points + [n] if n else points


def iter_play(learner, X, y: ArrayLike, *, classes: ArrayLike | None = None,
              progress: Callable[[int], Any] | None = None) -> Iterator[ProgressRow]:
    """Play the online game over ``(X, y)`` in order, yielding a progressive table.

    A row comes after rounds ``t = 1, 2, 4, 8, ...`` and after the last round, as Vowpal
    Wabbit prints its progress; between rows the game goes on where it stopped (the learner
    is updated in place, exactly as one :func:`play` over the whole sequence).

    Parameters
    ----------
    learner : OnlineClassifier or object with ``predict_one`` and ``learn_one``
    X : {array-like, sparse matrix} of shape (T, n_features), a fixed sequence
    y : array-like of shape (T,)
    classes : array-like of two labels, optional
        Default ``np.unique(y)``.
    progress : callable, optional
        Called with the number of rounds just played, at least every 65,536 rounds (e.g. a
        tqdm bar's ``update``).

    Yields
    ------
    ProgressRow
        ``examples``, ``mistakes``, ``average_loss``, ``since_last``, ``label``,
        ``prediction``, ``score``.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> X = np.array([[1.0], [2.0], [-1.0], [3.0], [-2.0]]); y = np.array([1, 1, -1, 1, -1])
    >>> [(r.examples, r.mistakes, r.since_last)
    ...  for r in iter_play(Perceptron(fit_intercept=False), X, y)]
    [(1, 1, 1.0), (2, 1, 0.0), (4, 1, 0.0), (5, 1, 0.0)]
    """
    X = X if sp.issparse(X) else np.asarray(X)
    y = np.asarray(y)
    n = _check_labels(X, y).shape[0]
    classes = np.unique(y) if classes is None else classes
    checkpoints = _checkpoints(n)
    stops = sorted(set(checkpoints) | set(range(_PROGRESS_BLOCK, n, _PROGRESS_BLOCK)))
    start = mistakes = last_t = last_m = 0
    for stop in stops:
        piece = play(learner, X[start:stop], y[start:stop], classes=classes)
        mistakes += piece.n_mistakes
        if progress is not None:
            progress(stop - start)
        start = stop
        if stop == checkpoints[0]:
            checkpoints.pop(0)
            yield ProgressRow(stop, mistakes, mistakes / stop,
                              (mistakes - last_m) / (stop - last_t), piece.labels[-1],
                              piece.predictions[-1], float(piece.scores[-1]))
            last_t, last_m = stop, mistakes
