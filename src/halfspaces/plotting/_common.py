"""What the pictures share: their axes, their legend, and the checks of their data."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray


def _legend(ax, extra=()) -> None:
    """Legend below the axes, so that it never hides a point; ``extra``: proxy handles."""
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=list(extra) + handles, loc="upper center", bbox_to_anchor=(0.5, -0.13),
              ncol=2, fontsize="small", frameon=False)


def _new_axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(6, 6), layout="constrained")
    return ax


def _check_2d(owner: str, X: ArrayLike) -> NDArray[np.float64]:
    """``X`` as a dense float array with exactly two columns, or a clear ValueError."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        got = X.shape[1] if X.ndim == 2 else f"an array of shape {X.shape}"
        raise ValueError(
            f"{owner}: X must have exactly 2 features to be drawn in the plane; got {got}."
            " Pick two columns or project the data (e.g. with PCA) first."
        )
    return np.asarray(X, dtype=np.float64)


def _encode(owner: str, y: ArrayLike, classes: ArrayLike | None = None):
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    if classes.size != 2:
        raise ValueError(
            f"{owner}: needs exactly two classes; got {classes.size} ({classes[:5].tolist()})."
            " Plot one class against the rest, e.g. y == k."
        )
    return np.where(y == classes[1], 1.0, -1.0), classes
