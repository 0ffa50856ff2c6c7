"""Pictures of the theory: margin boundaries, support vectors, updates, mistakes, objectives.

Needs the optional dependency matplotlib (``pip install "halfspaces[plot]"``), imported inside
each function. Nothing here calls ``plt.show()``: every function draws into ``ax`` (or
``fig``) when given one, otherwise into a new pyplot figure, and returns the Axes (the Figure
for multi-panel pictures), so the caller decides whether to show or save.

The boundary pictures need 2-D data (two features); they draw, for a score
``f(x) = <w, x> + b`` (or a kernel expansion),

    decision boundary   f(x) = 0
    margin boundaries   f(x) = +1 and f(x) = -1

and circle every point with ``y f(x) <= 1``: the points on or inside the margin, the only
ones with a non-zero hinge loss or a non-zero dual variable.
"""

from __future__ import annotations

from ._boundaries import (
    MAX_POINTS,  # noqa: F401 - the most points drawn in the plane
    perceptron_update_example,
    plot_decision_boundary,
    plot_max_margin,
    plot_perceptron_update,
    plot_regularization,
)
from ._curves import (
    pegasos_objective_history,
    plot_mistakes,
    plot_objective,
    plot_objective_and_gap,
    plot_reliability,
)

__all__ = [
    "plot_decision_boundary",
    "plot_regularization",
    "plot_max_margin",
    "plot_perceptron_update",
    "plot_mistakes",
    "plot_objective",
    "plot_objective_and_gap",
    "plot_reliability",
    "pegasos_objective_history",
    "perceptron_update_example",
]
