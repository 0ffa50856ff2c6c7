"""Read and write the svmlight / libsvm text format, fast and streaming.

One example per line::

    <label> [qid:<int>] <index>:<value> <index>:<value> ...  [# comment]

A ``#`` starts a comment that runs to the end of the line; lines that are blank after the
comment is removed are skipped; a line with a label and no feature is an all-zero row.
Indices must be strictly increasing within a line (as scikit-learn requires).

The reader is a compiled (numba) scan over the file's raw bytes: one pass finds the tokens,
checks their syntax and converts the numbers (:mod:`halfspaces.datasets._numbers`: Clinger's
fast path, a truncated product of powers of five, then C's ``strtod``, all correctly
rounded, or Python's ``float`` when ``strtod`` is not usable). It produces exactly the
matrix of :func:`sklearn.datasets.load_svmlight_file` on every well-formed file, bit for bit.
The file is read in blocks of whole lines by a background thread (which also decompresses)
and the blocks are parsed by worker threads (the kernel releases the GIL); the result does
not depend on the number of threads, and neither do the errors (the first one in the file).

Differences from scikit-learn, all of them errors rather than different answers: NaN or
infinite values or labels (``inf``, or a number beyond the largest double such as ``1e999``)
are refused (no estimator accepts them), as are ``_`` digit separators, which
Python's ``float`` accepts; a malformed ``qid:`` is refused even when ``query_id=False``
(scikit-learn then ignores it); a ``qid`` must be on every line or on none when
``query_id=True``, and ``qid:-9223372036854775808`` (-2**63) is refused; a file with no
example is refused (scikit-learn returns a 0 x 1 matrix); an index whose weight vector
(``index + 1`` float64 values) cannot be allocated is refused, naming the memory it would
take. Every problem raises :class:`~halfspaces.datasets.DataFormatError` (a
ValueError) naming the file, line and column, e.g.
``a9a.bad:17:5: expected 'index:value', got 'abc'``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from ._dump import dump_svmlight  # the writer, streamed
from ._io import check_n_threads, require_regular_file
from ._svmlight_blocks import (
    _assemble,
    _beyond_error,
    _check_allocatable,
    _check_decided,
    _check_dtype,
    _check_n_features,
    _check_zero_based,
    _csr,
    _Lines,
    _load_block_bytes,
    _parsed_blocks,
    decide_columns,
    no_examples,
)

__all__ = ["load_svmlight", "iter_svmlight", "dump_svmlight"]


def load_svmlight(
    path: str | os.PathLike,
    n_features: int | None = None,
    *,
    dtype=np.float64,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    n_threads: int | None = None,
):
    """Load an svmlight / libsvm file as a CSR matrix and a label vector.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed by extension (an
        open file object, a pipe or ``/dev/stdin`` is read as a stream, to its end).
    n_features : int or None, default=None
        Number of columns; None takes the largest index + 1. Pass it to load a test file
        whose largest index is smaller than the training file's (a9a.t); an index beyond
        it is an error.
    dtype : float64 or float32, default=float64
        Type of the values (float32 values are the float64 ones rounded, as in sklearn).
    zero_based : bool or "auto", default="auto"
        Whether indices start at 0. "auto" (as scikit-learn): 0-based if any index is 0,
        else 1-based; 1-based indices are shifted down by one.
    query_id : bool, default=False
        Also return the ``qid:`` values (an int64 array, empty when the file has none).
    n_threads : int or None, default=None
        Threads that parse blocks of the file while it is read; None: one per available
        core. The result does not depend on it.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        int32 indices when they fit (as scipy chooses), else int64.
    y : ndarray of float64, shape (n_samples,)
    qid : ndarray of int64, only when ``query_id=True``

    Raises
    ------
    DataFormatError
        A ValueError with ``.path`` and ``.line``, for any malformed line, a value or label
        that is NaN or not finite, an index beyond ``n_features`` or beyond what a weight
        vector can be allocated for, and a file with no examples.

    Notes
    -----
    scikit-learn's ``load_svmlight_file`` reads ``inf`` (and ``1e999``, which overflows) as
    an infinite value; this reader refuses it, naming the file, line and column
    (``a.svm:2:4: the feature value in '2:inf' is not finite ...``). No learner here accepts
    a non-finite value, and the line of the file is a better place to report it than a row
    and column of ``X`` at ``fit``. With ``dtype=float32``, a finite float64 beyond the
    largest float32 rounds to infinity, as in scikit-learn.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:0.5 3:2 # a comment\\n-1\\n-1 2:25e-2\\n")
    >>> X, y = load_svmlight(path)
    >>> X.toarray()
    array([[0.5 , 0.  , 2.  ],
           [0.  , 0.  , 0.  ],
           [0.  , 0.25, 0.  ]])
    >>> y
    array([ 1., -1., -1.])
    """
    X, y, qid, _ = _load(path, n_features, dtype, zero_based, query_id, n_threads)
    return (X, y, qid) if query_id else (X, y)


def _load(path, n_features, dtype, zero_based, query_id, n_threads=None):
    """:func:`load_svmlight`'s ``(X, y, qid or None, zero_based)``, with ``zero_based``
    resolved to True or False (what "auto" decided)."""
    _check_zero_based(zero_based)
    dt = _check_dtype(dtype)
    n_cols = _check_n_features(n_features)
    n_threads = check_n_threads("load_svmlight", n_threads)
    lines = _Lines(path, zero_based=zero_based, n_cols=n_cols, query_id=query_id)
    blocks = []
    for block in _parsed_blocks(path, _load_block_bytes(path, n_threads), n_threads,
                                zero_based=zero_based, n_cols=n_cols):
        lines.take(block)
        if block.n_rows:
            blocks.append(block)
    if not blocks:
        raise no_examples(path)
    nnz = sum(b.indices.size for b in blocks)
    n_cols, zero_based = decide_columns(path, lines, nnz, n_cols, zero_based)
    data, indices, indptr, labels, qids = _assemble(blocks, n_cols, dt, int(not zero_based))
    X = _csr(data, indices, indptr, (labels.size, n_cols))
    qid = None
    if query_id:
        if lines.qid_mismatch is not None:
            raise lines.qid_error()
        qid = qids if lines.first_has_qid else np.empty(0, dtype=np.int64)
    return X, labels, qid, zero_based


def _scan(path, block_size: int, zero_based, n_threads: int, query_id: bool = False):
    """One pass over the file checking every line (the qid rule too with ``query_id``):
    (nnz, min index, max index, where the max is), ``where`` being the (buf, pos,
    first_line) of the largest index's token."""
    lines = _Lines(path, zero_based=zero_based, n_cols=None, query_id=query_id)
    nnz = 0
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=None):
        lines.take(block)
        nnz += block.indices.size
    return nnz, lines.min_idx, lines.max_idx, lines.where


def _survey(path, n_cols, zero_based, block_size: int, n_threads: int):
    """One pass over the file, checking every line as :func:`load_svmlight` does, without
    holding it: ``(n_cols, zero_based, classes, n_rows)`` with the columns and the indexing
    decided by the whole file, and the distinct labels."""
    lines = _Lines(path, zero_based=zero_based, n_cols=n_cols)
    nnz = n_rows = 0
    labels = []
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=n_cols):
        lines.take(block)
        nnz += block.indices.size
        n_rows += block.n_rows
        labels.append(np.unique(block.labels))
    if not n_rows:
        raise no_examples(path)
    n_cols, zero_based = decide_columns(path, lines, nnz, n_cols, zero_based)
    return n_cols, zero_based, np.unique(np.concatenate(labels)), n_rows


def _resolve_columns(path, caller: str, n_cols, zero_based, block_size: int,
                     n_threads: int, query_id: bool = False):
    """``(n_cols, zero_based)`` of a stream: given, or found by a first pass over the file
    (which then resolves "auto" exactly as :func:`load_svmlight`)."""
    if n_cols is not None:
        return n_cols, zero_based
    require_regular_file(path, caller, "'n_features' is required to read it (a first pass"
                         " over the file finds it); pass n_features= (and zero_based=True or"
                         " False), or save the stream to a file")
    nnz, lo, hi, where = _scan(path, block_size, zero_based, n_threads, query_id)
    if zero_based == "auto":
        zero_based = not (nnz > 0 and lo > 0)
    n_cols = hi + int(zero_based) if nnz else 1
    if nnz:
        _check_allocatable(n_cols, *where, path)
    return n_cols, zero_based


def _stream_blocks(path, n_cols: int, dt: np.dtype, zero_based, query_id: bool,
                   block_size: int, n_threads: int) -> Iterator[tuple]:
    """``(X, y, qid or None)`` of each block of the file in order (blocks without rows are
    skipped), parsed ahead in threads. ``zero_based="auto"`` is decided by the first block
    with a feature (a stream cannot look ahead)."""
    auto = zero_based == "auto"
    decided = None if auto else zero_based
    lines = _Lines(path, zero_based=zero_based, n_cols=n_cols, stream_auto=auto,
                   query_id=query_id)
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=n_cols):
        buf = block.buf
        if auto and decided is not None:
            _check_decided(block, decided, lines.first_line, path, n_cols)
        first_line = lines.take(block)
        if not block.n_rows:
            continue
        if decided is None and block.indices.size:
            decided = lines.zero_based = bool(block.min_idx == 0)
            if decided and block.max_idx >= n_cols:
                raise _beyond_error(buf, block.max_pos, first_line, path, n_cols, True)
        qid = None
        if query_id:
            if lines.qid_mismatch is not None:
                raise lines.qid_error()
            qid = block.qids if lines.first_has_qid else np.empty(0, dtype=np.int64)
        data, indices, indptr, labels, _ = _assemble([block], n_cols, dt, int(decided is False))
        yield _csr(data, indices, indptr, (labels.size, n_cols)), labels, qid


def _growing_blocks(path, zero_based: bool, block_size: int,
                    n_threads: int) -> Iterator[tuple]:
    """``(X, y)`` of each block of the file in order (blocks without rows skipped), checked
    as :func:`load_svmlight` checks them, without knowing the columns first: each ``X`` has
    the columns of the largest index up to its block (at least 1), so the last block's are
    the whole file's, ``load_svmlight(path, zero_based=zero_based)``'s. For a learner that
    widens its state as they come (``halfspaces train``'s one read)."""
    lines = _Lines(path, zero_based=zero_based, n_cols=None)
    shift, n_cols, rows = int(not zero_based), 1, 0
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=None):
        lines.take(block)
        if not block.n_rows:
            continue
        if block.indices.size and block.max_idx + 1 - shift > n_cols:
            n_cols = block.max_idx + 1 - shift
            _check_allocatable(n_cols, *lines.where, path)
        data, indices, indptr, labels, _ = _assemble([block], n_cols, np.dtype(np.float64),
                                                     shift)
        rows += labels.size
        yield _csr(data, indices, indptr, (labels.size, n_cols)), labels
    if not rows:
        raise no_examples(path)


def iter_svmlight(
    path: str | os.PathLike,
    chunk_rows: int = 10000,
    n_features: int | None = None,
    *,
    dtype=np.float64,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    block_size: int = 1 << 22,
) -> Iterator[tuple]:
    """Stream an svmlight file as ``(X_chunk, y_chunk)`` pairs of at most ``chunk_rows`` rows.

    The file is read in blocks of ``block_size`` bytes cut at line ends, and each block is
    parsed by the same compiled kernel as :func:`load_svmlight` (in worker threads, ahead of
    the consumer), so memory stays bounded by a few blocks plus a chunk whatever the file's
    size; the chunks stacked vertically are exactly ``load_svmlight(path, n_features, ...)``.
    Feed them to ``partial_fit``; :func:`halfspaces.datasets.iter_blocks` yields the blocks
    themselves (no re-chunking), for VW files too.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file (``.gz``, ``.bz2``, ``.xz`` by extension); a pipe, ``/dev/stdin`` or an
        open file object is read as a stream, once, so it needs ``n_features``.
    chunk_rows : int, default=10000
        Rows per chunk (the last chunk may be shorter).
    n_features : int or None, default=None
        Columns of every chunk. With None, a first pass over the whole file finds the largest
        index (and resolves ``zero_based="auto"`` exactly as :func:`load_svmlight`); pass it
        to read the file only once (required for a stream).
    dtype, zero_based, query_id
        As in :func:`load_svmlight`, with one difference: a stream cannot look ahead, so when
        ``n_features`` is given and ``zero_based="auto"``, the indexing is decided from the
        first block that has any feature (0-based if it holds an index 0, else 1-based), and
        an index 0 in a later block raises :class:`DataFormatError` asking for
        ``zero_based=True``. Pass ``zero_based`` explicitly to avoid this.
    block_size : int, default=4 MiB
        Bytes read at a time.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_chunk, n_features)
    y : ndarray of float64, shape (n_chunk,)
    qid : ndarray of int64, only when ``query_id=True``

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:1\\n-1 2:1\\n+1 1:2 2:2\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_svmlight(path, chunk_rows=2)]
    [((2, 2), [1.0, -1.0]), ((1, 2), [1.0])]
    """
    _check_zero_based(zero_based)
    dt = _check_dtype(dtype)
    for name, value in (("chunk_rows", chunk_rows), ("block_size", block_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"iter_svmlight: '{name}' must be an int >= 1; got {value!r}.")
    n_threads = check_n_threads("iter_svmlight", None)
    n_cols, zero_based = _resolve_columns(path, "iter_svmlight", _check_n_features(n_features),
                                          zero_based, block_size, n_threads, query_id)
    blocks = _stream_blocks(path, n_cols, dt, zero_based, query_id, block_size, n_threads)
    return _iter_chunks(blocks, chunk_rows, query_id)


def _iter_chunks(blocks, chunk_rows: int, query_id: bool):
    pending: list[tuple] = []  # (X, y, qid) pieces not yet yielded
    n_pending = 0
    for piece in blocks:
        pending.append(piece)
        n_pending += piece[1].size
        while n_pending >= chunk_rows:
            out, pending, n_pending = _take(pending, chunk_rows, n_pending)
            yield out if query_id else out[:2]
    if n_pending:
        out, pending, n_pending = _take(pending, n_pending, n_pending)
        yield out if query_id else out[:2]


def _take(pending, k, n_pending):
    """Remove the first ``k`` rows from the pending pieces; return them stacked."""
    taken_X, taken_y, taken_q, rest = [], [], [], []
    need = k
    for X, y, q in pending:
        if need == 0:
            rest.append((X, y, q))
            continue
        m = y.size
        if m <= need:
            taken_X.append(X)
            taken_y.append(y)
            taken_q.append(q)
            need -= m
        else:
            taken_X.append(X[:need])
            taken_y.append(y[:need])
            taken_q.append(None if q is None else q[:need])
            rest.append((X[need:], y[need:], None if q is None else q[need:]))
            need = 0
    X = taken_X[0] if len(taken_X) == 1 else sp.vstack(taken_X, format="csr")
    y = taken_y[0] if len(taken_y) == 1 else np.concatenate(taken_y)
    if taken_q[0] is None:
        q = None
    else:
        q = taken_q[0] if len(taken_q) == 1 else np.concatenate(taken_q)
    return (X, y, q), rest, n_pending - k
