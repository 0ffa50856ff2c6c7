"""Perceptron epoch speed against scikit-learn and against a compiled SpMV pass.

    python benchmarks/bench_perceptron.py            # the full sets (needs ~4 GB RAM)
    python benchmarks/bench_perceptron.py --quick    # a small smoke run (a few seconds)

Sets, generated in memory (nothing cached):

- sparse: 1,000,000 rows x 100,000 features, ~80 non-zeros per row, L2-normalised rows,
  labels from a planted separator through the origin, clean and with 10% of labels flipped
  (same X). fit_intercept=False on both sides: scikit-learn damps a sparse model's
  intercept updates by 0.01, so only the no-offset models are the same algorithm.
- dense: 200,000 x 100, Gaussian rows L2-normalised, planted separator with an offset;
  fit_intercept=True on both sides.

Timed (median of --repeats runs, each on a fresh zero model; the contenders run
round-robin, so each repeat sees about the same machine load, and the ratios are given both
as ratio of medians and as median of the per-repeat ratios):

- ours, pass: one perceptron epoch on already-validated data (what ``partial_fit`` runs
  after validation: the compiled kernel);
- ours, fit: ``Perceptron(max_iter=1).fit(X, y)``: validation, labels and the pass;
- scikit-learn: ``Perceptron(eta0=1, penalty=None, shuffle=False, tol=None,
  max_iter=1).fit(X, y)`` (its validation included: it has no cheaper public entry);
- SpMV floor (sparse): ``out = X @ w`` by a numba kernel over the same CSR arrays with the
  same 4-partial-sum row dot and a float64 ``w``; a perceptron epoch is this plus the
  updates on mistakes.

Both libraries must make the same updates: the script checks that the coefficients agree
(scikit-learn does not expose its mistake count; equal ``coef_ = sum of y_i x_i over the
mistakes`` pins down the same mistake set) and prints our count.
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


def bench_set(title: str, X, y, fit_intercept: bool, repeats: int, targets: dict) -> dict:
    """Time ours (pass, fit), scikit-learn and (sparse) the SpMV floor on one set."""
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

    # The reference pass (for the model and mistake count) is made once, untimed.
    fresh()
    our_pass()
    w_ours, b_ours, m_ours = state["w"].copy(), state["b"][0], state["m"]
    sk = {}

    def sk_fit():
        sk["est"] = sklearn_one_epoch(fit_intercept).fit(X, y)

    calls = {
        "pass": ("ours, pass (validated data)", our_pass, fresh),
        "fit": ("ours, fit(max_iter=1)",
                lambda: Perceptron(fit_intercept=fit_intercept, max_iter=1).fit(X, y), None),
        "sk": ("scikit-learn Perceptron, 1 epoch", sk_fit, None),
    }
    if sp.issparse(X):
        out = np.empty(n)
        calls["spmv"] = ("SpMV floor (numba X @ w)",
                         lambda: spmv(X.data, X.indices, X.indptr, w_ours, out), None)
        calls["scipy"] = ("scipy X @ w (for reference)", lambda: X @ w_ours, None)
    by_label = time_interleaved({label: (fn, setup) for label, fn, setup in calls.values()},
                                repeats)
    timings = {key: by_label[label] for key, (label, _, _) in calls.items()}
    for t in timings.values():
        print(t.line())

    coef_diff = float(np.max(np.abs(sk["est"].coef_[0] - w_ours)))
    b_diff = abs(float(sk["est"].intercept_[0]) - b_ours)
    same = coef_diff <= 1e-9 * max(1.0, float(np.max(np.abs(w_ours)))) and b_diff <= 1e-9
    print(f"  mistakes (ours): {m_ours:,} of {n:,} rows ({m_ours / n:.1%}); scikit-learn "
          f"coef_ {'equal' if same else 'DIFFERENT'} (max |diff| {coef_diff:.1e}, "
          f"intercept diff {b_diff:.1e}) -> {'same' if same else 'not the same'} updates")
    worst = max(t.spread for t in timings.values())
    if worst > 0.25:
        print(f"  note: repeats spread up to {worst:.0%} of the median: the machine was busy")
    print("  ratio (median time, lower is better):")
    if "spmv" in timings:
        print(ratio_line("ours pass / SpMV floor", timings["pass"], timings["spmv"],
                         targets.get("spmv")))
        print(ratio_line("ours pass / scipy X @ w", timings["pass"], timings["scipy"]))
    print(ratio_line("ours pass / scikit-learn epoch", timings["pass"], timings["sk"],
                     targets.get("sk")))
    print(ratio_line("ours fit(max_iter=1) / scikit-learn epoch", timings["fit"],
                     timings["sk"]))
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
    args = parser.parse_args(argv)
    quiet_sklearn()
    if args.quick:
        sparse_shape, dense_shape, repeats = (10_000, 2_000, 20), (10_000, 20), 2
    else:
        sparse_shape, dense_shape, repeats = (1_000_000, 100_000, 80), (200_000, 100), 7
    repeats = args.repeats or repeats
    print(f"bench_perceptron: {'quick' if args.quick else 'full'} run, {repeats} repeats, "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    warm_up()

    start = time.perf_counter()
    n, d, k = sparse_shape
    X, y_clean = make_sparse_planted(n, d, k, random_state=0)
    rng = np.random.default_rng(1)
    y_noisy = np.where(rng.random(n) < 0.1, -y_clean, y_clean)
    print(f"(generated the sparse set in {time.perf_counter() - start:.1f} s)")
    results = [
        bench_set("sparse, clean labels", X, y_clean, False, repeats, {"spmv": 1.3, "sk": 0.8}),
        bench_set("sparse, 10% label noise", X, y_noisy, False, repeats, {}),
    ]
    del X
    Xd, yd = make_dense_planted(*dense_shape, random_state=0)
    results.append(bench_set("dense", Xd, yd, True, repeats, {"sk": 0.4}))
    if not all(r["same_updates"] for r in results):
        print("\nERROR: scikit-learn and halfspaces made different updates on some set.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
