"""Time to reach 1% of the optimal SVM objective: PegasosSVC variants vs scikit-learn's SGD.

The problem on each data set is the soft-margin SVM at C = 1 (``--C``; lam = 1/(C n)), the
default of LIBLINEAR and scikit-learn and the problem of bench_svc.py; ``--lam`` fixes lam
for every data set instead (``--lam 1e-4`` was the protocol of halfspaces 0.1.0: on the
generated set lam n = 100 there, the optimum is within 4% of w = 0 and every method is within
1% after one epoch, so that run only times one pass over the data).

Protocol. For each data set, contender and seed, ``fit(max_iter=k)`` is run afresh for
k = 1, 2, ... (same seed, so the first k epochs are the same run) until the lam-form objective

    J(w, b) = lam/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (<w, x_i> + b))

of the returned model is within ``--gap`` (default 1%) of the optimum (this search is not
timed). Then the fits at the k found (at ``--max-epochs`` for a contender that never got
there: its time is then a lower bound) are timed ``--repeat`` times, every contender in turn
within each repeat, so that all see the same machine load; a fit's time is the wall time of
``fit`` (validation and set-up included; the objective evaluation is not). A row reports, per
contender, the epochs of each seed and the median over the ``--seeds`` seeds of the median of
the ``--repeat`` timed fits; the speed-up is scikit-learn's time over ours.

Optimum: LIBLINEAR (scikit-learn ``LinearSVC``, hinge loss, C = 1/(lam n), tol 1e-8) without
intercept. With intercept (unregularized b, which LinearSVC cannot express) an exact QP
solved by Clarabel on sets up to 10,000 rows and 1,000,000 non-zeros; on larger sets (the
interior-point factorization then takes minutes) our exact dual coordinate descent
``SVC(solver="dcd", tol=1e-8)`` (tested against the QP to 1e-6).

Data sets (``--datasets``):

- used to tune the PegasosSVC defaults (see its docstring): ``a9a``, ``w8a``, ``reuters``
  and ``generated`` (``make_sparse_planted``, as in bench_perceptron, with 5% of the labels
  flipped: ``--generated`` 1,000,000 x 100,000, 80 non-zeros per row);
- not used for tuning: ``mushrooms`` (agaricus train split), ``rcv1_small``, ``diabetes``
  (svmlight files of the shared data folder), ``sms_spam`` (the raw messages through
  scikit-learn's ``TfidfVectorizer``, spam = +1), and generated sets written as a spec:
  ``dense:NxD:NOISE`` (``make_dense_planted``: Gaussian rows, L2-normalised, planted
  separator with an offset, a fraction NOISE of labels flipped) or ``sparse:NxDxNNZ:NOISE``
  (``make_sparse_planted``).

Usage::

    python benchmarks/bench_pegasos.py                    # a9a, w8a, reuters, generated
    python benchmarks/bench_pegasos.py --lam 1e-4         # the same lam everywhere
    python benchmarks/bench_pegasos.py --datasets reuters --seeds 7
    python benchmarks/bench_pegasos.py --generated 100000 100000 80   # a smaller set
    python benchmarks/bench_pegasos.py --contenders main --datasets mushrooms rcv1_small \
        sms_spam diabetes dense:50000x500:0.2 sparse:100000x1000000x10:0.1

Data come from ``$HALFSPACES_DATA`` or ``../shared/data``; missing files are skipped with a
message. On sets of more than 100,000 rows only the main contenders run, each timed once
per seed, for at most 30 epochs.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

from halfspaces import SVC, PegasosSVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    data_root,
    load_shared,
    make_dense_planted,
    make_sparse_planted,
    time_call,
)

BASELINE = "sklearn SGD optimal"
# The main contenders: the only ones on sets of more than 100,000 rows or with --contenders main.
MAIN = (BASELINE, "Pegasos default", "Pegasos textbook 1/(lam t)")


def nnz(X) -> int:
    return X.nnz if sp.issparse(X) else int(np.count_nonzero(X))


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


def optimum_with_intercept_dcd(X, y, lam) -> float:
    svc = SVC(lam=lam, solver="dcd", tol=1e-8, max_iter=100_000).fit(X, y)
    return objective(svc.coef_[0], svc.intercept_[0], X, y, lam)


def contenders(lam: float, fit_intercept: bool, X):
    """name -> factory(k epochs, seed) of an unfitted estimator."""
    n = X.shape[0]
    density = nnz(X) / (n * X.shape[1])

    def peg(**kw):
        return lambda k, s: PegasosSVC(lam, max_iter=k, fit_intercept=fit_intercept,
                                       random_state=s, **kw)

    def sgd(**kw):
        return lambda k, s: SGDClassifier(loss="hinge", alpha=lam, learning_rate="optimal",
                                          fit_intercept=fit_intercept, max_iter=k, tol=None,
                                          random_state=s, **kw)

    def last_quarter(k, s):  # the average of halfspaces 0.1.0: the last quarter of the steps
        return PegasosSVC(lam, max_iter=k, fit_intercept=fit_intercept, random_state=s,
                          average=k * n - math.ceil(k * n / 4))

    return {
        BASELINE: sgd(),
        "sklearn SGD optimal+avg": sgd(average=True),
        "Pegasos default": peg(),
        "Pegasos textbook 1/(lam t)": peg(learning_rate="pegasos", average=False),
        "Pegasos 1/(lam t)+suffix avg": peg(learning_rate="pegasos"),
        "Pegasos offset, last iterate": peg(average=False),
        "Pegasos offset+uniform avg": peg(average=True),
        "Pegasos offset+t-weighted avg": peg(average="weighted"),
        "Pegasos, last quarter averaged": last_quarter,
        "Pegasos default, batch 8": peg(batch_size=8),
        "Pegasos default, eta0=calibrate": peg(eta0="calibrate"),
        **({"Pegasos, intercept_decay floor 0.01": peg(intercept_decay=max(density, 0.01)),
            "Pegasos default, intercept_decay=1": peg(intercept_decay=1.0)}
           if fit_intercept else {}),
    }


def first_within(make, seed, X, y, lam, J_opt, gap, max_epochs):
    """(k, relative gap) of the first k whose fit is within ``gap``, else (None, the gap of
    the ``max_epochs`` fit). Not timed."""
    for k in range(1, max_epochs + 1):
        est = make(k, seed).fit(X, y)
        g = objective(est.coef_[0], est.intercept_[0], X, y, lam) / J_opt - 1
        if g <= gap:
            return k, g
    return None, g


def run(name, X, y, args, large, tuned):
    n = X.shape[0]
    lam = args.lam if args.lam is not None else 1.0 / (args.C * n)
    role = "used to tune the defaults" if tuned else "not used for tuning"
    print(f"\n== {name} ({role}): n={n}, d={X.shape[1]}, nnz={nnz(X)}, lam={lam:g}"
          f" (C={1 / (lam * n):.4g})")
    few = np.r_[np.flatnonzero(y > 0)[:100], np.flatnonzero(y < 0)[:100]]
    PegasosSVC(lam, max_iter=1).fit(X[few], y[few])  # compile the kernels outside timings
    seeds = range(args.seeds)
    max_epochs = min(args.max_epochs, 30) if large else args.max_epochs
    repeat = 1 if large else args.repeat
    for fit_intercept in (False, True):
        t = time.perf_counter()
        if not fit_intercept:
            J_opt, how = optimum_no_intercept(X, y, lam), "LIBLINEAR, tol 1e-8"
        elif n > 10_000 or nnz(X) > 1_000_000:
            J_opt, how = optimum_with_intercept_dcd(X, y, lam), "our exact DCD, tol 1e-8"
        else:
            J_opt, how = optimum_with_intercept(X, y, lam), "Clarabel QP"
        if J_opt is None:
            print("  [skip] the QP for the optimum with intercept did not solve")
            continue
        print(f"-- fit_intercept={fit_intercept}: J* = {J_opt:.8f}"
              f" ({how}, {time.perf_counter() - t:.1f}s); {args.seeds} seeds, median of"
              f" {repeat} timed fits each")
        makers = {label: make for label, make in contenders(lam, fit_intercept, X).items()
                  if label in MAIN or not (large or args.contenders == "main")}
        rows = {label: [] for label in makers}
        for seed in seeds:
            found = {label: first_within(make, seed, X, y, lam, J_opt, args.gap, max_epochs)
                     for label, make in makers.items()}
            times = {label: [] for label in makers}
            for _ in range(repeat):
                for label, make in makers.items():
                    k = found[label][0] or max_epochs
                    fit = lambda m=make, k=k, s=seed: m(k, s).fit(X, y)  # noqa: E731
                    times[label] += time_call(label, fit, 1).seconds
            for label in makers:
                rows[label].append((*found[label], statistics.median(times[label])))
        base, base_done = _median_time(rows[BASELINE])
        print(f"   {'contender':38s} {'epochs (each seed)':>20s} {'time s':>8s} {'gap':>7s}"
              f" {'speed-up vs SGD':>16s}")
        for label, runs in rows.items():
            epochs = ",".join(str(k) if k else f">{max_epochs}" for k, _, _ in runs)
            sec, done = _median_time(runs)
            g = statistics.median(gp for _, gp, _ in runs)
            if not done:
                print(f"   {label:38s} {epochs:>20s} {'-':>8s} {g:7.4f} {'-':>16s}")
            else:  # SGD short of the gap after max_epochs: its time then is a lower bound
                ratio = f"{base / sec:.2f}x" if base_done else f"> {base / sec:.2f}x"
                print(f"   {label:38s} {epochs:>20s} {sec:8.4f} {g:7.4f} {ratio:>16s}")


def _median_time(runs) -> tuple[float, bool]:
    """(median time over seeds, whether every seed reached the gap)."""
    return (statistics.median(sec for _, _, sec in runs),
            all(k is not None for k, _, _ in runs))


def load_sms_tfidf():
    """The SMS spam messages as tf-idf rows (L2-normalised), spam = +1; None when absent."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from halfspaces.datasets import load_text_tsv

    path = data_root() / "sms_spam" / "SMSSpamCollection"
    if not path.exists():
        print(f"[skip] sms_spam: {path} not found (set $HALFSPACES_DATA to the data folder).")
        return None
    texts, labels = load_text_tsv(path)
    X = TfidfVectorizer().fit_transform(texts).tocsr()
    return X, np.where(labels == "spam", 1.0, -1.0)


def generated(spec: str):
    """``dense:NxD:NOISE`` or ``sparse:NxDxNNZ:NOISE`` -> (name, (X, y))."""
    kind, shape, noise = spec.split(":")
    dims = [int(v) for v in shape.lower().split("x")]
    if kind == "dense":
        n, d = dims
        data = make_dense_planted(n, d, noise=float(noise), random_state=1)
        return f"generated dense {n}x{d}, {float(noise):.0%} noise", data
    n, d, nnz = dims
    data = make_sparse_planted(n, d, nnz, noise=float(noise), random_state=1)
    return f"generated sparse {n}x{d}, {nnz} nnz/row, {float(noise):.0%} noise", data


TUNED = ("a9a", "w8a", "reuters", "generated")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(TUNED),
                        help="names (see the docstring) or generated specs")
    parser.add_argument("--contenders", choices=("all", "main"), default="all",
                        help="main: scikit-learn SGD, Pegasos default and textbook only")
    parser.add_argument("--C", type=float, default=1.0, help="lam = 1/(C n) on each data set")
    parser.add_argument("--lam", type=float, default=None, help="the same lam everywhere")
    parser.add_argument("--gap", type=float, default=0.01)
    parser.add_argument("--max-epochs", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=5, help="timed fits per seed")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--generated", nargs=3, type=int, default=[1_000_000, 100_000, 80],
                        metavar=("N", "D", "NNZ"))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name in args.datasets:
        tuned = name in TUNED
        if name == "generated":
            n, d, nnz = args.generated
            data = make_sparse_planted(n, d, nnz, noise=0.05, random_state=0)
            name = f"generated {n}x{d}, {nnz} nnz/row, 5% noise"
        elif ":" in name:
            name, data = generated(name)
        elif name == "sms_spam":
            name, data = "sms_spam (tf-idf)", load_sms_tfidf()
        else:
            data = load_shared(name)
        if data is not None:
            run(name, *data, args, data[0].shape[0] > 100_000, tuned)


if __name__ == "__main__":
    main()
