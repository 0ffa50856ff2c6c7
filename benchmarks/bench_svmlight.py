"""Throughput of the svmlight reader against scikit-learn's load_svmlight_file.

Run: ``python benchmarks/bench_svmlight.py [--repeat 7]``. Reads the files from
``$HALFSPACES_DATA`` or ``../shared/data``; a missing file is skipped with a message. Each
reader gets one warm-up call (our compiled kernel is cached on disk after the first run),
then the best of ``--repeat`` timed calls is reported as MB/s of file read, with the ratio
ours / scikit-learn measured in the same run. The matrices are also checked to be
bit-identical.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from halfspaces.datasets import iter_svmlight, load_svmlight

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_root  # noqa: E402

FILES = ["a9a/a9a", "w8a/w8a", "reuters_moneyfx/reuters.trn", "rcv1_small_vw/rcv1_small.svm"]


def best_time(fn, repeat: int) -> float:
    """Fastest of ``repeat`` timed calls after one warm-up (the least disturbed by other
    processes on a shared machine)."""
    fn()  # warm-up (JIT cache load, page cache)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    root = data_root()
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
        ours = best_time(lambda p=path: load_svmlight(p), args.repeat)
        theirs = best_time(lambda p=path: load_svmlight_file(str(p)), args.repeat)
        n_cols = X.shape[1]
        stream = best_time(lambda p=path, n=n_cols: sum(c[0].nnz for c in iter_svmlight(
            p, chunk_rows=10000, n_features=n, zero_based=False)), args.repeat)
        print(f"{name:32s} {mb:6.2f} {mb / ours:10.1f} {mb / theirs:12.1f}"
              f" {theirs / ours:5.2f}x {mb / stream:10.1f} {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
