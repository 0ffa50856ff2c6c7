"""CoCoA+ for the linear SVM (Ma, Smith, Jaggi, Jordan, Richtarik, Takac 2015).

The dual coordinates ``alpha_[k]`` of shard ``k``'s rows stay on its worker for the whole
fit, in its host's state (they are data-sized); only ``w = sum_i alpha_i y_i x~_i``
(``d + 1`` numbers per problem) and scalars travel. Round ``r``, with ``S`` shards and
``sigma' = S`` (the safe choice for adding, gamma = 1):

1. the client sends ``w`` to every host (:mod:`halfspaces.dask._run`);
2. on each shard: the shard's :class:`~halfspaces.solvers.cocoa.ShardTerms` at
   ``(w, alpha)`` (six scalars), then ``local_iters`` passes of dual coordinate descent on
   the local subproblem (:func:`halfspaces.solvers.cocoa.cocoa_local_solve`);
   ``alpha_[k] += delta_alpha_[k]`` stays on the worker, ``delta_w_k`` comes back;
3. the client adds ``w <- w + sum_k delta_w_k`` and certifies the iterate that entered the
   round (:func:`~halfspaces.solvers.cocoa.certify`): the primal objective ``P`` and a lower
   bound ``D`` of the optimum, so ``P - D >= P - P*``. It stops when ``P - D <= tol P``.

**The offset** is the exact, unregularized offset of :class:`~halfspaces.SVC`, by the
proximal-point method of :mod:`halfspaces.solvers.cocoa`: each round solves the SVM with
the constant feature ``sqrt(rho)`` and the fixed offset ``nu`` (one per problem, written
into the round's parameters), and the client moves ``nu`` to the current offset when the
proximal subproblem is solved well enough (:func:`~halfspaces.solvers.cocoa.move_centre`).
It costs no extra communication: ``nu`` is one scalar per problem and the certificate's
terms are scalars.

**Failures.** A round is a deterministic function of the shard, its ``alpha`` and the
round's ``w`` and parameters (the coordinate order is seeded by the round and the shard), so
a worker lost mid-fit is recovered by replaying the rounds on the recomputed shards
(:class:`~halfspaces.dask._run.Run`), and the fit ends with the same ``w``. The price is
that the client keeps every round's model while the fit runs: ``rounds x K (d + 1)`` floats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solvers.cocoa import (
    ShardTerms,
    certify,
    cocoa_local_solve,
    move_centre,
    row_sq_norms,
    shard_terms,
    top_second_moment,
)

#: The default proximal step rho, per largest eigenvalue of X^T X / n (see fit_cocoa).
RHO_PER_TOP_MOMENT = 0.5


@dataclass(frozen=True)
class RoundParams:
    positives: tuple
    C: float
    loss: str
    sigma: float
    bias: float  # sqrt(rho), 0 without offset
    nu: tuple  # the proximal centre of each problem's offset
    local_iters: int
    seed: int
    round: int


def cocoa_round(shard, previous, w, params: RoundParams, *, j: int) -> tuple[dict, dict]:
    """Round on a shard: the certificate's terms at ``(w, alpha)`` and the local update of
    every problem; returns ``(state, update)``.

    ``previous`` is this shard's state after the last round (its ``alpha`` and the rows'
    ``||x_i||^2``, computed in the first round), or None.
    """
    X, y = shard
    K, n = len(params.positives), y.shape[0]
    if previous is None:
        alpha, sq_norms = np.zeros((K, n)), row_sq_norms(X)
    else:
        alpha, sq_norms = previous["alpha"], previous["sq_norms"]
    new_alpha = alpha.copy()
    dw, terms = np.zeros_like(w), np.zeros((len(ShardTerms._fields), K))
    rng = np.random.default_rng([params.seed, params.round, j])
    for k, positive in enumerate(params.positives):
        y_k = np.where(y == positive, 1.0, -1.0)
        terms[:, k] = shard_terms(X, y_k, alpha[k], w[k], loss=params.loss,
                                  bias=params.bias, nu=params.nu[k])
        update = cocoa_local_solve(X, y_k, alpha[k], w[k], C=params.C, loss=params.loss,
                                   sigma=params.sigma, bias=params.bias, nu=params.nu[k],
                                   n_passes=params.local_iters, rng=rng,
                                   sq_norms=sq_norms)
        new_alpha[k] += update.delta_alpha
        dw[k] = update.delta_w
    return {"alpha": new_alpha, "sq_norms": sq_norms}, {"dw": dw, "terms": terms}


def second_moment(shard, *, j: int) -> dict:
    """Round on a shard: this shard's rows times its estimate of the top eigenvalue of X^T X / n."""
    X, _ = shard
    return {"moment": X.shape[0] * top_second_moment(X)}


def default_rho(run) -> float:
    """Half the top eigenvalue of ``X^T X / n`` (the row-weighted mean of the shards'
    estimates; one round). The offset's direction then weighs in the dual about as much as
    the data's stiffest direction: a larger ``rho`` slows each CoCoA+ round's progress, a
    smaller one needs more proximal steps."""
    total = run.map_reduce(second_moment)["moment"]
    top = total / run.shards.n_samples
    return RHO_PER_TOP_MOMENT * top if top > 0 else 1.0  # all rows zero: any rho


def fit_cocoa(run, classes, *, C: float, loss: str, rho: float, max_iter: int, tol: float,
              local_iters: int, seed: int):
    """Run CoCoA+ (``rho = 0``: no offset); returns ``(coef (K, d), offsets (K,), history,
    converged, objective, gap)`` of the last certified iterate."""
    positives = (classes[1],) if classes.size == 2 else tuple(classes)
    K, m, d = len(positives), run.n_shards, run.shards.n_features
    bias, radius = float(np.sqrt(rho)), run.shards.radius
    W, nu, step = np.zeros((K, d + 1)), np.zeros(K), np.zeros(K)
    gaps, objectives, offsets = [], [], []
    converged = False
    for r in range(max_iter):
        params = RoundParams(positives, C, loss, float(m), bias, tuple(nu.tolist()),
                             local_iters, seed, r)
        total = run.map_reduce(cocoa_round, W, params, stateful=True)
        cert = certify(ShardTerms(*total["terms"]), W, nu, C=C, loss=loss, bias=bias,
                       radius=radius)
        gap = np.maximum(cert.primal - cert.dual, 0.0)
        b = nu + bias * W[:, d]
        gaps.append(gap)
        objectives.append(cert.primal)
        offsets.append(b)
        relative = float(np.max(gap / np.maximum(cert.primal, np.finfo(float).tiny)))
        line = (f"round {r + 1}: primal {cert.primal.sum():.10g}, duality gap"
                f" {gap.sum():.4g} (relative {relative:.3g})")
        if bias and K == 1:
            line += f", offset {b[0]:.6g}"
        run.report({"method": "cocoa", "round": r + 1, "duality_gap": gap,
                    "objective": cert.primal, "relative_gap": relative, "offset": b}, line)
        certified = W[:, :d], b
        if relative <= tol:  # the iterate that entered this round is good enough
            converged = True
            break
        W = W + total["dw"]
        if bias:
            nu, step = move_centre(nu, W, cert, bias, step)
    history = {"duality_gap": np.array(gaps), "objective": np.array(objectives),
               "offset": np.array(offsets)}
    return (*certified, history, converged, objectives[-1], gaps[-1])
