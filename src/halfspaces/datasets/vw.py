"""Read the Vowpal Wabbit text format into CSR matrices.

One example per line::

    <label> [<importance> [<base>]] ['<tag>] |<namespace>[:<weight>] <feature>[:<value>] ... |...

- ``label`` is kept as a float, whatever its coding (-1/+1 or 0/1); ``importance`` is the
  example's weight (default 1; returned with ``return_weights=True``); ``base`` and the
  tag are read and ignored.
- Each ``|`` opens a namespace: its name follows the bar with no space (``|f``); a bar
  followed by a blank opens the default namespace ``""``. ``:weight`` after the name scales
  every value of that namespace.
- A feature without ``:value`` has value 1.

Feature names become column indices in one of two ways:

``hash_features=True`` (default)
    column = ``murmurhash3_32(namespace + "^" + name, seed, positive=True) % n_features``
    (scikit-learn's MurmurHash3, 32-bit). This is *not* Vowpal Wabbit's own hashing, so the
    columns differ from VW's internal indices; models trained here cannot be swapped with
    VW's. Colliding features are summed, as in scikit-learn's ``FeatureHasher``.
``hash_features=False``
    names must be integers, used as indices directly (the namespace is ignored), with the
    same ``zero_based`` rule as :func:`~halfspaces.datasets.load_svmlight`: then a VW file and
    its svmlight conversion load to the same matrix. Repeated indices in a line are summed.

The reader is line-by-line Python (string splits and a cache of hashed names), roughly
1 MB/s-10 MB/s, on blocks of lines read (and decompressed) by a background thread; convert
large VW files to svmlight once (``dump_svmlight``) for the compiled reader. Malformed lines
raise :class:`~halfspaces.datasets.DataFormatError` naming the file and line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32

from ._io import (
    DataFormatError,
    check_n_threads,
    map_in_order,
    read_blocks,
    require_regular_file,
    weights_size_if_too_large,
)

__all__ = ["load_vw", "iter_vw"]


_INT64_MAX = 2**63 - 1


class _Reader:
    """Turns VW lines into (indices, values) rows; keeps the hash cache between chunks."""

    def __init__(self, path, n_features, hash_features, seed):
        self.path = path
        self.n_features = n_features
        self.hash_features = hash_features
        self.seed = seed
        self.cache: dict[str, int] = {}

    def _number(self, text: str, lineno: int, what: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise DataFormatError(self.path, lineno, f"expected {what} (a number), got"
                                  f" {text!r}") from None
        if math.isnan(value) or "_" in text:
            raise DataFormatError(self.path, lineno, f"expected {what} (a number), got"
                                  f" {text!r}")
        return value

    def _column(self, namespace: str, name: str, lineno: int) -> int:
        if self.hash_features:
            key = namespace + "^" + name
            col = self.cache.get(key)
            if col is None:
                col = murmurhash3_32(key, seed=self.seed, positive=True) % self.n_features
                self.cache[key] = col
            return col
        if not name.isdigit() or not name.isascii():
            raise DataFormatError(self.path, lineno, f"feature name {name!r} is not a"
                                  " non-negative integer; with hash_features=False names are"
                                  " column indices. Use hash_features=True for named features")
        index = int(name)
        if index > _INT64_MAX:
            raise DataFormatError(self.path, lineno, f"feature index {name!r} does not fit"
                                  " in a 64-bit integer (at most 2**63 - 1); is it a typo?")
        return index

    def parse(self, line: str, lineno: int):
        """(label, importance, columns, values) of one line, or None for a blank line."""
        if not line.strip():
            return None
        bar = line.find("|")
        if bar < 0:
            raise DataFormatError(self.path, lineno, "expected '|namespace features' after"
                                  f" the label, got {line.strip()[:40]!r}")
        head = [t for t in line[:bar].split() if not t.startswith("'")]
        if not head:
            raise DataFormatError(self.path, lineno, "missing label before '|'; every line"
                                  " needs a label such as 1 or -1")
        if len(head) > 3:
            raise DataFormatError(self.path, lineno, f"expected 'label [importance [base]]"
                                  f" ['tag]' before '|', got {line[:bar].strip()[:40]!r}")
        label = self._number(head[0], lineno, "a label")
        importance = self._number(head[1], lineno, "an importance weight") \
            if len(head) > 1 else 1.0
        if len(head) > 2:
            self._number(head[2], lineno, "a base prediction")
        cols: list[int] = []
        vals: list[float] = []
        for segment in line[bar + 1 :].split("|"):
            tokens = segment.split()
            scale = 1.0
            namespace = ""
            if segment and not segment[0].isspace() and tokens:
                namespace, _, weight = tokens[0].partition(":")
                if weight:
                    scale = self._number(weight, lineno, f"a weight of namespace {namespace!r}")
                tokens = tokens[1:]
            for tok in tokens:
                name, colon, value = tok.partition(":")
                if not name:
                    raise DataFormatError(self.path, lineno, f"expected 'name[:value]', got"
                                          f" {tok!r}")
                v = self._number(value, lineno, f"a value in {tok!r}") if colon else 1.0
                cols.append(self._column(namespace, name, lineno))
                vals.append(v * scale)
        return label, importance, cols, vals


_BLOCK_BYTES = 1 << 20  # text per block parsed by a worker


def _parse_lines(reader: _Reader, block: tuple[np.ndarray, int]):
    """``(rows, n_lines, error)`` of a block of whole lines (a worker's job): rows are
    ``(line, row)`` with lines counted from 1 in the block, and a DataFormatError is
    returned, not raised, so that the consumer can number its line in the file."""
    buf, end = block
    n_lines = int(np.count_nonzero(buf[:end] == 10))
    try:
        text = bytes(buf[:end]).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = bytes(buf[: exc.start]).count(b"\n") + 1
        return [], n_lines, DataFormatError(reader.path, line, f"not UTF-8 text ({exc.reason})")
    rows = []
    try:
        for lineno, line in enumerate(text.split("\n")[:-1], start=1):
            row = reader.parse(line, lineno)
            if row is not None:
                rows.append((lineno, row))
    except DataFormatError as exc:
        return rows, n_lines, exc
    return rows, n_lines, None


def _row_blocks(reader: _Reader, path, n_threads: int | None = None,
                block_bytes: int = _BLOCK_BYTES) -> Iterator[list[tuple[int, tuple]]]:
    """The ``(line, row)`` of the examples of each block of the file, in order; blocks of
    lines are read and decoded by a background thread and parsed by workers (this parser is
    Python, so the workers take turns holding the GIL; reading and decompressing overlap
    them)."""
    n_threads = check_n_threads("vw", n_threads)
    first_line = 1
    for rows, n_lines, error in map_in_order(read_blocks(path, block_bytes),
                                             lambda block: _parse_lines(reader, block),
                                             n_threads, depth=n_threads + 1):
        yield [(first_line - 1 + lineno, row) for lineno, row in rows]
        if error is not None:
            raise error.at_line(first_line - 1 + error.line)
        first_line += n_lines


def _rows(reader: _Reader, path) -> Iterator[tuple[int, tuple]]:
    """``(line, row)`` of every example of the file, in order."""
    for rows in _row_blocks(reader, path):
        yield from rows


class _Extent:
    """The smallest and largest index of the rows seen, and the lines they are first on."""

    def __init__(self):
        self.lo, self.hi, self.lo_line, self.hi_line = None, -1, None, None

    def add(self, cols: list[int], lineno: int) -> None:
        if cols:
            lo, hi = min(cols), max(cols)
            if self.lo is None or lo < self.lo:
                self.lo, self.lo_line = lo, lineno
            if hi > self.hi:
                self.hi, self.hi_line = hi, lineno


def _check_common(n_features, hash_features, zero_based, dtype):
    if not isinstance(hash_features, (bool, np.bool_)):
        raise ValueError(f"vw: 'hash_features' must be a bool; got {hash_features!r}.")
    if hash_features and (n_features is None or isinstance(n_features, bool)
                          or not isinstance(n_features, (int, np.integer)) or n_features < 1):
        raise ValueError(f"vw: 'n_features' must be an int >= 1 when hashing (the number of"
                         f" hash buckets); got {n_features!r}. Try 2**18.")
    if not (zero_based is True or zero_based is False or zero_based == "auto"):
        raise ValueError(f"vw: 'zero_based' must be True, False or 'auto'; got {zero_based!r}.")
    dt = np.dtype(dtype)
    if dt not in (np.float64, np.float32):
        raise ValueError(f"vw: 'dtype' must be float64 or float32; got {dt}.")
    return dt


def _build(rows, n_cols, dt, shift):
    labels = np.array([r[0] for r in rows], dtype=np.float64)
    weights = np.array([r[1] for r in rows], dtype=np.float64)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r[2]) for r in rows], out=indptr[1:])
    indices = np.fromiter((c for r in rows for c in r[2]), dtype=np.int64, count=indptr[-1])
    data = np.fromiter((v for r in rows for v in r[3]), dtype=np.float64, count=indptr[-1])
    if shift:
        indices -= 1
    X = sp.csr_matrix((data, indices, indptr), shape=(len(rows), n_cols))
    X.sum_duplicates()  # sorts the indices and adds repeated (or colliding) features
    with np.errstate(over="ignore"):
        X = X.astype(dt, copy=False)
    return X, labels, weights


def load_vw(
    path: str | os.PathLike,
    n_features: int | None = 2**18,
    *,
    hash_features: bool = True,
    seed: int = 0,
    zero_based: bool | str = "auto",
    dtype=np.float64,
    return_weights: bool = False,
):
    """Load a Vowpal Wabbit text file as a CSR matrix and a label vector.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file (``.gz``, ``.bz2``, ``.xz`` by extension), UTF-8; a pipe or an open file
        is read as a stream.
    n_features : int or None, default=2**18
        Hash buckets when ``hash_features=True``; with ``hash_features=False`` the number of
        columns (None: the largest index + 1).
    hash_features : bool, default=True
        Hash ``namespace^name`` with MurmurHash3 (not VW's hash); False uses integer names
        as column indices.
    seed : int, default=0
        Seed of the hash.
    zero_based : bool or "auto", default="auto"
        With ``hash_features=False``: as in :func:`~halfspaces.datasets.load_svmlight`.
    dtype : float64 or float32, default=float64
    return_weights : bool, default=False
        Also return the importance weight of every example (1 when absent).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : ndarray of float64
    sample_weight : ndarray of float64, only with ``return_weights=True``

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.vw")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 2.0 'doc1 |words the:2 cat |meta n:0.5\\n-1 |words the dog\\n")
    >>> X, y, w = load_vw(path, n_features=2**10, return_weights=True)
    >>> X.shape, y.tolist(), w.tolist(), X.sum(axis=1).A1.tolist()
    ((2, 1024), [1.0, -1.0], [2.0, 1.0], [3.5, 2.0])
    """
    dt = _check_common(n_features, hash_features, zero_based, dtype)
    reader = _Reader(path, n_features, hash_features, seed)
    rows, extent = [], _Extent()
    # columns fixed by the arguments: check each row as it comes, as iter_vw does, so that
    # the error reported is the first one in the file
    fixed = not hash_features and n_features is not None and zero_based != "auto"
    for lineno, row in _rows(reader, path):
        if fixed and row[2]:
            _check_row(path, lineno, row[2], int(n_features), zero_based is False)
        rows.append(row)
        extent.add(row[2], lineno)
    if not rows:
        raise DataFormatError(path, None, "no examples in the file (it is empty, or has only"
                              " blank lines)", reason="no_examples")
    shift, n_cols = _columns(extent, n_features, hash_features, zero_based, path)
    X, y, w = _build(rows, n_cols, dt, shift)
    return (X, y, w) if return_weights else (X, y)


def _columns(extent: _Extent, n_features, hash_features, zero_based, path):
    """(shift by one?, number of columns) for rows parsed without hashing."""
    if hash_features:
        return False, int(n_features)
    lo, hi = extent.lo, extent.hi
    if zero_based is False and lo == 0:
        raise DataFormatError(path, extent.lo_line, "feature index 0 in a file read with"
                              " 1-based indices", hint="pass zero_based=True, or"
                              " zero_based='auto', for a file with 0-based indices",
                              reason="zero_index")
    shift = zero_based is False or (zero_based == "auto" and lo is not None and lo > 0)
    if lo is None:
        return shift, 1 if n_features is None else int(n_features)
    needed = hi - int(shift) + 1
    if n_features is None:
        size = weights_size_if_too_large(needed)
        if size is not None:
            raise DataFormatError(path, extent.hi_line, f"feature index {hi} makes {needed}"
                                  f" features, and a weight vector that long ({size} of"
                                  " float64) cannot be allocated", hint="check that index;"
                                  " hash the features of an index space this large"
                                  " (hash_features=True)")
        return shift, needed
    if n_features < needed:
        basis = f"{'1' if shift else '0'}-based indices go up to {n_features - 1 + shift}"
        raise DataFormatError(path, extent.hi_line, f"feature index {hi} is beyond the"
                              f" {n_features} features ({basis})", hint="pass a larger"
                              " n_features", reason="n_features")
    return shift, int(n_features)


def iter_vw(
    path: str | os.PathLike,
    chunk_rows: int = 10000,
    n_features: int | None = 2**18,
    *,
    hash_features: bool = True,
    seed: int = 0,
    zero_based: bool | str = "auto",
    dtype=np.float64,
    return_weights: bool = False,
) -> Iterator[tuple]:
    """Stream a Vowpal Wabbit file as ``(X, y[, sample_weight])`` chunks of ``chunk_rows``.

    The chunks stacked are exactly :func:`load_vw` with the same arguments. With hashing,
    the file is read once. With ``hash_features=False`` and ``n_features=None`` (or
    ``zero_based="auto"``) a first pass over the file finds the largest and smallest index,
    so ``path`` must then be a regular file, not a pipe or a stream.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.vw")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 |f a b\\n-1 |f c\\n1 |f a\\n")
    >>> [X.shape for X, y in iter_vw(path, chunk_rows=2, n_features=16)]
    [(2, 16), (1, 16)]
    """
    dt = _check_common(n_features, hash_features, zero_based, dtype)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) \
            or chunk_rows < 1:
        raise ValueError(f"iter_vw: 'chunk_rows' must be an int >= 1; got {chunk_rows!r}.")
    shift, n_cols = _stream_columns(path, "iter_vw", n_features, hash_features, seed,
                                    zero_based)
    return _vw_chunks(path, chunk_rows, n_cols, hash_features, seed, shift, dt,
                      return_weights)


def _stream_columns(path, caller: str, n_features, hash_features: bool, seed: int,
                    zero_based) -> tuple[bool, int]:
    """``(shift by one?, number of columns)`` of a stream: given, or found by a first pass
    over the file (``hash_features=False`` with ``n_features=None`` or ``"auto"``)."""
    if hash_features:
        return False, int(n_features)
    if n_features is not None and zero_based != "auto":
        return zero_based is False, int(n_features)
    require_regular_file(path, caller, "with hash_features=False a first pass over the file"
                         " finds the indexing and the number of columns; pass n_features="
                         " and zero_based=True or False, or save the stream to a file")
    extent = _Extent()
    scan = _Reader(path, n_features, False, seed)
    for lineno, row in _rows(scan, path):
        extent.add(row[2], lineno)
    return _columns(extent, n_features, False, zero_based, path)


def _check_row(path, lineno: int, cols: list[int], n_cols: int, shift: bool) -> None:
    """An integer-named row of a stream whose columns are fixed: refuse an index 0 in a
    1-based file and an index beyond ``n_cols``."""
    lo, hi = min(cols), max(cols)
    if shift and lo == 0:
        raise DataFormatError(path, lineno, "feature index 0 in a file read with 1-based"
                              " indices", hint="pass zero_based=True", reason="zero_index")
    if hi - int(shift) >= n_cols:
        basis = f"{'1' if shift else '0'}-based indices go up to {n_cols - 1 + shift}"
        raise DataFormatError(path, lineno, f"feature index {hi} is beyond the {n_cols}"
                              f" features ({basis})", hint="pass a larger n_features",
                              reason="n_features")


def _vw_blocks(path, n_cols, hash_features, seed, shift, dt, return_weights,
               block_bytes: int = _BLOCK_BYTES, n_threads: int | None = None):
    """``(X, y[, sample_weight])`` of each block of lines (blocks without examples are
    skipped)."""
    reader = _Reader(path, n_cols, hash_features, seed)
    for rows in _row_blocks(reader, path, n_threads, block_bytes):
        if not hash_features:
            for lineno, row in rows:
                if row[2]:
                    _check_row(path, lineno, row[2], n_cols, shift)
        if rows:
            X, y, w = _build([row for _, row in rows], n_cols, dt, shift)
            yield (X, y, w) if return_weights else (X, y)


def _vw_chunks(path, chunk_rows, n_cols, hash_features, seed, shift, dt, return_weights):
    reader = _Reader(path, n_cols, hash_features, seed)
    rows: list[tuple] = []
    for lineno, row in _rows(reader, path):
        if not hash_features and row[2]:
            _check_row(path, lineno, row[2], n_cols, shift)
        rows.append(row)
        if len(rows) == chunk_rows:
            X, y, w = _build(rows, n_cols, dt, shift)
            yield (X, y, w) if return_weights else (X, y)
            rows = []
    if rows:
        X, y, w = _build(rows, n_cols, dt, shift)
        yield (X, y, w) if return_weights else (X, y)
