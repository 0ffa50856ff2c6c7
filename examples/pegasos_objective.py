"""Pegasos's objective epoch by epoch against the exact SVM optimum.

``J(theta) = 1/n sum hinge + lambda/2 ||theta||^2`` on the bundled heart_scale data; the
optimum comes from the SVM solved exactly (``SVC(lam=...)``). Left: the objective; right: the
gap ``J(theta_t) - J*`` on a log scale.

Run: ``python examples/pegasos_objective.py [OUT_DIR]`` (writes ``pegasos_objective.png``).
"""

from __future__ import annotations

import pathlib
import sys

from matplotlib.figure import Figure

from halfspaces.datasets import load_heart_scale
from halfspaces.plotting import pegasos_objective_history, plot_objective_and_gap


def main(out_dir: str | pathlib.Path = ".") -> list[pathlib.Path]:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    X, y = load_heart_scale()
    history, optimum = pegasos_objective_history(X, y, lam=1e-2, max_iter=40, random_state=0)
    fig = plot_objective_and_gap(history, optimum,
                                 fig=Figure(figsize=(11, 4.5), layout="constrained"))
    fig.axes[0].set_title("heart_scale, $\\lambda$ = 0.01")
    path = out / "pegasos_objective.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return [path]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(written)
