"""LogisticRegression (L-BFGS-B) vs scikit-learn's lbfgs solver: same objective, fit time.

Both minimize ``1/2 ||w||^2 + C sum_i log(1 + exp(-y_i (<w, x_i> + b)))`` (b unregularized)
with the same tolerance; we report the fit times (``fit`` with its validation on both sides;
median of ``--repeat`` fits, ours and scikit-learn's alternating so both see the same machine
load), their ratio ours / scikit-learn (below 1: we are faster), and the relative difference
of the objectives reached (which should be ~0).

Usage::

    python benchmarks/bench_logistic.py                  # a9a, w8a, reuters, generated; C = 1
    python benchmarks/bench_logistic.py --C 0.1 --tol 1e-6

Data come from ``$HALFSPACES_DATA`` or ``../shared/data``; missing files are skipped with a
message. "generated" is ``make_sparse_planted`` (1,000,000 x 100,000, 80 non-zeros per row,
5% of the labels flipped), the sparse set of the other benchmarks.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from halfspaces import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    SHARED_FILES,
    load_shared,
    make_sparse_planted,
    time_interleaved,
)


def c_objective(coef, intercept, X, y, C) -> float:
    z = np.where(y == 1, 1.0, -1.0) * (X @ coef + intercept)
    return float(0.5 * coef @ coef + C * np.logaddexp(0.0, -z).sum())


def fit_both(ours, sk, X, y, repeat):
    """Fit both ``repeat`` times, alternating, after an untimed fit of each on 200 rows (numba
    compilation, first-call costs); return them (fitted) and the timings."""
    few = np.r_[np.flatnonzero(y > 0)[:100], np.flatnonzero(y <= 0)[:100]]
    ours.fit(X[few], y[few])
    sk.fit(X[few], y[few])
    t = time_interleaved({"ours": (lambda: ours.fit(X, y), None),
                          "sk": (lambda: sk.fit(X, y), None)}, repeat)
    return ours, sk, t


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
    print(f"C={args.C:g} tol={args.tol:g} max_iter={args.max_iter}; times: median of"
          f" {args.repeat} fits, alternating")
    print(f"{'data':10s} {'ours s':>8s} {'sklearn s':>10s} {'ours/sk':>8s} {'paired':>7s}"
          f" {'iters':>11s} {'rel. obj. diff':>15s}")
    for name in args.datasets:
        if name == "generated":  # the sparse set of the other benchmarks, 5% labels flipped
            data = make_sparse_planted(*args.generated, noise=0.05, random_state=0)
        else:
            data = load_shared(name)
        if data is None:
            continue
        X, y = data
        kw = {"C": args.C, "tol": args.tol, "max_iter": args.max_iter}
        ours, sk, t = fit_both(LogisticRegression(**kw), SkLogisticRegression(**kw), X, y,
                               args.repeat)
        ratio = t["ours"].median / t["sk"].median
        paired = np.median(np.divide(t["ours"].seconds, t["sk"].seconds))
        J_ours = c_objective(ours.coef_[0], ours.intercept_[0], X, y, args.C)
        J_sk = c_objective(sk.coef_[0], sk.intercept_[0], X, y, args.C)
        iters = f"{ours.n_iter_}/{int(np.max(sk.n_iter_))}"
        print(f"{name:10s} {t['ours'].median:8.3f} {t['sk'].median:10.3f} {ratio:8.2f}"
              f" {paired:7.2f} {iters:>11s} {(J_ours - J_sk) / J_sk:15.2e}")


if __name__ == "__main__":
    main()
