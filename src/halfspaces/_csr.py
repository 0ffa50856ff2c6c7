"""The one compiled sweep that checks a CSR matrix before any kernel indexes with it.

Used by :func:`halfspaces._validation.check_csr` (which words the errors) and by the
one-example fast path of the online learners; kept apart so that importing the validation
helpers does not import numba.
"""

from __future__ import annotations

from numba import njit

# Faults of a CSR matrix, as csr_fault reports them (the first one found, in row order).
OK, BAD_SHAPE, BAD_INDPTR, BAD_INDEX, NOT_FINITE = 0, 1, 2, 3, 4


@njit(cache=True)
def _csr_sweep(data, indices, indptr, n_features):
    """One pass over CSR arrays: the first fault, and whether the matrix is canonical.

    Needs ``indptr[0] >= 0`` and ``data.shape == indices.shape`` (see ``csr_fault``).
    Returns ``(fault, row, p, canonical)``: ``fault`` is ``OK`` or the first of
    ``BAD_INDPTR`` (``indptr[row] <= indptr[row + 1] <= nnz`` fails),
    ``BAD_INDEX`` (``indices[p]`` of ``row`` is outside ``[0, n_features)``) and
    ``NOT_FINITE`` (``data[p]`` is inf or nan); ``canonical`` is whether the indices
    of each row seen are strictly increasing (sorted, no duplicates).
    """
    nnz = indices.shape[0]
    canonical = True
    for i in range(indptr.shape[0] - 1):
        start, end = indptr[i], indptr[i + 1]
        if not start <= end <= nnz:
            return BAD_INDPTR, i, end, canonical
        previous = -1
        for p in range(start, end):
            j = indices[p]
            if not 0 <= j < n_features:
                return BAD_INDEX, i, p, canonical
            if j <= previous:
                canonical = False
            previous = j
            v = data[p]
            if not v - v == 0.0:  # inf - inf and nan - nan are nan
                return NOT_FINITE, i, p, canonical
    return OK, -1, -1, canonical


def csr_fault(X) -> tuple[int, int, int, bool]:
    """``_csr_sweep``'s ``(fault, row, p, canonical)`` for a CSR matrix, after the O(1)
    checks that make the sweep safe (``BAD_SHAPE`` when they fail)."""
    n, d = X.shape
    data, indices, indptr = X.data, X.indices, X.indptr
    if indptr.shape != (n + 1,) or data.shape != indices.shape or indptr[0] < 0:
        return BAD_SHAPE, -1, -1, False
    return _csr_sweep(data, indices, indptr, d)
