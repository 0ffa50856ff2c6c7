"""The Dask backend's round: its fixed cost, and the ijcnn1-shaped SVC against the local fit.

On a ``LocalCluster`` of 2 worker processes x 1 thread:

* **a round with no work**: the data (an ijcnn1-shaped set, ``_ijcnn1_like.py``, as 4 dense
  blocks) is loaded into the shard hosts once, then ``ROUNDS`` rounds of a function that
  returns an empty result on every shard; the median per round is the fixed cost of a round
  (sending the model, running on every shard, bringing the results back);
* **SVC to the optimum**: ``SVC(C=1, solver="dcd", tol=1e-6)`` on the first 30,000 rows, in
  memory and with :func:`halfspaces.dask.fit` on the 4 blocks (``tol=1e-6``, the relative
  duality gap), without and with the offset: wall time (median of the repeats), rounds,
  objective and the ratio of the times. The local fit's objective is the optimum's
  reference; the Dask fit's objective must be within ``tol`` of it, relatively.

The machine is shared: the load average is printed at the start and the end.

Run: ``python benchmarks/bench_dask_round.py`` (``--quick``: fewer rows and repeats).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _ijcnn1_like import ijcnn1_like  # noqa: E402


def no_work(shard, *, j: int) -> dict:
    """A round's function that does nothing: what is left is the round's fixed cost."""
    return {}


def round_cost(client, X, y, rounds: int) -> list[float]:
    from halfspaces.dask._data import load_shards
    from halfspaces.dask._run import Run

    run = Run(client, None, "bench", retries=0, verbose=False, callback=None)
    run.shards = load_shards(client, X, y, run.tag, 0)
    try:
        run.map_reduce(no_work)  # builds the hosts
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            run.map_reduce(no_work)
            times.append(time.perf_counter() - start)
    finally:
        run.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10,000 rows, 1 repeat")
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    rows, repeats = (10_000, 1) if args.quick else (args.rows, args.repeats)
    import dask.array as da
    from distributed import Client, LocalCluster
    from sklearn.exceptions import ConvergenceWarning

    from halfspaces import SVC
    from halfspaces.dask import fit

    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    print(f"load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs;"
          f" LocalCluster: 2 worker processes x 1 thread")
    X, y = ijcnn1_like(49_990)
    X, y = X[:rows], y[:rows]
    block = -(-rows // 4)
    dX, dy = da.from_array(X, chunks=(block, -1)), da.from_array(y, chunks=block)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        dX, dy = client.persist([dX, dy])
        times = round_cost(client, dX, dy, args.rounds)
        print(f"round with no work, 4 shards on 2 workers: median"
              f" {statistics.median(times) * 1e3:.2f} ms over {len(times)} rounds"
              f" (quartiles {np.percentile(times, 25) * 1e3:.2f},"
              f" {np.percentile(times, 75) * 1e3:.2f} ms)")
        for fit_intercept in (False, True):
            local, remote = [], []
            for _ in range(repeats):
                est = SVC(C=1.0, solver="dcd", tol=1e-6, fit_intercept=fit_intercept)
                start = time.perf_counter()
                est.fit(X, y)
                local.append(time.perf_counter() - start)
                dist = SVC(C=1.0, tol=1e-6, fit_intercept=fit_intercept)
                start = time.perf_counter()
                fit(dist, dX, dy, tol=1e-6, random_state=0)
                remote.append(time.perf_counter() - start)
            ratio = statistics.median(remote) / statistics.median(local)
            error = dist.objective_ / est.objective_ - 1.0
            print(f"SVC(C=1, fit_intercept={fit_intercept}) on {rows} rows: local"
                  f" {statistics.median(local):.3f} s ({est.n_iter_} epochs, objective"
                  f" {est.objective_:.6f}); dask {statistics.median(remote):.3f} s"
                  f" ({dist.n_iter_} rounds, {dist.solver_}, objective {dist.objective_:.6f},"
                  f" relative difference {error:+.2e}, certified relative gap"
                  f" {dist.duality_gap_ / dist.objective_:.2e}); ratio {ratio:.1f}x")
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
