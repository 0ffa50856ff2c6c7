"""The exact linear SVM off the default point: ``SVC`` against LIBLINEAR on six sets, three
values of ``C``, with and without ``class_weight="balanced"`` (36 cells).

    python benchmarks/bench_svc_liblinear.py                  # the 36 cells, median of 5
    python benchmarks/bench_svc_liblinear.py --quick          # small sets, one repeat
    python benchmarks/bench_svc_liblinear.py --sets heart_scale a9a[:3000] --Cs 1 100

Sets: heart_scale (bundled), a 1,000 x 50,000 binary bag of tokens (generated, seed 0,
``bench_ovr_threads.bag_of_words``), a9a[:3000] and a9a (bundled), an ijcnn1-shaped set
(``_ijcnn1_like``, 49,990 x 22 dense) and rcv1_small (the shared data folder: 1,000 x
47,117 tf-idf rows; ``$HALFSPACES_DATA``).

The peer is scikit-learn's ``LinearSVC(loss="hinge", dual=True, fit_intercept=False)``,
which is LIBLINEAR's dual coordinate descent (``-s 3``) with scikit-learn's defaults
(``tol=1e-4``, at most 1000 iterations); ours is ``SVC(fit_intercept=False)`` with
``solver="auto"``. Both solve the same problem (no offset; the class weights scale ``C``
per class the same way), and both objectives are computed here by the same function.
Each cell times, alternating, in each of ``--repeats`` rounds:

- (a) LIBLINEAR at its default ``tol=1e-4``, and ours at the loosest ``tol`` of 1e-1,
  1e-2, ... 1e-6 whose certified objective is at most LIBLINEAR's (found by one untimed fit
  per ``tol``): our time to LIBLINEAR's default objective, target at most 1.0x;
- (b) LIBLINEAR at ``tol=1e-6``, and ours at its default (``tol=1e-4``: the objective
  certified to a relative duality gap of 1e-6): target at most 2.0x.

Wall time of ``fit``, median of the repeats; one BLAS thread (``run_all.py`` sets it).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, load_shared, time_interleaved  # noqa: E402
from _ijcnn1_like import ijcnn1_like  # noqa: E402
from bench_ovr_threads import bag_of_words  # noqa: E402

LADDER = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def bag_of_tokens(n: int, d: int, words: int):
    """Binary word occurrences of two topics (CSR), labels in {-1, +1}."""
    X, y = bag_of_words(n, d, words, 2, seed=0)
    X.data[:] = 1.0
    return X, np.where(y == 1, 1.0, -1.0)


def load(name: str, quick: bool):
    from halfspaces.datasets import load_a9a, load_heart_scale

    if name == "heart_scale":
        return load_heart_scale()
    if name == "bag-of-tokens":
        return bag_of_tokens(300, 5000, 100) if quick else bag_of_tokens(1000, 50_000, 178)
    if name.startswith("a9a"):
        X, y = load_a9a()
        rows = 1000 if quick else (3000 if name == "a9a[:3000]" else X.shape[0])
        return X[:rows], y[:rows]
    if name == "ijcnn1-like":
        X, y = ijcnn1_like(2000 if quick else 49_990)
        return X, y.astype(np.float64)
    if name == "rcv1_small":
        return load_shared("rcv1_small")
    raise ValueError(f"unknown set {name!r}")


def objective(coef, X, y_pm, C: float, weights) -> float:
    """``1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i w.x_i)``, ``C_i = C`` times the class weight."""
    z = y_pm * np.asarray(X @ coef).ravel()
    return 0.5 * float(coef @ coef) + C * float(np.sum(weights * np.maximum(0.0, 1.0 - z)))


def cell(X, y, C: float, class_weight, repeats: int) -> dict:
    from sklearn.svm import LinearSVC
    from sklearn.utils.class_weight import compute_class_weight

    from halfspaces.linear.svm import SVC

    classes = np.unique(y)
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    per_class = compute_class_weight(class_weight, classes=classes, y=y)
    weights = np.where(y_pm > 0, per_class[1], per_class[0])
    fits: dict = {}

    def peer(tol):
        def fit():
            fits[("peer", tol)] = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C,
                                            tol=tol, class_weight=class_weight,
                                            random_state=0).fit(X, y)
        return fit

    def ours(tol):
        def fit():
            fits[("ours", tol)] = SVC(C=C, fit_intercept=False, tol=tol,
                                      class_weight=class_weight, random_state=0).fit(X, y)
        return fit

    def obj(key):
        return objective(np.ravel(fits[key].coef_[0]), X, y_pm, C, weights)

    peer(1e-4)()  # the objective LIBLINEAR stops at by default (untimed)
    target = obj(("peer", 1e-4))
    reach = LADDER[-1]
    for tol in LADDER:  # the loosest tol of ours that reaches it (untimed fits)
        ours(tol)()
        if obj(("ours", tol)) <= target:
            reach = tol
            break
    timings = time_interleaved({
        "peer default": (peer(1e-4), None), "ours to peer objective": (ours(reach), None),
        "peer tol=1e-6": (peer(1e-6), None), "ours default": (ours(1e-4), None)}, repeats)
    default = fits[("ours", 1e-4)]
    return {"times": {k: t.median for k, t in timings.items()}, "reach": reach,
            "objectives": {"peer default": target, "ours reach": obj(("ours", reach)),
                           "peer 1e-6": obj(("peer", 1e-6)), "ours default": obj(("ours", 1e-4))},
            "solver": default.solver_, "epochs": default.n_iter_,
            "gap": default.duality_gap_ / abs(default.objective_)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["heart_scale", "bag-of-tokens",
                                                      "a9a[:3000]", "a9a", "ijcnn1-like",
                                                      "rcv1_small"])
    parser.add_argument("--Cs", type=float, nargs="+", default=[0.01, 1.0, 100.0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="small versions of the sets (a9a 1,000 rows), one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats = 1
    warnings.simplefilter("ignore")
    from halfspaces.linear.svm import SVC

    SVC(fit_intercept=False).fit(*load("heart_scale", True))  # numba compile, untimed
    print(f"bench_svc_liblinear: SVC(fit_intercept=False) against LinearSVC(loss='hinge',"
          f" dual=True, fit_intercept=False); wall time, median of {args.repeats}"
          f" alternating repeats; {load_average()}")
    print("(a) ours to LIBLINEAR's default objective / LIBLINEAR tol=1e-4 (target <= 1.0);"
          " (b) ours certified (tol=1e-4, relative gap <= 1e-6) / LIBLINEAR tol=1e-6"
          " (target <= 2.0)\n")
    head = (f"{'set':<14s}{'C':>6s} {'weights':<9s}{'LL 1e-4':>9s}{'ours':>9s}{'(a)':>7s}"
            f"{'tol':>7s} {'LL 1e-6':>9s}{'ours':>9s}{'(b)':>7s}  solver, epochs, rel. gap,"
            f" objective: ours - LL 1e-6 (relative)")
    print(head)
    met = {"a": 0, "b": 0, "cells": 0}
    for name in args.sets:
        data = load(name, args.quick)
        if data is None:
            continue
        X, y = data
        for C in args.Cs:
            for class_weight in (None, "balanced"):
                r = cell(X, y, C, class_weight, args.repeats)
                t, o = r["times"], r["objectives"]
                a = t["ours to peer objective"] / t["peer default"]
                b = t["ours default"] / t["peer tol=1e-6"]
                met["a"] += a <= 1.0
                met["b"] += b <= 2.0
                met["cells"] += 1
                diff = (o["ours default"] - o["peer 1e-6"]) / abs(o["peer 1e-6"])
                print(f"{name:<14s}{C:>6g} {str(class_weight):<9s}"
                      f"{t['peer default']:>9.4f}{t['ours to peer objective']:>9.4f}{a:>7.2f}"
                      f"{r['reach']:>7.0e} {t['peer tol=1e-6']:>9.4f}{t['ours default']:>9.4f}"
                      f"{b:>7.2f}  {r['solver']}, {r['epochs']}, {r['gap']:.1e}, {diff:+.1e}",
                      flush=True)
    print(f"\n(a) met in {met['a']} of {met['cells']} cells, (b) in {met['b']} of"
          f" {met['cells']}; after: {load_average()}; {time.strftime('%Y-%m-%d %H:%M:%S')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
