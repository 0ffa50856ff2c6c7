"""Perceptron (Rosenblatt 1958). Labels y_t in {-1,+1}, w_1 = 0, b_1 = 0.

    Mistake if y_t (<w_t, x_t> + b_t) <= 0      (a tie counts as a mistake)
    Update     w_{t+1} = w_t + y_t x_t,   b_{t+1} = b_t + y_t   (b only with fit_intercept)
    Novikoff:  ||x_t|| <= R and y_t <u, x_t> >= gamma, ||u|| = 1  =>  mistakes <= (R/gamma)^2

The batch perceptron (``fit``, shared by the averaged, voted and kernel perceptrons) repeats
passes until one makes no mistake: on separable data it ends with a separator (ERM).

Example weights ``s_t >= 0`` (``sample_weight`` times ``class_weight``) scale the update:
``w += s_t y_t x_t``, ``b += s_t y_t``. A row of weight 0 is skipped (no mistake counted,
``t`` not advanced), so with ``shuffle=False`` it is the row left out, exactly. An integer
weight ``k`` is ``k`` updates at once, which is not the row repeated ``k`` times: the copies
after the first may no longer be mistakes.
Rows are read through ``halfspaces._primitives`` (dense or CSR input, one summation order).
"""

from __future__ import annotations

import math
import warnings
from contextlib import nullcontext

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from .._base import check_random_state, convergence_warning
from .._checkpoint import epoch_done, resume_point
from .._early_stopping import hold_out
from .._labels import decode_scores
from .._online import OnlineClassifier, keep_params
from .._params import PERCEPTRON
from .._primitives import (
    FINITE,
    PREFETCH_ROWS,
    SCORE_NOT_FINITE,
    PassResult,
    as_rows,
    check_pass,
    example_weight,
    n_rows,
    one_row_axpy,
    one_row_dot,
    prefetch_wanted,
    row_axpy,
    row_dot,
    row_prefetch,
)
from .._streaming import PassesFit
from .._validation import check_finite
from ..calibration import ProbabilityMixin, fit_probability
from ..exceptions import NumericalError


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def _perceptron_epoch(X, y, w, b, fit_intercept, order, scores, s):
    """One pass over the rows X[order]; updates w (and b[0]) in place; a PassResult.

    X : float32/float64[n, d] C-contiguous, or CSR rows (``_primitives.as_rows``);
    y : float64[n] in {-1,+1}; w : float64[d]; b : float64[1]; scores[t] receives row t's
    score before its update, ``row_dot(X, t, w) + b`` as everywhere in the perceptron family,
    so a learner's reported score is bit for bit the one its update rule tested;
    s : float64[n] example weights, or None (all 1: that pass compiles to the plain update).
    """
    mistakes = 0
    for i in range(order.shape[0]):
        if prefetch_wanted(order, i):  # shuffled rows: ask the cache for a row ahead
            row_prefetch(X, order[i + PREFETCH_ROWS])
        t = order[i]
        y_t = y[t]
        score = row_dot(X, t, w) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan: nan <= 0 is false, never a mistake
            return PassResult(mistakes, SCORE_NOT_FINITE, t)
        s_t = example_weight(s, t)
        if y_t * score <= 0.0 and s_t > 0.0:  # mistake (a tie counts: Novikoff needs it)
            row_axpy(X, t, s_t * y_t, w)  # w <- w + s_t y_t x_t
            if fit_intercept:
                b[0] += s_t * y_t  # b <- b + s_t y_t
            mistakes += 1
    # Only the score needs a check: if an update w_j + y_t x_tj overflowed, |w_j| and |x_tj|
    # would both exceed half the float spacing at the overflow limit (about 1e292), so their
    # product, a term of a score, would have overflowed first. (b only counts mistakes.)
    return PassResult(mistakes, FINITE, -1)


def perceptron_pass(X, y: NDArray, w: NDArray, b: NDArray, fit_intercept: bool,
                    order: NDArray, scores: NDArray, owner: str = "Perceptron",
                    s: NDArray | None = None) -> int:
    """One perceptron pass over validated ``X`` (dense or CSR), state updated in place,
    each update scaled by the example weight ``s_t`` (``s`` None: all 1).

    Returns the mistakes (a row of weight 0 makes none); raises NumericalError (naming
    ``owner``) when a score is not finite.
    """
    return check_pass(owner, _perceptron_epoch(as_rows(X), y, w, b, fit_intercept, order,
                                               scores, s))


@njit(cache=True)
def _perceptron_round(x, columns, y_t, W, B, fit_intercept):
    """One round of the pass on one row, for binary problem 0 (``W[0]``, ``B[0]``): returns
    the score before the update, summed as the pass sums the row's dense form; a mistake
    updates W[0] and B[0] in place. A score that is not finite changes nothing.

    x : float64[d] a dense row (``columns`` None), or float64[nnz] the values of a sparse
    row at ``columns`` int64[nnz] (``one_row_dot``); y_t : -1.0 or +1.0.
    """
    w = W[0]
    score = one_row_dot(w, x, columns) + B[0]
    if math.isfinite(score) and y_t * score <= 0.0:  # mistake
        one_row_axpy(y_t, x, columns, w)  # w <- w + y_t x_t
        if fit_intercept:
            B[0] += y_t  # b <- b + y_t
    return score


@njit(cache=True)
def _linear_score_row(x, columns, W, B):
    """<W[0], x> + B[0] for one row as in :func:`_perceptron_round`, as a plain float."""
    return one_row_dot(W[0], x, columns) + B[0]


@njit(cache=True)
def _linear_scores(X, W, B, out):
    """out[i, k] = <W[k], x_i> + B[k], summed exactly as in the epochs; a PassResult that
    stops at the first row whose score is inf or nan."""
    for i in range(n_rows(X)):
        for k in range(W.shape[0]):
            out[i, k] = score = row_dot(X, i, W[k]) + B[k]
            if not math.isfinite(score):
                return PassResult(0, SCORE_NOT_FINITE, i)
    return PassResult(0, FINITE, -1)


def linear_scores(X, coef: NDArray, intercept: NDArray, owner: str) -> NDArray[np.float64]:
    """Scores of validated ``X`` under each row of ``coef``; ``(n,)`` or ``(n, n_models)``.

    Raises NumericalError when a score overflows to inf or nan.
    """
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    intercept = np.ascontiguousarray(intercept, dtype=np.float64)
    out = np.empty((X.shape[0], coef.shape[0]), dtype=np.float64)
    check_pass(owner, _linear_scores(as_rows(X), coef, intercept, out))
    return out.ravel() if coef.shape[0] == 1 else out


@njit(cache=True)
def _rows_right(X, W, B, Y, need, rows):
    """How many of the rows ``rows`` the linear model ``(W, B)`` predicts right, in that
    order, stopping once ``need`` rows are; a PassResult whose first field is that count (not
    mistakes), which stops at the first row whose score is inf or nan.

    Scores are summed as in :func:`_linear_scores`; the prediction is ``predict``'s: the
    positive class when the score is ``>= 0`` (one model), else the first model of highest
    score. ``Y[k, i]`` is row i's label for model k in {-1, +1} (one row for two classes).
    """
    right = 0
    for i in rows:
        if right >= need:
            break
        best, k_best = -math.inf, 0
        for k in range(W.shape[0]):
            score = row_dot(X, i, W[k]) + B[k]
            if not math.isfinite(score):
                return PassResult(right, SCORE_NOT_FINITE, i)
            if score > best:
                best, k_best = score, k
        if W.shape[0] == 1:
            right += 1 if (best >= 0.0) == (Y[0, i] > 0.0) else 0
        else:
            right += 1 if Y[k_best, i] > 0.0 else 0
    return PassResult(right, FINITE, -1)


#: Training rows beyond which ``fit``'s majority-class check predicts this many evenly
#: spaced rows (a sample that follows a file's order) instead of every row.
MAJORITY_CHECK_ROWS = 20_000


class BatchPerceptronMixin:
    """``fit`` as the batch perceptron, for an OnlineClassifier with ``fit_intercept``,
    ``max_iter``, ``shuffle`` and ``random_state``: passes over the data until one makes no
    mistake."""

    #: Whether ``fit`` compares its model's training accuracy with the majority class's. A
    #: learner whose training predictions cost more than its ``fit`` (the voted perceptron's
    #: vote over every stored mistake) turns it off.
    _checks_majority = True
    #: Whether the model is the running perceptron, which a pass free of mistakes leaves
    #: classifying every training row right (then the comparison needs no predictions).
    _clean_pass_is_exact = True

    def _fit_scope(self, X):
        """A context for the passes of one ``fit`` (the kernel perceptron keeps its Gram
        matrix there); none by default."""
        return nullcontext()

    def fit(self, X: ArrayLike, y: ArrayLike):
        """Run passes over the data until one makes no mistake, or ``max_iter`` passes.

        On linearly separable data this finds a separator (ERM in the realizable case):
        ``converged_`` is then True. Otherwise (data that is not separable, or a margin
        too small for ``max_iter`` passes) ``converged_`` is False and a
        ``ConvergenceWarning`` says so. Visits the rows of each pass in a new random order
        (``shuffle=True``, the default) or in the given order (``shuffle=False``).

        A model that ends below the majority class on its own training data (fewer rows
        right than always predicting the most frequent label) warns with a
        ``UserWarning`` that gives both accuracies: with ``shuffle=False`` on a file in time
        order (its distribution drifting along the rows), the model follows the file's end.
        The check costs at most one prediction pass (it stops once the model is right on
        as many rows as the majority class), and none after a clean pass of the perceptron;
        beyond ``MAJORITY_CHECK_ROWS`` rows it predicts that many evenly spaced rows and
        compares their accuracy with the majority class's share of all rows.
        """
        return self._batch_fit(X, y, None)

    def _batch_fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None):
        """``fit``, with example weights where the class takes them (see ``fit``)."""
        X, y_pm = self._prepare_fit(X, y)
        s = self._example_weights("fit", sample_weight, X, y_pm)
        rng = check_random_state(self.random_state)
        X, y_pm, s, held_out = hold_out(self, X, y_pm, rng, s)
        n = X.shape[0]
        self.converged_ = stopped = False
        done = resume_point(self, rng)  # 0, or the passes of a checkpoint (then its state)
        with self._fit_scope(X):
            for epoch in range(done + 1, self.max_iter + 1):
                order = rng.permutation(n) if self.shuffle else np.arange(n)
                try:
                    mistakes = self._fit_epoch(X, y_pm, order, s)
                except NumericalError:
                    if epoch == done + 1 and self._first_pass_checks_finite:
                        check_finite(self, X)  # inf or nan in X: the input's error
                    raise
                stopped = held_out is not None and held_out.stop(self)
                if mistakes == 0:
                    self.converged_ = True
                    break
                if stopped:
                    break
                if epoch < self.max_iter:
                    epoch_done(self, epoch, rng)  # a checkpoint when one is due
        if not (self.converged_ or stopped):
            warnings.warn(
                f"{type(self).__name__}: fit stopped after max_iter={self.max_iter} passes"
                f" without a pass free of mistakes (the last pass made {mistakes} mistakes on"
                f" {n} rows), so converged_ is False: the data may not be linearly separable,"
                " or its margin is too small for that many passes. Increase max_iter if it"
                " is separable.", convergence_warning(), stacklevel=2)
        if self._checks_majority and not (self.converged_ and self._clean_pass_is_exact):
            self._warn_below_majority(X, y_pm)
        return fit_probability(self, X, y_pm, s)

    def _warn_below_majority(self, X, y_pm: NDArray) -> None:
        """Warn when the fitted model is right on fewer training rows than the majority
        class is (``y_pm``: fit's labels in {-1, +1}, one row per binary problem for OvR)."""
        n = X.shape[0]
        positives = np.count_nonzero(y_pm > 0.0, axis=-1)
        majority_rows = int(max(n - positives, positives) if y_pm.ndim == 1 else
                            positives.max())
        m = min(n, MAJORITY_CHECK_ROWS)
        rows = np.arange(m) * n // m  # all rows, or an evenly spaced sample: every part
        need = -(-majority_rows * m // n)  # right / m < majority_rows / n iff right < need
        right = self._rows_right(X, y_pm, need, rows)
        if right >= need:
            return
        accuracy, majority = right / m, majority_rows / n
        hint = (" The rows were visited in the given order (shuffle=False): if the file is"
                " sorted or in time order, fit with shuffle=True." if not self.shuffle else "")
        warnings.warn(
            f"{type(self).__name__}: the fitted model is right on {accuracy:.3f} of"
            f" {'its' if m == n else f'{m:,} evenly spaced rows of its {n:,}'} training rows,"
            f" below the {majority:.3f} of always predicting the majority"
            f" class.{hint}", UserWarning, stacklevel=3)

    def _rows_right(self, X, y_pm: NDArray, need: int, rows: NDArray) -> int:
        """How many of the training rows ``rows`` the model predicts right, or any count
        ``>= need`` once that many are (a subclass may stop there)."""
        if rows.shape[0] < X.shape[0]:
            X, y_pm = X[rows], y_pm[..., rows]
        truth = decode_scores(y_pm.T if y_pm.ndim == 2 else y_pm, self.classes_)
        return int(np.count_nonzero(decode_scores(self._decision(X), self.classes_) == truth))


class Perceptron(ProbabilityMixin, BatchPerceptronMixin, OnlineClassifier):
    """The perceptron: online mistake-driven updates, or cycled until the data is separated.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset ``b`` updated as ``b <- b + y_t`` on each mistake (the notes' form).
        With ``fit_intercept=False`` the separator goes through the origin, the setting of
        Novikoff's theorem.
    max_iter : int, default=100
        Most passes (epochs) ``fit`` makes; it stops earlier after a pass with no mistake.
    shuffle : bool, default=True
        Visit the rows of each ``fit`` pass in a new random order drawn from
        ``random_state`` (as scikit-learn's Perceptron does); ``False`` keeps the given
        order, which on a file sorted by label or time can leave a model worse than
        predicting the majority class (``fit`` warns then). ``partial_fit`` and the online
        game always keep the given order.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        Continue ``fit`` from the current weights instead of starting from zero.
    probability : bool, default=False
        Also fit Platt's sigmoid on the decision values of 5 held-out folds (drawn from
        ``random_state``, as LIBSVM's ``-b 1``) for ``predict_proba``; five more fits.
        See :mod:`halfspaces.calibration`.
    ensemble : bool or "auto", default="auto"
        As scikit-learn's ``CalibratedClassifierCV``: ``True`` keeps the 5 fold models,
        each with its own sigmoid fitted on its held-out fold, and ``predict_proba``
        averages their probabilities; ``False`` fits one sigmoid on all the held-out scores
        and applies it to the model fitted on all rows (LIBSVM's ``-b 1``). ``"auto"``:
        ``True`` where the fold models can be stored (the voted perceptron refuses ``True``).
    early_stopping : bool, default=False
        Hold out a stratified ``validation_fraction`` of the rows and stop ``fit`` once the
        held-out accuracy (``validation_scores_``) failed ``n_iter_no_change`` passes in a
        row to beat its best by 1e-3, as scikit-learn's SGD; the model is the last pass's.
        See :mod:`halfspaces._early_stopping`.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=5
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems of more than two classes (scikit-learn's
        meaning: None or 1 is one, -1 every core): each pass of ``fit`` and ``partial_fit``
        runs the classes' compiled passes, which release the GIL, in
        ``min(n_jobs, n_classes)`` threads. Every class visits the rows in the same order,
        drawn from ``random_state`` before the threads start, so the model is the same, bit
        for bit, for every ``n_jobs``. ``learn_one`` and the online game use one thread.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: a row of class ``c`` weighs ``class_weight[c]`` (classes not
        named: 1) times its ``sample_weight``, and that weight scales its update
        (``"balanced"``: ``S / (n_classes S_c)`` over the rows of ``fit``, ``S_c`` the total
        ``sample_weight`` of class ``c``). ``partial_fit``, ``learn_one`` and the online game
        (played round by round then) take a dict and refuse ``"balanced"``, as
        scikit-learn's SGD does: one block does not show the class frequencies of a stream.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of labels
    n_mistakes_ : int, mistakes over every pass so far
    mistakes_per_epoch_ : list of int, mistakes of each ``fit`` pass
    converged_ : bool, whether the last ``fit`` ended with a pass making no mistake
    n_iter_ : int, passes made
    t_ : int, rounds (examples) seen

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

    _parameter_constraints = PERCEPTRON
    _first_pass_checks_finite = True  # every pass of the family scores each row it visits
    _takes_sample_weight = True

    def _expected_failed_checks(self) -> dict[str, str]:
        """scikit-learn's sample-weight checks compare a weight ``k`` with ``k`` copies: the
        weighted rule scales one update by ``k``, whereas after the first copy the others
        may be right (tests/linear/test_perceptron_weights.py tests the rule it is)."""
        reason = "a weight k scales one update; k copies may update fewer times"
        return dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                              "check_sample_weight_equivalence_on_sparse_data"), reason)

    def __init__(self, *, fit_intercept: bool = True, max_iter: int = 100, shuffle: bool = True,
                 random_state=None, warm_start: bool = False, probability: bool = False,
                 ensemble="auto", early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 n_jobs: int | None = None, class_weight=None):
        keep_params(self, locals())

    _per_feature = ("coef_",)

    def _init_state(self, X, n_models: int) -> None:
        self.coef_ = np.zeros((n_models, X.shape[1]), dtype=np.float64)
        self.intercept_ = np.zeros(n_models, dtype=np.float64)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """The batch perceptron (:meth:`BatchPerceptronMixin.fit`): passes until one makes
        no mistake. ``sample_weight`` (``s_t >= 0``) scales each update,
        ``w += s_t y_t x_t``; a row of weight 0 is skipped."""
        return self._batch_fit(X, y, sample_weight)

    def stream_fitter(self, epochs: int | None = None) -> PassesFit | None:
        """What :func:`~halfspaces.datasets.fit_stream` drives over the blocks of a stream
        (see :mod:`halfspaces._streaming`): ``fit``'s passes until a clean one, each
        ``partial_fit`` on every block in turn; None for a subclass with a ``fit`` of its
        own. ``epochs`` is unused (``max_iter`` bounds the passes)."""
        if type(self)._batch_fit is not Perceptron._batch_fit:
            return None
        return PassesFit(self, one_pass=False,
                         takes_weights=bool(getattr(self, "_takes_sample_weight", False)))

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              s: NDArray | None = None) -> int:
        return perceptron_pass(X, y, self.coef_[k], self.intercept_[k : k + 1],
                               bool(self.fit_intercept), order, scores, type(self).__name__, s)

    def _decision(self, X) -> NDArray[np.float64]:
        return linear_scores(X, self.coef_, self.intercept_, type(self).__name__)

    def _score_row(self, x, columns) -> float:
        return _linear_score_row(x, columns, self.coef_, self.intercept_)

    def _learn_row(self, x, columns, y_t: float) -> float:
        return _perceptron_round(x, columns, y_t, self.coef_, self.intercept_,
                                 bool(self.fit_intercept))

    def _rows_right(self, X, y_pm: NDArray, need: int, rows: NDArray) -> int:
        # _decision's scores, compiled, without storing them, stopping at `need` rows right.
        return check_pass(type(self).__name__, _rows_right(
            as_rows(X), np.ascontiguousarray(self.coef_, dtype=np.float64),
            np.ascontiguousarray(self.intercept_, dtype=np.float64),
            y_pm.reshape(1, -1) if y_pm.ndim == 1 else y_pm, need, rows))
