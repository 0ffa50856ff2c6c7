"""Compiled primitives that every learning pass is built from: dot products, prefetch
hints, a random generator and a shuffle, one row abstraction over dense and CSR input, and
the one way a pass reports numerical trouble.

Algorithm modules import downward from here and never from each other.

Rows. A pass is written once for both input formats: its ``X`` is either a C-contiguous
2-D array (float32 or float64) or a :class:`CSR` tuple ``(data, indices, indptr)`` of a
canonical CSR matrix (see :func:`as_rows`), and it reads row ``t`` only through

    row_dot(X, t, w)            <w, x_t>
    row_axpy(X, t, a, w)        w <- w + a x_t
    row_axpy_pair(X, t, a, w, c, u)  w <- w + a x_t and u <- u + c x_t in one sweep of the
                                row; and whether the entries of u it wrote are finite
    row_axpy2(X, t, a, w, a2, w2)    the same two updates, without the check
    row_axpy_sqchange(X, t, a, w)    w <- w + a x_t, returning ||w||^2 after minus before
    row_sqnorm(X, t)            ||x_t||^2
    row_dot_in_order(X, t, v)   <x_t, v> summed entry after entry (one chain, row order)
    row_as_dense(X, t, work)    x_t as a dense vector (a CSR row is scattered into work,
    row_clear(X, t, work)         which row_clear zeroes again)
    row_prefetch(X, t)          a hint that row t is read soon (no effect on results;
                                a pass over X[order] gives it when prefetch_wanted)
    n_rows(X)                   the number of rows

Weights ``w`` are a float64 vector, or a :class:`Difference` ``w - a u`` that is read entry
by entry and never materialised (the averaged perceptron's average). Numba resolves each
function at compile time for the types it gets (``@overload``), so a pass compiled for CSR
input contains only the CSR loops. Without the JIT (``NUMBA_DISABLE_JIT=1``) the same
functions dispatch on the type at run time.

Summation order. The dot products keep several independent partial sums (8 for dense rows,
4 for CSR rows) in a fixed order, so the CPU overlaps the additions instead of waiting on
one chain, without ``fastmath``: the result is the same on every run and every machine.
The dense dot is written once as plain scalar code, :func:`dot_dense_scalar` (the
definition), and once as a small LLVM intrinsic that holds the same 8 partial sums in two
4-wide vectors: identical bits, faster (the comment above ``_dot_dense_simd`` says why no
portable form replaces it). CSR column indices are read as ``np.uint64(indices[p])``, and
the positions ``p`` in a row are unsigned too: Numba then skips its negative-index
wraparound test on every gather and scatter (about 13% of a sparse pass for the indices,
18% more for the positions on reuters).

Dense and CSR input make the same updates; their scores can differ in the last bits only
because a dense row and a CSR row are summed in a different order. Where the two must give
the same bits (DCD, Crammer-Singer, logistic regression), ``row_dot_dense_order`` sums a
CSR row in the dense row's 8 sums by column (a vector intrinsic, ``_dot_csr_dense_order_simd``).

Numerical trouble. A pass that meets an inf or nan stops at that row and returns a
:class:`PassResult` saying what it found; the estimator hands it to :func:`check_pass`, which
raises :class:`~halfspaces.exceptions.NumericalError` naming the row. Every compiled pass
reports trouble this one way.
"""

from __future__ import annotations

import functools
import inspect
import math
from typing import NamedTuple

import llvmlite.binding
import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import carray, njit, types
from numba import config as numba_config
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


# -- resolving a primitive for the types it gets -----------------------------------------

class CSR(NamedTuple):
    """The arrays of a canonical CSR matrix, as the compiled passes take it."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray


class Difference(NamedTuple):
    """The weight vector ``w - a u``, read entry by entry and never materialised."""

    w: np.ndarray
    u: np.ndarray
    a: float


def _kind(x) -> str | None:
    """'array', 'CSR', 'Difference' or 'none' for a value or for its numba type (else None)."""
    cls = getattr(x, "instance_class", type(x))  # numba's type of a NamedTuple names it
    if cls in (CSR, Difference):
        return cls.__name__
    if x is None or isinstance(x, types.NoneType):
        return "none"
    return "array" if isinstance(x, (np.ndarray, types.Array)) else None


def _resolved(*, inline: bool = False, **impls):
    """Turn a stub (the signature and docstring of a primitive) into the function that
    runs ``impls[kind of its first argument]`` (keywords ``array``, ``CSR``,
    ``Difference``, ``none``), chosen at compile time in compiled code (numba's ``@overload``), at
    each call from Python.

    The implementations are plain functions with the stub's parameters, never ``@njit``
    ones (numba would cache an implementation compiled for ``@overload``, which has no
    Python entry point, under the name of the ``@njit`` function, and a later call from
    Python would load it); they may call ``@njit`` functions. ``inline=True`` inlines the
    implementation where it is called (numba's ``inline="always"``): a row update called in
    a large pass otherwise stays a call with its arguments on the stack (measured: 10% of
    a mini-batch Pegasos pass on a9a). Check the pass's LLVM (``inspect_llvm``) both ways:
    numba gives the inlined arguments their own references, and where its pruning misses
    them each call costs an atomic ``NRT_incref``/``NRT_decref`` pair per array (plain
    Pegasos' CSR pass paid two pairs per violator for an inlined ``row_axpy2``; left to
    LLVM, that call is inlined without them).
    """

    def decorate(stub):
        def dispatch(*args):
            return impls[_kind(args[0])](*args)

        functools.update_wrapper(dispatch, stub)  # name, docstring and signature
        if not numba_config.DISABLE_JIT:

            def typer(*args):
                return impls.get(_kind(args[0]))

            typer.__signature__ = inspect.signature(stub)
            overload(dispatch, inline="always" if inline else "never",
                     jit_options={"cache": True})(typer)
        return dispatch

    return decorate


def _vector_entry(w, j):
    return w[j]


def _difference_entry(w, j):
    return w.w[j] - w.a * w.u[j]


@_resolved(array=_vector_entry, Difference=_difference_entry)
def weight(w, j):
    """Entry j of the weights ``w`` (a vector or a Difference)."""


def _one(s, i):
    return 1.0


def _entry(s, i):
    return s[i]


@_resolved(inline=True, array=_entry, none=_one)
def example_weight(s, i):
    """The weight ``s_i`` of example ``i``: ``s[i]``, or 1.0 when ``s`` is None (unweighted:
    the constant folds away, ``1.0 * x`` is ``x`` exactly, so that path runs as before)."""


# -- prefetch --------------------------------------------------------------------------------
# A portable prefetch does not exist in numba: reading a value of the row ahead (and keeping
# it alive) is a real load that holds up the pipeline, 1.3x (rows in order) to 1.8x (rows
# shuffled) the time of a dense epoch with the hint (200,000 x 100 float64, AMD EPYC Zen 4,
# numba 0.68). So the hint is LLVM's prefetch intrinsic, the one place it is written.

_PREFETCH = "llvm.prefetch.p0" if llvmlite.binding.llvm_version_info[0] >= 15 else (
    "llvm.prefetch.p0i8")
PREFETCH_ROWS = 2  # how many rows ahead a pass asks the cache for


@intrinsic
def _prefetch(typingctx, arr, i):
    """Hint the CPU to load ``arr[i]``'s cache line (no effect on results)."""

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


if numba_config.DISABLE_JIT:  # interpreted passes (coverage runs): a hint has no meaning

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


# Why hand-written LLVM IR (and why ``numba`` is pinned below 0.70 in pyproject.toml): a
# portable form must keep the 8 sums in their order, and none found comes within 5% of it.
# Dense perceptron epoch, 200,000 x 100 float64 rows in order, fit_intercept, the same pass
# with each form of the dot (all give the same scores and weights, bit for bit); median of
# 41 alternating repeats on a shared 2-core AMD EPYC, numba 0.68.1 / llvmlite 0.50
# (measured for issue 11): this intrinsic 11.6 ms (IQR 9.6-14.3); ``dot_dense_scalar``,
# the 8 sums as plain scalar code, 18.6 ms = 1.60x; the products by a loop that LLVM's loop
# vectorizer takes, into a scratch vector, then the 8 scalar sums, 22.3 ms = 1.92x; the 8
# sums in a small array updated by an inner loop over the lanes, 20.3 ms = 1.74x. With
# numba's process-wide NUMBA_SLP_VECTORIZE=1 (not a per-function option, so not one a
# library can set) the scalar code is still 1.41x. ``fastmath={'reassoc'}`` would let LLVM
# reorder the sum by the machine's vector width: scores, hence mistakes, would differ
# between machines, and the project allows no fastmath.
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
    _dot_dense_vector = dot_dense_scalar
else:

    @njit(cache=True)
    def _dot_dense_vector(w, x):
        """``dot_dense_scalar`` for a vector w, computed by ``_dot_dense_simd``."""
        return _dot_dense_simd(w, x)


def _vector_dot(w, x):
    return _dot_dense_vector(w, x)


def _difference_dot(w, x):
    return dot_dense_scalar(w, x)


@_resolved(array=_vector_dot, Difference=_difference_dot)
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


if numba_config.DISABLE_JIT:

    def _zeroed_lanes():
        """8 float64 zeros, the partial sums of ``dot_csr_dense_order``."""
        return np.zeros(8)

else:

    @intrinsic
    def _stack_lanes(typingctx):
        """A pointer to 8 float64 on the stack of the function it is lowered in."""

        def codegen(context, builder, signature, args):
            return cgutils.alloca_once(builder, ir.DoubleType(), size=8)

        return types.CPointer(types.float64)(), codegen

    # inlined by numba (inline="always"), so the stack slot is the caller's: no heap
    # allocation per row (np.zeros(8) costs more than the dot of a short row)
    @njit(inline="always")
    def _zeroed_lanes():
        """8 float64 zeros on the caller's stack, the partial sums of ``dot_csr_dense_order``."""
        lanes = carray(_stack_lanes(), 8)
        for k in range(8):
            lanes[k] = 0.0
        return lanes


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
    lanes = _zeroed_lanes()
    for p in range(np.uint64(start), np.uint64(end)):
        j = np.uint64(indices[p])
        lanes[j & np.uint64(7) if j < m else np.uint64(0)] += w[j] * data[p]
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (
        (lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))


# Why an intrinsic again: ``dot_csr_dense_order`` keeps its 8 sums in memory (a sum picked
# by the column cannot live in a register), and each stored value then waits for the
# previous store to the same sum: DCD on a9a took twice the time of ``dot_csr``'s 4 sums by
# position. Here the 8 sums are two 4-wide vectors in registers, and each stored value is
# added to both, as the product in its sum's lane and +0.0 in the other 7. Adding +0.0
# leaves a partial sum as it is (never -0.0, see above), so the sums are
# ``dot_csr_dense_order``'s, bit for bit; the cost is one vector addition per stored value
# in one dependency chain, which the row's other work hides on short rows.
@intrinsic
def _dot_csr_dense_order_simd(typingctx, w, data, indices, start, end):
    """``dot_csr_dense_order`` with the 8 partial sums in two 4-wide vectors.

    Needs C-contiguous 1-D ``w`` (float64), ``data`` (float32 or float64) and ``indices``
    (any integer type, non-negative), and integer ``start``, ``end``.
    """
    arrays = (w, data, indices)
    if not (all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C" for a in arrays)
            and w.dtype == types.float64 and data.dtype in (types.float32, types.float64)
            and isinstance(indices.dtype, types.Integer)
            and isinstance(start, types.Integer) and isinstance(end, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        wa, da, ia = (context.make_array(ty)(context, builder, arg)
                      for ty, arg in zip(signature.args[:3], args[:3], strict=True))
        i64, i32, f64 = ir.IntType(64), ir.IntType(32), ir.DoubleType()
        first, stop = (context.cast(builder, args[k], signature.args[k], types.int64)
                       for k in (3, 4))
        m = builder.and_(builder.extract_value(wa.shape, 0), i64(-8))  # d - d % 8
        v4, lanes4 = ir.VectorType(f64, 4), ir.VectorType(i64, 4)
        zero, splat = ir.Constant(v4, [0.0] * 4), ir.Constant(ir.VectorType(i32, 4), [0] * 4)
        lane_ids = [ir.Constant(lanes4, [4 * half + k for k in range(4)]) for half in (0, 1)]
        acc = [cgutils.alloca_once_value(builder, zero) for _ in (0, 1)]

        def broadcast(value, vty):
            one = builder.insert_element(ir.Constant(vty, ir.Undefined), value, i32(0))
            return builder.shuffle_vector(one, ir.Constant(vty, ir.Undefined), splat)

        with cgutils.for_range_slice(builder, first, stop, i64(1)) as (p, _):
            j = builder.load(builder.gep(ia.data, [p]))
            j = builder.zext(j, i64) if j.type.width < 64 else j  # non-negative
            lane = builder.select(builder.icmp_unsigned("<", j, m), builder.and_(j, i64(7)),
                                  i64(0))  # the last d % 8 columns: sum 0
            x = builder.load(builder.gep(da.data, [p]))
            x = builder.fpext(x, f64) if x.type != f64 else x
            prod = broadcast(builder.fmul(builder.load(builder.gep(wa.data, [j])), x), v4)
            at = broadcast(lane, lanes4)
            for half in (0, 1):  # sums 0..3, then 4..7
                term = builder.select(builder.icmp_unsigned("==", at, lane_ids[half]), prod, zero)
                builder.store(builder.fadd(builder.load(acc[half]), term), acc[half])
        s = [builder.extract_element(builder.load(acc[k // 4]), i32(k % 4)) for k in range(8)]
        add = builder.fadd
        return add(add(add(s[0], s[1]), add(s[2], s[3])), add(add(s[4], s[5]), add(s[6], s[7])))

    return types.float64(w, data, indices, start, end), codegen


if numba_config.DISABLE_JIT:
    _dot_csr_dense_order_vector = dot_csr_dense_order
else:

    @njit(cache=True)
    def _dot_csr_dense_order_vector(w, data, indices, start, end):
        """``dot_csr_dense_order``, computed by ``_dot_csr_dense_order_simd``."""
        return _dot_csr_dense_order_simd(w, data, indices, start, end)


# -- the row abstraction ---------------------------------------------------------------------

def as_rows(X):
    """What a compiled pass takes for validated ``X``: the C-contiguous array itself, or the
    :class:`CSR` tuple of a CSR matrix (its arrays as they are, no copy)."""
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


@_resolved(array=_dense_n_rows, CSR=_csr_n_rows)
def n_rows(X):
    """The number of rows of dense or CSR ``X``."""


@_resolved(array=_dense_dot, CSR=_csr_dot)
def row_dot(X, t, w):
    """<w, x_t> for row ``t`` of dense or CSR ``X``."""


@_resolved(array=_dense_dot, CSR=_csr_dot_dense_order)
def row_dot_dense_order(X, t, w):
    """<w, x_t> for a float64 vector ``w``, summed in the dense row's order for both layouts
    (``dot_dense_scalar``'s; for CSR ``dot_csr_dense_order``), so that dense input and its
    CSR copy give the same bits (``row_dot``'s CSR sums are faster on long rows)."""


@_resolved(array=_dense_axpy, CSR=_csr_axpy)
def row_axpy(X, t, a, w):
    """w <- w + a x_t, in place."""


# inlined: as a call inside the averaged perceptron's (inlined) update, with its error check
# between them, numba's references to X, w and u stayed: three atomic reference-count pairs
# per mistake (see _resolved)
@_resolved(inline=True, array=_dense_axpy_pair, CSR=_csr_axpy_pair)
def row_axpy_pair(X, t, a, w, c, u):
    """w <- w + a x_t and u <- u + c x_t, in place, in one sweep of the row; whether the
    entries of u it wrote are finite (for weights that no score checks)."""


@_resolved(array=_dense_axpy2, CSR=_csr_axpy2)
def row_axpy2(X, t, a, w, a2, w2):
    """w <- w + a x_t and w2 <- w2 + a2 x_t, in place, in one sweep over the row (two
    ``row_axpy`` sweeps cost an averaged Pegasos pass about 10% on a9a)."""


@_resolved(inline=True, array=_dense_axpy_sqchange, CSR=_csr_axpy_sqchange)
def row_axpy_sqchange(X, t, a, w):
    """w <- w + a x_t, in place, returning ||w||^2 after minus before, summed in row order
    as sum_j a x_tj (2 w_j + a x_tj) in the same sweep (a ``row_dot`` before the
    ``row_axpy``, and a read of a stored ||x_t||^2, cost a mini-batch Pegasos pass about
    10% on a9a)."""


@_resolved(array=_dense_sqnorm, CSR=_csr_sqnorm)
def row_sqnorm(X, t):
    """||x_t||^2, summed in float64 in row order."""


@_resolved(array=_dense_dot_in_order, CSR=_csr_dot_in_order)
def row_dot_in_order(X, t, v):
    """<x_t, v> for a dense float64 v, summed in float64 entry after entry in row order (a
    dense row: its non-zeros), so a row and its CSR copy give the same bits."""


@_resolved(array=_dense_as_dense, CSR=_csr_as_dense)
def row_as_dense(X, t, work):
    """x_t as a dense vector: a dense row itself; a CSR row scattered into the zeroed
    float64 vector ``work`` (zero it again with row_clear)."""


@_resolved(array=_dense_clear, CSR=_csr_clear)
def row_clear(X, t, work):
    """Undo row_as_dense(X, t, work): zero what it wrote."""


@_resolved(array=_dense_prefetch, CSR=_csr_prefetch)
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
# The same bits for dense input and its CSR copy: rows as row_dot_dense_order and
# row_axpy (which adds a column's entries in row order for both) sum them.

@njit(cache=True, nogil=True)  # L-BFGS problems in threads
def matvec(X, theta, out):
    """``out = X theta`` for a float64 vector ``theta`` (``row_dot_dense_order`` per row)."""
    for i in range(n_rows(X)):
        out[i] = row_dot_dense_order(X, i, theta)


@njit(cache=True, nogil=True)
def rmatvec(X, v, out):
    """``out += X^T v``: the rows times ``v_i`` added in turn (``out`` zeroed by the caller
    for the product itself)."""
    for i in range(n_rows(X)):
        row_axpy(X, i, v[i], out)


@njit(cache=True)
def row_sqnorms(X, out):
    """``out_i = ||x_i||^2`` (``row_sqnorm``: in row order, the same for both layouts)."""
    for i in range(n_rows(X)):
        out[i] = row_sqnorm(X, i)


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
