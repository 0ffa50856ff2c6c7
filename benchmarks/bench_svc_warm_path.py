"""A path of ``C`` values: ``SVC(solver="dcd", warm_start=True)`` against cold solves.

Run: ``python benchmarks/bench_svc_warm_path.py [--rows 5000] [--vocabulary 3000]
[--words 40] [--Cs -2 1 10]``.

On a generated two-topic bag of words (``bench_ovr_threads.bag_of_words``), fits the ``C``
values ``logspace(a, b, k)`` in turn, once with one warm-started estimator and once cold,
for the hinge and squared hinge, with and without offset. It prints the epochs and the
process CPU time of the whole path for each, and the largest relative difference of the
objectives (both solvers stop at a duality gap of 1e-6 of the objective). The numba compile
of both paths happens in an untimed warm-up.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average  # noqa: E402
from bench_ovr_threads import bag_of_words  # noqa: E402

from halfspaces import SVC  # noqa: E402


def path(X, y, Cs, warm_start: bool, **params) -> tuple[int, float, list[float]]:
    """Epochs, CPU seconds and objectives of the fits along ``Cs``."""
    svc = SVC(solver="dcd", warm_start=warm_start, random_state=0, **params)
    epochs, objectives = 0, []
    start = time.process_time()
    for C in Cs:
        if not warm_start:
            svc = SVC(solver="dcd", random_state=0, **params)
        svc.set_params(C=C).fit(X, y)
        epochs += svc.n_iter_
        objectives.append(svc.objective_)
    return epochs, time.process_time() - start, objectives


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--vocabulary", type=int, default=3000)
    parser.add_argument("--words", type=int, default=40)
    parser.add_argument("--Cs", type=float, nargs=3, default=[-2, 1, 10],
                        metavar=("A", "B", "K"), help="logspace(A, B, K)")
    args = parser.parse_args(argv)
    X, y = bag_of_words(args.rows, args.vocabulary, args.words, 2)
    Cs = np.logspace(args.Cs[0], args.Cs[1], int(args.Cs[2]))
    print(f"bag of words {X.shape[0]} x {X.shape[1]}, nnz {X.nnz}; C = logspace({args.Cs[0]:g},"
          f" {args.Cs[1]:g}, {int(args.Cs[2])}); {load_average()}")
    path(X[:200], y[:200], Cs[:2], True)  # warm-up: numba compile
    for fit_intercept in (True, False):
        for loss in ("hinge", "squared_hinge"):
            params = {"loss": loss, "fit_intercept": fit_intercept}
            e_w, t_w, j_w = path(X, y, Cs, True, **params)
            e_c, t_c, j_c = path(X, y, Cs, False, **params)
            diff = max(abs(a - b) / b for a, b in zip(j_w, j_c, strict=True))
            print(f"  {loss:<13s} fit_intercept={fit_intercept!s:<5s}: epochs warm {e_w:4d} /"
                  f" cold {e_c:4d} = {e_w / e_c:.2f}; CPU warm {t_w:6.2f} s / cold {t_c:6.2f} s"
                  f" = {t_w / t_c:.2f}; objectives differ by at most {diff:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
