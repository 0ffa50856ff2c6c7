"""Margins and radius against NumPy formulas, dense = sparse, and rescaling invariance."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from halfspaces.theory import data_radius, functional_margins, geometric_margin


def sample(seed, n=30, d=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.4] = 0.0
    w = rng.standard_normal(d)
    y = np.where(rng.random(n) < 0.5, -1, 1)
    return X, y, w


@pytest.mark.parametrize("sparse", [False, True])
def test_against_numpy_formulas(sparse):
    X, y, w = sample(0)
    Xin = sp.csr_matrix(X) if sparse else X
    b = 0.3
    ref = y * (np.array([sum(w[j] * x[j] for j in range(len(w))) for x in X]) + b)
    np.testing.assert_allclose(functional_margins(w, Xin, y, b), ref, rtol=1e-13)
    assert geometric_margin(w, Xin, y, b) == pytest.approx(ref.min() / np.sqrt(w @ w),
                                                            rel=1e-13)
    assert data_radius(Xin) == pytest.approx(max(np.sqrt(x @ x) for x in X), rel=1e-14)


def test_estimator_coef_shape_and_integer_input():
    X = np.array([[3, 4], [0, 1]])
    assert geometric_margin(np.array([[0.0, 2.0]]), X, [1, 1]) == 1.0
    assert data_radius(sp.csc_matrix(X)) == 5.0
    assert data_radius(np.zeros((0, 3))) == 0.0


finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(X=arrays(np.float64, (12, 3), elements=finite),
       w=arrays(np.float64, (3,), elements=finite),
       b=finite, c=st.floats(1e-3, 1e3), seed=st.integers(0, 1000))
def test_geometric_margin_is_invariant_to_positive_rescaling(X, w, b, c, seed):
    if np.linalg.norm(w) < 1e-6:
        w = w + 1.0
    y = np.where(np.random.default_rng(seed).random(12) < 0.5, -1, 1)
    g1 = geometric_margin(w, X, y, b)
    g2 = geometric_margin(c * w, X, y, c * b)
    assert g2 == pytest.approx(g1, rel=1e-9, abs=1e-9)
    # while the functional margins scale by c
    np.testing.assert_allclose(functional_margins(c * w, X, y, c * b),
                               c * functional_margins(w, X, y, b), rtol=1e-9, atol=1e-9)


def test_margin_sign_says_whether_it_separates():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert geometric_margin([1.0, 0.0], X, [1, -1]) == 1.0
    assert geometric_margin([-1.0, 0.0], X, [1, -1]) == -1.0


def test_errors():
    X, y, w = sample(1)
    with pytest.raises(ValueError, match=r"'y' must be labels in \{-1, \+1\}; got \[0\]"):
        functional_margins(w, X, np.where(y == 1, 1, 0))
    with pytest.raises(ValueError, match="'w' must be a vector of length n_features=4"):
        geometric_margin(w[:3], X, y)
    with pytest.raises(ValueError, match="nonzero"):
        geometric_margin(np.zeros(4), X, y)
    with pytest.raises(ValueError, match="'y' must be a 1-D label vector of length 30"):
        geometric_margin(w, X, y[:5])
    with pytest.raises(ValueError, match="'X' must be a 2-D numeric array"):
        data_radius(np.ones(3))
    with pytest.raises(ValueError, match="'b' must be a finite float"):
        functional_margins(w, X, y, b=np.inf)


INTEGER_AND_FLOAT32 = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                       np.uint64, np.float32]


def _extreme(dtype):
    """Entries at the top of the dtype's range, whose squares overflow it."""
    if np.dtype(dtype).kind in "iu":
        top = np.iinfo(dtype).max
        return np.array([[top, 0, 3], [1, top // 2, 0], [0, 0, 0]], dtype=dtype)
    return np.array([[1e20, 0, 3], [1, 5e19, 0], [0, 0, 0]], dtype=dtype)


@pytest.mark.parametrize("dtype", INTEGER_AND_FLOAT32)
@pytest.mark.parametrize("sparse", [False, True])
def test_no_overflow_on_integer_or_float32_input(dtype, sparse):
    X = _extreme(dtype)
    X64 = X.astype(np.float64)  # the NumPy reference, in float64
    Xin = sp.csr_matrix(X) if sparse else X
    assert data_radius(Xin) == pytest.approx(np.sqrt((X64 ** 2).sum(axis=1)).max(), rel=1e-12)
    w = np.array([2.0, -1.0, 0.5]) * X64.max()
    y = np.array([1, -1, 1])
    ref = y * (X64 @ w + 1.0)
    np.testing.assert_allclose(functional_margins(w, Xin, y, 1.0), ref, rtol=1e-12)
    assert geometric_margin(w, Xin, y, 1.0) == pytest.approx(ref.min() / np.linalg.norm(w),
                                                              rel=1e-12)


def test_radius_of_a_sparse_int32_row_holding_50000():
    X = sp.csr_matrix(np.array([[50000, 0], [3, 4]], dtype=np.int32))
    assert data_radius(X) == 50000.0
