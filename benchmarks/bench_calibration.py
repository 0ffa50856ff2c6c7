"""Probabilities of ``SVC(probability=True)`` against scikit-learn's
``CalibratedClassifierCV(method="sigmoid")`` around the same ``halfspaces.SVC``: the Brier
score and the log loss on held-out rows.

    python benchmarks/bench_calibration.py                  # 8,000 training and 8,000 test rows
    python benchmarks/bench_calibration.py --rows 2000      # a quick run

Sets: the ijcnn1-shaped synthetic set (``_ijcnn1_like``, dense, 22 columns, 9.7% positives)
with seeds 0, 1 and 2, and the real a9a and w8a (the shared data folder, or
``$HALFSPACES_DATA``; CSR); each the first
``--rows`` rows for training and the next ``--rows`` for testing, in file order (the split of
the ijcnn1 report); w8a also with its rows shuffled (seed 0), as its file is in blocks of
labels, so that the next rows in file order have another mix of labels.

Contenders (linear kernel, ``C=1``, ``random_state=0``):

- ours ``SVC(probability=True)``: the default ``ensemble="auto"``, which for a linear model
  is ``True``: 5 stratified folds shuffled by ``random_state``, each fold's model with its
  own sigmoid, probabilities averaged;
- ours ``ensemble=False``: one sigmoid on the held-out scores of the same folds, applied to
  the model fitted on all rows (LIBSVM's ``-b 1``, and this library before ``ensemble``);
- scikit-learn ``CalibratedClassifierCV(SVC(), method="sigmoid", cv=5)``: its default,
  ``ensemble=True`` on unshuffled ``StratifiedKFold(5)``; and with ``ensemble=False``.

The fit time (process CPU time, one run: the machine is shared) is printed for scale only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import load_average, load_shared  # noqa: E402
from _ijcnn1_like import ijcnn1_like  # noqa: E402


def sets(rows: int):
    for seed in (0, 1, 2):
        X, y = ijcnn1_like(2 * rows, seed=seed)
        yield f"ijcnn1-like (seed {seed}, dense)", X[:rows], y[:rows], X[rows:], y[rows:]
    for name in ("a9a", "w8a"):
        data = load_shared(name)
        if data is None:
            continue
        X, y = data
        yield f"{name} (CSR, file order)", X[:rows], y[:rows], X[rows:2 * rows], y[rows:2 * rows]
        if name == "w8a":  # its file is in blocks of labels: the next rows are another mix
            order = np.random.RandomState(0).permutation(X.shape[0])
            X, y = X[order], y[order]
            yield (f"{name} (CSR, rows shuffled, seed 0)", X[:rows], y[:rows],
                   X[rows:2 * rows], y[rows:2 * rows])


def contenders():
    from sklearn.calibration import CalibratedClassifierCV

    from halfspaces import SVC

    return {
        "ours SVC(probability=True)": lambda: SVC(probability=True, random_state=0),
        "ours ensemble=False": lambda: SVC(probability=True, ensemble=False, random_state=0),
        "sklearn CalibratedClassifierCV(cv=5)": lambda: CalibratedClassifierCV(
            SVC(random_state=0), method="sigmoid", cv=5),
        "sklearn ensemble=False": lambda: CalibratedClassifierCV(
            SVC(random_state=0), method="sigmoid", cv=5, ensemble=False),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8000)
    args = parser.parse_args(argv)
    from sklearn.metrics import brier_score_loss, log_loss

    print("bench_calibration: Brier score and log loss on held-out rows, one fit each;"
          f" {load_average()}")
    for name, X, y, X_test, y_test in sets(args.rows):
        positive = float(np.mean(y_test == y.max()))
        rate = np.full(y_test.size, np.mean(y == y.max()))  # the training rows' rate
        print(f"\n{name}: {X.shape[0]:,} x {X.shape[1]} training rows, {X_test.shape[0]:,}"
              f" test rows ({positive:.3f} positive); the training rate for every row:"
              f" Brier {brier_score_loss(y_test, rate, pos_label=y.max()):.5f}")
        briers = {}
        for label, make in contenders().items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.process_time()
                model = make().fit(X, y)
                seconds = time.process_time() - start
            p = model.predict_proba(X_test)[:, 1]
            briers[label] = brier_score_loss(y_test, p, pos_label=y.max())
            print(f"  {label:38s} Brier {briers[label]:.5f}   log loss"
                  f" {log_loss(y_test, p, labels=[y.min(), y.max()]):.5f}   fit {seconds:6.2f} s")
        ours, theirs = briers["ours SVC(probability=True)"], briers[
            "sklearn CalibratedClassifierCV(cv=5)"]
        print(f"  ours / CalibratedClassifierCV's Brier: {ours / theirs:.3f}"
              f" ({'at least as good' if ours <= theirs else 'worse'})")
    print(f"\nat the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
