"""LogisticRegression (L-BFGS-B) vs scikit-learn's lbfgs solver: same objective, fit time.

Both minimize ``1/2 ||w||^2 + C sum_i log(1 + exp(-y_i (<w, x_i> + b)))`` (b unregularized)
with the same tolerance; we report the fit times (best of ``--repeat``), their ratio, and the
relative difference of the objectives reached (which should be ~0).

Usage::

    python benchmarks/bench_logistic.py                  # a9a, w8a, reuters, generated; C = 1
    python benchmarks/bench_logistic.py --C 0.1 --tol 1e-6

Data come from ``$HALFSPACES_DATA`` or ``../shared/data``; missing files are skipped with a
message. "generated" is ``make_sparse_planted`` (1,000,000 x 100,000, 80 non-zeros per row,
5% of the labels flipped), the sparse set of the other benchmarks.
"""

from __future__ import annotations

import argparse
import sys  # noqa: E402
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_FILES, load_shared, make_sparse_planted  # noqa: E402


def c_objective(coef, intercept, X, y, C) -> float:
    z = np.where(y == 1, 1.0, -1.0) * (X @ coef + intercept)
    return float(0.5 * coef @ coef + C * np.logaddexp(0.0, -z).sum())


def best_time(make, X, y, repeat):
    best, est = np.inf, None
    for _ in range(repeat):
        est = make()
        t = time.perf_counter()
        est.fit(X, y)
        best = min(best, time.perf_counter() - t)
    return best, est


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=[*SHARED_FILES, "generated"])
    parser.add_argument("--generated", nargs=3, type=int, default=[1_000_000, 100_000, 80],
                        metavar=("N", "D", "NNZ"))
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--max-iter", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    print(f"C={args.C:g} tol={args.tol:g} max_iter={args.max_iter}")
    print(f"{'data':10s} {'ours s':>8s} {'sklearn s':>10s} {'sk/ours':>8s} {'iters':>11s}"
          f" {'rel. obj. diff':>15s}")
    for name in args.datasets:
        if name == "generated":  # the sparse set of the other benchmarks, 5% labels flipped
            data = make_sparse_planted(*args.generated, noise=0.05, random_state=0)
        else:
            data = load_shared(name)
        if data is None:
            continue
        X, y = data
        kw = {"C": args.C, "tol": args.tol, "max_iter": args.max_iter}
        ours_t, ours = best_time(lambda kw=kw: LogisticRegression(**kw), X, y, args.repeat)
        sk_t, sk = best_time(lambda kw=kw: SkLogisticRegression(**kw), X, y, args.repeat)
        J_ours = c_objective(ours.coef_[0], ours.intercept_[0], X, y, args.C)
        J_sk = c_objective(sk.coef_[0], sk.intercept_[0], X, y, args.C)
        iters = f"{ours.n_iter_}/{int(np.max(sk.n_iter_))}"
        print(f"{name:10s} {ours_t:8.3f} {sk_t:10.3f} {sk_t / ours_t:7.2f}x {iters:>11s}"
              f" {(J_ours - J_sk) / J_sk:15.2e}")


if __name__ == "__main__":
    main()
