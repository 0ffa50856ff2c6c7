"""A small svmlight file read with the standard library and NumPy: no numba to import.

The compiled reader (:mod:`halfspaces.datasets.svmlight`) needs numba, whose import costs
more than reading a file of a few thousand lines; ``halfspaces predict`` reads such a file
here. Only plain, well-formed lines are taken (``label index:value ...``, decimal numbers,
spaces and tabs, ``#`` comments, ``\\r\\n`` line ends): every value is Python's ``float``,
correctly rounded as the compiled reader's numbers are, so the matrix is the compiled
reader's, bit for bit. Anything else (a ``qid:``, a malformed token, an index out of order
or out of range, inf or nan, no example, a compressed file, a file above
:data:`SMALL_BYTES`) returns None: the caller then reads the file with the compiled reader,
which says what is wrong, where (file, line, column). There is one set of error messages.
"""

from __future__ import annotations

import os
import re
import stat

import numpy as np
import scipy.sparse as sp

from ._io import compression_of

#: Above this size ``predict`` reads with the compiled, threaded reader. The imports that
#: the small reader saves pay for parsing some 18 MB with it (benchmarks/bench_startup.py);
#: a few MB keep its Python lists small.
SMALL_BYTES = 4 << 20

_NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_LINE = re.compile(rf"[ \t]*{_NUMBER}(?:[ \t]+[0-9]{{1,9}}:{_NUMBER})*[ \t]*")
# An index of up to 9 digits, so (its weight vector of index + 1 floats aside) no index
# checks beyond the compiled reader's are needed; larger ones go to the compiled reader.
_MAX_COLUMNS = 1 << 26


def read_small_svmlight(path, *, zero_based: bool, n_features: int | None = None):
    """``(X, y)`` of the svmlight file ``path`` as ``load_svmlight(path, n_features,
    zero_based=zero_based)`` returns them, or None when this reader does not take the file
    (see the module docstring)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or compression_of(path) is not None \
                or os.path.getsize(path) > SMALL_BYTES:
            return None
        with open(path, "rb") as f:
            text = f.read().decode("ascii")
    except (OSError, TypeError, ValueError):  # the compiled reader names the problem
        return None
    labels, pairs, counts = [], [], []
    for line in text.split("\n"):
        line = line.partition("#")[0]
        line = line.removesuffix("\r")
        if not line.strip(" \t"):
            continue
        if _LINE.fullmatch(line) is None:
            return None
        label, *features = line.split()
        labels.append(label)
        pairs.extend(features)
        counts.append(len(features))
    if not labels:
        return None
    numbers = " ".join(pairs).replace(":", " ").split()  # index, value, index, value, ...
    indices, values = numbers[0::2], numbers[1::2]
    y = np.array(list(map(float, labels)), dtype=np.float64)
    data = np.array(list(map(float, values)), dtype=np.float64)
    indices = np.array(list(map(int, indices)), dtype=np.int64)
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return _matrix(data, indices, indptr, y, zero_based, n_features)


def _matrix(data, indices, indptr, y, zero_based: bool, n_features: int | None):
    """The CSR matrix and labels, or None for what the compiled reader refuses or checks."""
    if not (np.isfinite(data).all() and np.isfinite(y).all()):
        return None
    row_start = np.zeros(indices.size, dtype=bool)
    row_start[indptr[:-1][np.diff(indptr) > 0]] = True
    if np.any((np.diff(indices) <= 0) & ~row_start[1:]):  # strictly increasing in a row
        return None
    if not zero_based:
        if np.any(indices == 0):
            return None
        indices = indices - 1
    n_cols = n_features if n_features is not None else \
        int(indices.max()) + 1 if indices.size else None
    if n_cols is None or not 0 < n_cols <= _MAX_COLUMNS \
            or (indices.size and indices.max() >= n_cols):
        return None
    index_dtype = np.int32 if max(n_cols, indices.size) < 2**31 else np.int64
    X = sp.csr_matrix((data, indices.astype(index_dtype), indptr.astype(index_dtype)),
                      shape=(y.size, n_cols))
    return X, y
