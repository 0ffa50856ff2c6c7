"""Ten classes on few dense rows (digits-shaped): ``SVC()`` against LIBLINEAR, and the
multinomial ``LogisticRegression()`` against scikit-learn's, in one process.

    python benchmarks/bench_many_classes.py                # digits and a 10-class synthetic set
    python benchmarks/bench_many_classes.py --repeats 11

Sets: scikit-learn's bundled digits scaled to [0, 1] (70% of the rows for training, split
with seed 0: 1,257 x 64), and ``make_classification`` with 10 classes, 64 features, 5,000
rows scaled to [0, 1] (3,500 for training). Both sides get the same dense float64 array.

SVC: ours ``SVC(random_state=0)`` (``solver="auto"``: its ``solver_`` is printed; hinge
loss, one-vs-rest, unregularized offset, stopped on its certified duality gap), against
LIBLINEAR's own ``train -s 3 -c 1 -B 1`` (liblinear-official: the same dual coordinate
descent on the hinge loss, one-vs-rest, its bias a regularized constant feature, stopped on
its projected gradients at ``-e 0.1``) and scikit-learn's ``LinearSVC(loss="hinge")`` (the
same LIBLINEAR solver with its own tol 1e-4 and a copy of the data). The target is judged
against liblinear-official.

Logistic regression: ours ``LogisticRegression()`` and scikit-learn's (both L-BFGS-B on the
same multinomial objective, default ``C=1``, ``tol=1e-4``); the largest coefficient
difference is printed (target 1e-6).

Timing: process CPU time (the machine is shared), contenders interleaved per repeat, median
of ``--repeats``; ratios as :func:`_common.ratio_line`. Run with one BLAS thread
(``run_all.py`` sets it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import load_average, ratio_line, time_interleaved  # noqa: E402


def sets():
    from sklearn.datasets import load_digits, make_classification
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    yield "digits", *train_test_split(X / 16.0, y, test_size=0.3, random_state=0)
    X, y = make_classification(n_samples=5000, n_features=64, n_informative=30,
                               n_classes=10, n_clusters_per_class=1, random_state=0)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    yield "synthetic-10", *train_test_split(X, y, test_size=0.3, random_state=0)


def contenders(X, y, fits: dict, train) -> dict:
    """The timed calls on ``(X, y)``, each keeping its model in ``fits``."""
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.svm import LinearSVC

    from halfspaces import SVC, LogisticRegression

    return {
        "SVC() (ours)": lambda: fits.__setitem__("svc", SVC(random_state=0).fit(X, y)),
        "LIBLINEAR train -s 3 -B 1": lambda: fits.__setitem__(
            "ll", train(y.astype(float), X, "-s 3 -c 1 -B 1 -q")),
        "LinearSVC(loss='hinge')": lambda: fits.__setitem__(
            "lsvc", LinearSVC(loss="hinge", random_state=0).fit(X, y)),
        "LogisticRegression() (ours)": lambda: fits.__setitem__(
            "lr", LogisticRegression().fit(X, y)),
        "sklearn LogisticRegression()": lambda: fits.__setitem__(
            "sk", SkLogisticRegression().fit(X, y)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    try:
        from liblinear.liblinearutil import predict as ll_predict
        from liblinear.liblinearutil import train
    except ImportError:
        print("[skip] bench_many_classes needs liblinear-official: pip install -e '.[bench]'")
        return 0
    warnings.filterwarnings("ignore")
    print(f"bench_many_classes: median of {args.repeats}, process CPU time, interleaved;"
          f" {load_average()}")
    for name, X, X_test, y, y_test in sets():
        fits: dict = {}
        calls = contenders(X, y, fits, train)
        for call in calls.values():  # warm-up: numba's cached kernels, the libraries
            call()
        t = time_interleaved({k: (v, None) for k, v in calls.items()}, args.repeats,
                             clock=time.process_time)
        ll_labels = ll_predict(y_test.astype(float), X_test, fits["ll"], "-q")[0]
        print(f"\n{name}: {X.shape[0]:,} x {X.shape[1]} training rows, {len(np.unique(y))}"
              f" classes, {X_test.shape[0]:,} test rows")
        for timing in t.values():
            print(timing.line())
        svc, lr, sk = fits["svc"], fits["lr"], fits["sk"]
        accuracy = {name: fits[key].score(X_test, y_test) for name, key in (
            ("ours", "svc"), ("LinearSVC", "lsvc"), ("logistic ours", "lr"),
            ("logistic sklearn", "sk"))}
        accuracy["LIBLINEAR"] = float(np.mean(np.asarray(ll_labels) == y_test))
        diff = max(np.abs(lr.coef_ - sk.coef_).max(), np.abs(lr.intercept_ - sk.intercept_).max())
        print(f"  SVC: solver_={svc.solver_!r} ({svc.solver_reason_}); {svc.n_iter_} epochs")
        print(f"  LogisticRegression: multi_class_={lr.multi_class_!r}, {lr.n_iter_} iterations"
              f" (sklearn {int(sk.n_iter_[0])}); max |coef, intercept difference| {diff:.2g}"
              f" (target 1e-6: {'met' if diff <= 1e-6 else 'NOT met'})")
        print("  test accuracy: " + ", ".join(f"{k} {v:.4f}" for k, v in accuracy.items()))
        for label, ours, theirs, target in (
                ("SVC() / LIBLINEAR train -s 3", "SVC() (ours)", "LIBLINEAR train -s 3 -B 1",
                 1.0),
                ("SVC() / LinearSVC(loss='hinge')", "SVC() (ours)", "LinearSVC(loss='hinge')",
                 None),
                ("LogisticRegression() / sklearn's", "LogisticRegression() (ours)",
                 "sklearn LogisticRegression()", 1.0)):
            print(ratio_line(label, t[ours], t[theirs], target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
