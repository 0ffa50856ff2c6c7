"""SVC against its peers: DCD vs LIBLINEAR (LinearSVC), the QP vs LIBSVM (sklearn SVC).

Run: ``python benchmarks/bench_svc.py [--quick] [--tol 1e-3] [--C 1.0] [--repeats 5]
[--datasets a9a w8a reuters synthetic] [--synthetic 200000x100000] [--nnz-per-row 50]
[--qp-rows 5000] [--precision 1e-3] [--no-qp]``. The 1M-row figure of the README is
``--datasets synthetic --synthetic 1000000x100000 --nnz-per-row 80 --precision 0 --no-qp
--repeats 3`` (``run_all.py`` runs it as ``bench_svc_1m``).

1. ``SVC(solver="dcd")`` vs ``LinearSVC(loss="hinge", dual=True)`` on a9a, w8a, Reuters
   money-fx (read from ``$HALFSPACES_DATA`` or ``../shared/data``; a missing file is skipped
   with a message) and a generated sparse set (``make_separable(sparse=True)`` with 5% of
   labels flipped). Two comparisons:

   * same tol, each with its own stopping rule, as a user who passes ``tol`` gets it:
     LIBLINEAR stops on ``max PG - min PG <= tol`` on the dual; ours stops on a duality gap
     of at most ``0.01 tol`` times the objective, checked once that projected-gradient
     criterion holds and periodically (see ``SVC``'s ``tol``): a different stop, which may
     end before or after LIBLINEAR's, with an objective certified within ``0.01 tol``;
   * same precision (``--precision``, default 1e-3): each solver at the loosest tol of
     ``1, 10^-0.5, ..., 1e-6`` whose objective, for every timed seed, is within that
     relative error of its own
     problem's optimum (computed at tol 1e-6), so a criterion that is looser or tighter in
     practice does not bias the timing.

   LIBLINEAR regularizes its bias (a constant feature), our offset is unregularized, so the
   like-for-like comparison is without offset (``fit_intercept=False``: the same problem);
   the offset variants (two different problems) are timed too, each against its own optimum
   in the precision comparison. Same-tol objectives are our ``svm_objective`` (C form,
   unregularized offset) evaluated on each model.
2. ``SVC(solver="qp")`` (Clarabel, primal QP) vs ``sklearn.svm.SVC(kernel="linear")``
   (LIBSVM, SMO) on the first ``--qp-rows`` rows of a9a as a dense array, with offset.

Every timing is the median of ``--repeats`` fits (``fit`` with its input validation on both
sides), ours and theirs alternating, after an
untimed warm-up (numba compile); ratios are ours / theirs, measured in the same run on the
same data, on wall time and on process CPU time (both solvers are single-threaded; CPU time
is less sensitive to other jobs on a shared machine). The load average is printed.
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
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVMSVC
from sklearn.svm import LinearSVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_FILES, Timing, as_csr32, load_shared  # noqa: E402

from halfspaces.datasets import make_separable  # noqa: E402
from halfspaces.linear.svm import SVC  # noqa: E402
from halfspaces.losses import svm_objective  # noqa: E402


def time_pair(name_a, fn_a, name_b, fn_b, repeats: int) -> tuple[Timing, Timing]:
    """Time ``fn_a`` and ``fn_b`` alternately (a, b, a, b, ...), so that a change of load on
    this shared machine hits both alike; GC off while timing. ``fn(seed)`` gets the repeat
    number as a seed, the same for both: convergence of coordinate descent depends on the
    random order (on Reuters, 35 to 83 epochs over six seeds), so the median over seeds, not
    one draw, is compared. Each Timing also carries
    ``cpu``, the process CPU seconds of the same runs (both solvers are single-threaded, so
    CPU time is the less load-sensitive measure on a busy machine)."""
    ta, tb = Timing(name_a), Timing(name_b)
    ta.cpu, tb.cpu = [], []
    for seed in range(repeats):
        for timing, fn in ((ta, fn_a), (tb, fn_b)):
            gc.collect()
            gc.disable()
            try:
                start, cpu = time.perf_counter(), time.process_time()
                fn(seed)
                timing.seconds.append(time.perf_counter() - start)
                timing.cpu.append(time.process_time() - cpu)
            finally:
                gc.enable()
    return ta, tb


def cpu_median(timing: Timing) -> float:
    return float(np.median(timing.cpu))


def synthetic(n: int, d: int, nnz: int):
    """``make_separable(sparse=True)``, margin 0.01, with 5% of the labels flipped."""
    X, y = make_separable(n, d, margin=0.01, sparse=True, nnz_per_row=nnz, noise=0.05,
                          random_state=0)
    return as_csr32(X), y.astype(np.float64)


def liblinear_objective(model, X, y, C) -> float:
    """LIBLINEAR's own primal: the bias is a constant feature (intercept_scaling 1), so it is
    regularized, ``1/2 (||w||^2 + b^2) + C sum_i hinge``."""
    b = float(np.ravel(model.intercept_)[0]) if model.fit_intercept else 0.0
    return svm_objective(model.coef_[0], b, X, y, C=C) + 0.5 * b * b


def fit(model, seed, X, y):
    return model.set_params(random_state=seed).fit(X, y)


def make_pair(C, fit_intercept, tol, max_iter):
    ours = SVC(C=C, solver="dcd", fit_intercept=fit_intercept, tol=tol, max_iter=max_iter,
               random_state=0)
    theirs = LinearSVC(C=C, loss="hinge", dual=True, fit_intercept=fit_intercept, tol=tol,
                       max_iter=max_iter, random_state=0)
    return ours, theirs


def loosest_tol(model, objective, target, precision, grid, seeds) -> tuple[float, float]:
    """The largest tol of ``grid`` at which the fit with every seed of ``seeds`` (the seeds
    that are timed) has ``objective <= (1 + precision) target``; and the worst relative
    error over those seeds."""
    for tol in grid:
        worst = max(objective(fit(model.set_params(tol=tol), seed, *model._bench_data))
                    / target - 1.0 for seed in seeds)
        if worst <= precision:
            break
    return tol, worst


def bench_dcd(name, X, y, args, rows, prec_rows):
    n, d = X.shape
    print(f"\n{name}: {n} x {d}, nnz {X.nnz}, C={args.C}, tol={args.tol}")
    for fit_intercept in (False, True):
        ours, theirs = make_pair(args.C, fit_intercept, args.tol, args.max_iter)
        t_ours, t_lib = time_pair("halfspaces SVC(solver='dcd')", lambda s, m=ours: fit(m, s, X, y),
                                  "sklearn LinearSVC (LIBLINEAR)",
                                  lambda s, m=theirs: fit(m, s, X, y), args.repeats)
        j_ours = svm_objective(ours.coef_[0], ours.intercept_[0], X, y, C=args.C)
        j_lib = svm_objective(theirs.coef_[0], np.ravel(theirs.intercept_)[0], X, y, C=args.C)
        variant = "offset (ours unreg., LIBLINEAR reg. bias)" if fit_intercept else "no offset"
        print(t_ours.line() + f"  cpu median {cpu_median(t_ours) * 1e3:.1f} ms")
        print(t_lib.line() + f"  cpu median {cpu_median(t_lib) * 1e3:.1f} ms")
        print(f"    {variant}: objective ours {j_ours:.6f} (epochs {ours.n_iter_}),"
              f" LIBLINEAR {j_lib:.6f} (outer iters {theirs.n_iter_}),"
              f" rel. diff {(j_ours - j_lib) / j_lib:+.2e}")
        rows.append((name, variant, t_ours.median, t_lib.median, j_ours, j_lib,
                     cpu_median(t_ours), cpu_median(t_lib)))
        if args.precision > 0:
            bench_precision(name, variant, X, y, fit_intercept, args, prec_rows)


def bench_precision(name, variant, X, y, fit_intercept, args, prec_rows):
    """Time to reach ``args.precision`` relative objective error, each on its own problem
    (identical without offset), against optima computed at tol 1e-6 (the lower of ours and
    LIBLINEAR's without offset). The loosest tol of a grid that reaches it is timed."""
    C = args.C
    ours, theirs = make_pair(C, fit_intercept, 1e-6, args.max_iter)
    ours.fit(X, y)
    theirs.fit(X, y)
    ours._bench_data = theirs._bench_data = (X, y)
    j_o = lambda m: svm_objective(m.coef_[0], m.intercept_[0], X, y, C=C)  # noqa: E731
    j_t = lambda m: liblinear_objective(m, X, y, C)  # noqa: E731
    opt_o, opt_t = j_o(ours), j_t(theirs)
    if not fit_intercept:
        opt_o = opt_t = min(opt_o, opt_t)
    grid = [10.0 ** (-k / 2) for k in range(0, 13)]  # 1, 0.3, 0.1, ..., 1e-6
    seeds = range(args.repeats)
    tol_o, e_o = loosest_tol(ours, j_o, opt_o, args.precision, grid, seeds)
    tol_t, e_t = loosest_tol(theirs, j_t, opt_t, args.precision, grid, seeds)
    ours.set_params(tol=tol_o)
    theirs.set_params(tol=tol_t)
    t_ours, t_lib = time_pair("  ours to precision", lambda s, m=ours: fit(m, s, X, y),
                              "  LIBLINEAR to precision", lambda s: fit(theirs, s, X, y),
                              args.repeats)
    print(f"    to {args.precision:g} relative objective error ({variant}): ours tol {tol_o:.1e}"
          f" {t_ours.median:.3f} s (worst error {e_o:.1e}), LIBLINEAR tol {tol_t:.1e}"
          f" {t_lib.median:.3f} s (worst error {e_t:.1e}); optima ours {opt_o:.6f},"
          f" LIBLINEAR {opt_t:.6f}")
    prec_rows.append((name, variant, t_ours.median, t_lib.median, e_o, e_t,
                      cpu_median(t_ours), cpu_median(t_lib)))


def bench_qp(X, y, args, rows):
    n = min(args.qp_rows, X.shape[0])
    Xd, yd = X[:n].toarray(), y[:n]
    print(f"\nQP: a9a first {n} rows, dense {Xd.shape}, C={args.C}, with offset")
    ours = SVC(C=args.C, solver="qp")
    theirs = LibSVMSVC(kernel="linear", C=args.C, tol=1e-3)
    t_ours, t_lib = time_pair("halfspaces SVC(solver='qp') (Clarabel)",
                              lambda s: ours.fit(Xd, yd),
                              "sklearn SVC(kernel='linear') (LIBSVM)",
                              lambda s: theirs.fit(Xd, yd), args.qp_repeats)
    j_ours = svm_objective(ours.coef_[0], ours.intercept_[0], Xd, yd, C=args.C)
    j_lib = svm_objective(theirs.coef_[0], theirs.intercept_[0], Xd, yd, C=args.C)
    print(t_ours.line())
    print(t_lib.line())
    print(f"    objective ours {j_ours:.6f} (duality gap {ours.duality_gap_:.2e}),"
          f" LIBSVM {j_lib:.6f}, rel. diff {(j_ours - j_lib) / j_lib:+.2e};"
          f" max |coef diff| {np.abs(ours.coef_ - theirs.coef_).max():.2e}")
    rows.append((f"a9a[:{n}] dense", "QP vs LIBSVM, offset", t_ours.median, t_lib.median,
                 j_ours, j_lib, cpu_median(t_ours), cpu_median(t_lib)))


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
    parser.add_argument("--precision", type=float, default=1e-3,
                        help="also time both to this relative objective error (0: skip)")
    parser.add_argument("--no-qp", action="store_true", help="skip the QP comparison")
    parser.add_argument("--datasets", nargs="+", default=[*SHARED_FILES, "synthetic"],
                        choices=[*SHARED_FILES, "synthetic"],
                        help="the DCD comparisons to run (the QP one reads a9a regardless)")
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
    prec_rows: list = []
    for name in args.datasets:
        if name == "synthetic":
            n, d = (int(v) for v in args.synthetic.lower().split("x"))
            X, y = synthetic(n, d, args.nnz_per_row)
            bench_dcd(f"synthetic {n}x{d}", X, y, args, rows, prec_rows)
            del X, y
            continue
        data = load_shared(name)
        if data is not None:
            bench_dcd(name, *data, args, rows, prec_rows)
    if not args.no_qp:
        a9a = load_shared("a9a")
        if a9a is not None:
            bench_qp(*a9a, args, rows)
        else:
            print("  skipping the QP comparison: a9a not found")

    print(f"\nSummary (median seconds of {args.repeats} fits, wall and CPU; ratio = ours /"
          f" theirs; tol={args.tol}, C={args.C})")
    print(f"{'data':<24s} {'variant':<42s} {'ours s':>7s} {'theirs s':>8s} {'ratio':>6s}"
          f" {'cpu ratio':>9s} {'obj ours':>14s} {'obj theirs':>14s}")
    for name, variant, t_o, t_t, j_o, j_t, c_o, c_t in rows:
        print(f"{name:<24s} {variant:<42s} {t_o:7.3f} {t_t:8.3f} {t_o / t_t:6.2f}"
              f" {c_o / c_t:9.2f} {j_o:14.6f} {j_t:14.6f}")
    if prec_rows:
        print(f"\nTime to {args.precision:g} relative objective error (each solver at the"
              " loosest tol at which every timed seed reaches it, on its own problem; median"
              " seconds; err: worst over the seeds)")
        print(f"{'data':<24s} {'variant':<42s} {'ours s':>7s} {'theirs s':>8s} {'ratio':>6s}"
              f" {'cpu ratio':>9s} {'err ours':>9s} {'err theirs':>10s}")
        for name, variant, t_o, t_t, e_o, e_t, c_o, c_t in prec_rows:
            print(f"{name:<24s} {variant:<42s} {t_o:7.3f} {t_t:8.3f} {t_o / t_t:6.2f}"
                  f" {c_o / c_t:9.2f} {e_o:9.1e} {e_t:10.1e}")
    print(f"load average at end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    dcd = [(r[2] / r[3], r[6] / r[7]) for r in rows if "QP" not in r[1]]
    no_offset = [r[2] / r[3] for r in rows if r[1] == "no offset"]
    if no_offset:
        geo = float(np.exp(np.mean(np.log(no_offset))))
        print(f"\nDCD vs LIBLINEAR, same problem (no offset): geometric mean wall ratio"
              f" {geo:.2f}, worst {max(no_offset):.2f}")
    if dcd:
        worst_wall, worst_cpu = max(r[0] for r in dcd), max(r[1] for r in dcd)
        print(f"DCD vs LIBLINEAR, every data set and variant: worst wall ratio {worst_wall:.2f},"
              f" worst CPU ratio {worst_cpu:.2f} (target <= 1.0 on each:"
              f" {'met' if max(worst_wall, worst_cpu) <= 1.0 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
