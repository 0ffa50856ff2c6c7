"""Choosing C: ``halfspaces cv`` and ``SVCCV`` against ``GridSearchCV(LinearSVC)``.

Run: ``python benchmarks/bench_cv.py [--sets a9a ijcnn1-like] [--repeats 5]
[--Cs 0.01 0.1 1 10 100] [--rows 49990]``.

Each contender searches the same ``C`` values on the same folds (``StratifiedKFold(5,
shuffle=True, random_state=0)``), scores the held-out rows by balanced accuracy and refits
the best ``C`` on every row, with ``class_weight`` None and "balanced":

- ``GridSearchCV(LinearSVC(loss="hinge", dual=True), {"C": Cs})`` (scikit-learn, LIBLINEAR's
  dual coordinate descent with its defaults, tol 1e-4 and at most 1000 iterations; it stops
  there unconverged at large ``C``);
- ``SVCCV(Cs=Cs, cv=folds)`` (halfspaces in Python: a warm-started path of certified fits);
- ``halfspaces cv FILE --C ... --folds 5`` (the command, from a svmlight file: process start,
  parsing and the refit included).

It prints the median wall time of each (the contenders alternate in every repeat), the
ratios to scikit-learn with the target (at most 1.0), the C chosen and its mean score by
each, and our largest relative duality gap over every fit. ``ijcnn1-like`` is generated:
49,990 x 22 dense rows uniform in [-1, 1], about 9.7% positives, labels from a noisy linear
rule (the shape and balance of LIBSVM's ijcnn1, which is not in the shared data folder).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, load_shared, ratio_line, time_interleaved  # noqa: E402

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def ijcnn1_like(n: int = 49_990, d: int = 22, seed: int = 0):
    """Dense rows uniform in [-1, 1]; the top ~9.7% of a noisy linear score are positive."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    score = X @ rng.normal(size=d) + 0.8 * rng.normal(size=n)
    y = np.where(score > np.quantile(score, 1 - 0.097), 1.0, -1.0)
    return X, y


def _write_svmlight(path: Path, X, y) -> None:
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, y, str(path), zero_based=False)


def _cli(path: Path, Cs, class_weight, out: dict):
    argv = [sys.executable, "-m", "halfspaces", "cv", str(path), "--one-based", "--algo", "svm",
            "--C", ",".join(f"{c:g}" for c in Cs), "--folds", "5", "--scoring",
            "balanced_accuracy", "--random-state", "0", "--json", "-o",
            str(path.with_suffix(".model"))]
    if class_weight:
        argv += ["--set", f"class_weight={class_weight}"]
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONWARNINGS": "ignore"}

    def run():
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
        out.update(json.loads(done.stdout))

    return run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["ijcnn1-like", "a9a"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--Cs", type=float, nargs="+", default=[0.01, 0.1, 1, 10, 100])
    parser.add_argument("--rows", type=int, default=49_990, help="rows of ijcnn1-like")
    args = parser.parse_args(argv)
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import LinearSVC

    from halfspaces.model_selection import SVCCV

    warnings.simplefilter("ignore")
    print(f"C = {args.Cs}, 5 stratified folds (seed 0), balanced accuracy, refit; median of"
          f" {args.repeats} alternating repeats; {load_average()}")
    folder = Path(tempfile.mkdtemp(prefix="bench_cv_"))
    for name in args.sets:
        data = ijcnn1_like(args.rows) if name == "ijcnn1-like" else load_shared(name)
        if data is None:
            continue
        X, y = data
        path = folder / f"{name}.svm"
        _write_svmlight(path, X, y)
        SVCCV(Cs=[1.0], cv=2).fit(X[:500], y[:500])  # numba compile, untimed
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        print(f"\n{name}: {X.shape[0]} x {X.shape[1]}, {np.mean(y > 0):.1%} positive")
        for class_weight in (None, "balanced"):
            found: dict = {}
            sk = GridSearchCV(LinearSVC(loss="hinge", dual=True, class_weight=class_weight,
                                        random_state=0), {"C": args.Cs}, cv=cv,
                              scoring="balanced_accuracy")
            ours = SVCCV(Cs=args.Cs, cv=cv, scoring="balanced_accuracy",
                         class_weight=class_weight, random_state=0)
            timings = time_interleaved({
                "sklearn GridSearchCV(LinearSVC)": (lambda sk=sk, X=X, y=y: sk.fit(X, y), None),
                "halfspaces SVCCV": (lambda ours=ours, X=X, y=y: ours.fit(X, y), None),
                "halfspaces cv (command)": (_cli(path, args.Cs, class_weight, found), None)},
                args.repeats)
            print(f"  class_weight={class_weight}:")
            for timing in timings.values():
                print(f"    {timing.name:<34s} median {timing.median:8.2f} s  (spread"
                      f" {timing.spread:.2f})")
            ref = timings["sklearn GridSearchCV(LinearSVC)"]
            for key in ("halfspaces SVCCV", "halfspaces cv (command)"):
                print("  " + ratio_line(f"{key} / sklearn", timings[key], ref, 1.0))
            best_sk = sk.best_index_
            print(f"    chosen C: sklearn {sk.best_params_['C']:g} (mean"
                  f" {sk.cv_results_['mean_test_score'][best_sk]:.4f}), SVCCV {ours.C_:g} (mean"
                  f" {ours.best_score_:.4f}), command {found['best']:g}")
            print(f"    our largest relative duality gap: SVCCV"
                  f" {ours.max_relative_duality_gap_:.2e}, command (folds)"
                  f" {found['max_relative_duality_gap']:.2e}")
    print(f"\nafter: {load_average()}; {time.strftime('%Y-%m-%d %H:%M:%S')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
