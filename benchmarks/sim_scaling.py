"""Simulate N workers on one machine: how the distributed methods behave from 1 to 1,000.

The rows are split into N equal shards and each method's round is run shard by shard in
this process, with the same per-shard computation as on a cluster (the library's perceptron
pass, the task ``cocoa_round`` that halfspaces.dask runs on each shard); no Dask is
involved, so only the algorithm's dependence on N shows, not the cluster's latency. For
each N:

* IPM (uniform and mistakes-weighted mixing) on separable data (margin gamma = 0.02):
  epochs until an epoch makes no mistake, and sum_n sum_i mu_{i,n} k_{i,n}, the quantity
  the IPM theorem bounds by (R / gamma)^2;
* CoCoA+ (sigma' = N, one local pass per round) on noisy data, C = 1 / (lam n): rounds
  until the certified relative duality gap is below 1e-2 and 1e-3 (at most 300; past
  that, the gap reached), without offset and with the exact offset of SVC (proximal
  steps, as halfspaces.dask runs it);
* communication per round, in floats: ``star`` is what passes through the driver if every
  worker sends its model to it and gets the new one back (``2 N d``); ``tree`` is what
  travels along the longest path of a reduction with fan-in 8 and a broadcast back
  (``2 d ceil(log_8 N)``), the driver itself sending and receiving one model (``2 d``).

L-BFGS and the synchronous mini-batch Pegasos compute exactly the single-machine quantity
(the full gradient, the batch's sub-gradient), so their rounds do not depend on N; only
their time per round does (the O(nnz / N) work per worker plus the O(d log N) reduction).

Run: ``python benchmarks/sim_scaling.py`` (about 30 s of CPU; ``--quick`` for N <= 100).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from halfspaces.dask._cocoa import RHO_PER_TOP_MOMENT, RoundParams, cocoa_round, second_moment
from halfspaces.datasets import make_separable
from halfspaces.linear.perceptron import perceptron_pass
from halfspaces.solvers.cocoa import ShardTerms, certify, move_centre


def ipm_epochs(X, y, N: int, mixing: str, max_epochs: int = 200):
    """Epochs of IPM until a mistake-free epoch, and sum_n sum_i mu_{i,n} k_{i,n}."""
    shards = [(X[rows], y[rows]) for rows in np.array_split(np.arange(X.shape[0]), N)]
    w, b = np.zeros(X.shape[1]), np.zeros(1)
    mixed = 0.0
    for epoch in range(1, max_epochs + 1):
        ws, ks = [], []
        for Xs, ys in shards:
            wj, bj = w.copy(), b.copy()
            k = perceptron_pass(Xs, ys, wj, bj, False, np.arange(len(ys)), np.empty(len(ys)))
            ws.append(wj)
            ks.append(k)
        ks = np.array(ks, dtype=float)
        if ks.sum() == 0:
            return epoch, mixed
        mu = ks / ks.sum() if mixing == "mistakes" else np.full(N, 1.0 / N)
        mixed += float(mu @ ks)
        w = mu @ np.array(ws)
    return None, mixed


def cocoa_rounds(X, y, N: int, C: float, offset: bool, targets=(1e-2, 1e-3),
                 max_rounds: int = 300):
    """CoCoA+ rounds until the certified relative duality gap is at most each of ``targets``
    (None if not within ``max_rounds``) and the last gap; with ``offset``, the exact offset
    by proximal steps (rho: half the top eigenvalue of X^T X / n, from the shards'
    estimates). Each shard runs halfspaces.dask's own task, ``cocoa_round``."""
    shards = [(X[rows], y[rows]) for rows in np.array_split(np.arange(X.shape[0]), N)]
    results = [None] * N
    w, nu, step = np.zeros((1, X.shape[1] + 1)), np.zeros(1), np.zeros(1)
    rho = 0.0
    if offset:
        moments = [second_moment(shard, j=j)["moment"] for j, shard in enumerate(shards)]
        rho = RHO_PER_TOP_MOMENT * sum(moments) / len(y)
    bias = float(np.sqrt(rho))
    radius = float(np.sqrt(X.multiply(X).sum(axis=1).max()))
    reached: dict[float, int] = {}
    for r in range(1, max_rounds + 1):
        params = RoundParams((1,), C, "hinge", float(N), bias, tuple(nu.tolist()), 1, 0, r)
        results = [cocoa_round(shard, previous, w, params, j=j)
                   for j, (shard, previous) in enumerate(zip(shards, results, strict=True))]
        terms = sum(result["update"]["terms"] for result in results)
        cert = certify(ShardTerms(*terms), w, nu, C=C, loss="hinge", bias=bias, radius=radius)
        gap = float((cert.primal[0] - cert.dual[0]) / cert.primal[0])
        reached.update({t: r for t in targets if gap <= t and t not in reached})
        if len(reached) == len(targets):
            break
        w = w + sum(result["update"]["dw"] for result in results)
        if offset:
            nu, step = move_centre(nu, w, cert, bias, step)
    return [reached.get(t) for t in targets], gap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="N in 1, 10, 100 only")
    args = parser.parse_args()
    Ns = [1, 10, 100] if args.quick else [1, 10, 100, 1000]
    n, d, gamma = 20_000, 1_000, 0.02
    Xs, ys = make_separable(n_samples=n, n_features=d, margin=gamma, sparse=True,
                            nnz_per_row=20, random_state=0)
    R = float(np.sqrt(Xs.multiply(Xs).sum(axis=1).max()))
    Xn, yn = make_separable(n_samples=n, n_features=d, margin=gamma, sparse=True,
                            nnz_per_row=20, noise=0.05, random_state=1)
    C = 1.0 / (1e-4 * n)
    print(f"separable: {n} x {d}, 20 per row, gamma = {gamma}, R = {R:.3f},"
          f" (R/gamma)^2 = {(R / gamma) ** 2:.0f}; noisy: 5% flipped, C = 1/(1e-4 n)")
    print(f"{'N':>5s} {'IPM uniform':>22s} {'IPM mistakes':>22s} {'CoCoA+ 1e-2 / 1e-3':>24s}"
          f" {'with offset':>24s} {'floats/round: star':>19s} {'tree':>10s}")
    for N in Ns:
        cells = []
        for mixing in ("uniform", "mistakes"):
            epochs, mixed = ipm_epochs(Xs, ys, N, mixing)
            cells.append(f"{epochs} ep, sum mu k {mixed:7.0f}")
        for offset in (False, True):
            reached, gap = cocoa_rounds(Xn, yn, N, C, offset)
            cell = " / ".join("> 300" if r is None else str(r) for r in reached)
            cells.append(cell if reached[-1] is not None else f"{cell} ({gap:.0e})")
        depth = max(1, math.ceil(math.log(N, 8))) if N > 1 else 0
        print(f"{N:5d} {cells[0]:>22s} {cells[1]:>22s} {cells[2]:>24s} {cells[3]:>24s}"
              f" {2 * N * d:19d} {2 * d * max(depth, 1):10d}", flush=True)


if __name__ == "__main__":
    main()
