"""Kernelized Pegasos (Shalev-Shwartz et al. 2011, section 4): :class:`KernelPegasosSVC`.

The weight vector lives in the span of the training points, w = a sum_j v_j phi(x_j), and
every inner product is read from the Gram matrix K[i, j] = k(x_i, x_j):

    <w_t, phi(x_i)>  = a sum_j v_j K[i, j]                         (O(n) per example)
    violator i       : v_i <- v_i + eta_t s_i y_i / (k a),  alpha_i <- alpha_i + 1
    ||w||^2 update   : + a^2 (2 c (K v)_i + c^2 K[i, i])  with c the change of v_i

so the shrink, the projection and the averaging are the primal ones (the step pieces of
:mod:`halfspaces.linear._pegasos_epochs`). With ``learning_rate="pegasos"``, ``projection=False``,
``average=False`` and ``batch_size=1`` this is the paper's Figure 3: after T steps
w = 1/(lam T) sum_j alpha_j y_j phi(x_j), alpha_j counting the steps where example j violated
the margin. With the linear kernel it runs the same steps as the primal algorithm.

Example weights s_i >= 0 (``sample_weight``) scale a violator's step by s_i, as in the primal
(the s_i above; 1 without weights); rows of weight 0 are left out before the fit.
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from .._base import ClassifierBase, ParamsMixin, SaveMixin, check_is_fitted, check_random_state
from .._checkpoint import epoch_done, resume_point
from .._labels import check_classes, decode_scores, encode_pm
from .._online import keep_params
from .._parallel import N_JOBS, map_problems
from .._primitives import (
    FINITE,
    SCORE_NOT_FINITE,
    WEIGHTS_NOT_FINITE,
    PassResult,
    check_pass,
    example_weight,
    row_dot,
)
from .._validation import validate_X, validate_X_y
from .._weights import CLASS_WEIGHT, check_every_class_weighed, example_weights
from ..exceptions import NumericalError
from ..kernels import CACHE_SIZE, GRAM_BYTES_PER_ENTRY, KERNEL_PARAMS, gram, resolve_gamma
from ..linear._pegasos_base import (
    PEGASOS_PARAMS,
    PegasosOptions,
    PegasosState,
    PegasosVectors,
    fresh_state,
    intercept_decay,
    predictor,
    row_stats,
    step_size,
    suffix_skip,
)
from ..linear._pegasos_epochs import (
    RENORM_BELOW,
    end_step,
    moved,
    next_step,
    shrink,
)
from ..losses import hinge


@njit(cache=True)
def _fold_dual(K, w, st):
    """Renormalise as the primal pass does (v <- a v, u <- u - S v); ||w||^2 = v' K v."""
    v, u = w.v, w.u
    n = v.shape[0]
    if u.shape[0] > 0:
        for j in range(n):
            u[j] -= st.S * v[j]
    for j in range(n):
        v[j] *= st.a
    sq = 0.0
    for i in range(n):
        if v[i] != 0.0:
            for j in range(n):
                sq += v[i] * K[i, j] * v[j]
    return PegasosState(st.t, 1.0, sq, st.b, 0.0, st.bsum, st.csum)


@njit(cache=True)
def _fold_scaled(w, st):
    """Renormalise without the Gram matrix (v <- a v, u <- u - S v), ||w||^2 as tracked."""
    v, u = w.v, w.u
    if u.shape[0] > 0:
        for j in range(v.shape[0]):
            u[j] -= st.S * v[j]
    for j in range(v.shape[0]):
        v[j] *= st.a
    return PegasosState(st.t, 1.0, st.sqnorm, st.b, 0.0, st.bsum, st.csum)


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def kernel_pegasos_epoch(data, order, p, w, st, scores, alpha):
    """One pass of kernelized mini-batch Pegasos over the training points ``order``.

    data : the tuple (K, krow, diag, y, s, whole), unpacked once before the loop: row
    ``krow[q]`` of K (float64, C-contiguous) holds k(x_order[q], x_j) for every training
    point j: the whole n x n Gram matrix (``whole``, ``krow = order``) or a block of its rows
    computed for this part of the pass; diag : k(x_i, x_i); s : float64[n] example weights
    > 0, or None (all 1). w : PegasosVectors over the n training points; alpha : int64[n]
    violation counts; the rest as the primal passes (the same state and result).
    """
    K, krow, diag, y, s, whole = data
    m, k = order.shape[0], p.batch_size
    violators = np.empty(k, dtype=np.int64)
    mistakes = 0
    # The batch's margins are taken as minibatch_epoch takes them, written again on purpose:
    # as one compiled helper it was a call per batch on dense rows, and inlined it added
    # reference-count calls per batch.
    for lo in range(0, m, k):
        hi = min(lo + k, m)
        st = next_step(st)
        n_viol = 0
        for q in range(lo, hi):
            i = order[q]
            score = st.a * row_dot(K, krow[q], w.v) + st.b
            if not abs(score) < np.inf:  # inf or nan (nan <= 0 is false: never a mistake)
                return st, PassResult(mistakes, SCORE_NOT_FINITE, np.int64(i))
            scores[i] = score
            if y[i] * score <= 0.0:  # a tie counts as a mistake
                mistakes += 1
            if y[i] * score < 1.0:
                violators[n_viol] = q
                n_viol += 1
        eta = step_size(p.rate, st.t)
        st = shrink(st, 1.0 - eta * p.lam)
        if abs(st.a) < RENORM_BELOW:
            st = _fold_dual(K, w, st) if whole else _fold_scaled(w, st)
        step = eta / (hi - lo)
        for r in range(n_viol):
            q = violators[r]
            i = order[q]
            e = step * example_weight(s, i)
            c = e * y[i] / st.a  # w += e y_i phi(x_i)  is  v_i += c, e = step s_i
            dsq = st.a * st.a * (2.0 * c * row_dot(K, krow[q], w.v) + c * c * diag[i])
            w.v[i] += c
            if w.u.shape[0] > 0:
                w.u[i] += st.S * c
            alpha[i] += 1
            st = moved(st, dsq, p.b_rate * e * y[i])
        st = end_step(st, p)
    return st, PassResult(mistakes, FINITE, -1)


class KernelPegasosSVC(PegasosOptions, SaveMixin, ParamsMixin, ClassifierBase):
    """Kernel SVM trained by kernelized Pegasos: ``w = sum_j beta_j phi(x_j)``.

    The steps of :class:`~halfspaces.PegasosSVC` in the dual, fitted in one call (no
    ``partial_fit``, no ``warm_start``). A step reads one row of the ``n x n`` Gram matrix:
    the whole matrix is kept when it fits in ``cache_size``, else each pass computes it again
    in blocks of rows that do (memory bounded, time ``O(n^2)`` kernel values a pass).

    Parameters
    ----------
    lam : float, default=1e-4
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        ``k(x, z)`` as scikit-learn's SVC names it; a callable maps ``(X, Z)`` to the Gram
        matrix.
    gamma : float, "scale" or "auto", default="scale"
        Width of the "rbf" and "poly" kernels (as scikit-learn's SVC), in ``gamma_``.
    degree : int, default=3
    coef0 : float, default=0.0
    max_iter, n_iter, batch_size, learning_rate, t0, projection, fit_intercept, average,
    sampling, random_state, tol, record_objective
        As :class:`~halfspaces.PegasosSVC`.
    eta0 : float, "auto" or "calibrate", default="auto"
        As PegasosSVC, with ``"auto"`` (and ``"calibrate"``) ``1 / (2 mean k(x, x))``.
    intercept_decay : float or "auto", default="auto"
        As PegasosSVC; "auto" is the density of ``X`` for the linear kernel and 1 for the
        others (their feature maps are dense).
    cache_size : float > 0, default=200.0
        MB of kernel values held at once (scikit-learn's SVC name and meaning): the Gram
        matrix while it is computed (two floats per entry), or a block of its rows.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems (scikit-learn's meaning: None or 1 is one, -1
        every core): the Gram rows are computed once, then each pass of the classes runs
        in ``min(n_jobs, n_classes)`` threads. Every class takes the same examples in the
        same order, so the model is the same, bit for bit, for every ``n_jobs``.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: example ``i`` of class ``c`` weighs ``class_weight[c]`` (classes
        not named: 1) times its ``sample_weight`` (see :meth:`fit`); ``"balanced"`` is
        ``S / (n_classes S_c)``, ``S_c`` the total ``sample_weight`` of class ``c``.

    Raises
    ------
    NumericalError
        When a kernel value, a score or the weights of a pass become inf or nan.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ : the expansion
        ``w_k = sum_j dual_coef_[k, j] phi(support_vectors_[j])``.
    alpha_ : ndarray of int64, shape (n_models, n_samples)
        ``alpha_[k, i]`` counts the steps in which example ``i`` violated the margin (the
        paper's alpha; with ``sample_weight`` each of those steps was scaled by ``s_i``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    gamma_ : float, the resolved kernel width (nan for the linear kernel)
    classes_, t_, eta0_, intercept_decay_, n_iter_, n_mistakes_, mistakes_per_epoch_,
    objective_history_ : as PegasosSVC.

    References
    ----------
    Shalev-Shwartz, Singer, Srebro, Cotter (2011), "Pegasos: primal estimated sub-gradient
    solver for SVM", Math. Programming 127(1), section 4.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(n_samples=100, noise=0.1, random_state=0)
    >>> clf = KernelPegasosSVC(lam=0.01, gamma=2.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _parameter_constraints = {**PEGASOS_PARAMS, **KERNEL_PARAMS, "n_jobs": N_JOBS,
                              "class_weight": CLASS_WEIGHT, "cache_size": CACHE_SIZE}
    _persist_exclude = ("_fit_state",)  # fit's state: a checkpoint saves checkpoint_form

    def __init__(self, lam: float = 1e-4, *, kernel="rbf", gamma="scale", degree: int = 3,
                 coef0: float = 0.0, max_iter: int = 10, n_iter: int | None = None,
                 batch_size: int = 1, learning_rate: str = "offset", eta0="auto",
                 t0="auto", projection: bool = True, fit_intercept: bool = True,
                 intercept_decay="auto", average="suffix", sampling: str = "permutation",
                 random_state=None, tol: float | None = None, record_objective: bool = False,
                 n_jobs: int | None = None, class_weight=None, cache_size: float = 200.0):
        keep_params(self, locals())

    def _expected_failed_checks(self) -> dict[str, str]:
        """As PegasosSVC's: a weight ``k`` is one step ``k`` times longer, ``k`` copies are
        ``k`` steps (tests/kernel/test_kernel_weights.py tests the rule it is)."""
        reason = "a weight k is one longer step; k copies are k steps"
        return dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                              "check_sample_weight_equivalence_on_sparse_data"), reason)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @property
    def partial_fit(self):
        """Not available: a kernel model is fitted in one call."""
        raise AttributeError(
            "KernelPegasosSVC.partial_fit: a kernel model keeps one coefficient per training"
            " example and is fitted in one call. Use fit, or PegasosSVC (the linear model)"
            " for streams.")

    def _gram(self, X, Z) -> NDArray[np.float64]:
        return gram(X, Z, kernel=self.kernel, gamma=self.gamma_, degree=int(self.degree),
                    coef0=float(self.coef0), owner="KernelPegasosSVC",
                    fix="Give a smaller cache_size.")

    def _block_rows(self, width: int, multiple: int = 1) -> int:
        """Rows of a Gram block of ``width`` columns that fit in ``cache_size`` (a multiple
        of ``multiple``, at least one)."""
        rows = int(self.cache_size * 2**20) // (GRAM_BYTES_PER_ENTRY * max(width, 1))
        return max(multiple, rows // multiple * multiple)

    def _schedule(self, X, diag: NDArray) -> None:
        """``eta0_`` (1 / (2 mean k(x, x)) for "auto"), ``intercept_decay_``, the suffix."""
        if isinstance(self.eta0, str):  # no sample calibration here
            mean_diag = float(np.mean(diag))
            self.eta0_ = 0.5 / mean_diag if mean_diag > 0 else 1.0
        else:
            self.eta0_ = float(self.eta0)
        # "auto" is the density of the features: X's for the linear kernel, 1 for the others
        # (their feature maps are dense).
        linear = not callable(self.kernel) and self.kernel == "linear"
        resolve = linear or not isinstance(self.intercept_decay, str)
        self.intercept_decay_ = (intercept_decay(self.intercept_decay, row_stats(X)[1])
                                 if resolve else 1.0)
        self._suffix_start = float(suffix_skip(self._total_steps(diag.shape[0])))

    def _pass(self, rows: tuple, y: NDArray, order: NDArray, p, problem: tuple,
              alpha: NDArray, s: NDArray | None = None):
        """One pass (or part of one) of one binary problem ``(w, state)`` over the points
        ``order`` whose Gram ``rows`` are ``(K, krow, diag, whole)`` (see
        :func:`kernel_pegasos_epoch`), example weights ``s`` or None; returns ``(state,
        mistakes)``."""
        w, st = problem
        K, krow, diag, whole = rows
        scores = np.empty(diag.shape[0])
        st, result = kernel_pegasos_epoch((K, krow, diag, y, s, whole), order, p, w, st,
                                          scores, alpha)
        mistakes = check_pass("KernelPegasosSVC", result)
        if not (np.isfinite(st[1:]).all() and np.isfinite(w.v).all()
                and np.isfinite(w.u).all()):  # once per pass: O(n) against its O(n^2)
            check_pass("KernelPegasosSVC", PassResult(mistakes, WEIGHTS_NOT_FINITE, order[-1]))
        return st, mistakes

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Run ``max_iter`` epochs (or ``n_iter`` steps) of kernelized Pegasos on ``(X, y)``.

        ``sample_weight`` (``s_i >= 0``, times ``class_weight``) weighs example ``i``'s
        hinge term, as in :meth:`PegasosSVC.fit <halfspaces.PegasosSVC.fit>`: a violator's
        step is scaled by ``s_i``, and a row of weight 0 is left out before the fit (no
        step, no ``t_``, not in ``eta0="auto"``; ``gamma="scale"`` weighs the variance by
        ``s`` as SVC does).
        """
        self._validate_params()
        X, y = validate_X_y(self, X, y, reset=True)
        self.classes_ = check_classes("KernelPegasosSVC", y, None)
        s = example_weights("KernelPegasosSVC.fit", sample_weight, X.shape[0], y,
                            self.class_weight, self.classes_)
        check_every_class_weighed("KernelPegasosSVC.fit", s, y, self.classes_,
                                  self.class_weight)
        rows = None if s is None or (s > 0).all() else np.flatnonzero(s > 0)
        X_all, n_all = X, X.shape[0]
        if rows is not None:  # the fit is the one on the rows of positive weight
            X, y, s = X[rows], y[rows], s[rows]
        y_pm = encode_pm(y, self.classes_)
        ys = [y_pm] if y_pm.ndim == 1 else list(y_pm)
        linear = not callable(self.kernel) and self.kernel == "linear"
        self.gamma_ = float("nan") if linear else resolve_gamma(self.gamma, X, s)
        n = X.shape[0]
        whole = GRAM_BYTES_PER_ENTRY * n * n <= self.cache_size * 2**20
        K = self._checked_gram(X, None, rows) if whole else None
        diag = np.ascontiguousarray(np.diag(K)) if whole else self._diagonal(X, rows)
        self._schedule(X, diag)
        p = self._params(self.eta0_)
        problems, alpha = self._fresh_problems(len(ys), n)
        rows = np.arange(n_all) if rows is None else rows
        done = resume_point(self)  # 0, or the passes of a checkpoint (then its state)
        if done:
            self._resume(problems, alpha, rows)
        self._fit_state = (X_all, problems, alpha, rows)
        # the orders of the passes made are drawn again (the same random numbers), not run
        orders = self._orders(check_random_state(self.random_state), n)
        gram_rows = _GramRows(X, K, diag, rows, self._block_rows(n, int(self.batch_size)))
        try:
            self._run_epochs(itertools.islice(orders, done, None),
                             self._pass_runner(gram_rows, ys, p, s, problems, alpha, done),
                             lambda: self._objectives(gram_rows, ys, s, problems))
        finally:
            del self._fit_state
        self._set_model(X_all, problems, alpha, rows)
        return self

    def _checked_gram(self, X, points: NDArray | None, rows: NDArray | None) -> NDArray:
        """The Gram rows ``k(X[points], X)`` of the training rows ``X`` (``points`` None:
        every row, the whole matrix); a NumericalError names the first row (of the data
        given: ``rows[i]``) whose kernel values are not finite."""
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is the error below
            K = self._gram(X if points is None else X[points], X)
        bad = np.flatnonzero(~np.isfinite(K).all(axis=1))
        if bad.size:
            row = int(bad[0] if points is None else points[bad[0]])
            raise NumericalError("KernelPegasosSVC", row if rows is None else int(rows[row]),
                                 "the kernel k(x_i, x_j)")
        return K

    def _diagonal(self, X, rows: NDArray | None) -> NDArray:
        """``k(x_i, x_i)`` of the rows of X, from diagonal blocks of the Gram matrix (a
        NumericalError names the first row, of the data given, whose value is not finite)."""
        step = 256
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is the error below
            diag = np.concatenate([np.diag(self._gram(X[lo : lo + step], X[lo : lo + step]))
                                   for lo in range(0, X.shape[0], step)])
        bad = np.flatnonzero(~np.isfinite(diag))
        if bad.size:
            row = int(bad[0]) if rows is None else int(rows[bad[0]])
            raise NumericalError("KernelPegasosSVC", row, "the kernel k(x_i, x_j)")
        return diag

    def _fresh_problems(self, n_models: int, n: int) -> tuple[list, NDArray]:
        """``(problems, alpha)`` of a fit starting afresh on ``n`` rows, its counters reset:
        each binary problem's ``(PegasosVectors, PegasosState)``, its violation counts."""
        width = n if self._averaging else 0
        problems = [(PegasosVectors(np.zeros(n), np.zeros(width)), fresh_state())
                    for _ in range(n_models)]
        alpha = np.zeros((n_models, n), dtype=np.int64)
        self.__dict__.pop("objective_history_", None)
        self.t_, self.n_iter_, self.n_mistakes_, self.mistakes_per_epoch_ = 0, 0, 0, []
        for name in _CHECKPOINT_STATE:  # only a checkpoint resumed brings them
            self.__dict__.pop(name, None)
        return problems, alpha

    def _pass_runner(self, gram_rows: _GramRows, ys: list, p, s: NDArray | None,
                     problems: list, alpha: NDArray, done: int):
        """``run_pass(order)`` for ``_run_epochs``: one pass of every binary problem over
        ``order``, block of Gram rows by block, in threads (each writes only its own vectors
        and counts), a checkpoint after each pass past the ``done`` ones of a resumed fit;
        returns the mistakes."""
        passes = itertools.count(done)

        def run_pass(order):
            made = next(passes)
            if made > done:  # the state after pass `made`: a checkpoint when one is due
                epoch_done(self, made)
            order = np.ascontiguousarray(order, dtype=np.int64).view(np.uint64)
            mistakes = 0
            for part, block in self._blocks(gram_rows, order):
                ends = map_problems(lambda k, part=part, block=block: self._pass(
                    block, ys[k], part, p, problems[k], alpha[k], s), len(ys), self.n_jobs)
                for k, (st, _) in enumerate(ends):
                    problems[k] = (problems[k][0], st)
                mistakes += sum(made for _, made in ends)
                del block  # freed before the next block is computed
            self.t_ += -(-order.size // int(self.batch_size))
            return mistakes

        return run_pass

    def _blocks(self, gram_rows: _GramRows, order: NDArray):
        """``(points, (K, krow, diag, whole))`` covering ``order``: the whole Gram matrix
        once, or blocks of ``gram_rows.step`` of its rows, computed here."""
        g = gram_rows
        if g.K is not None:
            yield order, (g.K, order, g.diag, True)
            return
        for lo in range(0, order.size, g.step):  # no reference kept here to a past block
            part = order[lo : lo + g.step]
            yield part, (self._checked_gram(g.X, part.view(np.int64), g.rows),
                         np.arange(part.size, dtype=np.uint64), g.diag, False)

    def _objectives(self, gram_rows: _GramRows, ys: list, s: NDArray | None,
                    problems: list) -> NDArray:
        """J = 1/n sum_i s_i hinge_i + lam/2 beta' K beta of each binary problem's model."""
        models = [predictor(w, st, self._averaging) for w, st in problems]
        B = np.array([beta for beta, _ in models])
        g = gram_rows
        n = B.shape[1]
        KB = (g.K @ B.T if g.K is not None else np.vstack(
            [self._checked_gram(g.X, np.arange(lo, min(lo + g.step, n)), g.rows) @ B.T
             for lo in range(0, n, g.step)]))
        return np.array([np.mean(hinge(y_k * (KB[:, k] + b)) * (1.0 if s is None else s))
                         + 0.5 * self.lam * float(B[k] @ KB[:, k])
                         for k, (y_k, (_, b)) in enumerate(zip(ys, models, strict=True))])
    @contextmanager
    def checkpoint_form(self):
        """While a checkpoint of fit is written: the model so far, and the state of each
        binary problem as PegasosSVC keeps it (``_v``, ``_u``: its vectors over the rows of
        positive weight; ``_scalars``: its PegasosState after ``t``)."""
        X, problems, alpha, rows = self._fit_state
        self._set_model(X, problems, alpha, rows)
        self._v = np.array([w.v for w, _ in problems])
        self._u = np.array([w.u for w, _ in problems])
        self._scalars = np.array([tuple(st)[1:] for _, st in problems], dtype=np.float64)
        try:
            yield
        finally:
            for name in _CHECKPOINT_STATE:
                delattr(self, name)

    def _resume(self, problems: list, alpha: NDArray, rows: NDArray) -> None:
        """fit's state from the checkpoint resumed (see :meth:`checkpoint_form`), in place
        of the fresh ``problems`` and ``alpha``; the Gram matrix was computed again."""
        v, u, scalars = (self.__dict__.pop(name) for name in _CHECKPOINT_STATE)
        if v.shape != (len(problems), rows.size) or u.shape[1] != problems[0][0].u.size:
            raise ValueError(f"KernelPegasosSVC: the checkpoint holds the state of a fit on"
                             f" {v.shape[1]} rows, and this one has {rows.size}")
        alpha[...] = self.alpha_[:, rows]
        for k, (w, _) in enumerate(problems):
            w.v[...], w.u[...] = v[k], u[k]
            problems[k] = (w, PegasosState(int(self.t_), *scalars[k]))

    def _set_model(self, X, problems: list, alpha: NDArray, rows: NDArray) -> None:
        """The model of ``problems`` (and counts ``alpha``) over the rows ``rows`` of X."""
        models = [predictor(w, st, self._averaging) for w, st in problems]
        beta = np.array([w for w, _ in models])
        support = np.flatnonzero(np.any(beta != 0.0, axis=0))
        self.support_ = rows[support]
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = np.ascontiguousarray(beta[:, support])
        self.intercept_ = np.array([b for _, b in models], dtype=np.float64)
        self.alpha_ = np.zeros((alpha.shape[0], X.shape[0]), dtype=np.int64)
        self.alpha_[:, rows] = alpha

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores ``sum_j dual_coef_[k, j] k(sv_j, x) + b_k``: ``(n,)`` for two classes,
        ``(n, n_classes)`` for one-vs-rest."""
        check_is_fitted(self, "dual_coef_")
        X = validate_X(self, X, reset=False)
        scores = np.zeros((X.shape[0], self.dual_coef_.shape[0])) + self.intercept_
        if self.support_.size:
            step = self._block_rows(self.support_.size)
            for lo in range(0, X.shape[0], step):
                scores[lo : lo + step] += (self._gram(X[lo : lo + step], self.support_vectors_)
                                           @ self.dual_coef_.T)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """Labels: ``classes_[1]`` when the score is ``>= 0`` (binary), argmax (OvR)."""
        return decode_scores(self.decision_function(X), self.classes_)


class _GramRows(NamedTuple):
    """Where fit's passes read the Gram rows of the training rows ``X``: the whole matrix
    ``K``, or (``K`` None) blocks of ``step`` rows computed in each pass; ``diag`` its
    diagonal; ``rows`` the rows of the data given (None: all) for the errors."""

    X: object
    K: NDArray | None
    diag: NDArray
    rows: NDArray | None
    step: int


_CHECKPOINT_STATE = ("_v", "_u", "_scalars")

__all__ = ["KernelPegasosSVC"]
