"""The Dask backend on 1 and 2 workers: time per epoch, bytes moved per epoch, rounds to a gap.

The data is a bag-of-words-like sparse set labelled by a planted separator with 5% of the
labels flipped, generated block by block *on the workers* (so the client never holds it):
1,000,000 x 100,000 with 80 entries per row in full (``--quick``: 100,000 x 20,000 with 40).
For each cluster (``LocalCluster`` with 1, then 2 worker processes of one thread):

* IPM (``Perceptron``, uniform mixing): seconds per epoch (median over the epochs), bytes
  between client and cluster per epoch, mistakes per epoch;
* CoCoA+ (``SVC``, C = 1/(1e-4 n), one local pass per round, stopped at a certified
  relative duality gap of 1e-3): seconds and bytes per round and the rounds to 1e-3, for
  three problems: without offset; with the exact (unregularized) offset of ``SVC``, by
  proximal steps; and LIBLINEAR's regularized offset (``SVC(fit_intercept=False)`` on the
  rows with a constant 1 appended). The last two are then scored by the ``SVC`` objective
  with offset, ``1/2 ||w||^2 + C sum_i hinge(y_i (w.x_i + b))``, on the cluster;
* L-BFGS (``LogisticRegression``, lam = 1e-4): seconds per evaluation.

Bytes are what the client sends (models, in the task specs or put once) and receives (the
reduced sums), plus what the workers fetch from each other (their transfer logs), divided
by the rounds. On this project's machine (2 cores shared with other jobs) two workers cannot
be twice as fast: read the ratios as an upper bound on the overhead, not as a scaling
measurement. The load average is printed at the start and the end.

Run: ``python benchmarks/bench_dask.py --quick`` (a few minutes), without ``--quick``, or
``--size ROWS FEATURES NNZ`` for another size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np
import scipy.sparse as sp


def make_block(seed: int, block: int, n: int, d: int, nnz: int, noise: float):
    """One block of rows of the planted sparse set (the separator depends on ``seed`` only)."""
    u = np.random.default_rng(seed).standard_normal(d)
    rng = np.random.default_rng([seed, block])
    cols = np.sort(rng.integers(0, d, size=(n, nnz)), axis=1)
    X = sp.csr_matrix((rng.random(n * nnz) + 0.05, cols.ravel(), np.arange(n + 1) * nnz),
                      shape=(n, d))
    X.sum_duplicates()
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1))))
    y = np.where(X @ u >= 0, 1.0, -1.0)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    return X, y


def with_constant(block):
    """The block with a column of ones appended (LIBLINEAR's regularized offset)."""
    return sp.hstack([block, np.ones((block.shape[0], 1))], format="csr")


def dask_data(client, n: int, d: int, nnz: int, blocks: int):
    import dask
    import dask.array as da
    from distributed import wait

    rows = n // blocks
    parts = [dask.delayed(make_block)(0, j, rows, d, nnz, 0.05) for j in range(blocks)]
    X = da.concatenate([da.from_delayed(p[0], shape=(rows, d), dtype=float,
                                        meta=sp.csr_matrix((0, d))) for p in parts])
    y = da.concatenate([da.from_delayed(p[1], shape=(rows,), dtype=float) for p in parts])
    X, y = client.persist([X, y])
    wait([X, y])
    return X, y


def worker_bytes(client) -> int:
    def incoming(dask_worker):
        return sum(entry["total"] for entry in dask_worker.transfer_incoming_log)

    return sum(client.run(incoming).values())


def run_method(client, name, est, X, y, **options):
    from halfspaces.dask import fit

    rounds = []
    before = worker_bytes(client)
    start = time.perf_counter()
    fit(est, X, y, callback=lambda r: rounds.append((time.perf_counter(), r)), **options)
    total = time.perf_counter() - start
    peer = worker_bytes(client) - before
    times = np.diff([start] + [t for t, _ in rounds])
    per_round = statistics.median(times[1:]) if len(times) > 1 else times[0]
    last = rounds[-1][1]
    moved = (last["bytes_sent"] + last["bytes_received"] + peer) / len(rounds)
    return {"name": name, "rounds": len(rounds), "per_round": per_round, "total": total,
            "bytes": moved, "records": [r for _, r in rounds], "estimator": est}


def svc_objective(est, X, y, C: float) -> float:
    """``1/2 ||w||^2 + C sum_i hinge(y_i (w.x_i + b))``, the sum computed on the cluster."""
    import dask.array as da

    w, b = est.coef_[0], float(est.intercept_[0])
    if w.shape[0] == X.shape[1] + 1:  # fitted with the constant column: its weight is b
        w, b = w[:-1], float(w[-1])
    scores = X.map_blocks(lambda block: block @ w + b, drop_axis=1, dtype=float)
    return 0.5 * float(w @ w) + C * float(da.maximum(0.0, 1.0 - y * scores).sum().compute())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 x 20,000, 40 per row")
    parser.add_argument("--size", type=int, nargs=3, metavar=("ROWS", "FEATURES", "NNZ"),
                        help="another size: rows, features, entries per row")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    n, d, nnz = (100_000, 20_000, 40) if args.quick else (1_000_000, 100_000, 80)
    if args.size:
        n, d, nnz = args.size
    warnings.filterwarnings("ignore", category=Warning, module="sklearn")
    from distributed import Client, LocalCluster
    from sklearn.exceptions import ConvergenceWarning

    from halfspaces import SVC, LogisticRegression, Perceptron

    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    print(f"data: {n} x {d}, {nnz} per row, 5% labels flipped, 8 blocks;"
          f" load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    C = 1.0 / (1e-4 * n)
    cocoa = dict(max_iter=args.rounds, tol=1e-3, random_state=0)
    for workers in args.workers:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            X, y = dask_data(client, n, d, nnz, blocks=8)
            Xc = client.persist(X.map_blocks(with_constant, chunks=(X.chunks[0], (d + 1,)),
                                             meta=sp.csr_matrix((0, d + 1))))
            results = [
                run_method(client, "IPM epoch", Perceptron(max_iter=args.epochs), X, y),
                run_method(client, "CoCoA+ round, no offset",
                           SVC(C=C, fit_intercept=False), X, y, **cocoa),
                run_method(client, "CoCoA+ round, exact offset", SVC(C=C), X, y, **cocoa),
                run_method(client, "CoCoA+ round, regularized offset",
                           SVC(C=C, fit_intercept=False), Xc, y, **cocoa),
                run_method(client, "L-BFGS evaluation",
                           LogisticRegression(lam=1e-4, max_iter=10), X, y),
            ]
            exact, regularized = (svc_objective(r["estimator"], X, y, C) for r in results[2:4])
            print(f"\n{workers} worker(s):")
            for res in results:
                print(f"  {res['name']:<33s} {res['per_round'] * 1e3:9.1f} ms per round,"
                      f" {res['bytes'] / 1e6:8.2f} MB moved per round, {res['rounds']} rounds"
                      f" ({res['total']:.1f} s in all)")
            ipm = results[0]["records"]
            print("  IPM mistakes per epoch:", [int(np.sum(r["mistakes"])) for r in ipm])
            for res in results[1:4]:
                gaps = [float(r["relative_gap"]) for r in res["records"]]
                below = next((i + 1 for i, g in enumerate(gaps) if g <= 1e-3), None)
                print(f"  CoCoA+, {res['name'][14:]:<19s} rounds to a certified relative gap"
                      f" of 1e-3: {below} (gaps: {', '.join(f'{g:.2e}' for g in gaps[:3])} ..."
                      f" {gaps[-1]:.2e})")
            print(f"  SVC objective (offset unregularized): exact offset {exact:.6f},"
                  f" regularized offset {regularized:.6f} ({regularized / exact - 1:+.2e};"
                  f" offsets {float(results[2]['estimator'].intercept_[0]):.4f} and"
                  f" {float(results[3]['estimator'].coef_[0, -1]):.4f})")
    print(f"\nload average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
