"""Perceptron (Rosenblatt 1958). Labels y_t in {-1,+1}, w_1 = 0, b_1 = 0.

    Mistake if y_t (<w_t, x_t> + b_t) <= 0      (a tie counts as a mistake)
    Update     w_{t+1} = w_t + y_t x_t,   b_{t+1} = b_t + y_t   (b only with fit_intercept)
    Novikoff:  ||x_t|| <= R and y_t <u, x_t> >= gamma, ||u|| = 1  =>  mistakes <= (R/gamma)^2

The dot products below are the only hot loop. They keep several independent partial sums
(8 for dense rows, 4 for CSR rows) in a fixed order, so the CPU overlaps the additions
instead of waiting on one chain, without ``fastmath``: the result is the same on every run.
Numba leaves LLVM's SLP vectorizer off and a reduction loop only vectorizes with
reassociation (which would let the compiler pick the order), so the dense dot is written
once as plain scalar code, ``_dot_dense_scalar`` (the definition), and once as a small
LLVM intrinsic that holds the same 8 partial sums in two 4-wide vectors: identical bits,
about 1.6x faster. A dense epoch also prefetches the rows ahead of the one it reads.
CSR column indices are read as ``np.uint64(indices[p])``, and the positions ``p`` in a row are
unsigned too: Numba then skips its negative-index wraparound test on every gather and scatter
(about 13% of a sparse pass for the indices, 18% more for the positions on reuters).

Every score in this module and in the averaged/voted perceptrons is ``dot(w, x) + b``
computed by these helpers, in ``fit``, ``partial_fit``, ``decision_function`` and the online
game alike, so the score a learner reports for ``x_t`` is bit for bit the one its update
rule tested.
Dense and CSR input make the same updates; their scores can differ in the last bits only
because a dense row and a CSR row are summed in a different order.
"""

from __future__ import annotations

import math

import llvmlite.binding
import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import config as numba_config
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numpy.typing import NDArray

from .._online import FINITE, SCORE_NOT_FINITE, OnlineClassifier, check_finite
from .._validation import check_scalar
from ..exceptions import NumericalError

_PREFETCH = "llvm.prefetch.p0" if llvmlite.binding.llvm_version_info[0] >= 15 else (
    "llvm.prefetch.p0i8")
_PREFETCH_ROWS = 2  # how many rows ahead the dense epoch asks the cache for


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

    def _prefetch_row(X, t):
        """No-op without the JIT."""

    def _prefetch_csr_row(data, indices, start, end):
        """No-op without the JIT."""

else:

    @njit(cache=True)
    def _prefetch_row(X, t):
        """Prefetch every cache line of the C-contiguous row X[t]."""
        x = X[t]
        for j in range(0, x.shape[0], 8):
            _prefetch(x, j)

    @njit(cache=True)
    def _prefetch_csr_row(data, indices, start, end):
        """Prefetch the cache lines of the CSR row (data, indices)[start:end]."""
        for p in range(start, end, 8):
            _prefetch(data, p)
        for p in range(start, end, 16):
            _prefetch(indices, p)


@njit(cache=True)
def _dot_dense_scalar(w, x):
    """<w, x> for float64 w[d] and a float32/float64 row x[d], with 8 partial sums.

    This defines the summation order of every dense score; ``_dot_dense`` computes the same
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
    """``_dot_dense_scalar`` with partial sums s0..s3 and s4..s7 held in two 4-wide vectors.

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
    _dot_dense = _dot_dense_scalar
else:

    @njit(cache=True)
    def _dot_dense(w, x):
        """<w, x>: ``_dot_dense_scalar``'s sums, bit for bit, 4 lanes at a time."""
        return _dot_dense_simd(w, x)


@njit(cache=True)
def _dot_csr(w, data, indices, start, end):
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


@njit(cache=True)
def _perceptron_epoch(X, y, w, b, fit_intercept, order, scores):
    """One pass over rows X[order]; updates w (and b[0]) in place.

    X : float64 or float32[n_samples, n_features], C-contiguous; y : float64[n] in {-1,+1};
    w : float64[n_features]; b : float64[1]; scores : float64[n] receives each row's score
    before its update. Returns (mistakes, status, row): status is FINITE, or
    SCORE_NOT_FINITE when row ``row``'s score is inf or nan (the pass stops there).

    Only the score needs a check: if the update w_j + y_t x_tj overflowed, both |w_j| and
    |x_tj| would exceed half the float spacing at the overflow limit (about 1e292), so their
    product, a term of the score, would have overflowed first. (b only counts mistakes.)
    """
    n_mistakes = 0
    d = X.shape[1]
    n = order.shape[0]
    for i in range(n):
        if i + _PREFETCH_ROWS < n:
            _prefetch_row(X, order[i + _PREFETCH_ROWS])
        t = order[i]
        x_t, y_t = X[t], y[t]
        score = _dot_dense(w, x_t) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan: nan <= 0 is false, never a mistake
            return n_mistakes, SCORE_NOT_FINITE, t
        if y_t * score <= 0.0:  # mistake (a tie counts: Novikoff's proof needs it)
            for j in range(d):
                w[j] += y_t * x_t[j]  # w <- w + y_t x_t
            if fit_intercept:
                b[0] += y_t  # b <- b + y_t
            n_mistakes += 1
    return n_mistakes, FINITE, -1


@njit(cache=True)
def _perceptron_epoch_csr(data, indices, indptr, y, w, b, fit_intercept, order, scores):
    """The same pass for CSR input (data, indices, indptr as given); O(nnz) per pass."""
    n_mistakes = 0
    for t in order:
        start, end, y_t = indptr[t], indptr[t + 1], y[t]
        score = _dot_csr(w, data, indices, start, end) + b[0]
        scores[t] = score
        if not math.isfinite(score):  # inf or nan
            return n_mistakes, SCORE_NOT_FINITE, t
        if y_t * score <= 0.0:  # mistake (a tie counts)
            for p in range(np.uint64(start), np.uint64(end)):  # see _dot_csr
                w[np.uint64(indices[p])] += y_t * data[p]  # w <- w + y_t x_t
            if fit_intercept:
                b[0] += y_t
            n_mistakes += 1
    return n_mistakes, FINITE, -1


@njit(cache=True)
def _linear_scores(X, W, B, out):
    """out[i, k] = <W[k], X[i]> + B[k] for dense X, summed exactly as in the epochs.

    Returns the first row whose score is inf or nan (it stops there), or -1.
    """
    for i in range(X.shape[0]):
        for k in range(W.shape[0]):
            out[i, k] = score = _dot_dense(W[k], X[i]) + B[k]
            if not math.isfinite(score):
                return i
    return -1


@njit(cache=True)
def _linear_scores_csr(data, indices, indptr, W, B, out):
    """``_linear_scores`` for CSR X."""
    for i in range(indptr.shape[0] - 1):
        for k in range(W.shape[0]):
            out[i, k] = score = _dot_csr(W[k], data, indices, indptr[i], indptr[i + 1]) + B[k]
            if not math.isfinite(score):
                return i
    return -1


def linear_scores(X, coef: NDArray, intercept: NDArray, owner: str) -> NDArray[np.float64]:
    """Scores of validated ``X`` under each row of ``coef``; ``(n,)`` or ``(n, n_models)``.

    Raises NumericalError when a score overflows to inf or nan.
    """
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    intercept = np.ascontiguousarray(intercept, dtype=np.float64)
    out = np.empty((X.shape[0], coef.shape[0]), dtype=np.float64)
    if sp.issparse(X):
        row = _linear_scores_csr(X.data, X.indices, X.indptr, coef, intercept, out)
    else:
        row = _linear_scores(X, coef, intercept, out)
    if row >= 0:
        raise NumericalError(owner, row, "the score")
    return out.ravel() if coef.shape[0] == 1 else out


def perceptron_pass(X, y: NDArray, w: NDArray, b: NDArray, fit_intercept: bool,
                    order: NDArray, scores: NDArray, owner: str = "Perceptron") -> int:
    """Dispatch one perceptron pass to the dense or CSR kernel (state updated in place).

    Returns the mistakes; raises NumericalError (naming ``owner``) when a score is not
    finite.
    """
    if sp.issparse(X):
        mistakes, status, row = _perceptron_epoch_csr(X.data, X.indices, X.indptr, y, w, b,
                                                      fit_intercept, order, scores)
    else:
        mistakes, status, row = _perceptron_epoch(X, y, w, b, fit_intercept, order, scores)
    check_finite(owner, status, row)
    return mistakes


class Perceptron(OnlineClassifier):
    """The perceptron: online mistake-driven updates, or cycled until the data is separated.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset ``b`` updated as ``b <- b + y_t`` on each mistake (the notes' form).
        With ``fit_intercept=False`` the separator goes through the origin, the setting of
        Novikoff's theorem.
    max_iter : int, default=100
        Most passes (epochs) ``fit`` makes; it stops earlier after a pass with no mistake.
    shuffle : bool, default=False
        Visit the rows of each ``fit`` pass in a random order drawn from ``random_state``.
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        Continue ``fit`` from the current weights instead of starting from zero.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of labels
    n_mistakes_ : int, mistakes over every pass so far
    mistakes_per_epoch_ : list of int, mistakes of each ``fit`` pass
    converged_ : bool, whether the last ``fit`` ended with a pass making no mistake
    n_iter_ : int, passes made;  t_ : int, rounds (examples) seen

    Notes
    -----
    .. math::

        \\hat y_t = \\operatorname{sign}(\\langle w_t, x_t\\rangle + b_t), \\qquad
        y_t(\\langle w_t, x_t\\rangle + b_t) \\le 0 \\Rightarrow
        w_{t+1} = w_t + y_t x_t,\\; b_{t+1} = b_t + y_t .

    Weights are float64 whatever the data's dtype; float32/float64 data and int32/int64
    CSR indices are used as given, without a converting copy. One pass costs
    :math:`O(\\mathrm{nnz})` (one dot product per row, one more per mistake).
    A score that overflows to inf or nan (features near the float64 limit) stops the pass
    with a :class:`~halfspaces.exceptions.NumericalError` naming the row; a ``fit`` that
    ends after ``max_iter`` passes without a clean one warns with a ``ConvergenceWarning``.

    References
    ----------
    Rosenblatt (1958); Novikoff (1962), "On convergence proofs on perceptrons".

    Examples
    --------
    >>> from halfspaces.datasets import make_separable
    >>> from halfspaces.theory import data_radius, perceptron_mistake_bound
    >>> X, y = make_separable(n_samples=40, margin=0.2, random_state=0)
    >>> clf = Perceptron(fit_intercept=False).fit(X, y)
    >>> bool(clf.converged_), clf.score(X, y)
    (True, 1.0)
    >>> clf.n_mistakes_ <= perceptron_mistake_bound(data_radius(X), 0.2)
    True
    """

    def __init__(self, *, fit_intercept: bool = True, max_iter: int = 100, shuffle: bool = False,
                 random_state=None, warm_start: bool = False):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start

    def _check_params(self) -> None:
        super()._check_params()
        name = type(self).__name__
        check_scalar(name, "fit_intercept", self.fit_intercept, kind=(bool, np.bool_))
        check_scalar(name, "shuffle", self.shuffle, kind=(bool, np.bool_))
        check_scalar(name, "warm_start", self.warm_start, kind=(bool, np.bool_))

    def _init_state(self, X, n_models: int) -> None:
        self.coef_ = np.zeros((n_models, X.shape[1]), dtype=np.float64)
        self.intercept_ = np.zeros(n_models, dtype=np.float64)

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray) -> int:
        return perceptron_pass(X, y, self.coef_[k], self.intercept_[k : k + 1],
                               bool(self.fit_intercept), order, scores, type(self).__name__)

    def _decision(self, X) -> NDArray[np.float64]:
        return linear_scores(X, self.coef_, self.intercept_, type(self).__name__)
