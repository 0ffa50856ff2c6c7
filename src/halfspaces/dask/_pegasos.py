"""Pegasos on the cluster: parameter averaging per epoch, or synchronous mini-batches.

``method="average"`` (parameter mixing for SGD, as McDonald, Hall and Mann 2010 mix
perceptrons; Zinkevich, Weimer, Smola and Li 2010 average once at the end). Epoch ``r``:
every shard runs one epoch of the estimator's own Pegasos (``partial_fit``, rows in a
seeded order) from the mixed predictor ``(w^(r-1), b^(r-1))`` with the step counter at
``t^(r-1)``; the client mixes the shards' predictors (their averaged iterates with
``average``) weighted by their rows,

    w^(r) = sum_j (n_j / n) w_j,   b^(r) = sum_j (n_j / n) b_j,
    t^(r) = t^(r-1) + sum_j (n_j / n) ceil(n_j / k),

and the next epoch starts from it. With one shard nothing is mixed: the shard's estimator
simply continues, which is the single-machine ``partial_fit`` pass repeated.

``method="minibatch"`` (Shalev-Shwartz et al. 2011, mini-batch Pegasos). Step ``t`` draws
``A_t``: ``k`` row numbers uniformly from ``0..n-1`` (with replacement, the paper's i.i.d.
draws) from a generator seeded by ``(random_state, t)``; every shard recomputes the draws
and sums the sub-gradients of its own rows of ``A_t``; the tree sum gives

    w_{t+1} = Pi[(1 - eta_t lam) w_t + eta_t/k sum_{i in A_t, y_i (w_t.x_i + b_t) < 1} y_i x_i]
    b_{t+1} = b_t + rho eta_t/k sum_{i in A_t, ...} y_i          (rho = ``intercept_decay``)

The batches, hence the iterates, depend only on the seed and the rows -- not on how many
workers or blocks there are (up to the rounding of the sum, which runs in block order, so
for given blocks the result is the same bit for bit on any number of workers). One step is
one round trip, so use batches of thousands of rows.

Both return a :class:`~halfspaces.PegasosSVC` whose state is the result as its last iterate
(no averaging history), so ``partial_fit`` continues from it.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


# -- parameter averaging per epoch --------------------------------------------------------------
@dataclass(frozen=True)
class EpochParams:
    classes: tuple
    seed: int | None
    round: int
    keep_state: bool


def pegasos_epoch(shard, model, params: EpochParams, *, j: int) -> dict:
    """Round on a shard: one Pegasos epoch from ``model``; its predictor times ``n_j``."""
    X, y = shard
    if params.seed is not None:
        perm = np.random.default_rng([params.seed, params.round, j]).permutation(y.shape[0])
        X, y = X[perm], y[perm]
    est = copy.deepcopy(model)  # the same input serves every shard of a host
    before_t, before_k = getattr(est, "t_", 0), getattr(est, "n_mistakes_", 0)
    est.partial_fit(X, y, classes=np.asarray(params.classes))
    n_j = y.shape[0]
    return {"W": n_j * est.coef_, "B": n_j * est.intercept_,
            "steps": n_j * (est.t_ - before_t),
            "per_shard": {j: {"mistakes": int(est.n_mistakes_ - before_k),
                              "state": est if params.keep_state else None}}}


def fit_average(run, model, classes, *, max_iter: int, shuffle: bool, seed: int):
    """Parameter averaging; returns ``(estimator, history)``."""
    m, n = run.n_shards, run.shards.n_samples
    mistakes = []
    for r in range(max_iter):
        params = EpochParams(tuple(classes), seed if shuffle else None, r,
                             keep_state=(r == 0 or m == 1))
        total = run.map_reduce(pegasos_epoch, model, params)
        per_shard = [total["per_shard"][j]["mistakes"] for j in range(m)]
        t_before = getattr(model, "t_", 0)
        if m == 1:  # nothing to mix: the shard's estimator continues as it is
            model = total["per_shard"][0]["state"]
        else:
            if r == 0:
                model = total["per_shard"][0]["state"]
            steps = round(total["steps"] / n)
            model = copy.deepcopy(model).set_iterate(total["W"] / n, total["B"] / n,
                                                     t_before + steps)
        mistakes.append(per_shard)
        run.report({"method": "average", "round": r + 1, "mistakes": np.array(per_shard)},
                   f"epoch {r + 1}: mistakes per shard {per_shard}, t = {model.t_}")
    return model, {"mistakes": np.array(mistakes, dtype=np.int64)}


# -- synchronous mini-batches -------------------------------------------------------------------
@dataclass(frozen=True)
class BatchParams:
    positives: tuple
    seed: int
    step: int
    batch_size: int
    n_samples: int
    offsets: tuple  # first global row of each shard


def batch_rows(seed: int, t: int, k: int, n: int):
    """The global row numbers of ``A_t`` (the same on every shard)."""
    return np.random.default_rng([seed, t]).integers(0, n, size=k)


def pegasos_subgradient(shard, model, params: BatchParams, *, j: int) -> dict:
    """Round on a shard: this shard's sums over its rows of ``A_t`` for every problem."""
    X, y = shard
    W, B = model
    lo = params.offsets[j]
    rows = batch_rows(params.seed, params.step, params.batch_size, params.n_samples) - lo
    rows = rows[(rows >= 0) & (rows < y.shape[0])]
    Xa, ya = X[rows], y[rows]
    K = len(params.positives)
    g, gb = np.zeros_like(W), np.zeros(K)
    mistakes = violators = 0
    for k, positive in enumerate(params.positives):
        y_k = np.where(ya == positive, 1.0, -1.0)
        z = y_k * (np.asarray(Xa @ W[k]).ravel() + B[k])
        viol = z < 1.0
        coef = np.where(viol, y_k, 0.0)
        g[k] = np.asarray(Xa.T @ coef).ravel() if sp.issparse(Xa) else coef @ Xa
        gb[k] = coef.sum()
        mistakes += int((z <= 0.0).sum())
        violators += int(viol.sum())
    return {"g": g, "gb": gb, "mistakes": mistakes, "violators": violators}


def step_size(learning_rate: str, t: int, lam: float, eta0: float, t0: float) -> float:
    """eta_t of PegasosSVC's schedules (see its ``learning_rate``)."""
    if learning_rate == "pegasos":
        return 1.0 / (lam * t)
    if learning_rate == "notes":
        return 1.0 / t
    if learning_rate == "constant":
        return eta0
    return 1.0 / (lam * (t + t0))


def fit_minibatch(run, estimator, classes, *, n_steps: int, batch_size: int, eta0: float,
                  intercept_decay: float, seed: int):
    """Synchronous mini-batch Pegasos; returns ``(W, B, history)``."""
    positives = (classes[1],) if classes.size == 2 else tuple(classes)
    K, d, n = len(positives), run.shards.n_features, run.shards.n_samples
    lam = float(estimator.lam)
    t0 = 1.0 / (lam * eta0) if isinstance(estimator.t0, str) else float(estimator.t0)
    rho = intercept_decay if estimator.fit_intercept else 0.0
    offsets = tuple(int(o) for o in np.concatenate([[0], np.cumsum(run.shards.rows)[:-1]]))
    start = _average_start(estimator.average, n_steps)
    W, B = np.zeros((K, d)), np.zeros(K)
    avg_W, avg_B, avg_n = np.zeros((K, d)), np.zeros(K), 0.0
    mistakes = []
    for t in range(1, n_steps + 1):
        params = BatchParams(positives, seed, t, batch_size, n, offsets)
        total = run.map_reduce(pegasos_subgradient, (W, B), params)
        eta = step_size(estimator.learning_rate, t, lam, eta0, t0)
        W = (1.0 - eta * lam) * W + (eta / batch_size) * total["g"]
        B = B + rho * (eta / batch_size) * total["gb"]
        if estimator.projection:  # onto the ball of radius 1/sqrt(lam), each problem
            norms = np.sqrt((W * W).sum(axis=1))
            W *= np.minimum(1.0, 1.0 / (math.sqrt(lam) * np.maximum(norms, 1e-300)))[:, None]
        if start is not None and t > start[0]:
            weight = t - start[0] if start[1] else 1.0
            avg_W += weight * W
            avg_B += weight * B
            avg_n += weight
        mistakes.append(total["mistakes"])
        run.report({"method": "minibatch", "round": t, "mistakes": total["mistakes"],
                    "violators": total["violators"]},
                   f"step {t}: {total['mistakes']} mistakes, {total['violators']} margin"
                   f" violators in a batch of {batch_size}")
    if avg_n > 0:
        W, B = avg_W / avg_n, avg_B / avg_n
    return W, B, {"mistakes": np.array(mistakes, dtype=np.int64)}


def _average_start(average, T: int):
    """``(step after which to average, weighted)`` for PegasosSVC's ``average``, or None."""
    if isinstance(average, (bool, np.bool_)):
        return (0, False) if average else None
    if average == "weighted":
        return (0, True)
    if average == "suffix":  # the last tenth of the steps, as PegasosSVC.fit
        return (T - math.ceil(T * 0.1), False)
    return (int(average), False)
