"""Kernelized Pegasos (Shalev-Shwartz et al. 2011, section 4), run by ``PegasosSVC(kernel=...)``.

The weight vector lives in the span of the training points, w = a sum_j v_j phi(x_j), and
every inner product is read from the Gram matrix K[i, j] = k(x_i, x_j):

    <w_t, phi(x_i)>  = a sum_j v_j K[i, j]                         (O(n) per example)
    violator i       : v_i <- v_i + eta_t y_i / (k a),  alpha_i <- alpha_i + 1
    ||w||^2 update   : + a^2 (2 c (K v)_i + c^2 K[i, i])  with c the change of v_i

so the shrink, the projection and the averaging are the primal ones (see
:mod:`halfspaces.linear.pegasos`). With ``learning_rate="pegasos"``, ``projection=False``,
``average=False`` and ``batch_size=1`` this is the paper's Figure 3: after T steps
w = 1/(lam T) sum_j alpha_j y_j phi(x_j), alpha_j counting the steps where example j violated
the margin. With the linear kernel it runs the same steps as the primal algorithm.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._labels import check_classes, encode_pm
from .._validation import validate_X, validate_X_y
from ..exceptions import NumericalError
from ..kernels import gram, resolve_gamma
from ..linear.pegasos import (
    _A,
    _B,
    _FIT_B,
    _LAM,
    _RENORM_BELOW,
    _S,
    _SQNORM,
    _end_step,
    _predictor,
    _row_stats,
    _step_size,
    _suffix_skip,
)
from ..losses import hinge


@njit(cache=True)
def _renormalize_dual(K, v, u, st):
    """Fold a into v as the primal ``_fold`` does; ||w||^2 = v' K v recomputed."""
    n = v.shape[0]
    if u.shape[0] > 0:
        for j in range(n):
            u[j] -= st[_S] * v[j]
    for j in range(n):
        v[j] *= st[_A]
    sq = 0.0
    for i in range(n):
        if v[i] != 0.0:
            for j in range(n):
                sq += v[i] * K[i, j] * v[j]
    st[_A] = 1.0
    st[_S] = 0.0
    st[_SQNORM] = sq


@njit(cache=True)
def _kernel_pegasos_epoch(K, y, v, u, st, order, t, k, hp, scores, alpha):
    """One pass of kernelized mini-batch Pegasos over rows ``order`` of the Gram matrix.

    K : float64[n, n] C-contiguous Gram matrix; v, u : float64[n] dual coefficients and
    averaging sums (u empty without averaging); st, hp : as in the primal kernel;
    alpha : int64[n] violation counts. Returns ``(mistakes, bad)``: the mistakes (y score <= 0
    before the step) and -1, or the row whose score was inf or nan (the pass stops there).
    """
    n = K.shape[0]
    m = order.shape[0]
    lam = hp[_LAM]
    averaging = u.shape[0] > 0
    violators = np.empty(k, dtype=np.int64)
    mistakes, bad = 0, -1
    for lo in range(0, m, k):
        hi = min(lo + k, m)
        t += 1
        n_viol = 0
        for p in range(lo, hi):
            i = order[p]
            dot = 0.0
            for j in range(n):
                dot += K[i, j] * v[j]
            score = st[_A] * dot + st[_B]
            if not abs(score) < np.inf:  # inf or nan (nan <= 0 is false: never a mistake)
                bad = i
                break
            scores[i] = score
            if y[i] * score <= 0.0:  # a tie counts as a mistake
                mistakes += 1
            if y[i] * score < 1.0:
                violators[n_viol] = i
                n_viol += 1
        if bad >= 0:
            break
        eta = _step_size(hp, t)
        shrink = 1.0 - eta * lam
        st[_A] *= shrink
        st[_SQNORM] *= shrink * shrink
        if abs(st[_A]) < _RENORM_BELOW:
            _renormalize_dual(K, v, u, st)
        step = eta / (hi - lo)
        for r in range(n_viol):
            i = violators[r]
            c = step * y[i] / st[_A]
            kv = 0.0
            for j in range(n):
                kv += K[i, j] * v[j]
            st[_SQNORM] += st[_A] * st[_A] * (2.0 * c * kv + c * c * K[i, i])
            v[i] += c
            if averaging:
                u[i] += st[_S] * c
            alpha[i] += 1
            st[_B] += hp[_FIT_B] * step * y[i]
        _end_step(hp, st, t)
    return mistakes, bad


def _kernel_params(est, X) -> dict:
    gamma = resolve_gamma(est.gamma, X) if est.kernel in ("poly", "rbf") else float("nan")
    return {"kernel": est.kernel, "gamma": gamma, "degree": int(est.degree),
            "coef0": float(est.coef0)}


def fit_kernel_pegasos(est, X, y):
    """``PegasosSVC.fit`` for a kernel model (always starts afresh: no warm start)."""
    X, y = validate_X_y(est, X, y, reset=True)
    est.classes_ = check_classes("PegasosSVC", y, None)
    y_pm = encode_pm(y, est.classes_)
    ys = est._y_rows(y_pm)
    params = _kernel_params(est, X)
    est.gamma_ = params["gamma"]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is the error below
        K = gram(X, X, **params)
    bad = np.flatnonzero(~np.isfinite(K).all(axis=1))
    if bad.size:
        raise NumericalError("PegasosSVC", int(bad[0]), "the kernel k(x_i, x_j)")
    n, n_models = X.shape[0], len(ys)
    averaging = est._averaging
    v = np.zeros((n_models, n))
    u = np.zeros((n_models, n if averaging else 0))
    st = np.zeros((n_models, 6))
    st[:, _A] = 1.0
    alpha = np.zeros((n_models, n), dtype=np.int64)
    if isinstance(est.eta0, str):  # "auto": no sample calibration here; 1 / (2 mean k(x, x))
        mean_diag = float(np.mean(np.diag(K)))
        est.eta0_ = 0.5 / mean_diag if mean_diag > 0 else 1.0
    else:
        est.eta0_ = float(est.eta0)
    # "auto" is the density of the features: X's for the linear kernel, 1 for the others
    # (their feature maps are dense).
    resolve = est.kernel == "linear" or not isinstance(est.intercept_decay, str)
    est.intercept_decay_ = est._resolve_intercept_decay(_row_stats(X)[1]) if resolve else 1.0
    est._suffix_start = float(_suffix_skip(est._total_steps(n)))
    hp = est._hyper(est.eta0_)
    for attr in ("coef_", "_v", "_u", "_st", "objective_history_"):
        if hasattr(est, attr):
            delattr(est, attr)
    est.t_, est.n_iter_, est.n_mistakes_, est.mistakes_per_epoch_ = 0, 0, 0, []
    rng = check_random_state(est.random_state)
    track = est.record_objective or est.tol is not None
    history, best = [], np.inf
    k_batch = int(est.batch_size)
    for order in est._orders(rng, n):
        scores = np.empty(n)
        mistakes = 0
        for k in range(n_models):
            made, bad = _kernel_pegasos_epoch(K, ys[k], v[k], u[k], st[k], order, est.t_,
                                              k_batch, hp, scores, alpha[k])
            if bad >= 0:
                raise NumericalError("PegasosSVC", int(bad), "the score")
            if not (np.isfinite(st[k]).all() and np.isfinite(v[k]).all()
                    and np.isfinite(u[k]).all()):  # once per pass: O(n) against its O(n^2)
                raise NumericalError("PegasosSVC", int(order[-1]),
                                     "the weights at the end of the pass (last row)")
            mistakes += made
        est.t_ += -(-order.size // k_batch)
        est.mistakes_per_epoch_.append(mistakes)
        est.n_mistakes_ += mistakes
        est.n_iter_ += 1
        if track:
            beta, b = _predictor(v, u, st, averaging)
            f = K @ beta.T + b
            J = np.array([hinge(ys[k] * f[:, k]).mean()
                          + 0.5 * est.lam * float(beta[k] @ K @ beta[k])
                          for k in range(n_models)])
            history.append(J[0] if J.size == 1 else J)
            if est.tol is not None and J.sum() > best - est.tol * abs(best):
                break
            best = min(best, float(J.sum()))
    beta, b = _predictor(v, u, st, averaging)
    est.support_ = np.flatnonzero(np.any(beta != 0.0, axis=0))
    est.support_vectors_ = X[est.support_]
    est.dual_coef_ = np.ascontiguousarray(beta[:, est.support_])
    est.intercept_ = b
    est.alpha_ = alpha
    if track:
        est.objective_history_ = np.array(history)
    return est


def kernel_decision(est, X) -> NDArray[np.float64]:
    """Scores ``sum_j dual_coef_[k, j] k(sv_j, x) + b_k`` of a fitted kernel model."""
    check_is_fitted(est, "dual_coef_")
    X = validate_X(est, X, reset=False)
    if est.support_.size == 0:
        scores = np.zeros((X.shape[0], est.dual_coef_.shape[0])) + est.intercept_
    else:
        params = {"kernel": est.kernel, "gamma": est.gamma_, "degree": int(est.degree),
                  "coef0": float(est.coef0)}
        scores = gram(X, est.support_vectors_, **params) @ est.dual_coef_.T + est.intercept_
    return scores.ravel() if scores.shape[1] == 1 else scores


__all__ = ["fit_kernel_pegasos", "kernel_decision"]
