"""Time to reach 1% of the optimal SVM objective: PegasosSVC variants vs scikit-learn's SGD.

For each data set and each contender, ``fit(max_iter=k)`` is run afresh for k = 1, 2, ...
(same seed, so the first k epochs are the same run) until the lam-form objective

    J(w, b) = lam/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (<w, x_i> + b))

of the returned model is within ``--gap`` (default 1%) of the optimum. The time reported is
the wall time of that fit (best of ``--repeat``), validation and set-up included; the objective
evaluation is not timed. Optimum: LIBLINEAR (scikit-learn ``LinearSVC``, hinge loss,
C = 1/(lam n), tol 1e-8) without intercept; with intercept (unregularized b, which LinearSVC
cannot express) an exact QP solved by Clarabel.

Usage::

    python benchmarks/bench_pegasos.py                      # a9a, w8a, reuters, synthetic
    python benchmarks/bench_pegasos.py --datasets a9a --lam 1e-5
    python benchmarks/bench_pegasos.py --synthetic 1000000 100000 80   # the full-size set

Data come from ``$HALFSPACES_DATA`` or ``../shared/data``; missing files are skipped with a
message.
"""

from __future__ import annotations

import argparse
import sys  # noqa: E402
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

from halfspaces import PegasosSVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_shared  # noqa: E402


def synthetic(n: int, d: int, nnz: int, seed: int = 0):
    """Sparse text-like data: nnz features per row (Zipf-ish), labels of a sparse w plus noise."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, d + 1) ** 0.8
    p /= p.sum()
    cols = rng.choice(d, size=n * nnz, p=p).astype(np.int32)
    vals = rng.random(n * nnz)
    X = sp.csr_matrix((vals, cols, np.arange(0, n * nnz + 1, nnz, dtype=np.int64)),
                      shape=(n, d))
    X.sum_duplicates()
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1))))
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    w = rng.normal(size=d) * (rng.random(d) < 0.1)
    score = X @ w
    y = np.where(score + 0.3 * score.std() * rng.normal(size=n) > np.median(score), 1.0, -1.0)
    return X, y


def objective(w, b, X, y, lam) -> float:
    return float(lam / 2 * w @ w + np.maximum(0.0, 1.0 - y * (X @ w + b)).mean())


def optimum_no_intercept(X, y, lam) -> float:
    svc = LinearSVC(C=1.0 / (lam * X.shape[0]), loss="hinge", fit_intercept=False, dual=True,
                    tol=1e-8, max_iter=1_000_000).fit(X, y)
    return objective(svc.coef_[0], 0.0, X, y, lam)


def optimum_with_intercept(X, y, lam) -> float | None:
    """Exact QP: min 1/2||w||^2 + C sum xi  s.t.  y (w.x + b) >= 1 - xi, xi >= 0."""
    import clarabel

    n, d = X.shape
    C = 1.0 / (lam * n)
    P = sp.block_diag([sp.eye(d), sp.csc_matrix((1 + n, 1 + n))]).tocsc()
    q = np.concatenate([np.zeros(d + 1), C * np.ones(n)])
    A = sp.vstack([sp.hstack([-sp.diags(y) @ X, -y[:, None], -sp.eye(n)]),
                   sp.hstack([sp.csc_matrix((n, d + 1)), -sp.eye(n)])]).tocsc()
    rhs = np.concatenate([-np.ones(n), np.zeros(n)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_rel = settings.tol_gap_abs = 1e-10
    sol = clarabel.DefaultSolver(P, q, A, rhs, [clarabel.NonnegativeConeT(2 * n)],
                                 settings).solve()
    if str(sol.status) != "Solved":
        return None
    x = np.asarray(sol.x)
    return objective(x[:d], x[d], X, y, lam)


def contenders(lam: float, fit_intercept: bool):
    """name -> factory(k epochs) of an unfitted estimator."""
    def peg(**kw):
        return lambda k: PegasosSVC(lam, max_iter=k, fit_intercept=fit_intercept,
                                    random_state=0, **kw)

    return {
        "sklearn SGD optimal": lambda k: SGDClassifier(
            loss="hinge", alpha=lam, learning_rate="optimal", fit_intercept=fit_intercept,
            max_iter=k, tol=None, random_state=0),
        "sklearn SGD optimal+avg": lambda k: SGDClassifier(
            loss="hinge", alpha=lam, learning_rate="optimal", fit_intercept=fit_intercept,
            max_iter=k, tol=None, random_state=0, average=True),
        "Pegasos default (offset+suffix avg)": peg(),
        "Pegasos textbook 1/(lam t)": peg(learning_rate="pegasos", average=False),
        "Pegasos 1/(lam t)+suffix avg": peg(learning_rate="pegasos"),
        "Pegasos offset, last iterate": peg(average=False),
        "Pegasos offset+uniform avg": peg(average=True),
        "Pegasos offset+t-weighted avg": peg(average="weighted"),
        "Pegasos default, batch 8": peg(batch_size=8),
        "Pegasos default, eta0=calibrate": peg(eta0="calibrate"),
        **({"Pegasos default, intercept_decay=1": peg(intercept_decay=1.0)}
           if fit_intercept else {}),
    }


def time_to_gap(make, X, y, lam, J_opt, gap, max_epochs, repeat):
    J = np.inf
    for k in range(1, max_epochs + 1):
        est = make(k)
        t = time.perf_counter()
        est.fit(X, y)
        elapsed = time.perf_counter() - t
        J = objective(est.coef_[0], est.intercept_[0], X, y, lam)
        if J <= (1 + gap) * J_opt:
            for _ in range(repeat - 1):
                t = time.perf_counter()
                make(k).fit(X, y)
                elapsed = min(elapsed, time.perf_counter() - t)
            return k, elapsed, J / J_opt - 1
    return None, None, J / J_opt - 1


def run(name, X, y, lam, gap, max_epochs, repeat, with_intercept):
    n = X.shape[0]
    print(f"\n== {name}: n={n}, d={X.shape[1]}, nnz={X.nnz}, lam={lam:g} (C={1 / (lam * n):.4g})")
    few = np.r_[np.flatnonzero(y > 0)[:100], np.flatnonzero(y < 0)[:100]]
    PegasosSVC(lam, max_iter=1).fit(X[few], y[few])  # compile the kernels outside timings
    for fit_intercept in ([False, True] if with_intercept else [False]):
        t = time.perf_counter()
        J_opt = (optimum_with_intercept(X, y, lam) if fit_intercept
                 else optimum_no_intercept(X, y, lam))
        if J_opt is None:
            print("  [skip] the QP for the optimum with intercept did not solve")
            continue
        print(f"-- fit_intercept={fit_intercept}: J* = {J_opt:.8f}"
              f" (reference solved in {time.perf_counter() - t:.1f}s)")
        rows = {}
        for label, make in contenders(lam, fit_intercept).items():
            rows[label] = time_to_gap(make, X, y, lam, J_opt, gap, max_epochs, repeat)
        base = rows["sklearn SGD optimal"][1]
        print(f"   {'contender':40s} {'epochs':>6s} {'time s':>8s} {'gap':>8s}"
              f" {'speed-up vs SGD':>16s}")
        for label, (k, sec, g) in rows.items():
            if k is None:
                print(f"   {label:40s} {'>' + str(max_epochs):>6s} {'-':>8s} {g:8.4f} {'-':>16s}")
            else:
                ratio = f"{base / sec:.2f}x" if base else "(SGD > max)"
                print(f"   {label:40s} {k:6d} {sec:8.3f} {g:8.4f} {ratio:>16s}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["a9a", "w8a", "reuters", "synthetic"])
    parser.add_argument("--lam", type=float, default=1e-4)
    parser.add_argument("--gap", type=float, default=0.01)
    parser.add_argument("--max-epochs", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--synthetic", nargs=3, type=int, default=[100_000, 100_000, 80],
                        metavar=("N", "D", "NNZ"))
    parser.add_argument("--no-intercept-variant", action="store_true",
                        help="skip fit_intercept=True (its exact QP optimum is the slow part)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name in args.datasets:
        if name == "synthetic":
            data = synthetic(*args.synthetic)
            name = "synthetic {}x{}x{}".format(*args.synthetic)
            with_b = False  # the exact QP is too large here
        else:
            data = load_shared(name)
            with_b = not args.no_intercept_variant
        if data is not None:
            run(name, *data, args.lam, args.gap, args.max_epochs, args.repeat, with_b)


if __name__ == "__main__":
    main()
