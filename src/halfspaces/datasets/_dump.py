"""Write the svmlight / libsvm text format, streamed: :func:`dump_svmlight`.

The rows are formatted a block at a time (about ``BLOCK_NNZ`` stored values) and each block is
written before the next is formatted, so the memory taken beyond ``X`` and ``y`` is that of one
block, whatever the size of the output. The file is replaced atomically
(:func:`halfspaces.datasets._io.atomic_write`): a failure part way, such as a NaN found in a
later block, leaves the previous file as it was.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ._io import atomic_write

__all__ = ["dump_svmlight"]

#: Stored values formatted per block (a few MB of text).
BLOCK_NNZ = 1 << 16


def _check_labels(y: ArrayLike, n_rows: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"dump_svmlight: y must be 1-D with one label per row of X"
                         f" ({n_rows}); got shape {y.shape}.")
    if not (np.issubdtype(y.dtype, np.number) or y.dtype == bool):
        raise ValueError(f"dump_svmlight: labels must be numbers (svmlight stores numeric"
                         f" labels); got dtype {y.dtype}. Encode them, e.g. y = np.where(y =="
                         " classes[1], 1, -1).")
    if np.issubdtype(y.dtype, np.floating) and not np.isfinite(y).all():
        raise ValueError(f"dump_svmlight: label {y[~np.isfinite(y)][0]} at row"
                         f" {int(np.flatnonzero(~np.isfinite(y))[0])} is not finite; the svmlight"
                         " readers refuse it. Give every row a finite label.")
    return y


def _blocks(X, block_nnz: int):
    """``(start, stop)`` row ranges of about ``block_nnz`` stored values (at least one row)."""
    n = X.shape[0]
    if sp.issparse(X):
        stops = np.searchsorted(X.indptr, np.arange(block_nnz, X.nnz + block_nnz, block_nnz),
                                side="right") - 1
    else:
        per_block = max(1, block_nnz // max(X.shape[1], 1))
        stops = np.arange(per_block, n + per_block, per_block)
    start = 0
    for stop in stops:
        stop = min(max(int(stop), start + 1), n)
        if stop > start:
            yield start, stop
            start = stop
    if start < n:
        yield start, n


def _canonical_rows(X, start: int, stop: int) -> sp.csr_matrix:
    """Rows ``start:stop`` as a new CSR matrix: duplicates summed, zeros dropped, sorted."""
    block = X[start:stop] if sp.issparse(X) else sp.csr_matrix(X[start:stop])
    block = sp.csr_matrix(block, copy=True)
    block.sum_duplicates()
    block.eliminate_zeros()
    block.sort_indices()
    if np.issubdtype(block.dtype, np.floating) and not np.isfinite(block.data).all():
        what = "NaN" if np.isnan(block.data).any() else "infinity"
        raise ValueError(f"dump_svmlight: X contains {what}, which the svmlight readers refuse"
                         " (load_svmlight needs finite values); impute or drop those values"
                         " first.")
    return block


def _lines(block: sp.csr_matrix, labels: list[str], qids, offset: int) -> str:
    """The text of the rows of ``block``, one line each (``qids``: None or one int each)."""
    cols = (block.indices.astype(np.int64) + offset).tolist()
    vals = block.data.astype(np.float64, copy=False).tolist()
    indptr = block.indptr.tolist()
    lines = []
    for i, label in enumerate(labels):
        a, b = indptr[i], indptr[i + 1]
        head = label if qids is None else f"{label} qid:{qids[i]}"
        feats = " ".join(f"{c}:{v!r}" for c, v in zip(cols[a:b], vals[a:b], strict=True))
        lines.append(f"{head} {feats}" if feats else head)
    return "\n".join(lines) + "\n"


def dump_svmlight(
    X: ArrayLike,
    y: ArrayLike,
    path: str | os.PathLike,
    *,
    zero_based: bool = False,
    query_id: ArrayLike | None = None,
    comment: str | None = None,
) -> None:
    """Write ``X``, ``y`` in svmlight format, atomically; compressed by extension.

    Values are written with Python's ``repr`` (the shortest string that reads back to the
    same float), so ``load_svmlight`` gives back exactly ``X`` (zeros are not stored) and
    ``y``. The file appears only when complete: it is written to a temporary file in the
    same directory and moved into place. The text is streamed a block of rows at a time,
    so the memory used beyond ``X`` is that of one block (a few MB), not of the output.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), numeric labels
    path : str or path-like (``.gz``, ``.bz2``, ``.xz`` compress)
    zero_based : bool, default=False
        Write 0-based indices; the default writes 1-based ones, as libsvm does.
    query_id : array-like of int, optional
        A ``qid:`` value per row.
    comment : str, optional
        Written as ``#`` lines at the top of the file.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from halfspaces.datasets import load_svmlight
    >>> path = os.path.join(tempfile.mkdtemp(), "out.svm")
    >>> dump_svmlight(np.array([[0.1, 0.0], [0.0, 2.0]]), np.array([1, -1]), path)
    >>> print(open(path).read(), end="")
    1 1:0.1
    -1 2:2.0
    >>> X, y = load_svmlight(path)
    >>> X.toarray(), y
    (array([[0.1, 0. ],
           [0. , 2. ]]), array([ 1., -1.]))
    """
    if sp.issparse(X):
        X = X.tocsr()  # no copy for CSR input: the blocks are copied one by one
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            X = sp.csr_matrix(X)
    y = _check_labels(y, X.shape[0])
    if query_id is not None:
        query_id = np.asarray(query_id)
        if query_id.shape != (X.shape[0],):
            raise ValueError(f"dump_svmlight: query_id must have one value per row"
                             f" ({X.shape[0]}); got shape {query_id.shape}.")
    integral_y = np.issubdtype(y.dtype, np.integer) or y.dtype == bool
    offset = 0 if zero_based else 1
    with atomic_write(path) as f:
        if comment:
            f.write("".join(f"# {line}\n" for line in comment.splitlines()).encode("ascii"))
        for start, stop in _blocks(X, BLOCK_NNZ):
            block = _canonical_rows(X, start, stop)
            labels = [str(int(v)) if integral_y else repr(float(v)) for v in y[start:stop]]
            qids = None if query_id is None else [int(q) for q in query_id[start:stop]]
            f.write(_lines(block, labels, qids, offset).encode("ascii"))
