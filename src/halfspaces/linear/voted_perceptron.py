"""Voted perceptron (Freund & Schapire 1999). Labels y_t in {-1,+1}.

    The perceptron runs as usual (w_1 = 0, b_1 = 0; mistake if y_t (<w_t, x_t> + b_t) <= 0,
    then w <- w + y_t x_t, b <- b + y_t) and keeps every prediction vector it passes through:
        v_1 = 0, v_{k+1} = v_k + y_{m_k} x_{m_k}     (m_k = the round of the k-th mistake)
        c_k = number of rounds after which v_k was the current vector (its survival count)
    Prediction by weighted vote:   yhat(x) = sign( sum_k c_k sign(<v_k, x> + b_k) )

Example weights s_t >= 0 (``sample_weight`` times ``class_weight``): the update is the
weighted perceptron's, v_{k+1} = v_k + s_{m_k} y_{m_k} x_{m_k} (b alike), and a round adds
s_t to the count of the vector current after it, c_k = the total weight of the rounds v_k
survived (and of the mistake that made it). A row of weight 0 is skipped: no update, no
count, no round.

Storage: not the vectors v_k (a dense d-vector per mistake would not fit when d is huge)
but the mistake rows x_{m_k} themselves (CSR, O(nnz) per mistake) with their labels. The
scores of all v_k on a new x come from one prefix sum:
        <v_{k+1}, x> = <v_k, x> + y_{m_k} <x_{m_k}, x>
so one prediction costs O(nnz of the stored mistakes), what storing dense v_k would cost.

A budget (``max_vectors`` = B) bounds what is kept. After each call that adds vectors, the
oldest vectors beyond the last B leave the vote and join one averaged voter:
        a <- a + c_k v_k,   C <- C + c_k     (and the offsets alike)
        yhat(x) = sign( sum_{kept k} c_k sign(<v_k, x> + b_k) + C sign(<a, x> + b_a) )
a is the averaged perceptron (Freund & Schapire's "average" variant) of the vectors merged,
so the predictor goes from the voted perceptron (B = infinity) towards the averaged one as
B shrinks. The oldest kept vector becomes a dense base u (the merged mistakes summed), and
the prefix sum starts from <u, x> instead of 0.
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import ArrayLike, NDArray

from .._online import keep_params
from .._primitives import (
    CSR,
    FINITE,
    SCORE_NOT_FINITE,
    PassResult,
    example_weight,
    n_rows,
    row_as_dense,
    row_axpy,
    row_clear,
    row_dot,
    row_dot_in_order,
)
from .._specs import NONE, Int, OneOf
from ..calibration import ensemble_is_stored
from .perceptron import Perceptron, perceptron_pass


class Vectors(NamedTuple):
    """The vectors v_1..v_{M+1} of every binary model, as stored: the mistake rows x_{m_k}
    (CSR), their labels y_{m_k} and offset increments (y or 0), and the survival counts c_k.
    Model k owns rows ptr[k]..ptr[k+1]-1 and counts ptr[k]+k..ptr[k+1]+k.

    With a budget, the vectors merged out of the vote: the oldest kept vector of model k is
    base[k] (offset base_b[k]) rather than 0, and the merged ones vote as one, with weight
    merged_c[k], by the sign of <merged[k], x> + merged_b[k]. Without one (base has no
    columns) none of them is read."""

    rows: CSR
    y: np.ndarray
    b: np.ndarray
    ptr: np.ndarray
    counts: np.ndarray
    base: np.ndarray
    base_b: np.ndarray
    merged: np.ndarray
    merged_b: np.ndarray
    merged_c: np.ndarray


@njit(cache=True)
def _merged(X, i, V, k):
    """What the vectors merged out of model k's vote give on row i of X: (<base_k, x_i>,
    base_b[k], the merged voter's vote, its score); zeros without a budget."""
    if V.base.shape[1] == 0:
        return 0.0, 0.0, 0.0, 0.0
    score = row_dot(X, i, V.merged[k]) + V.merged_b[k]
    c = V.merged_c[k]
    return row_dot(X, i, V.base[k]), V.base_b[k], c if score >= 0.0 else -c, score


@njit(cache=True)
def _vote(x, V, k, s, b):
    """The vote sum_i c_i sign(<v_i, x> + b_i) of model k's kept vectors on the dense x (a
    vector votes +1 on a score >= 0), by the prefix sum <v_{i+1}, x> = <v_i, x> +
    y_{m_i} <x_{m_i}, x>, from s = <v_1, x> and b = b_1 (0 and 0 when nothing was merged).

    Returns (vote, <v_{M+1}, x>, b_{M+1}), so a caller can continue the prefix sum. Once a
    score of the prefix sum is inf or nan every later one is too: a caller checks the last
    to know that every vote was cast on a finite score.
    """
    lo, hi = V.ptr[k], V.ptr[k + 1]
    counts = V.counts[lo + k :]
    vote = counts[0] if s + b >= 0.0 else -counts[0]
    for j in range(lo, hi):
        s += V.y[j] * row_dot_in_order(V.rows, j, x)
        b += V.b[j]
        c = counts[1 + j - lo]
        vote += c if s + b >= 0.0 else -c
    return vote, s, b


@njit(cache=True)
def _vote_scores(X, V, work, out):
    """out[i, k] = the vote of binary model k on row i of X (work: zeroed float64[d]); a
    PassResult that stops at the first row where a vector's score is inf or nan."""
    for i in range(n_rows(X)):
        x = row_as_dense(X, i, work)
        for k in range(V.ptr.shape[0] - 1):
            s, b, merged_vote, merged_score = _merged(X, i, V, k)
            vote, s, _ = _vote(x, V, k, s, b)
            out[i, k] = vote + merged_vote
            if not (math.isfinite(s) and math.isfinite(merged_score)):
                return PassResult(0, SCORE_NOT_FINITE, i)
        row_clear(X, i, work)
    return PassResult(0, FINITE, -1)


@njit(cache=True)
def _count_survivals(y, scores, order, counts, mistake_rows, s):
    """After a perceptron pass that recorded ``scores``: counts[0] (in: the current vector's
    count) and counts[1..m] become the counts of the vectors made in the pass, and
    mistake_rows[:m] their rows. Returns m. A round counts its example weight ``s_t``
    (``s`` None: 1); a row of weight 0 was skipped by the pass and counts nothing."""
    m = 0
    for t in order:
        s_t = example_weight(s, t)
        if s_t == 0.0:
            continue
        if y[t] * scores[t] <= 0.0:  # the pass updated here: a new vector, counting this round
            mistake_rows[m] = t
            m += 1
            counts[m] = s_t
        else:
            counts[m] += s_t
    return m


@njit(cache=True)
def _voted_play(X, y, w, b, fit_intercept, V, new_rows, scores):
    """The game of a binary model in order: scores[t] = the vote before round t (what
    ``score_one`` returns); the update is the running perceptron's (w, b).

    V.counts has room after the stored counts for those of the vectors this game makes,
    whose rows go to new_rows. Their rows are read from X, non-zeros in order: the very
    sums their stored copies give later. Returns a PassResult (its mistakes: the new
    vectors) as ``_perceptron_epoch`` does, which also says why w needs no check; the
    vote's scores are checked too.
    """
    n_stored = V.ptr[1]
    m = 0
    work = np.zeros(w.shape[0])
    for t in range(n_rows(X)):
        x_t = row_as_dense(X, t, work)
        s, bk, vote, merged_score = _merged(X, t, V, 0)
        v, s, bk = _vote(x_t, V, 0, s, bk)
        vote += v
        for q in range(m):  # the vectors made in this game so far
            r = new_rows[q]
            s += y[r] * row_dot_in_order(X, r, x_t)
            if fit_intercept:
                bk += y[r]
            c = V.counts[n_stored + 1 + q]
            vote += c if s + bk >= 0.0 else -c
        row_clear(X, t, work)
        scores[t] = vote
        score = row_dot(X, t, w) + b[0]
        if not (math.isfinite(score) and math.isfinite(s) and math.isfinite(merged_score)):
            return PassResult(m, SCORE_NOT_FINITE, t)
        if y[t] * score <= 0.0:  # the running perceptron's mistake: a new vector
            row_axpy(X, t, y[t], w)
            if fit_intercept:
                b[0] += y[t]
            new_rows[m] = t
            m += 1
            V.counts[n_stored + m] = 1.0
        else:
            V.counts[n_stored + m] += 1.0
    return PassResult(m, FINITE, -1)


_STORE_LOCK = threading.Lock()  # guards the vectors' store of the one-vs-rest problems


class VotedPerceptron(Perceptron):
    """The voted perceptron: every vector the perceptron passes through votes, weighted by
    the number of rounds it survived.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset: :math:`b_{k+1} = b_k + y_{m_k}` with each vector.
    max_iter : int, default=100
        Most passes ``fit`` makes (the paper's :math:`T` epochs); it stops earlier after a
        pass in which the running perceptron makes no mistake (``converged_`` is then True).
    shuffle, random_state, warm_start, probability, ensemble, early_stopping, \
validation_fraction, n_iter_no_change, n_jobs, class_weight
        As for :class:`~halfspaces.linear.Perceptron` (``ensemble=True`` is refused: each
        fold's vote over its stored vectors is not kept, ``"auto"`` is ``False``;
        ``class_weight`` multiplies ``sample_weight``, see the Notes; ``warm_start``
        continues from the current vectors; with ``n_jobs``, the classes' perceptron passes
        run in threads and their new vectors are stored one class at a time).
    max_vectors : int >= 1 or None, default=None
        A budget: the most vectors that vote one by one. None keeps every vector (memory
        and prediction time grow with the mistakes, without bound on a stream). Beyond the
        budget, the oldest vectors are merged into one averaged voter (see Notes) after
        each call that added vectors (an epoch of ``fit``, a call of ``partial_fit``,
        ``learn_one`` or of the game).

    Attributes
    ----------
    current_coef_, current_intercept_ : ndarray of shape (n_models, n_features), (n_models,)
        The running perceptron :math:`v_{M+1}, b_{M+1}` (what the update rule tests).
    vote_counts_ : ndarray of float64
        Survival counts :math:`c_1..c_{M+1}` of each binary model, model after model (model
        ``k`` owns ``vote_counts_[mistake_ptr_[k] + k : mistake_ptr_[k + 1] + k + 1]``);
        with ``sample_weight``, the total weight of the rounds survived.
    mistake_ptr_ : ndarray of int64, shape (n_models + 1,)
        Model ``k``'s mistakes are rows ``mistake_ptr_[k]:mistake_ptr_[k + 1]`` below.
    mistake_data_, mistake_indices_, mistake_indptr_ : ndarray
        The mistake rows :math:`x_{m_k}` in CSR form (float64 values).
    mistake_y_, mistake_b_ : ndarray of float64
        Their steps :math:`s_{m_k} y_{m_k}` (the labels, times the example weights with
        ``sample_weight``) and the offset increments (the step, or 0).
    base_coef_, base_intercept_ : ndarray of shape (n_models, n_features or 0), (n_models,)
        The oldest kept vector :math:`u, b_u` (the merged mistakes summed); no columns while
        nothing was merged.
    merged_coef_, merged_intercept_, merged_count_ : ndarray
        The merged voter :math:`a = \\sum c_k v_k`, :math:`b_a = \\sum c_k b_k` over the
        vectors merged, and its weight :math:`C = \\sum c_k` (shapes as the base's).
    classes_, n_mistakes_, mistakes_per_epoch_, converged_, n_iter_, t_
        As for :class:`~halfspaces.linear.Perceptron` (mistakes are the running
        perceptron's).

    Notes
    -----
    .. math::

        \\hat y(x) = \\operatorname{sign}\\Big(\\sum_{k=1}^{M+1} c_k\\,
            \\operatorname{sign}(\\langle v_k, x\\rangle + b_k)\\Big),
        \\qquad \\langle v_{k+1}, x\\rangle = \\langle v_k, x\\rangle
            + y_{m_k} \\langle x_{m_k}, x\\rangle

    with :math:`\\operatorname{sign}(0) = +1`, the tie rule of ``predict``.
    ``decision_function`` returns the vote sum (an integer-valued float). :math:`c_k` counts
    the rounds after which :math:`v_k` was the current vector; a new vector counts the
    round of the mistake that made it, so :math:`\\sum_k c_k = T` and the averaged
    perceptron is :math:`\\frac1T\\sum_k c_k v_k`.

    ``sample_weight`` (``fit``, ``partial_fit``; times ``class_weight``) weighs the rounds:
    a mistake on a row of weight :math:`s_t` makes :math:`v_{k+1} = v_k + s_t y_t x_t` (as
    :class:`~halfspaces.linear.Perceptron`'s weighted update), and every round adds
    :math:`s_t` instead of 1 to the count of the vector current after it, so
    :math:`\\sum_k c_k = \\sum_t s_t` and an integer weight :math:`k` counts as :math:`k`
    rounds survived (not :math:`k` repeated rows: a copy after the first may be no mistake).
    A row of weight 0 is skipped (no update, no count, not in ``t_``). A budget merges
    the weighted counts alike: :math:`a = \\sum c_k v_k`, :math:`C = \\sum c_k`.

    Memory is the mistake rows (``O(nnz)`` per mistake, float64 values), never a dense
    d-vector per mistake; a prediction costs ``O(nnz of all mistake rows)`` per example
    and class, as the paper's algorithm does. Without a budget both grow with the mistakes:
    on a noisy stream, without bound (``benchmarks/bench_soak.py``: on 10 million rows of
    10 non-zeros with 5% label noise, 1.8 million vectors, the model's arrays grew by 27 MB
    per million rows to 276 MB and ``partial_fit`` slowed from 8.3 to 1.0 million rows per
    CPU second, as each call copies the store to append to it; with ``max_vectors=1000``:
    0.4 MB and 5.4 million rows per CPU second throughout). ``max_vectors=B`` bounds them:
    after each call, the oldest vectors beyond the last :math:`B` are merged,

    .. math::

        \\hat y(x) = \\operatorname{sign}\\Big(\\sum_{k\\ \\text{kept}} c_k\\,
            \\operatorname{sign}(\\langle v_k, x\\rangle + b_k)
            + C \\operatorname{sign}(\\langle a, x\\rangle + b_a)\\Big),
        \\qquad a = \\sum_{k\\ \\text{merged}} c_k v_k,\\quad C = \\sum_{k\\ \\text{merged}} c_k

    so that the vote of the old vectors is replaced by the vote of their average, the
    approximation Freund & Schapire propose for the whole vote (the averaged perceptron).
    Memory is then ``B`` mistake rows plus three dense d-vectors per class (two of them
    allocated at the first merge) and the mistakes of one call. Only vectors that no
    longer change are merged, so the model after a sequence of calls does not depend on
    how the data was split between them, but for rounding: the merged sums ``a`` and the
    base vector are added up a call's vectors at a time, so another split groups the same
    terms otherwise (exactly the same on integer-valued data; on real values within a few
    units in the last place, e.g. 1e-15 on values of order 1). So ``fit`` (one merge a
    pass) and a stream of several blocks (``fit_stream``, ``halfspaces train``) agree to
    that rounding, not bit for bit. The game's scores within one call depend on the split
    (a vector made in the call is merged at its end).

    **The online game** (:func:`halfspaces.online.play`, ``score_one``/``predict_one``) is
    played by the *voted* predictor: the score of round :math:`t` is the vote of the
    vectors so far, and the update is decided by the running perceptron. The compiled pass
    and the one-example loop give bit-identical scores. A round of the game costs
    ``O(nnz of the mistake rows so far)``.

    References
    ----------
    Freund & Schapire (1999), "Large margin classification using the perceptron algorithm",
    Machine Learning 37(3).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    >>> clf = VotedPerceptron(fit_intercept=False).partial_fit(X, [1, 1, -1], classes=[-1, 1])
    >>> clf.vote_counts_   # v_1 = 0, v_2 = [1, 0] (1 round), v_3 = [1, 1] (2 rounds)
    array([0., 1., 2.])
    >>> clf.decision_function(np.array([[1.0, -2.0], [2.0, 1.0]]))   # 0 + 1 - 2, 0 + 1 + 2
    array([-1.,  3.])
    """

    _parameter_constraints = {**Perceptron._parameter_constraints,
                              "max_vectors": OneOf(NONE, Int(low=1))}
    _parameter_rules = (ensemble_is_stored,)

    def _fold_models_refused(self) -> str | None:
        return "a voted perceptron per fold, each with every vector it stored, is not kept"

    def __init__(self, *, fit_intercept: bool = True, max_iter: int = 100, shuffle: bool = True,
                 random_state=None, warm_start: bool = False, probability: bool = False,
                 ensemble="auto", early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5, max_vectors: int | None = None,
                 n_jobs: int | None = None, class_weight=None):
        keep_params(self, locals())

    # fit does not compare the vote with the majority class: its training predictions cost
    # O(n x nnz of every stored mistake), far more than fit's passes on noisy data.
    _checks_majority = False

    _per_feature = ("current_coef_", "base_coef_", "merged_coef_")

    def _widen(self, n_features: int) -> None:
        super()._widen(n_features)
        if n_features > np.iinfo(self.mistake_indices_.dtype).max:  # as _init_state chooses
            self.mistake_indices_ = self.mistake_indices_.astype(np.int64)

    def _init_state(self, X, n_models: int) -> None:
        d = X.shape[1]
        self.current_coef_ = np.zeros((n_models, d), dtype=np.float64)
        self.current_intercept_ = np.zeros(n_models, dtype=np.float64)
        self.vote_counts_ = np.zeros(n_models, dtype=np.float64)
        self.mistake_ptr_ = np.zeros(n_models + 1, dtype=np.int64)
        index_dtype = np.int32 if d <= np.iinfo(np.int32).max else np.int64
        self.mistake_data_ = np.zeros(0, dtype=np.float64)
        self.mistake_indices_ = np.zeros(0, dtype=index_dtype)
        self.mistake_indptr_ = np.zeros(1, dtype=np.int64)
        self.mistake_y_ = np.zeros(0, dtype=np.float64)
        self.mistake_b_ = np.zeros(0, dtype=np.float64)
        self.base_coef_ = np.zeros((n_models, 0), dtype=np.float64)  # d columns once merging
        self.merged_coef_ = np.zeros((n_models, 0), dtype=np.float64)
        self.base_intercept_ = np.zeros(n_models, dtype=np.float64)
        self.merged_intercept_ = np.zeros(n_models, dtype=np.float64)
        self.merged_count_ = np.zeros(n_models, dtype=np.float64)

    # -- storage ---------------------------------------------------------------------------
    def _vectors(self, counts: NDArray | None = None) -> Vectors:
        rows = CSR(self.mistake_data_, self.mistake_indices_, self.mistake_indptr_)
        return Vectors(rows, self.mistake_y_, self.mistake_b_, self.mistake_ptr_,
                       self.vote_counts_ if counts is None else counts, self.base_coef_,
                       self.base_intercept_, self.merged_coef_, self.merged_intercept_,
                       self.merged_count_)

    def _append(self, k: int, X, rows: NDArray, y: NDArray, counts: NDArray) -> None:
        """Give model k the vectors made by mistakes on X[rows] with steps ``y`` (the labels,
        times the example weights where weighted); ``counts`` (len(rows) + 1) replaces its
        current vector's count and adds the new ones."""
        hi = int(self.mistake_ptr_[k + 1])
        if rows.size == 0:
            self.vote_counts_[hi + k] = counts[0]
            return  # no new vector: nothing to merge
        if sp.issparse(X):
            R = X[rows]
        else:  # keep the non-zeros in index order: the compiled play pass sums exactly those
            R = sp.csr_matrix(X[rows])
        b = y * (1.0 if self.fit_intercept else 0.0)
        c = self.vote_counts_
        self.vote_counts_ = np.concatenate([c[: hi + k], counts, c[hi + k + 1 :]])
        self.mistake_y_ = np.concatenate([self.mistake_y_[:hi], y, self.mistake_y_[hi:]])
        self.mistake_b_ = np.concatenate([self.mistake_b_[:hi], b, self.mistake_b_[hi:]])
        ip = self.mistake_indptr_
        cut = int(ip[hi])
        self.mistake_data_ = np.concatenate(
            [self.mistake_data_[:cut], R.data.astype(np.float64), self.mistake_data_[cut:]])
        self.mistake_indices_ = np.concatenate(
            [self.mistake_indices_[:cut], R.indices.astype(self.mistake_indices_.dtype),
             self.mistake_indices_[cut:]])
        self.mistake_indptr_ = np.concatenate(
            [ip[: hi + 1], cut + R.indptr[1:].astype(np.int64), ip[hi + 1 :] + R.nnz])
        self.mistake_ptr_[k + 1 :] += rows.size
        self._merge_beyond_budget(k)

    def _merge_beyond_budget(self, k: int) -> None:
        """Merge model k's oldest vectors v_1..v_e beyond the budget into the averaged voter:
        a += sum_j c_j v_j with v_j = u + sum_{i<j} y_i x_i, i.e. C_e u plus each merged row
        weighted by the counts of the vectors after it; the base u moves to v_{e+1}."""
        lo, hi = int(self.mistake_ptr_[k]), int(self.mistake_ptr_[k + 1])
        if self.max_vectors is None or hi - lo + 1 <= self.max_vectors:
            return
        e = hi - lo + 1 - self.max_vectors
        n_models, d = self.current_coef_.shape
        if self.base_coef_.shape[1] != d:
            self.base_coef_ = np.zeros((n_models, d))
            self.merged_coef_ = np.zeros((n_models, d))
        c = self.vote_counts_[lo + k : lo + k + e]
        after = np.cumsum(c[::-1])[::-1]  # after[i] = c_i + ... + c_e
        weights = np.append(after[1:], 0.0)  # row i is in v_{i+1}..v_e
        ip = self.mistake_indptr_
        cut_lo, cut_hi = int(ip[lo]), int(ip[lo + e])
        R = sp.csr_matrix((self.mistake_data_[cut_lo:cut_hi],
                           self.mistake_indices_[cut_lo:cut_hi], ip[lo : lo + e + 1] - cut_lo),
                          shape=(e, d))
        y, b = self.mistake_y_[lo : lo + e], self.mistake_b_[lo : lo + e]
        self.merged_coef_[k] += after[0] * self.base_coef_[k] + R.T @ (weights * y)
        self.merged_intercept_[k] += after[0] * self.base_intercept_[k] + weights @ b
        self.merged_count_[k] += after[0]
        self.base_coef_[k] += R.T @ y
        self.base_intercept_[k] += b.sum()
        self.vote_counts_ = np.delete(self.vote_counts_, np.s_[lo + k : lo + k + e])
        self.mistake_y_ = np.delete(self.mistake_y_, np.s_[lo : lo + e])
        self.mistake_b_ = np.delete(self.mistake_b_, np.s_[lo : lo + e])
        self.mistake_data_ = np.delete(self.mistake_data_, np.s_[cut_lo:cut_hi])
        self.mistake_indices_ = np.delete(self.mistake_indices_, np.s_[cut_lo:cut_hi])
        self.mistake_indptr_ = np.concatenate([ip[: lo + 1],
                                               ip[lo + e + 1 :] - (cut_hi - cut_lo)])
        self.mistake_ptr_[k + 1 :] -= e

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """The batch perceptron's passes (:meth:`BatchPerceptronMixin.fit`).
        ``sample_weight`` (``s_t >= 0``) scales each update, ``w += s_t y_t x_t``, and each
        round adds ``s_t`` to the vote of the vector it leaves current (see the Notes); a
        row of weight 0 is skipped."""
        return self._batch_fit(X, y, sample_weight)

    # -- hooks -----------------------------------------------------------------------------
    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              s: NDArray | None = None) -> int:
        w, b = self.current_coef_[k], self.current_intercept_[k : k + 1]
        mistakes = perceptron_pass(X, y, w, b, bool(self.fit_intercept), order, scores,
                                   type(self).__name__, s)
        counts = np.empty(order.size + 1, dtype=np.float64)
        rows = np.empty(mistakes, dtype=np.int64)
        # The classes share the store: one at a time (n_jobs threads). Class k's vectors go
        # to its own segment, so the store is the same in whatever order the classes come.
        with _STORE_LOCK:
            counts[0] = self.vote_counts_[self.mistake_ptr_[k + 1] + k]
            _count_survivals(y, scores, order, counts, rows, s)
            steps = y[rows] if s is None else s[rows] * y[rows]  # v_{k+1} = v_k + s y x
            self._append(k, X, rows, steps, counts[: mistakes + 1])
        return mistakes

    def _play_pass(self, X, y_pm: NDArray, scores: NDArray) -> int:
        """The game in one compiled pass; scores are the vote (see Notes)."""
        n, hi = X.shape[0], int(self.mistake_ptr_[1])  # binary: every stored mistake is k=0's
        counts = np.empty(hi + 1 + n, dtype=np.float64)
        counts[: hi + 1] = self.vote_counts_
        new_rows = np.empty(n, dtype=np.int64)
        m = self._compiled(_voted_play, X, y_pm, self.current_coef_[0],
                           self.current_intercept_[:1], bool(self.fit_intercept),
                           self._vectors(counts), new_rows, scores)
        self._append(0, X, new_rows[:m], y_pm[new_rows[:m]], counts[hi : hi + m + 1])
        return m

    def _decision(self, X) -> NDArray[np.float64]:
        out = np.empty((X.shape[0], self.mistake_ptr_.size - 1), dtype=np.float64)
        self._compiled(_vote_scores, X, self._vectors(), np.zeros(X.shape[1]), out,
                       what="the score of a voting vector")
        return out.ravel() if out.shape[1] == 1 else out
