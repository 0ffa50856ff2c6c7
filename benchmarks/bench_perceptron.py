"""Perceptron epoch speed against scikit-learn, with the SpMV floor as a diagnostic.

    python benchmarks/bench_perceptron.py            # the full sets (needs ~4 GB RAM)
    python benchmarks/bench_perceptron.py --quick    # a small smoke run (a few seconds)
    python benchmarks/bench_perceptron.py --sparse-rows 200000   # a smaller sparse set

Sets, generated in memory (nothing cached):

- sparse: --sparse-rows (1,000,000) rows x 100,000 features, ~80 non-zeros per row,
  L2-normalised rows, labels from a planted separator through the origin, clean and with
  10% of labels flipped (same X). fit_intercept=False on both sides: scikit-learn damps a
  sparse model's intercept updates by 0.01, so only the no-offset models are the same
  algorithm.
- dense: 200,000 x 100, Gaussian rows L2-normalised, planted separator with an offset;
  fit_intercept=True on both sides.

Peer comparison (what a user runs on both sides, each with its own input validation):

- ours: ``Perceptron(max_iter=1, shuffle=False).fit(X, y)``;
- scikit-learn: ``Perceptron(eta0=1, penalty=None, shuffle=False, tol=None,
  max_iter=1).fit(X, y)``.

Diagnostics (not peer comparisons; they show where the time goes):

- ours, pass: one perceptron epoch on already-validated data (the compiled kernel that
  ``fit`` calls after validation), on a fresh zero model;
- SpMV floor (sparse): ``out = X @ w`` by a numba kernel over the same CSR arrays with the
  same 4-partial-sum row dot and a float64 ``w``; a perceptron epoch is this plus the
  updates on mistakes; and scipy's ``X @ w`` for reference.

Every time is the median of --repeats runs of process CPU time (``--wall`` for wall time;
every call is single-threaded, and CPU time is the less load-sensitive measure on a shared
machine); all the calls of one set run round-robin (each repeat runs every call once, in
turn), so each repeat sees about the same machine load, and ratios are given both as the
ratio of the medians and as the median of the per-repeat ratios.

Like for like: one epoch on both sides (``max_iter=1``; scikit-learn with ``tol=None``, so
no stopping rule differs), rows in the given order on both sides (``shuffle=False``: then
both make the same updates, which the script checks). Both ``fit`` calls include their own
input validation, and ours its majority-class check (a ``fit`` that ends without a clean
pass compares its training accuracy with the majority class's), which scikit-learn does
not make: that is part of what our ``fit`` costs.

Both libraries must make the same updates: the script checks that the coefficients of the
two fits agree (scikit-learn does not expose its mistake count; equal ``coef_ = sum of
y_i x_i over the mistakes`` pins down the same mistake set) and prints our count.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    load_average,
    make_dense_planted,
    make_sparse_planted,
    quiet_sklearn,
    ratio_line,
    time_interleaved,
)

from halfspaces._primitives import dot_csr as _dot_csr  # noqa: E402
from halfspaces.linear.perceptron import Perceptron, perceptron_pass  # noqa: E402


@njit(cache=True)
def spmv(data, indices, indptr, w, out):
    """out = X @ w over CSR arrays: the memory traffic of a pass with no update."""
    for i in range(indptr.shape[0] - 1):
        out[i] = _dot_csr(w, data, indices, indptr[i], indptr[i + 1])


def sklearn_one_epoch(fit_intercept: bool):
    from sklearn.linear_model import Perceptron as SkPerceptron

    return SkPerceptron(eta0=1, penalty=None, shuffle=False, tol=None, max_iter=1,
                        fit_intercept=fit_intercept)


def bench_set(title: str, X, y, fit_intercept: bool, repeats: int, targets: dict,
              clock=time.process_time) -> dict:
    """Time our fit against scikit-learn's, and (diagnostics) our pass and the SpMV floor."""
    import scipy.sparse as sp

    print(f"\n{title}: {X.shape[0]:,} x {X.shape[1]:,}"
          + (f", {X.nnz / X.shape[0]:.1f} nnz/row" if sp.issparse(X) else ", dense")
          + f", fit_intercept={fit_intercept}")
    n, d = X.shape
    order = np.arange(n)
    scores = np.empty(n)
    state = {}

    def fresh():
        state["w"], state["b"] = np.zeros(d), np.zeros(1)

    def our_pass():
        state["m"] = perceptron_pass(X, y, state["w"], state["b"], fit_intercept, order, scores)

    # The reference pass (for the mistake count and the SpMV vector) is made once, untimed.
    fresh()
    our_pass()
    w_pass, m_ours = state["w"].copy(), state["m"]
    fits = {}

    def our_fit():
        fits["ours"] = Perceptron(fit_intercept=fit_intercept, max_iter=1,
                                  shuffle=False).fit(X, y)

    def sk_fit():
        fits["sk"] = sklearn_one_epoch(fit_intercept).fit(X, y)

    calls = {
        "fit": ("ours: Perceptron(max_iter=1, shuffle=False).fit", our_fit, None),
        "sk": ("scikit-learn: Perceptron(max_iter=1).fit", sk_fit, None),
        "pass": ("diagnostic: ours, pass on validated data", our_pass, fresh),
    }
    if sp.issparse(X):
        out = np.empty(n)
        calls["spmv"] = ("diagnostic: SpMV floor (numba X @ w)",
                         lambda: spmv(X.data, X.indices, X.indptr, w_pass, out), None)
        calls["scipy"] = ("diagnostic: scipy X @ w", lambda: X @ w_pass, None)
    by_label = time_interleaved({label: (fn, setup) for label, fn, setup in calls.values()},
                                repeats, clock)
    timings = {key: by_label[label] for key, (label, _, _) in calls.items()}
    for t in timings.values():
        print(t.line())

    ours, sk = fits["ours"], fits["sk"]
    coef_diff = float(np.max(np.abs(sk.coef_[0] - ours.coef_[0])))
    b_diff = abs(float(sk.intercept_[0]) - float(ours.intercept_[0]))
    same = (coef_diff <= 1e-9 * max(1.0, float(np.max(np.abs(ours.coef_[0]))))
            and b_diff <= 1e-9 and np.array_equal(ours.coef_[0], w_pass))
    print(f"  mistakes (ours): {m_ours:,} of {n:,} rows ({m_ours / n:.1%}); scikit-learn "
          f"coef_ {'equal' if same else 'DIFFERENT'} (max |diff| {coef_diff:.1e}, "
          f"intercept diff {b_diff:.1e}) -> {'same' if same else 'not the same'} updates")
    worst = max(t.spread for t in timings.values())
    if worst > 0.25:
        print(f"  note: repeats spread up to {worst:.0%} of the median: the machine was busy")
    print(f"  peer comparison (ratio = ours / theirs of the medians of {repeats}; paired: the"
          " median of the per-repeat ratios; lower is better):")
    print(ratio_line("ours fit / scikit-learn fit", timings["fit"], timings["sk"],
                     targets.get("sk")))
    print("  diagnostics (not peer comparisons):")
    print(ratio_line("ours pass / scikit-learn fit", timings["pass"], timings["sk"]))
    print(ratio_line("ours pass / ours fit", timings["pass"], timings["fit"]))
    if "spmv" in timings:
        print(ratio_line("ours pass / SpMV floor", timings["pass"], timings["spmv"],
                         targets.get("spmv")))
        print(ratio_line("ours pass / scipy X @ w", timings["pass"], timings["scipy"]))
    return {"timings": timings, "same_updates": same, "mistakes": m_ours}


def warm_up() -> None:
    """Compile (or load from cache) every kernel once, outside the timings."""
    X, y = make_sparse_planted(50, 20, 5, random_state=1)
    perceptron_pass(X, y, np.zeros(20), np.zeros(1), False, np.arange(50), np.empty(50))
    spmv(X.data, X.indices, X.indptr, np.zeros(20), np.empty(50))
    Xd, yd = make_dense_planted(50, 9, random_state=1)
    perceptron_pass(Xd, yd, np.zeros(9), np.zeros(1), True, np.arange(50), np.empty(50))
    Perceptron(max_iter=1).fit(X, y)
    sklearn_one_epoch(False).fit(X, y)
    sklearn_one_epoch(True).fit(Xd, yd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sets, for a smoke test")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per call")
    parser.add_argument("--sparse-rows", type=int, default=None,
                        help="rows of the sparse set (default 1,000,000; --quick 10,000)")
    parser.add_argument("--wall", action="store_true",
                        help="time wall-clock seconds instead of process CPU time")
    args = parser.parse_args(argv)
    clock = time.perf_counter if args.wall else time.process_time
    quiet_sklearn()
    if args.quick:
        sparse_shape, dense_shape, repeats = (10_000, 2_000, 20), (10_000, 20), 2
    else:
        sparse_shape, dense_shape, repeats = (1_000_000, 100_000, 80), (200_000, 100), 7
    repeats = args.repeats or repeats
    if args.sparse_rows:
        sparse_shape = (args.sparse_rows, *sparse_shape[1:])
    print(f"bench_perceptron: {'quick' if args.quick else 'full'} run, {repeats} repeats"
          f" of {'wall' if args.wall else 'process CPU'} time; {load_average()}")
    warm_up()

    start = time.perf_counter()
    n, d, k = sparse_shape
    X, y_clean = make_sparse_planted(n, d, k, random_state=0)
    rng = np.random.default_rng(1)
    y_noisy = np.where(rng.random(n) < 0.1, -y_clean, y_clean)
    print(f"(generated the sparse set in {time.perf_counter() - start:.1f} s)")
    results = [
        bench_set("sparse, clean labels", X, y_clean, False, repeats,
                  {"spmv": 1.3, "sk": 0.65}, clock),
        bench_set("sparse, 10% label noise", X, y_noisy, False, repeats, {"sk": 0.65}, clock),
    ]
    del X
    Xd, yd = make_dense_planted(*dense_shape, random_state=0)
    results.append(bench_set("dense", Xd, yd, True, repeats, {"sk": 0.65}, clock))
    if not all(r["same_updates"] for r in results):
        print("\nERROR: scikit-learn and halfspaces made different updates on some set.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
