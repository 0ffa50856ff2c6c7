"""Shared helpers for the benchmarks: timing (median of repeats), ratios, data generators.

Every data set is generated in memory, vectorised with NumPy, from a seed; only the
file-to-model benchmark writes files (to a cache folder, never to the repository).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp


# -- timing -------------------------------------------------------------------------------
@dataclass
class Timing:
    """Wall-clock seconds of each repeat of one benchmarked call."""

    name: str
    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def spread(self) -> float:
        """(max - min) / median: above ~0.2 the machine was noisy during the repeats."""
        return (max(self.seconds) - min(self.seconds)) / self.median

    def line(self) -> str:
        s = ", ".join(f"{v * 1e3:.1f}" for v in self.seconds)
        return f"  {self.name:<44s} median {self.median * 1e3:9.1f} ms   (runs: {s})"


def time_call(name: str, fn: Callable[[], object], repeats: int,
              setup: Callable[[], object] | None = None,
              clock: Callable[[], float] = time.perf_counter) -> Timing:
    """Run ``setup()`` (untimed) then time ``fn()``, ``repeats`` times; GC off while timing.
    ``clock``: wall time by default; ``time.process_time`` for CPU time on a busy machine."""
    timing = Timing(name)
    for _ in range(repeats):
        if setup is not None:
            setup()
        gc.collect()
        gc.disable()
        try:
            start = clock()
            fn()
            timing.seconds.append(clock() - start)
        finally:
            gc.enable()
    return timing


def time_interleaved(calls: dict[str, tuple[Callable[[], object], Callable[[], object] | None]],
                     repeats: int,
                     clock: Callable[[], float] = time.perf_counter) -> dict[str, Timing]:
    """Time several calls round-robin: repeat ``r`` runs every call once, in turn.

    On a shared machine the load drifts; interleaving makes each repeat's contenders see
    about the same load, so the per-repeat ratios (:func:`ratio_line`) are fair even when
    the absolute times are not. ``calls`` maps a name to ``(fn, setup or None)``.
    """
    timings = {name: Timing(name) for name in calls}
    for _ in range(repeats):
        for name, (fn, setup) in calls.items():
            timings[name].seconds.extend(time_call(name, fn, 1, setup, clock).seconds)
    return timings


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, for the header of a results file."""
    one, five, fifteen = os.getloadavg()
    return (f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min)"
            f" on {os.cpu_count()} CPUs")


def ratio_line(label: str, ours: Timing, ref: Timing, target: float | None = None) -> str:
    """``ours/ref``: the ratio of the medians and, when both have as many repeats, the
    median of the per-repeat ratios (fair when the repeats were interleaved, see
    :func:`time_interleaved`); the target is judged on the ratio of the medians."""
    r = ours.median / ref.median
    text = f"  {label:<46s} {r:6.3f}"
    if len(ours.seconds) == len(ref.seconds):
        paired = statistics.median(a / b for a, b in zip(ours.seconds, ref.seconds, strict=True))
        text += f"   (paired {paired:5.3f})"
    if target is not None:
        text += f"   target <= {target:g}: {'met' if r <= target else 'NOT met'}"
    return text


def quiet_sklearn() -> None:
    """Silence the ConvergenceWarning of one-epoch sklearn fits (max_iter=1 is on purpose)."""
    from sklearn.exceptions import ConvergenceWarning

    warnings.filterwarnings("ignore", category=ConvergenceWarning)


# -- data ---------------------------------------------------------------------------------
def _normalise_rows_csr(X: sp.csr_matrix) -> None:
    norms = np.sqrt(np.add.reduceat(X.data * X.data, X.indptr[:-1])
                    if X.nnz else np.zeros(X.shape[0]))
    empty = np.diff(X.indptr) == 0
    norms[empty] = 1.0
    X.data /= np.repeat(norms, np.diff(X.indptr))


def make_sparse_planted(n_samples: int, n_features: int, nnz_per_row: int, *,
                        noise: float = 0.0, random_state: int = 0,
                        chunk: int = 100_000) -> tuple[sp.csr_matrix, np.ndarray]:
    """Bag-of-words-like CSR data labelled by a planted separator through the origin.

    Each row draws about ``nnz_per_row`` distinct column indices (sorted, by cumulating
    geometric gaps, so no sort and no duplicate removal is needed), non-negative values,
    then is L2-normalised. ``y = sign(<u, x>)`` in {-1, +1} for a Gaussian ``u`` (ties to
    +1); a fraction ``noise`` of labels is then flipped. float64 data, int32 indices
    (the layout scikit-learn's SGD uses without a copy), canonical format.
    """
    rng = np.random.default_rng(random_state)
    u = rng.standard_normal(n_features)
    # Geometric gaps with success probability p are a Bernoulli process over the columns:
    # each column is present with probability p, so a row has Binomial(d, p) ~ nnz_per_row
    # entries. k slots (6 standard deviations of spare) almost never run out.
    p = min(1.0, nnz_per_row / n_features)
    k = min(n_features, nnz_per_row + int(6 * np.sqrt(nnz_per_row)) + 1)
    datas, indices, counts = [], [], []
    for lo in range(0, n_samples, chunk):
        m = min(chunk, n_samples - lo)
        gaps = rng.geometric(p, size=(m, k)).astype(np.int64)
        cols = np.cumsum(gaps, axis=1) - 1
        keep = cols < n_features
        counts.append(keep.sum(axis=1))
        indices.append(cols[keep].astype(np.int32))
        datas.append(rng.random(int(keep.sum())) + 0.05)
    indptr = np.zeros(n_samples + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=indptr[1:])
    if indptr[-1] < np.iinfo(np.int32).max:
        indptr = indptr.astype(np.int32)
    X = sp.csr_matrix((np.concatenate(datas), np.concatenate(indices), indptr),
                      shape=(n_samples, n_features))
    X.has_sorted_indices = True
    X.has_canonical_format = True
    _normalise_rows_csr(X)
    y = np.where(X @ u >= 0.0, 1.0, -1.0)
    if noise > 0:
        flip = rng.random(n_samples) < noise
        y[flip] = -y[flip]
    return X, y


def make_dense_planted(n_samples: int, n_features: int, *, noise: float = 0.0,
                       random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian rows, L2-normalised, labelled by a planted separator with an offset."""
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n_samples, n_features))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    u = rng.standard_normal(n_features)
    y = np.where(X @ u + 0.1 * np.linalg.norm(u) >= 0.0, 1.0, -1.0)
    if noise > 0:
        flip = rng.random(n_samples) < noise
        y[flip] = -y[flip]
    return X, y


# -- shared real data sets ----------------------------------------------------------------
# The three real sets most benchmarks run on (and the Pegasos defaults were tuned on) ...
SHARED_FILES = {"a9a": "a9a/a9a", "w8a": "w8a/w8a", "reuters": "reuters_moneyfx/reuters.trn"}
# ... and other svmlight files of the shared folder, read by name with load_shared.
OTHER_FILES = {"mushrooms": "mushrooms_agaricus/agaricus.txt.train",
               "rcv1_small": "rcv1_small_vw/rcv1_small.svm",
               "diabetes": "diabetes_scale/diabetes_scale"}


def data_root() -> Path:
    """``$HALFSPACES_DATA``, else the ``shared/data`` folder beside the repository."""
    env = os.environ.get("HALFSPACES_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "data"


def as_csr32(X) -> sp.csr_matrix:
    """float64 CSR with int32 indices: what LIBLINEAR accepts, and what we are given."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X


def load_shared(name: str):
    """``(X, y)`` of a shared data set with y in {-1, +1}; None (and a message) when absent."""
    from sklearn.datasets import load_svmlight_file

    path = data_root() / {**SHARED_FILES, **OTHER_FILES}[name]
    if not path.exists():
        print(f"[skip] {name}: {path} not found (set $HALFSPACES_DATA to the data folder).")
        return None
    X, y = load_svmlight_file(str(path))
    return as_csr32(X), np.where(y == y.max(), 1.0, -1.0)


# -- text files -----------------------------------------------------------------------------
def write_text_formats(X: sp.csr_matrix, y: np.ndarray, svm_path=None, vw_path=None, *,
                       value_format: str = "%r", chunk: int = 10_000) -> None:
    """Write CSR rows ``X`` with labels ``y`` in {-1, +1} as svmlight and/or VW text.

    svmlight lines are ``+1 4:0.5 17:1.25``; VW lines are ``1 |f 4:0.5 17:1.25``: the same
    1-based indices (column j is written j + 1) and the same value strings, so both files
    hold the same data. ``value_format`` "%r" writes the shortest string that reads back to
    the same float (the files then hold ``X`` exactly); "%.6g" writes shorter files.
    """
    outs = [open(path, "w") for path in (svm_path, vw_path) if path is not None]
    is_svm = [path is svm_path for path in (svm_path, vw_path) if path is not None]
    formats: dict[int, str] = {}
    try:
        for lo in range(0, X.shape[0], chunk):
            block = X[lo:lo + chunk]
            flat: list = [None] * (2 * block.nnz)
            flat[0::2] = (block.indices.astype(np.int64) + 1).tolist()
            flat[1::2] = block.data.tolist()
            ptr = block.indptr.tolist()
            lines: list[list[str]] = [[], []]
            for r, label in enumerate(y[lo:lo + chunk].tolist()):
                s, e = ptr[r], ptr[r + 1]
                fmt = formats.get(e - s)
                if fmt is None:
                    fmt = formats[e - s] = " ".join([f"%d:{value_format}"] * (e - s))
                body = fmt % tuple(flat[2 * s:2 * e])
                positive = label > 0
                lines[0].append(f"{'+1' if positive else '-1'} {body}".rstrip() + "\n")
                lines[1].append(f"{'1' if positive else '-1'} |f {body}".rstrip() + "\n")
            for out, svm in zip(outs, is_svm, strict=True):
                out.writelines(lines[0] if svm else lines[1])
    finally:
        for out in outs:
            out.close()
