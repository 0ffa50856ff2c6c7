"""SVC against its peers: DCD vs LIBLINEAR (LinearSVC), the QP vs LIBSVM (sklearn SVC).

Run: ``python benchmarks/bench_svc.py [--quick] [--tol 1e-3] [--C 1.0] [--repeats 5]
[--synthetic 200000x100000] [--nnz-per-row 50] [--qp-rows 5000]``.

1. ``SVC(solver="dcd")`` vs ``LinearSVC(loss="hinge", dual=True)`` on a9a, w8a, Reuters
   money-fx (read from ``$HALFSPACES_DATA`` or ``../shared/data``; a missing file is skipped
   with a message) and a generated sparse set (``make_separable(sparse=True)`` with 5% of
   labels flipped). Both stop on the same criterion, ``max PG - min PG < tol`` on the dual.
   LIBLINEAR regularizes its bias (a constant feature), our offset is unregularized, so the
   like-for-like comparison is without offset (``fit_intercept=False``: the same problem);
   the offset variants (two different problems) are timed separately. Objectives are our
   ``svm_objective`` (C form, unregularized offset) evaluated on each model.
2. ``SVC(solver="qp")`` (Clarabel, primal QP) vs ``sklearn.svm.SVC(kernel="linear")``
   (LIBSVM, SMO) on the first ``--qp-rows`` rows of a9a as a dense array, with offset.

Every timing is the median of ``--repeats`` fits, ours and theirs alternating, after an
untimed warm-up (numba compile); ratios are ours / theirs, measured in the same run on the
same data. The machine's load average is printed: on a shared machine, rerun when it is high.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVMSVC
from sklearn.svm import LinearSVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Timing  # noqa: E402

from halfspaces.linear.svm import SVC  # noqa: E402
from halfspaces.losses import svm_objective  # noqa: E402

FILES = {"a9a": "a9a/a9a", "w8a": "w8a/w8a", "reuters": "reuters_moneyfx/reuters.trn"}


def data_root() -> Path:
    env = os.environ.get("HALFSPACES_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def as_csr32(X) -> sp.csr_matrix:
    """float64 CSR with int32 indices: the layout LIBLINEAR's wrapper accepts without a copy."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def time_pair(name_a, fn_a, name_b, fn_b, repeats: int) -> tuple[Timing, Timing]:
    """Time ``fn_a`` and ``fn_b`` alternately (a, b, a, b, ...), so that a change of load on
    this shared machine hits both alike; GC off while timing."""
    ta, tb = Timing(name_a), Timing(name_b)
    for _ in range(repeats):
        for timing, fn in ((ta, fn_a), (tb, fn_b)):
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                fn()
                timing.seconds.append(time.perf_counter() - start)
            finally:
                gc.enable()
    return ta, tb


def load(name: str):
    path = data_root() / FILES[name]
    if not path.exists():
        print(f"  skipping {name}: {path} not found (set HALFSPACES_DATA to the data folder)")
        return None
    X, y = load_svmlight_file(str(path))
    return as_csr32(X), np.where(y > 0, 1.0, -1.0)


def synthetic(n: int, d: int, nnz: int):
    try:
        from halfspaces.datasets import make_separable
    except ImportError:  # pragma: no cover - the generator lives in another module
        make_separable = None
    if make_separable is not None:
        X, y = make_separable(n, d, margin=0.01, sparse=True, nnz_per_row=nnz, noise=0.05,
                              random_state=0)
        return as_csr32(X), y.astype(np.float64)
    rng = np.random.default_rng(0)  # fallback: random sparse rows, planted labels + noise
    X = sp.random(n, d, density=nnz / d, format="csr", random_state=0)
    y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    y[rng.random(n) < 0.05] *= -1
    return as_csr32(X), y


def bench_dcd(name, X, y, args, rows):
    n, d = X.shape
    print(f"\n{name}: {n} x {d}, nnz {X.nnz}, C={args.C}, tol={args.tol}")
    for fit_intercept in (False, True):
        ours = SVC(C=args.C, solver="dcd", fit_intercept=fit_intercept, tol=args.tol,
                   max_iter=args.max_iter, random_state=0)
        theirs = LinearSVC(C=args.C, loss="hinge", dual=True, fit_intercept=fit_intercept,
                           tol=args.tol, max_iter=args.max_iter, random_state=0)
        t_ours, t_lib = time_pair("halfspaces SVC(solver='dcd')", lambda m=ours: m.fit(X, y),
                                  "sklearn LinearSVC (LIBLINEAR)",
                                  lambda m=theirs: m.fit(X, y), args.repeats)
        j_ours = svm_objective(ours.coef_[0], ours.intercept_[0], X, y, C=args.C)
        j_lib = svm_objective(theirs.coef_[0], np.ravel(theirs.intercept_)[0], X, y, C=args.C)
        variant = "offset (ours unreg., LIBLINEAR reg. bias)" if fit_intercept else "no offset"
        print(t_ours.line())
        print(t_lib.line())
        print(f"    {variant}: objective ours {j_ours:.6f} (iters {ours.n_iter_}),"
              f" LIBLINEAR {j_lib:.6f} (iters {theirs.n_iter_}),"
              f" rel. diff {(j_ours - j_lib) / j_lib:+.2e}")
        rows.append((name, variant, t_ours.median, t_lib.median, j_ours, j_lib))


def bench_qp(X, y, args, rows):
    n = min(args.qp_rows, X.shape[0])
    Xd, yd = X[:n].toarray(), y[:n]
    print(f"\nQP: a9a first {n} rows, dense {Xd.shape}, C={args.C}, with offset")
    ours = SVC(C=args.C, solver="qp")
    theirs = LibSVMSVC(kernel="linear", C=args.C, tol=1e-3)
    t_ours, t_lib = time_pair("halfspaces SVC(solver='qp') (Clarabel)",
                              lambda: ours.fit(Xd, yd),
                              "sklearn SVC(kernel='linear') (LIBSVM)",
                              lambda: theirs.fit(Xd, yd), args.qp_repeats)
    j_ours = svm_objective(ours.coef_[0], ours.intercept_[0], Xd, yd, C=args.C)
    j_lib = svm_objective(theirs.coef_[0], theirs.intercept_[0], Xd, yd, C=args.C)
    print(t_ours.line())
    print(t_lib.line())
    print(f"    objective ours {j_ours:.6f} (duality gap {ours.duality_gap_:.2e}),"
          f" LIBSVM {j_lib:.6f}, rel. diff {(j_ours - j_lib) / j_lib:+.2e};"
          f" max |coef diff| {np.abs(ours.coef_ - theirs.coef_).max():.2e}")
    rows.append((f"a9a[:{n}] dense", "QP vs LIBSVM, offset", t_ours.median, t_lib.median,
                 j_ours, j_lib))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer repeats, a smaller synthetic set and 2000 QP rows")
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--max-iter", type=int, default=100_000)
    parser.add_argument("--synthetic", default=None, help="ROWSxCOLS, e.g. 1000000x100000")
    parser.add_argument("--nnz-per-row", type=int, default=50)
    parser.add_argument("--qp-rows", type=int, default=None)
    args = parser.parse_args(argv)
    args.repeats = args.repeats or (3 if args.quick else 5)
    args.qp_repeats = 1 if args.quick else 3
    args.qp_rows = args.qp_rows or (2000 if args.quick else 5000)
    args.synthetic = args.synthetic or ("50000x20000" if args.quick else "200000x100000")
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    rng = np.random.default_rng(0)  # warm-up: compile / load the numba kernels, untimed
    Xw, yw = rng.random((40, 5)), np.arange(40) % 2
    for fit_intercept in (False, True):
        SVC(solver="dcd", fit_intercept=fit_intercept).fit(Xw, yw)
        SVC(solver="dcd", fit_intercept=fit_intercept).fit(as_csr32(Xw), yw)

    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    rows: list = []
    a9a = None
    for name in FILES:
        data = load(name)
        if name == "a9a":
            a9a = data
        if data is not None:
            bench_dcd(name, *data, args, rows)
    n, d = (int(v) for v in args.synthetic.lower().split("x"))
    X, y = synthetic(n, d, args.nnz_per_row)
    bench_dcd(f"synthetic {n}x{d}", X, y, args, rows)
    if a9a is not None:
        bench_qp(*a9a, args, rows)
    else:
        print("  skipping the QP comparison: a9a not found")

    print(f"\nSummary (median seconds of {args.repeats} fits; ratio = ours / theirs;"
          f" tol={args.tol}, C={args.C})")
    print(f"{'data':<24s} {'variant':<42s} {'ours s':>8s} {'theirs s':>9s} {'ratio':>6s}"
          f" {'obj ours':>14s} {'obj theirs':>14s}")
    for name, variant, t_o, t_t, j_o, j_t in rows:
        print(f"{name:<24s} {variant:<42s} {t_o:8.3f} {t_t:9.3f} {t_o / t_t:6.2f}"
              f" {j_o:14.6f} {j_t:14.6f}")
    print(f"load average at end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    no_offset = [r[2] / r[3] for r in rows if r[1] == "no offset"]
    if no_offset:
        geo = float(np.exp(np.mean(np.log(no_offset))))
        print(f"\nDCD vs LIBLINEAR, same problem (no offset): geometric mean ratio {geo:.2f}"
              f" (target <= 1.0: {'met' if geo <= 1.0 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
