"""Compiled primitives that every learning pass is built from: dot products, prefetch hints,
one row abstraction over dense and CSR input, products with all rows, and the one way a pass
reports numerical trouble; also, from the two modules below it, the random generator and
shuffle (:mod:`halfspaces._random`) and the hand-written vector code (:mod:`halfspaces._simd`).
Algorithm modules import downward from here and never from each other.

A pass is written once for both input formats: its ``X`` is a C-contiguous 2-D array or a
:class:`CSR` tuple ``(data, indices, indptr)`` (:func:`as_rows`), read only through

    row_dot(X, t, w)            <w, x_t>
    row_axpy(X, t, a, w)        w <- w + a x_t   (row_axpy_pair, row_axpy2: two at once;
                                row_axpy_sqchange: also the change of ||w||^2)
    row_sqnorm(X, t)            ||x_t||^2
    row_dot_in_order(X, t, v)   <x_t, v> in one chain, in row order
    row_as_dense, row_clear     x_t scattered into a dense work vector, and cleared again
    row_prefetch(X, t)          a hint that row t is read soon (no effect on results)
    n_rows(X)                   the number of rows

``w`` is a float64 vector or a :class:`Difference` ``w - a u`` read entry by entry (the
averaged perceptron's average). Each function is resolved at compile time for its types
(``@overload``); without the JIT the same functions dispatch at run time. The dense dot is
:func:`dot_dense_scalar` and, with the same bits, a vector intrinsic (:mod:`halfspaces._simd`);
CSR indices and positions are read unsigned, which spares numba's wraparound test.

The dot products keep several partial sums (8 for dense rows, 4 for CSR rows) in a fixed
order, without ``fastmath``: the same result on every run and machine. Dense and CSR input
make the same updates; where they must give the same bits (DCD, Crammer-Singer) rows are
scored by ``row_dot_dense_order``, a CSR row summed in the dense row's 8 sums by column.
A pass that meets an inf or nan stops at that row and returns a :class:`PassResult`, which
:func:`check_pass` turns into :class:`~halfspaces.exceptions.NumericalError` naming the row.
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import __version__ as numba_version
from numba import config as numba_config
from numba import njit

from ._dispatch import CSR as CSR  # re-exported: passes import from here
from ._dispatch import Difference as Difference
from ._dispatch import resolved
from ._random import shuffle as shuffle  # re-exported: passes import from here
from .exceptions import NumericalError

# -- numerical trouble ----------------------------------------------------------------------
# Why check at all: a nan score would never count as a mistake (nan <= 0 is false), so a
# pass whose features or weights overflow would look converged. What a pass found:
FINITE = 0  # nothing: every score and weight it checked is finite
SCORE_NOT_FINITE = 1  # the score of row ``row``
UPDATE_NOT_FINITE = 2  # the weights right after the update on row ``row``
WEIGHTS_NOT_FINITE = 3  # the weights at the end of the pass (``row``: the last row visited)

_WHAT = {SCORE_NOT_FINITE: "the score", UPDATE_NOT_FINITE: "the weights after the update",
         WEIGHTS_NOT_FINITE: "the weights at the end of the pass (last row)"}


class PassResult(NamedTuple):
    """What a compiled pass returns: its mistakes, ``FINITE`` or what it found not finite,
    and the row where it stopped (-1 when ``FINITE``)."""

    mistakes: int
    status: int
    row: int


def check_pass(owner: str, result: PassResult, what: str | None = None) -> int:
    """The mistakes of a pass; raises NumericalError naming ``owner`` and the row when the
    pass stopped on a non-finite value (``what`` overrides the status's wording)."""
    mistakes, status, row = result
    if status != FINITE:
        raise NumericalError(owner, int(row), what or _WHAT[status])
    return int(mistakes)


def _vector_entry(w, j):
    return w[j]


def _difference_entry(w, j):
    return w.w[j] - w.a * w.u[j]


@resolved(array=_vector_entry, Difference=_difference_entry)
def weight(w, j):
    """Entry j of the weights ``w`` (a vector or a Difference)."""


def _one(s, i):
    return 1.0


def _entry(s, i):
    return s[i]


@resolved(inline=True, array=_entry, none=_one)
def example_weight(s, i):
    """The weight ``s_i`` of example ``i``: ``s[i]``, or 1.0 when ``s`` is None (unweighted:
    the constant folds away, ``1.0 * x`` is ``x`` exactly, so that path runs as before)."""


# -- dot products ----------------------------------------------------------------------------

@njit(cache=True)
def dot_dense_scalar(w, x):
    """<w, x> for weights w (float64[d] or a Difference) and a float32/float64 row x[d],
    with 8 partial sums.

    This defines the summation order of every dense score; ``dot_dense`` computes the same
    sums, lane for lane, in vector registers.
    """
    d = x.shape[0]
    m = d - d % 8
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for j in range(0, m, 8):
        s0 += weight(w, j) * x[j]
        s1 += weight(w, j + 1) * x[j + 1]
        s2 += weight(w, j + 2) * x[j + 2]
        s3 += weight(w, j + 3) * x[j + 3]
        s4 += weight(w, j + 4) * x[j + 4]
        s5 += weight(w, j + 5) * x[j + 5]
        s6 += weight(w, j + 6) * x[j + 6]
        s7 += weight(w, j + 7) * x[j + 7]
    for j in range(m, d):
        s0 += weight(w, j) * x[j]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


def _vector_dot(w, x):
    return _dot_dense_vector(w, x)  # (defined below, with the vector code or without)


def _difference_dot(w, x):
    return dot_dense_scalar(w, x)


@resolved(array=_vector_dot, Difference=_difference_dot)
def dot_dense(w, x):
    """<w, x>: ``dot_dense_scalar``'s sums, bit for bit (in vector registers for a vector w)."""


@njit(cache=True)
def dot_csr(w, data, indices, start, end):
    """<w, x> for the CSR row x = (data, indices)[start:end], with 4 partial sums; w is a
    float64 vector or a Difference.

    Positions are unsigned too (no wraparound test on ``data[p]``): 18% faster on reuters.
    """
    start, end = np.uint64(start), np.uint64(end)
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    m = end - (end - start) % four
    s0 = s1 = s2 = s3 = 0.0
    for p in range(start, m, four):
        s0 += weight(w, np.uint64(indices[p])) * data[p]
        s1 += weight(w, np.uint64(indices[p + one])) * data[p + one]
        s2 += weight(w, np.uint64(indices[p + two])) * data[p + two]
        s3 += weight(w, np.uint64(indices[p + three])) * data[p + three]
    for p in range(m, end):
        s0 += weight(w, np.uint64(indices[p])) * data[p]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def dot_csr_dense_order(w, data, indices, start, end):
    """<w, x> for the CSR row x = (data, indices)[start:end] of a canonical matrix (indices
    increasing) and a float64 vector w of its ``d`` columns, summed as ``dot_dense_scalar``
    sums the dense row: column j in partial sum ``j mod 8`` for ``j < d - d mod 8``, the
    last ``d mod 8`` columns in sum 0 after the others, each sum in column order.

    The dense row's zeros add products ``+-0.0`` to a partial sum, which leave it as it is
    (a partial sum starts at +0.0 and a sum that rounds to zero is +0.0, so it is never
    -0.0), so a row and its CSR copy give the same bits, stored zeros or not.
    """
    d = np.uint64(w.shape[0])
    m = d - d % np.uint64(8)
    lanes = np.zeros(8)
    for p in range(np.uint64(start), np.uint64(end)):
        j = np.uint64(indices[p])
        lanes[j & np.uint64(7) if j < m else np.uint64(0)] += w[j] * data[p]
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (
        (lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))


# -- the hand-written vector code, or the portable code -------------------------------------
# The passes use the vector code of :mod:`halfspaces._simd` (faster: why, there) on the numba
# versions the tests ran it on (TESTED_NUMBA), and on a newer one where it compiles to the
# bits of the definitions above (checked at import); else, and without the JIT, the
# definitions themselves, with no prefetch hint. A numba or LLVM that changes what the vector
# code relies on thus costs speed, never results. HALFSPACES_PORTABLE_KERNELS=1 in the
# environment asks for the portable code (to measure or test it; with a NUMBA_CACHE_DIR of
# its own: cached passes keep the code they were compiled with).

PORTABLE_KERNELS = "HALFSPACES_PORTABLE_KERNELS"
TESTED_NUMBA = ((0, 68), (0, 70))  # [first, last): the minor versions tested


def _vector_code(check: bool = True):
    """``(dense dot, CSR dot in dense order, prefetch)`` of the vector code; with ``check``,
    compiled and compared with the definitions on rows of each length up to 17 (float64 and
    float32): None where it does not compile here or gives other bits."""
    try:
        from ._simd import dot_csr_dense_order_vector, dot_dense_vector, prefetch, touch

        if not check:
            return dot_dense_vector, dot_csr_dense_order_vector, prefetch
        rng = np.random.default_rng(0)
        for d in range(18):
            w, x = rng.normal(size=d), rng.normal(size=d)
            x[::3] = 0.0
            touch(w if d else np.zeros(1))
            for row in (x, x.astype(np.float32)):
                indices = np.flatnonzero(row).astype(np.int32)
                data = np.ascontiguousarray(row[indices])
                if dot_dense_vector(w, row) != dot_dense_scalar(w, row) or \
                        dot_csr_dense_order_vector(w, data, indices, 0, indices.size) != \
                        dot_csr_dense_order(w, data, indices, 0, indices.size):
                    return None
    except Exception:  # noqa: BLE001 - whatever a newer numba or LLVM refuses: portable code
        return None
    return dot_dense_vector, dot_csr_dense_order_vector, prefetch


def _numba_tested() -> bool:
    """Whether this numba is one of TESTED_NUMBA."""
    first, last = TESTED_NUMBA
    return first <= tuple(int(part) for part in numba_version.split(".")[:2]) < last


VECTOR_CODE = None if numba_config.DISABLE_JIT or os.environ.get(PORTABLE_KERNELS) == "1" \
    else _vector_code(check=not _numba_tested())

if VECTOR_CODE is None:
    _dot_dense_vector, _dot_csr_dense_order_vector = dot_dense_scalar, dot_csr_dense_order
else:
    _dot_dense_vector, _dot_csr_dense_order_vector, prefetch = VECTOR_CODE


# -- prefetch --------------------------------------------------------------------------------
# The hint is LLVM's prefetch intrinsic (``_simd.prefetch``: why, there); the portable code
# has none.

PREFETCH_ROWS = 2  # how many rows ahead a pass asks the cache for


if VECTOR_CODE is None:

    @njit(cache=True)
    def prefetch_dense_row(X, t):
        """No hint in the portable code."""

    @njit(cache=True)
    def prefetch_csr_row(data, indices, start, end):
        """No hint in the portable code."""

else:

    @njit(cache=True)
    def prefetch_dense_row(X, t):
        """Prefetch every cache line of the C-contiguous row X[t]."""
        x = X[t]
        for j in range(0, x.shape[0], 8):
            prefetch(x, j)

    @njit(cache=True)
    def prefetch_csr_row(data, indices, start, end):
        """Prefetch the cache lines of the CSR row (data, indices)[start:end]."""
        for p in range(start, end, 8):
            prefetch(data, p)
        for p in range(start, end, 16):
            prefetch(indices, p)


# -- one sparse row given by its entries (the one-example protocol's dict rows) ---------------

@njit(cache=True)
def dot_entries(w, values, columns):
    """<w, x> for the row x with ``values[i]`` at column ``columns[i]`` (distinct columns, in
    any order), summed as its dense row is (``dot_csr_dense_order``); nan when a column is
    outside ``[0, len(w))``. Sorts ``columns`` and ``values`` by column, in place.
    """
    d, n = w.shape[0], columns.shape[0]
    for i in range(n):
        if columns[i] < 0 or columns[i] >= d:
            return math.nan
    for i in range(1, n):  # insertion sort: a row of a stream has few entries, often sorted
        j, c, v = i, columns[i], values[i]
        while j > 0 and columns[j - 1] > c:
            columns[j], values[j] = columns[j - 1], values[j - 1]
            j -= 1
        columns[j], values[j] = c, v
    return _dot_csr_dense_order_vector(w, values, columns, 0, n)


@njit(cache=True)
def one_row_dot(w, x, columns):
    """<w, x> for one row: a dense row ``x`` (float64[d], ``columns`` None) summed as
    ``row_dot`` sums it, or the values ``x`` at ``columns`` (:func:`dot_entries`)."""
    if columns is None:
        return dot_dense(w, x)
    return dot_entries(w, x, columns)


@njit(cache=True)
def one_row_axpy(a, x, columns, w):
    """w <- w + a x, in place, for the row of :func:`one_row_dot`."""
    if columns is None:
        for j in range(x.shape[0]):
            w[j] += a * x[j]
    else:
        for i in range(columns.shape[0]):
            w[columns[i]] += a * x[i]


# -- the row abstraction ---------------------------------------------------------------------

def as_rows(X):
    """What a compiled pass takes for validated ``X``: the C-contiguous array itself, or the
    :class:`CSR` tuple of a CSR matrix (its arrays as they are, no copy)."""
    if type(X) is np.ndarray:  # first: the one-example protocol calls this twice a round
        return X
    if sp.issparse(X):
        return CSR(X.data, X.indices, X.indptr)
    return X


def product_rows(X):
    """``as_rows`` for the compiled products of solvers: C-contiguous dense ``X`` (copied
    only if it is not), or the CSR tuple of ``X.tocsr()`` with float64 data and indices of
    the indptr's type (no copy where they are already)."""
    if not sp.issparse(X):
        return np.ascontiguousarray(X)
    X = X.tocsr()
    indices, indptr = X.indices, X.indptr  # as they are (no copy), unless their types differ
    if indices.dtype != indptr.dtype:
        indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
    return CSR(np.ascontiguousarray(X.data, dtype=np.float64), indices, indptr)


def sparse_product_rows(X):
    """``product_rows`` of ``X``, a dense ``X`` as its CSR copy: the rows ``matvec``,
    ``rmatvec`` and ``row_sqnorms`` run on fastest, with the same bits (each sums a row's
    non-zeros in row order, for both layouts). A dense row's chain runs over every column,
    zeros included, so on sparse-ish dense data the CSR copy is far faster. The copy holds
    the non-zeros (at most 1.5 times a dense float64 X); make it once per fit."""
    return product_rows(X if sp.issparse(X) else sp.csr_matrix(X))


# Dense rows: X[t] of a C-contiguous 2-D array.

def _dense_n_rows(X):
    return X.shape[0]


def _dense_dot(X, t, w):
    return dot_dense(w, X[t])


def _dense_axpy(X, t, a, w):
    x = X[t]
    for j in range(x.shape[0]):
        w[j] += a * x[j]


def _dense_axpy_pair(X, t, a, w, c, u):
    x = X[t]
    finite = True
    for j in range(x.shape[0]):
        x_j = np.float64(x[j])  # float64 products also without the JIT (NumPy keeps float32)
        w[j] += a * x_j
        u[j] += c * x_j
        finite &= math.isfinite(u[j])  # LLVM vectorizes an and, not a running max of floats
    return finite


def _dense_axpy2(X, t, a, w, a2, w2):
    x = X[t]
    for j in range(x.shape[0]):
        x_j = np.float64(x[j])
        w[j] += a * x_j
        w2[j] += a2 * x_j


def _dense_axpy_sqchange(X, t, a, w):
    x = X[t]
    s = 0.0
    for j in range(x.shape[0]):
        delta = a * np.float64(x[j])
        s += delta * (2.0 * w[j] + delta)  # (w_j + delta)^2 - w_j^2
        w[j] += delta
    return s


def _dense_sqnorm(X, t):
    x = X[t]
    s = 0.0
    for j in range(x.shape[0]):
        s += np.float64(x[j]) * np.float64(x[j])
    return s


def _dense_dot_in_order(X, t, v):
    x = X[t]
    s = 0.0
    for j in range(x.shape[0]):
        if x[j] != 0.0:  # the entries a CSR copy of the row stores
            s += np.float64(x[j]) * v[j]
    return s


def _dense_as_dense(X, t, work):
    return X[t]


def _dense_clear(X, t, work):
    pass


def _dense_prefetch(X, t):
    prefetch_dense_row(X, t)


# CSR rows: the entries p in [indptr[t], indptr[t + 1]), at unsigned positions (see the
# module docstring).

@njit(cache=True)
def _span(X, t):
    return range(np.uint64(X.indptr[t]), np.uint64(X.indptr[t + 1]))


def _csr_n_rows(X):
    return X.indptr.shape[0] - 1


def _csr_dot(X, t, w):
    return dot_csr(w, X.data, X.indices, X.indptr[t], X.indptr[t + 1])


def _csr_dot_dense_order(X, t, w):
    return _dot_csr_dense_order_vector(w, X.data, X.indices, X.indptr[t], X.indptr[t + 1])


def _csr_axpy(X, t, a, w):
    for p in _span(X, t):
        w[np.uint64(X.indices[p])] += a * X.data[p]


def _csr_axpy_pair(X, t, a, w, c, u):
    largest = 0.0
    for p in _span(X, t):
        j, x_j = np.uint64(X.indices[p]), np.float64(X.data[p])  # as in _dense_axpy_pair
        w[j] += a * x_j
        u[j] += c * x_j
        largest = max(largest, abs(u[j]))
    return math.isfinite(largest)


def _csr_axpy2(X, t, a, w, a2, w2):
    for p in _span(X, t):
        j, x_j = np.uint64(X.indices[p]), np.float64(X.data[p])
        w[j] += a * x_j
        w2[j] += a2 * x_j


def _csr_axpy_sqchange(X, t, a, w):
    s = 0.0
    for p in _span(X, t):
        j = np.uint64(X.indices[p])
        delta = a * np.float64(X.data[p])
        s += delta * (2.0 * w[j] + delta)  # (w_j + delta)^2 - w_j^2
        w[j] += delta
    return s


def _csr_sqnorm(X, t):
    s = 0.0
    for p in _span(X, t):
        s += np.float64(X.data[p]) * np.float64(X.data[p])
    return s


def _csr_dot_in_order(X, t, v):
    s = 0.0
    for p in _span(X, t):
        s += np.float64(X.data[p]) * v[np.uint64(X.indices[p])]
    return s


def _csr_as_dense(X, t, work):
    for p in _span(X, t):
        work[np.uint64(X.indices[p])] = X.data[p]
    return work


def _csr_clear(X, t, work):
    for p in _span(X, t):
        work[np.uint64(X.indices[p])] = 0.0


def _csr_prefetch(X, t):
    prefetch_csr_row(X.data, X.indices, X.indptr[t], X.indptr[t + 1])


@resolved(array=_dense_n_rows, CSR=_csr_n_rows)
def n_rows(X):
    """The number of rows of dense or CSR ``X``."""


@resolved(array=_dense_dot, CSR=_csr_dot)
def row_dot(X, t, w):
    """<w, x_t> for row ``t`` of dense or CSR ``X``."""


@resolved(array=_dense_dot, CSR=_csr_dot_dense_order)
def row_dot_dense_order(X, t, w):
    """<w, x_t> for a float64 vector ``w``, summed in the dense row's order for both layouts
    (``dot_dense_scalar``'s; for CSR ``dot_csr_dense_order``), so that dense input and its
    CSR copy give the same bits (``row_dot``'s CSR sums are faster on long rows)."""


@resolved(array=_dense_axpy, CSR=_csr_axpy)
def row_axpy(X, t, a, w):
    """w <- w + a x_t, in place."""


# inlined: as a call inside the averaged perceptron's (inlined) update, with its error check
# between them, numba's references to X, w and u stayed: three atomic reference-count pairs
# per mistake (see resolved)
@resolved(inline=True, array=_dense_axpy_pair, CSR=_csr_axpy_pair)
def row_axpy_pair(X, t, a, w, c, u):
    """w <- w + a x_t and u <- u + c x_t, in place, in one sweep of the row; whether the
    entries of u it wrote are finite (for weights that no score checks)."""


@resolved(array=_dense_axpy2, CSR=_csr_axpy2)
def row_axpy2(X, t, a, w, a2, w2):
    """w <- w + a x_t and w2 <- w2 + a2 x_t, in place, in one sweep over the row (two
    ``row_axpy`` sweeps cost an averaged Pegasos pass about 10% on a9a)."""


@resolved(inline=True, array=_dense_axpy_sqchange, CSR=_csr_axpy_sqchange)
def row_axpy_sqchange(X, t, a, w):
    """w <- w + a x_t, in place, returning ||w||^2 after minus before, summed in row order
    as sum_j a x_tj (2 w_j + a x_tj) in the same sweep (a ``row_dot`` before the
    ``row_axpy``, and a read of a stored ||x_t||^2, cost a mini-batch Pegasos pass about
    10% on a9a)."""


@resolved(array=_dense_sqnorm, CSR=_csr_sqnorm)
def row_sqnorm(X, t):
    """||x_t||^2, summed in float64 in row order."""


@resolved(array=_dense_dot_in_order, CSR=_csr_dot_in_order)
def row_dot_in_order(X, t, v):
    """<x_t, v> for a dense float64 v, summed in float64 entry after entry in row order (a
    dense row: its non-zeros), so a row and its CSR copy give the same bits."""


@resolved(array=_dense_as_dense, CSR=_csr_as_dense)
def row_as_dense(X, t, work):
    """x_t as a dense vector: a dense row itself; a CSR row scattered into the zeroed
    float64 vector ``work`` (zero it again with row_clear)."""


@resolved(array=_dense_clear, CSR=_csr_clear)
def row_clear(X, t, work):
    """Undo row_as_dense(X, t, work): zero what it wrote."""


@resolved(array=_dense_prefetch, CSR=_csr_prefetch)
def row_prefetch(X, t):
    """Ask the CPU to start loading row ``t`` (no effect on results)."""


@njit(cache=True)
def prefetch_wanted(order, i):
    """Whether a pass over the rows ``order`` should, at position ``i``, ask the cache for
    the row it reads ``PREFETCH_ROWS`` later (``row_prefetch(X, order[i + PREFETCH_ROWS])``):
    yes unless that row follows consecutively.

    In consecutive rows the CPU's own prefetcher streams X already and the hints only cost
    instructions; in a shuffled order they pay.
    (A small function that the compiler inlines: a call per row cost 10% of a CSR epoch.)
    """
    ahead = i + PREFETCH_ROWS
    return ahead < order.shape[0] and order[ahead] != order[i] + PREFETCH_ROWS


# -- products with all rows -------------------------------------------------------------------
# The same bits for dense input and its CSR copy: ``matvec`` sums each row as
# ``row_dot_in_order`` does (one chain, entry after entry), ``rmatvec`` adds a column's
# entries in row order for both.

@njit(cache=True, nogil=True)  # L-BFGS problems in threads
def _dense_matvec_rows(X, theta, out):
    n, d = X.shape
    for i in range(0, n - 1, 2):  # two rows at a time: two independent chains of additions
        x, z = X[i], X[i + 1]
        s = t = 0.0
        for j in range(np.uint64(d)):
            # a zero entry adds +0.0, as the CSR row that does not store it (and never
            # 0 * inf)
            s += np.float64(x[j]) * theta[j] if x[j] != 0.0 else 0.0
            t += np.float64(z[j]) * theta[j] if z[j] != 0.0 else 0.0
        out[i], out[i + 1] = s, t
    if n % 2 == 1:
        out[n - 1] = row_dot_in_order(X, n - 1, theta)


@njit(cache=True, nogil=True)
def _csr_matvec_rows(data, indices, indptr, theta, out):
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    for i in range(out.shape[0]):  # one row at a time, read as one stream
        p, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        s = 0.0
        while p + four <= end:  # four entries a step, added to the chain one after another
            x0 = np.float64(data[p]) * theta[np.uint64(indices[p])]
            x1 = np.float64(data[p + one]) * theta[np.uint64(indices[p + one])]
            x2 = np.float64(data[p + two]) * theta[np.uint64(indices[p + two])]
            x3 = np.float64(data[p + three]) * theta[np.uint64(indices[p + three])]
            s = (((s + x0) + x1) + x2) + x3
            p += four
        while p < end:
            s += np.float64(data[p]) * theta[np.uint64(indices[p])]
            p += one
        out[i] = s


# Why not the rows' dots (``row_dot_dense_order``): a CSR row summed in the dense row's 8
# sums costs about twice SciPy's X @ w (the 8 sums are picked per entry), and logistic
# regression's fit is mostly products. One chain per row costs a CSR row less, a dense row
# far more, since its chain runs over every column: a9a X w as CSR 225 us (SciPy's 245 us,
# the 8 sums 455 us), as dense float32 rows 6.7 ms (the 8 vector sums 1.0 ms, NumPy's
# X @ w 0.8-2.7 ms); median of 9 x 20 products, 2-core AMD EPYC. Logistic regression
# therefore multiplies a dense X as a CSR copy (``sparse_product_rows``), and so do DCD's
# and Crammer-Singer's gap checks (SVC(solver="dcd") on a9a as dense float64 rows, fit 310
# -> 282 ms, float32 231 -> 201 ms; CSR 121 ms; median of 5, CPU).
# The CSR loops read one row at a time, four entries a step: two rows at a time (two chains)
# was faster on a9a but slower on long rows, four rows slower still; X w (the same bits
# each way, SciPy's too), median of 7 to 41, one thread, quiet machine: 1M x 100k with 80
# entries a row 123 ms two rows at a time, 108 ms one entry a step, 107 ms four a step
# (SciPy 93 ms); a9a 229 / 192 us (SciPy 238 us); 200k x 100k with 10 entries 3.6 / 3.4 ms
# (SciPy 2.9 ms). X^T v likewise: 1M rows 130 -> 116 ms (SciPy 109 ms), a9a 274 -> 230 us
# (SciPy 319 us), 200k rows 4.0 -> 3.5 ms (SciPy 3.2 ms).
# Each format's loop is its own compiled function, called from Python.
def _dense_matvec(X, theta, out):
    _dense_matvec_rows(X, theta, out)


def _csr_matvec(X, theta, out):
    _csr_matvec_rows(X.data, X.indices, X.indptr, theta, out)


@resolved(array=_dense_matvec, CSR=_csr_matvec)
def matvec(X, theta, out):
    """``out = X theta`` for a float64 vector ``theta``: each row summed as
    ``row_dot_in_order`` sums it (the same bits for a dense row and its CSR copy)."""


@njit(cache=True, nogil=True)
def _dense_rmatvec_rows(X, v, out):
    for i in range(X.shape[0]):
        row_axpy(X, i, v[i], out)


@njit(cache=True, nogil=True)
def _csr_rmatvec_rows(data, indices, indptr, v, out):
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    for i in range(v.shape[0]):  # each row's entries added in turn (distinct columns)
        c, p, end = v[i], np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        while p + four <= end:
            j0, j1 = np.uint64(indices[p]), np.uint64(indices[p + one])
            j2, j3 = np.uint64(indices[p + two]), np.uint64(indices[p + three])
            out[j0] += c * np.float64(data[p])
            out[j1] += c * np.float64(data[p + one])
            out[j2] += c * np.float64(data[p + two])
            out[j3] += c * np.float64(data[p + three])
            p += four
        while p < end:
            out[np.uint64(indices[p])] += c * np.float64(data[p])
            p += one


def _dense_rmatvec(X, v, out):
    _dense_rmatvec_rows(X, v, out)


def _csr_rmatvec(X, v, out):
    _csr_rmatvec_rows(X.data, X.indices, X.indptr, v, out)


@resolved(array=_dense_rmatvec, CSR=_csr_rmatvec)
def rmatvec(X, v, out):
    """``out += X^T v``: the rows times ``v_i`` added in turn (``out`` zeroed by the caller
    for the product itself)."""


@njit(cache=True)
def row_sqnorms(X, out):
    """``out_i = ||x_i||^2`` (``row_sqnorm``: in row order, the same for both layouts)."""
    for i in range(n_rows(X)):
        out[i] = row_sqnorm(X, i)
