"""Figure 1: a soft-margin SVM's decision boundary and its two margin boundaries.

The solid line is ``theta.x + theta_0 = 0``; the dashed lines are the margin boundaries
``theta.x + theta_0 = +1`` and ``-1``. Circled points have ``y (theta.x + theta_0) <= 1``:
they sit on a margin boundary or violate it, and they are the support vectors.

Run: ``python examples/fig1_margins.py [OUT_DIR]`` (writes ``fig1_margins.png``).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from matplotlib.figure import Figure

from halfspaces import SVC
from halfspaces.plotting import plot_decision_boundary


def make_data(seed: int = 0):
    """Two overlapping clouds in the plane."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal([-1.0, -0.5], 0.7, (30, 2)), rng.normal([1.0, 0.5], 0.7, (30, 2))])
    y = np.repeat([-1, 1], 30)
    return X, y


def main(out_dir: str | pathlib.Path = ".") -> list[pathlib.Path]:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    X, y = make_data()
    svm = SVC(C=1.0).fit(X, y)
    fig = Figure(figsize=(6, 6.5), layout="constrained")
    plot_decision_boundary(svm, X, y, ax=fig.add_subplot(),
                           title="soft-margin SVM (C = 1): boundary and margins")
    path = out / "fig1_margins.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return [path]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(written)
