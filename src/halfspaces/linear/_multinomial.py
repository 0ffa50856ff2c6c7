"""Multinomial (softmax) logistic regression: the objective and its gradient.

Classes ``k = 0..K-1``, scores ``z_ik = <w_k, x_i> + b_k``, probabilities
``p_ik = exp(z_ik) / sum_m exp(z_im)``. Objective (lam form, example weights ``s_i``,
``S = sum_i s_i``; scikit-learn's ``LogisticRegression`` with ``lam = 1/(C S)``)::

    J(W, b) = 1/S sum_i s_i (log sum_k exp(z_ik) - z_{i y_i}) + lam/2 sum_k ||w_k||^2

    grad_{w_k} J = 1/S sum_i s_i (p_ik - [y_i = k]) x_i + lam w_k,
    grad_{b_k} J = 1/S sum_i s_i (p_ik - [y_i = k])

``b`` is not regularized. The loss is unchanged when one constant is added to every
``b_k``; the gradient in ``b`` sums to 0 over the classes, so L-BFGS from ``sum_k b_k = 0``
stays there, and the minimizer reported is that one (as scikit-learn's).

Dense rows go through two BLAS products (``Z = X W^T + b``, ``G = R^T X``) around one
compiled pass over the scores; CSR rows through one compiled pass over the rows (on dense
rows the products are the faster: benchmarks/bench_many_classes.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._primitives import CSR, example_weight, n_rows, product_rows, row_axpy, row_dot_in_order


@njit(cache=True, nogil=True)
def _softmax_scores(Z, labels, s, R):
    """Sum over the rows of ``s_i (log sum_k exp(Z_ik) - Z_{i y_i})``; writes
    ``R_ik = s_i (p_ik - [y_i = k])``. Z, R : float64[n, K]."""
    n, K = Z.shape
    total = 0.0
    for i in range(n):
        top = Z[i, 0]
        for k in range(1, K):
            top = max(top, Z[i, k])
        denominator = 0.0
        for k in range(K):  # shifted by the largest score: no overflow
            R[i, k] = math.exp(Z[i, k] - top)
            denominator += R[i, k]
        s_i = example_weight(s, i)
        total += s_i * (math.log(denominator) - (Z[i, labels[i]] - top)) if s_i != 0.0 else 0.0
        for k in range(K):
            R[i, k] = s_i * R[i, k] / denominator
        R[i, labels[i]] -= s_i
    return total


@njit(cache=True, nogil=True)
def _softmax_pass(X, labels, W, b, s, G, g_b):
    """Sum over the rows of ``s_i (log sum_k exp(z_ik) - z_{i y_i})``; adds
    ``r_ik = s_i (p_ik - [y_i = k])`` times ``x_i`` to ``G[k]`` and ``r_ik`` to ``g_b[k]``.

    X : rows (dense or the CSR tuple); labels : int64[n] in 0..K-1; W, G : float64[K, d];
    b, g_b : float64[K]; s : float64[n] example weights or None (all 1).
    """
    K = W.shape[0]
    e = np.empty(K)
    total = 0.0
    for i in range(n_rows(X)):
        top = -np.inf
        for k in range(K):
            e[k] = row_dot_in_order(X, i, W[k]) + b[k]
            top = max(top, e[k])
        y_i = labels[i]
        z_y = e[y_i] - top
        denominator = 0.0
        for k in range(K):  # shifted by the largest score: no overflow
            e[k] = math.exp(e[k] - top)
            denominator += e[k]
        s_i = example_weight(s, i)
        if s_i == 0.0:
            continue
        total += s_i * (math.log(denominator) - z_y)
        for k in range(K):
            r = s_i * (e[k] / denominator - (1.0 if k == y_i else 0.0))
            row_axpy(X, i, r, G[k])
            g_b[k] += r
    return total


def softmax_objective(theta: NDArray, X, labels: NDArray, n_classes: int, lam: float,
                      fit_intercept: bool, sample_weight: NDArray | None = None,
                      total_weight: float | None = None):
    """``(J, grad J)`` at ``theta = (W.ravel(), b)`` (``b`` only with ``fit_intercept``).

    ``X``: rows for :func:`product_rows` (or its CSR tuple already); ``labels``: the class
    index of each row. ``total_weight`` is ``S`` (default: the rows' own weights): a shard's
    terms over the whole data's ``S``.
    """
    rows = X if isinstance(X, CSR) else product_rows(X)
    K = n_classes
    d = (theta.shape[0] - (K if fit_intercept else 0)) // K
    W = theta[:K * d].reshape(K, d)
    b = theta[K * d:] if fit_intercept else np.zeros(K)
    if isinstance(rows, CSR):
        G, g_b = np.zeros((K, d)), np.zeros(K)
        total = _softmax_pass(rows, labels, W, b, sample_weight, G, g_b)
    else:
        Z = rows @ W.T
        Z += b
        R = np.empty_like(Z)
        total = _softmax_scores(Z, labels, sample_weight, R)
        G, g_b = R.T @ rows, R.sum(axis=0)
    if total_weight is None:
        total_weight = (labels.shape[0] if sample_weight is None
                        else float(sample_weight.sum()))
    grad = np.empty_like(theta)
    grad[:K * d] = (G / total_weight + lam * W).ravel()
    if fit_intercept:
        grad[K * d:] = g_b / total_weight
    return total / total_weight + 0.5 * lam * float(W.ravel() @ W.ravel()), grad
