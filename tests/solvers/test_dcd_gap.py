"""The duality gap of dual coordinate descent is computed by compiled sweeps (issue 9: the
fixed costs of a small fit) that sum a CSR row as its dense copy is summed (issue 14: the
same model for both layouts): each value is checked to the last bit against NumPy
references written from that order, and dense input against its CSR copy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.solvers.dcd import feasible_dual, primal_dual


def dense_order_scores(X, theta):
    """``X @ theta`` for CSR ``X`` summed as the compiled dense dot sums a row: column ``j``
    into partial sum ``j mod 8`` (the last ``d mod 8`` columns into sum 0), each sum in the
    stored order (``np.bincount`` adds its weights in input order), then
    ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``."""
    n, d = X.shape
    row = np.repeat(np.arange(n), np.diff(X.indptr))
    lane = np.where(X.indices < d - d % 8, X.indices % 8, 0)
    s = np.bincount(8 * row + lane, weights=theta[X.indices] * X.data.astype(np.float64),
                    minlength=8 * n).reshape(n, 8)
    return ((s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])) + ((s[:, 4] + s[:, 5])
                                                          + (s[:, 6] + s[:, 7]))


def reference_primal_dual(X, y, C, loss, fit_intercept, alpha, theta, theta_0):
    """The gap from the formulas, with ``dense_order_scores`` and SciPy's ``X.T @ (a y)``
    (the rows added in turn)."""
    z = y * (dense_order_scores(X, theta) + theta_0)
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
def test_the_gap_is_the_references_to_the_last_bit(dtype, index_dtype, loss, canonical):
    rng = np.random.default_rng(0)
    n, d = 80, 30  # 8 partial sums and a tail of 6
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
    want = reference_primal_dual(X, y, 1.3, loss, True, alpha, theta, 0.25)
    assert got[0] == want[0] and got[1] == want[1]
    assert np.array_equal(got[2], want[2])
    if canonical:  # the dense copy, with its zeros, gives the same bits
        dense = primal_dual(X.toarray(), y, 1.3, loss, True, alpha, theta, 0.25)
        assert dense[:2] == got[:2] and dense[2].tobytes() == got[2].tobytes()
