"""make_separable: the planted margin is exact, radius holds, same seed same data."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from halfspaces.datasets import make_separable


def margin_and_norms(X, y, u):
    """Computed here with NumPy only: y <u, x> / ||u|| and row norms."""
    Xd = X.toarray() if sp.issparse(X) else X
    return (y * (Xd @ u)).min() / np.linalg.norm(u), np.sqrt((Xd**2).sum(axis=1))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 200), d=st.integers(1, 12), margin=st.floats(1e-3, 1.0),
       radius=st.floats(0.1, 10.0), seed=st.integers(0, 2**31 - 1))
def test_dense_margin_is_planted_exactly(n, d, margin, radius, seed):
    margin = margin * radius
    X, y, u = make_separable(n, d, margin, radius=radius, random_state=seed,
                             return_separator=True)
    assert X.shape == (n, d) and X.dtype == np.float64
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert np.linalg.norm(u) == pytest.approx(1.0, abs=1e-14)
    gamma, norms = margin_and_norms(X, y, u)
    assert gamma == pytest.approx(margin, abs=1e-12 * max(1.0, radius))
    assert norms.max() <= radius * (1 + 1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 150), d=st.integers(2, 60), k=st.integers(2, 60),
       seed=st.integers(0, 2**31 - 1))
@example(n=62, d=2, k=2, seed=87)  # a draw nearly parallel to u: norm off by 1.2e-12
def test_sparse_margin_is_planted_exactly_and_rows_are_normalised(n, d, k, seed):
    k = min(k, d)
    margin = 0.5 * np.sqrt(k / d) * 0.5
    X, y, u = make_separable(n, d, margin, sparse=True, nnz_per_row=k, random_state=seed,
                             return_separator=True)
    assert sp.isspmatrix_csr(X) and X.has_canonical_format
    np.testing.assert_array_equal(np.diff(X.indptr), k)
    gamma, norms = margin_and_norms(X, y, u)
    assert gamma == pytest.approx(margin, abs=1e-12)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-12)


def test_density_and_larger_sparse_data():
    X, y, u = make_separable(20_000, 5_000, 0.02, sparse=True, density=0.002, random_state=0,
                             return_separator=True)
    assert X.nnz == 20_000 * 10
    assert X.indices.dtype == np.int32
    gamma = (y * (X @ u)).min()
    assert gamma == pytest.approx(0.02, abs=1e-12)


def test_reproducible_and_seed_dependent():
    a = make_separable(50, 3, 0.1, random_state=7)
    b = make_separable(50, 3, 0.1, random_state=np.random.RandomState(7))
    c = make_separable(50, 3, 0.1, random_state=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    s1 = make_separable(100, 40, 0.05, sparse=True, nnz_per_row=5, random_state=1)
    s2 = make_separable(100, 40, 0.05, sparse=True, nnz_per_row=5, random_state=1)
    assert (s1[0] != s2[0]).nnz == 0


def test_noise_flips_exactly_that_fraction():
    X0, y0 = make_separable(200, 4, 0.1, random_state=3)
    X1, y1 = make_separable(200, 4, 0.1, noise=0.1, random_state=3)
    np.testing.assert_array_equal(X0, X1)
    assert np.count_nonzero(y0 != y1) == 20


def test_one_feature():
    X, y, u = make_separable(30, 1, 0.4, random_state=0, return_separator=True)
    assert abs(u[0]) == 1.0
    assert (y * X[:, 0] * u[0]).min() == pytest.approx(0.4, abs=1e-15)


def test_errors():
    with pytest.raises(ValueError, match="'margin' must be a float > 0 and <= 1"):
        make_separable(10, 2, 1.5)
    with pytest.raises(ValueError, match="'margin' must be a float > 0"):
        make_separable(10, 2, 0.0)
    with pytest.raises(ValueError, match="'noise' must be a float >= 0 and < 1"):
        make_separable(10, 2, noise=1.0)
    with pytest.raises(ValueError, match="left unset for dense data"):
        make_separable(10, 2, density=0.5)
    with pytest.raises(ValueError, match="left unset when nnz_per_row is given"):
        make_separable(10, 2, sparse=True, density=0.5, nnz_per_row=1)
    with pytest.raises(ValueError, match="'nnz_per_row' must be an int >= 1 and <= 5"):
        make_separable(10, 5, sparse=True, nnz_per_row=6)
    with pytest.raises(ValueError, match="'margin' must be reachable with 2 nonzeros per row"
                                         " out of 10000 features"):
        make_separable(50, 10_000, 0.9, sparse=True, nnz_per_row=2, random_state=0)


def test_supports_are_uniform_subsets():
    from halfspaces.datasets.generators import _supports

    rng = np.random.default_rng(0)
    for d, k in [(4, 2), (5, 2), (4, 3), (6, 5)]:  # the last two use the complement path
        S = _supports(rng, 30_000, d, k)
        assert np.all(np.diff(S, axis=1) > 0)
        _, counts = np.unique(S @ (d ** np.arange(k)), axis=0, return_counts=True)
        n_subsets = int(np.prod(np.arange(d - k + 1, d + 1)) // np.prod(np.arange(1, k + 1)))
        assert counts.size == n_subsets
        # every k-subset is equally likely: each count is within 6 sigma of its mean
        mean = 30_000 / n_subsets
        assert np.all(np.abs(counts - mean) < 6 * np.sqrt(mean))
