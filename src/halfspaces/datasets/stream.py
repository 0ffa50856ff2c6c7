"""Stream a data file as CSR blocks, parsed ahead in threads, in bounded memory.

:func:`iter_blocks` yields ``(X, y)`` blocks in file order while background threads read (and
decompress) the next blocks of text and parse them: memory holds a few blocks, whatever the
file's size. svmlight text is parsed by the compiled kernel of
:mod:`~halfspaces.datasets.svmlight` (which releases the GIL, so blocks are parsed in
parallel); VW text by the Python reader of :mod:`~halfspaces.datasets.vw` (which overlaps
reading only).

A pipe, a FIFO or ``/dev/stdin`` is read once, from start to end: it can be streamed when
nothing has to be known before the first block (``n_features`` given, with an explicit
``zero_based``, or VW with hashing). A second pass (finding ``n_features``, a second epoch)
needs a regular file, or the binary cache of :mod:`~halfspaces.datasets.cache`, which is
written by one pass over the text and read by every later one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from ._io import check_n_threads, compression_of

__all__ = ["iter_blocks", "format_of"]

FORMATS = ("svmlight", "vw")
BLOCK_BYTES = 8 << 20


def format_of(path, format: str | None = None) -> str:
    """``format`` checked, or guessed from the file name: ``.vw`` (before a compression
    extension) is Vowpal Wabbit text, anything else svmlight."""
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"'format' must be one of {', '.join(map(repr, FORMATS))} or None"
                             f" (guessed from the file name); got {format!r}.")
        return format
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else \
        getattr(path, "name", "")
    name = str(name)
    if compression_of(name):
        name = os.path.splitext(name)[0]
    return "vw" if name.lower().endswith(".vw") else "svmlight"


def _check_block_bytes(block_bytes) -> int:
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, (int, np.integer)) \
            or block_bytes < 1:
        raise ValueError(f"iter_blocks: 'block_bytes' must be an int >= 1; got"
                         f" {block_bytes!r}. Try 8 << 20 (8 MiB).")
    return int(block_bytes)


def iter_blocks(
    path: str | os.PathLike,
    format: str | None = None,
    *,
    block_bytes: int = BLOCK_BYTES,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    dtype=np.float64,
    n_threads: int | None = None,
    query_id: bool = False,
    hash_features: bool = True,
    seed: int = 0,
    return_weights: bool = False,
) -> Iterator[tuple]:
    """Yield the examples of a file as CSR blocks ``(X, y)``, in file order, parsed ahead.

    Each block holds the lines of about ``block_bytes`` bytes of text (whole lines; blocks
    without an example are skipped). Stacked vertically, the blocks are exactly
    :func:`~halfspaces.datasets.load_svmlight` (or :func:`~halfspaces.datasets.load_vw`) of
    the file with the same arguments. Memory holds about ``n_threads + 3`` blocks of text and
    their matrices, whatever the file's size.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file; ``.gz``, ``.bz2`` and ``.xz`` are decompressed (in the reading thread).
    format : {"svmlight", "vw"} or None, default=None
        None guesses from the file name (``.vw``: Vowpal Wabbit; else svmlight).
    block_bytes : int, default=8 MiB
        Text per block.
    n_features : int or None, default=None
        Columns of every block. None: a first pass over the file finds them (svmlight; VW
        with ``hash_features=False``), so ``path`` must be a regular file. VW with hashing
        takes the number of buckets (None: 2**18).
    zero_based, dtype
        As in :func:`~halfspaces.datasets.load_svmlight`. With ``n_features`` given and
        ``zero_based="auto"``, the first block with a feature decides (a stream cannot look
        ahead): pass ``zero_based`` explicitly to read a pipe.
    n_threads : int or None, default=None
        Threads parsing blocks; None: one per available core. The blocks do not depend on
        it.
    query_id : bool, default=False
        svmlight: yield ``(X, y, qid)``.
    hash_features, seed, return_weights
        VW: as in :func:`~halfspaces.datasets.load_vw`; ``return_weights`` yields
        ``(X, y, sample_weight)``.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_block, n_features)
    y : ndarray of float64, shape (n_block,)

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("".join(f"{(-1) ** i} {i % 3 + 1}:0.5\\n" for i in range(6)))
    >>> [(X.shape, y.tolist()) for X, y in iter_blocks(path, block_bytes=24)]
    [((3, 3), [1.0, -1.0, 1.0]), ((3, 3), [-1.0, 1.0, -1.0])]
    """
    fmt = format_of(path, format)
    block_bytes = _check_block_bytes(block_bytes)
    n_threads = check_n_threads("iter_blocks", n_threads)
    if fmt == "svmlight":
        from . import svmlight

        svmlight._check_zero_based(zero_based)
        dt = svmlight._check_dtype(dtype)
        n_cols, zero_based = svmlight._resolve_columns(
            path, "iter_blocks", svmlight._check_n_features(n_features), zero_based,
            block_bytes, n_threads)
        blocks = svmlight._stream_blocks(path, n_cols, dt, zero_based, query_id,
                                         block_bytes, n_threads)
        return (block if query_id else block[:2] for block in blocks)
    from . import vw

    if n_features is None and hash_features:
        n_features = 2**18
    dt = vw._check_common(n_features, hash_features, zero_based, dtype)
    shift, n_cols = vw._stream_columns(path, "iter_blocks", n_features, hash_features, seed,
                                       zero_based)
    return vw._vw_blocks(path, n_cols, hash_features, seed, shift, dt, return_weights,
                         block_bytes, n_threads)
