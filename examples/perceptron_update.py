"""The perceptron's update on a mistake: ``w_{t+1} = w_t + y_t x_t``.

Plays the perceptron (through the origin) on separable 2-D data, stops at its third mistake
and draws ``w_t``, ``y_t x_t``, ``w_{t+1}`` and the boundary before and after the update.

Run: ``python examples/perceptron_update.py [OUT_DIR]`` (writes ``perceptron_update.png``).
"""

from __future__ import annotations

import pathlib
import sys

from matplotlib.figure import Figure

from halfspaces.datasets import make_separable
from halfspaces.plotting import perceptron_update_example, plot_perceptron_update


def main(out_dir: str | pathlib.Path = ".") -> list[pathlib.Path]:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    X, y = make_separable(n_samples=100, n_features=2, margin=0.1, random_state=2)
    w_t, x_t, y_t = perceptron_update_example(X, y, mistake=2)
    fig = Figure(figsize=(6, 6.5), layout="constrained")
    plot_perceptron_update(w_t, x_t, y_t, ax=fig.add_subplot())
    path = out / "perceptron_update.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return [path]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(written)
