"""Shared by several test files: data written by hand, a margin solved by SciPy (independent
of the library's solvers), and a reader for FIFO tests."""

from __future__ import annotations

import threading

import numpy as np
from scipy.optimize import minimize


def separable(n=40, d=2, seed=0, margin=0.2):
    """Points with |<u, x>| >= margin for a unit u, labelled by sign(<u, x>)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.uniform(-1, 1, size=(4 * n, d))
    X = X[np.abs(X @ u) >= margin][:n]
    return X, np.where(X @ u > 0, 1, -1)


def hard_margin_through_origin(X, y):
    """min ||w||^2 s.t. y_i <w, x_i> >= 1 (SLSQP); returns the geometric margin 1/||w||."""
    cons = {"type": "ineq", "fun": lambda w: y * (X @ w) - 1.0, "jac": lambda w: y[:, None] * X}
    w0 = np.linalg.lstsq(X, y.astype(float), rcond=None)[0] * 10
    res = minimize(lambda w: w @ w, w0, jac=lambda w: 2 * w, constraints=[cons],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert res.success
    return 1.0 / np.linalg.norm(res.x)


def read_fifo_in_background(fifo) -> tuple[threading.Thread, list[bytes]]:
    """A thread that opens ``fifo`` for reading and collects what is written into it."""
    got: list[bytes] = []

    def drain():
        with open(fifo, "rb") as f:
            got.append(f.read())

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread, got
