"""A synthetic set shaped as ijcnn1 (49,990 x 22, dense features in [-1, 1], 9.7% positives):
ten one-hot columns of a categorical feature and twelve continuous ones of small spread, a
nonlinear boundary, and label noise (seeded). ijcnn1 itself is not in the shared data."""

from __future__ import annotations

import numpy as np

POSITIVES = 0.097


def ijcnn1_like(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: ``n`` rows, ``y`` in {-1, +1}."""
    rng = np.random.RandomState(seed)
    level = rng.randint(0, 10, size=n)
    onehot = np.zeros((n, 10))
    onehot[np.arange(n), level] = 1.0
    mix = np.eye(12) + 0.3 * np.random.RandomState(1).randn(12, 12)
    Z = np.clip(0.15 * rng.randn(n, 12) @ mix, -1.0, 1.0)
    a = np.random.RandomState(2).randn(4, 12)
    shift = np.random.RandomState(3).randn(10)
    score = (Z @ a[0] + 3.0 * (Z @ a[1]) ** 2 - 2.0 * (Z @ a[2]) ** 2
             + 0.3 * shift[level] + 4.0 * Z[:, 0] * Z[:, 1] * (level % 3))
    score = score + 0.05 * rng.randn(n)
    y = np.where(score > np.quantile(score, 1.0 - POSITIVES), 1, -1)
    flip = rng.rand(n) < 0.01
    y[flip] = -y[flip]
    return np.ascontiguousarray(np.hstack([onehot, Z])), y
