"""Kernel perceptron (Aizerman, Braverman & Rozonoer 1964): the perceptron in dual form.

Labels y_t in {-1,+1}; alpha_i = 0, b = 0 at the start; k(x, z) a kernel.

    Score      f_t(x) = sum_{i in S} alpha_i y_i k(x_i, x) + b      (S: the support set)
    Mistake    y_t f_t(x_t) <= 0                                   (a tie counts as a mistake)
    Update     alpha_t <- alpha_t + 1  (x_t joins S),   b <- b + y_t  (only with fit_intercept)

With k(x, z) = <x, z> this is the primal perceptron w = sum_i alpha_i y_i x_i, b = sum of the
y_t of the mistakes: it makes the same mistakes in the same order.

Example weights s_t >= 0 (``sample_weight``) scale the update, as the primal perceptron's
w += s_t y_t x_t: the coefficient of x_t grows by s_t y_t (alpha_t still counts the
updates) and b by s_t y_t. A row of weight 0 is skipped (no update, no mistake, no round).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import ArrayLike, NDArray

from .._file_specs import Seed
from .._online import EPOCHS, OnlineClassifier, keep_params
from .._parallel import N_JOBS, map_groups
from .._primitives import FINITE, SCORE_NOT_FINITE, PassResult, check_pass, example_weight
from .._specs import Bool
from .._weights import CLASS_WEIGHT
from ..exceptions import NumericalError
from ..kernels import CACHE_SIZE, GRAM_BYTES_PER_ENTRY, KERNEL_PARAMS, gram, resolve_gamma
from ..linear.perceptron import BatchPerceptronMixin


class DualState(NamedTuple):
    """One binary problem's expansion: coef[i] = alpha_i y_i for each slot i, the slots with
    alpha_i > 0 in the order they joined (support[:n_support[0]]), and b[0]."""

    coef: np.ndarray
    support: np.ndarray
    n_support: np.ndarray
    b: np.ndarray


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def _kernel_perceptron_pass(K, rows, slots, y, s, fit_intercept, scores, weights):
    """One pass over the points j = 0..len(rows)-1; updates the DualState s in place.

    K : float64[*, m], C-contiguous; row ``rows[j]`` holds k(x_j, x_i) for every slot i.
    slots : int64[n], the slot of point j (where its alpha_j y_j is kept); y : float64[n] in
    {-1,+1}; scores[j] receives f(x_j) before its update; weights : float64[n] the example
    weights s_j of the points, or None (all 1). Returns a PassResult whose row is the first
    j whose score is inf or nan (a Gram value overflowed; the pass stops there). The
    coefficients are sums of weights and cannot overflow.
    """
    mistakes = 0
    for j in range(rows.shape[0]):
        score = s.b[0]
        for p in range(s.n_support[0]):  # f(x_j) = sum_{i in S} alpha_i y_i k(x_i, x_j) + b
            i = s.support[p]
            score += s.coef[i] * K[rows[j], i]
        scores[j] = score
        if not math.isfinite(score):
            return PassResult(mistakes, SCORE_NOT_FINITE, j)
        s_j = example_weight(weights, j)
        if y[j] * score <= 0.0 and s_j > 0.0:  # mistake (a tie counts)
            i = slots[j]
            if s.coef[i] == 0.0:  # x_j joins the support set
                s.support[s.n_support[0]] = i
                s.n_support[0] += 1
            s.coef[i] += s_j * y[j]  # alpha_j <- alpha_j + 1: its coefficient moves by s_j y_j
            if fit_intercept:
                s.b[0] += s_j * y[j]  # b <- b + s_j y_j
            mistakes += 1
    return PassResult(mistakes, FINITE, -1)


@dataclass
class _TrainingRows:
    """fit's expansion, one row per binary problem, whose slots are the training rows (a row
    that errs again raises its alpha_i), its counts alpha_i, and the n x n Gram matrix once
    computed."""

    X: Any
    coef: NDArray[np.float64]
    support: NDArray[np.int64]
    n_support: NDArray[np.int64]
    alpha: NDArray[np.int64]
    K: NDArray[np.float64] | None = None


def _append_rows(A, B):
    """Stack support vectors, keeping dense rows dense (CSR once any sparse row arrives)."""
    if A.shape[0] == 0:
        return B.copy() if not sp.issparse(B) else sp.csr_matrix(B)
    if sp.issparse(A) or sp.issparse(B):
        return sp.vstack([sp.csr_matrix(A), sp.csr_matrix(B)], format="csr")
    return np.vstack([A, B])


class KernelPerceptron(BatchPerceptronMixin, OnlineClassifier):
    """The kernel perceptron: mistake-driven updates of a dual expansion over support vectors.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        ``k(x, z)`` as scikit-learn's SVC names it; a callable maps ``(X, Z)`` to the
        ``(n_X, n_Z)`` Gram matrix.
    gamma : float > 0, "scale" or "auto", default="scale"
        Width of "rbf" and scale of "poly". "scale" is ``1 / (n_features * X.var())`` of
        the data of the first call (fit's ``X`` or the first ``partial_fit`` batch),
        stored in ``gamma_``.
    degree : int, default=3
        Degree of "poly".
    coef0 : float, default=1.0
        The constant of "poly", ``(gamma <x, z> + coef0)^degree``. The default is 1, not
        scikit-learn's 0, so that "poly" holds every monomial up to ``degree`` (the
        textbook kernel ``(1 + <x, z>)^d``; with 0 an odd degree cannot even fit XOR).
    fit_intercept : bool, default=True
        Learn an offset ``b <- b + y_t`` on each mistake, as the primal Perceptron does.
    max_iter : int, default=100
        Most passes ``fit`` makes; it stops after a pass with no mistake.
    shuffle : bool, default=True
        Visit the rows of each ``fit`` pass in a new random order drawn from
        ``random_state``; ``False`` keeps the given order (see
        :class:`~halfspaces.linear.Perceptron`). ``partial_fit`` and the game keep it always.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems (scikit-learn's meaning: None or 1 is one, -1
        every core): each Gram block is computed once, in the calling thread, then the
        classes' passes over it run in ``min(n_jobs, n_classes)`` threads. Every class
        visits the rows in the same order, so the model is the same, bit for bit, for every
        ``n_jobs``. ``learn_one`` and the online game use one thread.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: a row of class ``c`` weighs ``class_weight[c]`` (classes not
        named: 1) times its ``sample_weight``, and that weight scales its update (see the
        Notes); ``"balanced"`` is ``S / (n_classes S_c)`` over the rows of ``fit``, ``S_c``
        the total ``sample_weight`` of class ``c``. ``partial_fit``, ``learn_one`` and the
        online game take a dict and refuse ``"balanced"``, as scikit-learn's SGD does: one
        block does not show the class frequencies of a stream.
    cache_size : float > 0, default=200.0
        MB of kernel values held at once (scikit-learn's SVC name and meaning): see Memory
        in the Notes.

    Attributes
    ----------
    support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
        The points ``x_i`` with ``alpha_i > 0`` for at least one binary problem.
    support_ : ndarray of int64, shape (n_SV,)
        Their row numbers: for ``fit``, rows of its ``X``; rows learned later by
        ``partial_fit``/``learn_one`` are numbered on, in arrival order (``n_rows_seen_``).
    dual_coef_ : ndarray of shape (n_models, n_SV)
        ``alpha_i y_i`` as in scikit-learn (``n_models`` is 1, or one per class for OvR).
    alpha_ : ndarray of int64, shape (n_models, n_SV), the mistake counts ``alpha_i``
        (the updates on ``x_i``; with ``sample_weight``, ``dual_coef_ = alpha_i s_i y_i``).
    intercept_ : ndarray of shape (n_models,)
    gamma_ : float, the resolved kernel width
    classes_, n_mistakes_, mistakes_per_epoch_, converged_, n_iter_, t_ : as Perceptron.

    Notes
    -----
    .. math::

        f(x) = \\sum_{i \\in S} \\alpha_i y_i\\, k(x_i, x) + b, \\qquad
        y_t f(x_t) \\le 0 \\Rightarrow \\alpha_t \\leftarrow \\alpha_t + 1,\\;
        b \\leftarrow b + y_t .

    The offset is the primal perceptron's ``b`` (not a constant feature inside ``k``), so
    with ``kernel="linear"`` the mistakes are the same, round by round, as those of
    :class:`~halfspaces.Perceptron` with the same ``fit_intercept``, weighted or not.

    ``sample_weight`` (``fit``, ``partial_fit``; times ``class_weight``): an update on a row
    of weight ``s_t`` moves its coefficient and ``b`` by ``s_t y_t``, the dual form of the
    primal ``w += s_t y_t x_t``; a row of weight 0 is skipped (no update, no mistake, not
    in ``t_``), and with ``gamma="scale"`` the weights weigh the variance (as in SVC), so
    that it is the row left out.

    Memory. ``fit`` computes the ``n x n`` Gram matrix of the training rows once and runs
    every pass (and every OvR problem) over it when it fits in ``cache_size`` (two floats
    an entry while it is computed: ``n <= 3620`` at 200 MB); otherwise each pass computes
    Gram rows ``k(x_t, X)`` in blocks that fit, ``n^2`` kernel evaluations per pass. In
    ``fit`` the support set is indexed by training row, so a point that errs again raises
    its count ``alpha_i``. ``partial_fit``/``learn_one``
    grow the support set with the rows they err on, using blocks of ``k(x_t, S)`` and
    ``k(x_t, batch)`` within the same budget; ``decision_function`` uses blocks of
    ``k(x, S)``.

    References
    ----------
    Aizerman, Braverman & Rozonoer (1964); Freund & Schapire (1999), "Large margin
    classification using the perceptron algorithm".

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    >>> y = np.array([1, 1, -1, -1])                          # XOR: not linearly separable
    >>> clf = KernelPerceptron(kernel="poly", degree=2).fit(X, y)
    >>> bool(clf.converged_), clf.score(X, y)
    (True, 1.0)
    >>> clf.dual_coef_.shape[1] == clf.support_vectors_.shape[0] == clf.alpha_.shape[1]
    True
    """

    _parameter_constraints = {**KERNEL_PARAMS, "fit_intercept": Bool(), "max_iter": EPOCHS,
                              "shuffle": Bool(), "random_state": Seed(), "n_jobs": N_JOBS,
                              "class_weight": CLASS_WEIGHT, "cache_size": CACHE_SIZE}

    _takes_sample_weight = True
    _persist_exclude = ("_training",)  # fit's expansion: a checkpoint saves checkpoint_form

    def __init__(self, *, kernel="rbf", gamma="scale", degree: int = 3, coef0: float = 1.0,
                 fit_intercept: bool = True, max_iter: int = 100, shuffle: bool = True,
                 random_state=None, n_jobs: int | None = None, class_weight=None,
                 cache_size: float = 200.0):
        keep_params(self, locals())

    def _expected_failed_checks(self) -> dict[str, str]:
        """As Perceptron's: a weight ``k`` scales one update, ``k`` copies may make fewer
        (tests/kernel/test_kernel_weights.py tests the rule it is)."""
        reason = "a weight k scales one update; k copies may update fewer times"
        return dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                              "check_sample_weight_equivalence_on_sparse_data"), reason)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """The batch perceptron's passes (:meth:`BatchPerceptronMixin.fit`) in the dual.
        ``sample_weight`` (``s_t >= 0``, times ``class_weight``) scales each update: the
        coefficient of ``x_t`` and ``b`` move by ``s_t y_t``; a row of weight 0 is skipped."""
        return self._batch_fit(X, y, sample_weight)

    # -- Gram blocks -------------------------------------------------------------------------
    def _gram(self, A, B) -> NDArray[np.float64]:
        K = gram(A, B, self.kernel, self.gamma_, self.degree, float(self.coef0))
        if K.shape != (A.shape[0], B.shape[0]):
            raise ValueError(
                f"KernelPerceptron: the kernel callable must return the ({A.shape[0]},"
                f" {B.shape[0]}) Gram matrix of its two inputs; got shape {K.shape}."
            )
        return K

    def _rows_per_block(self, n: int, width: int) -> int:
        """Rows of a Gram block of ``width`` columns that fit in ``cache_size``."""
        budget = int(self.cache_size * 2**20)
        return int(max(1, min(n, budget // (GRAM_BYTES_PER_ENTRY * max(1, width)))))

    def _ensure_gamma(self, X, s: NDArray | None = None) -> None:
        """Resolve ``gamma_`` on the first rows learned (their weights ``s``, if given, weigh
        the variance of "scale" as SVC's do; a row of weight 0 does not enter it)."""
        if self.gamma_ is None and X.shape[0] > 0:
            self.gamma_ = resolve_gamma(self.gamma, X, s)

    # -- hooks -------------------------------------------------------------------------------
    def _init_state(self, X, n_models: int) -> None:
        self.gamma_ = None  # resolved by the first pass, with the example weights
        d = X.shape[1]
        self.support_vectors_ = sp.csr_matrix((0, d)) if sp.issparse(X) else np.zeros((0, d))
        self.support_ = np.zeros(0, dtype=np.int64)
        self.dual_coef_ = np.zeros((n_models, 0))
        self.alpha_ = np.zeros((n_models, 0), dtype=np.int64)
        self.intercept_ = np.zeros(n_models)
        self.n_rows_seen_ = 0
        self.__dict__.pop("_support_order", None)  # only a checkpoint resumed brings one

    @contextmanager
    def _fit_scope(self, X):
        """fit's passes index the support set by training row; at the end the support-vector
        form is stored, and the Gram matrix is dropped (it is not part of the model)."""
        n, m = X.shape[0], self._n_models
        self._training = _TrainingRows(X, np.zeros((m, n)), np.zeros((m, n), dtype=np.int64),
                                       np.zeros((m, 1), dtype=np.int64),
                                       np.zeros((m, n), dtype=np.int64))
        ranks = self.__dict__.pop("_support_order", None)
        if ranks is not None:  # resumed from a checkpoint (halfspaces._checkpoint)
            self._resume_training(ranks)
        try:
            yield
            self._store_fit()
        finally:
            del self._training

    def _store_fit(self) -> None:
        """Turn fit's per-training-row expansion into the support-vector form."""
        X, coef = self._training.X, self._training.coef
        rows = np.flatnonzero(np.any(coef != 0.0, axis=0)).astype(np.int64)
        self.support_ = rows
        self.support_vectors_ = X[rows] if sp.issparse(X) else np.array(X[rows], np.float64)
        self.dual_coef_ = np.ascontiguousarray(coef[:, rows])
        self.alpha_ = np.ascontiguousarray(self._training.alpha[:, rows])
        self.n_rows_seen_ = X.shape[0]

    @contextmanager
    def checkpoint_form(self):
        """While a checkpoint of fit is written: its expansion in the support-vector form of
        a model, and ``_support_order[k, j]``, the rank of support vector j in problem k's
        support set (the order in which the scores sum; -1 where it is not in the set)."""
        self._store_fit()
        t, rows = self._training, self.support_
        ranks = np.full((self._n_models, rows.size), -1, dtype=np.int64)
        for k in range(self._n_models):
            joined = t.support[k, : t.n_support[k, 0]]
            ranks[k, np.searchsorted(rows, joined)] = np.arange(joined.size)
        self._support_order = ranks
        try:
            yield
        finally:
            del self._support_order

    def _resume_training(self, ranks: NDArray[np.int64]) -> None:
        """fit's expansion from a checkpoint's support-vector form and ``ranks`` (see
        :meth:`checkpoint_form`); the Gram matrix is computed again by the passes."""
        t, rows = self._training, self.support_
        if self.n_rows_seen_ != t.coef.shape[1]:
            raise ValueError(f"KernelPerceptron: the checkpoint holds the state of a fit on"
                             f" {self.n_rows_seen_} rows, and this one has {t.coef.shape[1]}")
        t.coef[:, rows] = self.dual_coef_
        t.alpha[:, rows] = self.alpha_
        for k in range(self._n_models):
            joined = np.flatnonzero(ranks[k] >= 0)
            t.support[k, : joined.size] = rows[joined[np.argsort(ranks[k, joined])]]
            t.n_support[k, 0] = joined.size

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              s: NDArray | None = None) -> int:
        # the binary game's hook; fit and partial_fit run every problem in _run_pass
        return self._grow_pass(X, y[None, :], order, scores, s)

    def _run_pass(self, X, y_pm: NDArray, order: NDArray, s: NDArray | None = None) -> int:
        # Every problem in one pass: they share the Gram blocks (fit) or the support
        # vectors (partial_fit), which this thread computes before the problems' threads run.
        Y = y_pm[None, :] if y_pm.ndim == 1 else y_pm
        if hasattr(self, "_training"):
            mistakes = self._fit_pass(X, Y, order.astype(np.int64), s)
        else:
            mistakes = self._grow_pass(X, Y, order, np.empty(X.shape[0]), s)
        self.t_ += order.size if s is None else int(np.count_nonzero(s[order]))
        return mistakes

    def _checked(self, result, rows: NDArray) -> int:
        """The mistakes of a compiled pass over the points ``rows`` (NumericalError naming the
        row of ``rows`` where it stopped, if it did)."""
        if result.status != FINITE:
            result = result._replace(row=int(rows[result.row]))
        return check_pass(type(self).__name__, result)

    def _fit_blocks(self, X, order: NDArray):
        """For a pass of fit over X[order]: (Gram rows, the row of each point in them, the
        points), from the cached n x n Gram matrix when it fits in ``cache_size``, else
        from blocks k(X[rows], X)."""
        training, n = self._training, X.shape[0]
        if training.K is None and self._rows_per_block(n, n) == n:
            training.K = self._gram(X, X)
        if training.K is not None:
            yield training.K, order, order
            return
        step = self._rows_per_block(n, n)
        for start in range(0, n, step):
            rows = order[start : start + step]
            yield self._gram(X[rows], X), np.arange(rows.size), rows

    def _fit_pass(self, X, Y: NDArray, order: NDArray, s: NDArray | None = None) -> int:
        """A pass of fit over X[order] for each problem (row of ``Y``), whose slots are the
        training rows (weights ``s``, or None): each Gram block once, then the problems'
        passes over it in ``n_jobs`` threads."""
        self._ensure_gamma(X, s)
        mistakes = 0
        for block in self._fit_blocks(X, order):
            solve = partial(self._fit_block, block=block, Y=Y, s=s)
            mistakes += sum(map_groups(solve, Y.shape[0], self._n_jobs(block[2].size)))
            del block, solve  # freed before the next block is computed
        return mistakes

    def _fit_block(self, group: range, block: tuple, Y: NDArray, s: NDArray | None) -> int:
        """The passes of the problems ``group`` (one thread, one buffer) over a Gram
        ``block`` of fit (see :meth:`_fit_blocks`); each writes only its own state."""
        K, gram_rows, rows = block
        t, fit_b = self._training, bool(self.fit_intercept)
        weights = None if s is None else s[rows]
        scores = np.empty(rows.size)
        mistakes = 0
        for k in group:
            y = Y[k, rows]
            state = DualState(t.coef[k], t.support[k], t.n_support[k],
                              self.intercept_[k : k + 1])
            result = _kernel_perceptron_pass(K, gram_rows, rows, y, state, fit_b, scores,
                                             weights)
            mistakes += self._checked(result, rows)
            updated = y * scores <= 0.0  # the mistakes, each one update
            t.alpha[k, rows] += updated if s is None else updated & (weights > 0.0)
        return mistakes

    def _grow_pass(self, X, Y: NDArray, order: NDArray, scores: NDArray,
                   s: NDArray | None = None) -> int:
        """A progressive pass of partial_fit: the rows that err (with a positive weight in
        ``s``, if given) join the support set. Block by block, the Gram values are computed
        here, then the problems' passes over the block run in ``n_jobs`` threads."""
        self._ensure_gamma(X, s)
        n = order.size
        mistakes = 0
        start = 0
        while start < n:
            m = self.support_vectors_.shape[0]
            step = 1
            while (step < n - start and GRAM_BYTES_PER_ENTRY * (2 * step) * (m + 2 * step)
                   <= self.cache_size * 2**20):
                step *= 2
            step = min(step, n - start)
            rows = order[start : start + step]
            Z = X[rows]
            K = self._gram(Z, Z)
            if m:
                K = np.ascontiguousarray(np.hstack([self._gram(Z, self.support_vectors_), K]))
            new_coef = np.zeros((Y.shape[0], step))
            solve = partial(self._grow_block, K=K, Y=Y, rows=rows,
                            weights=None if s is None else s[rows], new_coef=new_coef)
            made = map_groups(solve, Y.shape[0], self._n_jobs(n))
            mistakes += sum(count for count, _ in made)
            scores[rows] = made[-1][1]  # the last problem's (the game has one)
            joined = np.flatnonzero(np.any(new_coef != 0.0, axis=0))
            if joined.size:
                self.support_vectors_ = _append_rows(self.support_vectors_, Z[joined])
                self.dual_coef_ = np.ascontiguousarray(
                    np.hstack([self.dual_coef_, new_coef[:, joined]]))
                self.alpha_ = np.hstack([self.alpha_,  # a new row errs at most once
                                         (new_coef[:, joined] != 0.0).astype(np.int64)])
                self.support_ = np.concatenate(
                    [self.support_, self.n_rows_seen_ + start + joined]).astype(np.int64)
            start += step
        self.n_rows_seen_ += n
        return mistakes

    def _grow_block(self, group: range, K: NDArray, Y: NDArray, rows: NDArray,
                    weights: NDArray | None, new_coef: NDArray) -> tuple[int, NDArray]:
        """The passes of the problems ``group`` (one thread) over a block of new ``rows``,
        whose Gram values follow those of the m support vectors in ``K``; problem k's
        coefficients of the rows go to ``new_coef[k]``. Returns the mistakes and the scores
        of the group's last problem."""
        m, step = self.support_vectors_.shape[0], rows.size
        slots = np.arange(m, m + step, dtype=np.int64)
        scores = np.empty(step)
        mistakes = 0
        for k in group:
            coef = np.concatenate([self.dual_coef_[k], np.zeros(step)])
            support = np.zeros(m + step, dtype=np.int64)
            old = np.flatnonzero(self.dual_coef_[k])
            support[: old.size] = old
            state = DualState(coef, support, np.array([old.size], dtype=np.int64),
                              self.intercept_[k : k + 1])
            result = _kernel_perceptron_pass(
                K, np.arange(step, dtype=np.int64), slots, np.ascontiguousarray(Y[k, rows]),
                state, bool(self.fit_intercept), scores, weights)
            mistakes += self._checked(result, rows)
            new_coef[k] = coef[m:]
        return mistakes, scores

    def _decision(self, X) -> NDArray[np.float64]:
        n, m = X.shape[0], self.support_vectors_.shape[0]
        scores = np.tile(self.intercept_, (n, 1))
        if m:
            step = self._rows_per_block(n, m)
            for start in range(0, n, step):
                K = self._gram(X[start : start + step], self.support_vectors_)
                scores[start : start + step] += K @ self.dual_coef_.T
        bad = np.flatnonzero(~np.isfinite(scores).all(axis=1))
        if bad.size:  # a Gram value overflowed (e.g. a high-degree "poly" on large features)
            raise NumericalError(type(self).__name__, int(bad[0]), "the score")
        return scores.ravel() if scores.shape[1] == 1 else scores
