"""CoCoA+ for the linear SVM (Ma, Smith, Jaggi, Jordan, Richtarik, Takac 2015).

The dual coordinates ``alpha_[k]`` of shard ``k``'s rows live on its worker for the whole
fit (they are data-sized); only ``w = sum_i alpha_i y_i x~_i`` (``d + 1`` numbers) and
scalars travel. Round ``r``, with ``S`` shards and ``sigma' = S`` (the safe choice for
adding, gamma = 1):

1. the client puts ``w`` on the cluster;
2. on each shard: the shard's share of the primal and dual objectives at ``(w, alpha)``,
   then ``local_iters`` passes of dual coordinate descent on the local subproblem
   (:func:`halfspaces.solvers.cocoa.cocoa_local_solve`); ``alpha_[k] += delta_alpha_[k]``
   stays on the worker, ``delta_w_k`` is sent on;
3. the tree sum gives ``sum_k delta_w_k`` and the objective shares; the client adds
   ``w <- w + sum_k delta_w_k`` and knows the duality gap of the iterate that entered the
   round,

       P(w) = 1/2 ||w||^2 + C sum_i loss(y_i w.x~_i),
       D(alpha) = sum_i alpha_i - 1/2 ||w||^2 - D_ii/2 sum_i alpha_i^2,
       gap = P - D >= P(w) - P(w*) >= 0,

   and stops when ``gap <= tol P`` (then ``w`` is within a relative ``tol`` of the optimum).

**Failures.** ``alpha_[k]`` of round ``r`` is the result of a task whose inputs are the
shard, ``alpha_[k]`` of round ``r - 1`` and the model of round ``r - 1`` (written into the
task or put on the cluster), so a worker lost mid-fit is recovered by recomputing that
chain from the shard's source, and the fit ends with the same ``w``. The price is that the
scheduler keeps every round's model for as long as the fit runs: ``rounds x K (d + 1)``
floats.

**The offset** is a constant feature of value ``intercept_scaling`` (see
:mod:`halfspaces.solvers.cocoa`): CoCoA+ solves the SVM with the offset *regularized*,
``1/2 (||w||^2 + (b / intercept_scaling)^2) + C sum loss`` -- the problem of LIBLINEAR and
scikit-learn's ``LinearSVC`` -- not ``SVC``'s unregularized offset, whose dual constraint
``sum_i alpha_i y_i = 0`` ties every shard's coordinates together. Its optimum is that of
``SVC(fit_intercept=False)`` on ``X`` with a column of ``intercept_scaling`` appended; with
``fit_intercept=False`` the two problems are the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solvers.cocoa import cocoa_local_solve, hinge_terms


@dataclass(frozen=True)
class RoundParams:
    positives: tuple
    C: float
    loss: str
    sigma: float
    bias: float
    local_iters: int
    seed: int
    round: int


def cocoa_round(shard, previous, w, params: RoundParams, *, j: int) -> dict:
    """Task: the objective shares at ``(w, alpha)`` and the local update of every problem.

    ``previous`` is this shard's result of the last round (its ``alpha``), or None.
    """
    X, y = shard
    K, n = len(params.positives), y.shape[0]
    alpha = np.zeros((K, n)) if previous is None else previous["alpha"]
    new_alpha = alpha.copy()
    dw, loss, asum, asq = np.zeros_like(w), np.zeros(K), np.zeros(K), np.zeros(K)
    rng = np.random.default_rng([params.seed, params.round, j])
    for k, positive in enumerate(params.positives):
        y_k = np.where(y == positive, 1.0, -1.0)
        loss[k], asum[k], asq[k] = hinge_terms(X, y_k, alpha[k], w[k], loss=params.loss,
                                               bias=params.bias)
        update = cocoa_local_solve(X, y_k, alpha[k], w[k], C=params.C, loss=params.loss,
                                   sigma=params.sigma, bias=params.bias,
                                   n_passes=params.local_iters, rng=rng)
        new_alpha[k] += update.delta_alpha
        dw[k] = update.delta_w
    return {"alpha": new_alpha, "update": {"dw": dw, "loss": loss, "asum": asum, "asq": asq}}


def fit_cocoa(run, classes, *, C: float, loss: str, bias: float, max_iter: int, tol: float,
              local_iters: int, seed: int):
    """Run CoCoA+; returns ``(W (K, d + 1), history, converged, objective, gap)``."""
    positives = (classes[1],) if classes.size == 2 else tuple(classes)
    K, m, d = len(positives), run.n_shards, run.shards.n_features
    Dii = 0.0 if loss == "hinge" else 1.0 / (2.0 * C)
    W = np.zeros((K, d + 1))
    results = [None] * m
    gaps, objectives = [], []
    converged = False
    for r in range(max_iter):
        params = RoundParams(positives, C, loss, float(m), bias, local_iters, seed, r)
        model = run.put(W, "model", r)
        results = run.map(cocoa_round, model, params, step="local", r=r, states=results)
        total = run.gather(run.reduce(run.pick(results, "update", "update", r), "sum", r))
        sq = (W * W).sum(axis=1)
        primal = 0.5 * sq + C * total["loss"]
        dual = total["asum"] - 0.5 * sq - 0.5 * Dii * total["asq"]
        gap = np.maximum(primal - dual, 0.0)
        gaps.append(gap)
        objectives.append(primal)
        relative = float(np.max(gap / np.maximum(primal, np.finfo(float).tiny)))
        run.report({"method": "cocoa", "round": r + 1, "duality_gap": gap,
                    "objective": primal, "relative_gap": relative},
                   f"round {r + 1}: primal {primal.sum():.10g}, duality gap {gap.sum():.4g}"
                   f" (relative {relative:.3g})")
        if relative <= tol:  # the iterate that entered this round is good enough
            converged = True
            break
        W = W + total["dw"]
    history = {"duality_gap": np.array(gaps), "objective": np.array(objectives)}
    return W, history, converged, objectives[-1], gaps[-1]
