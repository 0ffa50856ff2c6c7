"""The training data as shards that live on the Dask workers.

A *shard* is one row block ``(X_j, y_j)``: a C-contiguous float array or a canonical CSR
matrix, and its labels. Shards are computed on the workers from a Dask array (and its
label array), from the partitions of a Dask DataFrame, or by reading svmlight files (each
worker reads its own), and stay there for the whole fit: tasks that need a shard run where
it is held, and only models, gradients and scalars travel. A shard is the result of a
task whose inputs are the user's collection, so a worker lost during a fit is recovered by
recomputing its shards from their source.

Everything that runs on a worker is a module-level function (a task), pure: the same
inputs give the same result, so the scheduler may run it again.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

OWNER = "halfspaces.dask.fit"


# -- tasks (run on the workers) ---------------------------------------------------------------
def _nonfinite_error(j: int, X) -> ValueError:
    if sp.issparse(X):
        p = int(np.flatnonzero(~np.isfinite(X.data))[0])
        row = int(np.searchsorted(X.indptr, p, side="right") - 1)
        col = int(X.indices[p])
    else:
        row, col = (int(v) for v in np.argwhere(~np.isfinite(X))[0])
    return ValueError(
        f"{OWNER}: block {j} has a non-finite value (nan or inf) at row {row} of the block,"
        f" column {col}. Drop or impute such rows before fitting (e.g. X[da.isfinite(X)"
        ".all(axis=1)]).")


def as_block(X, j: int):
    """``X`` as a C-contiguous float array or a canonical CSR matrix; checks it is finite."""
    if sp.issparse(X):
        X = X.tocsr()
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        finite = np.isfinite(X.data).all()
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"{OWNER}: block {j} of X has shape {X.shape}; a 2-D block"
                             " (rows, features) is needed.")
        if X.dtype not in (np.float32, np.float64):
            try:
                X = X.astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{OWNER}: block {j} of X has dtype {X.dtype}, which is"
                                 " not numeric; encode the features as numbers.") from exc
        X = np.ascontiguousarray(X)
        finite = np.isfinite(X).all()
    if not finite:
        raise _nonfinite_error(j, X)
    return X


def prepare_block(X, y, j: int):
    """Task: one shard ``(X_j, y_j)`` from a block of X and its labels."""
    X = as_block(X, j)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.shape != (X.shape[0],):
        raise ValueError(f"{OWNER}: block {j} has {X.shape[0]} rows of X but labels of"
                         f" shape {y.shape}; give one label per row, chunked like X.")
    return X, y


def prepare_frame(frame, label: str, j: int):
    """Task: one shard from a pandas partition: every column but ``label`` is a feature."""
    y = frame[label].to_numpy()
    features = frame.drop(columns=[label])
    bad = [c for c, t in features.dtypes.items() if t.kind not in "biuf"]
    if bad:
        raise ValueError(f"{OWNER}: column(s) {bad[:5]} of the DataFrame are not numeric;"
                         " convert them to numbers (or drop them) before fitting.")
    return as_block(features.to_numpy(dtype=np.float64), j), y


def prepare_frame_labels(frame, labels, j: int):
    """Task: one shard from a pandas partition of features and its partition of labels."""
    y = labels.to_numpy() if hasattr(labels, "to_numpy") else np.asarray(labels)
    if y.shape[0] != frame.shape[0]:
        raise ValueError(f"{OWNER}: partition {j} has {frame.shape[0]} rows of X but"
                         f" {y.shape[0]} labels; give X and y the same partitions (e.g. y ="
                         " frame[label] and X = frame.drop(columns=label)).")
    return prepare_frame(frame.assign(**{LABEL: y}), LABEL, j)


#: The column under which a Series of labels joins its partition of features.
LABEL = "__halfspaces_label__"


def read_svmlight_shard(path, j: int):
    """Task: read one svmlight file (indices kept as written: 0 allowed, shifted later)."""
    from ..datasets import load_svmlight

    X, y = load_svmlight(path, zero_based=True)
    return as_block(X, j), y


def reindex_shard(shard, shift: int, n_features: int):
    """Task: shift 1-based column indices down and give the shard ``n_features`` columns."""
    X, y = shard
    X = sp.csr_matrix((X.data, X.indices - shift if shift else X.indices, X.indptr),
                      shape=(X.shape[0], n_features))
    return X, y


@dataclass
class ShardInfo:
    """Summary of one shard: computed on its worker, small enough to send to the client."""

    n_rows: int
    n_features: int
    labels: NDArray
    sq_norm_sum: float
    max_sq_norm: float
    nnz: int
    min_index: int
    max_index: int
    sparse: bool


def describe(shard) -> ShardInfo:
    """Task: the :class:`ShardInfo` of a shard."""
    X, y = shard
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        nnz = int(X.nnz)
        lo, hi = (int(X.indices.min()), int(X.indices.max())) if nnz else (0, -1)
    else:
        sq = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        nnz = int(np.count_nonzero(X))
        lo, hi = 0, X.shape[1] - 1
    labels = np.unique(y) if y.shape[0] else y[:0]
    return ShardInfo(int(X.shape[0]), int(X.shape[1]), labels, float(sq.sum()),
                     float(sq.max()) if sq.size else 0.0, nnz, lo, hi, sp.issparse(X))


# -- the client side --------------------------------------------------------------------------
@dataclass
class Shards:
    """The shards of one fit: futures on the workers and what the client knows of them."""

    futures: list
    infos: list[ShardInfo]
    n_features: int
    sparse: bool

    @property
    def rows(self) -> NDArray[np.int64]:
        return np.array([s.n_rows for s in self.infos], dtype=np.int64)

    @property
    def n_samples(self) -> int:
        return int(self.rows.sum())

    @property
    def labels(self) -> NDArray:
        return np.unique(np.concatenate([s.labels for s in self.infos]))

    @property
    def mean_sq_norm(self) -> float:
        return sum(s.sq_norm_sum for s in self.infos) / max(self.n_samples, 1)

    @property
    def radius(self) -> float:
        """``R = max_i ||x_i||``."""
        return math.sqrt(max(s.max_sq_norm for s in self.infos))

    @property
    def density(self) -> float:
        return sum(s.nnz for s in self.infos) / max(self.n_samples * self.n_features, 1)


def _short(chunks: tuple) -> tuple:
    return chunks if len(chunks) <= 6 else chunks[:6] + ("...",)


def check_dask_X(owner: str, X: Any, da) -> None:
    """``X`` is a 2-D dask array with a single chunk along the columns."""
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{owner}: X must be a dask array; got {type(X).__name__}. Wrap in-memory data"
            " with dask.array.from_array(X, chunks=(rows_per_block, -1)), or call the"
            " estimator directly."
        )
    if X.ndim != 2:
        raise ValueError(
            f"{owner}: X must be a 2-D dask array (n_samples, n_features); got shape"
            f" {X.shape}."
        )
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"{owner}: X must be chunked along rows only, with one chunk spanning all"
            f" {X.shape[1]} columns; got {len(X.chunks[1])} column chunks {X.chunks[1]}."
            " Rechunk it with X.rechunk({1: -1})."
        )


def as_dask_y(owner: str, X: Any, y: Any, da) -> Any:
    """``y`` as a 1-D dask array whose row chunks are those of ``X``."""
    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.ndim != 1 or any(math.isnan(c) for c in X.chunks[0]) or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"{owner}: y must be a 1-D dask array (or a 1-D NumPy array) with one label"
                f" per row of X; got {type(y).__name__} of shape {y.shape} for X of shape"
                f" {X.shape}."
            )
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim == 2 and y.shape[1] == 1 and len(y.chunks[1]) == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{owner}: y must be a 1-D array of labels; got shape {y.shape}.")
    x_rows, y_rows = X.chunks[0], y.chunks[0]
    known = not any(math.isnan(c) for c in x_rows + y_rows)
    if (known and x_rows != y_rows) or len(x_rows) != len(y_rows):
        raise ValueError(
            f"{owner}: y must have the same row chunks as X; got X chunks {_short(x_rows)} and"
            f" y chunks {_short(y_rows)}. Rechunk y with y.rechunk(X.chunks[0]) (or build both"
            " from the same source; with unknown chunk sizes call compute_chunk_sizes())."
        )
    return y


def _is_paths(X: Any) -> bool:
    return (isinstance(X, (list, tuple)) and len(X) > 0
            and all(isinstance(p, (str, os.PathLike)) for p in X))


def _delayed_shards(X: Any, y: Any, tag: str) -> tuple[list, bool]:
    """One delayed shard per block/partition/file, and whether they are svmlight files."""
    import dask
    import dask.array as da

    key = f"halfspaces-shard-{tag}"
    if _is_paths(X):
        if y is not None:
            raise ValueError(f"{OWNER}: svmlight files hold their labels; pass y=None with a"
                             f" list of paths, got y of type {type(y).__name__}.")
        task = dask.delayed(read_svmlight_shard, pure=True)
        return [task(os.fspath(p), j, dask_key_name=(key, j)) for j, p in enumerate(X)], True
    if isinstance(X, da.Array):
        check_dask_X(OWNER, X, da)
        y = as_dask_y(OWNER, X, y, da)
        xs, ys = X.to_delayed().ravel(), y.to_delayed().ravel()
        task = dask.delayed(prepare_block, pure=True)
        return [task(xb, yb, j, dask_key_name=(key, j))
                for j, (xb, yb) in enumerate(zip(xs, ys, strict=True))], False
    if is_dask_frame(X):
        if is_dask_labels(y):  # dask-ml's convention: the labels as a Series (or array)
            parts = y.to_delayed()
            parts = parts.ravel() if isinstance(parts, np.ndarray) else parts
            if len(parts) != X.npartitions:
                raise ValueError(f"{OWNER}: y has {len(parts)} partitions (or blocks) but X"
                                 f" has {X.npartitions}; build both from the same source, or"
                                 " give y as the name of a label column of X.")
            task = dask.delayed(prepare_frame_labels, pure=True)
            return [task(part, labels, j, dask_key_name=(key, j))
                    for j, (part, labels) in enumerate(zip(X.to_delayed(), parts,
                                                           strict=True))], False
        if not isinstance(y, str) or y not in X.columns:
            raise ValueError(f"{OWNER}: with a Dask DataFrame, y must name its label column"
                             f" (one of {list(X.columns)[:8]}) or be a Dask Series with X's"
                             f" partitions; got {type(y).__name__} {y!r:.80}.")
        task = dask.delayed(prepare_frame, pure=True)
        return [task(part, y, j, dask_key_name=(key, j))
                for j, part in enumerate(X.to_delayed())], False
    raise TypeError(
        f"{OWNER}: X must be a dask array (with y chunked like it), a Dask DataFrame (with y"
        " the name of its label column) or a list of svmlight file paths (with y=None); got"
        f" {type(X).__name__}. Wrap in-memory data with dask.array.from_array(X, chunks=("
        "rows_per_block, -1))."
    )


def is_dask_labels(y: Any) -> bool:
    """``y`` is a Dask Series or a 1-D dask array."""
    try:
        import dask.dataframe as dd
    except ImportError:
        dd = None
    if dd is not None and isinstance(y, dd.Series):
        return True
    import dask.array as da

    return isinstance(y, da.Array)


def is_dask_frame(X: Any) -> bool:
    try:
        import dask.dataframe as dd
    except ImportError:  # dask installed without its dataframe extra
        return False
    return isinstance(X, dd.DataFrame)


def load_shards(client, X: Any, y: Any, tag: str, retries: int) -> Shards:
    """Compute the shards on the workers (where their source is) and describe them."""
    delayed, svmlight = _delayed_shards(X, y, tag)
    futures = client.compute(delayed, retries=retries)
    infos = client.gather(client.map(describe, futures, key=[
        (f"halfspaces-describe-{tag}", j) for j in range(len(futures))], retries=retries))
    if svmlight:
        # "auto" over all files at once: 1-based unless some file uses index 0, as if the
        # files were one file; every shard gets the largest index + 1 columns.
        has_data = [s for s in infos if s.nnz]
        shift = int(bool(has_data) and min(s.min_index for s in has_data) > 0)
        d = max((s.max_index for s in has_data), default=-1) - shift + 1
        futures = client.map(reindex_shard, futures, shift=shift, n_features=d,
                             key=[(f"halfspaces-shard-{tag}-cols", j)
                                  for j in range(len(futures))], retries=retries)
        for s in infos:
            s.n_features = d
    kept = [j for j, s in enumerate(infos) if s.n_rows > 0]  # e.g. a filtered-out block
    if not kept:
        raise ValueError(f"{OWNER}: the training data has no rows ({len(infos)} empty"
                         " blocks).")
    futures, infos = [futures[j] for j in kept], [infos[j] for j in kept]
    return Shards(futures, infos, infos[0].n_features, any(s.sparse for s in infos))
