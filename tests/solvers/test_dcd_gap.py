"""The duality gap of dual coordinate descent is computed by compiled sweeps (no SciPy
fixed cost per product, issue 9) that sum a dense row and its CSR copy in the same order, so
every value and every stopping decision is the same to the last bit for both layouts (issue
14), and equal to SciPy's products up to rounding."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.solvers.dcd import feasible_dual, primal_dual


def scipy_primal_dual(X, y, C, loss, fit_intercept, alpha, theta, theta_0):
    """The gap from the formulas, with SciPy's products ``X @ theta`` and ``X.T @ (a y)``."""
    z = y * (np.asarray(X @ theta).ravel() + theta_0)
    slack = np.maximum(0.0, 1.0 - z)
    primal = 0.5 * float(theta @ theta) + C * float(
        (slack if loss == "hinge" else slack * slack).sum())
    a = feasible_dual(alpha, y, C if loss == "hinge" else np.inf, fit_intercept)
    w_a = np.asarray(X.T @ (a * y)).ravel()
    dual = float(a.sum()) - 0.5 * float(w_a @ w_a)
    if loss == "squared_hinge":
        dual -= float(a @ a) / (4.0 * C)
    return primal, dual, z


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("canonical", [True, False])
def test_the_gap_on_csr_is_the_dense_rows_gap_to_the_last_bit(dtype, index_dtype, loss, canonical):
    rng = np.random.default_rng(0)
    n, d = 80, 30
    X = sp.random(n, d, density=0.3, format="csr", random_state=1, dtype=np.float64)
    X.data = rng.normal(size=X.nnz) * 10.0 ** rng.uniform(-4, 4, X.nnz)  # sums that round
    if not canonical:  # each row's entries reversed and the first one split in two
        rows = [X.getrow(i) for i in range(n)]
        data, indices, indptr = [], [], [0]
        for r in rows:
            v, j = r.data[::-1], r.indices[::-1]
            if v.size:
                v, j = np.r_[v[0] / 3, v[0] - v[0] / 3, v[1:]], np.r_[j[0], j]
            data.append(v), indices.append(j), indptr.append(indptr[-1] + v.size)
        X = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=(n, d))
    X = sp.csr_matrix((X.data.astype(dtype), X.indices.astype(index_dtype),
                       X.indptr.astype(index_dtype)), shape=(n, d))
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    theta = rng.normal(size=d) * 10.0 ** rng.uniform(-2, 2, d)
    alpha = rng.random(n) * 1.5
    got = primal_dual(X, y, 1.3, loss, True, alpha, theta, 0.25)
    want = scipy_primal_dual(X, y, 1.3, loss, True, alpha, theta, 0.25)
    np.testing.assert_allclose(got[:2], want[:2], rtol=1e-12)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-9, atol=1e-9 * np.abs(want[2]).max())
    if canonical:  # the dense copy: the same bits
        dense = primal_dual(X.toarray(), y, 1.3, loss, True, alpha, theta, 0.25)
        assert got[0] == dense[0] and got[1] == dense[1]
        assert got[2].tobytes() == dense[2].tobytes()
