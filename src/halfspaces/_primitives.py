"""Compiled primitives that every learning pass is built from: dot products, prefetch
hints, a random generator and a shuffle, and one row abstraction over dense and CSR input.

Algorithm modules import downward from here and never from each other.

Rows. A pass is written once for both input formats: its ``X`` is either a C-contiguous
2-D array (float32 or float64) or a :class:`CSR` tuple ``(data, indices, indptr)`` of a
canonical CSR matrix (see :func:`as_rows`), and it reads row ``t`` only through

    row_dot(X, t, w)         <w, x_t>
    row_axpy(X, t, a, w)     w <- w + a x_t
    row_axpy2(X, t, a, w, a2, w2)    w <- w + a x_t and w2 <- w2 + a2 x_t, in one sweep
    row_axpy_sqchange(X, t, a, w)    w <- w + a x_t, returning ||w||^2 after minus before
    row_sqnorm(X, t)         ||x_t||^2
    row_prefetch(X, t)       a hint that row t is read next (no effect on results)
    n_rows(X)                the number of rows

Numba resolves each of these at compile time for the type of ``X`` (``@overload``), so a
pass compiled for CSR input contains only the CSR loops. Without the JIT
(``NUMBA_DISABLE_JIT=1``) the same functions dispatch on the type at run time.

Summation order. The dot products keep several independent partial sums (8 for dense rows,
4 for CSR rows) in a fixed order, so the CPU overlaps the additions instead of waiting on
one chain, without ``fastmath``: the result is the same on every run. Numba leaves LLVM's
SLP vectorizer off and a reduction loop only vectorizes with reassociation (which would let
the compiler pick the order), so the dense dot is written once as plain scalar code,
:func:`dot_dense_scalar` (the definition), and once as a small LLVM intrinsic that holds the
same 8 partial sums in two 4-wide vectors: identical bits, about 1.6x faster. CSR column
indices are read as ``np.uint64(indices[p])``, and the positions ``p`` in a row are unsigned
too: Numba then skips its negative-index wraparound test on every gather and scatter (about
13% of a sparse pass for the indices, 18% more for the positions on reuters).

Dense and CSR input make the same updates; their scores can differ in the last bits only
because a dense row and a CSR row are summed in a different order.

Numerical trouble. A pass that meets an inf or nan stops at that row and returns a
:class:`PassResult` saying what it found; the estimator hands it to :func:`check_pass`, which
raises :class:`~halfspaces.exceptions.NumericalError` naming the row. Every compiled pass
reports trouble this one way.
"""

from __future__ import annotations

from typing import NamedTuple

import llvmlite.binding
import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import config as numba_config
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

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


# -- prefetch and dot products ------------------------------------------------------------

_PREFETCH = "llvm.prefetch.p0" if llvmlite.binding.llvm_version_info[0] >= 15 else (
    "llvm.prefetch.p0i8")


@intrinsic
def _prefetch(typingctx, arr, i):
    """Hint the CPU to load ``arr[i]``'s cache line (no effect on results).

    A dense epoch streams X row by row; the hint for row t+2 measured about 25% faster on
    200,000 x 100 float64 data (benchmarks/bench_perceptron.py).
    """

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH)
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])  # read, keep in all levels, data
        return context.get_dummy_value()

    return types.void(arr, i), codegen


if numba_config.DISABLE_JIT:  # interpreted kernels (coverage runs): a hint has no meaning

    def prefetch_dense_row(X, t):
        """No-op without the JIT."""

    def prefetch_csr_row(data, indices, start, end):
        """No-op without the JIT."""

else:

    @njit(cache=True)
    def prefetch_dense_row(X, t):
        """Prefetch every cache line of the C-contiguous row X[t]."""
        x = X[t]
        for j in range(0, x.shape[0], 8):
            _prefetch(x, j)

    @njit(cache=True)
    def prefetch_csr_row(data, indices, start, end):
        """Prefetch the cache lines of the CSR row (data, indices)[start:end]."""
        for p in range(start, end, 8):
            _prefetch(data, p)
        for p in range(start, end, 16):
            _prefetch(indices, p)


@njit(cache=True)
def dot_dense_scalar(w, x):
    """<w, x> for float64 w[d] and a float32/float64 row x[d], with 8 partial sums.

    This defines the summation order of every dense score; ``dot_dense`` computes the same
    sums, lane for lane, in vector registers.
    """
    d = x.shape[0]
    m = d - d % 8
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for j in range(0, m, 8):
        s0 += w[j] * x[j]
        s1 += w[j + 1] * x[j + 1]
        s2 += w[j + 2] * x[j + 2]
        s3 += w[j + 3] * x[j + 3]
        s4 += w[j + 4] * x[j + 4]
        s5 += w[j + 5] * x[j + 5]
        s6 += w[j + 6] * x[j + 6]
        s7 += w[j + 7] * x[j + 7]
    for j in range(m, d):
        s0 += w[j] * x[j]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@intrinsic
def _dot_dense_simd(typingctx, w, x):
    """``dot_dense_scalar`` with partial sums s0..s3 and s4..s7 held in two 4-wide vectors.

    Each lane does the scalar code's multiplies and adds in the scalar code's order (no
    fused multiply-add, no reassociation), so the result is identical bit for bit; only
    the loads and arithmetic are 4 at a time. Needs C-contiguous 1-D ``w`` (float64) and
    ``x`` (float32 or float64).
    """
    if not (isinstance(w, types.Array) and isinstance(x, types.Array) and w.ndim == x.ndim == 1
            and w.layout == x.layout == "C" and w.dtype == types.float64
            and x.dtype in (types.float32, types.float64)):
        return None

    def codegen(context, builder, signature, args):
        wa = context.make_array(signature.args[0])(context, builder, args[0])
        xa = context.make_array(signature.args[1])(context, builder, args[1])
        n = builder.extract_value(xa.shape, 0)
        i64, i32, f64 = n.type, ir.IntType(32), ir.DoubleType()
        single = signature.args[1].dtype == types.float32
        v4, xv4 = ir.VectorType(f64, 4), ir.VectorType(ir.FloatType() if single else f64, 4)

        def load4(data, j, offset, vty):
            ptr = builder.gep(data, [builder.add(j, i64(offset))])
            vec = builder.load(builder.bitcast(ptr, vty.as_pointer()), align=4 if single else 8)
            return builder.fpext(vec, v4) if vty is not v4 else vec

        acc = [cgutils.alloca_once_value(builder, ir.Constant(v4, [0.0] * 4)) for _ in (0, 1)]
        m = builder.and_(n, i64(-8))  # d - d % 8
        with cgutils.for_range_slice(builder, i64(0), m, i64(8)) as (j, _):
            for half in (0, 1):  # lanes s0..s3, then s4..s7
                prod = builder.fmul(load4(wa.data, j, 4 * half, v4),
                                    load4(xa.data, j, 4 * half, xv4))
                builder.store(builder.fadd(builder.load(acc[half]), prod), acc[half])
        s = [builder.extract_element(builder.load(acc[k // 4]), i32(k % 4)) for k in range(8)]
        s0 = cgutils.alloca_once_value(builder, s[0])
        with cgutils.for_range_slice(builder, m, n, i64(1)) as (j, _):  # the tail, into s0
            xj = builder.load(builder.gep(xa.data, [j]))
            prod = builder.fmul(builder.load(builder.gep(wa.data, [j])),
                                builder.fpext(xj, f64) if single else xj)
            builder.store(builder.fadd(builder.load(s0), prod), s0)
        s[0] = builder.load(s0)
        add = builder.fadd
        return add(add(add(s[0], s[1]), add(s[2], s[3])), add(add(s[4], s[5]), add(s[6], s[7])))

    return types.float64(w, x), codegen


if numba_config.DISABLE_JIT:
    dot_dense = dot_dense_scalar
else:

    @njit(cache=True)
    def dot_dense(w, x):
        """<w, x>: ``dot_dense_scalar``'s sums, bit for bit, 4 lanes at a time."""
        return _dot_dense_simd(w, x)


@njit(cache=True)
def dot_csr(w, data, indices, start, end):
    """<w, x> for the CSR row x = (data, indices)[start:end], with 4 partial sums.

    Positions are unsigned too (no wraparound test on ``data[p]``): 18% faster on reuters.
    """
    start, end = np.uint64(start), np.uint64(end)
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    m = end - (end - start) % four
    s0 = s1 = s2 = s3 = 0.0
    for p in range(start, m, four):
        s0 += w[np.uint64(indices[p])] * data[p]
        s1 += w[np.uint64(indices[p + one])] * data[p + one]
        s2 += w[np.uint64(indices[p + two])] * data[p + two]
        s3 += w[np.uint64(indices[p + three])] * data[p + three]
    for p in range(m, end):
        s0 += w[np.uint64(indices[p])] * data[p]
    return (s0 + s1) + (s2 + s3)


# -- the row abstraction ---------------------------------------------------------------------

class CSR(NamedTuple):
    """The arrays of a canonical CSR matrix, as the compiled passes take it."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray


def as_rows(X):
    """What a compiled pass takes for validated ``X``: the C-contiguous array itself, or the
    :class:`CSR` tuple of a CSR matrix (its arrays as they are, no copy)."""
    if sp.issparse(X):
        return CSR(X.data, X.indices, X.indptr)
    return X


def n_rows(X):
    """The number of rows of dense or :class:`CSR` ``X``."""
    if isinstance(X, CSR):
        return X.indptr.shape[0] - 1
    return X.shape[0]


def row_dot(X, t, w):
    """<w, x_t> for row ``t`` of dense or :class:`CSR` ``X`` (float64 ``w``)."""
    if isinstance(X, CSR):
        return dot_csr(w, X.data, X.indices, X.indptr[t], X.indptr[t + 1])
    return dot_dense(w, X[t])


def row_axpy(X, t, a, w):
    """w <- w + a x_t, in place."""
    if isinstance(X, CSR):
        for p in range(X.indptr[t], X.indptr[t + 1]):
            w[X.indices[p]] += a * X.data[p]
    else:
        x = X[t]
        for j in range(x.shape[0]):
            w[j] += a * x[j]


def row_axpy2(X, t, a, w, a2, w2):
    """w <- w + a x_t and w2 <- w2 + a2 x_t, in place, in one sweep over the row (two
    ``row_axpy`` sweeps cost an averaged Pegasos pass about 10% on a9a)."""
    if isinstance(X, CSR):
        for p in range(X.indptr[t], X.indptr[t + 1]):
            w[X.indices[p]] += a * np.float64(X.data[p])
            w2[X.indices[p]] += a2 * np.float64(X.data[p])
    else:
        x = X[t]
        for j in range(x.shape[0]):
            w[j] += a * np.float64(x[j])
            w2[j] += a2 * np.float64(x[j])


def row_axpy_sqchange(X, t, a, w):
    """w <- w + a x_t, in place, returning ||w||^2 after minus before, summed in row order
    as sum_j a x_tj (2 w_j + a x_tj), in the same sweep over the row (a ``row_dot`` sweep
    before the ``row_axpy``, plus a read of a stored ||x_t||^2, cost a mini-batch Pegasos
    pass about 10% on a9a)."""
    s = 0.0
    if isinstance(X, CSR):
        for p in range(X.indptr[t], X.indptr[t + 1]):
            delta = a * np.float64(X.data[p])
            s += delta * (2.0 * w[X.indices[p]] + delta)
            w[X.indices[p]] += delta
    else:
        x = X[t]
        for j in range(x.shape[0]):
            delta = a * np.float64(x[j])
            s += delta * (2.0 * w[j] + delta)
            w[j] += delta
    return s


def row_sqnorm(X, t):
    """||x_t||^2, summed in float64 in row order."""
    s = 0.0
    if isinstance(X, CSR):
        for p in range(X.indptr[t], X.indptr[t + 1]):
            s += np.float64(X.data[p]) * np.float64(X.data[p])
    else:
        x = X[t]
        for j in range(x.shape[0]):
            s += np.float64(x[j]) * np.float64(x[j])
    return s


def row_prefetch(X, t):
    """Ask the CPU to start loading row ``t`` (no effect on results)."""
    if isinstance(X, CSR):
        prefetch_csr_row(X.data, X.indices, X.indptr[t], X.indptr[t + 1])
    else:
        prefetch_dense_row(X, t)


def _is_csr(X) -> bool:
    return isinstance(X, types.BaseNamedTuple) and len(X) == 3


if not numba_config.DISABLE_JIT:

    @overload(n_rows, jit_options={"cache": True})
    def _n_rows(X):
        if isinstance(X, types.Array):
            return lambda X: X.shape[0]
        if _is_csr(X):
            return lambda X: X.indptr.shape[0] - 1
        return None

    @overload(row_dot, jit_options={"cache": True})
    def _row_dot(X, t, w):
        if isinstance(X, types.Array):
            return lambda X, t, w: dot_dense(w, X[t])
        if _is_csr(X):
            return lambda X, t, w: dot_csr(w, X.data, X.indices, X.indptr[t], X.indptr[t + 1])
        return None

    @overload(row_axpy, jit_options={"cache": True})
    def _row_axpy(X, t, a, w):
        if isinstance(X, types.Array):
            def dense(X, t, a, w):
                x = X[t]
                for j in range(x.shape[0]):
                    w[j] += a * x[j]
            return dense
        if _is_csr(X):
            def csr(X, t, a, w):
                for p in range(np.uint64(X.indptr[t]), np.uint64(X.indptr[t + 1])):
                    w[np.uint64(X.indices[p])] += a * X.data[p]
            return csr
        return None

    @overload(row_axpy2, inline="always", jit_options={"cache": True})
    def _row_axpy2(X, t, a, w, a2, w2):
        if isinstance(X, types.Array):
            def dense(X, t, a, w, a2, w2):
                x = X[t]
                for j in range(x.shape[0]):
                    w[j] += a * x[j]
                    w2[j] += a2 * x[j]
            return dense
        if _is_csr(X):
            def csr(X, t, a, w, a2, w2):
                for p in range(np.uint64(X.indptr[t]), np.uint64(X.indptr[t + 1])):
                    j, x = np.uint64(X.indices[p]), X.data[p]
                    w[j] += a * x
                    w2[j] += a2 * x
            return csr
        return None

    @overload(row_axpy_sqchange, inline="always", jit_options={"cache": True})
    def _row_axpy_sqchange(X, t, a, w):
        if isinstance(X, types.Array):
            def dense(X, t, a, w):
                x = X[t]
                s = 0.0
                for j in range(x.shape[0]):
                    delta = a * x[j]
                    s += delta * (2.0 * w[j] + delta)
                    w[j] += delta
                return s
            return dense
        if _is_csr(X):
            def csr(X, t, a, w):
                s = 0.0
                for p in range(np.uint64(X.indptr[t]), np.uint64(X.indptr[t + 1])):
                    j, delta = np.uint64(X.indices[p]), a * X.data[p]
                    s += delta * (2.0 * w[j] + delta)
                    w[j] += delta
                return s
            return csr
        return None

    @overload(row_sqnorm, jit_options={"cache": True})
    def _row_sqnorm(X, t):
        if isinstance(X, types.Array):
            def dense(X, t):
                x = X[t]
                s = 0.0
                for j in range(x.shape[0]):
                    s += np.float64(x[j]) * np.float64(x[j])
                return s
            return dense
        if _is_csr(X):
            def csr(X, t):
                s = 0.0
                for p in range(np.uint64(X.indptr[t]), np.uint64(X.indptr[t + 1])):
                    s += np.float64(X.data[p]) * np.float64(X.data[p])
                return s
            return csr
        return None

    @overload(row_prefetch, jit_options={"cache": True})
    def _row_prefetch(X, t):
        if isinstance(X, types.Array):
            return lambda X, t: prefetch_dense_row(X, t)
        if _is_csr(X):
            return lambda X, t: prefetch_csr_row(X.data, X.indices, X.indptr[t],
                                                 X.indptr[t + 1])
        return None


# -- random numbers ----------------------------------------------------------------------------

@njit(cache=True)
def splitmix64(rng_state):
    """The next 64-bit random integer (splitmix64, Steele et al. 2014); advances
    ``rng_state[0]`` (uint64[1], seeded from the estimator's ``random_state``) in place.

    Passes that shuffle inside one compiled call cannot use NumPy's Generator; they carry
    this state from epoch to epoch, so results stay reproducible bit for bit.
    """
    z = rng_state[0] + np.uint64(0x9E3779B97F4A7C15)
    rng_state[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


if numba_config.DISABLE_JIT:  # passes run as Python: NumPy warns on the wraparound we want
    _splitmix64 = splitmix64

    def splitmix64(rng_state):
        """``splitmix64`` with uint64 overflow (modular arithmetic by design) not warned."""
        with np.errstate(over="ignore"):
            return _splitmix64(rng_state)


@njit(cache=True)
def shuffle(order, rng_state):
    """Shuffle ``order`` in place into a uniformly random permutation of itself
    (Fisher-Yates driven by :func:`splitmix64`), in about a quarter of the time of
    ``RandomState.permutation``.

    j uniform in [0, i] is ``(r (i + 1)) >> 32`` for 32 random bits r (Lemire's
    multiply-shift: no division; bias about n / 2^32), or the modulo of 53 random bits
    beyond 2^32 rows.
    """
    for i in range(order.shape[0] - 1, 0, -1):
        z = splitmix64(rng_state)
        if i < 0xFFFFFFFF:
            j = np.int64(((z >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        else:  # pragma: no cover - more than 4 billion rows
            j = np.int64((z >> np.uint64(11)) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
