"""The primitives' hand-written vector code: small LLVM intrinsics that compute, bit for bit,
what a plain scalar definition in :mod:`halfspaces._primitives` defines, faster.

Everything here is an optimisation of something defined there, and is tested against it
(``tests/test_primitives.py``, ``tests/test_primitives_dense_order.py``); nothing else in
the package emits LLVM. Why no portable form replaces each one is written beside it, with
the measurement. The scalar definitions run instead without the JIT, and wherever this
numba or LLVM does not compile this code to their bits (:mod:`halfspaces._primitives`
checks it once), so a newer numba costs speed, never results.

- :func:`prefetch`: LLVM's prefetch hint (no effect on results).
- :func:`dot_dense_simd`: ``dot_dense_scalar``'s 8 partial sums in two 4-wide vectors.
- :func:`dot_csr_dense_order_simd`: a CSR row summed in the dense row's 8 partial sums
  (``dot_csr_dense_order``), the sums in two 4-wide vectors.
"""

from __future__ import annotations

import llvmlite.binding
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_I32, _I64, _F64 = ir.IntType(32), ir.IntType(64), ir.DoubleType()


# -- prefetch --------------------------------------------------------------------------------
# A portable prefetch does not exist in numba: reading a value of the row ahead (and keeping
# it alive) is a real load that holds up the pipeline, 1.3x (rows in order) to 1.8x (rows
# shuffled) the time of a dense epoch with the hint (200,000 x 100 float64, AMD EPYC Zen 4,
# numba 0.68). So the hint is LLVM's prefetch intrinsic, the one place it is written.

_PREFETCH = "llvm.prefetch.p0" if llvmlite.binding.llvm_version_info[0] >= 15 else (
    "llvm.prefetch.p0i8")


@intrinsic
def prefetch(typingctx, arr, i):
    """Hint the CPU to load ``arr[i]``'s cache line (no effect on results)."""

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, _I32, _I32, _I32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH)
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        builder.call(fn, [ptr, _I32(0), _I32(3), _I32(1)])  # read, keep in all levels, data
        return context.get_dummy_value()

    return types.void(arr, i), codegen


# -- the dense dot ---------------------------------------------------------------------------
# Why hand-written LLVM IR: a portable form must keep the 8 sums in their order, and none
# found comes within 5% of it. Dense perceptron epoch, 200,000 x 100 float64 rows in order,
# fit_intercept, the same pass with each form of the dot (all give the same scores and
# weights, bit for bit); median of 41 alternating repeats on a shared 2-core AMD EPYC, numba
# 0.68.1 / llvmlite 0.50 (measured for issue 11): this intrinsic 11.6 ms (IQR 9.6-14.3);
# ``dot_dense_scalar``, the 8 sums as plain scalar code, 18.6 ms = 1.60x; the products by a
# loop that LLVM's loop vectorizer takes, into a scratch vector, then the 8 scalar sums,
# 22.3 ms = 1.92x; the 8 sums in a small array updated by an inner loop over the lanes,
# 20.3 ms = 1.74x. With numba's process-wide NUMBA_SLP_VECTORIZE=1 (not a per-function
# option, so not one a library can set) the scalar code is still 1.41x.
# ``fastmath={'reassoc'}`` would let LLVM reorder the sum by the machine's vector width:
# scores, hence mistakes, would differ between machines, and the project allows no fastmath.

@intrinsic
def dot_dense_simd(typingctx, w, x):
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
        i64 = n.type
        single = signature.args[1].dtype == types.float32
        v4, xv4 = ir.VectorType(_F64, 4), ir.VectorType(ir.FloatType() if single else _F64, 4)

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
        s = [builder.extract_element(builder.load(acc[k // 4]), _I32(k % 4)) for k in range(8)]
        s0 = cgutils.alloca_once_value(builder, s[0])
        with cgutils.for_range_slice(builder, m, n, i64(1)) as (j, _):  # the tail, into s0
            xj = builder.load(builder.gep(xa.data, [j]))
            prod = builder.fmul(builder.load(builder.gep(wa.data, [j])),
                                builder.fpext(xj, _F64) if single else xj)
            builder.store(builder.fadd(builder.load(s0), prod), s0)
        s[0] = builder.load(s0)
        add = builder.fadd
        return add(add(add(s[0], s[1]), add(s[2], s[3])), add(add(s[4], s[5]), add(s[6], s[7])))

    return types.float64(w, x), codegen


# -- a CSR row in the dense row's order ------------------------------------------------------
# Why an intrinsic again: ``dot_csr_dense_order`` keeps its 8 sums in memory (a sum picked
# by the column cannot live in a register), and each stored value then waits for the
# previous store to the same sum: DCD on a9a took twice the time of ``dot_csr``'s 4 sums by
# position. Here the 8 sums are two 4-wide vectors in registers, and each stored value is
# added to both, as the product in its sum's lane and +0.0 in the other 7. Adding +0.0
# leaves a partial sum as it is (never -0.0, see ``dot_csr_dense_order``), so the sums are
# ``dot_csr_dense_order``'s, bit for bit; the cost is one vector addition per stored value
# in one dependency chain, which the row's other work hides on short rows.
@intrinsic
def dot_csr_dense_order_simd(typingctx, w, data, indices, start, end):
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
        i64, i32, f64 = _I64, _I32, _F64
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


# -- what the passes call --------------------------------------------------------------------

@njit(cache=True)
def dot_dense_vector(w, x):
    """``dot_dense_scalar`` for a vector w, computed by :func:`dot_dense_simd`."""
    return dot_dense_simd(w, x)


@njit(cache=True)
def dot_csr_dense_order_vector(w, data, indices, start, end):
    """``dot_csr_dense_order``, computed by :func:`dot_csr_dense_order_simd`."""
    return dot_csr_dense_order_simd(w, data, indices, start, end)


@njit(cache=True)
def touch(x):
    """Prefetch ``x[0]`` (compiles :func:`prefetch`)."""
    prefetch(x, 0)
