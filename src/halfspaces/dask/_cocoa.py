"""CoCoA+ for the linear SVM (Ma, Smith, Jaggi, Jordan, Richtarik, Takac 2015).

The dual coordinates ``alpha_[k]`` of shard ``k``'s rows stay on its worker for the whole
fit, in its host's state; only ``w = sum_i alpha_i y_i x~_i`` (``d + 1`` numbers per
problem) and scalars travel. Round ``r``, with ``S`` shards and ``sigma' = S`` (the safe
choice for adding, gamma = 1):

1. the client sends ``w`` to every host (:mod:`halfspaces.dask._run`);
2. on each shard: its :class:`~halfspaces.solvers.cocoa.ShardTerms` at ``(w, alpha)``,
   then passes of dual coordinate descent on the local subproblem
   (:func:`halfspaces.solvers.cocoa.cocoa_local_solve`) until their violation of its
   optimality conditions falls by the factor ``theta`` (at most ``local_iters`` passes:
   CoCoA+'s Theta-approximate local solver); ``alpha_[k]`` is updated on the worker,
   ``delta_w_k`` comes back;
3. the client adds ``w <- w + sum_k delta_w_k`` and certifies the iterate that entered the
   round (:func:`~halfspaces.solvers.cocoa.certify`): it stops when ``P - D <= tol P``.

**The working-set step**: each round the shards also send the ``working_set`` rows (over
all shards) whose dual coordinates violate the optimality conditions most, and the client
runs dual coordinate descent on those coordinates with the others fixed
(:func:`working_set_step`); the next round applies the changes first. The same dual, the
same certificate; ``working_set=0`` is plain CoCoA+. **The offset** is SVC's exact,
unregularized offset, by the proximal-point method of :mod:`halfspaces.solvers.cocoa` (one
scalar ``nu`` per problem in the round's parameters). **Failures**: a round is a
deterministic function of its inputs, so a lost worker is recovered by replaying the rounds
(:class:`~halfspaces.dask._run.Run`), with the same ``w``. In full: docs/scaling.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

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
#: The client's working-set step: at most this many passes, until the violation falls by
#: this factor.
WORKING_SET_PASSES, WORKING_SET_THETA = 100, 1e-3


@dataclass(frozen=True)
class RoundParams:
    positives: tuple
    C: float
    loss: str
    sigma: float
    bias: float  # sqrt(rho), 0 without offset
    nu: tuple  # the proximal centre of each problem's offset
    local_iters: int
    theta: float
    working_set: int  # rows sent to the client per round, over all shards (0: none)
    n_samples: int
    seed: int
    round: int


def violations(X, y, alpha, w, params: RoundParams) -> np.ndarray:
    """The largest ``|PG_i|`` over the problems: how far each row's dual coordinate is from
    the optimality conditions at ``(w, alpha)`` (the projected partial derivative)."""
    U, Dii = (params.C, 0.0) if params.loss == "hinge" else (np.inf, 0.5 / params.C)
    d, worst = X.shape[1], np.zeros(y.shape[0])
    for k, positive in enumerate(params.positives):
        y_k = np.where(y == positive, 1.0, -1.0)
        score = np.asarray(X @ w[k, :d]).ravel() + params.nu[k] + params.bias * w[k, d]
        G = y_k * score - 1.0 + Dii * alpha[k]
        PG = np.where(alpha[k] <= 0.0, np.minimum(G, 0.0),
                      np.where(alpha[k] >= U, np.maximum(G, 0.0), G))
        worst = np.maximum(worst, np.abs(PG))
    return worst


def cocoa_round(shard, previous, w, params: RoundParams, moves: dict, *,
                j: int) -> tuple[dict, dict]:
    """Round on a shard: the certificate's terms at ``(w, alpha)`` and the local update of
    every problem; returns ``(state, update)``.

    ``previous`` is this shard's state after the last round (its ``alpha`` and the rows'
    ``||x_i||^2``, computed in the first round), or None. ``moves[j]``, if present, holds
    the rows and changes of ``alpha`` that the client's working-set step made, applied
    first. With ``params.working_set``, the update also holds this shard's share of the
    rows that violate the optimality conditions most, with their new ``alpha``.
    """
    X, y = shard
    K, n = len(params.positives), y.shape[0]
    if previous is None:
        alpha, sq_norms = np.zeros((K, n)), row_sq_norms(X)
    else:
        alpha, sq_norms = previous["alpha"], previous["sq_norms"]
    if j in moves:
        rows, change = moves[j]
        alpha = alpha.copy()
        alpha[:, rows] += change
    new_alpha = alpha.copy()
    dw, terms = np.zeros_like(w), np.zeros((len(ShardTerms._fields), K))
    rng = np.random.default_rng([params.seed, params.round, j])
    for k, positive in enumerate(params.positives):
        y_k = np.where(y == positive, 1.0, -1.0)
        terms[:, k] = shard_terms(X, y_k, alpha[k], w[k], loss=params.loss,
                                  bias=params.bias, nu=params.nu[k])
        update = cocoa_local_solve(X, y_k, alpha[k], w[k], C=params.C, loss=params.loss,
                                   sigma=params.sigma, bias=params.bias, nu=params.nu[k],
                                   n_passes=params.local_iters, theta=params.theta, rng=rng,
                                   sq_norms=sq_norms)
        new_alpha[k] += update.delta_alpha
        dw[k] = update.delta_w
    out = {"dw": dw, "terms": terms}
    if params.working_set:
        quota = -(-params.working_set * n // params.n_samples)
        worst = violations(X, y, alpha, w, params)
        rows = np.sort(np.argsort(-worst, kind="stable")[:quota])
        rows = rows[worst[rows] > 0.0]
        out["per_shard"] = {j: (X[rows], y[rows], rows, new_alpha[:, rows])}
    return {"alpha": new_alpha, "sq_norms": sq_norms}, out


def working_set_step(parts: dict, W, params: RoundParams, *, passes: int, theta: float):
    """The client's step on the rows the shards sent: dual coordinate descent over their
    ``alpha`` with every other coordinate fixed (a block of the same dual), from ``W``.

    Returns ``(W, moves)``: the new weights and, per shard, its rows and their changes of
    ``alpha``.
    """
    shards = sorted(j for j in parts if parts[j][2].size)
    if not shards:
        return W, {}
    blocks = [parts[j][0] for j in shards]
    X = sp.vstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.vstack(blocks)
    y = np.concatenate([parts[j][1] for j in shards])
    alpha = np.concatenate([parts[j][3] for j in shards], axis=1)
    rng = np.random.default_rng([params.seed, params.round])
    W, change = W.copy(), np.zeros_like(alpha)
    for k, positive in enumerate(params.positives):
        update = cocoa_local_solve(X, np.where(y == positive, 1.0, -1.0), alpha[k], W[k],
                                   C=params.C, loss=params.loss, sigma=1.0, bias=params.bias,
                                   nu=params.nu[k], n_passes=passes, theta=theta, rng=rng)
        change[k] = update.delta_alpha
        W[k] += update.delta_w
    bounds = np.cumsum([0] + [parts[j][2].size for j in shards])
    return W, {j: (parts[j][2], change[:, lo:hi])
               for j, lo, hi in zip(shards, bounds[:-1], bounds[1:], strict=True)}


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
              local_iters: int, theta: float, working_set: int, seed: int):
    """Run CoCoA+ (``rho = 0``: no offset); returns ``(coef (K, d), offsets (K,), history,
    converged, objective, gap)`` of the last certified iterate."""
    positives = (classes[1],) if classes.size == 2 else tuple(classes)
    K, m, d = len(positives), run.n_shards, run.shards.n_features
    bias, radius = float(np.sqrt(rho)), run.shards.radius
    W, nu, step = np.zeros((K, d + 1)), np.zeros(K), np.zeros(K)
    gaps, objectives, offsets = [], [], []
    converged, moves = False, {}
    for r in range(max_iter):
        params = RoundParams(positives, C, loss, float(m), bias, tuple(nu.tolist()),
                             local_iters, theta, working_set, run.shards.n_samples, seed, r)
        total = run.map_reduce(cocoa_round, W, params, moves, stateful=True)
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
        if working_set:
            W, moves = working_set_step(total["per_shard"], W, params,
                                        passes=WORKING_SET_PASSES, theta=WORKING_SET_THETA)
        if bias:
            nu, step = move_centre(nu, W, cert, bias, step)
    history = {"duality_gap": np.array(gaps), "objective": np.array(objectives),
               "offset": np.array(offsets)}
    return (*certified, history, converged, objectives[-1], gaps[-1])
