"""Figure 3: the max-margin separator of separable data and its support vectors.

The hard-margin SVM ``min 1/2 ||w||^2 s.t. y_i (w.x_i + b) >= 1``; the margin lines go through
the support vectors (circled) at distance ``gamma = 1/||w||`` from the separator.

Run: ``python examples/fig3_max_margin.py [OUT_DIR]`` (writes ``fig3_max_margin.png``).
"""

from __future__ import annotations

import pathlib
import sys

from matplotlib.figure import Figure

from halfspaces.datasets import make_separable
from halfspaces.plotting import plot_max_margin


def main(out_dir: str | pathlib.Path = ".") -> list[pathlib.Path]:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    X, y = make_separable(n_samples=40, n_features=2, margin=0.25, random_state=3)
    fig = Figure(figsize=(6, 6.5), layout="constrained")
    plot_max_margin(X, y, ax=fig.add_subplot())
    path = out / "fig3_max_margin.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return [path]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(written)
