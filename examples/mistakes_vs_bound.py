"""Online mistakes of the perceptron against Novikoff's bound ``(R/gamma)^2``.

On data through the origin with margin gamma (``make_separable``) the perceptron makes at
most ``(R/gamma)^2`` mistakes however long the sequence; the curve flattens below the line.

Run: ``python examples/mistakes_vs_bound.py [OUT_DIR]`` (writes ``mistakes_vs_bound.png``).
"""

from __future__ import annotations

import pathlib
import sys

from matplotlib.figure import Figure

from halfspaces import Perceptron
from halfspaces.datasets import make_separable
from halfspaces.online import play
from halfspaces.plotting import plot_mistakes
from halfspaces.theory import data_radius, max_margin_separator, perceptron_mistake_bound


def main(out_dir: str | pathlib.Path = ".") -> list[pathlib.Path]:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    X, y = make_separable(n_samples=2000, n_features=10, margin=0.1, random_state=0)
    transcript = play(Perceptron(fit_intercept=False), X, y)
    _, _, gamma = max_margin_separator(X, y, fit_intercept=False)
    bound = perceptron_mistake_bound(data_radius(X), gamma)
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = plot_mistakes(transcript, bound=bound, ax=fig.add_subplot(),
                       label=f"perceptron: {transcript.n_mistakes} mistakes")
    ax.set_title("perceptron mistakes against Novikoff's bound $(R/\\gamma)^2$")
    path = out / "mistakes_vs_bound.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return [path]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(written)
