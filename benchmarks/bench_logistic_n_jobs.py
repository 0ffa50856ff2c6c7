"""LogisticRegression's L-BFGS fit of one binary problem with n_jobs=2 against n_jobs=1.

    python benchmarks/bench_logistic_n_jobs.py             # 1M x 100k, 80 non-zeros a row
    python benchmarks/bench_logistic_n_jobs.py --generated 200000 100000 80 --repeats 3

The objective and gradient run over fixed lanes of rows (``linear/logistic.py``: ``LANES``),
so both fits must give the same bits: the script checks it. Wall time (the threads are the
point), the two fits alternated (``time_interleaved``); ``max_iter=30`` with ``tol=1e-12``
so that both make the same 30 iterations. Target: n_jobs=2 at most 0.6 of n_jobs=1. On a
machine shared by other work the second core is often busy: give the load with the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (  # noqa: E402
    load_average,
    make_sparse_planted,
    ratio_line,
    time_interleaved,
)

from halfspaces import LogisticRegression  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", nargs=3, type=int, default=[1_000_000, 100_000, 80],
                        metavar=("ROWS", "COLUMNS", "NNZ_PER_ROW"))
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(load_average(), flush=True)
    n, d, k = args.generated
    X, y = make_sparse_planted(n, d, k, noise=0.1, random_state=0)
    fitted = {}

    def fit(n_jobs):
        def run():
            fitted[n_jobs] = LogisticRegression(n_jobs=n_jobs, max_iter=30, tol=1e-12).fit(X, y)
        return run

    calls = {f"n_jobs={j}": (fit(j), None) for j in (1, 2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter stops before tol=1e-12, on purpose
        LogisticRegression(max_iter=2).fit(X[:200], y[:200])  # compile
        timings = time_interleaved(calls, args.repeats)
    one, two = fitted[1], fitted[2]
    same = (np.array_equal(one.coef_, two.coef_) and np.array_equal(one.intercept_,
            two.intercept_) and one.objective_ == two.objective_)
    print(f"{n:,} x {d:,}, {k} non-zeros a row, 10% label noise; {one.n_iter_} iterations;"
          f" wall time, median of {args.repeats}")
    for t in timings.values():
        print(t.line())
    print(ratio_line("n_jobs=2 / n_jobs=1", timings["n_jobs=2"], timings["n_jobs=1"], 0.6))
    print(f"  the same bits for both: {same}")
    print(load_average())
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
