"""Logistic regression: the smooth convex surrogate of the zero-one loss.

Labels y_i in {-1,+1}, score z_i = <w, x_i> + b, agreement y_i z_i. Objective (lam form):

    J(w, b) = 1/n sum_i log(1 + exp(-y_i z_i)) + lam/2 ||w||^2,       lam = 1/(C n)

equivalently the C form 1/2 ||w||^2 + C sum_i log(1 + exp(-y_i z_i)); b is not regularized.
Gradient (sigma the logistic function):

    g_i = -y_i sigma(-y_i z_i),   grad_w J = 1/n X^T g + lam w,   grad_b J = 1/n sum_i g_i

Example weights ``s_i >= 0`` make it ``1/S sum_i s_i log(1 + exp(-y_i z_i)) + lam/2 ||w||^2``,
``S = sum_i s_i``, ``lam = 1/(C S)``: a weight ``k`` is the row repeated ``k`` times.

``fit`` minimizes J with L-BFGS-B (two sparse mat-vecs per evaluation). ``partial_fit`` runs
one pass of online SGD:

    eta_t = eta0 / (1 + lam eta0 t)
    w_{t+1} = (1 - eta_t lam) w_t - eta_t g_t x_t,   b_{t+1} = b_t - eta_t g_t

(g_t = -y_t sigma(-y_t z_t) at the score z_t before the step). With ``solver="sgd"``,
``fit`` runs ``max_iter`` epochs of these steps over the rows (each epoch in a new random
order), ``t`` counting on across epochs and ``lam = 1/(C n)`` fixed: SGD on J itself.
With example weights the step is s_t g_t and ``lam`` is scaled so that an epoch follows the
gradient of the weighted J that ``solver="lbfgs"`` minimizes: both aim at one optimum.

More than two classes: the multinomial (softmax) objective of
:mod:`halfspaces.linear._multinomial` by L-BFGS-B (``multi_class="multinomial"``, the default
with ``solver="lbfgs"``), or one binary problem per class against the rest (``"ovr"``; SGD is
always one-vs-rest).
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit, log_softmax, softmax

from .._base import check_is_fitted, check_random_state, convergence_warning, safe_sparse_dot
from .._checkpoint import epoch_done, resume_point, solver_state_error
from .._early_stopping import hold_out
from .._labels import check_classes, decode_scores, encode_pm
from .._online import OnlineClassifier, keep_params
from .._parallel import map_groups, map_problems
from .._params import LOGISTIC_REGRESSION
from .._primitives import (
    CSR,
    FINITE,
    SCORE_NOT_FINITE,
    WEIGHTS_NOT_FINITE,
    PassResult,
    as_rows,
    check_pass,
    example_weight,
    matvec,
    n_rows,
    product_rows,
    rmatvec,
    row_axpy,
    row_dot,
    sparse_product_rows,
)
from .._progress import lbfgs_reports, listener
from .._streaming import StreamFit, Summary, shifted
from .._validation import check_row_norms, param_error, validate_X, validate_X_y
from .._weights import check_every_class_weighed, example_weights
from ..exceptions import NumericalError
from ._multinomial import softmax_objective


@njit(cache=True)
def _neg_sigmoid_grad(margin):
    """sigma(-m) = 1 / (1 + exp(m)), without overflow."""
    if margin > 0.0:
        e = math.exp(-margin)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(margin))


class SGDParams(NamedTuple):
    """The hyper-parameters of an SGD pass."""

    lam: float
    eta0: float
    fit_intercept: bool


@njit(cache=True, nogil=True)  # one-vs-rest threads run it in parallel
def _logistic_sgd_pass(X, y, v, order, start, p, scores, s):
    """One pass of SGD on rows ``X[order]`` (dense or the CSR tuple of ``as_rows``) from
    ``start = (t, b, a)``, unpacked once before the loop: steps ``t + 1, t + 2, ...``;
    ``w = a v`` with ``v`` updated in place, so that the shrink ``(1 - eta_t lam)`` is one
    multiplication of ``a`` and a step costs O(nnz(x_t)). A pass starts from ``a = 1``; a
    pass read in blocks continues each block from the last one's.
    ``s`` : float64[n] example weights > 0 that scale the gradient step, or None (all 1).

    ``scores`` receives each score before its update. Returns ``(PassResult, b, a)``: the
    pass stops at a row whose score is inf or nan (SCORE_NOT_FINITE).
    """
    t, b, a = start
    mistakes = 0
    for i in order:
        t += 1
        z = a * row_dot(X, i, v) + b
        if not abs(z) < np.inf:  # inf or nan (nan <= 0 is false: never a mistake)
            return PassResult(mistakes, SCORE_NOT_FINITE, i), b, a
        scores[i] = z
        if y[i] * z <= 0.0:
            mistakes += 1
        g = -y[i] * _neg_sigmoid_grad(y[i] * z) * example_weight(s, i)  # s_i g_i
        eta = p.eta0 / (1.0 + p.lam * p.eta0 * t)
        a *= 1.0 - eta * p.lam
        if abs(a) < 1e-9:  # fold the scale into v (w = a v unchanged)
            for j in range(v.shape[0]):
                v[j] *= a
            a = 1.0
        row_axpy(X, i, -eta * g / a, v)  # w <- w - eta_t g_t x_t
        if p.fit_intercept:
            b -= eta * g
    return PassResult(mistakes, FINITE, -1), b, a


@njit(cache=True)
def _loss_and_slope(margin):
    """(log(1 + exp(-m)), sigma(-m)) with one exp and one log1p, without overflow."""
    e = math.exp(-abs(margin))
    if margin > 0.0:
        return math.log1p(e), e / (1.0 + e)
    return math.log1p(e) - margin, 1.0 / (1.0 + e)


@njit(cache=True, nogil=True)  # as the mat-vecs: L-BFGS problems in threads
def _loss_and_coef(z, y, g, s):
    """Sum of s_i log(1 + exp(-y_i z_i)); writes g_i = -s_i y_i sigma(-y_i z_i) (``s``: the
    example weights, or None for 1). Dense helper."""
    total = 0.0
    for i in range(z.shape[0]):
        loss, slope = _loss_and_slope(y[i] * z[i])
        s_i = example_weight(s, i)
        total += s_i * loss
        g[i] = -y[i] * s_i * slope
    return total


#: The objective's rows are cut into at most ``LANES`` contiguous lanes of at least
#: ``LANE_ROWS`` rows; each lane's loss and ``X^T g`` are summed on their own and the lanes
#: added in lane order, so that ``n_jobs`` threads (one lane each) give the bits of one.
LANES, LANE_ROWS = 4, 1 << 16


def _lane(rows, start: int, stop: int):
    """Rows ``start:stop`` of ``product_rows``'s rows, without a copy."""
    if isinstance(rows, CSR):
        return CSR(rows.data, rows.indices, rows.indptr[start : stop + 1])
    return rows[start:stop]


def _objective_and_grad(theta: NDArray, X, y: NDArray, lam: float, fit_intercept: bool,
                        sample_weight: NDArray | None = None, n_jobs: int | None = None):
    """J and its gradient at ``theta = (w, b)`` (b only with fit_intercept); with
    ``sample_weight``, the weighted J (sums ``s_i loss_i`` over ``S = sum_i s_i``).

    Two compiled mat-vecs (``X`` dense, sparse, or ``product_rows``'s already), summed
    alike for dense rows and their CSR copy (the same bits), and one compiled pass over the
    margins, in lanes of rows (``LANES``) run in ``n_jobs`` threads: the same bits for any
    ``n_jobs``.
    """
    rows = X if isinstance(X, CSR) else product_rows(X)  # no copy per call (Dask's shards)
    d = theta.shape[0] - fit_intercept
    n = y.shape[0] if sample_weight is None else float(sample_weight.sum())
    w = np.ascontiguousarray(theta[:d])
    b = float(theta[d]) if fit_intercept else 0.0
    z, g = np.empty(n_rows(rows)), np.empty(y.shape[0])
    lanes = max(1, min(LANES, y.shape[0] // LANE_ROWS))
    cuts = [k * y.shape[0] // lanes for k in range(lanes + 1)]

    def lane(k: int):  # the compiled kernels release the GIL
        part, span = _lane(rows, cuts[k], cuts[k + 1]), slice(cuts[k], cuts[k + 1])
        matvec(part, w, z[span])
        z[span] += b
        total = _loss_and_coef(z[span], y[span], g[span],
                               None if sample_weight is None else sample_weight[span])
        Xg = np.zeros(d)
        rmatvec(part, g[span], Xg)
        return total, Xg

    parts = map_problems(lane, lanes, n_jobs)
    total, Xg = parts[0]
    for lane_total, lane_Xg in parts[1:]:  # in lane order, whatever the threads
        total += lane_total
        Xg += lane_Xg
    grad = np.empty_like(theta)
    grad[:d] = Xg / n + lam * w
    if fit_intercept:
        grad[d] = g.sum() / n
    return total / n + 0.5 * lam * float(w @ w), grad


def lbfgs(fun, theta0: NDArray, *, max_iter: int, tol: float, stacklevel: int = 2,
          callback=None):
    """``scipy.optimize.minimize``'s result of L-BFGS-B on ``fun(theta) -> (J, grad J)`` from
    ``theta0``, stopped by ``max |grad| <= tol`` or ``max_iter`` iterations (then a
    ConvergenceWarning, ``stacklevel`` counted from the caller of this function).
    ``callback`` hears each iteration (:func:`halfspaces._progress.lbfgs_reports`)."""
    from scipy.optimize import minimize  # not imported by the SGD solver's stream

    fun, report = lbfgs_reports(fun, callback, max_iter, tol)
    res = minimize(fun, theta0, jac=True, method="L-BFGS-B", callback=report,
                   options={"maxiter": int(max_iter), "gtol": float(tol),
                            "ftol": 64 * np.finfo(float).eps, "maxls": 50})
    if res.status == 1:
        warnings.warn(
            f"LogisticRegression: L-BFGS-B stopped after max_iter={max_iter} iterations"
            f" before the gradient fell below tol={tol}. Increase max_iter or scale the"
            " features.", convergence_warning(), stacklevel=stacklevel + 1)
    return res


def _multinomial_needs_lbfgs(estimator) -> None:
    """The SGD steps are one-vs-rest: the multinomial objective is L-BFGS-B's."""
    if estimator.multi_class == "multinomial" and estimator.solver == "sgd":
        raise param_error("LogisticRegression", "multi_class", "'auto' or 'ovr' with"
                          " solver='sgd' (its steps are one-vs-rest)", estimator.multi_class,
                          "Use solver='lbfgs' for the multinomial objective.")


def lbfgs_with_value(fun, theta0: NDArray, *, max_iter: int, tol: float, stacklevel: int):
    """:func:`lbfgs` (its progress to :func:`halfspaces._progress.listener`) and ``J`` at its
    result: the last evaluation's where that was at ``res.x`` (one evaluation fewer, 3% of a
    fit on a9a), else a new one (``res.fun`` need not be ``J(res.x)``)."""
    last = [b"", 0.0]  # the bits of the last point evaluated, and its J

    def objective(theta):
        value = fun(theta)
        last[:] = [theta.tobytes(), value[0]]
        return value

    res = lbfgs(objective, theta0, max_iter=max_iter, tol=tol, stacklevel=stacklevel + 1,
                callback=listener())
    if res.x.tobytes() != last[0]:
        objective(res.x)
    return res, last[1]


class LogisticRegression(OnlineClassifier):
    """L2-regularized logistic regression: L-BFGS-B (or SGD epochs) for ``fit``, online SGD
    for ``partial_fit``.

    Parameters
    ----------
    C : float, default=1.0
        The C form's constant (as scikit-learn's ``C``): ``1/2 ||w||^2 + C sum_i logloss_i``.
        Finite (``C = inf``, no regularization, has no minimizer on separable data), and
        large enough that ``lam = 1/(C n)`` is finite.
    lam : float or None, default=None
        lambda of the lam form ``1/n sum_i logloss_i + lam/2 ||w||^2``; overrides ``C`` when
        given. Both forms have the same minimizer when ``C = 1/(lam n)``.
    fit_intercept : bool, default=True
        Learn an unregularized offset ``b`` (as scikit-learn does with lbfgs).
    max_iter : int, default=100
        Most L-BFGS-B iterations per binary problem; with ``solver="sgd"``, the epochs of
        ``fit`` (all of them, unless ``early_stopping`` stops it).
    tol : float, default=1e-4
        L-BFGS-B stops when the largest gradient entry of ``J`` (lam form) is below ``tol``
        (not used by ``solver="sgd"``).
    solver : {"lbfgs", "sgd"}, default="lbfgs"
        How ``fit`` minimizes ``J``: L-BFGS-B, or ``max_iter`` epochs of ``partial_fit``'s
        SGD steps with ``lam = 1/(C n)`` fixed (with ``sample_weight`` or ``class_weight``,
        each step scaled by its example's weight; see ``fit``).
    eta0 : float or "auto", default="auto"
        First SGD step; ``"auto"`` is ``1 / mean ||x||^2`` of the first batch of
        ``partial_fit`` (or of ``fit``'s training rows with ``solver="sgd"``): the logistic
        loss is ``||x||^2/4``-smooth.
    shuffle : bool, default=True
        ``solver="sgd"``: visit the rows of each epoch in a new random order; False keeps
        the given order.
    random_state : int, RandomState or None, default=None
        ``solver="sgd"``: seed of the epochs' orders and of the rows ``early_stopping``
        holds out.
    warm_start : bool, default=False
        ``fit`` starts L-BFGS-B (or SGD, continuing its ``t``) from the current ``coef_``.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: the losses of class ``c`` weigh its weight (``"balanced"``:
        ``S / (n_classes S_c)``, ``S_c`` the total ``sample_weight`` of class ``c``),
        times ``sample_weight``; used by ``fit``, and a dict by ``partial_fit`` too (which
        refuses ``"balanced"``: one block does not show the class frequencies of a stream).
    early_stopping : bool, default=False
        ``solver="sgd"`` only: hold out a stratified ``validation_fraction`` of the rows and
        stop ``fit`` once the held-out accuracy (``validation_scores_``) failed
        ``n_iter_no_change`` epochs in a row to beat its best by 1e-3, as scikit-learn's SGD;
        the model is the last epoch's. See :mod:`halfspaces._early_stopping`.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=5
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems of more than two classes (scikit-learn's
        meaning: None or 1 is one, -1 every core), in ``min(n_jobs, n_classes)`` threads;
        the model is the same, bit for bit, for every ``n_jobs``. SGD (``partial_fit``,
        ``solver="sgd"``): each pass runs the classes' compiled passes, which release the
        GIL, over the same order of rows. L-BFGS-B: one minimization per class; only the
        evaluations of ``J`` (compiled mat-vecs) run in parallel, as SciPy's L-BFGS-B
        update holds the GIL, so the gain is smaller where ``n_features`` is large against
        the non-zeros of ``X`` (``benchmarks/bench_ovr_threads.py``). Two classes: each
        evaluation of ``J`` and its gradient runs in ``min(n_jobs, LANES)`` threads over
        fixed lanes of rows whose sums are added in lane order, so the model is again the
        same, bit for bit, for every ``n_jobs``. The multinomial problem is one
        minimization in one thread.
    multi_class : {"auto", "multinomial", "ovr"}, default="auto"
        More than two classes: ``"multinomial"`` minimizes the softmax objective (one
        problem, ``K`` weight vectors; scikit-learn's ``LogisticRegression`` default) by
        L-BFGS-B; ``"ovr"`` one binary problem per class against the rest; ``"auto"`` is
        ``"multinomial"`` with ``solver="lbfgs"`` and ``"ovr"`` with ``solver="sgd"`` (the
        SGD steps of ``fit`` and ``partial_fit`` are one-vs-rest, so ``"multinomial"``
        needs ``solver="lbfgs"`` and refuses ``partial_fit``; under ``"auto"``,
        ``partial_fit`` after a multinomial ``fit`` continues from its coefficients with
        one-vs-rest steps). Two classes are the binary problem either way.

    Raises
    ------
    NumericalError
        When a row's ``||x||^2`` overflows float64, or a ``partial_fit`` score or the weights
        after a pass become inf or nan; ``row`` names the row.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Multinomial: the intercepts that sum to 0 (the loss is unchanged by a common shift).
    classes_ : ndarray of labels
    multi_class_ : {"multinomial", "ovr"}, what ``multi_class`` resolved to
    objective_ : float (binary, multinomial) or ndarray of shape (n_classes,)
        ``J`` (lam form) at the solution of ``fit``, per one-vs-rest problem (with
        ``early_stopping``, on the training rows).
    n_iter_ : int, L-BFGS-B iterations (largest over the problems) or SGD epochs, plus
        passes of ``partial_fit``.
    t_ : int, examples seen by the SGD steps
    mistakes_per_epoch_ : list of int, ``solver="sgd"``: the mistakes of each epoch
    validation_scores_ : list of float, the held-out accuracy after each epoch
        (``early_stopping=True``)

    Notes
    -----
    .. math::

        J(w, b) = \\frac1n \\sum_{i=1}^n \\log\\big(1 + e^{-y_i(\\langle w, x_i\\rangle + b)}\\big)
        + \\frac\\lambda2 \\|w\\|^2, \\qquad \\lambda = \\frac{1}{Cn}

    where :math:`\\lambda` is ``lam``. ``partial_fit`` takes SGD steps with
    :math:`\\eta_t = \\eta_0/(1 + \\lambda\\eta_0 t)` on the same objective; when only ``C`` is
    given it uses :math:`\\lambda = 1/(C m)`, ``m`` the examples seen so far including the
    batch, which is the lam form of the C-form objective on those examples; its
    ``sample_weight`` scales each step (``s_t g_t``; rows of weight 0 take no step and are
    not counted in ``m``). More than two classes, multinomial: the softmax loss
    :math:`\\log\\sum_k e^{z_{ik}} - z_{iy_i}` in place of the logistic loss, with
    :math:`\\lambda/2 \\sum_k \\|w_k\\|^2`, and ``predict_proba`` the softmax of the scores;
    one-vs-rest: ``predict_proba`` normalises the per-class sigmoids.

    References
    ----------
    Cox (1958), "The regression analysis of binary sequences"; Liu & Nocedal (1989), "On the
    limited memory BFGS method for large scale optimization".

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    >>> clf = LogisticRegression(C=1.0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> clf.predict_proba(X[:2]).sum(axis=1)
    array([1., 1.])
    """

    _parameter_constraints = LOGISTIC_REGRESSION
    _parameter_rules = (_multinomial_needs_lbfgs,)

    def __init__(self, C: float = 1.0, *, lam: float | None = None, fit_intercept: bool = True,
                 max_iter: int = 100, tol: float = 1e-4, solver: str = "lbfgs",
                 eta0="auto", shuffle: bool = True, random_state=None,
                 warm_start: bool = False, class_weight=None, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 n_jobs: int | None = None, multi_class: str = "auto"):
        keep_params(self, locals())

    def _expected_failed_checks(self) -> dict[str, str]:
        """``solver="sgd"``: scikit-learn's sample-weight checks compare a weight ``k`` with
        ``k`` copies: the weighted rule takes one step ``k`` times longer, ``k`` copies take
        ``k`` steps (tests/linear/test_logistic_sgd.py tests the rule it is, and that many
        epochs approach the weighted optimum, which lbfgs finds)."""
        if self.solver != "sgd":
            return {}
        return dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                              "check_sample_weight_equivalence_on_sparse_data"),
                             "a weight k is one longer step; k copies are k steps")

    def _lam(self, n: int) -> float:
        if self.lam is not None:
            return float(self.lam)
        lam = 1.0 / (float(self.C) * n)
        if not lam < np.inf:  # a C of 5e-324: lam = inf would make every gradient nan
            raise param_error("LogisticRegression", "C", "large enough that lam = 1/(C n) is"
                              f" finite (n = {n})", self.C,
                              "Try C=1.0; C=1e-12 already means w = 0 in practice.")
        return lam

    # -- hooks of OnlineClassifier (partial_fit, the online game) ---------------------------
    def _init_state(self, X, n_models: int) -> None:
        self.coef_ = np.zeros((n_models, X.shape[1]))
        self.intercept_ = np.zeros(n_models)

    def _start(self, X, classes: NDArray) -> None:
        self.__dict__.pop("eta0_", None)
        super()._start(X, classes)
        self.multi_class_ = "ovr"  # the SGD steps'; a multinomial fit sets its own

    def _multinomial(self) -> bool:
        """Whether ``fit`` (L-BFGS-B) minimizes the multinomial objective."""
        return self.multi_class != "ovr" and self.solver == "lbfgs"

    def _set_eta0(self, X) -> None:
        """``eta0_``, unless set: ``eta0``, or ``"auto"``'s ``1 / mean ||x||^2`` of ``X``."""
        if not hasattr(self, "eta0_"):
            if isinstance(self.eta0, str):  # (inf norms would make it 0: no learning)
                mean_sq = float(np.mean(check_row_norms("LogisticRegression", X)))
                self.eta0_ = 1.0 / mean_sq if mean_sq > 0 else 1.0
            else:
                self.eta0_ = float(self.eta0)

    #: ``partial_fit`` scales each step by its example's weight (see ``_pass``).
    _takes_sample_weight = True

    def _run_pass(self, X, y_pm: NDArray, order: NDArray, *weights) -> int:
        if self.classes_.size > 2 and self.multi_class == "multinomial":
            raise ValueError(
                "LogisticRegression.partial_fit: the SGD steps are one-vs-rest, and"
                " multi_class='multinomial' asks for the softmax objective. Use"
                " multi_class='auto' or 'ovr' for online learning, or fit the multinomial"
                " model in one batch.")
        # "auto": the steps continue from any fit's coefficients, one-vs-rest from now on
        self.multi_class_ = "ovr"
        self._set_eta0(X)  # before the classes' passes, which may run in threads
        if weights:  # a row of weight 0 is no step: it does not advance t_ or shrink w
            order = order[weights[0][order] > 0]
        return super()._run_pass(X, y_pm, order, *weights)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              s: NDArray | None = None) -> int:
        """``partial_fit``'s steps: ``lam`` as without weights (``1/(C m)``, ``m`` the rows
        of positive weight seen, this batch's included), each step scaled by ``s_i``."""
        self._set_eta0(X)
        return self._sgd_pass(k, X, y, order, scores, self._lam(self.t_ + order.size), s)

    def _sgd_pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
                  lam: float, s: NDArray | None = None) -> int:
        """SGD steps ``t_ + 1, ...`` of binary problem ``k`` over ``X[order]``, each scaled
        by the example weight in ``s`` (None: 1; no weight 0); its mistakes."""
        p = SGDParams(lam, self.eta0_, bool(self.fit_intercept))
        w = self.coef_[k]
        result, b, a = _logistic_sgd_pass(as_rows(X), y, w, order,
                                          (self.t_, float(self.intercept_[k]), 1.0), p,
                                          scores, s)
        check_pass("LogisticRegression", result, "the score <w, x_i> + b")
        w *= a
        # once per pass: a score checks only the weights of its row
        if not (np.isfinite(b) and np.isfinite(w @ w)):
            check_pass("LogisticRegression",
                       PassResult(result.mistakes, WEIGHTS_NOT_FINITE, int(order[-1])))
        self.intercept_[k] = b
        return result.mistakes

    def _decision(self, X) -> NDArray[np.float64]:
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    # -- batch fit ---------------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Minimize ``J`` with L-BFGS-B, one binary problem per class beyond two (OvR).

        ``sample_weight``: one number ``s_i >= 0`` per example, the weight of its loss (an
        integer weight ``k`` is the example repeated ``k`` times; 0 leaves it out).

        With ``solver="sgd"``: ``max_iter`` epochs of SGD steps on ``J`` (see the module),
        stopped early by ``early_stopping``. Weights (``sample_weight`` times
        ``class_weight``) scale each step, ``w <- (1 - eta_t lam) w - eta_t s_t g_t x_t``; a
        row of weight 0 is left out before the fit (no step, no ``t_``, not in
        ``eta0="auto"``). A weight ``k`` is one step ``k`` times longer, not ``k`` copies;
        with many epochs the steps approach the weighted optimum of ``solver="lbfgs"``.
        """
        if self.solver == "sgd":
            return self._fit_sgd(X, y, sample_weight)
        self._validate_params()
        if self.early_stopping:
            raise param_error("LogisticRegression", "early_stopping", "False with"
                              " solver='lbfgs' (L-BFGS-B stops at tol; it has no epochs to"
                              " stop)", self.early_stopping,
                              "Use solver='sgd' to stop on held-out rows.")
        self.__dict__.pop("validation_scores_", None)  # of an earlier fit with solver='sgd'
        warm = bool(self.warm_start) and hasattr(self, "coef_")
        X, y = validate_X_y(self, X, y, reset=not warm)
        classes = check_classes("LogisticRegression", y, None)
        d = X.shape[1]
        if not (warm and np.array_equal(classes, self.classes_) and self.coef_.shape[1] == d):
            self._start(X, classes)
        y_pm = encode_pm(y, self.classes_)
        s = example_weights("LogisticRegression.fit", sample_weight, X.shape[0], y,
                            self.class_weight, self.classes_)
        check_every_class_weighed("LogisticRegression.fit", s, y, self.classes_,
                                  self.class_weight)
        lam = self._lam(X.shape[0] if s is None else float(s.sum()))
        check_row_norms("LogisticRegression", X)  # the scores and X^T g would overflow
        if self.classes_.size > 2 and self._multinomial():  # dense rows: BLAS products
            return self._fit_multinomial(product_rows(X), np.searchsorted(self.classes_, y),
                                         s, lam)
        rows = sparse_product_rows(X)  # the products' rows: a dense X as CSR, once
        fit_b = bool(self.fit_intercept)
        problems = self._y_rows(y_pm)
        self.multi_class_ = "ovr"
        lane_jobs = self.n_jobs if len(problems) == 1 else None  # else: problems in threads

        def solve(k: int):
            y_k = problems[k]
            theta0 = np.concatenate([self.coef_[k], [self.intercept_[k]] if fit_b else []])
            # stacklevel: past solve and map_problems to fit's caller (one thread)
            return lbfgs_with_value(
                lambda theta: _objective_and_grad(theta, rows, y_k, lam, fit_b, s, lane_jobs),
                theta0, max_iter=self.max_iter, tol=self.tol, stacklevel=5)

        objectives, n_iter = [], 0
        for k, (res, objective) in enumerate(map_problems(solve, len(problems), self.n_jobs)):
            self.coef_[k] = res.x[:d]
            self.intercept_[k] = res.x[d] if fit_b else 0.0
            objectives.append(objective)
            n_iter = max(n_iter, int(res.nit))
        self.objective_ = objectives[0] if len(objectives) == 1 else np.array(objectives)
        self.n_iter_ = max(n_iter, 1)
        return self

    def _fit_multinomial(self, rows, labels: NDArray, s: NDArray | None, lam: float):
        """Minimize the multinomial ``J`` with L-BFGS-B from ``(coef_, intercept_)``."""
        K, d = self.coef_.shape
        fit_b = bool(self.fit_intercept)
        labels = labels.astype(np.int64)
        theta0 = np.concatenate([self.coef_.ravel(), self.intercept_ if fit_b else []])
        res, value = lbfgs_with_value(
            lambda theta: softmax_objective(theta, rows, labels, K, lam, fit_b, s), theta0,
            max_iter=self.max_iter, tol=self.tol, stacklevel=3)
        self.coef_ = res.x[:K * d].reshape(K, d).copy()
        self.intercept_ = res.x[K * d:].copy() if fit_b else np.zeros(K)
        self.objective_ = float(value)
        self.n_iter_ = max(int(res.nit), 1)
        self.multi_class_ = "multinomial"
        return self

    def _fit_sgd(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None):
        """``fit`` with ``solver="sgd"``: SGD epochs, each row (of positive weight) once per
        epoch, its steps scaled by its weight. The state after an epoch is the estimator's
        attributes and ``rng``'s: a checkpoint (:mod:`halfspaces._checkpoint`) holds it."""
        X, y_pm = self._prepare_fit(X, y)
        check_row_norms("LogisticRegression", X)  # the scores would overflow
        y = decode_scores(y_pm.T if y_pm.ndim == 2 else y_pm, self.classes_)
        s = example_weights("LogisticRegression.fit", sample_weight, X.shape[0], y,
                            self.class_weight, self.classes_)
        check_every_class_weighed("LogisticRegression.fit", s, y, self.classes_,
                                  self.class_weight)
        rng = check_random_state(self.random_state)
        X, y_pm, s, held_out = hold_out(self, X, y_pm, rng, s)
        if s is not None and not (s > 0).all():  # a row of weight 0 is left out
            keep = np.flatnonzero(s > 0)
            X, y_pm, s = X[keep], y_pm[..., keep], s[keep]
        n = X.shape[0]
        self._set_eta0(X)
        lam = self._lam(n)
        # J weighs s_i loss_i over S = sum s_i (with lam = 1/(C S)); an epoch of steps
        # s_i g_i over the n rows follows the gradient of (S / n) J when lam is scaled alike
        lam_J = lam if s is None else self._lam(float(s.sum()))
        if s is not None and self.lam is not None:
            lam = lam_J * float(s.sum()) / n
        problems = self._y_rows(y_pm)

        def epoch(group: range, order: NDArray) -> int:  # classes in one thread, one buffer
            scores = np.empty(n, dtype=np.float64)
            return sum(self._sgd_pass(k, X, problems[k], order, scores, lam, s) for k in group)

        # 0, or the epochs of a checkpoint: then coef_, intercept_, t_, the counters and the
        # state of rng (the orders of the epochs to come) are the checkpoint's
        done = resume_point(self, rng)  # its columns and classes checked against the data
        if done >= self.max_iter:
            raise solver_state_error(f"it holds {done} epochs, and max_iter={self.max_iter}")
        for made in range(done + 1, self.max_iter + 1):
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            mistakes = sum(map_groups(lambda group, order=order: epoch(group, order),
                                      len(problems), self.n_jobs))
            self.t_ += n
            self.mistakes_per_epoch_.append(mistakes)
            self.n_mistakes_ += mistakes
            self.n_iter_ += 1
            if held_out is not None and held_out.stop(self):
                break
            if made < self.max_iter:
                epoch_done(self, made, rng)  # a checkpoint when one is due
        rows, fit_b = sparse_product_rows(X), bool(self.fit_intercept)
        objectives = [_objective_and_grad(np.concatenate([self.coef_[k], [self.intercept_[k]]]
                                                         if fit_b else [self.coef_[k]]),
                                          rows, y_k, lam_J, fit_b, s)[0]
                      for k, y_k in enumerate(self._y_rows(y_pm))]
        self.objective_ = objectives[0] if len(objectives) == 1 else np.array(objectives)
        worst = max(objectives)
        if not worst <= math.log(2.0):  # J(0) = log 2: the steps made the model worse
            heavy = "" if s is None else f" (the largest example weight, {float(s.max()):.3g},"
            heavy += "" if s is None else " scales its row's step by that much)"
            warnings.warn(
                f"LogisticRegression: SGD ended at an objective J = {worst:.4g}, worse than"
                f" J = log 2 = 0.6931 of the zero model: its steps diverged{heavy}. Use"
                " solver='lbfgs', a smaller eta0, or sample weights of a smaller range.",
                convergence_warning(), stacklevel=3)
        return self

    # -- probabilities -----------------------------------------------------------------------
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """``P(y = classes_[k] | x)``: sigmoid of the score (binary), softmax of the scores
        (multinomial), normalised sigmoids (one-vs-rest)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        if self._fitted_multinomial():
            return softmax(scores, axis=1)
        p = expit(scores)
        return p / p.sum(axis=1, keepdims=True)

    def _fitted_multinomial(self) -> bool:
        # a model saved before multi_class_ existed is one-vs-rest
        return getattr(self, "multi_class_", "ovr") == "multinomial"

    def predict_log_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Logarithm of :meth:`predict_proba`."""
        check_is_fitted(self)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        if self._fitted_multinomial():
            return log_softmax(scores, axis=1)
        log_p = log_expit(scores)
        return log_p - np.logaddexp.reduce(log_p, axis=1, keepdims=True)

    def stream_fitter(self, epochs: int | None = None) -> LogisticStreamFit:
        """What :func:`~halfspaces.datasets.fit_stream` drives over the blocks of a stream
        (see :mod:`halfspaces._streaming`): the online SGD, ``partial_fit`` on the whole
        data once per epoch, ``epochs`` times (default 1); ``fit``'s L-BFGS needs all the
        data at once."""
        return LogisticStreamFit(self, 1 if epochs is None else epochs)


class LogisticStreamFit(StreamFit):
    """``LogisticRegression.partial_fit`` on the whole data, once per epoch: the compiled
    SGD pass on each block, with its step counter, ``b`` and the scale ``a`` of ``w = a v``
    carried from block to block, and at the end of a pass what ``LogisticRegression._pass``
    does there (``a`` folded into ``w``, the state checked)."""

    needs_rows = True

    def row_norms(self, X):
        return check_row_norms(self.name, X)

    def __init__(self, est: LogisticRegression, epochs: int):
        super().__init__(est)
        self.n_epochs = epochs

    def epochs(self, summary):
        return [None] * self.n_epochs

    def begin(self, summary: Summary, source) -> None:
        est = self.est
        d = summary.n_features
        if not hasattr(est, "classes_"):
            est._validate_params()
            est.n_features_in_ = d
            est._start(np.empty((0, d)), check_classes(self.name, summary.classes, None))
        if not hasattr(est, "eta0_"):
            if isinstance(est.eta0, str):  # 1 / mean ||x||^2 of the data of the first call
                mean_sq = float(np.mean(summary.sq_norms))
                est.eta0_ = 1.0 / mean_sq if mean_sq > 0 else 1.0
            else:
                est.eta0_ = float(est.eta0)

    def start_epoch(self, n_rows: int) -> None:
        est = self.est
        # the C form's lam = 1/(C (t + n)) of a partial_fit call on the whole data
        self.params = SGDParams(est._lam(est.t_ + n_rows), est.eta0_, bool(est.fit_intercept))
        self.mistakes = 0
        self.states = [(float(b), 1.0) for b in est.intercept_]  # (b, a) of each problem
        self.t0 = est.t_

    def block(self, X, y, row0: int, sample_weight=None) -> None:
        est = self.est
        X = validate_X(est, X, reset=False)
        y_pm = encode_pm(y, est.classes_)
        order = np.arange(X.shape[0])
        scores = np.empty(X.shape[0])
        for k, y_k in enumerate(est._y_rows(y_pm)):
            result, b, a = _logistic_sgd_pass(as_rows(X), y_k, est.coef_[k], order,
                                              (self.t0 + row0, *self.states[k]),
                                              self.params, scores, None)
            try:
                self.mistakes += check_pass(self.name, result, "the score <w, x_i> + b")
            except NumericalError as err:
                raise shifted(err, row0) from None
            self.states[k] = (b, a)

    def end_epoch(self, n_rows: int) -> bool:
        est = self.est
        for k, (b, a) in enumerate(self.states):  # what LogisticRegression._pass does at its end
            w = est.coef_[k]
            w *= a
            if not (np.isfinite(b) and np.isfinite(w @ w)):
                raise NumericalError(self.name, n_rows - 1,
                                     "the weights at the end of the pass (last row)")
            est.intercept_[k] = b
        est.t_ += n_rows
        est.n_mistakes_ += self.mistakes
        est.n_iter_ += 1
        return False


__all__ = ["LogisticRegression"]
