"""The compiled primitives: the row abstraction over dense and CSR input, against NumPy, and
the numerical-trouble protocol of every pass."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

from halfspaces._primitives import (
    FINITE,
    SCORE_NOT_FINITE,
    UPDATE_NOT_FINITE,
    WEIGHTS_NOT_FINITE,
    PassResult,
    as_rows,
    check_pass,
    dot_dense,
    dot_dense_scalar,
    matvec,
    n_rows,
    product_rows,
    rmatvec,
    row_axpy,
    row_axpy2,
    row_axpy_pair,
    row_axpy_sqchange,
    row_dot,
    row_prefetch,
    row_sqnorm,
)
from halfspaces.exceptions import NumericalError


@njit(cache=False)
def _sweep(X, w, a):
    """Every primitive on every row: dots, squared norms, then w += a x_t for each t."""
    n = n_rows(X)
    dots = np.empty(n)
    sq = np.empty(n)
    for t in range(n):
        row_prefetch(X, t)
        dots[t] = row_dot(X, t, w)
        sq[t] = row_sqnorm(X, t)
    for t in range(n):
        row_axpy(X, t, a, w)
    return dots, sq


def _formats(dense):
    csr = sp.csr_matrix(dense)
    yield "dense-f64", dense
    yield "dense-f32", dense.astype(np.float32)
    yield "csr-f64-i32", csr
    wide = csr.copy()
    wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
    yield "csr-f64-i64", wide
    yield "csr-f32-i32", csr.astype(np.float32)


FORMATS = ["dense-f64", "dense-f32", "csr-f64-i32", "csr-f64-i64", "csr-f32-i32"]


def _rows(name, seed):
    """(X in the format ``name``, X as float64 NumPy, the generator): 13 x 11, 40% non-zero,
    row 4 empty."""
    rng = np.random.default_rng(seed)
    dense = rng.standard_normal((13, 11)) * (rng.random((13, 11)) < 0.4)
    dense[4] = 0.0  # an empty row
    X = dict(_formats(dense))[name]
    return X, (X.toarray() if sp.issparse(X) else X).astype(np.float64), rng


@pytest.mark.parametrize("name", FORMATS)
def test_rows_read_dense_and_csr_input_as_numpy_does(name):
    X, ref, rng = _rows(name, 0)
    w = rng.standard_normal(11)
    dots, sq = _sweep(as_rows(X), w.copy(), 0.5)
    np.testing.assert_allclose(dots, ref @ w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sq, (ref * ref).sum(axis=1), rtol=1e-12)
    w_after = w.copy()
    _sweep(as_rows(X), w_after, 0.5)
    np.testing.assert_allclose(w_after, w + 0.5 * ref.sum(axis=0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vector_dense_dot_is_the_scalar_definition_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    for d in range(0, 42):
        X = rng.standard_normal((3, d)).astype(dtype) * 10.0 ** rng.integers(-3, 4, (3, d))
        w = rng.standard_normal(d)
        for x in X:  # rows of a 2-D array, as the passes see them
            assert dot_dense(w, x) == dot_dense_scalar(w, x)


@njit(cache=False)
def _pairs(X, a, w, c, u):
    """row_axpy_pair on every row; whether each call's u entries were finite."""
    finite = np.empty(n_rows(X), dtype=np.bool_)
    for t in range(n_rows(X)):
        finite[t] = row_axpy_pair(X, t, a, w, c, u)
    return finite


@pytest.mark.parametrize("name", FORMATS)
def test_row_axpy_pair_adds_both_multiples_and_checks_the_second(name):
    rng = np.random.default_rng(1)
    dense = rng.standard_normal((9, 7)) * (rng.random((9, 7)) < 0.5)
    X = dict(_formats(dense))[name]
    ref = (X.toarray() if sp.issparse(X) else X).astype(np.float64)
    w, u = rng.standard_normal(7), rng.standard_normal(7)
    w_out, u_out = w.copy(), u.copy()
    assert _pairs(as_rows(X), -0.5, w_out, 3.0, u_out).all()
    np.testing.assert_allclose(w_out, w - 0.5 * ref.sum(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(u_out, u + 3.0 * ref.sum(axis=0), rtol=1e-12, atol=1e-12)
    # u's largest entry on the first non-empty row t doubles past the float range at t
    t = int(np.flatnonzero(ref.any(axis=1))[0])
    big = 1e308 * np.sign(ref[t])
    finite = _pairs(as_rows(X), 1.0, w.copy(), 1e308 / np.abs(ref[t]).max(), big)
    assert finite[:t].all() and not finite[t]


@njit(cache=False)
def _fused_sweeps(X, w, w2, a, a2):
    """row_axpy2 and row_axpy_sqchange on every row: w += a x_t and w2 += a2 x_t, then
    w2 += a x_t again, recording each change of ||w2||^2."""
    n = n_rows(X)
    changes = np.empty(n)
    for t in range(n):
        row_axpy2(X, t, a, w, a2, w2)
    for t in range(n):
        changes[t] = row_axpy_sqchange(X, t, a, w2)
    return changes


@pytest.mark.parametrize("name", FORMATS)
def test_fused_row_updates_match_numpy(name):
    X, ref, rng = _rows(name, 1)
    w, w2 = rng.standard_normal(11), rng.standard_normal(11)
    v, v2 = w.copy(), w2.copy()
    changes = _fused_sweeps(as_rows(X), v, v2, 0.5, -1.5)
    np.testing.assert_allclose(v, w + 0.5 * ref.sum(axis=0), rtol=1e-12, atol=1e-12)
    after_axpy2 = w2 - 1.5 * ref.sum(axis=0)
    np.testing.assert_allclose(v2, after_axpy2 + 0.5 * ref.sum(axis=0), rtol=1e-12,
                               atol=1e-12)
    # ||w2||^2 after each row's update minus before, from the iterates themselves
    iterates = after_axpy2 + 0.5 * np.cumsum(np.vstack([np.zeros(11), ref]), axis=0)
    sq = (iterates * iterates).sum(axis=1)
    np.testing.assert_allclose(changes, np.diff(sq), rtol=1e-10, atol=1e-12)


def test_as_rows_does_not_copy():
    X = sp.random(5, 4, density=0.5, format="csr", random_state=0)
    rows = as_rows(X)
    assert rows.data is X.data and rows.indices is X.indices and rows.indptr is X.indptr
    D = np.ones((3, 2))
    assert as_rows(D) is D


def _row_order_reference(X, theta):
    """``X @ theta`` for CSR ``X``, each row summed in one chain in stored order
    (``np.bincount`` adds its weights in input order)."""
    row = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return np.bincount(row, weights=theta[X.indices] * X.data, minlength=X.shape[0])


@pytest.mark.parametrize("n", [30, 31])  # rows two at a time, and the last alone
@pytest.mark.parametrize("d", [5, 8, 21])
def test_products_give_the_same_bits_for_dense_rows_and_their_csr_copy(d, n):
    rng = np.random.default_rng(d + n)
    D = rng.normal(size=(n, d)) * 10.0 ** rng.uniform(-4, 4, (n, d))  # sums that round
    D[rng.random((n, d)) < rng.uniform(0.0, 1.0, (n, 1))] = 0.0  # rows of many lengths
    X = sp.csr_matrix(D)
    stored_zeros = X.copy()
    stored_zeros.data[::3] = 0.0  # explicit zeros add nothing either
    D_zeros = stored_zeros.toarray()
    theta, v = rng.normal(size=d) * 100.0, rng.normal(size=n)
    for dense, csr in ((D, X), (D_zeros, stored_zeros), (D.astype(np.float32),
                                                       sp.csr_matrix(D.astype(np.float32)))):
        want = _row_order_reference(csr, theta)
        for rows in (dense, as_rows(csr), product_rows(dense), product_rows(csr)):
            got, back = np.empty(n), np.zeros(d)
            matvec(rows, theta, got)
            assert got.tobytes() == want.tobytes()
            rmatvec(rows, v, back)  # the rows added in turn: SciPy's X.T @ v
            assert back.tobytes() == np.asarray(csr.T @ v).tobytes()


# -- the numerical-trouble protocol -----------------------------------------------------------
@njit(cache=False)
def _first_non_finite(v):
    """A pass in miniature: count the negatives, stop at the first inf or nan."""
    negatives = 0
    for t in range(v.shape[0]):
        if not np.isfinite(v[t]):
            return PassResult(negatives, SCORE_NOT_FINITE, t)
        negatives += v[t] < 0.0
    return PassResult(negatives, FINITE, -1)


def test_a_finite_pass_returns_its_mistakes():
    result = _first_non_finite(np.array([1.0, -2.0, -3.0]))
    assert result == (2, FINITE, -1)
    assert check_pass("Owner", result) == 2


@pytest.mark.parametrize("status, what", [
    (SCORE_NOT_FINITE, "the score"),
    (UPDATE_NOT_FINITE, "the weights after the update"),
    (WEIGHTS_NOT_FINITE, r"the weights at the end of the pass \(last row\)"),
])
def test_a_stopped_pass_raises_numerical_error_naming_owner_what_and_row(status, what):
    with pytest.raises(NumericalError, match=rf"^Owner: {what} became non-finite \(inf or nan\)"
                                             r" at row 7: .* Scale the features") as info:
        check_pass("Owner", PassResult(3, status, 7))
    assert info.value.row == 7


def test_the_compiled_pass_names_the_row_and_the_wording_can_be_overridden():
    result = _first_non_finite(np.array([-1.0, 2.0, np.inf, np.nan]))
    assert result == (1, SCORE_NOT_FINITE, 2)
    with pytest.raises(NumericalError, match=r"^Owner: the vote became non-finite .* at row 2:"):
        check_pass("Owner", result, what="the vote")
