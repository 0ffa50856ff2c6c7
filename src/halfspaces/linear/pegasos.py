"""Pegasos: primal estimated sub-gradient solver for the SVM (Shalev-Shwartz et al. 2007, 2011).

Labels y_i in {-1,+1}. Objective (the lam form of the notes):

    J(w, b) = lam/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (<w, x_i> + b))

Step t (batch A_t of k examples drawn from the data; k = 1 is plain Pegasos):

    A_t^+     = {i in A_t : y_i (<w_t, x_i> + b_t) < 1}                (margin violators)
    eta_t     = 1/(lam t)  ("pegasos"),  1/t ("notes"),  eta0 ("constant"),
                1/(lam (t + t0))  ("offset", Bottou's schedule)
    w_{t+1/2} = (1 - eta_t lam) w_t + eta_t/k sum_{i in A_t^+} y_i x_i
    b_{t+1}   = b_t + rho eta_t/k sum_{i in A_t^+} y_i                (only with fit_intercept;
                                                                    rho = intercept_decay)
    w_{t+1}   = min(1, 1/(sqrt(lam) ||w_{t+1/2}||)) w_{t+1/2}        (only with projection)

The compiled passes that run these steps (w stored as a v, the averaging sums) are in
:mod:`halfspaces.linear._pegasos_epochs`; the kernelized form
(:mod:`halfspaces.kernel.kernel_pegasos`) runs the same steps in the dual.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base import check_random_state, safe_sparse_dot
from .._checkpoint import epoch_done, resume_point
from .._early_stopping import hold_out
from .._labels import check_classes, encode_pm
from .._online import OnlineClassifier, keep_params
from .._parallel import map_problems
from .._params import PEGASOS_SVC
from .._primitives import FINITE, WEIGHTS_NOT_FINITE, PassResult, check_pass, dot_dense
from .._streaming import StreamFit, StreamRows, Summary, shifted
from .._validation import param_error, validate_X, validate_X_y
from ..calibration import ProbabilityMixin, fit_probability
from ..exceptions import NumericalError
from ..losses import agreements, hinge, svm_objective
from ._pegasos_base import (
    PegasosOptions,
    PegasosState,
    PegasosVectors,
    fresh_state,
    intercept_decay,
    predictor,
    row_stats,
    suffix_skip,
)
from ._pegasos_epochs import run_epoch

_ETA0_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)  # multiples of 1 / mean ||x||^2
_CALIBRATION_SIZE = 1000


def _calibrate_eta0(est, X, y: NDArray, sample: NDArray, s: NDArray | None = None) -> float:
    """Pick eta0 by one pass over a small sample for each candidate (Bottou's heuristic).

    Candidates are ``c / mean ||x||^2`` for ``c`` in ``_ETA0_GRID``; the one with the lowest
    objective J on the sample wins and half of it is returned (a sample favours slightly
    larger steps than the full data, where more steps follow). With example weights ``s``
    the passes and J are weighted.
    """
    Xs, ys = X[sample], y[sample]
    ss = None if s is None else s[sample]
    sq_norms = row_stats(Xs)[0]
    r2 = float(np.mean(sq_norms))
    if not r2 > 0:
        return 1.0
    order = np.arange(sample.size, dtype=np.uint64)
    best, best_eta0 = np.inf, 1.0 / r2
    for c in _ETA0_GRID:
        eta0 = c / r2
        w = PegasosVectors(np.zeros(X.shape[1]), np.zeros(X.shape[1] if est._averaging else 0))
        st, result = run_epoch(Xs, ys, order, est._params(eta0), w, fresh_state(),
                               np.empty(0), sq_norms, ss)
        if result.status != FINITE:
            continue  # this step size overflows the weights
        coef, b = predictor(w, st, est._averaging)
        J = _objective(coef, b, Xs, ys, float(est.lam), ss)
        if J < best:
            best, best_eta0 = J, eta0
    return best_eta0 / 2.0


def _objective(coef: NDArray, b: float, X, y: NDArray, lam: float,
               s: NDArray | None) -> float:
    """``J = lam/2 ||w||^2 + 1/n sum_i s_i hinge_i`` (``s`` None: the unweighted J)."""
    if s is None:
        return svm_objective(coef, b, X, y, lam=lam)
    return float(np.mean(s * hinge(agreements(coef, b, X, y)))) + 0.5 * lam * float(
        np.dot(coef, coef))


def _linear_only(estimator) -> None:
    """PegasosSVC's ``kernel`` stays None: the kernel form is KernelPegasosSVC."""
    if estimator.kernel is not None:
        raise param_error("PegasosSVC", "kernel", "None (PegasosSVC is the linear, primal"
                          " algorithm)", estimator.kernel,
                          f"Use KernelPegasosSVC(kernel={estimator.kernel!r}) for kernelized"
                          " Pegasos.")


class PegasosSVC(ProbabilityMixin, PegasosOptions, OnlineClassifier):
    """Linear SVM trained by Pegasos stochastic sub-gradient steps (the primal algorithm).

    Minimizes the lam form of the soft-margin SVM objective
    ``J(w, b) = lam/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (<w, x_i> + b))``
    with one (mini-batch) sub-gradient step per sampled batch, in O(nnz) per example on
    sparse input.

    Parameters
    ----------
    lam : float, default=1e-4
        lambda, the regularization of the objective (``C = 1/(lam n)`` in the C form). Finite,
        and large enough that the steps ``1/lam`` and ``t0 = 1/(lam eta0)`` are finite (a
        ValueError otherwise: ``lam = 5e-324`` would make them inf).
    max_iter : int, default=10
        Epochs of ``fit``: each is ``ceil(n / batch_size)`` steps.
    n_iter : int or None, default=None
        Number of steps ``T`` of ``fit``, as in the paper; overrides ``max_iter``.
    batch_size : int, default=1
        ``k`` of mini-batch Pegasos: the sub-gradient is averaged over ``k`` examples whose
        margins are all computed with ``w_t``. The last batch of an epoch may be smaller.
    learning_rate : {"offset", "pegasos", "notes", "constant"}, default="offset"
        The step size: ``"pegasos"`` is the paper's ``1/(lam t)``; ``"notes"`` is ``1/t`` (the
        6.036 lecture notes); ``"constant"`` is ``eta0``; ``"offset"`` is
        ``1/(lam (t + t0)) = eta0 / (1 + lam eta0 t)`` (Bottou 2010): about ``eta0`` for the
        first ``t0`` steps, then the paper's ``1/(lam t)``.
    eta0 : float, "auto" or "calibrate", default="auto"
        The first step of ``"offset"`` and the step of ``"constant"``. ``"auto"`` is
        ``1 / (2 mean ||x||^2)`` over the training rows: a step of ``1 / ||x||^2`` moves the
        margin ``y <w, x>`` of a violator by exactly 1 (the passive-aggressive step), halved
        because later steps repeat it; it is deterministic and matches the kernel models'
        ``1 / (2 mean k(x, x))``. ``"calibrate"`` is Bottou's heuristic: one pass over a
        sample of 1000 examples (drawn with ``random_state``) for each of
        ``c / mean ||x||^2``, ``c`` in (0.1, 0.3, 1, 3, 10); the candidate with the lowest
        objective on the sample, halved (noisy: its pick can change with the seed).
    t0 : float or "auto", default="auto"
        The offset of ``"offset"``; ``"auto"`` is ``1 / (lam eta0)``.
    projection : bool, default=True
        Project ``w`` onto the ball of radius ``1/sqrt(lam)`` (which contains the optimum)
        after each step. ``b`` is not projected.
    fit_intercept : bool, default=True
        Learn an unregularized offset ``b``:
        ``b <- b + intercept_decay * eta_t/k sum_{A_t^+} y_i``. The paper's analysis has no
        offset; use ``fit_intercept=False`` for it.
    intercept_decay : float or "auto", default="auto"
        Factor of the step of ``b`` relative to that of ``w`` (``1.0``: the same step).
        ``"auto"`` is the fraction of non-zero entries of ``X``, at least 0.03
        (``intercept_decay_``): ``b`` is the weight of a feature present in every row, so on
        sparse data it is updated ``1 / density`` times as often as an average coordinate of
        ``w`` and, with imbalanced classes, the full step makes it oscillate; the floor keeps
        ``b`` moving on very sparse data. Dense data get 1.
    average : bool, int, "weighted" or "suffix", default="suffix"
        Return an average of the iterates ``w_{t+1}`` (and ``b_{t+1}``) instead of the last
        iterate: ``True`` is the uniform (Polyak-Ruppert) average over every step, an int
        ``s`` the uniform average over the steps ``t > s``, ``"weighted"`` the average with
        weights ``t`` (Lacoste-Julien, Schmidt and Bach 2012), which forgets the poor early
        iterates at rate ``1/T^2``, ``"suffix"`` the uniform average of the last tenth of
        the ``T`` steps of each ``fit`` call (steps ``t > t_start + T - ceil(T/10)``; the
        alpha-suffix average of Rakhlin, Shamir and Sridharan 2012), which drops them
        altogether (a ``fit`` stopped by ``tol`` before
        that step returns the last iterate). ``partial_fit`` keeps adding to the running
        suffix average (to the average over all its steps before any ``fit``).
    kernel : None, default=None
        Must be None: this is the primal algorithm. Kernelized Pegasos is
        :class:`~halfspaces.KernelPegasosSVC` (a ValueError points there).
    sampling : {"permutation", "uniform", "cyclic"}, default="permutation"
        How ``fit`` picks the examples: a fresh random permutation each epoch (the practical
        variant: every example once per epoch), i.i.d. uniform draws with replacement (the
        paper's ``i_t``), or the data order (deterministic). ``partial_fit`` always uses the
        given order.
    random_state : int, RandomState or None, default=None
        Seed of the sampling.
    tol : float or None, default=None
        When set, ``fit`` evaluates ``J`` after each epoch and stops once it fails to decrease
        by ``tol * J`` below the best value so far.
    record_objective : bool, default=False
        Record ``J`` of the returned predictor after each ``fit`` epoch in
        ``objective_history_``.
    warm_start : bool, default=False
        ``fit`` continues from the current state, step counter ``t_`` and ``eta0_``.
    probability : bool, default=False
        Also fit Platt's sigmoid on the decision values of 5 held-out folds (drawn from
        ``random_state``, as LIBSVM's ``-b 1``) for ``predict_proba``; five more fits
        (``partial_fit`` leaves the sigmoid as it was). See :mod:`halfspaces.calibration`.
    ensemble : bool or "auto", default="auto"
        As scikit-learn's ``CalibratedClassifierCV``: ``True`` keeps the 5 fold models,
        each with its own sigmoid fitted on its held-out fold, and ``predict_proba``
        averages their probabilities; ``False`` fits one sigmoid on all the held-out scores
        and applies it to the model fitted on all rows (LIBSVM's ``-b 1``). ``"auto"``:
        ``True`` where the fold models can be stored (always, for this linear model).
    early_stopping : bool, default=False
        Hold out a stratified ``validation_fraction`` of the rows and stop ``fit`` once the
        held-out accuracy (``validation_scores_``) of the returned predictor failed
        ``n_iter_no_change`` passes in a row to beat its best by 1e-3, as scikit-learn's
        SGD; the model is the last pass's. See :mod:`halfspaces._early_stopping`.
    validation_fraction : float, default=0.1
        The fraction of the rows that ``early_stopping`` holds out.
    n_iter_no_change : int, default=5
        The passes without improvement after which ``early_stopping`` stops ``fit``.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems of more than two classes (scikit-learn's
        meaning: None or 1 is one, -1 every core): each pass of ``fit`` and ``partial_fit``
        runs the classes' compiled passes, which release the GIL, in
        ``min(n_jobs, n_classes)`` threads. Every class takes the same examples in the same
        order, drawn from ``random_state`` before the threads start, so the model is the
        same, bit for bit, for every ``n_jobs``. The online game uses one thread.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: the hinge term of a row of class ``c`` weighs ``class_weight[c]``
        (classes not named: 1) times its ``sample_weight``, which scales its step (see
        ``fit``; ``"balanced"``: ``S / (n_classes S_c)`` over the rows of ``fit``, ``S_c`` the
        total ``sample_weight`` of class ``c``). ``partial_fit``, ``learn_one`` and the
        online game (played round by round then) take a dict and refuse ``"balanced"``, as
        scikit-learn's SGD does: one block does not show the class frequencies of a stream.

    Raises
    ------
    NumericalError
        When a row's ``||x||^2`` overflows float64 (features of 1e154 or more), or a score or
        the weights of a pass become inf or nan (e.g. a constant step ``eta0 = 1e300``):
        ``row`` names the row where the score overflowed, or the last row of the pass.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The (averaged) weights.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of labels
    t_ : int, steps taken (the ``t`` of the schedule)
    eta0_ : float, the ``eta0`` used (resolved when ``eta0`` is "auto" or "calibrate")
    intercept_decay_ : float, the ``intercept_decay`` used
    n_iter_ : int, epochs run (``fit``) plus ``partial_fit`` calls
    n_mistakes_ : int, examples with ``y score <= 0`` before their step
    objective_history_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        Only with ``record_objective=True`` or ``tol``.

    Notes
    -----
    .. math::

        w_{t+1} = \\Pi_{B(1/\\sqrt\\lambda)}\\Big[(1 - \\eta_t\\lambda) w_t
        + \\frac{\\eta_t}{k} \\sum_{i \\in A_t,\\; y_i(\\langle w_t, x_i\\rangle + b_t) < 1}
        y_i x_i\\Big]

    where :math:`\\lambda` is ``lam``, :math:`k` is ``batch_size`` and :math:`\\eta_t` is
    given by ``learning_rate``.

    The defaults, a nearly constant first step (``"offset"`` with
    ``eta0 = 1/(2 mean ||x||^2)``, hence a large ``t0``) and the suffix average of the last
    tenth of the steps, reach 1% of the optimal objective in fewer epochs than the paper's
    ``1/(lam t)``, the other averages or the last iterate (``benchmarks/bench_pegasos.py``;
    the figures are on the benchmarks page of the documentation).
    ``learning_rate="pegasos", average=False`` is the paper's algorithm.

    References
    ----------
    Shalev-Shwartz, Singer, Srebro, Cotter (2011), "Pegasos: primal estimated sub-gradient
    solver for SVM", Math. Programming 127(1). Bottou (2010), "Large-scale machine learning
    with stochastic gradient descent". Lacoste-Julien, Schmidt, Bach (2012), "A simpler
    approach to obtaining an O(1/t) convergence rate for the projected stochastic subgradient
    method". Rakhlin, Shamir, Sridharan (2012), "Making gradient descent optimal for strongly
    convex stochastic optimization", ICML.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    >>> clf = PegasosSVC(lam=0.01, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> paper = PegasosSVC(lam=0.01, learning_rate="pegasos", average=False, n_iter=500,
    ...                    fit_intercept=False, random_state=0).fit(X, y)
    >>> paper.t_, bool(np.linalg.norm(paper.coef_) <= 1 / np.sqrt(0.01))
    (500, True)
    """

    _takes_sample_weight = True
    _persist_exclude = ("_pass_params",)  # rebuilt from the parameters before every pass

    def _expected_failed_checks(self) -> dict[str, str]:
        """scikit-learn's sample-weight checks compare a weight ``k`` with ``k`` copies: the
        weighted rule takes one step ``k`` times longer, ``k`` copies take ``k`` steps (and
        more of them in an epoch); tests/linear/test_pegasos_weights.py tests the rule."""
        reason = "a weight k is one longer step; k copies are k steps"
        checks = dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                                "check_sample_weight_equivalence_on_sparse_data"), reason)
        # scikit-learn's old SGD named its epochs n_iter; ours is the number of steps T, too
        # few for the small first steps of eta0="auto" (the 1/(lam t) of "pegasos" suffice)
        if self.learning_rate != "pegasos":
            checks["check_class_weight_classifiers"] = (
                "the check sets n_iter=100, meaning 100 epochs, which is 100 steps here (two"
                " epochs of its 50 rows); tests/linear/test_online_class_weight.py runs its"
                " data with 100 epochs")
        return checks
    _parameter_constraints = PEGASOS_SVC
    _parameter_rules = (_linear_only,)

    def __init__(self, lam: float = 1e-4, *, max_iter: int = 10, n_iter: int | None = None,
                 batch_size: int = 1, learning_rate: str = "offset", eta0="auto",
                 t0="auto", projection: bool = True, fit_intercept: bool = True,
                 intercept_decay="auto", average="suffix", kernel=None,
                 sampling: str = "permutation", random_state=None, tol: float | None = None,
                 record_objective: bool = False, warm_start: bool = False,
                 probability: bool = False, ensemble="auto", early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 n_jobs: int | None = None, class_weight=None):
        keep_params(self, locals())

    def _resolve_eta0(self, X, y: NDArray, rng, sq_norms: NDArray,
                      s: NDArray | None = None) -> float:
        """``eta0`` as given, ``1 / (2 mean ||x||^2)`` ("auto"), or calibrated on a sample."""
        if not (isinstance(self.eta0, str)):
            return float(self.eta0)
        uses_eta0 = self.learning_rate == "constant" or (
            self.learning_rate == "offset" and isinstance(self.t0, str))
        if not uses_eta0 or X.shape[0] == 0:
            return 1.0
        if self.eta0 == "auto":
            r2 = float(np.mean(sq_norms))
            return 0.5 / r2 if r2 > 0 else 1.0
        n = X.shape[0]
        sample = np.sort(rng.choice(n, size=min(n, _CALIBRATION_SIZE), replace=False))
        return _calibrate_eta0(self, X, y, sample, s)

    def _ensure_schedule(self, X, y_pm: NDArray, stats: tuple, rng=None,
                         s: NDArray | None = None) -> None:
        """Resolve ``eta0_`` on the first data seen, then the passes' hyper-parameters.

        ``stats`` is ``row_stats(X)``: (||x_i||^2 of each row, density of X).
        """
        bad = np.flatnonzero(~np.isfinite(stats[0]))
        if bad.size:  # a step would be 0 / inf: eta0 "auto" = 1 / (2 mean ||x||^2) = 0
            raise NumericalError("PegasosSVC", int(bad[0]), "||x_i||^2, the row's squared norm,")
        if not hasattr(self, "eta0_"):
            rng = check_random_state(self.random_state) if rng is None else rng
            self.intercept_decay_ = intercept_decay(self.intercept_decay, stats[1])
            self.eta0_ = self._resolve_eta0(X, self._y_rows(y_pm)[0], rng, stats[0], s)
        self._pass_params = self._params(self.eta0_)

    # -- the state of each binary problem -----------------------------------------------------
    # _v, _u : (n_models, d) the vectors of PegasosVectors; _scalars : (n_models, 6) the
    # fields of PegasosState after t (whose t is t_).
    def _init_state(self, X, n_models: int) -> None:
        d = X.shape[1]
        self._v = np.zeros((n_models, d))
        self._u = np.zeros((n_models, d if self._averaging else 0))
        self._scalars = np.tile(fresh_state()[1:], (n_models, 1))
        self.coef_ = np.zeros((n_models, d))
        self.intercept_ = np.zeros(n_models)

    def _problem(self, k: int) -> tuple[PegasosVectors, PegasosState]:
        return PegasosVectors(self._v[k], self._u[k]), PegasosState(self.t_, *self._scalars[k])

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              sq_norms: NDArray, s: NDArray | None = None) -> int:
        # unsigned row numbers: numba skips the negative-index test on order[p] (as dot_csr)
        order = np.ascontiguousarray(order, dtype=np.int64).view(np.uint64)
        w, st = self._problem(k)
        st, result = run_epoch(X, y, order, self._pass_params, w, st, scores, sq_norms, s)
        mistakes = check_pass("PegasosSVC", result, "the score <w, x_i> + b")
        # The tracked ||w||^2 drifts by rounding; resynchronise once per pass (O(d)). The
        # state is checked once per pass too: a score checks only the weights of its row.
        with np.errstate(over="ignore"):  # an overflow is reported just below
            self._scalars[k] = st._replace(sqnorm=st.a * st.a * dot_dense(w.v, w.v))[1:]
        if not (np.isfinite(self._scalars[k]).all() and np.isfinite(dot_dense(w.u, w.u))):
            check_pass("PegasosSVC", PassResult(mistakes, WEIGHTS_NOT_FINITE, order[-1]))
        return mistakes

    def _start(self, X, classes: NDArray) -> None:
        for attr in ("eta0_", "intercept_decay_", "_suffix_start"):
            self.__dict__.pop(attr, None)
        super()._start(X, classes)

    def _start_suffix(self, n: int) -> None:
        """``average="suffix"``: average the last tenth of this fit's steps (fresh sums)."""
        if isinstance(self.average, str) and self.average == "suffix":
            self._suffix_start = float(self.t_ + suffix_skip(self._total_steps(n)))
            for k in range(self._v.shape[0]):  # the empty sum: S v - u = 0
                self._scalars[k] = self._problem(k)[1]._replace(S=0.0, bsum=0.0, csum=0.0)[1:]
            self._u[:] = 0.0

    def _run_pass(self, X, y_pm: NDArray, order: NDArray, s: NDArray | None = None,
                  stats: tuple | None = None) -> int:
        """One pass with example weights ``s`` (or None); ``fit`` gives the ``stats`` of its
        data (rows of weight 0 left out) and has resolved the schedule."""
        if stats is None:  # partial_fit, learn_one: this call's data, in order
            if s is not None and not (s > 0).all():
                X, y_pm, s = _positive(X, y_pm, s)
                order = np.arange(X.shape[0])
            stats = row_stats(X)
            self._ensure_schedule(X, y_pm, stats, s=s)
        scores = np.empty(0)  # fit and partial_fit do not need the scores: skip the writes
        problems = self._y_rows(y_pm)
        mistakes = sum(map_problems(
            lambda k: self._pass(k, X, problems[k], order, scores, stats[0], s),
            len(problems), self._n_jobs(order.size)))
        self.t_ += -(-order.size // int(self.batch_size))
        return mistakes

    def _sync(self) -> None:
        models = [predictor(*self._problem(k), self._averaging) for k in range(len(self._v))]
        self.coef_ = np.array([w for w, _ in models])
        self.intercept_ = np.array([b for _, b in models], dtype=np.float64)

    def _decision(self, X) -> NDArray[np.float64]:
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _play(self, X, y_pm: NDArray) -> NDArray[np.float64]:
        if self.class_weight is not None:  # round by round, on the whole game's schedule
            kept = _positive(X, y_pm, self._example_weights("partial_fit", None, X, y_pm))
            self._ensure_schedule(*kept[:2], row_stats(kept[0]), s=kept[2])
            return self._play_rounds(X, y_pm)
        stats = row_stats(X)
        self._ensure_schedule(X, y_pm, stats)
        scores = np.empty(X.shape[0], dtype=np.float64)
        order = np.arange(X.shape[0])
        mistakes = self._pass(0, X, y_pm, order, scores, stats[0])
        self.t_ += -(-order.size // int(self.batch_size))
        self.n_mistakes_ += mistakes
        self._sync()
        return scores

    def _objectives(self, X, y_pm: NDArray, s: NDArray | None = None) -> NDArray[np.float64]:
        """J(w_k, b_k) = 1/n sum s_i hinge_i + lam/2 ||w_k||^2 of each binary problem k."""
        self._sync()
        return np.array([_objective(self.coef_[k], self.intercept_[k], X, y_k,
                                    float(self.lam), s)
                         for k, y_k in enumerate(self._y_rows(y_pm))])

    # -- scikit-learn API ------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Run ``max_iter`` epochs (or ``n_iter`` steps) of Pegasos on ``(X, y)``.

        ``sample_weight`` (``s_i >= 0``, default all 1; times ``class_weight``) weighs
        example ``i``'s hinge term: the objective is
        ``lam/2 ||w||^2 + 1/n sum_i s_i hinge_i`` over the ``n`` rows of positive weight,
        and a violator's step is scaled by ``s_i``. A row of weight 0 is
        left out before the fit (no step, no ``t_``, not in ``eta0="auto"``): the fit is the
        one on the data without it. A weight ``k`` is one step ``k`` times longer, not ``k``
        copies of the row.
        """
        self._validate_params()
        warm = bool(self.warm_start) and hasattr(self, "classes_") and hasattr(self, "_v")
        X, y = validate_X_y(self, X, y, reset=not warm)
        classes = check_classes("PegasosSVC", y, None)
        if not (warm and np.array_equal(classes, self.classes_)
                and self._v.shape[1] == X.shape[1]):
            self._start(X, classes)
        y_pm = encode_pm(y, self.classes_)
        s = self._example_weights("fit", sample_weight, X, y_pm)
        rng = check_random_state(self.random_state)
        X, y_pm, s, held_out = hold_out(self, X, y_pm, rng, s)
        X, y_pm, s = _positive(X, y_pm, s)
        self._start_suffix(X.shape[0])
        stats = row_stats(X)  # once per fit: every epoch reads the row norms
        self._ensure_schedule(X, y_pm, stats, rng, s)
        done = resume_point(self)  # 0, or the passes of a checkpoint (then its state)
        passes = itertools.count(done)

        def run_pass(order):
            made = next(passes)
            if made > done:  # the state after pass `made`: a checkpoint when one is due
                epoch_done(self, made)
            return self._run_pass(X, y_pm, order, s, stats)

        # the orders of the passes made are drawn again (the same random numbers), not run
        self._run_epochs(itertools.islice(self._orders(rng, X.shape[0]), done, None),
                         run_pass, lambda: self._objectives(X, y_pm, s), held_out)
        self._sync()
        return fit_probability(self, X, y_pm, s)

    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None):
        """One pass over ``X`` in the given order, continuing the schedule at ``t_``;
        ``classes`` is required on the first call. ``sample_weight`` as in ``fit``: each
        violator's step scaled by its weight, a row of weight 0 skipped (no step, no ``t_``)."""
        super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        self._sync()
        return self

    def stream_fitter(self, epochs: int | None = None) -> PegasosStreamFit:
        """What :func:`~halfspaces.datasets.fit_stream` drives over the blocks of a stream
        (see :mod:`halfspaces._streaming`): ``fit``'s epochs with ``sampling="cyclic"``.
        ``epochs`` is unused (``max_iter`` or ``n_iter`` count them)."""
        return PegasosStreamFit(self)

    def set_iterate(self, W: NDArray, B: NDArray, t: int) -> PegasosSVC:
        """Hold ``(W[k], B[k])`` as the last iterate of each binary problem after ``t``
        steps, with an empty average (the state must have been allocated by ``fit`` or
        ``partial_fit``): the model is then ``(W, B)`` and ``partial_fit`` continues from
        there (how :mod:`halfspaces.dask` restarts its shards from a mixed model)."""
        self._v[...] = W
        self._u[...] = 0.0
        for k, (sq, b) in enumerate(zip((W * W).sum(axis=1), B, strict=True)):
            self._scalars[k] = fresh_state()._replace(sqnorm=float(sq), b=float(b))[1:]
        self.coef_ = np.array(W, dtype=np.float64)
        self.intercept_ = np.array(B, dtype=np.float64)
        self.t_ = int(t)
        return self


def _positive(X, y_pm: NDArray, s: NDArray | None) -> tuple:
    """``(X, y_pm, s)`` without the rows of weight 0 (unchanged when ``s`` is None or
    positive)."""
    if s is None or (s > 0).all():
        return X, y_pm, s
    keep = np.flatnonzero(s > 0)
    return X[keep], y_pm[..., keep], s[keep]


class PegasosStreamFit(StreamFit):
    """``PegasosSVC.fit`` with ``sampling="cyclic"``, block by block: the compiled pass
    (``run_epoch``) on each block, its state carried from block to block, and at the end of a
    pass what ``PegasosSVC._pass`` does there (``||w||^2`` resynchronised, the state
    checked)."""

    needs_rows = True
    resumable = True

    def row_norms(self, X):
        return row_stats(X)[0]

    def __init__(self, est: PegasosSVC):
        super().__init__(est)
        est._validate_params()
        problems = [("sampling", est.sampling != "cyclic", "only sampling='cyclic' visits the"
                     " rows in file order; 'permutation' and 'uniform' need random access"),
                    ("tol", est.tol is not None, "the stopping rule needs the objective over"
                     " all the data after each epoch; use tol=None"),
                    ("record_objective", bool(est.record_objective), "the objective needs all"
                     " the data after each epoch; use record_objective=False")]
        for name, bad, why in problems:
            if bad:
                raise ValueError(f"PegasosSVC: cannot be trained from a stream with"
                                 f" {name}={getattr(est, name)!r}: {why}, or load the whole"
                                 " file and call fit.")
        self.batch = int(est.batch_size)
        if est.n_iter is not None and self.batch > 1:
            raise ValueError("PegasosSVC: with n_iter and batch_size > 1, fit's mini-batches"
                             " run across the end of an epoch; a stream does not. Use"
                             " max_iter (epochs) with batch_size > 1.")

    def epochs(self, summary):
        est, n = self.est, summary.n_rows
        if est.n_iter is None:
            return [None] * int(est.max_iter)
        T = int(est.n_iter)  # steps of one row each, in passes of n rows
        return [min(n, T - start) for start in range(0, T, n)]

    def begin(self, summary: Summary, source) -> None:
        est = self.est
        n, d = summary.n_rows, summary.n_features
        classes = check_classes("PegasosSVC", summary.classes, None)
        warm = bool(est.warm_start) and hasattr(est, "classes_") and hasattr(est, "_v")
        if not (warm and np.array_equal(classes, est.classes_) and est._v.shape[1] == d):
            est._start(np.empty((0, d)), classes)
        est.n_features_in_ = d
        y_pm = encode_pm(summary.labels, est.classes_)
        rng = check_random_state(est.random_state)
        est._start_suffix(n)
        stats = (summary.sq_norms, summary.nnz / max(n * d, 1))
        est._ensure_schedule(StreamRows(source, n, d), y_pm, stats, rng)

    def start_epoch(self, n_rows: int) -> None:
        self.states = [self.est._problem(k)[1] for k in range(self.est._v.shape[0])]
        self.mistakes = 0

    def state(self) -> dict:
        return {"states": [[int(st.t), *map(float, st[1:])] for st in self.states],
                "mistakes": int(self.mistakes)}

    def restore(self, state: dict) -> None:
        self.states = [PegasosState(*st) for st in state["states"]]
        self.mistakes = state["mistakes"]

    def block(self, X, y, row0: int, sample_weight=None) -> None:
        est = self.est
        X = validate_X(est, X, reset=False)
        y_pm = encode_pm(y, est.classes_)
        sq_norms = self.row_norms(X)
        order = np.arange(X.shape[0], dtype=np.int64).view(np.uint64)
        for k, y_k in enumerate(est._y_rows(y_pm)):
            w = est._problem(k)[0]
            self.states[k], result = run_epoch(X, y_k, order, est._pass_params, w,
                                               self.states[k], np.empty(0), sq_norms)
            try:
                self.mistakes += check_pass("PegasosSVC", result, "the score <w, x_i> + b")
            except NumericalError as err:
                raise shifted(err, row0) from None

    def end_epoch(self, n_rows: int) -> bool:
        est = self.est
        for k, st in enumerate(self.states):  # what PegasosSVC._pass does at the end of a pass
            v, u = est._v[k], est._u[k]
            with np.errstate(over="ignore"):
                est._scalars[k] = st._replace(sqnorm=st.a * st.a * dot_dense(v, v))[1:]
            if not (np.isfinite(est._scalars[k]).all() and np.isfinite(dot_dense(u, u))):
                raise NumericalError("PegasosSVC", n_rows - 1,
                                     "the weights at the end of the pass (last row)")
        est.t_ += -(-n_rows // self.batch)
        est.mistakes_per_epoch_.append(self.mistakes)
        est.n_mistakes_ += self.mistakes
        est.n_iter_ += 1
        return False

    def end(self, n_rows: int) -> None:
        self.est._sync()


__all__ = ["PegasosSVC"]
