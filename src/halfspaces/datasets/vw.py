"""Read the Vowpal Wabbit text format into CSR matrices.

One example per line::

    <label> [<importance> [<base>]] ['<tag>] |<namespace>[:<weight>] <feature>[:<value>] ... |...

- ``label`` is kept as a float, whatever its coding (-1/+1 or 0/1); ``importance`` is the
  example's weight (default 1; a finite number >= 0, a negative one is an error; returned
  with ``return_weights=True``); ``base`` and the tag are read and ignored. As in VW, the
  tag is a token that starts with ``'`` or, after the label, touches the first ``|``
  (``1 1.0 zebra|f a``).
- Each ``|`` opens a namespace: its name follows the bar with no space (``|f``); a bar
  followed by a blank opens the default namespace ``""``. ``:weight`` after the name scales
  every value of that namespace. A feature without ``:value`` has value 1.

Feature names become column indices in one of two ways:

``hash_features=True`` (default)
    column = ``murmurhash3_32(namespace + "^" + name, seed, positive=True) % n_features``
    (scikit-learn's MurmurHash3, 32-bit; not VW's own hashing, so models cannot be swapped
    with VW's). Colliding features are summed, as in scikit-learn's ``FeatureHasher``.
``hash_features=False``
    names must be integers, used as indices directly (the namespace is ignored), with the
    same ``zero_based`` rule as :func:`~halfspaces.datasets.load_svmlight`: then a VW file and
    its svmlight conversion load to the same matrix. Repeated indices in a line are summed.

The reader is compiled (:mod:`halfspaces.datasets._vw_lines`) and threaded as the svmlight
reader, with its correctly rounded numbers; the first malformed line raises
:class:`~halfspaces.datasets.DataFormatError` naming file, line and column. A line with
non-ASCII bytes is parsed by Python, with the same result.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from ._io import DataFormatError, check_n_threads, require_regular_file, weights_size_if_too_large
from ._vw_blocks import BLOCK_BYTES, Block, options, parsed_blocks
from ._vw_interactions import Collisions, check_interactions, interact

__all__ = ["load_vw", "iter_vw", "hash_collisions"]


class _Extent:
    """The smallest and largest index of the rows seen, and the lines they are first on."""

    def __init__(self):
        self.lo, self.hi, self.lo_line, self.hi_line = None, -1, None, None

    def add(self, block: Block, first_line: int) -> None:
        if not block.indices.size:
            return
        for k, better in ((int(np.argmin(block.indices)), self._lower),
                          (int(np.argmax(block.indices)), self._higher)):
            row = int(np.searchsorted(block.indptr, k, side="right")) - 1
            better(int(block.indices[k]), first_line - 1 + int(block.lines[row]))

    def _lower(self, lo: int, line: int) -> None:
        if self.lo is None or lo < self.lo:
            self.lo, self.lo_line = lo, line

    def _higher(self, hi: int, line: int) -> None:
        if hi > self.hi:
            self.hi, self.hi_line = hi, line


def _check_common(n_features, hash_features, zero_based, dtype, seed=0):
    if not isinstance(hash_features, (bool, np.bool_)):
        raise ValueError(f"vw: 'hash_features' must be a bool; got {hash_features!r}.")
    if hash_features and (n_features is None or isinstance(n_features, bool)
                          or not isinstance(n_features, (int, np.integer)) or n_features < 1):
        raise ValueError(f"vw: 'n_features' must be an int >= 1 when hashing (the number of"
                         f" hash buckets); got {n_features!r}. Try 2**18.")
    if not (zero_based is True or zero_based is False or zero_based == "auto"):
        raise ValueError(f"vw: 'zero_based' must be True, False or 'auto'; got {zero_based!r}.")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < 2**32:
        raise ValueError(f"vw: 'seed' must be an int in [0, 2**32) (the hash's unsigned 32-bit"
                         f" seed); got {seed!r}.")
    dt = np.dtype(dtype)
    if dt not in (np.float64, np.float32):
        raise ValueError(f"vw: 'dtype' must be float64 or float32; got {dt}.")
    return dt


def _blocks(path, n_features, hash_features: bool, seed: int, n_threads=None,
            block_bytes: int = BLOCK_BYTES, tagged: bool = False
            ) -> Iterator[tuple[Block, int]]:
    """``(block, first line)`` of the file's parsed blocks (``tagged``: the full hashes,
    tagged with their namespaces); the caller raises their errors."""
    opts = options(n_features, hash_features, seed, tagged)
    return parsed_blocks(path, opts, check_n_threads("vw", n_threads), block_bytes)


def _check_interactions(interactions, hash_features: bool):
    """The interactions as :func:`~._vw_interactions.check_interactions` gives them (None
    for none); they pair hashed features."""
    if interactions is None:
        return None
    if not hash_features:
        raise ValueError("vw: 'interactions' pair hashed features: pass hash_features=True.")
    return check_interactions(interactions)


def _raise_error(block: Block, first_line: int) -> None:
    if block.error is not None:
        raise block.error.at_line(first_line - 1 + block.error.line)


def _build(blocks: list[Block], n_cols, dt, shift, specs=None):
    """``(X, y, sample_weight)`` of the blocks stacked: CSR in the rows' order of features
    (with their interactions ``specs``, the blocks then being tagged), then repeated (or
    colliding) features summed."""
    labels = np.concatenate([b.labels for b in blocks])
    weights = np.concatenate([b.weights for b in blocks])
    indptr = np.zeros(labels.size + 1, dtype=np.int64)
    np.cumsum(np.concatenate([np.diff(b.indptr) for b in blocks]), out=indptr[1:])
    indices = np.concatenate([b.indices for b in blocks])
    data = np.concatenate([b.data for b in blocks])
    if specs is not None:
        data, indices, indptr, _ = interact(data, indices, indptr, specs, n_cols)
    if shift:
        indices -= 1
    X = sp.csr_matrix((data, indices, indptr), shape=(labels.size, n_cols))
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
    interactions=None,
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
    interactions : list of str, optional
        VW's quadratic interactions (``-q``): each two characters, the first letters of two
        namespaces (``' '`` the default one, ``:`` any), e.g. ``["ab"]`` or ``["::"]``;
        each pair of features of the two namespaces becomes a feature, hashed as VW does
        (:mod:`halfspaces.datasets._vw_interactions`) into the ``n_features`` buckets.

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
    dt = _check_common(n_features, hash_features, zero_based, dtype, seed)
    specs = _check_interactions(interactions, hash_features)
    blocks, extent = [], _Extent()
    # columns fixed by the arguments: each block's rows are checked as they come, as
    # iter_vw does, so that the error reported is the first one in the file
    fixed = not hash_features and n_features is not None and zero_based != "auto"
    for block, first_line in _blocks(path, n_features, hash_features, seed,
                                     tagged=specs is not None):
        if fixed:
            _check_rows(path, block, first_line, int(n_features), zero_based is False)
        _raise_error(block, first_line)
        if block.n_rows:
            blocks.append(block)
            extent.add(block, first_line)
    if not blocks:
        raise DataFormatError(path, None, "no examples in the file (it is empty, or has only"
                              " blank lines)", reason="no_examples")
    shift, n_cols = _columns(extent, n_features, hash_features, zero_based, path)
    X, y, w = _build(blocks, n_cols, dt, shift, specs)
    return (X, y, w) if return_weights else (X, y)


def hash_collisions(path: str | os.PathLike, n_features: int = 2**18, *, seed: int = 0,
                    interactions=None) -> dict:
    """How the features of a VW file share hash buckets, as :func:`load_vw` hashes them.

    Two features are distinct when their names (``namespace^name``; for an interaction, the
    pair) have different 32-bit hashes (64-bit for an interaction). Returns
    ``distinct_features``, ``buckets`` (``n_features``), ``buckets_used``, ``collided``
    (the distinct features that share their bucket with another) and ``rate`` (collided /
    distinct). The file is read once more (parsed, not stored).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.vw"
    >>> _ = path.write_text("1 |f a b c\\n-1 |f a d\\n")
    >>> hash_collisions(path, n_features=2**18)["distinct_features"]
    4
    """
    _check_common(n_features, True, "auto", np.float64, seed)
    specs = check_interactions(() if interactions is None else interactions)
    seen = Collisions(int(n_features))
    for block, first_line in _blocks(path, n_features, True, seed, tagged=True):
        _raise_error(block, first_line)
        seen.add(interact(block.data, block.indices, block.indptr, specs, int(n_features))[3])
    return seen.result()


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
    interactions=None,
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
    from .svmlight import _iter_chunks

    dt = _check_common(n_features, hash_features, zero_based, dtype, seed)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) \
            or chunk_rows < 1:
        raise ValueError(f"iter_vw: 'chunk_rows' must be an int >= 1; got {chunk_rows!r}.")
    specs = _check_interactions(interactions, hash_features)
    shift, n_cols = _stream_columns(path, "iter_vw", n_features, hash_features, seed,
                                    zero_based)
    blocks = _vw_blocks(path, n_cols, hash_features, seed, shift, dt, True, specs=specs)
    return _iter_chunks(blocks, chunk_rows, return_weights)


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
    for block, first_line in _blocks(path, n_features, False, seed):
        _raise_error(block, first_line)
        extent.add(block, first_line)
    return _columns(extent, n_features, False, zero_based, path)


def _check_rows(path, block: Block, first_line: int, n_cols: int, shift: bool) -> None:
    """The integer-named rows of a stream whose columns are fixed: refuse, at the first row
    that has one, an index 0 in a 1-based file and an index beyond ``n_cols``."""
    indptr, indices = block.indptr, block.indices
    rows = np.flatnonzero(np.diff(indptr))
    if not rows.size:
        return
    lo = np.minimum.reduceat(indices, indptr[rows])
    hi = np.maximum.reduceat(indices, indptr[rows])
    bad = ((lo == 0) & shift) | (hi - int(shift) >= n_cols)
    if not bad.any():
        return
    k = int(np.argmax(bad))
    lineno = first_line - 1 + int(block.lines[rows[k]])
    if shift and lo[k] == 0:
        raise DataFormatError(path, lineno, "feature index 0 in a file read with 1-based"
                              " indices", hint="pass zero_based=True", reason="zero_index")
    basis = f"{'1' if shift else '0'}-based indices go up to {n_cols - 1 + shift}"
    raise DataFormatError(path, lineno, f"feature index {int(hi[k])} is beyond the {n_cols}"
                          f" features ({basis})", hint="pass a larger n_features",
                          reason="n_features")


def _vw_blocks(path, n_cols, hash_features, seed, shift, dt, return_weights,
               block_bytes: int = BLOCK_BYTES, n_threads: int | None = None, specs=None):
    """``(X, y[, sample_weight])`` of each block of lines (blocks without examples are
    skipped), with the interactions ``specs``."""
    for block, first_line in _blocks(path, n_cols, hash_features, seed, n_threads,
                                     block_bytes, tagged=specs is not None):
        if not hash_features:
            _check_rows(path, block, first_line, n_cols, shift)
        if block.n_rows:
            X, y, w = _build([block], n_cols, dt, shift, specs)
            yield (X, y, w) if return_weights else (X, y)
        _raise_error(block, first_line)
