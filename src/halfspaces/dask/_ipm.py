"""Iterative parameter mixing for the perceptron (McDonald, Hall and Mann 2010).

Epoch ``n``: every shard ``i`` runs one perceptron epoch over its own rows, starting from the
mixed weights ``w^(n-1)``, and makes ``k_{i,n}`` mistakes; the driver mixes the results

    w^(n) = sum_i mu_{i,n} w_{i,n},    mu_{i,n} = 1/S  ("uniform")  or  k_{i,n} / k_n
    ("mistakes", k_n = sum_i k_{i,n}; any mu when k_n = 0, since then every w_{i,n} = w^(n-1))

until an epoch makes no mistake on any shard (then ``w^(n)`` separates every row) or
``max_iter`` epochs. **Theorem** (ibid., Theorem 3): on data separable with margin ``gamma``
by a unit vector, ``||x|| <= R``, whatever the mixing weights (a distribution per epoch),

    sum_n sum_i mu_{i,n} k_{i,n}  <=  (R / gamma)^2,

so with uniform mixing all shards together make at most ``S (R/gamma)^2`` mistakes per
epoch-sum, and IPM converges in a finite number of epochs. (With ``fit_intercept`` read
``x`` as ``(x, 1)``.)

**The averaged perceptron.** The running weights mix as above. The returned model is the
average of every weight vector that any shard produced, ``(1/T) sum w_{t+1}`` over all
``T`` row visits of all epochs and shards; it is kept in the estimator's own
representation (``w``, ``u``, ``c = T``, with ``avg = w - u / c``, see
:class:`~halfspaces.AveragedPerceptron`): if shard ``i`` starts from ``(w0, u0, c0)`` and
ends at ``(w_i, u_i, c_i)``, its iterates add ``c_i w_i - u_i - (c0 w0 - u0)`` to the sum
of iterates ``A = c w - u``, so the mixed state is ``w = sum mu_i w_i``, ``c = c0 + sum n_i``,
``u = c w - (sum_i (c_i w_i - u_i) - (S - 1)(c0 w0 - u0))``.

Each shard runs the estimator's own ``partial_fit`` (the compiled epoch) on a copy of the
mixed model; one task per shard per epoch handles every one-vs-rest problem. With one
shard mixing is the identity and the fit is the single-machine ``fit``, bit for bit.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..linear.averaged_perceptron import AveragedPerceptron

_RUNNING = ("coef_", "intercept_")  # Perceptron: the model is the running weights
_AVERAGED = ("current_coef_", "current_intercept_", "weighted_coef_sum_",
             "weighted_intercept_sum_", "coef_", "intercept_")


@dataclass(frozen=True)
class EpochParams:
    positives: tuple  # the label that is +1 in each one-vs-rest problem
    weighted: bool  # mistakes-weighted mixing
    seed: int | None  # row shuffling seed (None: rows in order)
    round: int
    keep_states: bool  # return the shard's estimators (first round, or a single shard)


def _running(est, averaged: bool):
    if averaged:
        return est.current_coef_[0], est.current_intercept_[0]
    return est.coef_[0], est.intercept_[0]


def ipm_epoch(shard, states, params: EpochParams, *, j: int) -> dict:
    """Round on a shard: one perceptron epoch for every problem, from the mixed states."""
    X, y = shard
    if params.seed is not None:
        perm = np.random.default_rng([params.seed, params.round, j]).permutation(y.shape[0])
        X, y = X[perm], y[perm]
    weights, ws, bs, sums, sums_b, mistakes, ests = [], [], [], [], [], [], []
    for state, positive in zip(states, params.positives, strict=True):
        est = copy.deepcopy(state)  # the same input serves every shard of a host
        before = getattr(est, "n_mistakes_", 0)
        est.partial_fit(X, np.where(y == positive, 1.0, -1.0), classes=[-1.0, 1.0])
        k = est.n_mistakes_ - before
        averaged = isinstance(est, AveragedPerceptron)
        w, b = _running(est, averaged)
        mu = float(k) if params.weighted else 1.0
        weights.append(mu)
        ws.append(mu * w)
        bs.append(mu * b)
        if averaged:  # this shard's sum of iterates, as c w - u (see the module docstring)
            c = float(est.t_)
            sums.append(c * w - est.weighted_coef_sum_[0])
            sums_b.append(c * b - est.weighted_intercept_sum_[0])
        mistakes.append(k)
        ests.append(est)
    out = {"mu": np.array(weights), "w": np.array(ws), "b": np.array(bs),
           "per_shard": {j: {"mistakes": np.array(mistakes, dtype=np.int64),
                             "states": ests if params.keep_states else None}}}
    if sums:
        out["A"], out["Ab"] = np.array(sums), np.array(sums_b)
    return out


def _zeroed(est):
    """A copy of a shard's first-epoch estimator reset to the common start ``w = 0``."""
    start = copy.deepcopy(est)
    for name in _AVERAGED if isinstance(est, AveragedPerceptron) else _RUNNING:
        getattr(start, name)[...] = 0.0
    start.t_ = 0
    return start


def _mix(state, k: int, total: dict, m: int, n: int):
    """The mixed binary estimator of problem ``k`` from ``state``, the one every shard's
    epoch started from (see the module docstring)."""
    averaged = isinstance(state, AveragedPerceptron)
    mixed = copy.deepcopy(state)
    mixed.t_ = state.t_ + n  # row visits: the T of the average
    w0, b0 = _running(state, averaged)
    if total["mu"][k] > 0:
        w, b = total["w"][k] / total["mu"][k], total["b"][k] / total["mu"][k]
    else:  # no mistake anywhere: every shard kept w0
        w, b = w0.copy(), b0
    if not averaged:
        mixed.coef_[0], mixed.intercept_[0] = w, b
        return mixed
    c0 = float(state.t_)
    c = c0 + n
    A = total["A"][k] - (m - 1) * (c0 * w0 - state.weighted_coef_sum_[0])
    Ab = total["Ab"][k] - (m - 1) * (c0 * b0 - state.weighted_intercept_sum_[0])
    u, beta = c * w - A, c * b - Ab
    mixed.current_coef_[0], mixed.current_intercept_[0] = w, b
    mixed.weighted_coef_sum_[0], mixed.weighted_intercept_sum_[0] = u, beta
    inv_c = 1.0 / c  # as AveragedPerceptron materialises its average
    mixed.coef_[0], mixed.intercept_[0] = w - u * inv_c, b - beta * inv_c
    return mixed


def fit_ipm(run, estimator, classes, *, max_iter: int, mixing: str, shuffle: bool, seed: int):
    """Run IPM; returns ``(binary estimator per problem, history, converged)``."""
    from sklearn.base import clone

    positives = (classes[1],) if classes.size == 2 else tuple(classes)
    K, m, n = len(positives), run.n_shards, run.shards.n_samples
    states = [clone(estimator) for _ in range(K)]
    mistakes, mixed_mistakes = [], []
    converged = False
    for r in range(max_iter):
        params = EpochParams(positives, mixing == "mistakes", seed if shuffle else None, r,
                             keep_states=(r == 0 or m == 1))
        total = run.map_reduce(ipm_epoch, states, params)
        per_shard = np.array([total["per_shard"][j]["mistakes"] for j in range(m)])  # (m, K)
        if m == 1:  # mixing one model is the identity: keep its bits
            states = total["per_shard"][0]["states"]
        else:
            if r == 0:  # shard 0's estimators carry every attribute that partial_fit sets
                states = [_zeroed(s) for s in total["per_shard"][0]["states"]]
            states = [_mix(states[k], k, total, m, n) for k in range(K)]
        k_n = per_shard.sum(axis=0)  # (K,)
        mu = (per_shard / np.where(k_n > 0, k_n, 1) if mixing == "mistakes"
              else np.full(per_shard.shape, 1.0 / m))
        mistakes.append(per_shard.sum(axis=1))
        mixed_mistakes.append(float((mu * per_shard).sum()))
        bound_lhs = float(np.sum(mixed_mistakes))
        run.report({"method": "ipm", "round": r + 1, "mistakes": mistakes[-1],
                    "mixed_mistakes": bound_lhs, "radius": run.shards.radius},
                   f"epoch {r + 1}: mistakes per shard {mistakes[-1].tolist()};"
                   f" sum_n sum_i mu k = {bound_lhs:g}, at most (R/gamma)^2 on data separable"
                   f" with margin gamma (R = {run.shards.radius:.4g})")
        if per_shard.sum() == 0:
            converged = True
            break
    history = {"mistakes": np.array(mistakes, dtype=np.int64),
               "mixed_mistakes": np.array(mixed_mistakes)}
    return states, history, converged


def assemble(states: list, classes, history: dict, converged: bool):
    """One estimator from the binary estimator of each one-vs-rest problem."""
    fitted = copy.deepcopy(states[0])
    names = _AVERAGED if isinstance(fitted, AveragedPerceptron) else _RUNNING
    for name in names:
        setattr(fitted, name, np.concatenate([getattr(s, name) for s in states]))
    per_epoch = history["mistakes"].sum(axis=1)
    fitted.classes_ = classes
    fitted.n_iter_ = len(per_epoch)
    fitted.mistakes_per_epoch_ = [int(v) for v in per_epoch]
    fitted.n_mistakes_ = int(per_epoch.sum())
    fitted.converged_ = converged
    fitted.dask_history_ = history
    return fitted
