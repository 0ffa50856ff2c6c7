"""Figure 2: the same data with a small and a large regularization lambda.

Minimizing ``J = 1/n sum hinge(y (theta.x + theta_0)) + lambda/2 ||theta||^2``: a small lambda
gives a narrow margin ``2/||theta||`` with few points inside it; a large lambda a wide margin
that many points violate.

Run: ``python examples/fig2_regularization.py [OUT_DIR]`` (writes ``fig2_regularization.png``).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from matplotlib.figure import Figure

from halfspaces.plotting import plot_regularization


def main(out_dir: str | pathlib.Path = ".") -> list[pathlib.Path]:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal([-1.0, 0.0], 0.6, (30, 2)), rng.normal([1.0, 0.3], 0.6, (30, 2))])
    y = np.repeat([-1, 1], 30)
    fig = Figure(figsize=(11, 6), layout="constrained")
    plot_regularization(X, y, lams=(1e-3, 1.0), fig=fig)
    path = out / "fig2_regularization.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return [path]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(written)
