"""The one compiled sweep that checks a CSR matrix before any kernel indexes with it.

Used by :func:`halfspaces._validation.check_csr` (which words the errors) and by the
one-example fast path of the online learners; kept apart so that importing the validation
helpers does not import numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Faults of a CSR matrix, as csr_fault reports them (the first one found, in row order).
OK, BAD_SHAPE, BAD_INDPTR, BAD_INDEX, NOT_FINITE = 0, 1, 2, 3, 4


@njit(cache=True)
def _csr_sweep(bits, mask, indices, indptr, n_features, finite):
    """One pass over CSR arrays: the first fault, and whether the matrix is canonical.

    ``bits`` is the data viewed as unsigned integers of its width, ``mask`` the exponent
    bits of that float type (all set: inf or nan). Needs ``indptr[0] >= 0`` and
    ``bits.shape == indices.shape`` (see ``csr_fault``). Returns ``(fault, row, p,
    canonical)``: ``fault`` is ``OK`` or the first of ``BAD_INDPTR`` (``indptr[row] <=
    indptr[row + 1] <= nnz`` fails), ``BAD_INDEX`` (``indices[p]`` of ``row`` is outside
    ``[0, n_features)``) and ``NOT_FINITE`` (``data[p]`` is inf or nan); ``canonical`` is
    whether the indices of each row seen are strictly increasing (sorted, no duplicates).
    With ``finite`` false the data is not read (no ``NOT_FINITE``): for a caller whose first
    pass proves the values finite (a score with an inf or nan term is not finite).

    A row is checked without a branch per entry and with unsigned positions (no
    wraparound test, as in the kernels), faster than a test per entry or scikit-learn's
    finite sum and SciPy's canonical check together. Only a faulty row is read twice.
    """
    nnz = indices.shape[0]
    d = np.uint64(n_features)
    canonical = True
    for i in range(indptr.shape[0] - 1):
        start, end = indptr[i], indptr[i + 1]
        if not start <= end <= nnz:
            return BAD_INDPTR, i, end, canonical
        bad = False
        increasing = True
        previous = -1
        for p in range(np.uint64(start), np.uint64(end)):
            j = indices[p]
            bad |= np.uint64(j) >= d  # a negative index wraps to a huge one
            increasing &= j > previous
            previous = j
            if finite:  # loop-invariant: compiled as two loops
                bad |= (bits[p] & mask) == mask
        canonical &= increasing
        if bad:  # find the first fault of the row
            for p in range(start, end):
                if not 0 <= indices[p] < n_features:
                    return BAD_INDEX, i, p, canonical
                if finite and (bits[p] & mask) == mask:
                    return NOT_FINITE, i, p, canonical
    return OK, -1, -1, canonical


def csr_fault(X, finite: bool = True) -> tuple[int, int, int, bool]:
    """``_csr_sweep``'s ``(fault, row, p, canonical)`` for a CSR matrix with float32 or
    float64 data, after the O(1) checks that make the sweep safe (``BAD_SHAPE`` when they
    fail); ``finite=False`` leaves out the scan of the values."""
    n, d = X.shape
    data, indices, indptr = X.data, X.indices, X.indptr
    if indptr.shape != (n + 1,) or data.shape != indices.shape or indptr[0] < 0:
        return BAD_SHAPE, -1, -1, False
    if data.dtype == np.float32:
        bits, mask = data.view(np.uint32), np.uint32(0x7F800000)
    elif data.dtype == np.float64:
        bits, mask = data.view(np.uint64), np.uint64(0x7FF0000000000000)
    else:  # callers convert first (validate_X, check_X)
        raise TypeError(f"csr_fault needs float32 or float64 data; got {data.dtype}.")
    return _csr_sweep(bits, mask, indices, indptr, d, finite)
