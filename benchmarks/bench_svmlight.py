"""Throughput of the svmlight reader against scikit-learn's load_svmlight_file.

Run: ``python benchmarks/bench_svmlight.py [--repeat 7]``. Reads the files from
``$HALFSPACES_DATA`` or ``../shared/data``; a missing file is skipped with a message. Each
reader gets one warm-up call (our compiled kernel is cached on disk after the first run; the
file is then in the page cache for both), then ``--repeat`` timed calls of each, round-robin
(ours, scikit-learn's, our stream, ours, ...); reported are the medians as MB/s of file read
and the ratio of the median times ours / scikit-learn (below 1: we are faster). The matrices
are also checked to be bit-identical. Timed: ``load_svmlight(path)`` against
``load_svmlight_file(path)`` (both whole files to a CSR matrix), and for orientation our
stream ``iter_svmlight(path, chunk_rows=10000, n_features=...)`` consumed to the end.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from halfspaces.datasets import iter_svmlight, load_svmlight

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_root, time_interleaved  # noqa: E402

FILES = ["a9a/a9a", "w8a/w8a", "reuters_moneyfx/reuters.trn", "rcv1_small_vw/rcv1_small.svm"]


def time_readers(path, n_cols: int, repeat: int) -> dict:
    """Median seconds of each reader on ``path``: one warm-up call each, then ``repeat``
    calls of each, round-robin."""
    calls = {
        "ours": lambda: load_svmlight(path),
        "sklearn": lambda: load_svmlight_file(str(path)),
        "stream": lambda: sum(c[0].nnz for c in iter_svmlight(
            path, chunk_rows=10000, n_features=n_cols, zero_based=False)),
    }
    for fn in calls.values():
        fn()
    timings = time_interleaved({name: (fn, None) for name, fn in calls.items()}, repeat)
    return {name: t.median for name, t in timings.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    root = data_root()
    print(f"median of {args.repeat} reads each; ratio = our time / scikit-learn's")
    print(f"{'file':32s} {'MB':>6s} {'ours MB/s':>10s} {'sklearn MB/s':>12s} {'ratio':>6s}"
          f" {'iter MB/s':>10s} same")
    for name in FILES:
        path = root / name
        if not path.exists():
            print(f"{name}: skipped, {path} not found (set HALFSPACES_DATA)")
            continue
        mb = path.stat().st_size / 1e6
        X, y = load_svmlight(path)
        X_ref, y_ref = load_svmlight_file(str(path))
        same = (X.shape == X_ref.shape and np.array_equal(X.indptr, X_ref.indptr)
                and np.array_equal(X.indices, X_ref.indices)
                and X.data.tobytes() == X_ref.data.tobytes() and y.tobytes() == y_ref.tobytes())
        t = time_readers(path, X.shape[1], args.repeat)
        print(f"{name:32s} {mb:6.2f} {mb / t['ours']:10.1f} {mb / t['sklearn']:12.1f}"
              f" {t['ours'] / t['sklearn']:6.2f} {mb / t['stream']:10.1f} {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
